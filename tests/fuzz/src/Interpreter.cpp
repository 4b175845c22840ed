#include "strata/fuzz/Interpreter.h"

#include "Arithmetic.h"

#include <algorithm>
#include <cmath>

namespace strata::fuzz {

Tensor::Tensor(ScalarType type, Shape shape) : type_(type), shape_(std::move(shape)) {
    int64_t stride = 1;
    for (int64_t extent : shape_) {
        strides_.push_back(stride);
        stride *= extent;
    }
    values_.assign(size_t(stride), 0.0);
}

int64_t Tensor::offset(const int64_t *coordinates) const {
    int64_t o = 0;
    for (size_t d = 0; d < shape_.size(); ++d) o += coordinates[d] * strides_[d];
    return o;
}

namespace {

class StageEvaluator {
public:
    StageEvaluator(std::vector<StageValue> &values, const Stage &stage) : values_(values), stage_(stage) {}

    StageValue operator()(const InputOp &) const { return {}; }  // supplied by the caller

    StageValue operator()(const PointwiseOp &op) const {
        const size_t rank = stage_.shape.size();
        // Per operand: its tuple, and the stride each output dimension moves it by.
        struct View {
            const StageValue *value;
            std::vector<int64_t> strides;
        };
        std::vector<View> views;
        for (const PointwiseOperand &o : op.operands) {
            View v{&values_[o.stage], std::vector<int64_t>(rank, 0)};
            const Tensor &t = (*v.value)[0];
            for (size_t k = 0; k < o.dims.size(); ++k) v.strides[o.dims[k]] = t.strides()[k];
            views.push_back(std::move(v));
        }
        StageValue out;
        for (const Expr &e : op.values) out.emplace_back(e.type, stage_.shape);
        std::vector<int64_t> offsets(views.size());
        for_each_coordinate(stage_.shape, [&](const int64_t *c, int64_t i) {
            for (size_t j = 0; j < views.size(); ++j) {
                int64_t o = 0;
                for (size_t d = 0; d < rank; ++d) o += c[d] * views[j].strides[d];
                offsets[j] = o;
            }
            for (size_t k = 0; k < op.values.size(); ++k) out[k][i] = eval(op.values[k], c, views, offsets);
        });
        return out;
    }

    StageValue operator()(const StencilOp &op) const {
        const Tensor &in = input(op.input);
        const ScalarType t = in.type();
        Tensor out(t, stage_.shape);
        const Shape taps(op.sizes.begin(), op.sizes.end());
        // Offsets of the taps, in weight order.
        std::vector<int64_t> tap_offsets;
        for_each_coordinate(taps, [&](const int64_t *k, int64_t) {
            int64_t o = 0;
            for (size_t i = 0; i < op.dims.size(); ++i) o += k[i] * in.strides()[op.dims[i]];
            tap_offsets.push_back(o);
        });
        for_each_coordinate(stage_.shape, [&](const int64_t *c, int64_t i) {
            const int64_t base = in.offset(c);
            double acc = 0;
            for (size_t k = 0; k < tap_offsets.size(); ++k) {
                acc = apply_binary(BinaryOp::Add, t, acc,
                                   apply_binary(BinaryOp::Mul, t, op.weights[k], in[base + tap_offsets[k]]));
            }
            out[i] = acc;
        });
        return {out};
    }

    StageValue operator()(const BoundaryOp &op) const {
        const Tensor &in = input(op.input);
        Tensor out(in.type(), stage_.shape);
        std::vector<int64_t> at(in.shape().size());
        for_each_coordinate(stage_.shape, [&](const int64_t *c, int64_t i) {
            bool outside = false;
            for (size_t d = 0; d < at.size(); ++d) {
                const int64_t n = in.shape()[d];
                const int64_t x = c[d] - op.pad_before[d];
                outside |= x < 0 || x >= n;
                at[d] = boundary_coordinate(op.kind, x, n);
            }
            out[i] = op.kind == BoundaryKind::ConstantExterior && outside ? op.value : in[in.offset(at.data())];
        });
        return {out};
    }

    StageValue operator()(const ResampleOp &op) const {
        const Tensor &in = input(op.input);
        const ScalarType t = in.type();
        Tensor out(t, stage_.shape);
        const int64_t stride = in.strides()[op.dim];
        const int f = op.factor;
        for_each_coordinate(stage_.shape, [&](const int64_t *c, int64_t i) {
            const int64_t x = c[op.dim];
            const int64_t base = in.offset(c) - x * stride;  // the same position with x = 0
            auto at = [&](int64_t xi) { return in[base + xi * stride]; };
            switch (op.kind) {
            case ResampleKind::DownAverage: {
                double acc = at(f * x);
                for (int k = 1; k < f; ++k) acc = apply_binary(BinaryOp::Add, t, acc, at(f * x + k));
                out[i] = divide_by_count(t, acc, f);
                break;
            }
            case ResampleKind::Subsample: out[i] = at(f * x); break;
            case ResampleKind::UpNearest: out[i] = at(x / f); break;
            case ResampleKind::UpLinear:
                out[i] = divide_by_count(t, apply_binary(BinaryOp::Add, t, at(x / 2), at((x + 1) / 2)), 2);
                break;
            }
        });
        return {out};
    }

    StageValue operator()(const TransposeOp &op) const {
        const Tensor &in = input(op.input);
        Tensor out(in.type(), stage_.shape);
        std::vector<int64_t> at(in.shape().size());
        for_each_coordinate(stage_.shape, [&](const int64_t *c, int64_t i) {
            for (size_t k = 0; k < op.order.size(); ++k) at[op.order[k]] = c[k];
            out[i] = in[in.offset(at.data())];
        });
        return {out};
    }

    StageValue operator()(const ReduceOp &op) const {
        const Tensor &in = input(op.input);
        const ScalarType t = op.type;
        Tensor out(t, stage_.shape);
        const std::vector<int> kept = kept_dims(in.shape().size(), op.dims);
        const int64_t count = element_count(sub_shape(in.shape(), op.dims));
        std::vector<int64_t> at(in.shape().size());
        for_each_coordinate(stage_.shape, [&](const int64_t *c, int64_t i) {
            for (size_t k = 0; k < kept.size(); ++k) at[kept[k]] = c[k];
            double acc = op.kind == ReduceKind::Min   ? min_identity(t)
                         : op.kind == ReduceKind::Max ? max_identity(t)
                                                      : 0.0;
            for_each_coordinate(sub_shape(in.shape(), op.dims), [&](const int64_t *r, int64_t) {
                for (size_t k = 0; k < op.dims.size(); ++k) at[op.dims[k]] = r[k];
                const double v = convert(t, in.type(), in[in.offset(at.data())]);
                switch (op.kind) {
                case ReduceKind::Sum:
                case ReduceKind::Mean: acc = apply_binary(BinaryOp::Add, t, acc, v); break;
                case ReduceKind::Min: acc = apply_binary(BinaryOp::Min, t, acc, v); break;
                case ReduceKind::Max: acc = apply_binary(BinaryOp::Max, t, acc, v); break;
                }
            });
            out[i] = op.kind == ReduceKind::Mean ? divide_by_count(t, acc, count) : acc;
        });
        return {out};
    }

    StageValue operator()(const HistogramOp &op) const {
        const Tensor &index = input(op.index);
        const Tensor *weight = op.weight ? &input(*op.weight) : nullptr;
        const ScalarType t = stage_.types[0];
        Tensor out(t, stage_.shape);
        for_each_coordinate(index.shape(), [&](const int64_t *c, int64_t i) {
            const int64_t bin = euclid_mod(int64_t(convert(ScalarType::Int32, index.type(), index[i])), op.bins);
            const double increment = weight ? (*weight)[weight->offset(c)] : 1.0;
            out[bin] = apply_binary(BinaryOp::Add, t, out[bin], increment);
        });
        return {out};
    }

    StageValue operator()(const ScanOp &op) const {
        const Tensor &in = input(op.input);
        const ScalarType t = op.type;
        Tensor out(t, stage_.shape);
        for (int64_t i = 0; i < out.size(); ++i) out[i] = convert(t, in.type(), in[i]);
        const int64_t n = stage_.shape[op.dim], stride = out.strides()[op.dim];
        const double keep = wrap(t, op.coefficient), take = wrap(t, 1 - op.coefficient);
        Shape lines = stage_.shape;
        lines[op.dim] = 1;
        for_each_coordinate(lines, [&](const int64_t *c, int64_t) {
            const int64_t base = out.offset(c);
            for (int64_t step = 1; step < n; ++step) {
                const int64_t x = op.reverse ? n - 1 - step : step;
                const int64_t prev = op.reverse ? x + 1 : x - 1;
                const double previous = out[base + prev * stride];
                const double here = convert(t, in.type(), in[base + x * stride]);
                out[base + x * stride] =
                    op.kind == ScanKind::PrefixSum
                        ? apply_binary(BinaryOp::Add, t, previous, here)
                        : apply_binary(BinaryOp::Add, t, apply_binary(BinaryOp::Mul, t, keep, previous),
                                       apply_binary(BinaryOp::Mul, t, take, here));
            }
        });
        return {out};
    }

    StageValue operator()(const GatherOp &op) const {
        const Tensor &source = input(op.source);
        const Tensor &index = input(op.index);
        Tensor out(source.type(), stage_.shape);
        const int64_t n = source.shape()[op.dim];
        std::vector<int64_t> at(source.shape().size());
        for_each_coordinate(stage_.shape, [&](const int64_t *c, int64_t i) {
            const double raw = convert(ScalarType::Int32, index.type(), index[index.offset(c)]);
            const int64_t clamped = std::clamp(int64_t(raw), int64_t(0), n - 1);
            if (source.shape().size() == 1) {
                at[0] = clamped;
            } else {
                std::copy(c, c + at.size(), at.begin());
                at[op.dim] = clamped;
            }
            out[i] = source[source.offset(at.data())];
        });
        return {out};
    }

    StageValue operator()(const ConcatOp &op) const {
        const Tensor &a = input(op.first);
        const Tensor &b = input(op.second);
        Tensor out(a.type(), stage_.shape);
        const int64_t split = a.shape()[op.dim];
        std::vector<int64_t> at(stage_.shape.size());
        for_each_coordinate(stage_.shape, [&](const int64_t *c, int64_t i) {
            std::copy(c, c + at.size(), at.begin());
            if (c[op.dim] < split) {
                out[i] = a[a.offset(at.data())];
            } else {
                at[op.dim] -= split;
                out[i] = b[b.offset(at.data())];
            }
        });
        return {out};
    }

    StageValue operator()(const Conv2dOp &op) const {
        const Tensor &in = input(op.input);
        const Tensor &w = input(op.weights);
        const ScalarType t = in.type();
        Tensor out(t, stage_.shape);
        const Shape window = {w.shape()[0], w.shape()[1], w.shape()[2]};
        for_each_coordinate(stage_.shape, [&](const int64_t *c, int64_t i) {
            double acc = 0;
            for_each_coordinate(window, [&](const int64_t *r, int64_t) {
                const int64_t wi[4] = {r[0], r[1], r[2], c[2]};
                const int64_t xi[3] = {c[0] + r[0], c[1] + r[1], r[2]};
                acc = apply_binary(BinaryOp::Add, t, acc,
                                   apply_binary(BinaryOp::Mul, t, w[w.offset(wi)], in[in.offset(xi)]));
            });
            out[i] = acc;
        });
        return {out};
    }

    StageValue operator()(const MatmulOp &op) const {
        const Tensor &a = input(op.lhs);
        const Tensor &b = input(op.rhs);
        const ScalarType t = a.type();
        Tensor out(t, stage_.shape);
        const int64_t k_extent = a.shape()[0];
        for_each_coordinate(stage_.shape, [&](const int64_t *c, int64_t i) {
            double acc = 0;
            for (int64_t k = 0; k < k_extent; ++k) {
                const int64_t ai[2] = {k, c[1]}, bi[2] = {c[0], k};
                acc = apply_binary(BinaryOp::Add, t, acc,
                                   apply_binary(BinaryOp::Mul, t, a[a.offset(ai)], b[b.offset(bi)]));
            }
            out[i] = acc;
        });
        return {out};
    }

    StageValue operator()(const PoolOp &op) const {
        const Tensor &in = input(op.input);
        const ScalarType t = in.type();
        // Integer averages accumulate in int32 (see Description.h).
        const ScalarType acc_type = op.kind == PoolKind::Average && !is_float(t) ? ScalarType::Int32 : t;
        Tensor out(t, stage_.shape);
        std::vector<int64_t> at(in.shape().size());
        for_each_coordinate(stage_.shape, [&](const int64_t *c, int64_t i) {
            std::copy(c, c + at.size(), at.begin());
            double acc = op.kind == PoolKind::Max ? max_identity(t) : 0.0;
            for (int ry = 0; ry < op.window; ++ry) {
                for (int rx = 0; rx < op.window; ++rx) {
                    at[0] = c[0] * op.stride + rx;
                    at[1] = c[1] * op.stride + ry;
                    const double v = convert(acc_type, t, in[in.offset(at.data())]);
                    acc = apply_binary(op.kind == PoolKind::Max ? BinaryOp::Max : BinaryOp::Add, acc_type, acc, v);
                }
            }
            out[i] = op.kind == PoolKind::Max
                         ? acc
                         : convert(t, acc_type, divide_by_count(acc_type, acc, int64_t(op.window) * op.window));
        });
        return {out};
    }

    StageValue operator()(const ArgReduceOp &op) const {
        const Tensor &in = input(op.input);
        StageValue out;
        for (ScalarType t : stage_.types) out.emplace_back(t, stage_.shape);
        const std::vector<int> kept = kept_dims(in.shape().size(), op.dims);
        std::vector<int64_t> at(in.shape().size());
        for_each_coordinate(stage_.shape, [&](const int64_t *c, int64_t i) {
            for (size_t k = 0; k < kept.size(); ++k) at[kept[k]] = c[k];
            double best = op.maximum ? max_identity(in.type()) : min_identity(in.type());
            std::vector<int64_t> where(op.dims.size(), 0);
            for_each_coordinate(sub_shape(in.shape(), op.dims), [&](const int64_t *r, int64_t) {
                for (size_t k = 0; k < op.dims.size(); ++k) at[op.dims[k]] = r[k];
                const double v = in[in.offset(at.data())];
                if (op.maximum ? v > best : v < best) {
                    best = v;
                    std::copy(r, r + where.size(), where.begin());
                }
            });
            out[0][i] = best;
            for (size_t k = 0; k < where.size(); ++k) out[k + 1][i] = double(where[k]);
        });
        return out;
    }

private:
    const Tensor &input(int stage) const { return values_[stage][0]; }

    // Mean-style division: floats multiply by the reciprocal in their type,
    // integers divide (Euclidean).
    static double divide_by_count(ScalarType t, double sum, int64_t count) {
        if (is_float(t)) return apply_binary(BinaryOp::Mul, t, sum, wrap(t, 1.0 / double(count)));
        return apply_binary(BinaryOp::Div, t, sum, double(count));
    }

    static int64_t boundary_coordinate(BoundaryKind kind, int64_t x, int64_t n) {
        switch (kind) {
        case BoundaryKind::RepeatEdge:
        case BoundaryKind::ConstantExterior: return std::clamp(x, int64_t(0), n - 1);
        case BoundaryKind::RepeatImage: return euclid_mod(x, n);
        case BoundaryKind::MirrorImage: {
            const int64_t m = euclid_mod(x, 2 * n);
            return m >= n ? 2 * n - 1 - m : m;
        }
        case BoundaryKind::MirrorInterior: {
            if (n == 1) return 0;
            const int64_t limit = n - 1;
            const int64_t m = euclid_mod(x, 2 * limit);
            return limit - (m > limit ? m - limit : limit - m);
        }
        }
        return x;
    }

    template <typename Views>
    double eval(const Expr &e, const int64_t *c, const Views &views, const std::vector<int64_t> &offsets) const {
        switch (e.kind) {
        case Expr::Kind::Operand: return (*views[e.operand].value)[e.element][offsets[e.operand]];
        case Expr::Kind::Constant: return wrap(e.type, e.value);
        case Expr::Kind::Coordinate: return double(c[e.dim]);
        case Expr::Kind::Cast: return convert(e.type, e.args[0].type, eval(e.args[0], c, views, offsets));
        case Expr::Kind::Unary: return apply_unary(e.unary, e.type, eval(e.args[0], c, views, offsets));
        case Expr::Kind::Binary:
            return apply_binary(e.binary, e.type, eval(e.args[0], c, views, offsets),
                                eval(e.args[1], c, views, offsets));
        case Expr::Kind::Select: {
            // Both sides are evaluated, as in Halide (select is not a branch).
            const double then_value = eval(e.args[2], c, views, offsets);
            const double else_value = eval(e.args[3], c, views, offsets);
            return compare(e.compare, eval(e.args[0], c, views, offsets), eval(e.args[1], c, views, offsets))
                       ? then_value
                       : else_value;
        }
        }
        return 0;
    }

    std::vector<StageValue> &values_;
    const Stage &stage_;
};

}  // namespace

std::vector<StageValue> evaluate(const Description &description, const std::map<std::string, Tensor> &inputs) {
    std::vector<StageValue> values(description.stages.size());
    for (size_t i = 0; i < description.stages.size(); ++i) {
        const Stage &stage = description.stages[i];
        if (const auto *input = std::get_if<InputOp>(&stage.op)) {
            auto it = inputs.find(stage.name);
            if (it == inputs.end()) throw std::invalid_argument("no values for input '" + stage.name + "'");
            if (it->second.type() != input->type || it->second.shape() != input->shape) {
                throw std::invalid_argument("input '" + stage.name + "' must be " + name_of(input->type) + " " +
                                            to_string(input->shape));
            }
            values[i] = {it->second};
            continue;
        }
        try {
            values[i] = std::visit(StageEvaluator(values, stage), stage.op);
        } catch (const UndefinedArithmetic &e) {
            throw UndefinedArithmetic("stage '" + stage.name + "' (" + op_name(stage.op) + "): " + e.what());
        }
    }
    return values;
}

}  // namespace strata::fuzz
