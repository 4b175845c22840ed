//===- FunctionDAG.cpp - pipeline analysis for the Strata search ----------===//
//
// Builds Nodes in Halide's topological order, analyses each definition
// (loops, op counts, call sites, associativity), derives per-edge symbolic
// footprints with boxes_required() over symbolic loop bounds, and computes
// every Node's root region by propagating the outputs' estimates from
// consumers to producers with concrete bounds.
//===----------------------------------------------------------------------===//
#include "FunctionDAG.h"

#include "Errors.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <sstream>

namespace strata::autoscheduler {

using namespace Halide;
using namespace Halide::Internal;

int64_t points(const Region &r) {
    int64_t p = 1;
    for (const Span &s : r) p *= std::max<int64_t>(s.extent, 0);
    return p;
}

Region bounding_box(const Region &a, const Region &b) {
    if (points(a) == 0) return b;
    if (points(b) == 0) return a;
    Region r(a.size());
    for (size_t d = 0; d < a.size(); ++d) {
        const int64_t lo = std::min(a[d].min, b[d].min), hi = std::max(a[d].max(), b[d].max());
        r[d] = Span{lo, hi - lo + 1};
    }
    return r;
}

namespace {

// Where a footprint's rounding period stops growing: divisions this coarse
// leave no period worth tracking.
constexpr int64_t kMaxRoundingPeriod = int64_t(1) << 20;

// Replaces parameters with their estimates and input-buffer shapes with their
// estimated (or, for embedded buffers, actual) bounds.
class ApplyEstimates : public IRMutator {
    using IRMutator::visit;

    Expr visit(const Variable *op) override {
        if (op->param.defined()) {
            const Parameter &p = op->param;
            if (!p.is_buffer()) {
                Expr e = p.estimate();
                if (!e.defined()) {
                    fail("scalar parameter '" + p.name() + "' has no estimate; call set_estimate() on it");
                }
                return cast(op->type, e);
            }
            for (int d = 0; d < p.dimensions(); ++d) {
                const std::string prefix = p.name() + ".";
                if (op->name == prefix + "min." + std::to_string(d)) {
                    return estimate_or_fail(p.min_constraint_estimate(d), p.name(), d, op->type);
                }
                if (op->name == prefix + "extent." + std::to_string(d)) {
                    return estimate_or_fail(p.extent_constraint_estimate(d), p.name(), d, op->type);
                }
            }
            return op;
        }
        if (op->image.defined()) {
            const Buffer<> &b = op->image;
            for (int d = 0; d < b.dimensions(); ++d) {
                const std::string prefix = b.name() + ".";
                if (op->name == prefix + "min." + std::to_string(d)) return make_const(op->type, b.dim(d).min());
                if (op->name == prefix + "extent." + std::to_string(d)) {
                    return make_const(op->type, b.dim(d).extent());
                }
            }
        }
        return op;
    }

    static Expr estimate_or_fail(const Expr &e, const std::string &buffer, int dim, Type t) {
        if (!e.defined()) {
            fail("input buffer '" + buffer + "' has no estimate for dimension " + std::to_string(dim) +
                 "; call set_estimates() on it");
        }
        return cast(t, e);
    }
};

Expr apply_estimates(const Expr &e) {
    if (!e.defined()) return e;
    return simplify(ApplyEstimates().mutate(e));
}

std::string min_symbol(const std::string &var) { return "strata%" + var + ".min"; }
std::string max_symbol(const std::string &var) { return "strata%" + var + ".max"; }

// The calls of an expression list, in order of appearance.
class CallCollector : public IRVisitor {
public:
    std::vector<const Call *> calls;

private:
    using IRVisitor::visit;
    void visit(const Call *op) override {
        IRVisitor::visit(op);
        if (op->call_type == Call::Halide || op->call_type == Call::Image) calls.push_back(op);
    }
};

// The Funcs and inputs an expression reads only under a condition: in an
// arm of a select or an if_then_else. Of those, the ones whose region
// Halide narrows to where the condition may hold when it infers bounds:
// arms of an if_then_else, and of a select whose condition loads nothing
// (SelectToIfThenElse); and for every Func, where it is read: the
// disjunction over its call sites of the narrowing conditions around each
// (true for a site outside them).
class ConditionalCalls : public IRVisitor {
public:
    std::set<std::string> names, narrowed;
    std::map<std::string, Expr> read_where;

private:
    using IRVisitor::visit;
    int arms_ = 0;  // how many conditional arms enclose the expression being visited
    std::vector<Expr> narrowing_;  // the conditions of the narrowing arms among them
    void visit_arm(const Expr &e, const Expr &narrowing_condition) {
        ++arms_;
        if (narrowing_condition.defined()) narrowing_.push_back(narrowing_condition);
        e.accept(this);
        if (narrowing_condition.defined()) narrowing_.pop_back();
        --arms_;
    }
    void visit(const Select *op) override {
        op->condition.accept(this);
        const bool narrows = is_pure(op->condition);
        visit_arm(op->true_value, narrows ? op->condition : Expr());
        visit_arm(op->false_value, narrows ? !op->condition : Expr());
    }
    void visit(const Call *op) override {
        if (op->is_intrinsic(Call::if_then_else)) {
            op->args[0].accept(this);
            visit_arm(op->args[1], op->args[0]);
            if (op->args.size() > 2) visit_arm(op->args[2], !op->args[0]);
            return;
        }
        IRVisitor::visit(op);
        if (op->call_type != Call::Halide && op->call_type != Call::Image) return;
        if (arms_ > 0) names.insert(op->name);
        if (!narrowing_.empty()) narrowed.insert(op->name);
        Expr here = const_true();
        for (const Expr &c : narrowing_) here = here && c;
        auto [it, is_new] = read_where.emplace(op->name, here);
        if (!is_new) it->second = it->second || here;
    }
};

// Halide's bounds inference rewrites a select whose condition loads nothing
// into an if_then_else before it computes what a Func needs, so each arm's
// calls are required only where the condition picks that arm (a causal
// mask's j <= i reads the scores of half the keys; a concatenation reads
// each part only over its own channels). Footprints are taken the same way.
class SelectToIfThenElse : public IRMutator {
    using IRMutator::visit;
    Expr visit(const Select *op) override {
        if (!is_pure(op->condition)) return IRMutator::visit(op);
        return Call::make(op->type, Call::if_then_else,
                          {mutate(op->condition), mutate(op->true_value), mutate(op->false_value)},
                          Call::PureIntrinsic);
    }
};

// Where a Func read under the conditions `where` (ConditionalCalls::
// read_where) is read at all over a box of the stage's loops (`loops`:
// each loop variable over its bound symbols): the condition may hold at
// some point of the box (Edge::used). Nothing where it always may, or
// where the condition does not compile.
std::optional<CompiledExpr> read_somewhere(const Expr &where, const Scope<Interval> &loops,
                                           const std::vector<std::string> &bound_symbols) {
    const Expr somewhere = simplify(or_condition_over_domain(simplify(where), loops));
    if (is_const_one(somewhere)) return std::nullopt;
    return CompiledExpr::compile(apply_estimates(somewhere), bound_symbols);
}

// Per producer dimension, whether the region `e` reads grows when its
// consumer's box moves far away, beyond what the estimates cover
// (Edge::grows_far_away). A clamp only shrinks a far footprint.
std::vector<bool> footprint_grows_far_away(const Edge &e) {
    const Stage &stage = *e.consumer;
    const std::vector<Span> whole = stage.loop_bounds(stage.node->root_region);
    std::vector<Span> box = whole;
    for (size_t i = 0; i < box.size(); ++i) {
        if (!stage.loops[i].is_rvar) box[i] = Span{whole[i].min + whole[i].extent / 2, 2};
    }
    const Region near = e.footprint(box, /*unclamped=*/true);
    // A multiple of the footprint's period, so divisions land alike.
    const int64_t far = std::max<int64_t>(e.rounding_period(), 1) << 16;
    std::vector<bool> grows(size_t(e.producer->dimensions), false);
    for (int64_t shift : {far, -far}) {
        std::vector<Span> moved = box;
        for (size_t i = 0; i < moved.size(); ++i) {
            if (!stage.loops[i].is_rvar) moved[i].min += shift;
        }
        const Region there = e.footprint(moved, /*unclamped=*/true);
        for (size_t d = 0; d < there.size() && d < near.size(); ++d) {
            if (there[d].extent > near[d].extent) grows[d] = true;
        }
    }
    return grows;
}

// An index the CompiledExpr cannot evaluate (it reads memory), as text:
// two such indices are the same address only if they are the same Expr.
std::string expr_text(const Expr &e) {
    std::ostringstream text;
    text << e;
    return text.str();
}

// The call sites of a stage that Halide's simplifier removes before any
// code is built: a stencil tap of weight zero (0 * in(x + 1)), a difference
// of equal calls (f(x) - f(x)). Lowering simplifies every definition, so
// such a site loads nothing, and a Func read only through such sites is not
// computed at all. A site is named by its callee, tuple element and
// indices, each index simplified on its own. The simplifier may also
// rewrite an index using what surrounds it; where a simplified call of a
// callee matches no original site, this cannot tell which sites it came
// from, and every site of that callee is kept.
class FoldedCalls {
public:
    explicit FoldedCalls(const std::vector<Expr> &exprs) {
        std::vector<Expr> simplified_exprs;  // alive while their calls are read
        CallCollector simplified;
        for (const Expr &e : exprs) {
            simplified_exprs.push_back(simplify(e));
            simplified_exprs.back().accept(&simplified);
        }
        for (const Call *call : simplified.calls) surviving_[call->name].insert(site(call));
        CallCollector original;
        for (const Expr &e : exprs) e.accept(&original);
        std::map<std::string, std::set<std::string>> original_sites;
        for (const Call *call : original.calls) original_sites[call->name].insert(site(call));
        for (const auto &[name, sites] : surviving_) {
            const std::set<std::string> &known = original_sites[name];
            const bool all_matched =
                std::all_of(sites.begin(), sites.end(), [&](const std::string &s) { return known.count(s) > 0; });
            if (!all_matched) rewritten_.insert(name);
        }
    }

    // Whether the simplifier removes this call site (`call` from the
    // unsimplified expressions the collector was built from).
    bool folded(const Call *call) const {
        auto it = surviving_.find(call->name);
        if (it == surviving_.end()) return true;
        return !rewritten_.count(call->name) && !it->second.count(site(call));
    }
    // Whether no call of `name` survives simplification.
    bool unread(const std::string &name) const { return !surviving_.count(name); }

private:
    static std::string site(const Call *call) {
        std::string key = call->name + "#" + std::to_string(call->value_index);
        for (const Expr &arg : call->args) key += "|" + expr_text(simplify(arg));
        return key;
    }

    std::map<std::string, std::set<std::string>> surviving_;
    std::set<std::string> rewritten_;  // callees with a simplified call no original site matches
};

// Stage::predicate_density: the where clause evaluated over the stage's
// loop box at root, every point of it or, past about 2^18 points, a grid of
// evenly spaced samples along every loop.
double predicate_density(const Stage &stage) {
    const std::optional<CompiledExpr> clause = CompiledExpr::compile(
        apply_estimates(substitute_in_all_lets(stage.definition.predicate())), stage.point_symbols);
    if (!clause) return 1;
    const std::vector<Span> box = stage.loop_bounds(stage.node->root_region);
    if (box.empty()) return 1;
    constexpr double kMaxEvaluations = 1 << 18;
    const int64_t per_loop = std::max<int64_t>(2, int64_t(std::pow(kMaxEvaluations, 1.0 / double(box.size()))));
    std::vector<std::vector<int64_t>> samples(box.size());
    for (size_t i = 0; i < box.size(); ++i) {
        const int64_t n = std::min(std::max<int64_t>(box[i].extent, 1), per_loop);
        for (int64_t k = 0; k < n; ++k) samples[i].push_back(box[i].min + (n > 1 ? k * (box[i].extent - 1) / (n - 1) : 0));
    }
    std::vector<size_t> at(box.size(), 0);
    std::vector<int64_t> point(box.size());
    double held = 0, evaluated = 0;
    while (true) {
        for (size_t i = 0; i < box.size(); ++i) point[i] = samples[i][at[i]];
        held += clause->evaluate(point.data()) != 0;
        ++evaluated;
        size_t i = 0;
        while (i < box.size() && ++at[i] == samples[i].size()) at[i++] = 0;
        if (i == box.size()) break;
    }
    return held / evaluated;
}

std::vector<Expr> stage_exprs(const Stage &stage) {
    std::vector<Expr> exprs = stage.definition.values();
    if (stage.is_update()) {
        for (const Expr &a : stage.definition.args()) exprs.push_back(a);
    }
    if (stage.definition.predicate().defined()) exprs.push_back(stage.definition.predicate());
    return exprs;
}

// Whether a stage's loops are scheduled: split, fused, reordered or given
// a loop type (specialize() alone marks a stage touched without this).
// `pure_args` are the Func's own Var names.
bool stage_is_scheduled(const Definition &def, const std::vector<std::string> &pure_args) {
    const StageSchedule &schedule = def.schedule();
    if (!schedule.splits().empty() || !schedule.prefetches().empty() || schedule.atomic()) return true;
    // The default nest: the RVars innermost first, then the pure Vars among
    // the arguments in order. An update's other arguments — RVars (a scan's
    // f(x, r)), parameters (f(x, input.min.1)), expressions — make no loop.
    std::vector<std::string> expected;
    for (const ReductionVariable &rv : schedule.rvars()) expected.push_back(rv.var);
    for (const Expr &arg : def.args()) {
        const Variable *v = arg.as<Variable>();
        if (v && !v->reduction_domain.defined() &&
            std::find(pure_args.begin(), pure_args.end(), v->name) != pure_args.end()) {
            expected.push_back(v->name);
        }
    }
    size_t i = 0;
    for (const Dim &dim : schedule.dims()) {
        if (dim.var == Var::outermost().name()) continue;
        if (dim.for_type != ForType::Serial) return true;
        if (i < expected.size() && dim.var != expected[i]) return true;
        ++i;
    }
    return false;
}

// Whether the user scheduled `f` already: a compute or store level other
// than inlined, or a scheduled loop nest in one of its stages.
bool carries_user_schedule(const Function &f) {
    if (f.definition().defined() && stage_is_scheduled(f.definition(), f.args())) return true;
    for (const Definition &u : f.updates()) {
        if (stage_is_scheduled(u, f.args())) return true;
    }
    LoopLevel compute = f.schedule().compute_level(), store = f.schedule().store_level();
    compute.lock();
    store.lock();
    return !compute.is_inlined() || !store.is_inlined();
}

// The graph Halide lowers: a deep copy of the outputs' Funcs in which the
// calls each wrapper intercepts read the wrapper. A wrapper made for one
// consumer (`f.in(g)`) intercepts g's calls; a global one (`f.in()`) those
// of every Func but f itself, its other wrappers and the consumers that
// have a wrapper of their own. Returns the copies of `outputs`.
std::vector<Function> with_wrappers_resolved(const std::vector<Function> &outputs) {
    auto [copies, env] = deep_copy(outputs, build_environment(outputs));
    std::map<std::string, std::map<FunctionPtr, FunctionPtr>> redirected;  // consumer -> wrapped -> wrapper
    for (const auto &[name, wrapped] : env) {
        const std::map<std::string, FunctionPtr> &wrappers = wrapped.schedule().wrappers();
        std::set<std::string> wrapper_names;
        for (const auto &entry : wrappers) wrapper_names.insert(Function(entry.second).name());
        for (const auto &[consumer, wrapper] : wrappers) {
            if (!consumer.empty()) {
                if (env.count(consumer)) redirected[consumer][wrapped.get_contents()] = wrapper;
                continue;
            }
            for (const auto &entry : env) {
                const std::string &other = entry.first;
                if (other == name || wrapper_names.count(other) || wrappers.count(other)) continue;
                redirected[other][wrapped.get_contents()] = wrapper;
            }
        }
    }
    for (const auto &[consumer, substitutions] : redirected) env.at(consumer).substitute_calls(substitutions);
    return copies;
}

int64_t evaluate_const(const Expr &e, const std::string &what) {
    Expr s = simplify(e);
    if (const auto i = as_const_int(s)) return *i;
    fail("cannot bound " + what + ": it simplifies to " + [&] {
        std::ostringstream o;
        o << s;
        return o.str();
    }());
}

// The values of a stage's bound_symbols (each loop's min, then its max)
// where its loops run over `loops`: what its footprints are evaluated at.
std::vector<int64_t> bound_values(const std::vector<Span> &loops) {
    std::vector<int64_t> values(2 * loops.size());
    for (size_t i = 0; i < loops.size(); ++i) {
        values[2 * i] = loops[i].min;
        values[2 * i + 1] = loops[i].max();
    }
    return values;
}

}  // namespace

std::vector<Span> Stage::loop_bounds(const Region &region) const {
    std::vector<Span> bounds(loops.size());
    std::vector<int64_t> symbols(bound_symbols.size(), 0);
    for (size_t i = 0; i < loops.size(); ++i) {
        if (!loops[i].is_rvar) {
            bounds[i] = loops[i].pure_dim >= 0 ? region[loops[i].pure_dim] : Span{0, 1};
            symbols[2 * i] = bounds[i].min;
            symbols[2 * i + 1] = bounds[i].max();
        }
    }
    for (size_t i = 0; i < loops.size(); ++i) {
        if (loops[i].is_rvar) {
            const int64_t min = loops[i].rvar_min->evaluate(symbols.data());
            const int64_t extent = loops[i].rvar_extent->evaluate(symbols.data());
            bounds[i] = Span{min, extent};
            symbols[2 * i] = min;
            symbols[2 * i + 1] = min + extent - 1;
        }
    }
    return bounds;
}

bool Edge::bounded_by_interior(int dim) const {
    const bool far = size_t(dim) < grows_far_away.size() && grows_far_away[size_t(dim)];
    if (far || !footprint_min[size_t(dim)] || !footprint_max[size_t(dim)]) return false;
    return !footprint_min[size_t(dim)]->wraps_or_chooses() && !footprint_max[size_t(dim)]->wraps_or_chooses();
}

bool Edge::bounded_by_interior() const {
    for (int d = 0; d < int(footprint_min.size()); ++d) {
        if (!bounded_by_interior(d)) return false;
    }
    return true;
}

bool Edge::clamps() const {
    for (size_t d = 0; d < footprint_min.size(); ++d) {
        for (const auto *bound : {&footprint_min[d], &footprint_max[d]}) {
            if (*bound && (*bound)->clamps()) return true;
        }
    }
    return false;
}

int64_t Edge::rounding_period(int dim) const {
    int64_t period = 1;
    for (const auto *bound : {&footprint_min[size_t(dim)], &footprint_max[size_t(dim)]}) {
        const int64_t p = *bound ? (*bound)->rounding_period() : 0;
        if (p == 0) return 0;
        period = std::min<int64_t>(std::lcm(period, p), kMaxRoundingPeriod);
    }
    return period;
}

int64_t Edge::rounding_period() const {
    int64_t period = 1;
    for (int d = 0; d < int(footprint_min.size()); ++d) {
        const int64_t p = rounding_period(d);
        if (p == 0) return 0;
        period = std::min<int64_t>(std::lcm(period, p), kMaxRoundingPeriod);
    }
    return period;
}

bool Edge::footprint_reads_loop(int dim, int loop) const {
    for (const auto *bound : {&footprint_min[size_t(dim)], &footprint_max[size_t(dim)]}) {
        if (!*bound) continue;
        if ((*bound)->uses_symbol(2 * loop) || (*bound)->uses_symbol(2 * loop + 1)) return true;
    }
    return false;
}

Region Edge::footprint(const std::vector<Span> &loops, bool unclamped) const {
    const std::vector<int64_t> symbols = bound_values(loops);
    Region r(producer->dimensions);
    const bool fixed = std::all_of(used_loops.begin(), used_loops.end(), [&](int i) { return loops[i].extent == 1; });
    if (used && fixed && used->evaluate(symbols.data()) == 0) {
        for (int d = 0; d < producer->dimensions; ++d) r[d] = Span{producer->root_region[d].min, 0};
        return r;
    }
    for (int d = 0; d < producer->dimensions; ++d) {
        if (footprint_min[d] && footprint_max[d]) {
            const int64_t lo = footprint_min[d]->evaluate(symbols.data());
            const int64_t hi = footprint_max[d]->evaluate(symbols.data());
            // Never claim more than the producer covers at root (clamped accesses).
            const Span &root = producer->root_region[d];
            const int64_t clo = unclamped ? lo : std::max(lo, root.min), chi = unclamped ? hi : std::min(hi, root.max());
            // Nothing where a narrowing condition never holds over the box.
            r[d] = Span{clo, std::max<int64_t>(chi - clo + 1, 0)};
        } else {
            r[d] = producer->root_region[d];
        }
    }
    return r;
}

FunctionDAG::FunctionDAG(const std::vector<Func> &outputs, Wrappers wrappers) {
    std::vector<Function> output_functions;
    for (const Func &f : outputs) output_functions.push_back(f.function());
    if (wrappers == Wrappers::AsLowered) output_functions = with_wrappers_resolved(output_functions);
    std::map<std::string, Function> env;
    for (const Function &f : output_functions) {
        for (const auto &entry : find_transitive_calls(f)) env.emplace(entry.first, entry.second);
    }
    const std::vector<std::string> order = topological_order(output_functions, env);

    // Input buffers first (they are produced before everything), in order of first use.
    std::vector<Node *> input_nodes;
    for (const std::string &name : order) {
        const Function &f = env.at(name);
        for (int s = 0; s <= int(f.updates().size()); ++s) {
            const Definition &def = s == 0 ? f.definition() : f.update(s - 1);
            if (!def.defined()) continue;
            CallCollector collector;
            for (const Expr &e : def.values()) e.accept(&collector);
            for (const Expr &e : def.args()) e.accept(&collector);
            for (const Call *call : collector.calls) {
                if (call->call_type == Call::Image && !by_name_.count(call->name)) {
                    input_nodes.push_back(input_node(call));
                }
            }
        }
        // Extern stages name their buffer inputs as arguments.
        if (f.has_extern_definition()) {
            for (const ExternFuncArgument &arg : f.extern_arguments()) {
                if (arg.is_image_param() || arg.is_buffer()) {
                    // Extern inputs are read as whole buffers; represent them as inputs.
                    const std::string name = arg.is_buffer() ? arg.buffer.name() : arg.image_param.name();
                    if (!by_name_.count(name)) {
                        auto node = std::make_unique<Node>();
                        node->name = name;
                        node->kind = Node::Kind::InputBuffer;
                        node->dimensions = arg.is_buffer() ? arg.buffer.dimensions() : arg.image_param.dimensions();
                        node->bytes_per_point =
                            arg.is_buffer() ? arg.buffer.type().bytes() : arg.image_param.type().bytes();
                        by_name_[name] = node.get();
                        input_nodes.push_back(node.get());
                        nodes_.push_back(std::move(node));
                    }
                }
            }
        }
    }

    for (const std::string &name : order) {
        const Function &f = env.at(name);
        auto node = std::make_unique<Node>();
        node->name = name;
        node->kind = Node::Kind::Func;
        node->func = f;
        node->dimensions = f.dimensions();
        node->dim_names = f.args();
        for (const Type &t : f.output_types()) node->bytes_per_point += t.bytes();
        node->is_extern = f.has_extern_definition();
        if (!node->is_extern) {
            node->specialized = f.definition().defined() && !f.definition().specializations().empty();
            for (const Definition &u : f.updates()) node->specialized |= !u.specializations().empty();
        }
        // Extern stages are always computed at root, by their own code.
        node->user_scheduled = !node->is_extern && carries_user_schedule(f);
        for (const Function &o : output_functions) node->is_output |= o.same_as(f);
        by_name_[name] = node.get();
        nodes_.push_back(std::move(node));
    }
    for (size_t i = 0; i < nodes_.size(); ++i) nodes_[i]->id = int(i);

    const FuncValueBounds value_bounds = compute_function_value_bounds(order, env);
    for (const auto &node : nodes_) {
        if (node->is_input()) continue;
        const Function &f = node->func;
        if (node->is_extern) {
            // An opaque kernel: one stage with pure loops and no analysable calls.
            auto stage = std::make_unique<Stage>();
            stage->node = node.get();
            stage->name = node->name + ".s0";
            for (int d = 0; d < node->dimensions; ++d) {
                Loop loop;
                loop.var = node->dim_names[d];
                loop.pure_dim = d;
                stage->loops.push_back(loop);
                stage->bound_symbols.push_back(min_symbol(loop.var));
                stage->bound_symbols.push_back(max_symbol(loop.var));
                stage->point_symbols.push_back(loop.var);
            }
            node->stages.push_back(std::move(stage));
            continue;
        }
        for (int s = 0; s <= int(f.updates().size()); ++s) {
            auto stage = std::make_unique<Stage>();
            stage->node = node.get();
            stage->index = s;
            stage->name = node->name + ".s" + std::to_string(s);
            stage->definition = s == 0 ? f.definition() : f.update(s - 1);
            node->stages.push_back(std::move(stage));
        }
        for (auto &stage : node->stages) add_stage_analysis(*stage, value_bounds);
    }

    // Inlining needs a pure Func that is not an output and that no extern stage reads.
    std::set<std::string> read_by_extern;
    for (const auto &node : nodes_) {
        if (!node->is_extern) continue;
        for (const ExternFuncArgument &arg : node->func.extern_arguments()) {
            if (!arg.is_func()) continue;
            read_by_extern.insert(Function(arg.func).name());
            if (Node *producer = this->node(Function(arg.func).name())) producer->extern_consumers.push_back(node.get());
        }
    }
    for (const auto &node : nodes_) {
        // Halide refuses to inline a Func with specializations.
        node->inlinable = !node->is_input() && !node->is_output && !node->is_extern && !node->has_updates() &&
                          !node->specialized &&
                          !read_by_extern.count(node->name);
    }

    mark_unread_funcs();
    compute_root_regions();
    for (const auto &node : nodes_) {
        for (auto &stage : node->stages) {
            if (stage->predicated) stage->predicate_density = predicate_density(*stage);
        }
    }
    for (const auto &edge : edges_) edge->grows_far_away = footprint_grows_far_away(*edge);
    for (const auto &n : nodes_) {
        if (!n->is_input()) funcs_.push_back(n.get());
    }
}

Node *FunctionDAG::input_node(const Call *call) {
    auto node = std::make_unique<Node>();
    node->name = call->name;
    node->kind = Node::Kind::InputBuffer;
    node->dimensions = int(call->args.size());
    node->bytes_per_point = call->type.bytes();
    node->param = call->param;
    node->buffer = call->image;
    Node *raw = node.get();
    by_name_[call->name] = raw;
    nodes_.push_back(std::move(node));
    return raw;
}

namespace {

// The box of its own Func that an update stores to (`stored_at`, its
// indices) and reads (`required`, the boxes its expressions read), over
// the symbolic loop bounds of `scope`.
void add_own_footprint(Stage &stage, const std::vector<Expr> &stored_at, const std::map<std::string, Box> &required,
                       const Scope<Interval> &scope, const FuncValueBounds &value_bounds) {
    const Node &node = *stage.node;
    const auto reads = required.find(node.name);
    for (int d = 0; d < node.dimensions; ++d) {
        Interval box = d < int(stored_at.size()) ? bounds_of_expr_in_scope(stored_at[d], scope, value_bounds)
                                                 : Interval::everything();
        if (reads != required.end() && d < int(reads->second.size())) box.include(reads->second[d]);
        if (box.is_bounded()) {
            const Interval bounds(apply_estimates(box.min), apply_estimates(box.max));
            stage.own_footprint_min.push_back(CompiledExpr::compile(simplify(bounds.min), stage.bound_symbols));
            stage.own_footprint_max.push_back(CompiledExpr::compile(simplify(bounds.max), stage.bound_symbols));
        } else {
            stage.own_footprint_min.push_back(std::nullopt);
            stage.own_footprint_max.push_back(std::nullopt);
        }
    }
}

}  // namespace

void FunctionDAG::add_stage_analysis(Stage &stage, const FuncValueBounds &value_bounds) {
    Node &node = *stage.node;
    const Definition &def = stage.definition;

    // Loops, innermost first, as the definition's default schedule has them.
    std::map<std::string, int> pure_position;
    if (stage.is_update()) {
        bool fixed = true;  // every index other than the pure vars a constant
        for (size_t d = 0; d < def.args().size(); ++d) {
            const Variable *v = def.args()[d].as<Variable>();
            if (v && !v->reduction_domain.defined() && v->name == node.dim_names[d]) {
                pure_position[v->name] = int(d);
            } else {
                stage.data_dependent_store = true;
                fixed &= is_const(simplify(substitute_in_all_lets(def.args()[d])));
            }
        }
        stage.store_fixed = stage.data_dependent_store && fixed;
    } else {
        for (int d = 0; d < node.dimensions; ++d) pure_position[node.dim_names[d]] = d;
    }
    // Loops, innermost first, in Halide's default order — RVars (in RDom
    // order) inside the pure vars — whatever the stage's current schedule
    // (an imported schedule has split and reordered them).
    std::map<std::string, const ReductionVariable *> rvars;
    std::vector<std::string> loop_names;
    for (const ReductionVariable &rv : def.schedule().rvars()) {
        rvars[rv.var] = &rv;
        loop_names.push_back(rv.var);
    }
    if (stage.is_update()) {
        for (const Expr &arg : def.args()) {
            const Variable *v = arg.as<Variable>();
            if (v && !v->reduction_domain.defined() && pure_position.count(v->name) &&
                std::find(loop_names.begin(), loop_names.end(), v->name) == loop_names.end()) {
                loop_names.push_back(v->name);
            }
        }
    } else {
        for (const std::string &name : node.dim_names) loop_names.push_back(name);
    }
    for (const std::string &name : loop_names) {
        Loop loop;
        loop.var = name;
        loop.is_rvar = rvars.count(name) > 0;
        if (!loop.is_rvar) {
            auto it = pure_position.find(name);
            loop.pure_dim = it == pure_position.end() ? -1 : it->second;
        }
        stage.loops.push_back(loop);
        stage.bound_symbols.push_back(min_symbol(name));
        stage.bound_symbols.push_back(max_symbol(name));
        stage.point_symbols.push_back(name);
    }
    for (Loop &loop : stage.loops) {
        if (!loop.is_rvar) continue;
        const ReductionVariable &rv = *rvars.at(loop.var);
        // RDom bounds may use the stage's pure vars; express them through the bound symbols.
        std::map<std::string, Expr> to_symbols;
        for (const Loop &other : stage.loops) {
            if (!other.is_rvar) to_symbols[other.var] = Variable::make(Int(32), min_symbol(other.var));
        }
        if (const auto e = as_const_int(simplify(rv.extent))) loop.static_extent = *e;
        Expr min = apply_estimates(substitute(to_symbols, rv.min));
        Expr extent = apply_estimates(substitute(to_symbols, rv.extent));
        loop.rvar_min = CompiledExpr::compile(min, stage.bound_symbols);
        loop.rvar_extent = CompiledExpr::compile(extent, stage.bound_symbols);
        if (!loop.rvar_min || !loop.rvar_extent) {
            std::ostringstream s;
            s << "the reduction domain of '" << node.name << "' (" << loop.var << ": min " << min << ", extent "
              << extent << ") has no estimate; give its parameters estimates";
            fail(s.str());
        }
    }

    const std::vector<Expr> exprs = stage_exprs(stage);
    stage.ops = count_ops(exprs);
    if (stage.is_update()) {
        stage.associative = prove_associativity(node.name, def.args(), def.values()).associative();
    }

    // Call sites, merged when identical. Lets go first: a call whose
    // arguments name a let (a histogram's bin, computed once and used as
    // an index twice) is indexed by what the let holds.
    // With each call, the values it is made in (exprs: the values, then
    // the stored indices and the where clause, which every value needs).
    CallCollector collector;
    std::map<const Call *, uint64_t> values_of_call;
    std::vector<Expr> exprs_without_lets;
    for (const Expr &e : exprs) exprs_without_lets.push_back(substitute_in_all_lets(e));
    for (size_t e = 0; e < exprs_without_lets.size(); ++e) {
        const size_t first = collector.calls.size();
        exprs_without_lets[e].accept(&collector);
        const uint64_t made_in = e < def.values().size() && e < 64 ? uint64_t(1) << e : kAllValues;
        for (size_t c = first; c < collector.calls.size(); ++c) values_of_call[collector.calls[c]] |= made_in;
    }
    const FoldedCalls folded(exprs_without_lets);
    std::map<std::string, size_t> site_by_key;
    std::vector<Expr> stored_at;
    for (const Expr &arg : def.args()) {
        stored_at.push_back(substitute_in_all_lets(arg));
        stage.store_index.push_back(CompiledExpr::compile(apply_estimates(stored_at.back()), stage.point_symbols));
        // A location the loop point does not decide depends on loaded data.
        if (stage.data_dependent_store && !stage.store_index.back()) stage.store_reads_data = true;
    }
    std::set<std::string> own_sites_elsewhere;
    const auto add_index_reads = [&](const Expr &index, std::vector<const Node *> &reads) {
        CallCollector in_index;
        index.accept(&in_index);
        for (const Call *call : in_index.calls) {
            const Node *read = this->node(call->name);
            if (read && !read->is_input() && std::find(reads.begin(), reads.end(), read) == reads.end()) {
                reads.push_back(read);
            }
        }
    };
    for (const Call *call : collector.calls) {
        if (call->name == node.name) {
            const bool at_store = std::equal(call->args.begin(), call->args.end(), stored_at.begin(), stored_at.end(),
                                             [](const Expr &a, const Expr &b) { return equal(a, b); });
            if (at_store) {
                stage.reads_own_point = true;
            } else {
                std::string site;
                for (const Expr &arg : call->args) site += expr_text(arg) + "|";
                own_sites_elsewhere.insert(site);
            }
            continue;
        }
        Node *callee = this->node(call->name);
        if (!callee || folded.folded(call)) continue;
        Access access;
        access.callee = callee;
        std::string key = call->name;
        for (const Expr &arg : call->args) {
            access.index.push_back(CompiledExpr::compile(apply_estimates(arg), stage.point_symbols));
            access.opaque_index.push_back(access.index.back() ? std::string() : expr_text(arg));
            if (!access.index.back()) add_index_reads(arg, access.index_reads);
            key += "|" + (access.index.back() ? access.index.back()->key() : access.opaque_index.back());
        }
        // Calls at one address (a tuple's elements reading the same value,
        // select(g(x) > 0, g(x), 0), a gather's index used twice) are one
        // load once Halide has eliminated common subexpressions.
        const auto [site, is_new] = site_by_key.emplace(key, stage.accesses.size());
        if (is_new) stage.accesses.push_back(std::move(access));
        Access &merged = stage.accesses[site->second];
        auto read = std::find_if(merged.element_reads.begin(), merged.element_reads.end(),
                                 [&](const Access::ElementRead &r) { return r.element == call->value_index; });
        if (read == merged.element_reads.end()) {
            read = merged.element_reads.insert(read, {call->value_index, call->type.bytes(), 0});
        }
        read->in_values |= values_of_call.at(call);
        merged.in_values |= values_of_call.at(call);
    }

    stage.own_reads_elsewhere = int(own_sites_elsewhere.size());
    if (stage.own_reads_elsewhere > 0 && !stage.store_reads_data) {
        for (size_t i = 0; i < stage.loops.size() && stage.chain_loop < 0; ++i) {
            const bool stores_along = std::any_of(stored_at.begin(), stored_at.end(), [&](const Expr &arg) {
                return expr_uses_var(arg, stage.loops[i].var);
            });
            if (stage.loops[i].is_rvar && stores_along) stage.chain_loop = int(i);
        }
    }

    // Footprints: boxes over symbolic loop bounds.
    Scope<Interval> scope;
    for (const Loop &loop : stage.loops) {
        scope.push(loop.var, Interval(Variable::make(Int(32), min_symbol(loop.var)),
                                      Variable::make(Int(32), max_symbol(loop.var))));
    }
    std::map<std::string, Box> boxes;
    SelectToIfThenElse as_bounds_inference_reads;
    for (const Expr &e : exprs) {
        for (const auto &[name, box] : boxes_required(as_bounds_inference_reads.mutate(e), scope, value_bounds)) {
            auto it = boxes.find(name);
            if (it == boxes.end()) boxes.emplace(name, box);
            else merge_boxes(it->second, box);
        }
    }
    if (stage.is_update()) add_own_footprint(stage, stored_at, boxes, scope, value_bounds);
    std::map<std::string, int> call_counts;
    // Calls as evaluated: a let's calls once, however often the let is used.
    CallCollector evaluated;
    for (const Expr &e : exprs) e.accept(&evaluated);
    for (const Call *call : evaluated.calls) ++call_counts[call->name];
    // Under an RDom's where clause every read is conditional.
    ConditionalCalls conditional;
    for (const Expr &e : exprs) e.accept(&conditional);
    stage.predicated = stage.definition.predicate().defined() && !is_const_one(stage.definition.predicate());
    for (const auto &[name, box] : boxes) {
        if (name == node.name || folded.unread(name)) continue;
        Node *producer = this->node(name);
        if (!producer) continue;
        auto edge = std::make_unique<Edge>();
        edge->producer = producer;
        edge->consumer = &stage;
        edge->calls = call_counts[name];
        edge->conditional = stage.predicated || conditional.names.count(name) > 0;
        edge->narrowed = conditional.narrowed.count(name) > 0;
        if (edge->narrowed) {
            const Expr &where = conditional.read_where[name];
            edge->used = read_somewhere(where, scope, stage.bound_symbols);
            for (size_t i = 0; i < stage.loops.size() && edge->used; ++i) {
                if (expr_uses_var(where, stage.loops[i].var)) edge->used_loops.push_back(int(i));
            }
        }
        for (int d = 0; d < producer->dimensions; ++d) {
            if (d < int(box.size()) && box[d].is_bounded()) {
                const Interval bounds(apply_estimates(box[d].min), apply_estimates(box[d].max));
                edge->footprint_min.push_back(CompiledExpr::compile(bounds.min, stage.bound_symbols));
                edge->footprint_max.push_back(CompiledExpr::compile(bounds.max, stage.bound_symbols));
                edge->symbolic_footprint.push_back(bounds);
            } else {
                edge->footprint_min.push_back(std::nullopt);
                edge->footprint_max.push_back(std::nullopt);
                edge->symbolic_footprint.push_back(Interval());
            }
        }
        producer->consumers.push_back(edge.get());
        stage.producers.push_back(edge.get());
        edges_.push_back(std::move(edge));
    }
}

namespace {

// The footprint of `edge` in producer dimension `d` for concrete loop bounds:
// the compiled form when there is one, else Halide's own simplification of
// the symbolic bounds; nothing if Halide cannot bound it either.
std::optional<std::pair<int64_t, int64_t>> concrete_footprint(const Edge &edge, int d,
                                                              const std::vector<int64_t> &symbols) {
    if (edge.footprint_min[d] && edge.footprint_max[d]) {
        return std::make_pair(edge.footprint_min[d]->evaluate(symbols.data()),
                              edge.footprint_max[d]->evaluate(symbols.data()));
    }
    const Interval &symbolic = edge.symbolic_footprint[d];
    if (!symbolic.is_bounded()) return std::nullopt;
    std::map<std::string, Expr> values;
    const std::vector<std::string> &names = edge.consumer->bound_symbols;
    for (size_t i = 0; i < names.size(); ++i) values[names[i]] = make_const(Int(32), symbols[i]);
    const Expr lo = simplify(substitute(values, symbolic.min)), hi = simplify(substitute(values, symbolic.max));
    const auto l = as_const_int(lo), h = as_const_int(hi);
    if (!l || !h) return std::nullopt;
    return std::make_pair(*l, *h);
}

}  // namespace

Region FunctionDAG::extern_read_region(const Node &node, const Node &reader) const {
    const std::vector<Bound> &estimates = node.func.schedule().estimates();
    if (!estimates.empty()) {
        Region region(node.dimensions);
        for (int d = 0; d < node.dimensions; ++d) {
            const Bound *found = nullptr;
            for (const Bound &b : estimates) {
                if (b.var == node.dim_names[d]) found = &b;
            }
            if (!found || !found->min.defined() || !found->extent.defined()) {
                fail("Func '" + node.name + "', read by extern stage '" + reader.name +
                     "', has estimates but none for dimension " + std::to_string(d) + " (" + node.dim_names[d] +
                     "); call set_estimates() with every dimension");
            }
            region[d] = Span{evaluate_const(apply_estimates(found->min), "the estimate of " + node.name),
                             evaluate_const(apply_estimates(found->extent), "the estimate of " + node.name)};
        }
        return region;
    }
    if (reader.dimensions != node.dimensions) {
        fail("Func '" + node.name + "' is read by extern stage '" + reader.name + "', whose reads Strata cannot "
             "see, and their dimensions differ; call set_estimates() on '" + node.name + "' with the region it reads");
    }
    return reader.root_region;
}

void FunctionDAG::mark_unread_funcs() {
    // Consumers first: a Func is unread when every stage reading it is.
    for (auto it = nodes_.rbegin(); it != nodes_.rend(); ++it) {
        Node &node = **it;
        node.unread = !node.is_input() && !node.is_output && node.extern_consumers.empty() &&
                      std::all_of(node.consumers.begin(), node.consumers.end(),
                                  [](const Edge *e) { return e->consumer->node->unread; });
    }
}

void FunctionDAG::compute_root_regions() {
    for (auto it = nodes_.rbegin(); it != nodes_.rend(); ++it) {
        Node &node = **it;
        Region region(node.dimensions);
        node.unbounded.assign(node.dimensions, false);
        bool covered = false;
        if (node.is_output) {
            const std::vector<Bound> &estimates = node.func.schedule().estimates();
            for (int d = 0; d < node.dimensions; ++d) {
                const Bound *found = nullptr;
                for (const Bound &b : estimates) {
                    if (b.var == node.dim_names[d]) found = &b;
                }
                if (!found || !found->min.defined() || !found->extent.defined()) {
                    fail("output Func '" + node.name + "' has no estimate for dimension " + std::to_string(d) + " (" +
                         node.dim_names[d] + "); call set_estimates() on it");
                }
                region[d] = Span{evaluate_const(apply_estimates(found->min), "the estimate of " + node.name),
                                 evaluate_const(apply_estimates(found->extent), "the estimate of " + node.name)};
                if (region[d].extent <= 0) {
                    fail("output Func '" + node.name + "' has an estimated extent of " +
                         std::to_string(region[d].extent) + " in dimension " + std::to_string(d) + " (" +
                         node.dim_names[d] + "); estimates must be positive sizes");
                }
            }
            covered = true;
        }
        // What an extern stage reads is not known before it runs: a Func it
        // reads covers its own estimates if it has some, else the region the
        // extern stage produces.
        for (const Node *reader : node.extern_consumers) {
            const Region read = extern_read_region(node, *reader);
            for (int d = 0; d < node.dimensions; ++d) {
                if (!covered || region[d].extent <= 0) {
                    region[d] = read[d];
                } else {
                    const int64_t low = std::min(region[d].min, read[d].min);
                    const int64_t high = std::max(region[d].max(), read[d].max());
                    region[d] = Span{low, high - low + 1};
                }
            }
            covered = true;
        }
        for (const Edge *edge : node.consumers) {
            const Stage &consumer = *edge->consumer;
            const Node &consumer_node = *consumer.node;
            // Anything read from an unboundedly-read Func is unbounded too.
            const bool consumer_unbounded = consumer_node.must_inline();
            const std::vector<Span> loops = consumer.loop_bounds(consumer_node.root_region);
            const std::vector<int64_t> symbols = bound_values(loops);
            for (int d = 0; d < node.dimensions; ++d) {
                std::optional<std::pair<int64_t, int64_t>> bounds;
                if (!consumer_unbounded) bounds = concrete_footprint(*edge, d, symbols);
                if (!bounds) {
                    node.unbounded[d] = true;
                    continue;
                }
                const auto [lo, hi] = *bounds;
                const Span span{lo, std::max<int64_t>(hi - lo + 1, 1)};
                if (!covered || region[d].extent <= 0) {
                    region[d] = span;
                } else {
                    const int64_t low = std::min(region[d].min, span.min);
                    const int64_t high = std::max(region[d].max(), span.max());
                    region[d] = Span{low, high - low + 1};
                }
            }
            covered = true;
        }
        for (int d = 0; d < node.dimensions; ++d) {
            if (!node.unbounded[d]) continue;
            if (node.is_input()) {
                // Data-dependent reads: the buffer's declared (or actual) bounds.
                if (node.buffer.defined()) {
                    region[d] = Span{node.buffer.dim(d).min(), node.buffer.dim(d).extent()};
                    continue;
                }
                const Expr min = node.param.defined() ? node.param.min_constraint_estimate(d) : Expr();
                const Expr extent = node.param.defined() ? node.param.extent_constraint_estimate(d) : Expr();
                if (!min.defined() || !extent.defined()) {
                    fail("input buffer '" + node.name + "' is read at data-dependent places but has no estimate "
                         "for dimension " + std::to_string(d) + "; call set_estimates() on it");
                }
                region[d] = Span{evaluate_const(apply_estimates(min), "the estimate of " + node.name),
                                 evaluate_const(apply_estimates(extent), "the estimate of " + node.name)};
            } else {
                if (!node.inlinable) {
                    fail("Func '" + node.name + "' is read at places that cannot be bounded (dimension " +
                         std::to_string(d) + ", e.g. a data-dependent index without a clamp); Halide can only "
                         "inline such a Func, but it is an output, has update definitions or feeds an extern stage");
                }
                region[d] = Span{0, 1};  // never computed on its own
            }
        }
        // An output's region is its buffer: an update writing past it fails
        // Halide's bounds check rather than widening it.
        if (covered && !node.is_output && !node.unread) node.include_own_footprints(region);
        // Halide builds nothing for an unread Func; a point keeps its
        // (unpriced) kernel's loops well-formed.
        if (node.unread && !covered) region.assign(node.dimensions, Span{0, 1});
        node.root_region = region;
    }
}

void Node::include_own_footprints(Region &region) const {
    // An update's pure loops follow the region, so widening for one update
    // can move another's box: repeated until nothing moves (bounded: a
    // chain of such updates is short).
    constexpr int kMaxRounds = 8;
    for (int round = 0; round < kMaxRounds; ++round) {
        bool grew = false;
        for (const auto &stage : stages) {
            if (!stage->is_update()) continue;
            const std::vector<Span> loops = stage->loop_bounds(region);
            const std::vector<int64_t> symbols = bound_values(loops);
            for (size_t d = 0; d < region.size() && d < stage->own_footprint_min.size(); ++d) {
                if (!stage->own_footprint_min[d] || !stage->own_footprint_max[d]) continue;
                const int64_t lo = std::min(region[d].min, stage->own_footprint_min[d]->evaluate(symbols.data()));
                const int64_t hi = std::max(region[d].max(), stage->own_footprint_max[d]->evaluate(symbols.data()));
                if (lo == region[d].min && hi == region[d].max()) continue;
                region[d] = Span{lo, hi - lo + 1};
                grew = true;
            }
        }
        if (!grew) return;
    }
}

std::vector<std::optional<Region>> FunctionDAG::regions_reached(const Node &from, const Region &region) const {
    std::vector<std::optional<Region>> reached(nodes_.size());
    reached[from.id] = region;
    // Consumers before producers: a Node's region is whole before it is read.
    for (auto it = nodes_.rbegin(); it != nodes_.rend(); ++it) {
        const Node &node = **it;
        if (!reached[node.id] || node.is_extern) continue;
        for (const auto &stage : node.stages) {
            const std::vector<Span> bounds = stage->loop_bounds(*reached[node.id]);
            for (const Edge *e : stage->producers) {
                const Region fp = e->footprint(bounds, /*unclamped=*/true);
                std::optional<Region> &r = reached[e->producer->id];
                r = r ? bounding_box(*r, fp) : fp;
            }
        }
    }
    return reached;
}

Node *FunctionDAG::node(const std::string &name) const {
    auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : it->second;
}

std::string FunctionDAG::describe(bool with_regions) const {
    std::ostringstream s;
    for (const auto &n : nodes_) {
        s << (n->is_input() ? "input " : "func ") << n->name;
        if (with_regions) {
            s << " [";
            for (size_t d = 0; d < n->root_region.size(); ++d) {
                s << (d ? ", " : "") << n->root_region[d].min << "+" << n->root_region[d].extent;
            }
            s << "]";
        }
        s << (n->is_output ? " output" : "") << (n->inlinable ? " inlinable" : "") << "\n";
        for (const auto &st : n->stages) {
            s << "  " << st->name << " loops:";
            for (const Loop &l : st->loops) s << " " << l.var << (l.is_rvar ? "(r)" : "");
            s << " ops:" << st->ops.arithmetic() << " loads:" << st->ops.loads;
            if (st->data_dependent_store) s << " data-dependent-store";
            if (st->associative) s << " associative";
            s << "\n";
            for (const Edge *e : st->producers) s << "    <- " << e->producer->name << " x" << e->calls << "\n";
        }
    }
    return s.str();
}

}  // namespace strata::autoscheduler
