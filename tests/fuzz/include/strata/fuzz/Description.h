// Description: a random pipeline as plain data — its input images, its
// stages (each one operation on earlier stages), and which stages are the
// pipeline's outputs. It is what the generator draws, what the Halide
// builder and the interpreter both read, what the minimizer shrinks, and
// what a regression test saves (as JSON, see DescriptionJson.h).
//
// Every stage is defined over a box [0, extent) in each dimension (rank 0
// to 4, dimension 0 innermost), and each operation reads its operands only
// inside their boxes: stencils shrink the box (a "same"-size stencil is a
// Boundary stage followed by a stencil), gathers clamp their indices, and
// resampling scales extents. So the interpreter evaluates each stage over
// its box alone, and a compiled pipeline realized over the output boxes
// must produce the same values whatever its schedule.
//
// Example:
//   Description d = draw_random_pipeline(7, 12);  // RandomPipeline.h
//   infer(d);                                      // derives d.stages[i].types and .shape, or throws
#pragma once

#include "strata/fuzz/Box.h"
#include "strata/fuzz/Expression.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace strata::fuzz {

constexpr int kMaxRank = 4;
// Largest stage the interpreter and the check runs are asked to hold.
constexpr int64_t kMaxStageElements = int64_t(1) << 25;

// Values an input is filled with (the check harness's default when absent).
struct ValueBounds {
    double lo = 0;
    double hi = 1;
};

struct InputOp {
    ScalarType type = ScalarType::Float32;
    Shape shape;
    std::optional<ValueBounds> range;
};

// Operand dimension i is read at output coordinate dims[i]; an operand of
// lower rank is broadcast along the output dimensions it does not name.
struct PointwiseOperand {
    int stage = 0;
    std::vector<int> dims;
};

// One value per tuple element, each an expression of the operands at the
// same (mapped) coordinates and of the coordinates themselves.
struct PointwiseOp {
    std::vector<PointwiseOperand> operands;
    std::vector<Expr> values;
};

// out(x) = sum over the box k in [0, sizes) of weights[k] * in(x + k), the
// box spanning `dims`; weights are listed with the first dimension
// innermost. Written as one expression, or as an update over an RDom that
// reads the weights from a constant buffer (`as_reduction`).
struct StencilOp {
    int input = 0;
    std::vector<int> dims;
    std::vector<int> sizes;
    std::vector<double> weights;
    bool as_reduction = false;
};

enum class BoundaryKind { RepeatEdge, ConstantExterior, RepeatImage, MirrorImage, MirrorInterior };

// out(x) = bc(in)(x - pad_before), where bc is Halide's boundary condition
// of that kind over the input's box; a dimension without padding is left
// unbounded.
struct BoundaryOp {
    int input = 0;
    BoundaryKind kind = BoundaryKind::RepeatEdge;
    std::vector<int> pad_before;
    std::vector<int> pad_after;
    double value = 0;  // ConstantExterior
};

// Along one dimension: DownAverage out(x) = (in(f x) + ... + in(f x + f - 1)) / f
// (computed in the element type), Subsample out(x) = in(f x), UpNearest
// out(x) = in(x / f), UpLinear (f = 2) out(x) = (in(x / 2) + in((x + 1) / 2)) / 2.
enum class ResampleKind { DownAverage, Subsample, UpNearest, UpLinear };

struct ResampleOp {
    int input = 0;
    int dim = 0;
    ResampleKind kind = ResampleKind::DownAverage;
    int factor = 2;
};

// Output dimension i is input dimension order[i].
struct TransposeOp {
    int input = 0;
    std::vector<int> order;
};

enum class ReduceKind { Sum, Mean, Min, Max };

// Reduces `dims` away (all of them: a 0-D result). Sum and Mean accumulate
// in `type` (the input's values converted to it); Min and Max keep the
// input's type. `inline_form` uses Halide's inline reductions (sum(),
// maximum(), ...) instead of an explicit update definition.
struct ReduceOp {
    int input = 0;
    std::vector<int> dims;
    ReduceKind kind = ReduceKind::Sum;
    ScalarType type = ScalarType::Float32;
    bool inline_form = false;
};

// A scatter: for every element of `index`, bin euclid_mod(int32(value), bins)
// is incremented by one (int32 counts) or by `weight` at the same coordinates.
struct HistogramOp {
    int index = 0;
    std::optional<int> weight;
    int bins = 16;
};

// A recurrence along one dimension (from its end when `reverse`):
// PrefixSum out(x) = out(x - 1) + in(x), in `type`; Recursive out(x) =
// c out(x - 1) + (1 - c) in(x), in the input's float type.
enum class ScanKind { PrefixSum, Recursive };

struct ScanOp {
    int input = 0;
    int dim = 0;
    ScanKind kind = ScanKind::PrefixSum;
    double coefficient = 0.5;
    bool reverse = false;
    ScalarType type = ScalarType::Float32;
};

// An indirect load with a clamped index: a 1-D source is a lookup table,
// out(x) = source(clamp(index(x), 0, n - 1)); a source of the index's rank
// is read at the output coordinates with dimension `dim` replaced by the
// clamped index.
struct GatherOp {
    int source = 0;
    int index = 0;
    int dim = 0;
};

// `first` followed by `second` along `dim`.
struct ConcatOp {
    int first = 0;
    int second = 0;
    int dim = 0;
};

// A valid 2-D convolution: input [W, H, Cin], weights [Kx, Ky, Cin, Cout]
// -> [W - Kx + 1, H - Ky + 1, Cout].
struct Conv2dOp {
    int input = 0;
    int weights = 0;
};

// lhs [K, M], rhs [N, K] -> [N, M]: out(j, i) = sum_k lhs(k, i) rhs(j, k).
struct MatmulOp {
    int lhs = 0;
    int rhs = 0;
};

// Over dimensions 0 and 1, windows of window x window every `stride`.
// Average of integers: int32 sum, Euclidean division, converted back.
enum class PoolKind { Max, Average };

struct PoolOp {
    int input = 0;
    PoolKind kind = PoolKind::Max;
    int window = 2;
    int stride = 2;
};

// The extreme value over `dims` and where it first occurs (iteration order,
// dimension 0 innermost): the tuple (value, index along dims[0], ...).
struct ArgReduceOp {
    int input = 0;
    std::vector<int> dims;
    bool maximum = true;
};

using Op = std::variant<InputOp, PointwiseOp, StencilOp, BoundaryOp, ResampleOp, TransposeOp, ReduceOp, HistogramOp,
                        ScanOp, GatherOp, ConcatOp, Conv2dOp, MatmulOp, PoolOp, ArgReduceOp>;

struct Stage {
    std::string name;
    Op op;
    // Derived by infer(): one type per tuple element, and the stage's box.
    std::vector<ScalarType> types;
    Shape shape;
};

struct Description {
    uint64_t seed = 0;  // provenance only: what the drawing was given
    int budget = 0;
    std::vector<Stage> stages;  // operands always come earlier
    std::vector<int> outputs;   // stage indices, none of them an input
};

// The operation's name in JSON and messages: "input", "pointwise", ...
const char *op_name(const Op &op);
const char *name_of(BoundaryKind kind);
const char *name_of(ResampleKind kind);
const char *name_of(ReduceKind kind);
const char *name_of(ScanKind kind);
const char *name_of(PoolKind kind);
BoundaryKind parse_boundary_kind(const std::string &name);
ResampleKind parse_resample_kind(const std::string &name);
ReduceKind parse_reduce_kind(const std::string &name);
ScanKind parse_scan_kind(const std::string &name);
PoolKind parse_pool_kind(const std::string &name);

// The stage indices an operation reads, in its own order.
std::vector<int> operands_of(const Op &op);
// Rewrites every stage index the operation reads.
void remap_operands(Op &op, const std::function<int(int)> &remap);

bool is_input(const Stage &stage);

// Derives every stage's types and shape and checks that the stages are
// well formed: operands come earlier, ranks, extents and types fit each
// operation, names are unique. Throws std::invalid_argument naming the stage
// and what is wrong with it.
void infer_stages(Description &description);

// infer_stages(), and checks that the outputs exist and are not inputs.
void infer(Description &description);

// Removes the stages no output depends on (inputs included), keeping the
// order and the names.
void prune(Description &description);

}  // namespace strata::fuzz
