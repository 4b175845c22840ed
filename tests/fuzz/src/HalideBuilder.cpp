#include "strata/fuzz/HalideBuilder.h"

#include <algorithm>

namespace strata::fuzz {

namespace {

using Halide::Func;
using Halide::RDom;
using Halide::Tuple;
using Halide::Var;

const std::vector<Var> &all_vars() {
    static const std::vector<Var> vars = {Var("x"), Var("y"), Var("z"), Var("w")};
    return vars;
}

std::vector<Var> vars_of(size_t rank) { return {all_vars().begin(), all_vars().begin() + rank}; }

std::vector<Halide::Expr> as_exprs(const std::vector<Var> &vars) { return {vars.begin(), vars.end()}; }

Halide::Expr constant_of(ScalarType type, double value) {
    return Halide::Internal::make_const(halide_type(type), value);
}

// The reduction domain over some dimensions of a box, named after its stage.
RDom domain_over(const Shape &shape, const std::vector<int> &dims, const std::string &name) {
    Halide::Region region;
    for (int d : dims) region.emplace_back(0, int(shape[d]));
    return RDom(region, name + "_r");
}

// Mean-style division, as the interpreter does it (Interpreter.cpp).
Halide::Expr divide_by_count(ScalarType t, Halide::Expr sum, int64_t count) {
    if (is_float(t)) return sum * constant_of(t, 1.0 / double(count));
    return sum / constant_of(t, double(count));
}

class StageBuilder {
public:
    StageBuilder(const Description &d, BuiltPipeline &built, const Stage &stage)
        : description_(d), built_(built), stage_(stage), func_(stage.name), vars_(vars_of(stage.shape.size())) {}

    Func operator()(const InputOp &) { return func_; }  // supplied by the caller

    Func operator()(const PointwiseOp &op) {
        std::vector<Halide::Expr> values;
        for (const strata::fuzz::Expr &e : op.values) values.push_back(lower(e, op));
        define(Tuple(values));
        return func_;
    }

    Func operator()(const StencilOp &op) {
        const ScalarType t = input_type(op.input);
        const Func in = stage(op.input);
        const Shape taps(op.sizes.begin(), op.sizes.end());
        if (op.as_reduction) {
            Halide::Buffer<> weights(halide_type(t), std::vector<int>(op.sizes.begin(), op.sizes.end()),
                                     stage_.name + "_weights");
            int k = 0;
            weights.for_each_element([&](const int *pos) { store(weights, pos, t, op.weights[k++]); });
            RDom r = domain_over(taps, all_dims(taps.size()), stage_.name);
            std::vector<Halide::Expr> at = as_exprs(vars_), tap;
            for (size_t i = 0; i < op.dims.size(); ++i) {
                at[op.dims[i]] += r[i];
                tap.push_back(r[i]);
            }
            func_(vars_) = constant_of(t, 0);
            func_(vars_) += weights(tap) * in(at);
            return func_;
        }
        Halide::Expr sum;
        int64_t k = 0;
        for_each_coordinate(taps, [&](const int64_t *offset, int64_t) {
            std::vector<Halide::Expr> at = as_exprs(vars_);
            for (size_t i = 0; i < op.dims.size(); ++i) at[op.dims[i]] += int(offset[i]);
            Halide::Expr term = constant_of(t, op.weights[k++]) * in(at);
            sum = sum.defined() ? sum + term : term;
        });
        func_(vars_) = sum;
        return func_;
    }

    Func operator()(const BoundaryOp &op) {
        const Stage &in = description_.stages[op.input];
        Halide::Region bounds;
        std::vector<Halide::Expr> at;
        for (size_t d = 0; d < in.shape.size(); ++d) {
            const bool padded = op.pad_before[d] || op.pad_after[d];
            bounds.push_back(padded ? Halide::Range(0, int(in.shape[d])) : Halide::Range());
            at.push_back(vars_[d] - op.pad_before[d]);
        }
        const Func source = stage(op.input);
        Func bounded;
        switch (op.kind) {
        case BoundaryKind::RepeatEdge: bounded = Halide::BoundaryConditions::repeat_edge(source, bounds); break;
        case BoundaryKind::ConstantExterior:
            bounded = Halide::BoundaryConditions::constant_exterior(source, constant_of(in.types[0], op.value), bounds);
            break;
        case BoundaryKind::RepeatImage: bounded = Halide::BoundaryConditions::repeat_image(source, bounds); break;
        case BoundaryKind::MirrorImage: bounded = Halide::BoundaryConditions::mirror_image(source, bounds); break;
        case BoundaryKind::MirrorInterior: bounded = Halide::BoundaryConditions::mirror_interior(source, bounds); break;
        }
        built_.helpers.push_back(bounded);
        func_(vars_) = bounded(at);
        return func_;
    }

    Func operator()(const ResampleOp &op) {
        const ScalarType t = input_type(op.input);
        const Func in = stage(op.input);
        const Halide::Expr x = vars_[op.dim];
        auto at = [&](Halide::Expr coordinate) {
            std::vector<Halide::Expr> args = as_exprs(vars_);
            args[op.dim] = std::move(coordinate);
            return in(args);
        };
        const int f = op.factor;
        switch (op.kind) {
        case ResampleKind::DownAverage: {
            Halide::Expr sum = at(f * x);
            for (int k = 1; k < f; ++k) sum = sum + at(f * x + k);
            func_(vars_) = divide_by_count(t, sum, f);
            break;
        }
        case ResampleKind::Subsample: func_(vars_) = at(f * x); break;
        case ResampleKind::UpNearest: func_(vars_) = at(x / f); break;
        case ResampleKind::UpLinear: func_(vars_) = divide_by_count(t, at(x / 2) + at((x + 1) / 2), 2); break;
        }
        return func_;
    }

    Func operator()(const TransposeOp &op) {
        std::vector<Halide::Expr> at(op.order.size());
        for (size_t i = 0; i < op.order.size(); ++i) at[op.order[i]] = vars_[i];
        func_(vars_) = stage(op.input)(at);
        return func_;
    }

    Func operator()(const ReduceOp &op) {
        const Stage &in = description_.stages[op.input];
        const ScalarType t = op.type;
        RDom r = domain_over(in.shape, op.dims, stage_.name);
        const Halide::Expr value = Halide::cast(halide_type(t), stage(op.input)(reduction_args(in, op.dims, r)));
        const int64_t count = element_count(sub_shape(in.shape, op.dims));
        if (op.inline_form) {
            switch (op.kind) {
            case ReduceKind::Sum: func_(vars_) = Halide::sum(value); break;
            case ReduceKind::Mean: func_(vars_) = divide_by_count(t, Halide::sum(value), count); break;
            case ReduceKind::Min: func_(vars_) = Halide::minimum(value); break;
            case ReduceKind::Max: func_(vars_) = Halide::maximum(value); break;
            }
            return func_;
        }
        switch (op.kind) {
        case ReduceKind::Sum:
        case ReduceKind::Mean: func_(vars_) = constant_of(t, 0); break;
        case ReduceKind::Min: func_(vars_) = halide_type(t).max(); break;
        case ReduceKind::Max: func_(vars_) = halide_type(t).min(); break;
        }
        switch (op.kind) {
        case ReduceKind::Sum:
        case ReduceKind::Mean: func_(vars_) = func_(vars_) + value; break;
        case ReduceKind::Min: func_(vars_) = Halide::min(func_(vars_), value); break;
        case ReduceKind::Max: func_(vars_) = Halide::max(func_(vars_), value); break;
        }
        // The mean is a second update: the division after the sum.
        if (op.kind == ReduceKind::Mean) func_(vars_) = divide_by_count(t, func_(vars_), count);
        return func_;
    }

    Func operator()(const HistogramOp &op) {
        const Stage &index = description_.stages[op.index];
        const ScalarType t = stage_.types[0];
        RDom r = domain_over(index.shape, all_dims(index.shape.size()), stage_.name);
        std::vector<Halide::Expr> at;
        for (int i = 0; i < r.dimensions(); ++i) at.push_back(r[i]);
        const Halide::Expr bin = Halide::cast<int>(stage(op.index)(at)) % op.bins;
        func_(vars_) = constant_of(t, 0);
        func_(bin) += op.weight ? stage(*op.weight)(at) : constant_of(t, 1);
        return func_;
    }

    Func operator()(const ScanOp &op) {
        const ScalarType t = op.type;
        const Halide::Type ht = halide_type(t);
        const Func in = stage(op.input);
        func_(vars_) = Halide::cast(ht, in(vars_));
        const int64_t n = stage_.shape[op.dim];
        if (n == 1) return func_;
        RDom r(1, int(n - 1), stage_.name + "_r");
        auto along = [&](Halide::Expr coordinate) {
            std::vector<Halide::Expr> args = as_exprs(vars_);
            args[op.dim] = std::move(coordinate);
            return args;
        };
        const Halide::Expr x = op.reverse ? Halide::Expr(int(n - 1)) - r : Halide::Expr(r);
        const Halide::Expr previous = op.reverse ? Halide::Expr(int(n)) - r : r - 1;
        const Halide::Expr here = Halide::cast(ht, in(along(x)));
        if (op.kind == ScanKind::PrefixSum) {
            func_(along(x)) = func_(along(previous)) + here;
        } else {
            func_(along(x)) =
                constant_of(t, op.coefficient) * func_(along(previous)) + constant_of(t, 1 - op.coefficient) * here;
        }
        return func_;
    }

    Func operator()(const GatherOp &op) {
        const Stage &source = description_.stages[op.source];
        const Halide::Expr index =
            Halide::clamp(Halide::cast<int>(stage(op.index)(vars_)), 0, int(source.shape[op.dim] - 1));
        std::vector<Halide::Expr> at;
        if (source.shape.size() == 1) {
            at = {index};
        } else {
            at = as_exprs(vars_);
            at[op.dim] = index;
        }
        func_(vars_) = stage(op.source)(at);
        return func_;
    }

    Func operator()(const ConcatOp &op) {
        const int split = int(description_.stages[op.first].shape[op.dim]);
        const Halide::Expr x = vars_[op.dim];
        std::vector<Halide::Expr> first = as_exprs(vars_), second = as_exprs(vars_);
        // Clamped so that neither side is asked for more than it holds.
        first[op.dim] = Halide::min(x, split - 1);
        second[op.dim] = Halide::max(x - split, 0);
        func_(vars_) = Halide::select(x < split, stage(op.first)(first), stage(op.second)(second));
        return func_;
    }

    Func operator()(const Conv2dOp &op) {
        const Stage &w = description_.stages[op.weights];
        RDom r = domain_over(w.shape, {0, 1, 2}, stage_.name);
        const Var &x = vars_[0], &y = vars_[1], &c = vars_[2];
        func_(vars_) = constant_of(stage_.types[0], 0);
        func_(vars_) += stage(op.weights)(r.x, r.y, r.z, c) * stage(op.input)(x + r.x, y + r.y, r.z);
        return func_;
    }

    Func operator()(const MatmulOp &op) {
        RDom k(0, int(description_.stages[op.lhs].shape[0]), stage_.name + "_r");
        const Var &j = vars_[0], &i = vars_[1];
        func_(vars_) = constant_of(stage_.types[0], 0);
        func_(vars_) += stage(op.lhs)(k, i) * stage(op.rhs)(j, k);
        return func_;
    }

    Func operator()(const PoolOp &op) {
        const ScalarType t = stage_.types[0];
        RDom r(0, op.window, 0, op.window, stage_.name + "_r");
        std::vector<Halide::Expr> at = as_exprs(vars_);
        at[0] = vars_[0] * op.stride + r.x;
        at[1] = vars_[1] * op.stride + r.y;
        const Func in = stage(op.input);
        if (op.kind == PoolKind::Max) {
            func_(vars_) = Halide::maximum(in(at));
            return func_;
        }
        // Integer averages accumulate in int32 (see Description.h).
        const ScalarType acc_type = is_float(t) ? t : ScalarType::Int32;
        Func sum(stage_.name + "_sum");
        sum(vars_) = constant_of(acc_type, 0);
        sum(vars_) += Halide::cast(halide_type(acc_type), in(at));
        built_.helpers.push_back(sum);
        func_(vars_) =
            Halide::cast(halide_type(t), divide_by_count(acc_type, sum(vars_), int64_t(op.window) * op.window));
        return func_;
    }

    Func operator()(const ArgReduceOp &op) {
        const Stage &in = description_.stages[op.input];
        RDom r = domain_over(in.shape, op.dims, stage_.name);
        const Halide::Expr value = stage(op.input)(reduction_args(in, op.dims, r));
        const Tuple best = op.maximum ? Halide::argmax(r, value) : Halide::argmin(r, value);
        // Halide's order is (where..., value); the description's is (value, where...).
        std::vector<Halide::Expr> elements = {best[op.dims.size()]};
        for (size_t k = 0; k < op.dims.size(); ++k) elements.push_back(best[k]);
        define(Tuple(elements));
        return func_;
    }

private:
    Func stage(int i) const { return built_.stages[i]; }
    ScalarType input_type(int i) const { return description_.stages[i].types[0]; }

    void define(const Tuple &values) {
        if (values.size() == 1)
            func_(vars_) = values[0];
        else
            func_(vars_) = values;
    }

    // The input's coordinates: output variables for the kept dimensions, the
    // reduction variables for the reduced ones.
    std::vector<Halide::Expr> reduction_args(const Stage &in, const std::vector<int> &reduced, const RDom &r) const {
        std::vector<Halide::Expr> args(in.shape.size());
        size_t next_var = 0;
        for (size_t d = 0; d < in.shape.size(); ++d) {
            auto it = std::find(reduced.begin(), reduced.end(), int(d));
            args[d] =
                it != reduced.end() ? Halide::Expr(r[int(it - reduced.begin())]) : Halide::Expr(vars_[next_var++]);
        }
        return args;
    }

    static void store(Halide::Buffer<> &buffer, const int *pos, ScalarType t, double v) {
        switch (t) {
        case ScalarType::Float32: buffer.as<float>()(pos) = float(v); break;
        case ScalarType::Float64: buffer.as<double>()(pos) = v; break;
        case ScalarType::Int32: buffer.as<int32_t>()(pos) = int32_t(v); break;
        case ScalarType::UInt8: buffer.as<uint8_t>()(pos) = uint8_t(v); break;
        case ScalarType::UInt16: buffer.as<uint16_t>()(pos) = uint16_t(v); break;
        }
    }

    Halide::Expr lower(const strata::fuzz::Expr &e, const PointwiseOp &op) const {
        auto arg = [&](int i) { return lower(e.args[i], op); };
        switch (e.kind) {
        case strata::fuzz::Expr::Kind::Operand: {
            const PointwiseOperand &o = op.operands[e.operand];
            std::vector<Halide::Expr> at;
            for (int d : o.dims) at.push_back(vars_[d]);
            const Func f = stage(o.stage);
            return description_.stages[o.stage].types.size() > 1 ? Halide::Expr(f(at)[e.element]) : Halide::Expr(f(at));
        }
        case strata::fuzz::Expr::Kind::Constant: return constant_of(e.type, e.value);
        case strata::fuzz::Expr::Kind::Coordinate: return vars_[e.dim];
        case strata::fuzz::Expr::Kind::Cast: return Halide::cast(halide_type(e.type), arg(0));
        case strata::fuzz::Expr::Kind::Unary: {
            const Halide::Expr a = arg(0);
            switch (e.unary) {
            case UnaryOp::Neg: return -a;
            // Halide's abs of a signed integer is unsigned; the description keeps the type.
            case UnaryOp::Abs: return Halide::cast(a.type(), Halide::abs(a));
            case UnaryOp::Sqrt: return Halide::sqrt(a);
            case UnaryOp::Exp: return Halide::exp(a);
            case UnaryOp::Log: return Halide::log(a);
            case UnaryOp::Sin: return Halide::sin(a);
            case UnaryOp::Cos: return Halide::cos(a);
            case UnaryOp::Tanh: return Halide::tanh(a);
            }
            break;
        }
        case strata::fuzz::Expr::Kind::Binary: {
            const Halide::Expr a = arg(0), b = arg(1);
            switch (e.binary) {
            case BinaryOp::Add: return a + b;
            case BinaryOp::Sub: return a - b;
            case BinaryOp::Mul: return a * b;
            case BinaryOp::Div: return a / b;
            case BinaryOp::Mod: return a % b;
            case BinaryOp::Min: return Halide::min(a, b);
            case BinaryOp::Max: return Halide::max(a, b);
            case BinaryOp::And: return a & b;
            case BinaryOp::Or: return a | b;
            case BinaryOp::Xor: return a ^ b;
            case BinaryOp::ShiftLeft: return a << b;
            case BinaryOp::ShiftRight: return a >> b;
            }
            break;
        }
        case strata::fuzz::Expr::Kind::Select: {
            const Halide::Expr l = arg(0), r = arg(1);
            Halide::Expr condition;
            switch (e.compare) {
            case CompareOp::Less: condition = l < r; break;
            case CompareOp::LessEqual: condition = l <= r; break;
            case CompareOp::Equal: condition = l == r; break;
            case CompareOp::NotEqual: condition = l != r; break;
            }
            return Halide::select(condition, arg(2), arg(3));
        }
        }
        throw std::logic_error("unhandled expression node");
    }

    const Description &description_;
    BuiltPipeline &built_;
    const Stage &stage_;
    Func func_;
    std::vector<Var> vars_;
};

}  // namespace

Halide::Type halide_type(ScalarType type) {
    switch (type) {
    case ScalarType::Float32: return Halide::Float(32);
    case ScalarType::Float64: return Halide::Float(64);
    case ScalarType::Int32: return Halide::Int(32);
    case ScalarType::UInt8: return Halide::UInt(8);
    case ScalarType::UInt16: return Halide::UInt(16);
    }
    return Halide::Float(32);
}

Halide::Region box_region(const Shape &shape) {
    Halide::Region region;
    for (int64_t extent : shape) region.emplace_back(0, int(extent));
    return region;
}

void schedule_compute_root(const BuiltPipeline &built, const Description &description) {
    for (size_t i = 0; i < built.stages.size(); ++i) {
        if (!is_input(description.stages[i])) Func(built.stages[i]).compute_root();
    }
    for (const Func &helper : built.helpers) Func(helper).compute_root();
}

BuiltPipeline build_pipeline(const Description &description, const std::map<std::string, Halide::Func> &inputs) {
    BuiltPipeline built;
    for (const Stage &stage : description.stages) {
        if (is_input(stage)) {
            auto it = inputs.find(stage.name);
            if (it == inputs.end()) throw std::invalid_argument("no Func given for input '" + stage.name + "'");
            built.stages.push_back(it->second);
            continue;
        }
        StageBuilder builder(description, built, stage);
        built.stages.push_back(std::visit(builder, stage.op));
    }
    return built;
}

}  // namespace strata::fuzz
