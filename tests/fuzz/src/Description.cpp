#include "strata/fuzz/Description.h"

#include "Overloaded.h"
#include "ParseName.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

namespace strata::fuzz {

namespace {

constexpr BoundaryKind kBoundaryKinds[] = {BoundaryKind::RepeatEdge, BoundaryKind::ConstantExterior,
                                           BoundaryKind::RepeatImage, BoundaryKind::MirrorImage,
                                           BoundaryKind::MirrorInterior};
constexpr ResampleKind kResampleKinds[] = {ResampleKind::DownAverage, ResampleKind::Subsample, ResampleKind::UpNearest,
                                           ResampleKind::UpLinear};
constexpr ReduceKind kReduceKinds[] = {ReduceKind::Sum, ReduceKind::Mean, ReduceKind::Min, ReduceKind::Max};
constexpr ScanKind kScanKinds[] = {ScanKind::PrefixSum, ScanKind::Recursive};
constexpr PoolKind kPoolKinds[] = {PoolKind::Max, PoolKind::Average};

// Checks of one stage against its (already inferred) operands.
class StageChecker {
public:
    StageChecker(Description &description, int index)
        : description_(description), index_(index), stage_(description_.stages[index]) {}

    void operator()(InputOp &op) {
        require(op.shape.size() <= size_t(kMaxRank),
                "an input has at most " + std::to_string(kMaxRank) + " dimensions");
        for (int64_t e : op.shape) require(e >= 1, "every extent must be at least 1, got " + to_string(op.shape));
        if (op.range) {
            require(op.range->lo <= op.range->hi, "its value range is empty");
            require(op.range->lo >= lowest_of(op.type) && op.range->hi <= highest_of(op.type),
                    std::string("its value range does not fit in ") + name_of(op.type));
        }
        set({op.type}, op.shape);
    }

    void operator()(PointwiseOp &op) {
        require(!op.operands.empty(), "a pointwise stage needs at least one operand");
        require(!op.values.empty() && op.values.size() <= 4, "a pointwise stage has 1 to 4 values");
        int rank = 0;
        for (const PointwiseOperand &o : op.operands) {
            for (int d : o.dims) rank = std::max(rank, d + 1);
        }
        Shape shape(rank, -1);
        for (size_t i = 0; i < op.operands.size(); ++i) {
            const PointwiseOperand &o = op.operands[i];
            const Stage &s = operand(o.stage);
            require(o.dims.size() == s.shape.size(), "operand " + std::to_string(i) + " (" + s.name + ") is " +
                                                         std::to_string(s.shape.size()) + "-D but is mapped to " +
                                                         std::to_string(o.dims.size()) + " dimensions");
            std::set<int> seen;
            for (size_t k = 0; k < o.dims.size(); ++k) {
                const int d = o.dims[k];
                require(d >= 0 && seen.insert(d).second,
                        "operand " + std::to_string(i) + " maps two dimensions to one");
                shape[d] = shape[d] < 0 ? s.shape[k] : std::min(shape[d], s.shape[k]);
            }
        }
        for (int d = 0; d < rank; ++d) require(shape[d] >= 1, "no operand spans output dimension " + std::to_string(d));
        std::vector<ScalarType> types;
        for (Expr &value : op.values) {
            try {
                infer_types(
                    value,
                    [&](int i, int element) {
                        if (i < 0 || size_t(i) >= op.operands.size()) {
                            throw std::invalid_argument("reads operand " + std::to_string(i) + " of " +
                                                        std::to_string(op.operands.size()));
                        }
                        const Stage &s = operand(op.operands[i].stage);
                        if (element < 0 || size_t(element) >= s.types.size()) {
                            throw std::invalid_argument("reads element " + std::to_string(element) + " of " + s.name +
                                                        ", which has " + std::to_string(s.types.size()));
                        }
                        return s.types[element];
                    },
                    rank);
            } catch (const std::invalid_argument &e) {
                fail(e.what());
            }
            types.push_back(value.type);
        }
        set(types, shape);
    }

    void operator()(StencilOp &op) {
        const Stage &in = single(op.input);
        require(!op.dims.empty() && op.dims.size() == op.sizes.size(), "dims and sizes must match and not be empty");
        Shape shape = in.shape;
        int64_t taps = 1;
        std::set<int> seen;
        for (size_t i = 0; i < op.dims.size(); ++i) {
            const int d = op.dims[i];
            require(d >= 0 && size_t(d) < in.shape.size() && seen.insert(d).second, "bad stencil dimension list");
            require(op.sizes[i] >= 1 && op.sizes[i] <= in.shape[d],
                    "a stencil of " + std::to_string(op.sizes[i]) + " along dimension " + std::to_string(d) +
                        " needs an extent of at least that, and " + in.name + " has " + to_string(in.shape));
            shape[d] -= op.sizes[i] - 1;
            taps *= op.sizes[i];
        }
        require(int64_t(op.weights.size()) == taps,
                "has " + std::to_string(op.weights.size()) + " weights for " + std::to_string(taps) + " taps");
        for (double w : op.weights) require_representable(in.types[0], w, "weight");
        set(in.types, shape);
    }

    void operator()(BoundaryOp &op) {
        const Stage &in = single(op.input);
        const size_t rank = in.shape.size();
        require(op.pad_before.size() == rank && op.pad_after.size() == rank, "needs a padding for every dimension");
        Shape shape = in.shape;
        for (size_t d = 0; d < rank; ++d) {
            require(op.pad_before[d] >= 0 && op.pad_after[d] >= 0, "padding must not be negative");
            shape[d] += op.pad_before[d] + op.pad_after[d];
        }
        if (op.kind == BoundaryKind::ConstantExterior) require_representable(in.types[0], op.value, "value");
        set(in.types, shape);
    }

    void operator()(ResampleOp &op) {
        const Stage &in = single(op.input);
        require_dim(op.dim, in);
        require(op.factor >= 2 && op.factor <= 8, "the factor must be 2 to 8");
        Shape shape = in.shape;
        int64_t &n = shape[op.dim];
        switch (op.kind) {
        case ResampleKind::DownAverage:
            require(n >= op.factor, "downsampling by " + std::to_string(op.factor) + " needs that many elements");
            n /= op.factor;
            break;
        case ResampleKind::Subsample: n = (n + op.factor - 1) / op.factor; break;
        case ResampleKind::UpNearest: n *= op.factor; break;
        case ResampleKind::UpLinear:
            require(op.factor == 2, "linear upsampling is by 2");
            n = 2 * n - 1;
            break;
        }
        set(in.types, shape);
    }

    void operator()(TransposeOp &op) {
        const Stage &in = single(op.input);
        std::vector<int> sorted = op.order;
        std::sort(sorted.begin(), sorted.end());
        bool permutation = sorted.size() == in.shape.size();
        for (size_t i = 0; permutation && i < sorted.size(); ++i) permutation = sorted[i] == int(i);
        require(permutation, "the order must be a permutation of the input's dimensions");
        Shape shape;
        for (int d : op.order) shape.push_back(in.shape[d]);
        set(in.types, shape);
    }

    void operator()(ReduceOp &op) {
        const Stage &in = single(op.input);
        const Shape shape = kept_shape(in, op.dims);
        if (op.kind == ReduceKind::Min || op.kind == ReduceKind::Max) {
            require(op.type == in.types[0], "min and max keep the input's type");
        }
        set({op.type}, shape);
    }

    void operator()(HistogramOp &op) {
        const Stage &index = single(op.index);
        require(!is_float(index.types[0]),
                "the bin index must be an integer, not " + std::string(name_of(index.types[0])));
        require(op.bins >= 1 && op.bins <= 65536, "1 to 65536 bins");
        ScalarType type = ScalarType::Int32;
        if (op.weight) {
            const Stage &weight = single(*op.weight);
            require(weight.shape.size() == index.shape.size(), "the weights must have the index's rank");
            for (size_t d = 0; d < weight.shape.size(); ++d) {
                require(weight.shape[d] >= index.shape[d], "the weights must cover the index's box");
            }
            type = weight.types[0];
        }
        set({type}, {op.bins});
    }

    void operator()(ScanOp &op) {
        const Stage &in = single(op.input);
        require_dim(op.dim, in);
        if (op.kind == ScanKind::Recursive) {
            require(is_float(in.types[0]) && op.type == in.types[0], "a recursive filter keeps its float input type");
            require(op.coefficient > 0 && op.coefficient < 1, "the coefficient must be in (0, 1)");
        }
        set({op.type}, in.shape);
    }

    void operator()(GatherOp &op) {
        const Stage &source = single(op.source);
        const Stage &index = single(op.index);
        require(!is_float(index.types[0]), "the index must be an integer, not " + std::string(name_of(index.types[0])));
        require(!source.shape.empty(), "cannot gather from a 0-D stage");
        if (source.shape.size() == 1) {
            require(op.dim == 0, "a lookup table is indexed along dimension 0");
            set(source.types, index.shape);
            return;
        }
        require(source.shape.size() == index.shape.size(), "source and index must have one rank (or a 1-D source)");
        require_dim(op.dim, source);
        Shape shape = index.shape;
        for (size_t d = 0; d < shape.size(); ++d) {
            if (int(d) != op.dim) shape[d] = std::min(shape[d], source.shape[d]);
        }
        set(source.types, shape);
    }

    void operator()(ConcatOp &op) {
        const Stage &a = single(op.first);
        const Stage &b = single(op.second);
        require(a.types == b.types, "concatenates different types");
        require(a.shape.size() == b.shape.size(), "concatenates different ranks");
        require_dim(op.dim, a);
        Shape shape = a.shape;
        for (size_t d = 0; d < shape.size(); ++d) {
            shape[d] = int(d) == op.dim ? a.shape[d] + b.shape[d] : std::min(a.shape[d], b.shape[d]);
        }
        set(a.types, shape);
    }

    void operator()(Conv2dOp &op) {
        const Stage &in = single(op.input);
        const Stage &w = single(op.weights);
        require(in.shape.size() == 3 && w.shape.size() == 4, "takes a 3-D input and 4-D weights");
        require(is_float(in.types[0]) && in.types == w.types, "input and weights must be of one float type");
        require(w.shape[2] == in.shape[2], "the weights have " + std::to_string(w.shape[2]) + " input channels, " +
                                               in.name + " has " + std::to_string(in.shape[2]));
        require(w.shape[0] <= in.shape[0] && w.shape[1] <= in.shape[1], "the kernel is larger than the input");
        set(in.types, {in.shape[0] - w.shape[0] + 1, in.shape[1] - w.shape[1] + 1, w.shape[3]});
    }

    void operator()(MatmulOp &op) {
        const Stage &a = single(op.lhs);
        const Stage &b = single(op.rhs);
        require(a.shape.size() == 2 && b.shape.size() == 2, "multiplies 2-D stages");
        require(is_float(a.types[0]) && a.types == b.types, "both sides must be of one float type");
        require(a.shape[0] == b.shape[1], "inner extents differ: " + to_string(a.shape) + " x " + to_string(b.shape));
        set(a.types, {b.shape[0], a.shape[1]});
    }

    void operator()(PoolOp &op) {
        const Stage &in = single(op.input);
        require(in.shape.size() >= 2, "pools over dimensions 0 and 1");
        require(op.window >= 1 && op.stride >= 1, "window and stride must be positive");
        require(in.shape[0] >= op.window && in.shape[1] >= op.window, "the window is larger than the input");
        Shape shape = in.shape;
        for (int d = 0; d < 2; ++d) shape[d] = (shape[d] - op.window) / op.stride + 1;
        set(in.types, shape);
    }

    void operator()(ArgReduceOp &op) {
        const Stage &in = single(op.input);
        const Shape shape = kept_shape(in, op.dims);
        std::vector<ScalarType> types = {in.types[0]};
        types.insert(types.end(), op.dims.size(), ScalarType::Int32);
        set(types, shape);
    }

private:
    [[noreturn]] void fail(const std::string &problem) const {
        throw std::invalid_argument("stage '" + stage_.name + "' (" + op_name(stage_.op) + "): " + problem);
    }
    void require(bool ok, const std::string &problem) const {
        if (!ok) fail(problem);
    }
    const Stage &operand(int i) const {
        require(i >= 0 && i < index_, "reads stage " + std::to_string(i) + ", which does not come before it");
        return description_.stages[i];
    }
    const Stage &single(int i) const {
        const Stage &s = operand(i);
        require(s.types.size() == 1, "reads the tuple-valued stage " + s.name + " as one value");
        return s;
    }
    void require_dim(int d, const Stage &s) const {
        require(d >= 0 && size_t(d) < s.shape.size(), "dimension " + std::to_string(d) + " of " + s.name +
                                                          ", which is " + std::to_string(s.shape.size()) + "-D");
    }
    void require_representable(ScalarType type, double v, const std::string &what) const {
        require(std::isfinite(v) &&
                    (is_float(type) || (v == std::floor(v) && v >= lowest_of(type) && v <= highest_of(type))),
                "its " + what + " " + std::to_string(v) + " is not a " + name_of(type));
    }
    Shape kept_shape(const Stage &in, const std::vector<int> &dims) const {
        require(!dims.empty(), "reduces no dimension");
        std::set<int> reduced;
        for (int d : dims) {
            require_dim(d, in);
            require(reduced.insert(d).second, "reduces a dimension twice");
        }
        Shape shape;
        for (size_t d = 0; d < in.shape.size(); ++d) {
            if (!reduced.count(int(d))) shape.push_back(in.shape[d]);
        }
        return shape;
    }
    void set(std::vector<ScalarType> types, Shape shape) {
        for (int64_t e : shape) require(e >= 1, "its box " + to_string(shape) + " is empty");
        require(element_count(shape) <= kMaxStageElements, "its box " + to_string(shape) + " is too large");
        stage_.types = std::move(types);
        stage_.shape = std::move(shape);
    }

    Description &description_;
    int index_;
    Stage &stage_;
};

}  // namespace

const char *op_name(const Op &op) {
    return std::visit(
        Overloaded{[](const InputOp &) { return "input"; }, [](const PointwiseOp &) { return "pointwise"; },
                   [](const StencilOp &) { return "stencil"; }, [](const BoundaryOp &) { return "boundary"; },
                   [](const ResampleOp &) { return "resample"; }, [](const TransposeOp &) { return "transpose"; },
                   [](const ReduceOp &) { return "reduce"; }, [](const HistogramOp &) { return "histogram"; },
                   [](const ScanOp &) { return "scan"; }, [](const GatherOp &) { return "gather"; },
                   [](const ConcatOp &) { return "concat"; }, [](const Conv2dOp &) { return "conv2d"; },
                   [](const MatmulOp &) { return "matmul"; }, [](const PoolOp &) { return "pool"; },
                   [](const ArgReduceOp &) { return "argreduce"; }},
        op);
}

const char *name_of(BoundaryKind kind) {
    switch (kind) {
    case BoundaryKind::RepeatEdge: return "repeat_edge";
    case BoundaryKind::ConstantExterior: return "constant_exterior";
    case BoundaryKind::RepeatImage: return "repeat_image";
    case BoundaryKind::MirrorImage: return "mirror_image";
    case BoundaryKind::MirrorInterior: return "mirror_interior";
    }
    return "unknown";
}

const char *name_of(ResampleKind kind) {
    switch (kind) {
    case ResampleKind::DownAverage: return "down_average";
    case ResampleKind::Subsample: return "subsample";
    case ResampleKind::UpNearest: return "up_nearest";
    case ResampleKind::UpLinear: return "up_linear";
    }
    return "unknown";
}

const char *name_of(ReduceKind kind) {
    switch (kind) {
    case ReduceKind::Sum: return "sum";
    case ReduceKind::Mean: return "mean";
    case ReduceKind::Min: return "min";
    case ReduceKind::Max: return "max";
    }
    return "unknown";
}

const char *name_of(ScanKind kind) { return kind == ScanKind::PrefixSum ? "prefix_sum" : "recursive"; }
const char *name_of(PoolKind kind) { return kind == PoolKind::Max ? "max" : "average"; }

BoundaryKind parse_boundary_kind(const std::string &name) {
    return parse_name(name, kBoundaryKinds, "boundary condition");
}
ResampleKind parse_resample_kind(const std::string &name) { return parse_name(name, kResampleKinds, "resampling"); }
ReduceKind parse_reduce_kind(const std::string &name) { return parse_name(name, kReduceKinds, "reduction"); }
ScanKind parse_scan_kind(const std::string &name) { return parse_name(name, kScanKinds, "scan"); }
PoolKind parse_pool_kind(const std::string &name) { return parse_name(name, kPoolKinds, "pooling"); }

std::vector<int> operands_of(const Op &op) {
    return std::visit(Overloaded{[](const InputOp &) { return std::vector<int>{}; },
                                 [](const PointwiseOp &o) {
                                     std::vector<int> v;
                                     for (const PointwiseOperand &p : o.operands) v.push_back(p.stage);
                                     return v;
                                 },
                                 [](const StencilOp &o) { return std::vector<int>{o.input}; },
                                 [](const BoundaryOp &o) { return std::vector<int>{o.input}; },
                                 [](const ResampleOp &o) { return std::vector<int>{o.input}; },
                                 [](const TransposeOp &o) { return std::vector<int>{o.input}; },
                                 [](const ReduceOp &o) { return std::vector<int>{o.input}; },
                                 [](const HistogramOp &o) {
                                     return o.weight ? std::vector<int>{o.index, *o.weight} : std::vector<int>{o.index};
                                 },
                                 [](const ScanOp &o) { return std::vector<int>{o.input}; },
                                 [](const GatherOp &o) {
                                     return std::vector<int>{o.source, o.index};
                                 },
                                 [](const ConcatOp &o) {
                                     return std::vector<int>{o.first, o.second};
                                 },
                                 [](const Conv2dOp &o) {
                                     return std::vector<int>{o.input, o.weights};
                                 },
                                 [](const MatmulOp &o) {
                                     return std::vector<int>{o.lhs, o.rhs};
                                 },
                                 [](const PoolOp &o) { return std::vector<int>{o.input}; },
                                 [](const ArgReduceOp &o) { return std::vector<int>{o.input}; }},
                      op);
}

void remap_operands(Op &op, const std::function<int(int)> &remap) {
    std::visit(
        Overloaded{[](InputOp &) {},
                   [&](PointwiseOp &o) {
                       for (PointwiseOperand &p : o.operands) p.stage = remap(p.stage);
                   },
                   [&](StencilOp &o) { o.input = remap(o.input); }, [&](BoundaryOp &o) { o.input = remap(o.input); },
                   [&](ResampleOp &o) { o.input = remap(o.input); }, [&](TransposeOp &o) { o.input = remap(o.input); },
                   [&](ReduceOp &o) { o.input = remap(o.input); },
                   [&](HistogramOp &o) {
                       o.index = remap(o.index);
                       if (o.weight) o.weight = remap(*o.weight);
                   },
                   [&](ScanOp &o) { o.input = remap(o.input); },
                   [&](GatherOp &o) {
                       o.source = remap(o.source);
                       o.index = remap(o.index);
                   },
                   [&](ConcatOp &o) {
                       o.first = remap(o.first);
                       o.second = remap(o.second);
                   },
                   [&](Conv2dOp &o) {
                       o.input = remap(o.input);
                       o.weights = remap(o.weights);
                   },
                   [&](MatmulOp &o) {
                       o.lhs = remap(o.lhs);
                       o.rhs = remap(o.rhs);
                   },
                   [&](PoolOp &o) { o.input = remap(o.input); }, [&](ArgReduceOp &o) { o.input = remap(o.input); }},
        op);
}

bool is_input(const Stage &stage) { return std::holds_alternative<InputOp>(stage.op); }

void infer_stages(Description &description) {
    std::set<std::string> names;
    for (size_t i = 0; i < description.stages.size(); ++i) {
        Stage &stage = description.stages[i];
        if (stage.name.empty() || !names.insert(stage.name).second) {
            throw std::invalid_argument("stage " + std::to_string(i) + ": its name '" + stage.name +
                                        "' is empty or not unique");
        }
        StageChecker check(description, int(i));
        std::visit(check, stage.op);
    }
}

void infer(Description &description) {
    infer_stages(description);
    if (description.outputs.empty()) throw std::invalid_argument("the pipeline has no output");
    std::set<int> outputs;
    for (int o : description.outputs) {
        if (o < 0 || size_t(o) >= description.stages.size()) {
            throw std::invalid_argument("output " + std::to_string(o) + " is not a stage");
        }
        const Stage &s = description.stages[o];
        if (is_input(s)) throw std::invalid_argument("output '" + s.name + "' is an input");
        if (!outputs.insert(o).second) throw std::invalid_argument("output '" + s.name + "' is listed twice");
    }
}

void prune(Description &description) {
    const size_t n = description.stages.size();
    std::vector<bool> live(n, false);
    for (int o : description.outputs) live[o] = true;
    for (size_t i = n; i-- > 0;) {
        if (!live[i]) continue;
        for (int operand : operands_of(description.stages[i].op)) live[operand] = true;
    }
    std::vector<int> new_index(n, -1);
    std::vector<Stage> kept;
    for (size_t i = 0; i < n; ++i) {
        if (!live[i]) continue;
        new_index[i] = int(kept.size());
        kept.push_back(std::move(description.stages[i]));
    }
    for (Stage &s : kept) remap_operands(s.op, [&](int i) { return new_index[i]; });
    for (int &o : description.outputs) o = new_index[o];
    description.stages = std::move(kept);
}

}  // namespace strata::fuzz
