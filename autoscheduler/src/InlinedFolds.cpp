//===- InlinedFolds.cpp - a stage folded with the Funcs inlined into it ---===//
//
// The stage's definition has its inlined Funcs substituted (consumers
// first, so that a Func's body brings the calls that the next substitution
// replaces), and is simplified. A callee the substituted values call and
// the simplified definition (values, stored indices, where clause) does
// not is unread; an update whose every value simplifies to its own Func at
// the stored point is a no-op.
//===----------------------------------------------------------------------===//
#include "InlinedFolds.h"

#include "GpuTiling.h"  // hash_combine

#include <algorithm>
#include <map>
#include <mutex>

namespace strata::autoscheduler {

namespace {

using Halide::Expr;
using namespace Halide::Internal;

class CalledNames : public IRVisitor {
public:
    std::set<std::string> names;

private:
    using IRVisitor::visit;
    void visit(const Call *op) override {
        IRVisitor::visit(op);
        if (op->call_type == Call::Halide || op->call_type == Call::Image) names.insert(op->name);
    }
};

// Replaces every call of a pure Func with its definition at the call's
// arguments, as Halide's inliner does (whose checks of the Func's schedule
// would see the search's scratch schedules).
class Inline : public IRMutator {
public:
    explicit Inline(const Function &f) : f_(f) {}
    int substitutions = 0;

private:
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        if (op->call_type != Call::Halide || op->name != f_.name()) return IRMutator::visit(op);
        ++substitutions;
        std::map<std::string, Expr> at;
        const std::vector<std::string> &names = f_.args();
        for (size_t i = 0; i < names.size() && i < op->args.size(); ++i) at[names[i]] = mutate(op->args[i]);
        return substitute(at, f_.values()[size_t(op->value_index)]);
    }

    const Function &f_;
};

// Substitutions past which a stage is not folded: pyramids that inline
// level into level (local_laplacian) multiply their calls at each level,
// and folding them tripled the search's time. Folds come from small
// definitions meeting (a - a, a clamp to one element), a few calls each.
constexpr int kMaxSubstitutions = 16;

// Whether `value` is element `index` of `func` read at `args`.
bool reads_back(const Expr &value, const std::string &func, int index, const std::vector<Expr> &args) {
    const Call *call = value.as<Call>();
    if (!call || call->call_type != Call::Halide || call->name != func || call->value_index != index) return false;
    return std::equal(call->args.begin(), call->args.end(), args.begin(), args.end(),
                      [](const Expr &a, const Expr &b) { return equal(a, b); });
}

}  // namespace

std::vector<int> inlined_closure(const Stage &s, const NodeMap<Role> &roles, int kernel) {
    std::vector<int> out;
    std::vector<const Stage *> pending = {&s};
    while (!pending.empty()) {
        const Stage *st = pending.back();
        pending.pop_back();
        for (const Access &a : st->accesses) {
            const int id = a.callee->id;
            if (id == kernel || roles[id] != Role::Inlined) continue;
            if (std::find(out.begin(), out.end(), id) != out.end()) continue;
            out.push_back(id);
            pending.push_back(a.callee->stages[0].get());
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

const StageFolds &InlinedFolds::of(const Stage &s, const std::vector<int> &inlined) {
    static const StageFolds kNothingFolds;
    if (inlined.empty() && !s.is_update()) return kNothingFolds;
    uint64_t key = hash_combine(0x666f6c64, uint64_t(reinterpret_cast<uintptr_t>(&s)));
    for (int id : inlined) key = hash_combine(key, uint64_t(id));
    {
        std::shared_lock<std::shared_mutex> reading(mutex_);
        if (auto it = folds_.find(key); it != folds_.end()) return it->second;
    }
    StageFolds folded = fold(s, inlined);
    std::unique_lock<std::shared_mutex> writing(mutex_);
    return folds_.emplace(key, std::move(folded)).first->second;
}

StageFolds InlinedFolds::fold(const Stage &s, const std::vector<int> &inlined) const {
    std::vector<Expr> values = s.definition.values(), args = s.definition.args();
    Expr where = s.definition.predicate();
    int substitutions = 0;
    for (auto id = inlined.rbegin(); id != inlined.rend(); ++id) {
        const Function &f = dag_.nodes()[*id]->func;
        Inline inline_f(f);
        for (Expr &v : values) v = inline_f.mutate(v);
        for (Expr &a : args) a = inline_f.mutate(a);
        if (where.defined()) where = inline_f.mutate(where);
        substitutions += inline_f.substitutions;
        if (substitutions > kMaxSubstitutions) return StageFolds{};
    }
    CalledNames substituted, simplified;
    StageFolds out;
    out.no_op = s.is_update();
    for (Expr &a : args) a = simplify(substitute_in_all_lets(a));
    for (size_t i = 0; i < values.size(); ++i) {
        values[i].accept(&substituted);
        const Expr folded = simplify(substitute_in_all_lets(values[i]));
        folded.accept(&simplified);
        out.no_op = out.no_op && reads_back(folded, s.node->name, int(i), args);
    }
    for (const Expr &a : args) a.accept(&simplified);
    if (where.defined()) simplify(substitute_in_all_lets(where)).accept(&simplified);
    for (const std::string &name : substituted.names) {
        const Node *callee = dag_.node(name);
        if (callee && !simplified.names.count(name)) out.unread.insert(callee->id);
    }
    return out;
}

}  // namespace strata::autoscheduler
