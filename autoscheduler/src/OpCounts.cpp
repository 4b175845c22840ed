#include "OpCounts.h"

#include <set>

namespace strata::autoscheduler {

using namespace Halide;
using namespace Halide::Internal;

OpCounts &OpCounts::operator+=(const OpCounts &o) {
    add_sub += o.add_sub;
    mul += o.mul;
    div_mod += o.div_mod;
    min_max += o.min_max;
    compare_select += o.compare_select;
    transcendental += o.transcendental;
    cast += o.cast;
    bitwise += o.bitwise;
    loads += o.loads;
    return *this;
}

OpCounts OpCounts::scaled(double f) const {
    OpCounts s = *this;
    s.add_sub *= f;
    s.mul *= f;
    s.div_mod *= f;
    s.min_max *= f;
    s.compare_select *= f;
    s.transcendental *= f;
    s.cast *= f;
    s.bitwise *= f;
    s.loads *= f;
    return s;
}

double OpCounts::arithmetic() const {
    // Division is a multi-instruction sequence on GPUs (reciprocal + Newton,
    // or a long integer sequence); the rest issue at the FMA rate or close.
    return add_sub + mul + 4 * div_mod + min_max + compare_select + 0.5 * cast + bitwise;
}

namespace {

bool is_transcendental(const Call *call) {
    static const std::set<std::string> kNames = {
        "exp", "log", "pow", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
        "asinh", "acosh", "atanh", "sqrt", "erf", "fast_inverse", "fast_inverse_sqrt", "fast_exp", "fast_log",
        "fast_pow", "fast_sin", "fast_cos"};
    std::string base = call->name;
    for (const char *suffix : {"_f16", "_f32", "_f64"}) {
        const std::string s = suffix;
        if (base.size() > s.size() && base.compare(base.size() - s.size(), s.size(), s) == 0) {
            base = base.substr(0, base.size() - s.size());
        }
    }
    return kNames.count(base) > 0;
}

class OpCounter : public IRGraphVisitor {
public:
    OpCounts counts;

private:
    using IRGraphVisitor::visit;

    void visit(const Add *op) override { ++counts.add_sub, IRGraphVisitor::visit(op); }
    void visit(const Sub *op) override { ++counts.add_sub, IRGraphVisitor::visit(op); }
    void visit(const Mul *op) override { ++counts.mul, IRGraphVisitor::visit(op); }
    void visit(const Div *op) override { ++counts.div_mod, IRGraphVisitor::visit(op); }
    void visit(const Mod *op) override { ++counts.div_mod, IRGraphVisitor::visit(op); }
    void visit(const Min *op) override { ++counts.min_max, IRGraphVisitor::visit(op); }
    void visit(const Max *op) override { ++counts.min_max, IRGraphVisitor::visit(op); }
    void visit(const EQ *op) override { ++counts.compare_select, IRGraphVisitor::visit(op); }
    void visit(const NE *op) override { ++counts.compare_select, IRGraphVisitor::visit(op); }
    void visit(const LT *op) override { ++counts.compare_select, IRGraphVisitor::visit(op); }
    void visit(const LE *op) override { ++counts.compare_select, IRGraphVisitor::visit(op); }
    void visit(const GT *op) override { ++counts.compare_select, IRGraphVisitor::visit(op); }
    void visit(const GE *op) override { ++counts.compare_select, IRGraphVisitor::visit(op); }
    void visit(const Select *op) override { ++counts.compare_select, IRGraphVisitor::visit(op); }
    void visit(const And *op) override { ++counts.bitwise, IRGraphVisitor::visit(op); }
    void visit(const Or *op) override { ++counts.bitwise, IRGraphVisitor::visit(op); }
    void visit(const Not *op) override { ++counts.bitwise, IRGraphVisitor::visit(op); }
    void visit(const Cast *op) override { ++counts.cast, IRGraphVisitor::visit(op); }
    void visit(const Call *op) override {
        if (op->call_type == Call::Halide || op->call_type == Call::Image) {
            ++counts.loads;
        } else if (is_transcendental(op)) {
            ++counts.transcendental;
        } else if (op->is_intrinsic(Call::bitwise_and) || op->is_intrinsic(Call::bitwise_or) ||
                   op->is_intrinsic(Call::bitwise_xor) || op->is_intrinsic(Call::bitwise_not) ||
                   op->is_intrinsic(Call::shift_left) || op->is_intrinsic(Call::shift_right)) {
            ++counts.bitwise;
        } else if (op->is_intrinsic(Call::abs) || op->is_intrinsic(Call::absd)) {
            ++counts.min_max;
        } else if (op->is_intrinsic(Call::lerp)) {
            counts.add_sub += 2, counts.mul += 1;
        }
        IRGraphVisitor::visit(op);
    }
};

}  // namespace

OpCounts count_ops(const std::vector<Expr> &exprs) {
    OpCounter counter;
    for (const Expr &e : exprs) {
        if (e.defined()) e.accept(&counter);
    }
    return counter.counts;
}

}  // namespace strata::autoscheduler
