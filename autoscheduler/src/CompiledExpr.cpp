#include "CompiledExpr.h"

#include "GpuTiling.h"  // hash_combine

#include <algorithm>
#include <cmath>

namespace strata::autoscheduler {

using namespace Halide;
using namespace Halide::Internal;

// Walks an Expr bottom-up, appending one Op per node; gives up on anything
// it cannot evaluate exactly with 64-bit integers.
class ExprCompiler {
public:
    ExprCompiler(CompiledExpr &out, const std::vector<std::string> &symbols) : out_(out), symbols_(symbols) {}

    // Returns the slot of `e`'s value, or -1.
    int compile(const Expr &e) {
        if (!e.defined()) return -1;
        if (const auto i = as_const_int(e)) return push(CompiledExpr::OpCode::Const, *i);
        if (const auto u = as_const_uint(e)) {
            if (*u > uint64_t(INT64_MAX)) return -1;
            return push(CompiledExpr::OpCode::Const, int64_t(*u));
        }
        if (!e.type().is_int() && !e.type().is_uint() && !e.type().is_bool()) return -1;
        if (const Variable *v = e.as<Variable>()) {
            for (size_t i = 0; i < symbols_.size(); ++i) {
                if (symbols_[i] == v->name) return push(CompiledExpr::OpCode::Symbol, int64_t(i));
            }
            return -1;
        }
        if (const Cast *c = e.as<Cast>()) {
            if (c->value.type().is_float()) {
                return c->type.is_int() || c->type.is_uint() ? floor_of_affine_float(c->value) : -1;
            }
            // Integer-to-integer casts that cannot overflow in practice (index math).
            if (!c->value.type().is_int() && !c->value.type().is_uint() && !c->value.type().is_bool()) return -1;
            return compile(c->value);
        }
        if (const Add *n = e.as<Add>()) return binary(CompiledExpr::OpCode::Add, n->a, n->b);
        if (const Sub *n = e.as<Sub>()) return binary(CompiledExpr::OpCode::Sub, n->a, n->b);
        if (const Mul *n = e.as<Mul>()) return binary(CompiledExpr::OpCode::Mul, n->a, n->b);
        if (const Div *n = e.as<Div>()) return binary(CompiledExpr::OpCode::Div, n->a, n->b);
        if (const Mod *n = e.as<Mod>()) return binary(CompiledExpr::OpCode::Mod, n->a, n->b);
        if (const Min *n = e.as<Min>()) return binary(CompiledExpr::OpCode::Min, n->a, n->b);
        if (const Max *n = e.as<Max>()) return binary(CompiledExpr::OpCode::Max, n->a, n->b);
        if (const LT *n = e.as<LT>()) return binary(CompiledExpr::OpCode::Lt, n->a, n->b);
        if (const LE *n = e.as<LE>()) return binary(CompiledExpr::OpCode::Le, n->a, n->b);
        if (const GT *n = e.as<GT>()) return binary(CompiledExpr::OpCode::Lt, n->b, n->a);
        if (const GE *n = e.as<GE>()) return binary(CompiledExpr::OpCode::Le, n->b, n->a);
        if (const EQ *n = e.as<EQ>()) return binary(CompiledExpr::OpCode::Eq, n->a, n->b);
        if (const NE *n = e.as<NE>()) return binary(CompiledExpr::OpCode::Ne, n->a, n->b);
        if (const And *n = e.as<And>()) return binary(CompiledExpr::OpCode::And, n->a, n->b);
        if (const Or *n = e.as<Or>()) return binary(CompiledExpr::OpCode::Or, n->a, n->b);
        if (const Not *n = e.as<Not>()) {
            int a = compile(n->a);
            return a < 0 ? -1 : push(CompiledExpr::OpCode::Not, 0, a);
        }
        if (const Select *n = e.as<Select>()) {
            int c = compile(n->condition), a = compile(n->true_value), b = compile(n->false_value);
            if (c < 0 || a < 0 || b < 0) return -1;
            return push(CompiledExpr::OpCode::Select, 0, c, a, b);
        }
        if (const Let *n = e.as<Let>()) {
            return compile(substitute(n->name, n->value, n->body));
        }
        if (const Call *n = e.as<Call>()) {
            // Hints to the compiler that leave the value as it is
            // (BoundaryConditions wraps its clamped coordinates in likely()).
            if (n->is_intrinsic({Call::likely, Call::likely_if_innermost, Call::promise_clamped,
                                 Call::unsafe_promise_clamped})) {
                return compile(n->args[0]);
            }
            // |a| of a signed index (BoundaryConditions::mirror_interior folds
            // a coordinate with it), as a select; its unsigned result type is
            // cast back to signed before anything can overflow.
            if (n->is_intrinsic(Call::abs) && n->args[0].type().is_int()) {
                const int a = compile(n->args[0]);
                if (a < 0) return -1;
                const int zero = push(CompiledExpr::OpCode::Const, 0);
                const int negative = push(CompiledExpr::OpCode::Lt, 0, a, zero);
                const int negated = push(CompiledExpr::OpCode::Sub, 0, zero, a);
                return push(CompiledExpr::OpCode::Select, 0, negative, negated, a);
            }
        }
        return -1;
    }

private:
    // Denominators past this are given up on (products of them must fit
    // the 64-bit numerators).
    static constexpr int64_t kMaxDenominator = int64_t(1) << 40;

    // `int(floor(f))` for a float `f` affine in integer terms with constant
    // coefficients: a grid's cell of a pixel, `floor((x + 0.5) / 32)` (the
    // bilateral grid's slice; Halide's simplifier writes it
    // `floor_f32(float32(x)*0.03125f + 0.015625f)`). Each float constant is
    // taken at its exact binary value p / 2^k, so `f` is N / D with N an
    // integer expression and D a constant, and the floor is N floor-divided
    // by D: exact where the float arithmetic is (power-of-two scales),
    // otherwise off by one at most at a cell's edge.
    int floor_of_affine_float(const Expr &e) {
        const Call *floor = e.as<Call>();
        if (!floor || floor->call_type != Call::PureExtern || floor->args.size() != 1 ||
            floor->name.rfind("floor_f", 0) != 0) {
            return -1;
        }
        int numerator = -1;
        int64_t denominator = 1;
        if (!affine_float(floor->args[0], numerator, denominator)) return -1;
        return push(CompiledExpr::OpCode::Div, 0, numerator, push(CompiledExpr::OpCode::Const, denominator));
    }

    // A float constant as p / q exactly, q a power of two.
    static bool exact_ratio(double c, int64_t &p, int64_t &q) {
        q = 1;
        while (c != std::floor(c) && q < kMaxDenominator) {
            c *= 2;
            q *= 2;
        }
        if (c != std::floor(c) || std::abs(c) > double(int64_t(1) << 52)) return false;
        p = int64_t(c);
        return true;
    }

    // `f` as numerator / denominator (see floor_of_affine_float).
    bool affine_float(const Expr &f, int &numerator, int64_t &denominator) {
        int64_t p = 0, q = 1;
        if (const auto c = as_const_float(f)) {
            if (!exact_ratio(*c, p, q)) return false;
            numerator = push(CompiledExpr::OpCode::Const, p);
            denominator = q;
            return true;
        }
        if (const Cast *c = f.as<Cast>()) {
            if (!c->value.type().is_int() && !c->value.type().is_uint()) return false;
            numerator = compile(c->value);
            denominator = 1;
            return numerator >= 0;
        }
        const bool add = f.as<Add>() != nullptr, sub = f.as<Sub>() != nullptr;
        if (add || sub) {
            const Expr &a = add ? f.as<Add>()->a : f.as<Sub>()->a, &b = add ? f.as<Add>()->b : f.as<Sub>()->b;
            int na = -1, nb = -1;
            int64_t da = 1, db = 1;
            if (!affine_float(a, na, da) || !affine_float(b, nb, db)) return false;
            const int64_t common = std::max(da, db);  // powers of two: the larger is a multiple of the smaller
            if (common > kMaxDenominator) return false;
            const int scaled_a = push(CompiledExpr::OpCode::Mul, 0, na, push(CompiledExpr::OpCode::Const, common / da));
            const int scaled_b = push(CompiledExpr::OpCode::Mul, 0, nb, push(CompiledExpr::OpCode::Const, common / db));
            numerator = push(add ? CompiledExpr::OpCode::Add : CompiledExpr::OpCode::Sub, 0, scaled_a, scaled_b);
            denominator = common;
            return true;
        }
        if (const Mul *m = f.as<Mul>()) {
            const bool constant_b = as_const_float(m->b).has_value();
            const Expr &term = constant_b ? m->a : m->b, &factor = constant_b ? m->b : m->a;
            const auto c = as_const_float(factor);
            int nt = -1;
            int64_t dt = 1;
            if (!c || !exact_ratio(*c, p, q) || !affine_float(term, nt, dt) || dt > kMaxDenominator / q) return false;
            numerator = push(CompiledExpr::OpCode::Mul, 0, nt, push(CompiledExpr::OpCode::Const, p));
            denominator = dt * q;
            return true;
        }
        return false;
    }

    int binary(CompiledExpr::OpCode code, const Expr &a, const Expr &b) {
        int sa = compile(a);
        if (sa < 0) return -1;
        int sb = compile(b);
        if (sb < 0) return -1;
        return push(code, 0, sa, sb);
    }

    int push(CompiledExpr::OpCode code, int64_t value, int a = -1, int b = -1, int c = -1) {
        out_.ops_.push_back({code, value, a, b, c});
        return int(out_.ops_.size()) - 1;
    }

    CompiledExpr &out_;
    const std::vector<std::string> &symbols_;
};

std::optional<CompiledExpr> CompiledExpr::compile(const Expr &e, const std::vector<std::string> &symbols) {
    CompiledExpr result;
    ExprCompiler compiler(result, symbols);
    if (compiler.compile(e) < 0) return std::nullopt;
    return result;
}

CompiledExpr CompiledExpr::constant(int64_t value) {
    CompiledExpr e;
    e.ops_.push_back({OpCode::Const, value, -1, -1, -1});
    return e;
}

int64_t CompiledExpr::evaluate(const int64_t *symbol_values) const {
    // Expressions are small (tens of ops); a fixed stack buffer avoids allocation.
    constexpr size_t kInline = 64;
    int64_t inline_slots[kInline];
    std::vector<int64_t> heap_slots;
    int64_t *slot = inline_slots;
    if (ops_.size() > kInline) {
        heap_slots.resize(ops_.size());
        slot = heap_slots.data();
    }
    for (size_t i = 0; i < ops_.size(); ++i) {
        const Op &op = ops_[i];
        int64_t a = op.a >= 0 ? slot[op.a] : 0, b = op.b >= 0 ? slot[op.b] : 0;
        int64_t r = 0;
        switch (op.code) {
        case OpCode::Const: r = op.value; break;
        case OpCode::Symbol: r = symbol_values[op.value]; break;
        case OpCode::Add: r = a + b; break;
        case OpCode::Sub: r = a - b; break;
        case OpCode::Mul: r = a * b; break;
        case OpCode::Div: r = floor_div(a, b); break;
        case OpCode::Mod: r = floor_mod(a, b); break;
        case OpCode::Min: r = a < b ? a : b; break;
        case OpCode::Max: r = a > b ? a : b; break;
        case OpCode::Lt: r = a < b; break;
        case OpCode::Le: r = a <= b; break;
        case OpCode::Eq: r = a == b; break;
        case OpCode::Ne: r = a != b; break;
        case OpCode::And: r = a && b; break;
        case OpCode::Or: r = a || b; break;
        case OpCode::Not: r = !a; break;
        case OpCode::Select: r = a ? b : slot[op.c]; break;
        }
        slot[i] = r;
    }
    return ops_.empty() ? 0 : slot[ops_.size() - 1];
}

bool CompiledExpr::is_constant() const {
    for (const Op &op : ops_) {
        if (op.code == OpCode::Symbol) return false;
    }
    return true;
}

bool CompiledExpr::wraps_or_chooses() const {
    for (const Op &op : ops_) {
        if (op.code == OpCode::Mod || op.code == OpCode::Select) return true;
    }
    return false;
}

bool CompiledExpr::clamps() const {
    for (const Op &op : ops_) {
        if (op.code == OpCode::Min || op.code == OpCode::Max) return true;
    }
    return false;
}

bool CompiledExpr::uses_symbol(int index) const {
    return std::any_of(ops_.begin(), ops_.end(),
                       [&](const Op &op) { return op.code == OpCode::Symbol && op.value == index; });
}

int64_t CompiledExpr::rounding_period() const {
    constexpr int64_t kCap = int64_t(1) << 20;
    int64_t period = 1;
    for (const Op &op : ops_) {
        if (op.code != OpCode::Div) continue;
        const Op &divisor = ops_[op.b];
        if (divisor.code != OpCode::Const) return 0;
        period = std::min(kCap, period * std::max<int64_t>(1, divisor.value < 0 ? -divisor.value : divisor.value));
    }
    return period;
}

IndexForm CompiledExpr::symbol_form(int index) { return IndexForm::atom(hash_combine(0x73796d, uint64_t(index))); }

IndexForm CompiledExpr::canonical(const std::vector<IndexForm> &symbols) const {
    std::vector<IndexForm> slot;
    slot.reserve(ops_.size());
    const auto opaque = [](OpCode code, std::vector<IndexForm> operands, bool commutative) {
        return IndexForm::opaque(uint64_t(code), std::move(operands), commutative);
    };
    for (const Op &op : ops_) {
        const IndexForm none = IndexForm::number(0);
        const IndexForm &a = op.a >= 0 ? slot[op.a] : none, &b = op.b >= 0 ? slot[op.b] : none;
        switch (op.code) {
        case OpCode::Const: slot.push_back(IndexForm::number(op.value)); break;
        case OpCode::Symbol:
            slot.push_back(size_t(op.value) < symbols.size() ? symbols[op.value] : symbol_form(int(op.value)));
            break;
        case OpCode::Add: slot.push_back(a + b); break;
        case OpCode::Sub: slot.push_back(a - b); break;
        case OpCode::Mul:
            slot.push_back(b.is_constant()   ? a.scaled(b.constant())
                           : a.is_constant() ? b.scaled(a.constant())
                                             : opaque(op.code, {a, b}, true));
            break;
        case OpCode::Div:
        case OpCode::Mod:
            if (b.is_constant() && b.constant() != 0) {
                slot.push_back(op.code == OpCode::Div ? a.divided_by(b.constant()) : a.modulo(b.constant()));
            } else {
                slot.push_back(opaque(op.code, {a, b}, false));
            }
            break;
        case OpCode::Min:
        case OpCode::Max:
            // Operands a constant apart: the simplifier picks one statically.
            if (const IndexForm difference = a - b; difference.is_constant()) {
                const bool a_smaller = difference.constant() <= 0;
                slot.push_back((op.code == OpCode::Min) == a_smaller ? a : b);
            } else {
                slot.push_back(opaque(op.code, {a, b}, true));
            }
            break;
        case OpCode::Lt:
        case OpCode::Le:
        case OpCode::Eq:
        case OpCode::Ne:
            if (const IndexForm difference = a - b; difference.is_constant()) {
                const int64_t d = difference.constant();
                const bool holds = op.code == OpCode::Lt ? d < 0 : op.code == OpCode::Le ? d <= 0
                                                              : op.code == OpCode::Eq ? d == 0 : d != 0;
                slot.push_back(IndexForm::number(holds));
            } else {
                slot.push_back(opaque(op.code, {a, b}, op.code == OpCode::Eq || op.code == OpCode::Ne));
            }
            break;
        case OpCode::And:
        case OpCode::Or:
            if (a.is_constant() && b.is_constant()) {
                const bool x = a.constant() != 0, y = b.constant() != 0;
                slot.push_back(IndexForm::number(op.code == OpCode::And ? (x && y) : (x || y)));
            } else {
                slot.push_back(opaque(op.code, {a, b}, true));
            }
            break;
        case OpCode::Not:
            slot.push_back(a.is_constant() ? IndexForm::number(a.constant() == 0) : opaque(op.code, {a}, false));
            break;
        case OpCode::Select: {
            const IndexForm &c = slot[op.c];
            if (a.is_constant()) {
                slot.push_back(a.constant() != 0 ? b : c);
            } else if (b == c) {
                slot.push_back(b);
            } else {
                slot.push_back(opaque(op.code, {a, b, c}, false));
            }
            break;
        }
        }
    }
    return slot.empty() ? IndexForm::number(0) : slot.back();
}

std::string CompiledExpr::key() const {
    std::string out;
    out.reserve(ops_.size() * (1 + sizeof(int64_t) + 3 * sizeof(int)));
    const auto append = [&](const auto &field) { out.append(reinterpret_cast<const char *>(&field), sizeof(field)); };
    for (const Op &op : ops_) {
        append(op.code);
        append(op.value);
        append(op.a);
        append(op.b);
        append(op.c);
    }
    return out;
}

}  // namespace strata::autoscheduler
