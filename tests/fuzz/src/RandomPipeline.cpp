#include "strata/fuzz/RandomPipeline.h"

#include "Interval.h"
#include "Random.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

namespace strata::fuzz {

namespace {

// Limits that keep one check (the interpreter and a CPU run of the OpenCL
// build under PoCL) to seconds.
constexpr int64_t kMaxElements = int64_t(1) << 21;
constexpr double kMaxWork = 6e7;  // multiply-adds of one stage
// Magnitudes past which the drawing normalizes (see Interval.h).
constexpr double kMaxFloatMagnitude = 1e3;
constexpr double kMaxInt32Magnitude = double(1 << 28);

enum class Theme { Imaging, Dnn, Mixed };

// What the drawing knows about a stage beyond its description.
struct StageFacts {
    std::vector<Interval> ranges;  // per tuple element
    // Computed without rounding (integers, or floats only moved, compared and
    // selected): a discontinuous consumer (argmax) gets the same answer from
    // any correct schedule.
    bool exact = true;
    bool helper_input = false;  // weights, lookup tables: not a main data path
};

// A leaf of a pointwise expression: one element of one operand.
struct Leaf {
    int operand;
    int element;
    ScalarType type;
    Interval range;
    bool exact;
};

struct Drawn {
    Expr expr;
    Interval range;
    bool exact;
};

Interval default_interval(ScalarType type) {
    return is_float(type) ? Interval{0.05, 1.0} : Interval{1, std::min(255.0, highest_of(type))};
}

class Drawer {
public:
    Drawer(uint64_t seed, int budget) : rng_(seed), budget_(std::max(budget, 1)) {
        pipeline_.seed = seed;
        pipeline_.budget = budget;
    }

    Description draw() {
        theme_ = Theme(rng_.weighted({0.45, 0.25, 0.30}));
        draw_inputs();
        const std::vector<std::pair<double, std::function<bool(int)>>> moves = {
            {14, [&](int s) { return pointwise(s); }},
            {6, [&](int s) { return combine(s); }},
            {theme_ == Theme::Dnn ? 4.0 : 12.0, [&](int s) { return stencil(s); }},
            {3, [&](int s) { return boundary(s); }},
            {7, [&](int s) { return resample(s); }},
            {2.5, [&](int s) { return transpose(s); }},
            {7, [&](int s) { return reduce(s); }},
            {theme_ == Theme::Dnn ? 1.0 : 4.0, [&](int s) { return histogram(s); }},
            {3, [&](int s) { return scan(s); }},
            {5, [&](int s) { return gather(s); }},
            {2.5, [&](int s) { return concat(s); }},
            {theme_ == Theme::Dnn ? 10.0 : 2.0, [&](int s) { return conv2d(s); }},
            {theme_ == Theme::Dnn ? 6.0 : 2.0, [&](int s) { return matmul(s); }},
            {theme_ == Theme::Dnn ? 6.0 : 3.0, [&](int s) { return pool(s); }},
            {2.5, [&](int s) { return argreduce(s); }},
            {theme_ == Theme::Dnn ? 3.0 : 1.0, [&](int s) { return softmax(s); }},
            {theme_ == Theme::Dnn ? 3.0 : 1.0, [&](int s) { return normalize_along(s); }},
            {1, [&](int s) { return fan_out(s); }},
        };
        std::vector<double> weights;
        for (const auto &m : moves) weights.push_back(m.first);
        while (spent_ < budget_) {
            bool moved = false;
            for (int attempt = 0; attempt < 40 && !moved; ++attempt) {
                moved = moves[rng_.weighted(weights)].second(pick_operand());
            }
            if (!moved) pointwise(current_);  // always applies
        }
        choose_outputs();
        prune(pipeline_);
        infer(pipeline_);
        return pipeline_;
    }

private:
    // ---- bookkeeping ----

    const Stage &stage(int i) const { return pipeline_.stages[i]; }
    const Shape &shape(int i) const { return pipeline_.stages[i].shape; }
    ScalarType type(int i) const { return pipeline_.stages[i].types[0]; }
    bool single(int i) const { return pipeline_.stages[i].types.size() == 1; }
    Interval range(int i) const { return facts_[i].ranges[0]; }

    int append(const std::string &kind, Op op, std::vector<Interval> ranges, bool exact) {
        Stage s;
        s.name = "s" + std::to_string(pipeline_.stages.size()) + "_" + kind;
        s.op = std::move(op);
        pipeline_.stages.push_back(std::move(s));
        infer_last();
        facts_.push_back({std::move(ranges), exact, false});
        ++spent_;
        current_ = int(pipeline_.stages.size()) - 1;
        return current_;
    }

    int append_input(ScalarType type, Shape shape, std::optional<ValueBounds> bounds, bool helper) {
        InputOp op{type, std::move(shape), bounds};
        Stage s;
        s.name = "in" + std::to_string(inputs_++);
        s.op = op;
        pipeline_.stages.push_back(std::move(s));
        infer_last();
        const Interval r = bounds ? Interval{bounds->lo, bounds->hi} : default_interval(type);
        facts_.push_back({{r}, true, helper});
        return int(pipeline_.stages.size()) - 1;
    }

    // Derives the newest stage's types and shape; a failure is a drawing bug.
    void infer_last() {
        try {
            infer_stages(pipeline_);
        } catch (const std::invalid_argument &e) {
            throw std::logic_error("random pipeline (seed " + std::to_string(pipeline_.seed) +
                                   "): drew an invalid stage: " + e.what());
        }
    }

    int pick_operand() {
        if (current_ >= 0 && rng_.chance(0.65)) return current_;
        std::vector<int> candidates;
        for (size_t i = 0; i < pipeline_.stages.size(); ++i) {
            if (!facts_[i].helper_input) candidates.push_back(int(i));
        }
        return rng_.pick(candidates);
    }

    bool fits(const Shape &s, double work_per_element = 1) const {
        const int64_t n = element_count(s);
        return n <= kMaxElements && double(n) * work_per_element <= kMaxWork;
    }

    // Dimensions of stage i whose extent is at least `min_extent`.
    std::vector<int> dims_with_extent(int i, int64_t min_extent) const {
        std::vector<int> dims;
        for (size_t d = 0; d < shape(i).size(); ++d) {
            if (shape(i)[d] >= min_extent) dims.push_back(int(d));
        }
        return dims;
    }

    // Appends a scaling (floats) or masking (int32) stage when stage i's
    // values have grown past what the rest of the drawing should see.
    void keep_in_range(int i) {
        if (!single(i)) return;
        const ScalarType t = type(i);
        const Interval r = range(i);
        Expr value = operand(0, 0, t);
        Interval out;
        if (is_float(t) && r.magnitude() > kMaxFloatMagnitude) {
            const double factor = std::exp2(-std::ceil(std::log2(r.magnitude())));
            value = binary(BinaryOp::Mul, value, constant(t, factor));
            out = scale(r, factor);
        } else if (t == ScalarType::Int32 && r.magnitude() > kMaxInt32Magnitude) {
            value = binary(BinaryOp::And, value, constant(t, 0xFFFFF));
            out = {0, 0xFFFFF};
        } else {
            return;
        }
        append("scaled", PointwiseOp{{{i, all_dims(shape(i).size())}}, {value}}, {out},
               facts_[i].exact && !is_float(t));
    }

    // ---- inputs ----

    Shape draw_image_shape(int rank) {
        Shape s(rank, 1);
        // Tiny (1x1 included), small, medium, skinny (a long dimension 1) or large.
        const size_t kind = rng_.weighted({0.08, 0.30, 0.42, 0.08, 0.12});
        for (int d = 0; d < rank; ++d) {
            switch (kind) {
            case 0: s[d] = rng_.uniform(1, 8); break;
            case 1: s[d] = rng_.uniform(9, 96); break;
            case 2: s[d] = rng_.uniform(48, 400); break;
            case 3: s[d] = d == 1 ? rng_.uniform(20000, 200000) : rng_.uniform(1, 12); break;
            default: s[d] = rng_.uniform(300, 1400); break;
            }
        }
        // Channels stay few; the whole input stays within the element limit.
        if (rank >= 3) s[2] = rng_.pick({1, 2, 3, 4, 8});
        if (rank >= 4) s[3] = rng_.pick({1, 2, 3});
        for (int d = 0; d < rank && element_count(s) > kMaxElements / 2; ++d) s[d] = std::max<int64_t>(1, s[d] / 4);
        while (element_count(s) > kMaxElements / 2) s[rank - 1] = std::max<int64_t>(1, s[rank - 1] / 2);
        return s;
    }

    ScalarType draw_type(bool allow_integers = true) {
        if (!allow_integers) return rng_.chance(0.8) ? ScalarType::Float32 : ScalarType::Float64;
        const ScalarType types[] = {ScalarType::Float32, ScalarType::UInt8, ScalarType::UInt16, ScalarType::Int32,
                                    ScalarType::Float64};
        return types[rng_.weighted({0.45, 0.2, 0.1, 0.13, 0.12})];
    }

    void draw_inputs() {
        if (theme_ == Theme::Dnn) {
            const ScalarType t = draw_type(false);
            Shape s = {rng_.uniform(3, 96), rng_.uniform(3, 96), rng_.pick({1, 3, 4, 8, 16, 32})};
            std::optional<ValueBounds> signed_range;
            if (rng_.chance(0.5)) signed_range = ValueBounds{-1, 1};
            current_ = append_input(t, s, signed_range, false);
            if (rng_.chance(0.4)) append_input(t, {rng_.uniform(1, 128), rng_.uniform(1, 128)}, signed_range, false);
            return;
        }
        int rank = theme_ == Theme::Imaging ? (rng_.chance(0.6) ? 2 : 3) : int(rng_.uniform(1, 4));
        const ScalarType t = draw_type();
        std::optional<ValueBounds> bounds;
        if (t == ScalarType::Int32 && rng_.chance(0.5)) bounds = ValueBounds{-300, 300};
        if (is_float(t) && rng_.chance(0.25)) bounds = ValueBounds{-1, 1};
        const Shape main_shape = draw_image_shape(rank);
        current_ = append_input(t, main_shape, bounds, false);
        if (rng_.chance(0.3)) append_input(draw_type(), main_shape, std::nullopt, false);
        if (rng_.chance(0.2)) append_input(draw_type(), {rng_.pick({16, 256, 1000})}, std::nullopt, true);
        current_ = 0;
    }

    // ---- pointwise expressions ----

    Drawn leaf_as(ScalarType t, const Leaf &leaf) {
        Expr e = operand(leaf.operand, leaf.element, leaf.type);
        if (leaf.type == t) return {e, leaf.range, leaf.exact};
        return {cast(t, e), stored_in(t, leaf.range), leaf.exact};
    }

    static bool convertible(ScalarType from, ScalarType to) { return !(is_float(from) && !is_float(to)); }

    Drawn draw_leaf(ScalarType t, const std::vector<Leaf> &leaves, int rank) {
        std::vector<const Leaf *> usable;
        for (const Leaf &l : leaves) {
            if (convertible(l.type, t)) usable.push_back(&l);
        }
        const double roll = rng_.real(0, 1);
        if (!usable.empty() && roll < 0.75) return leaf_as(t, *rng_.pick(usable));
        if (rank > 0 && roll < 0.87) {
            const Expr x = coordinate(int(rng_.uniform(0, rank - 1)));
            const double extent = double(kMaxElements);
            if (is_float(t)) {
                const double step = rng_.pick({1.0 / 64, 1.0 / 1024});
                return {binary(BinaryOp::Mul, cast(t, x), constant(t, step)), {0, extent * step}, false};
            }
            return {t == ScalarType::Int32 ? x : cast(t, x), stored_in(t, {0, extent}), true};
        }
        if (is_float(t)) {
            const double v = std::round(rng_.real(-2, 2) * 64) / 64;
            return {constant(t, v), {v, v}, true};
        }
        const double v = double(rng_.uniform(t == ScalarType::Int32 ? -16 : 0, 16));
        return {constant(t, v), {v, v}, true};
    }

    // A comparison whose outcome every correct schedule agrees on: of
    // integers or coordinates, never of rounded floats.
    std::pair<Drawn, Drawn> draw_condition(const std::vector<Leaf> &leaves, int rank, int depth) {
        std::vector<const Leaf *> integers;
        for (const Leaf &l : leaves) {
            if (!is_float(l.type) || l.exact) integers.push_back(&l);
        }
        if (!integers.empty() && rng_.chance(0.7)) {
            const Leaf &l = *rng_.pick(integers);
            Drawn a = leaf_as(l.type, l);
            const double threshold = std::round(rng_.real(l.range.lo, l.range.hi));
            return {a, Drawn{constant(l.type, is_float(l.type) ? threshold : std::max(threshold, lowest_of(l.type))),
                             {threshold, threshold},
                             true}};
        }
        if (rank > 0) {
            const int dim = int(rng_.uniform(0, rank - 1));
            const double threshold = double(rng_.uniform(0, 64));
            return {Drawn{coordinate(dim), {0, double(kMaxElements)}, true},
                    Drawn{constant(ScalarType::Int32, threshold), {threshold, threshold}, true}};
        }
        Drawn c = draw_value(ScalarType::Int32, depth, leaves, rank);
        return {c, Drawn{constant(ScalarType::Int32, 7), {7, 7}, true}};
    }

    Drawn draw_value(ScalarType t, int depth, const std::vector<Leaf> &leaves, int rank) {
        if (depth <= 0 || rng_.chance(0.2)) return draw_leaf(t, leaves, rank);
        Drawn d = is_float(t) ? draw_float_node(t, depth, leaves, rank) : draw_integer_node(t, depth, leaves, rank);
        return bounded(t, std::move(d));
    }

    // Keeps a node's values where the drawing wants them (see keep_in_range).
    Drawn bounded(ScalarType t, Drawn d) {
        if (is_float(t) && d.range.magnitude() > kMaxFloatMagnitude) {
            const double factor = std::exp2(-std::ceil(std::log2(d.range.magnitude())));
            return {binary(BinaryOp::Mul, d.expr, constant(t, factor)), scale(d.range, factor), false};
        }
        if (t == ScalarType::Int32 && d.range.magnitude() > kMaxInt32Magnitude) {
            return {binary(BinaryOp::And, d.expr, constant(t, 0xFFFFF)), {0, 0xFFFFF}, true};
        }
        d.range = stored_in(t, d.range);
        return d;
    }

    Drawn draw_float_node(ScalarType t, int depth, const std::vector<Leaf> &leaves, int rank) {
        auto sub_value = [&]() { return draw_value(t, depth - 1, leaves, rank); };
        const size_t choice = rng_.weighted({3, 2, 3, 1, 1, 1, 0.5, 1, 0.7, 0.5, 0.5, 0.7, 0.5, 0.8});
        switch (choice) {
        case 0: {
            Drawn a = sub_value(), b = sub_value();
            return {binary(BinaryOp::Add, a.expr, b.expr), add(a.range, b.range), false};
        }
        case 1: {
            Drawn a = sub_value(), b = sub_value();
            return {binary(BinaryOp::Sub, a.expr, b.expr), sub(a.range, b.range), false};
        }
        case 2: {
            Drawn a = sub_value();
            Drawn b = rng_.chance(0.6) ? draw_leaf(t, {}, 0) : sub_value();
            return {binary(BinaryOp::Mul, a.expr, b.expr), mul(a.range, b.range), false};
        }
        case 3: {
            // a / (|b| + 1): never a division by (nearly) zero.
            Drawn a = sub_value(), b = sub_value();
            const Expr denominator = binary(BinaryOp::Add, unary(UnaryOp::Abs, b.expr), constant(t, 1));
            return {binary(BinaryOp::Div, a.expr, denominator), hull(a.range, {0, 0}), false};
        }
        case 4: {
            Drawn a = sub_value(), b = sub_value();
            return {binary(BinaryOp::Min, a.expr, b.expr), min_of(a.range, b.range), a.exact && b.exact};
        }
        case 5: {
            Drawn a = sub_value(), b = sub_value();
            return {binary(BinaryOp::Max, a.expr, b.expr), max_of(a.range, b.range), a.exact && b.exact};
        }
        case 6: {
            Drawn a = sub_value();
            return {unary(UnaryOp::Neg, a.expr), neg(a.range), a.exact};
        }
        case 7: {
            Drawn a = sub_value();
            return {unary(UnaryOp::Abs, a.expr), abs_of(a.range), a.exact};
        }
        case 8: {
            // sqrt(|a| + 1): smooth, so rounding in `a` stays small.
            Drawn a = sub_value();
            const Expr arg = binary(BinaryOp::Add, unary(UnaryOp::Abs, a.expr), constant(t, 1));
            return {unary(UnaryOp::Sqrt, arg), {1, std::sqrt(a.range.magnitude() + 1)}, false};
        }
        case 9: {
            // exp of a squashed argument: tanh(a) * 3 stays within [-3, 3].
            Drawn a = sub_value();
            const Expr arg = binary(BinaryOp::Mul, unary(UnaryOp::Tanh, a.expr), constant(t, 3));
            return {unary(UnaryOp::Exp, arg), {std::exp(-3.0), std::exp(3.0)}, false};
        }
        case 10: {
            Drawn a = sub_value();
            const Expr arg = binary(BinaryOp::Add, unary(UnaryOp::Abs, a.expr), constant(t, 1));
            return {unary(UnaryOp::Log, arg), {0, std::log(a.range.magnitude() + 1)}, false};
        }
        case 11: {
            Drawn a = sub_value();
            const UnaryOp op = rng_.pick({UnaryOp::Sin, UnaryOp::Cos, UnaryOp::Tanh});
            return {unary(op, a.expr), {-1, 1}, false};
        }
        case 12: {
            Drawn a = sub_value();
            return {unary(UnaryOp::Tanh, a.expr), {-1, 1}, false};
        }
        default: {
            auto [lhs, rhs] = draw_condition(leaves, rank, depth - 1);
            Drawn a = sub_value(), b = sub_value();
            const CompareOp op =
                rng_.pick({CompareOp::Less, CompareOp::LessEqual, CompareOp::Equal, CompareOp::NotEqual});
            return {select(op, lhs.expr, rhs.expr, a.expr, b.expr), hull(a.range, b.range), a.exact && b.exact};
        }
        }
    }

    Drawn draw_integer_node(ScalarType t, int depth, const std::vector<Leaf> &leaves, int rank) {
        auto sub_value = [&]() { return draw_value(t, depth - 1, leaves, rank); };
        auto small = [&](int64_t lo, int64_t hi) {
            const double v = double(rng_.uniform(lo, hi));
            return Drawn{constant(t, v), {v, v}, true};
        };
        const bool is_signed = t == ScalarType::Int32;
        const size_t choice = rng_.weighted({3, 2, 1.5, 1, 1, 1, 1, 1.5, 0.5, 1, is_signed ? 0.5 : 0.0, 1});
        switch (choice) {
        case 0: {
            Drawn a = sub_value(), b = sub_value();
            return {binary(BinaryOp::Add, a.expr, b.expr), add(a.range, b.range), true};
        }
        case 1: {
            Drawn a = sub_value(), b = sub_value();
            return {binary(BinaryOp::Sub, a.expr, b.expr), sub(a.range, b.range), true};
        }
        case 2: {
            Drawn a = sub_value();
            Drawn b = rng_.chance(0.7) ? small(0, 7) : sub_value();
            if (is_signed && mul(a.range, b.range).magnitude() > 2 * kMaxInt32Magnitude) b = small(0, 3);
            if (is_signed && mul(a.range, b.range).magnitude() > 2 * kMaxInt32Magnitude) return a;
            return {binary(BinaryOp::Mul, a.expr, b.expr), mul(a.range, b.range), true};
        }
        case 3: {
            Drawn a = sub_value();
            const Drawn b = small(1, 9);
            return {binary(BinaryOp::Div, a.expr, b.expr),
                    {std::floor(a.range.lo / b.range.lo), std::floor(a.range.hi / b.range.lo)},
                    true};
        }
        case 4: {
            Drawn a = sub_value();
            const Drawn b = small(2, std::min<int64_t>(257, int64_t(highest_of(t))));
            return {binary(BinaryOp::Mod, a.expr, b.expr), {0, b.range.lo - 1}, true};
        }
        case 5: {
            Drawn a = sub_value(), b = sub_value();
            return {binary(BinaryOp::Min, a.expr, b.expr), min_of(a.range, b.range), true};
        }
        case 6: {
            Drawn a = sub_value(), b = sub_value();
            return {binary(BinaryOp::Max, a.expr, b.expr), max_of(a.range, b.range), true};
        }
        case 7: {
            Drawn a = sub_value();
            Drawn b = rng_.chance(0.6) ? small(0, 255) : sub_value();
            const BinaryOp op = rng_.pick({BinaryOp::And, BinaryOp::Or, BinaryOp::Xor});
            // Bitwise results stay below the next power of two of either side
            // (and above minus it, for negative int32 values).
            const double bound =
                std::exp2(std::ceil(std::log2(std::max(a.range.magnitude(), b.range.magnitude()) + 1)));
            const bool negative = a.range.lo < 0 || b.range.lo < 0;
            Interval r = {negative ? -bound : 0, bound - 1};
            if (op == BinaryOp::And && b.range.lo >= 0) r = {0, b.range.hi};
            return {binary(op, a.expr, b.expr), r, true};
        }
        case 8: {
            Drawn a = sub_value();
            const int amount = int(rng_.uniform(0, 3));
            Interval r = scale(a.range, std::exp2(amount));
            if (is_signed && r.magnitude() > 2 * kMaxInt32Magnitude) return a;
            return {binary(BinaryOp::ShiftLeft, a.expr, constant(t, amount)), r, true};
        }
        case 9: {
            Drawn a = sub_value();
            const int amount = int(rng_.uniform(1, 4));
            const double f = std::exp2(amount);
            return {binary(BinaryOp::ShiftRight, a.expr, constant(t, amount)),
                    {std::floor(a.range.lo / f), std::floor(a.range.hi / f)},
                    true};
        }
        case 10: {
            Drawn a = sub_value();
            return rng_.chance(0.5) ? Drawn{unary(UnaryOp::Neg, a.expr), neg(a.range), true}
                                    : Drawn{unary(UnaryOp::Abs, a.expr), abs_of(a.range), true};
        }
        default: {
            auto [lhs, rhs] = draw_condition(leaves, rank, depth - 1);
            Drawn a = sub_value(), b = sub_value();
            const CompareOp op =
                rng_.pick({CompareOp::Less, CompareOp::LessEqual, CompareOp::Equal, CompareOp::NotEqual});
            return {select(op, lhs.expr, rhs.expr, a.expr, b.expr), hull(a.range, b.range), true};
        }
        }
    }

    static bool uses_operand(const Expr &e) {
        std::vector<int> used;
        collect_operands(e, used);
        return !used.empty();
    }

    // The type a pointwise stage computes in, given its main operand's.
    ScalarType draw_result_type(ScalarType from) {
        if (rng_.chance(0.7)) return from;
        if (is_float(from))
            return from == ScalarType::Float32 && rng_.chance(0.3) ? ScalarType::Float64 : ScalarType::Float32;
        return draw_type();
    }

    int append_pointwise(const std::string &kind, std::vector<PointwiseOperand> operands, int max_depth,
                         int values = 1) {
        std::vector<Leaf> leaves;
        const int rank = [&] {
            int r = 0;
            for (const PointwiseOperand &o : operands)
                for (int d : o.dims) r = std::max(r, d + 1);
            return r;
        }();
        for (size_t j = 0; j < operands.size(); ++j) {
            const int s = operands[j].stage;
            for (size_t e = 0; e < pipeline_.stages[s].types.size(); ++e) {
                leaves.push_back({int(j), int(e), pipeline_.stages[s].types[e], facts_[s].ranges[e], facts_[s].exact});
            }
        }
        const ScalarType main_type = leaves[0].type;
        std::vector<Expr> exprs;
        std::vector<Interval> ranges;
        bool exact = true;
        for (int v = 0; v < values; ++v) {
            const ScalarType t = draw_result_type(main_type);
            Drawn drawn = draw_value(t, int(rng_.uniform(1, max_depth)), leaves, rank);
            if (!uses_operand(drawn.expr)) {
                // Every value depends on the main operand (draw_result_type
                // keeps it convertible), so the stage is no constant.
                const Drawn first = leaf_as(t, leaves[0]);
                drawn = bounded(t, Drawn{binary(BinaryOp::Add, first.expr, drawn.expr), add(first.range, drawn.range),
                                         !is_float(t) && first.exact && drawn.exact});
            }
            exprs.push_back(drawn.expr);
            ranges.push_back(stored_in(t, drawn.range));
            exact = exact && drawn.exact;
        }
        const int s = append(kind, PointwiseOp{std::move(operands), std::move(exprs)}, ranges, exact);
        return s;
    }

    // ---- moves: each appends stages reading `s`, or returns false ----

    bool pointwise(int s) {
        std::vector<PointwiseOperand> operands = {{s, all_dims(shape(s).size())}};
        // Sometimes a broadcast operand: a lower-rank stage along matching extents.
        if (rng_.chance(0.3)) {
            if (auto b = broadcast_operand(s)) operands.push_back(*b);
        }
        append_pointwise("pointwise", std::move(operands), 4, rng_.chance(0.12) ? 2 : 1);
        return true;
    }

    std::optional<PointwiseOperand> broadcast_operand(int s) {
        std::vector<PointwiseOperand> options;
        for (size_t i = 0; i < pipeline_.stages.size(); ++i) {
            if (int(i) == s || shape(int(i)).size() >= shape(s).size() || facts_[i].helper_input) continue;
            // Map each of its dimensions to an output dimension of the same extent.
            std::vector<int> dims;
            size_t next = 0;
            for (int64_t extent : shape(int(i))) {
                while (next < shape(s).size() && shape(s)[next] != extent) ++next;
                if (next == shape(s).size()) break;
                dims.push_back(int(next++));
            }
            if (dims.size() == shape(int(i)).size()) options.push_back({int(i), dims});
        }
        if (options.empty()) return std::nullopt;
        return rng_.pick(options);
    }

    bool combine(int s) {
        std::vector<int> partners;
        for (size_t i = 0; i < pipeline_.stages.size(); ++i) {
            if (int(i) != s && shape(int(i)).size() == shape(s).size() && !facts_[i].helper_input) {
                partners.push_back(int(i));
            }
        }
        if (partners.empty()) return false;
        const int other = rng_.pick(partners);
        append_pointwise("combine", {{s, all_dims(shape(s).size())}, {other, all_dims(shape(s).size())}}, 3);
        return true;
    }

    bool stencil(int s) {
        if (!single(s) || shape(s).empty()) return false;
        const ScalarType t = type(s);
        const int rank = int(shape(s).size());
        std::vector<int> dims = {int(rng_.uniform(0, rank - 1))};
        if (rank >= 2 && rng_.chance(0.6)) {
            dims = {0, 1};
            if (rng_.chance(0.2)) dims = {1, 0};
        }
        std::vector<int> sizes;
        for (size_t i = 0; i < dims.size(); ++i) sizes.push_back(rng_.pick({2, 3, 3, 3, 5, 7}));
        int64_t taps = 1;
        for (int k : sizes) taps *= k;
        int input = s;
        if (rng_.chance(0.6)) {
            // A "same"-size stencil: pad first.
            const int64_t n = element_count(shape(s));
            BoundaryOp pad{s, draw_boundary_kind(), std::vector<int>(rank, 0), std::vector<int>(rank, 0), 0};
            for (size_t i = 0; i < dims.size(); ++i) {
                pad.pad_before[dims[i]] = (sizes[i] - 1) / 2;
                pad.pad_after[dims[i]] = sizes[i] - 1 - (sizes[i] - 1) / 2;
            }
            pad.value = boundary_value(s);
            if (n * taps > kMaxWork) return false;
            input = append("pad", pad, {hull(range(s), {pad.value, pad.value})}, facts_[s].exact);
        }
        for (size_t i = 0; i < dims.size(); ++i) {
            if (shape(input)[dims[i]] < sizes[i]) return false;
        }
        if (!fits(shape(input), double(taps))) return false;
        std::vector<double> weights;
        Interval r{0, 0};
        const Interval in = range(input);
        if (is_float(t)) {
            double total = 0;
            for (int64_t k = 0; k < taps; ++k) {
                weights.push_back(rng_.real(-1, 1) + (rng_.chance(0.7) ? 1.0 : 0.0));
                total += std::fabs(weights.back());
            }
            for (double &w : weights) {
                w = std::round(w / total * 4096) / 4096;
                r = add(r, scale(in, w));
            }
        } else {
            const bool is_signed = t == ScalarType::Int32;
            for (int64_t k = 0; k < taps; ++k) {
                weights.push_back(double(rng_.uniform(is_signed ? -3 : 0, 4)));
                r = add(r, scale(in, weights.back()));
            }
            if (is_signed && r.magnitude() > kMaxInt32Magnitude) return false;
        }
        const int out = append("stencil", StencilOp{input, dims, sizes, weights, rng_.chance(0.3)}, {stored_in(t, r)},
                               !is_float(t));
        keep_in_range(out);
        return true;
    }

    BoundaryKind draw_boundary_kind() {
        return rng_.pick({BoundaryKind::RepeatEdge, BoundaryKind::RepeatEdge, BoundaryKind::ConstantExterior,
                          BoundaryKind::RepeatImage, BoundaryKind::MirrorImage, BoundaryKind::MirrorInterior});
    }

    double boundary_value(int s) {
        const ScalarType t = type(s);
        return is_float(t) ? std::round(rng_.real(-1, 1) * 16) / 16 : double(rng_.uniform(0, 9));
    }

    bool boundary(int s) {
        if (!single(s) || shape(s).empty()) return false;
        const int rank = int(shape(s).size());
        BoundaryOp op{s, draw_boundary_kind(), std::vector<int>(rank, 0), std::vector<int>(rank, 0), boundary_value(s)};
        Shape out = shape(s);
        for (int d = 0; d < rank; ++d) {
            if (!rng_.chance(0.7)) continue;
            op.pad_before[d] = int(rng_.uniform(0, 4));
            op.pad_after[d] = int(rng_.uniform(0, 4));
            out[d] += op.pad_before[d] + op.pad_after[d];
        }
        if (!fits(out)) return false;
        append("boundary", op, {hull(range(s), {op.value, op.value})}, facts_[s].exact);
        return true;
    }

    bool resample(int s) {
        if (!single(s) || shape(s).empty()) return false;
        const ScalarType t = type(s);
        const int dim = int(rng_.uniform(0, int(shape(s).size()) - 1));
        const int factor = int(rng_.pick({2, 2, 2, 2, 3, 4}));
        const int64_t n = shape(s)[dim];
        const bool shrink = n >= 2 * factor && (element_count(shape(s)) * factor > kMaxElements || rng_.chance(0.5));
        ResampleKind kind;
        if (shrink) {
            kind = rng_.chance(0.7) ? ResampleKind::DownAverage : ResampleKind::Subsample;
        } else {
            if (element_count(shape(s)) * factor > kMaxElements) return false;
            kind = rng_.chance(0.5) ? ResampleKind::UpNearest : ResampleKind::UpLinear;
        }
        const int f = kind == ResampleKind::UpLinear ? 2 : factor;
        Interval r = range(s);
        bool exact = facts_[s].exact;
        if (kind == ResampleKind::DownAverage || kind == ResampleKind::UpLinear) {
            // The sum is formed in the element type before the division.
            const int terms = kind == ResampleKind::UpLinear ? 2 : f;
            r = is_float(t) ? r : stored_in(t, times(r, terms));
            if (!is_float(t)) r = {std::floor(r.lo / terms), std::ceil(r.hi / terms)};
            exact = exact && !is_float(t);
        }
        append("resample", ResampleOp{s, dim, kind, f}, {r}, exact);
        return true;
    }

    bool transpose(int s) {
        if (!single(s) || shape(s).size() < 2) return false;
        std::vector<int> order = all_dims(shape(s).size());
        std::swap(order[0], order[size_t(rng_.uniform(1, int64_t(order.size()) - 1))]);
        append("transpose", TransposeOp{s, order}, {range(s)}, facts_[s].exact);
        return true;
    }

    std::vector<int> draw_reduced_dims(int s) {
        const int rank = int(shape(s).size());
        std::vector<int> dims;
        const double roll = rng_.real(0, 1);
        if (roll < 0.25) {
            dims = all_dims(rank);
        } else if (roll < 0.8 || rank < 2) {
            dims = {int(rng_.uniform(0, rank - 1))};
        } else {
            const int a = int(rng_.uniform(0, rank - 1));
            int b = int(rng_.uniform(0, rank - 2));
            if (b >= a) ++b;
            dims = {a, b};
        }
        return dims;
    }

    bool reduce(int s) {
        if (!single(s) || shape(s).empty()) return false;
        const ScalarType in = type(s);
        const std::vector<int> dims = draw_reduced_dims(s);
        double count = 1;
        for (int d : dims) count *= double(shape(s)[d]);
        const ReduceKind kind = rng_.pick({ReduceKind::Sum, ReduceKind::Mean, ReduceKind::Min, ReduceKind::Max});
        ScalarType t = in;
        Interval r = range(s);
        bool exact = facts_[s].exact;
        if (kind == ReduceKind::Sum || kind == ReduceKind::Mean) {
            if (!is_float(in))
                t = ScalarType::Int32;
            else if (in == ScalarType::Float32 && rng_.chance(0.2))
                t = ScalarType::Float64;
            const Interval sum = times(r, count);
            if (t == ScalarType::Int32 && sum.magnitude() > kMaxInt32Magnitude) t = ScalarType::Float32;
            r = kind == ReduceKind::Sum ? sum : r;
            exact = exact && !is_float(t);
        }
        const int out = append("reduce", ReduceOp{s, dims, kind, t, rng_.chance(0.4)}, {r}, exact);
        keep_in_range(out);
        return true;
    }

    bool histogram(int s) {
        if (!single(s) || is_float(type(s))) return false;
        const int bins = int(rng_.pick({1, 2, 7, 16, 64, 256, 1000}));
        const double n = double(element_count(shape(s)));
        std::optional<int> weight;
        Interval r{0, n};
        bool exact = true;
        if (rng_.chance(0.35)) {
            std::vector<int> weights;
            for (size_t i = 0; i < pipeline_.stages.size(); ++i) {
                if (!single(int(i)) || !is_float(type(int(i))) || shape(int(i)).size() != shape(s).size()) continue;
                bool covers = true;
                for (size_t d = 0; d < shape(s).size(); ++d) covers &= shape(int(i))[d] >= shape(s)[d];
                if (covers) weights.push_back(int(i));
            }
            if (!weights.empty()) {
                weight = rng_.pick(weights);
                r = times(hull(range(*weight), {0, 0}), n);
                exact = false;
            }
        }
        const int out = append("histogram", HistogramOp{s, weight, bins}, {r}, exact);
        keep_in_range(out);
        return true;
    }

    bool scan(int s) {
        if (!single(s) || shape(s).empty()) return false;
        const ScalarType in = type(s);
        const int dim = int(rng_.uniform(0, int(shape(s).size()) - 1));
        const double n = double(shape(s)[dim]);
        ScanOp op{s, dim, ScanKind::PrefixSum, 0.5, rng_.chance(0.3), in};
        Interval r = range(s);
        if (is_float(in) && rng_.chance(0.6)) {
            op.kind = ScanKind::Recursive;
            op.coefficient = std::round(rng_.real(0.1, 0.9) * 64) / 64;
        } else {
            if (!is_float(in) && rng_.chance(0.6)) op.type = ScalarType::Int32;
            r = stored_in(op.type, times(r, n));
            if (op.type == ScalarType::Int32 && r.magnitude() > kMaxInt32Magnitude) return false;
        }
        const int out = append("scan", op, {r}, facts_[s].exact && !is_float(op.type));
        keep_in_range(out);
        return true;
    }

    bool gather(int s) {
        if (!single(s)) return false;
        if (!is_float(type(s))) {
            // `s` indexes: a lookup table, or a source of its own rank.
            std::vector<int> sources;
            for (size_t i = 0; i < pipeline_.stages.size(); ++i) {
                if (!single(int(i)) || int(i) == s) continue;
                if (shape(int(i)).size() == 1 || (shape(int(i)).size() == shape(s).size() && !shape(s).empty())) {
                    sources.push_back(int(i));
                }
            }
            int source;
            if (sources.empty() || rng_.chance(0.3)) {
                const ScalarType t = draw_type();
                source = append_input(t, {rng_.pick({16, 256, 1000})}, std::nullopt, true);
            } else {
                source = rng_.pick(sources);
            }
            const int dim = shape(source).size() == 1 ? 0 : int(rng_.uniform(0, int(shape(source).size()) - 1));
            append("gather", GatherOp{source, s, dim}, {range(source)}, facts_[source].exact);
            return true;
        }
        // `s` is read through a new integer index input that strays out of range.
        if (shape(s).empty()) return false;
        const int dim = int(rng_.uniform(0, int(shape(s).size()) - 1));
        const double n = double(shape(s)[dim]);
        Shape index_shape = shape(s);
        if (shape(s).size() == 1) index_shape = {rng_.uniform(1, std::min<int64_t>(4096, kMaxElements))};
        const int index = append_input(ScalarType::Int32, index_shape, ValueBounds{-4, n + 3}, true);
        append("gather", GatherOp{s, index, dim}, {range(s)}, facts_[s].exact);
        return true;
    }

    bool concat(int s) {
        if (!single(s) || shape(s).empty()) return false;
        std::vector<int> partners = {s};
        for (size_t i = 0; i < pipeline_.stages.size(); ++i) {
            if (single(int(i)) && stage(int(i)).types == stage(s).types && shape(int(i)).size() == shape(s).size()) {
                partners.push_back(int(i));
            }
        }
        const int other = rng_.pick(partners);
        const int dim = int(rng_.uniform(0, int(shape(s).size()) - 1));
        Shape out = shape(s);
        out[dim] += shape(other)[dim];
        if (!fits(out)) return false;
        append("concat", ConcatOp{s, other, dim}, {hull(range(s), range(other))},
               facts_[s].exact && facts_[other].exact);
        return true;
    }

    bool conv2d(int s) {
        if (!single(s) || shape(s).size() != 3 || !is_float(type(s))) return false;
        const int64_t k = rng_.pick({1, 2, 3, 3, 5});
        const int64_t cin = shape(s)[2];
        const int64_t cout = rng_.uniform(1, 24);
        if (shape(s)[0] < k || shape(s)[1] < k) return false;
        const Shape out = {shape(s)[0] - k + 1, shape(s)[1] - k + 1, cout};
        if (!fits(out, double(k * k * cin))) return false;
        // Weights scaled so that the output's magnitude is the input's.
        const double w = 1.0 / double(k * k * cin);
        const int weights = append_input(type(s), {k, k, cin, cout}, ValueBounds{-w, w}, true);
        append("conv2d", Conv2dOp{s, weights}, {{-range(s).magnitude(), range(s).magnitude()}}, false);
        return true;
    }

    bool matmul(int s) {
        if (!single(s) || shape(s).size() != 2 || !is_float(type(s))) return false;
        const int64_t k = shape(s)[0], m = shape(s)[1];
        const int64_t n = rng_.uniform(1, 96);
        if (!fits({n, m}, double(k))) return false;
        const double w = 1.0 / double(k);
        const int rhs = append_input(type(s), {n, k}, ValueBounds{-w, w}, true);
        append("matmul", MatmulOp{s, rhs}, {{-range(s).magnitude(), range(s).magnitude()}}, false);
        return true;
    }

    bool pool(int s) {
        if (!single(s) || shape(s).size() < 2) return false;
        const int window = int(rng_.pick({2, 2, 3}));
        const int stride = int(rng_.pick({1, 2, window}));
        if (shape(s)[0] < window || shape(s)[1] < window) return false;
        const PoolKind kind = rng_.chance(0.6) ? PoolKind::Max : PoolKind::Average;
        append("pool", PoolOp{s, kind, window, stride}, {range(s)},
               facts_[s].exact && (kind == PoolKind::Max || !is_float(type(s))));
        return true;
    }

    bool argreduce(int s) {
        if (!single(s) || shape(s).empty() || !facts_[s].exact) return false;
        std::vector<int> dims = {int(rng_.uniform(0, int(shape(s).size()) - 1))};
        if (shape(s).size() <= 2 && rng_.chance(0.3)) dims = all_dims(shape(s).size());
        std::vector<Interval> ranges = {range(s)};
        for (int d : dims) ranges.push_back({0, double(shape(s)[d] - 1)});
        append("argreduce", ArgReduceOp{s, dims, rng_.chance(0.5)}, ranges, true);
        // A tuple is read by pointwise stages only: use it right away.
        append_pointwise("use", {{current_, all_dims(shape(current_).size())}}, 2);
        return true;
    }

    // Reduces dimension `dim` of s away with `kind` and returns the stage and
    // the output dimensions its result broadcasts along.
    std::pair<int, std::vector<int>> reduce_along(int s, int dim, ReduceKind kind, Interval r) {
        std::vector<int> kept;
        for (size_t d = 0; d < shape(s).size(); ++d) {
            if (int(d) != dim) kept.push_back(int(d));
        }
        const int out = append("reduce", ReduceOp{s, {dim}, kind, type(s), rng_.chance(0.5)}, {r}, false);
        return {out, kept};
    }

    bool softmax(int s) {
        if (!single(s) || shape(s).empty() || !is_float(type(s))) return false;
        const ScalarType t = type(s);
        const int rank = int(shape(s).size());
        const int dim = int(rng_.uniform(0, rank - 1));
        auto [max_stage, kept] = reduce_along(s, dim, ReduceKind::Max, range(s));
        const Expr x = operand(0, 0, t), m = operand(1, 0, t);
        const double span = range(s).hi - range(s).lo;
        const int e = append(
            "exp",
            PointwiseOp{{{s, all_dims(rank)}, {max_stage, kept}}, {unary(UnaryOp::Exp, binary(BinaryOp::Sub, x, m))}},
            {{std::exp(-span), 1}}, false);
        const double n = double(shape(s)[dim]);
        auto [sum, kept_again] = reduce_along(e, dim, ReduceKind::Sum, {std::exp(-span), n});
        append("softmax", PointwiseOp{{{e, all_dims(rank)}, {sum, kept_again}}, {binary(BinaryOp::Div, x, m)}},
               {{0, 1}}, false);
        return true;
    }

    bool normalize_along(int s) {
        if (!single(s) || shape(s).empty() || !is_float(type(s))) return false;
        const ScalarType t = type(s);
        const int rank = int(shape(s).size());
        const int dim = int(rng_.uniform(0, rank - 1));
        const Interval r = range(s);
        auto [mean, kept] = reduce_along(s, dim, ReduceKind::Mean, r);
        const Expr x = operand(0, 0, t), m = operand(1, 0, t);
        const double span = r.hi - r.lo;
        const int centered =
            append("centered", PointwiseOp{{{s, all_dims(rank)}, {mean, kept}}, {binary(BinaryOp::Sub, x, m)}},
                   {{-span, span}}, false);
        const int squared = append("squared", PointwiseOp{{{centered, all_dims(rank)}}, {binary(BinaryOp::Mul, x, x)}},
                                   {{0, span * span}}, false);
        auto [variance, kept_again] = reduce_along(squared, dim, ReduceKind::Mean, {0, span * span});
        const Expr denominator = unary(UnaryOp::Sqrt, binary(BinaryOp::Add, m, constant(t, 1.0 / 64)));
        const double bound = span * 8;
        const int out = append(
            "normalized",
            PointwiseOp{{{centered, all_dims(rank)}, {variance, kept_again}}, {binary(BinaryOp::Div, x, denominator)}},
            {{-bound, bound}}, false);
        keep_in_range(out);
        return true;
    }

    // Several consumers of one stage, summed back together.
    bool fan_out(int s) {
        if (!single(s) || spent_ + 3 > budget_) return false;
        const int branches = int(rng_.uniform(3, std::min(8, budget_ - spent_)));
        std::vector<PointwiseOperand> operands;
        for (int b = 0; b < branches; ++b) {
            const int consumer = append_pointwise("branch", {{s, all_dims(shape(s).size())}}, 2);
            operands.push_back({consumer, all_dims(shape(s).size())});
            if (operands.size() == 4) break;  // a pointwise stage takes few operands here
        }
        append_pointwise("join", operands, 2);
        return true;
    }

    // ---- outputs ----

    void choose_outputs() {
        std::vector<int> consumers(pipeline_.stages.size(), 0);
        for (const Stage &s : pipeline_.stages) {
            for (int o : operands_of(s.op)) ++consumers[o];
        }
        std::vector<int> outputs = {current_};
        for (size_t i = 0; i < pipeline_.stages.size() && outputs.size() < 4; ++i) {
            if (int(i) == current_ || is_input(stage(int(i)))) continue;
            // Dead ends often become outputs; a consumed stage sometimes does too.
            if ((consumers[i] == 0 && rng_.chance(0.5)) || (consumers[i] > 0 && rng_.chance(0.04))) {
                outputs.push_back(int(i));
            }
        }
        pipeline_.outputs = outputs;
    }

    Random rng_;
    Description pipeline_;
    std::vector<StageFacts> facts_;
    Theme theme_ = Theme::Mixed;
    int budget_;
    int spent_ = 0;
    int inputs_ = 0;
    int current_ = -1;
};

}  // namespace

Description draw_random_pipeline(uint64_t seed, int budget) { return Drawer(seed, budget).draw(); }

}  // namespace strata::fuzz
