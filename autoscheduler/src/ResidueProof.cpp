//===- ResidueProof.cpp - an integer condition proved residue by residue --===//
//
// The condition's free variables and constant divisors are collected, and
// the condition is simplified once per combination of residues, each
// variable v replaced by `L·v + r`. Floor division and modulo by any divisor
// of L are then exact in v, which the simplifier handles; what is left of
// each case is a condition on constants or on the v's linearly.
//===----------------------------------------------------------------------===//
#include "ResidueProof.h"

#include <map>
#include <numeric>
#include <string>
#include <vector>

namespace strata::autoscheduler {

namespace {

using namespace Halide::Internal;
using Halide::Expr;

// The largest modulus tried, and the most cases.
constexpr int64_t kMaxModulus = 64;
constexpr int64_t kMaxCases = 4096;

// The variables a condition names (its Lets substituted first) and the lcm
// of the constants it divides by or takes a modulus by.
class FreeVarsAndDivisors : public IRVisitor {
public:
    std::map<std::string, Halide::Type> vars;
    int64_t modulus = 1;

private:
    using IRVisitor::visit;

    void visit(const Variable *op) override { vars.emplace(op->name, op->type); }
    void visit(const Div *op) override {
        divisor(op->b);
        IRVisitor::visit(op);
    }
    void visit(const Mod *op) override {
        divisor(op->b);
        IRVisitor::visit(op);
    }
    void divisor(const Expr &e) {
        const std::optional<int64_t> d = as_const_int(e);
        if (!d || *d <= 1) return;
        // Past the cap, the lcm is only kept from overflowing.
        modulus = modulus > kMaxModulus ? modulus : std::lcm(modulus, *d);
    }
};

}  // namespace

bool holds_at_every_residue(const Halide::Expr &condition) {
    const Expr flat = substitute_in_all_lets(condition);
    if (can_prove(flat)) return true;
    FreeVarsAndDivisors found;
    flat.accept(&found);
    const int64_t modulus = found.modulus;
    if (modulus > kMaxModulus || modulus == 1) return false;
    std::vector<std::pair<std::string, Halide::Type>> vars(found.vars.begin(), found.vars.end());
    int64_t cases = 1;
    for (const auto &[name, type] : vars) {
        if (!type.is_int() || type.is_vector()) return false;
        cases *= modulus;
        if (cases > kMaxCases) return false;
    }
    std::vector<int64_t> residue(vars.size(), 0);
    for (int64_t c = 0; c < cases; ++c) {
        std::map<std::string, Expr> written;
        for (size_t i = 0; i < vars.size(); ++i) {
            const auto &[name, type] = vars[i];
            const Expr v = Variable::make(type, name);
            written[name] = v * make_const(type, modulus) + make_const(type, residue[i]);
        }
        if (!can_prove(substitute(written, flat))) return false;
        // The next combination of residues, the first variable fastest.
        for (size_t i = 0; i < residue.size() && ++residue[i] == modulus; ++i) residue[i] = 0;
    }
    return true;
}

}  // namespace strata::autoscheduler
