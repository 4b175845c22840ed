#include "Schedule.h"

#include <algorithm>
#include <sstream>

namespace strata::autoscheduler {

const char *to_string(Placement p) {
    switch (p) {
    case Placement::Inline: return "inline";
    case Placement::Root: return "root";
    case Placement::Block: return "block";
    case Placement::Thread: return "thread";
    case Placement::Staged: return "staged";
    }
    return "?";
}

FuncChoice FuncChoice::inlined() {
    FuncChoice c;
    c.placement = Placement::Inline;
    return c;
}

FuncChoice FuncChoice::root(std::vector<StageChoice> stages) {
    FuncChoice c;
    c.placement = Placement::Root;
    c.stages = std::move(stages);
    return c;
}

FuncChoice FuncChoice::at(Placement placement, int kernel_func, int kernel_stage) {
    FuncChoice c;
    c.placement = placement;
    c.kernel_func = kernel_func;
    c.kernel_stage = kernel_stage;
    return c;
}

uint64_t FuncChoice::hash() const {
    uint64_t h = hash_combine(uint64_t(placement), uint64_t(kernel_func + 1));
    h = hash_combine(h, uint64_t(kernel_stage));
    for (int64_t t : imported_threads) h = hash_combine(h, uint64_t(t));
    for (int64_t t : imported_span) h = hash_combine(h, ~uint64_t(t));
    for (int64_t t : imported_per_computation) h = hash_combine(h, uint64_t(t) * 0x9e3779b97f4a7c15ull);
    if (imported_host >= 0) h = hash_combine(h, ~uint64_t(imported_host));
    for (const std::vector<int64_t> &tile : imported_unrolled_tiles) {
        h = hash_combine(h, 0x74696c65);
        for (int64_t n : tile) h = hash_combine(h, uint64_t(n));
    }
    for (const StageChoice &st : stages) {
        h = hash_combine(hash_combine(h, st.tiling.hash()), uint64_t(st.rfactor));
        if (st.reduction_chunk) h = hash_combine(h, uint64_t(st.reduction_chunk));
    }
    return h;
}

std::string FuncChoice::describe() const {
    std::ostringstream s;
    s << to_string(placement);
    if (is_member(placement)) s << "@" << kernel_func << "." << kernel_stage;
    if (!imported_threads.empty()) {
        s << "(threads";
        for (int64_t t : imported_threads) s << " " << t;
        s << ")";
    }
    if (!imported_span.empty()) {
        s << "(heap span";
        for (int64_t t : imported_span) s << " " << t;
        s << ")";
    }
    if (imported_host >= 0) s << "(per thread of " << imported_host << ")";
    if (!imported_per_computation.empty()) {
        s << "(per computation";
        for (int64_t t : imported_per_computation) s << " " << t;
        s << ")";
    }
    for (const std::vector<int64_t> &tile : imported_unrolled_tiles) {
        s << "(unrolled tile";
        for (int64_t n : tile) s << " " << n;
        s << ")";
    }
    for (const StageChoice &st : stages) {
        s << "[" << st.tiling.key();
        if (st.rfactor) s << "rf" << st.rfactor;
        if (st.reduction_chunk) s << "k" << st.reduction_chunk;
        s << "]";
    }
    return s.str();
}

Schedule::Schedule(const FunctionDAG &dag)
    : dag_(&dag), choices_(dag.nodes().size(), nullptr), hashes_(dag.nodes().size(), 0) {}

void Schedule::set(int node, FuncChoice choice) { set(node, std::make_shared<const FuncChoice>(std::move(choice))); }

namespace {
// One decided Func's term of Schedule::hash().
uint64_t decision_hash(int node, uint64_t choice_hash) {
    return hash_combine(hash_combine(0, uint64_t(node)), choice_hash);
}
}  // namespace

void Schedule::set(int node, std::shared_ptr<const FuncChoice> choice) {
    if (choices_[node]) hash_ -= decision_hash(node, hashes_[node]);
    hashes_.set(node, choice->hash());
    hash_ += decision_hash(node, hashes_[node]);
    choices_.set(node, std::move(choice));
}

std::set<KernelSite> Schedule::consumer_sites(int node) const {
    std::set<KernelSite> sites;
    for (const Edge *edge : dag_->nodes()[node]->consumers) {
        const Stage &consumer = *edge->consumer;
        const int c = consumer.node->id;
        if (!decided(c)) continue;
        const FuncChoice &choice = this->choice(c);
        switch (choice.placement) {
        case Placement::Inline: {
            std::set<KernelSite> through = consumer_sites(c);
            sites.insert(through.begin(), through.end());
            break;
        }
        case Placement::Root:
            sites.insert(KernelSite{c, consumer.index, Placement::Root});
            break;
        case Placement::Block:
        case Placement::Thread:
        case Placement::Staged:
            sites.insert(KernelSite{choice.kernel_func, choice.kernel_stage, choice.placement});
            break;
        }
    }
    return sites;
}

bool Schedule::can_place(int node, Placement placement, int kernel_func, int kernel_stage) const {
    const Node &n = *dag_->nodes()[node];
    if (n.is_input()) return false;
    if (n.must_inline()) return placement == Placement::Inline;
    switch (placement) {
    case Placement::Root:
        return true;
    case Placement::Inline:
        return n.inlinable;
    case Placement::Block:
    case Placement::Thread:
    case Placement::Staged: {
        if (n.is_output || n.is_extern || kernel_func < 0 || !decided(kernel_func)) return false;
        if (choice(kernel_func).placement != Placement::Root) return false;
        if (dag_->nodes()[kernel_func]->is_extern) return false;
        // Halide resolves compute_at() loop levels against a Func's last
        // stage only: an explicit stage index fails its validity check
        // (still so in Halide 21, even where it lists the level as legal).
        if (kernel_stage != int(dag_->nodes()[kernel_func]->stages.size()) - 1) return false;
        // A staged tile is loaded per chunk of the kernel stage's reduction.
        if (placement == Placement::Staged) {
            const StageChoice &kernel = choice(kernel_func).stages[kernel_stage];
            const Stage &stage = *dag_->nodes()[kernel_func]->stages[kernel_stage];
            if (!chunkable(*dag_, stage, kernel.tiling, kernel.reduction_chunk)) return false;
        }
        const std::set<KernelSite> sites = consumer_sites(node);
        if (sites.empty()) return false;
        for (const KernelSite &site : sites) {
            if (site.func != kernel_func || site.stage != kernel_stage) return false;
            // A member is computed at its consumers' loop level or outside
            // it: thread-level Funcs inside the thread loops, so all their
            // consumers must be too; staged tiles at the chunk loop, read
            // by the kernel's own stage only; nothing inside a staged tile.
            if (site.level == Placement::Staged) return false;
            if (placement == Placement::Thread && site.level == Placement::Block) return false;
            // A per-block buffer read by another: Halide checks its storage
            // bound against the reader's realized extent, a value it knows
            // only inside the kernel, proves nothing there, and leaves the
            // check in the kernel (LoweringProbe rejects that): unsharp's
            // blurred_x under blurred, harris's gray under ix and iy.
            if (placement == Placement::Block && site.level == Placement::Block) return false;
            if (placement == Placement::Staged && site.level != Placement::Root) return false;
        }
        // Extern and update-only consumers (reading through a self-referencing
        // update) are fine; data-dependent reads of a member are too (bounded
        // by its footprint), so nothing else to check here.
        return true;
    }
    }
    return false;
}

bool Schedule::runs_in_chunks(int func, int stage) const {
    if (!decided(func) || choice(func).placement != Placement::Root) return false;
    const StageChoice &kernel = choice(func).stages[stage];
    if (!chunkable(*dag_, *dag_->nodes()[func]->stages[stage], kernel.tiling, kernel.reduction_chunk)) return false;
    for (int node = 0; node < size(); ++node) {
        if (decided(node) && choice(node).placement == Placement::Staged && choice(node).member_of(func, stage)) {
            return true;
        }
    }
    return false;
}

uint64_t Schedule::tie_order_with(int node, uint64_t choice_hash) const {
    uint64_t h = 0;
    for (int i = 0; i < size(); ++i) {
        if (i == node) {
            h = hash_combine(h, hash_combine(uint64_t(i), choice_hash));
        } else if (decided(i)) {
            h = hash_combine(h, hash_combine(uint64_t(i), hashes_[i]));
        }
    }
    return h;
}

uint64_t Schedule::hash_with(int node, uint64_t choice_hash) const {
    const uint64_t without = decided(node) ? hash_ - decision_hash(node, hashes_[node]) : hash_;
    return without + decision_hash(node, choice_hash);
}

}  // namespace strata::autoscheduler

namespace strata::autoscheduler {

int chunked_rvar(const Stage &stage) {
    const std::vector<Span> bounds = stage.loop_bounds(stage.node->root_region);
    int best = -1;
    for (size_t i = 0; i < stage.loops.size(); ++i) {
        if (stage.loops[i].is_rvar && (best < 0 || bounds[i].extent >= bounds[best].extent)) best = int(i);
    }
    return best;
}

std::string chunk_partials_name(const Node &node) { return node.name + "_intm"; }

std::string chunk_partials_name(const Node &node, const std::map<std::string, std::string> &made_funcs) {
    auto made = made_funcs.find(chunk_partials_name(node));
    return made == made_funcs.end() ? chunk_partials_name(node) : made->second;
}

bool chunkable(const FunctionDAG &dag, const Stage &stage, const GpuTiling &tiling, int64_t chunk) {
    if (chunk <= 0 || !stage.is_update() || stage.data_dependent_store || !stage.associative) return false;
    if (!stage.definition.specializations().empty() || dag.node(chunk_partials_name(*stage.node))) return false;
    // A strided thread's points span its block's tile: so would its partials.
    if (tiling.layout_matters() && !tiling.compact) return false;
    if (tiling.threads_per_block() < 2) return false;
    const int loop = chunked_rvar(stage);
    if (loop < 0) return false;
    return stage.loop_bounds(stage.node->root_region)[loop].extent >= 2 * chunk;
}

std::vector<int64_t> pure_extents(const Stage &stage) {
    const std::vector<Span> bounds = stage.loop_bounds(stage.node->root_region);
    std::vector<int64_t> extents;
    for (size_t i = 0; i < stage.loops.size(); ++i) {
        if (!stage.loops[i].is_rvar) extents.push_back(bounds[i].extent);
    }
    return extents;
}

namespace {

// Inlining is free of recompute when every consumer point calls the Func once
// at one place; a Func of a few operations (a boundary condition, a cast) is
// cheap to recompute anywhere. Inlining anything else by default can multiply
// work exponentially along a chain of stencils.
bool cheap_to_inline(const Node &node) {
    int call_sites = 0;
    for (const Edge *edge : node.consumers) call_sites += edge->calls;
    const Stage &stage = *node.stages[0];
    return (node.consumers.size() == 1 && call_sites == 1) ||
           (stage.ops.arithmetic() <= 4 && stage.ops.loads <= 1);
}

}  // namespace

FuncChoice default_choice(const Node &node, const costmodel::GpuSpec &spec, bool inline_cheap) {
    if (node.must_inline() || (inline_cheap && node.inlinable && cheap_to_inline(node))) return FuncChoice::inlined();
    std::vector<StageChoice> stages;
    for (const auto &stage : node.stages) {
        StageChoice choice;
        choice.tiling = default_tiling(pure_extents(*stage), spec);
        stages.push_back(choice);
    }
    return FuncChoice::root(std::move(stages));
}

void leave_kernel(Schedule &schedule, int node, const costmodel::GpuSpec &spec) {
    const FunctionDAG &dag = schedule.dag();
    const FuncChoice old = schedule.choice(node);
    if (!old.member_of(old.kernel_func, old.kernel_stage)) return;
    schedule.set(node, default_choice(*dag.nodes()[node], spec));
    std::vector<int> pending = {node};
    while (!pending.empty()) {
        const Node &consumer = *dag.nodes()[pending.back()];
        pending.pop_back();
        for (const auto &stage : consumer.stages) {
            for (const Edge *e : stage->producers) {
                const Node &producer = *e->producer;
                if (producer.is_input() || !schedule.decided(producer.id)) continue;
                const FuncChoice &c = schedule.choice(producer.id);
                if (c.member_of(old.kernel_func, old.kernel_stage)) {
                    schedule.set(producer.id, default_choice(producer, spec));
                    pending.push_back(producer.id);
                } else if (c.placement == Placement::Inline) {
                    pending.push_back(producer.id);
                }
            }
        }
    }
}

int run_unchunked(Schedule &schedule, int func, int stage, const costmodel::GpuSpec &spec) {
    int moved = 0;
    for (const Node *node : schedule.dag().funcs()) {
        const FuncChoice &c = schedule.choice(node->id);
        if (c.placement == Placement::Staged && c.member_of(func, stage)) {
            leave_kernel(schedule, node->id, spec);
            ++moved;
        }
    }
    FuncChoice unchunked = schedule.choice(func);
    unchunked.stages[stage].reduction_chunk = 0;
    schedule.set(func, std::move(unchunked));
    return moved;
}

namespace {

void complete(Schedule &schedule, const costmodel::GpuSpec &spec, bool inline_cheap) {
    for (const auto &node : schedule.dag().nodes()) {
        if (node->is_input() || schedule.decided(node->id)) continue;
        schedule.set(node->id, default_choice(*node, spec, inline_cheap));
    }
}

}  // namespace

void complete_with_defaults(Schedule &schedule, const costmodel::GpuSpec &spec) { complete(schedule, spec, true); }

void complete_with_kernels(Schedule &schedule, const costmodel::GpuSpec &spec) { complete(schedule, spec, false); }

}  // namespace strata::autoscheduler
