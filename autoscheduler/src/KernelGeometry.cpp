//===- KernelGeometry.cpp - boxes and regions of one GPU kernel -----------===//
//
// The kernel stage's boxes come from its tiling, in the layout the writer
// emits (ScheduleWriter::write_root_stage); every other region comes from
// pushing a box through the DAG's footprints, consumers before producers,
// over the kernel's scope and the global Nodes it reads only — so the cost
// of one kernel does not grow with the rest of the pipeline.
//===----------------------------------------------------------------------===//
#include "KernelGeometry.h"

#include "Errors.h"
#include "MemberThreads.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <tuple>

namespace strata::autoscheduler {

namespace {

// The loops of `e`'s consumer stage that `considered` keeps along which the
// footprint grows (a period's more iterations, a wider region: one more
// iteration of a loop read at x / 2 may land on the same element).
template <typename Keep>
std::set<int> loops_footprint_grows_along(const Edge &e, Keep considered) {
    std::set<int> out;
    const Stage &stage = *e.consumer;
    const std::vector<Span> box = stage.loop_bounds(stage.node->root_region);
    const int64_t period = std::max<int64_t>(e.rounding_period(), 1);
    std::optional<Region> base;
    for (size_t i = 0; i < stage.loops.size(); ++i) {
        if (!considered(stage.loops[i])) continue;
        if (!base) base = e.footprint(box, /*unclamped=*/true);
        std::vector<Span> longer = box;
        longer[i].extent += period;
        const Region grown = e.footprint(longer, /*unclamped=*/true);
        for (size_t d = 0; d < grown.size() && d < base->size(); ++d) {
            if (grown[d].extent != (*base)[d].extent) out.insert(int(i));
        }
    }
    return out;
}

// The reduction loops without a constant extent along which it grows.
std::set<int> symbolic_reductions(const Edge &e) {
    return loops_footprint_grows_along(e, [](const Loop &l) { return l.is_rvar && !l.static_extent; });
}

// The pure loops along which it grows.
std::set<int> growing_pure_loops(const Edge &e) {
    return loops_footprint_grows_along(e, [](const Loop &l) { return !l.is_rvar; });
}

// The period with which the extent of `e`'s producer along `dim` repeats,
// given how its consumer's extents repeat (`consumer_periods`, per Func
// dimension): the divisions on the edge times the consumer's periods along
// the loops the footprint reads; 0 when nothing bounds it.
int64_t period_through(const Edge &e, int dim, const std::vector<int64_t> &consumer_periods) {
    if (!e.bounded_by_interior(dim)) return 0;
    const int64_t own = e.rounding_period(dim);
    int64_t upstream = 1;
    const std::vector<Loop> &loops = e.consumer->loops;
    for (size_t i = 0; i < loops.size() && own != 0; ++i) {
        if (loops[i].pure_dim < 0 || !e.footprint_reads_loop(dim, int(i))) continue;
        const int64_t p = consumer_periods[size_t(loops[i].pure_dim)];
        if (p == 0) return 0;
        upstream = std::min(std::lcm(upstream, p), kMaxMemberPeriod + 1);
    }
    return std::min(own * upstream, kMaxMemberPeriod + 1);
}

}  // namespace

MemberFootprint member_footprint(const FunctionDAG &dag, const Schedule &schedule, int member, int kernel_func,
                                 int kernel_stage) {
    const size_t dims = size_t(dag.nodes()[member]->dimensions);
    MemberFootprint out;
    out.dim_periods.assign(dims, 1);
    // Read outside the kernel (or by another stage of its Func): no extent
    // of it is bounded.
    MemberFootprint unbounded;
    unbounded.period = 0;
    unbounded.dim_periods.assign(dims, 0);
    for (const Edge *e : dag.nodes()[member]->consumers) {
        const Node &consumer = *e->consumer->node;
        std::optional<MemberFootprint> upstream;  // the consumer's, where it is in the kernel
        if (consumer.id == kernel_func) {
            if (e->consumer->index == kernel_stage) {
                upstream = MemberFootprint{1, std::vector<int64_t>(size_t(consumer.dimensions), 1), false,
                                           symbolic_reductions(*e), false, growing_pure_loops(*e)};
            }
        } else if (schedule.decided(consumer.id)) {
            const FuncChoice &c = schedule.choice(consumer.id);
            const bool in_kernel = c.placement == Placement::Inline || c.member_of(kernel_func, kernel_stage);
            // A member consumer computes its own reductions whole wherever it
            // is computed (attention's product, a Thread member, reads its
            // operand over every key).
            const bool spans_symbolic_loop = !symbolic_reductions(*e).empty();
            if (in_kernel && !spans_symbolic_loop) {
                upstream = member_footprint(dag, schedule, consumer.id, kernel_func, kernel_stage);
            }
        }
        if (!upstream) return unbounded;
        // Dimensions stay unbounded once a path leaves them so; the others
        // repeat with every path's period.
        out.period = 1;
        for (size_t d = 0; d < dims; ++d) {
            const int64_t through = period_through(*e, int(d), upstream->dim_periods);
            int64_t &p = out.dim_periods[d];
            p = through == 0 || p == 0 ? 0 : std::min(std::lcm(p, through), kMaxMemberPeriod + 1);
            out.period = p == 0 || out.period == 0 ? 0 : std::min(std::lcm(out.period, p), kMaxMemberPeriod + 1);
        }
        out.clamped |= upstream->clamped || e->clamps();
        out.conditional |= upstream->conditional || e->conditional;
        out.narrowed |= upstream->narrowed || e->narrowed;
        out.symbolic_reductions.insert(upstream->symbolic_reductions.begin(), upstream->symbolic_reductions.end());
        // Through a member consumer: wherever its region grows, so may this one.
        out.followed_loops.insert(upstream->followed_loops.begin(), upstream->followed_loops.end());
        if (out.period > kMaxMemberPeriod) return out;
    }
    return out;
}

KernelScope KernelScope::collect(const FunctionDAG &dag, const Schedule &schedule, int func, int stage) {
    KernelScope scope;
    scope.func = func;
    scope.stage = stage;
    scope.role.slot(func) = Role::Kernel;
    std::vector<const Stage *> pending = {dag.nodes()[func]->stages[stage].get()};
    while (!pending.empty()) {
        const Stage *st = pending.back();
        pending.pop_back();
        for (const Edge *e : st->producers) {
            const Node &p = *e->producer;
            if (p.is_input() || scope.role[p.id] != Role::None || !schedule.decided(p.id)) continue;
            const FuncChoice &c = schedule.choice(p.id);
            Role role = Role::None;
            if (c.placement == Placement::Inline) {
                role = Role::Inlined;
            } else if (c.member_of(func, stage)) {
                role = c.placement == Placement::Block    ? Role::Block
                       : c.placement == Placement::Staged ? Role::Staged
                                                          : Role::Thread;
            }
            if (role == Role::None) continue;
            if (role == Role::Block && !c.imported_threads.empty()) {
                scope.imported_threads.emplace_back(p.id, c.imported_threads);
            }
            if (role == Role::Block && !c.imported_unrolled_tiles.empty()) {
                scope.unrolled_tiles.emplace_back(p.id, c.imported_unrolled_tiles);
            }
            if (role == Role::Thread && !c.imported_span.empty()) scope.spanning_members.emplace_back(p.id, c.imported_span);
            if (role == Role::Thread && c.imported_host >= 0) scope.hosted_members.emplace_back(p.id, c.imported_host);
            if (role == Role::Thread && !c.imported_per_computation.empty()) {
                scope.recomputed_members.emplace_back(p.id, c.imported_per_computation);
            }
            scope.role.slot(p.id) = role;
            scope.members.push_back(p.id);
            for (const auto &ps : p.stages) pending.push_back(ps.get());
        }
    }
    std::sort(scope.members.begin(), scope.members.end(), std::greater<int>());
    return scope;
}

size_t rvar_loops(const Stage &stage) {
    return size_t(std::count_if(stage.loops.begin(), stage.loops.end(), [](const Loop &l) { return l.is_rvar; }));
}

std::vector<int64_t> middle_point(const std::vector<Span> &box) {
    std::vector<int64_t> middle(box.size());
    for (size_t i = 0; i < box.size(); ++i) middle[i] = box[i].min + box[i].extent / 2;
    return middle;
}

std::vector<int> unrolled_taps(const Stage &stage, int stop_at) {
    std::vector<int> out;
    int64_t product = 1;
    for (int i = 0; i < int(stage.loops.size()); ++i) {
        const Loop &loop = stage.loops[i];
        if (i == stop_at) break;
        if (!loop.is_rvar) continue;
        if (!loop.static_extent) break;
        const int64_t extent = *loop.static_extent;
        if (extent < 2 || product * extent > kMaxUnrolledReduction) break;
        product *= extent;
        out.push_back(i);
    }
    return out;
}

namespace {

// Collects the Thread members other than `own` whose element a stage's
// loads (through the Funcs inlined into it) differ in between two loop
// points of that stage, `here` and `there`; without them (an index on the
// way depends on loaded data) every member reached may differ. Each stage
// is walked once per pair of points: a chain of inlined stencils reaches
// the same points by exponentially many paths.
class MemberMoves {
public:
    MemberMoves(const NodeMap<Role> &roles, const Node &own, std::set<int> &members)
        : roles_(roles), own_(own), members_(members) {}

    void walk(const Stage &s, const std::vector<int64_t> *here, const std::vector<int64_t> *there) {
        const bool known = here && there;
        std::vector<int64_t> key;
        if (known) {
            key = *here;
            key.insert(key.end(), there->begin(), there->end());
        }
        if (!seen_.insert({&s, known, std::move(key)}).second) return;
        for (const Access &a : s.accesses) {
            const Role role = roles_[a.callee->id];
            const bool inlined = role == Role::Inlined && a.callee != s.node;
            if (!inlined && (role != Role::Thread || a.callee == &own_)) continue;
            std::vector<int64_t> at_here, at_there;
            const bool computed = known && element(a, *here, at_here) && element(a, *there, at_there);
            if (!inlined) {
                if (!computed || at_here != at_there) members_.insert(a.callee->id);
            } else if (!computed) {
                walk(*a.callee->stages[0], nullptr, nullptr);
            } else {
                const Stage &callee = *a.callee->stages[0];
                const std::vector<int64_t> callee_here = callee_point(callee, at_here);
                const std::vector<int64_t> callee_there = callee_point(callee, at_there);
                walk(callee, &callee_here, &callee_there);
            }
        }
    }

private:
    // The element `a` reads at `point`; false when an index depends on loaded data.
    static bool element(const Access &a, const std::vector<int64_t> &point, std::vector<int64_t> &out) {
        out.assign(a.index.size(), 0);
        for (size_t d = 0; d < a.index.size(); ++d) {
            if (!a.index[d]) return false;
            out[d] = a.index[d]->evaluate(point.data());
        }
        return true;
    }

    // The loop point of an inlined Func's stage that computes `element`.
    static std::vector<int64_t> callee_point(const Stage &callee, const std::vector<int64_t> &element) {
        std::vector<int64_t> point(callee.loops.size(), 0);
        for (size_t i = 0; i < callee.loops.size(); ++i) {
            const int dim = callee.loops[i].pure_dim;
            if (dim >= 0 && dim < int(element.size())) point[i] = element[dim];
        }
        return point;
    }

    const NodeMap<Role> &roles_;
    const Node &own_;
    std::set<int> &members_;
    std::set<std::tuple<const Stage *, bool, std::vector<int64_t>>> seen_;
};

// 32-bit registers one point of `node` takes, all tuple elements.
int64_t registers_per_point(const Node &node) { return registers_for_bytes(node.bytes_per_point); }

}  // namespace

std::optional<std::vector<Span>> KernelGeometry::thread_tile(const Stage &stage) const {
    if (&stage == &stage_) return thread_box_;
    const std::optional<Region> &region = thread_regions_[stage.node->id];
    if (!region) return std::nullopt;
    return stage.loop_bounds(*region);
}

std::set<int> KernelGeometry::thread_members_indexed_along(const Stage &stage, size_t loop) const {
    std::set<int> members;
    const std::optional<std::vector<Span>> tile = thread_tile(stage);
    if (!tile || !scope_.has(Role::Thread)) return members;
    const std::vector<int64_t> here = middle_point(*tile);
    std::vector<int64_t> there = here;
    ++there.at(loop);
    MemberMoves(scope_.role, *stage.node, members).walk(stage, &here, &there);
    return members;
}

std::vector<int> KernelGeometry::unrolled_rvars(const Stage &stage) const {
    const Role role = &stage == &stage_ ? Role::Kernel : scope_.role[stage.node->id];
    const bool own_stage = role == Role::Kernel;
    const size_t rvars = rvar_loops(stage);
    const bool member_with_pure_loops = role == Role::Thread && rvars > 0 && rvars < stage.loops.size();
    // The kernel's own update stores to its Func in global memory at every
    // step that runs under an if (a predicated RDom): unrolled, each step
    // is a branch of its own and keeps its load and store of the
    // accumulator (attention's 32-lane merge: 32 stores a point; fuzz seed
    // 3171's nested rfactor intermediate, its 4 taps unrolled: 572,244
    // stores in its PTX, one per point, where rolled it stores once per
    // pass, 49,152). Left rolled, taps included.
    const bool stores_every_step = own_stage && stage.predicated;
    std::vector<int> taps = member_with_pure_loops || stores_every_step
                                ? std::vector<int>()
                                : unrolled_taps(stage, own_stage ? chunk_loop_ : -1);
    if (taps.size() == rvars || (own_stage && chunk_loop_ >= 0) || (!own_stage && role != Role::Thread) ||
        stores_every_step) {
        return taps;
    }
    const std::optional<std::vector<Span>> tile = thread_tile(stage);
    if (!tile) return taps;
    int64_t unrolled_points = tiling_.rolled ? 1 : tiling_.serial_per_thread();
    if (!own_stage) {
        unrolled_points = 1;
        for (size_t i = 0; i < tile->size(); ++i) {
            if (!stage.loops[i].is_rvar) unrolled_points *= std::max<int64_t>((*tile)[i].extent, 1);
        }
    }
    std::vector<int> extra = member_indexing_rvars(stage, *tile, unrolled_points, taps);
    taps.insert(taps.end(), extra.begin(), extra.end());
    std::sort(taps.begin(), taps.end());
    return taps;
}

std::vector<int> KernelGeometry::member_indexing_rvars(const Stage &stage, const std::vector<Span> &tile,
                                                       int64_t unrolled_points, const std::vector<int> &taps) const {
    if (!scope_.has(Role::Thread)) return {};
    int64_t straight_line = unrolled_points;
    for (int i : taps) straight_line *= std::max<int64_t>(tile[i].extent, 1);
    std::set<int> members;
    std::vector<int> out;
    for (size_t i = 0; i < stage.loops.size(); ++i) {
        const Loop &loop = stage.loops[i];
        if (!loop.is_rvar || tile[i].extent < 2 || std::find(taps.begin(), taps.end(), int(i)) != taps.end()) continue;
        const std::set<int> indexed = thread_members_indexed_along(stage, i);
        if (indexed.empty()) continue;
        members.insert(indexed.begin(), indexed.end());
        // Halide unrolls only a loop of constant extent.
        if (!loop.static_extent) return {};
        straight_line *= tile[i].extent;
        if (straight_line > kMaxUnrolledPoints) return {};
        out.push_back(int(i));
    }
    int64_t registers = 0;
    for (int id : members) {
        const std::optional<Region> &region = thread_regions_[id];
        registers += region ? points(*region) * registers_per_point(*dag_.nodes()[id]) : 0;
    }
    if (registers > kMaxUnrolledMemberRegisters) return {};
    return out;
}

// Halide partitions on checks that sit in an innermost loop (unrolled loops
// are gone by then), and never inside a kernel with thread barriers. A
// Thread member with a rolled loop keeps its checks out of the innermost one.
bool KernelGeometry::partitions_interior() const {
    if (scope_.has(Role::Block) || scope_.has(Role::Staged)) return false;
    for (int id : scope_.members) {
        if (scope_.role[id] != Role::Thread) continue;
        for (const auto &stage : dag_.nodes()[id]->stages) {
            if (unrolled_rvars(*stage).size() < rvar_loops(*stage)) return false;
        }
    }
    return true;
}

KernelGeometry::KernelGeometry(const FunctionDAG &dag, const Schedule &schedule, const KernelScope &scope)
    : dag_(dag), scope_(scope), node_(*dag.nodes()[scope.func]), stage_(*node_.stages[scope.stage]),
      tiling_(schedule.choice(scope.func).stages[scope.stage].tiling) {
    whole_box_ = stage_.loop_bounds(node_.root_region);
    block_box_ = thread_box_ = whole_box_;
    size_t pure = 0;
    for (size_t i = 0; i < stage_.loops.size(); ++i) {
        if (stage_.loops[i].is_rvar) {
            computed_points_ *= double(whole_box_[i].extent);
            continue;
        }
        const DimTiling dim = pure < tiling_.dims.size() ? tiling_.dims[pure] : DimTiling{};
        const int64_t extent = whole_box_[i].extent;
        pure_extents_.push_back(extent);
        computed_points_ *= double(dim.computed_extent(extent));
        const int64_t tile = std::max<int64_t>(dim.tile(), 1);
        // An interior block, away from the borders.
        const int64_t middle = whole_box_[i].min + (extent / tile / 2) * tile;
        block_box_[i] = Span{middle, std::min(tile, extent)};
        const int64_t serial = std::min(dim.serial, extent);
        // A middle thread of that block: away from the borders too when the
        // whole loop is one block (a 64-wide image in 64-wide tiles).
        const int64_t thread = dim.threads / 2;
        if (tiling_.compact || dim.threads == 1) {
            thread_box_[i] = Span{std::min(middle + thread * dim.serial, whole_box_[i].max() - serial + 1), serial};
        } else {
            thread_box_[i] = Span{std::min(middle + thread, whole_box_[i].max()), 1};
            thread_box_copies_ *= serial;
        }
        thread_instances_ *= double(ceil_div(dim.computed_extent(extent), std::max<int64_t>(dim.serial, 1)));
        if (dim.threads > 1) thread_dims_.push_back({int(i), dim.threads});
        ++pure;
    }
    chunk_box_ = block_box_;
    const int64_t chunk = schedule.choice(scope.func).stages[scope.stage].reduction_chunk;
    if (schedule.runs_in_chunks(scope.func, scope.stage)) chunk_loop_ = chunked_rvar(stage_);
    if (chunk_loop_ >= 0) {
        // An interior chunk; the last one may be partial (a guarded split).
        const Span whole = whole_box_[chunk_loop_];
        chunk_ = std::min(chunk, std::max<int64_t>(whole.extent, 1));
        chunks_ = ceil_div(whole.extent, chunk_);
        chunk_box_[chunk_loop_] = Span{whole.min + (whole.extent / chunk_ / 2) * chunk_, chunk_};
    }
    whole_regions_ = regions_for(whole_box_);
    block_regions_ = regions_for(block_box_);
    thread_regions_ = regions_for(thread_box_);
    std::vector<Span> lower = thread_box_;
    bool moved = false;
    for (size_t i = 0; i < lower.size(); ++i) {
        const int64_t tile = tiling_of_loop(i).tile();
        if (tile > 1 && lower[i].min - tile >= whole_box_[i].min) lower[i].min -= tile, moved = true;
    }
    lower_thread_regions_ = moved ? regions_for(lower) : thread_regions_;
    chunk_regions_ = chunk_loop_ >= 0 ? regions_for(chunk_box_) : block_regions_;
    // A split the extent does not fill puts a check around every serial
    // point the thread unrolls, whichever loop the check is on.
    double unchecked_blocks = 1;  // the share of blocks the tile fits whole along every checked loop
    std::vector<Span> one_check = thread_box_, one_row = thread_box_;
    int64_t serial_points = 1, row_points = 0;
    size_t tiled = 0;
    for (size_t i = 0; i < stage_.loops.size(); ++i) {
        if (stage_.loops[i].is_rvar) continue;
        const DimTiling dim = tiled < tiling_.dims.size() ? tiling_.dims[tiled] : DimTiling{};
        const bool fused = tiling_.block_loop_fused(tiled);
        ++tiled;
        const int64_t extent = whole_box_[i].extent;
        if (dim.tail != TileTail::Guarded) {
            // A whole last tile (shifted inwards or rounded up) needs no check.
        } else if (fused && dim.tile() > 1) {
            // Halide checks a split it cannot prove exact (the extents are
            // the pipeline's, symbolic, whatever their estimates), and a
            // fused block index reaches the loop through a modulo, which it
            // does not partition on: every block keeps the check.
            unchecked_blocks = 0;
        } else if (dim.tile() > 1 && extent % dim.tile() != 0) {
            unchecked_blocks *= double(extent / dim.tile()) / double(ceil_div(extent, dim.tile()));
        }
        if ((tiling_.compact || dim.threads == 1) && dim.serial > 1) {
            const int64_t n = std::min(dim.serial, extent);
            serial_points *= n;
            one_check[i].extent = 1;
            if (row_points == 0) {
                row_points = n;  // the innermost serial loop: loops are innermost first
            } else {
                one_row[i].extent = 1;
            }
        }
    }
    // Unpartitioned, every block runs the checks (GpuTiling::partitioned).
    if (!tiling_.partitioned && serial_points > 1 && tiling_.has_checked_tail()) unchecked_blocks = 0;
    if (serial_points > 1 && unchecked_blocks < 1) {
        guarded_copies_ = serial_points;
        guarded_rows_ = serial_points / row_points;
        guarded_fraction_ = partitions_interior() ? 1.0 - unchecked_blocks : 1.0;
    }
    guarded_thread_regions_ = guarded_copies_ > 1 ? regions_for(one_check) : thread_regions_;
    // One row is the whole box where only one loop has serial points.
    guarded_row_regions_ = guarded_rows_ > 1 ? regions_for(one_row) : thread_regions_;
    if (thread_box_copies_ > 1) measure_serial_steps();
    find_heap_members(schedule);
    find_placed_loops();
    compute_storage_extents(schedule);
    find_idle_thread_factors();
}

void KernelGeometry::find_heap_members(const Schedule &schedule) {
    for (const auto &[id, span] : scope_.spanning_members) {
        // Read along a reduction loop of symbolic extent, or through a wrap
        // or a choice (no period bounds its size): Halide cannot prove it
        // constant, unless a thread reads one point of it, a region
        // of one whatever the path (Mullapudi2016's attention
        // computes a row's maximum per thread, read at the thread's row by
        // a Func it reads under a mask: a register of one value).
        const std::optional<Region> &spanned = thread_regions_[id];
        const bool single_value = spanned && points(*spanned) == 1;
        const MemberFootprint f = member_footprint(dag_, schedule, id, scope_.func, scope_.stage);
        if ((f.period == 0 || !f.symbolic_reductions.empty()) && !single_value) {
            heap_members_.insert(id);
            continue;
        }
        // The thread loops inside the member's level held at one point.
        std::vector<Span> one_point = thread_box_;
        for (size_t i = 0, pure = 0; i < one_point.size(); ++i) {
            if (stage_.loops[i].is_rvar) continue;
            if (pure < span.size() && span[pure] > 1) one_point[i].extent = 1;
            ++pure;
        }
        if (const std::vector<int64_t> *per_computation = scope_.per_computation(id)) {
            one_point = narrowed_to_computation(one_point, *per_computation, 0);
        }
        const std::optional<Region> at_point = regions_over(one_point, false, false)[id];
        if (spanned && at_point && points(*spanned) > points(*at_point)) heap_members_.insert(id);
        // Computed anew along a serial loop, over a region whose size
        // changes from one computation to the next (interpolate's x/2 per
        // level, 2 or 3 points by x's residue): nothing bounds it for Halide.
        const std::vector<Region> each = computation_regions(id, thread_box_);
        for (const Region &r : each) {
            if (points(r) != points(each.front())) heap_members_.insert(id);
        }
    }
}

bool KernelGeometry::in_kernel(const Stage &s) const {
    if (s.node == &node_) return s.index == stage_.index;
    const Role r = scope_.role[s.node->id];
    return r == Role::Block || r == Role::Thread || r == Role::Staged || r == Role::Inlined;
}

int64_t KernelGeometry::thread_elements(int node) const {
    const std::optional<Region> &here = thread_regions_[node], &lower = lower_thread_regions_[node];
    if (!here) return 0;
    return lower ? std::max(points(*here), points(*lower)) : points(*here);
}

namespace {

bool same_region(const Region &a, const Region &b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const Span &p, const Span &q) { return p.min == q.min && p.extent == q.extent; });
}

}  // namespace

// A strided thread's serial copies step T points along their loop. Whether
// a step moves a footprint is asked at the thread's box and again in the
// middle of the whole box: where the loop is one or two tiles long the
// thread's box lies in the first block, at a border the pipeline clamps,
// and the clamp pins every copy to one element there (bgu's bilinear
// resize reads `clamp(4x + 1, 0, W - 1)` at x < 0), but each unrolled copy
// still loads its own.
void KernelGeometry::measure_serial_steps() {
    std::vector<Span> middle = thread_box_;
    for (size_t i = 0; i < middle.size(); ++i) {
        if (stage_.loops[i].is_rvar) continue;
        middle[i].min = whole_box_[i].min + whole_box_[i].extent / 2;
    }
    const NodeRegions middle_regions = regions_for(middle);
    size_t pure_dim = 0;
    for (size_t i = 0; i < stage_.loops.size(); ++i) {
        if (stage_.loops[i].is_rvar) continue;
        const DimTiling dim = pure_dim < tiling_.dims.size() ? tiling_.dims[pure_dim] : DimTiling{};
        ++pure_dim;
        if (dim.threads <= 1 || dim.serial <= 1) continue;
        std::vector<Span> step = thread_box_, middle_step = middle;
        step[i].min += dim.threads;
        middle_step[i].min += dim.threads;
        const NodeRegions there = regions_for(step), middle_there = regions_for(middle_step);
        NodeMap<char> moves;
        for (const auto &[id, a] : thread_regions_) {
            const std::optional<Region> &b = there[id], &c = middle_regions[id], &d = middle_there[id];
            moves.slot(id) = !a || !b || !same_region(*a, *b) || !c || !d || !same_region(*c, *d);
        }
        serial_steps_.push_back({dim.serial, std::move(moves)});
    }
}

int64_t KernelGeometry::distinct_thread_copies(int node) const {
    if (thread_box_copies_ == 1) return 1;
    const std::optional<Region> &here = thread_regions_[node];
    // A footprint of the whole Node is a gather's bound, not what the
    // points read: they may each read elsewhere.
    if (!here || same_region(*here, dag_.nodes()[node]->root_region)) return thread_box_copies_;
    int64_t copies = 1;
    for (const SerialStep &step : serial_steps_) {
        if (step.moves[node]) copies *= step.serial;
    }
    return copies;
}

std::vector<int64_t> KernelGeometry::partials_extents() const {
    if (chunk_loop_ < 0) fail("internal: kernel " + stage_.name + " has no chunks to keep partial results of");
    std::vector<int64_t> extents(node_.dim_names.size() + 1, 1);
    for (size_t i = 0; i < stage_.loops.size(); ++i) {
        const int d = stage_.loops[i].pure_dim;
        if (!stage_.loops[i].is_rvar && d >= 0 && d < int(node_.dim_names.size())) {
            extents[d] = std::max<int64_t>(thread_box_[i].extent, 1);
        }
    }
    return extents;
}

const std::optional<Region> &KernelGeometry::member_region(int member) const {
    switch (scope_.role[member]) {
    case Role::Thread: return thread_regions_[member];
    case Role::Staged: return chunk_regions_[member];
    default: return block_regions_[member];
    }
}

bool KernelGeometry::constant_member_span(int member, int dim) const {
    const std::optional<Region> &per_thread = thread_regions_[member];
    const std::optional<Region> &launch = whole_regions_[member];
    if (scope_.role[member] != Role::Thread || !per_thread || !launch || dim >= int(per_thread->size())) return false;
    const Span &mine = (*per_thread)[size_t(dim)], &all = (*launch)[size_t(dim)];
    if (mine.min != all.min || mine.extent != all.extent) return false;
    for (size_t i = 0; i < stage_.loops.size(); ++i) {
        const Loop &loop = stage_.loops[i];
        if (loop.is_rvar) {
            if (!loop.constant_bounds()) return false;
        } else if (thread_box_[i].extent >= whole_box_[i].extent) {
            // One thread spans the launch along a pure loop: the member's
            // span may be the output's, whose bounds are the caller's.
            return false;
        }
    }
    return true;
}

NodeRegions KernelGeometry::regions_for(const std::vector<Span> &box, bool unclamped) const {
    return regions_over(box, unclamped, /*widen_spanning_members=*/true);
}

std::vector<Span> KernelGeometry::widened_to_span(const std::vector<Span> &box, const std::vector<int64_t> &span) const {
    std::vector<Span> out = box;
    for (size_t i = 0, pure = 0; i < out.size(); ++i) {
        if (stage_.loops[i].is_rvar) continue;
        const int64_t n = pure < span.size() ? span[pure] : 1;
        ++pure;
        if (n <= 1) continue;
        const Span whole = whole_box_[i];
        const int64_t lo = whole.min + floor_div(box[i].min - whole.min, n) * n;
        const int64_t hi = std::min(whole.min + ceil_div(box[i].max() + 1 - whole.min, n) * n, whole.max() + 1);
        out[i] = Span{lo, std::max<int64_t>(hi - lo, 1)};
    }
    return out;
}

std::vector<Span> KernelGeometry::narrowed_to_computation(const std::vector<Span> &box,
                                                          const std::vector<int64_t> &points, int64_t window) const {
    std::vector<Span> out = box;
    for (size_t i = 0, pure = 0; i < out.size(); ++i) {
        if (stage_.loops[i].is_rvar) continue;
        const int64_t n = pure < points.size() ? points[pure] : 0;
        ++pure;
        const int64_t step = window % kAveragedComputations;
        if (n > 0 && n < box[i].extent) {
            const int64_t windows = ceil_div(box[i].extent, n);
            const int64_t at = std::min(windows / 2 + step, windows - 1);
            out[i] = Span{box[i].min + at * n, std::min(n, box[i].extent - at * n)};
            window /= kAveragedComputations;
        } else if (threaded(int(i))) {
            // The neighbouring threads' computations, inside the launch.
            const int64_t shifted = box[i].min + step * box[i].extent;
            if (shifted + box[i].extent <= whole_box_[i].max() + 1) out[i].min = shifted;
            window /= kAveragedComputations;
        }
    }
    return out;
}

int64_t KernelGeometry::launched_threads_per_block() const {
    std::vector<int64_t> extents = tiling_.thread_extents();
    for (const auto &[member, threads] : scope_.imported_threads) {
        size_t dim = 0;
        for (int64_t t : threads) {
            if (t <= 1) continue;
            if (dim == extents.size()) extents.push_back(1);
            extents[dim] = std::max(extents[dim], t);
            ++dim;
        }
    }
    int64_t total = 1;
    for (int64_t e : extents) total *= e;
    return total;
}

bool KernelGeometry::threaded(int loop) const {
    return std::any_of(thread_dims_.begin(), thread_dims_.end(), [&](const auto &d) { return d.first == loop; });
}

std::vector<Region> KernelGeometry::computation_regions(int member, const std::vector<Span> &box) const {
    const std::vector<int64_t> *per_computation = scope_.per_computation(member);
    if (!per_computation) return {};
    const std::vector<int64_t> *span = scope_.span(member);
    const std::vector<Span> own = span ? widened_to_span(box, *span) : box;
    int64_t windows = 1;
    for (size_t i = 0, pure = 0; i < own.size(); ++i) {
        if (stage_.loops[i].is_rvar) continue;
        const int64_t n = pure < per_computation->size() ? (*per_computation)[pure] : 0;
        ++pure;
        if (n > 0 && n < own[i].extent) {
            windows *= std::min(kAveragedComputations, ceil_div(own[i].extent, n));
        } else if (threaded(int(i))) {
            windows *= kAveragedComputations;
        }
    }
    std::vector<Region> out;
    for (int64_t w = 0; w < windows; ++w) {
        const std::vector<Span> computation = narrowed_to_computation(own, *per_computation, w);
        const std::optional<Region> r = regions_over(computation, false, false)[member];
        if (r) out.push_back(*r);
    }
    return out;
}

double KernelGeometry::member_points(const Stage &stage, const std::vector<Span> &box, const Region &region) const {
    if (!scope_.per_computation(stage.node->id)) {
        return computations(stage.node->id, box) * double(points(stage.loop_bounds(region)));
    }
    const std::vector<Region> each = computation_regions(stage.node->id, box);
    if (each.empty()) return 0;
    double sum = 0;
    for (const Region &r : each) sum += double(points(stage.loop_bounds(r)));
    return computations(stage.node->id, box) * sum / double(each.size());
}

std::vector<Span> KernelGeometry::host_thread_tile(int host, const Stage &stage,
                                                   const std::vector<Span> &bounds) const {
    const std::vector<int64_t> *threads = scope_.own_threads(host);
    std::vector<Span> out = bounds;
    if (!threads) return out;
    for (size_t i = 0, pure = 0; i < out.size(); ++i) {
        if (stage.loops[i].is_rvar) continue;
        const int64_t t = pure < threads->size() ? (*threads)[pure] : 1;
        ++pure;
        if (t <= 1 || bounds[i].extent <= 1) continue;
        const int64_t share = ceil_div(bounds[i].extent, t);
        const int64_t at = std::min(t / 2, ceil_div(bounds[i].extent, share) - 1);
        out[i] = Span{bounds[i].min + at * share, std::min(share, bounds[i].extent - at * share)};
    }
    return out;
}

double KernelGeometry::computations(int member, const std::vector<Span> &box) const {
    if (const int host = scope_.host_of(member); host >= 0) {
        const std::optional<Region> region = regions_for(box)[host];
        const std::vector<int64_t> *threads = scope_.own_threads(host);
        if (!region || !threads) return 1;
        const Stage &stage = *dag_.nodes()[host]->stages.front();
        return double(threads_with_work(own_loop_threads(stage, *threads), stage.loop_bounds(*region)));
    }
    const std::vector<int64_t> *per_computation = scope_.per_computation(member);
    if (!per_computation) return 1;
    double count = 1;
    for (size_t i = 0, pure = 0; i < box.size(); ++i) {
        if (stage_.loops[i].is_rvar) continue;
        const int64_t n = pure < per_computation->size() ? (*per_computation)[pure] : 0;
        ++pure;
        if (n > 0) count *= double(ceil_div(std::max<int64_t>(box[i].extent, 1), n));
    }
    return count;
}

NodeRegions KernelGeometry::regions_over(const std::vector<Span> &box, bool unclamped,
                                         bool widen_spanning_members) const {
    NodeRegions regions;
    // The scope's stages, consumers before producers (node ids are in
    // realization order); each pushes its bounds into what it reads.
    std::vector<const Stage *> stages = {&stage_};
    for (int id : scope_.members) {
        for (const auto &st : dag_.nodes()[id]->stages) stages.push_back(st.get());
    }
    for (const Stage *consumer : stages) {
        std::vector<Span> bounds;
        if (consumer->node == &node_) {
            bounds = box;
        } else if (regions[consumer->node->id]) {
            const int id = consumer->node->id;
            const std::vector<int64_t> *span = widen_spanning_members ? scope_.span(id) : nullptr;
            const std::vector<int64_t> *per_computation = widen_spanning_members ? scope_.per_computation(id) : nullptr;
            // A span of ones widens nothing: no second pass over the scope.
            const bool widens = span && std::any_of(span->begin(), span->end(), [](int64_t n) { return n > 1; });
            if ((widens || per_computation) && consumer->index == 0) {
                std::vector<Span> own = widens ? widened_to_span(box, *span) : box;
                if (per_computation) own = narrowed_to_computation(own, *per_computation, 0);
                regions.slot(id) = regions_over(own, unclamped, false)[id];
            }
            // What its updates store to and read, too (a histogram's bins).
            if (consumer->index == 0) consumer->node->include_own_footprints(*regions.slot(id));
            bounds = consumer->loop_bounds(*regions[consumer->node->id]);
        } else {
            continue;  // a member nothing in this box reaches
        }
        for (const Edge *e : consumer->producers) {
            if (e->producer == &node_) continue;
            // A member its consumer's threads compute each for themselves.
            const bool hosted = scope_.host_of(e->producer->id) == consumer->node->id;
            const Region fp = e->footprint(hosted ? host_thread_tile(consumer->node->id, *consumer, bounds) : bounds,
                                           unclamped);
            std::optional<Region> &r = regions.slot(e->producer->id);
            r = r ? bounding_box(*r, fp) : fp;
        }
    }
    return regions;
}

void KernelGeometry::compute_storage_extents(const Schedule &schedule) {
    storage_ = {};
    // Every residue of the tile's position modulo each member's period (a
    // range covering the longest period covers all shorter ones), and where
    // a clamp makes the size change near the borders, the tiles there.
    int64_t shifts = 1;
    bool clamped = false;
    for (int id : scope_.members) {
        const Role role = scope_.role[id];
        if (!block_level(role) && role != Role::Thread) continue;
        const std::optional<Region> &middle = member_region(id);
        if (middle) storage_.slot(id) = *middle;
        const MemberFootprint f = member_footprint(dag_, schedule, id, scope_.func, scope_.stage);
        shifts = std::max(shifts, f.period == 0 ? kMaxMemberPeriod : std::min(f.period, kMaxMemberPeriod));
        clamped |= f.clamped || f.period == 0 || f.narrowed;
    }
    auto widen_to = [&](Role role, const std::vector<Span> &box) {
        // Not clamped to the producers' regions: Halide computes what the
        // consumer's box reaches, even past what the producer covers at root
        // (a lane of a factored reduction reads a whole stride further).
        const NodeRegions regions = regions_for(box, /*unclamped=*/true);
        for (int id : scope_.members) {
            if (scope_.role[id] != role || !regions[id] || storage_[id].empty()) continue;
            Region &storage = storage_.slot(id);
            for (size_t d = 0; d < storage.size(); ++d) {
                storage[d].extent = std::max(storage[d].extent, (*regions[id])[d].extent);
            }
        }
    };
    // The loops along which a role's tile moves: the pure loops, and for
    // staged tiles the chunked reduction loop too.
    auto moves = [&](size_t loop, Role role) {
        return !stage_.loops[loop].is_rvar || (role == Role::Staged && int(loop) == chunk_loop_);
    };
    // Halide computes a member over its consumer's whole tile, guarded
    // stores or not: at the border the tile reaches past the loop's end.
    auto full_tile = [&](const std::vector<Span> &box, Role role) {
        std::vector<Span> full = box;
        size_t pure = 0;
        for (size_t i = 0; i < full.size(); ++i) {
            if (stage_.loops[i].is_rvar) continue;
            const DimTiling dim = pure < tiling_.dims.size() ? tiling_.dims[pure] : DimTiling{};
            ++pure;
            if (block_level(role)) {
                full[i].extent = std::max<int64_t>(dim.tile(), 1);
            } else if (tiling_.compact || dim.threads == 1) {
                full[i].extent = std::max<int64_t>(dim.serial, 1);
            }
        }
        return full;
    };
    auto widen = [&](Role role, const std::vector<Span> &box) {
        // The residues, inside the kernel's loops where they fit.
        std::vector<Span> base = box;
        for (size_t i = 0; i < base.size(); ++i) {
            if (!moves(i, role)) continue;
            const Span &whole = whole_box_[i];
            const int64_t last_start = whole.max() - box[i].extent + 1 - (shifts - 1);
            base[i].min = std::max(whole.min, std::min(box[i].min, last_start));
        }
        for (int64_t shift = 0; shift < shifts; ++shift) {
            std::vector<Span> moved = base;
            for (size_t i = 0; i < moved.size(); ++i) {
                if (moves(i, role)) moved[i].min += shift;
            }
            widen_to(role, moved);
        }
        if (!clamped) return;
        // The tiles along each loop in turn, the others held in the middle:
        // all of them, or those near either border of a long loop.
        constexpr int64_t kBorderTiles = 64;
        for (size_t i = 0; i < box.size(); ++i) {
            if (!moves(i, role)) continue;
            const Span &whole = whole_box_[i];
            const int64_t step = std::max<int64_t>(box[i].extent, 1);
            const int64_t tiles = ceil_div(whole.extent, step);
            for (int64_t k = 0; k < tiles; ++k) {
                if (k == kBorderTiles && tiles > 2 * kBorderTiles) k = tiles - kBorderTiles;
                std::vector<Span> moved = box;
                moved[i].min = whole.min + k * step;
                widen_to(role, moved);
            }
        }
    };
    if (scope_.has(Role::Block)) widen(Role::Block, full_tile(block_box_, Role::Block));
    if (scope_.has(Role::Thread)) widen(Role::Thread, full_tile(thread_box_, Role::Thread));
    if (scope_.has(Role::Staged)) widen(Role::Staged, full_tile(chunk_box_, Role::Staged));
    // A narrowed member may cover nothing at every tile visited; its buffer
    // still has a point.
    for (int id : scope_.members) {
        if (storage_[id].empty()) continue;
        for (Span &s : storage_.slot(id)) s.extent = std::max<int64_t>(s.extent, 1);
    }
}

namespace {

// Tiles 0 .. tiles - 1, `per_block` to a block, in runs of consecutive
// tiles: (middle tile, tiles in the run) each. A run never straddles two
// blocks unless it holds whole blocks: a member that spans a block's
// threads covers what its block reaches, so threads of two blocks differ.
// Where sizes change throughout the loop, at most kPlacedRuns runs, or
// one per block where there are fewer; at its borders only, the first
// block, the last and the blocks between.
std::vector<std::pair<int64_t, int64_t>> tile_runs(int64_t tiles, int64_t per_block,
                                                   KernelGeometry::Placement placement) {
    std::vector<std::pair<int64_t, int64_t>> out;
    auto split = [&](int64_t first, int64_t end, int64_t runs) {
        for (int64_t k = 0; k < runs; ++k) {
            const int64_t a = first + (end - first) * k / runs, b = first + (end - first) * (k + 1) / runs;
            if (b > a) out.push_back({a + (b - a) / 2, b - a});
        }
    };
    const int64_t blocks = ceil_div(tiles, per_block);
    if (placement == KernelGeometry::Placement::AtBorders && blocks > 3) {
        split(0, per_block, 1);
        split(per_block, (blocks - 1) * per_block, 1);
        split((blocks - 1) * per_block, tiles, 1);
        return out;
    }
    if (blocks >= kPlacedRuns) {
        for (int64_t k = 0; k < kPlacedRuns; ++k) {
            split(std::min(tiles, blocks * k / kPlacedRuns * per_block),
                  std::min(tiles, blocks * (k + 1) / kPlacedRuns * per_block), 1);
        }
        return out;
    }
    for (int64_t b = 0; b < blocks; ++b) {
        split(b * per_block, std::min(tiles, (b + 1) * per_block), kPlacedRuns / blocks);
    }
    return out;
}

}  // namespace

bool KernelGeometry::member_sizes_may_move() const {
    // A member read under a condition that loads nothing (Edge::narrowed),
    // or by a stage whose where clause bounds what it reads (an rfactor
    // intermediate over a guarded split: the last lane block's reads stop
    // at the row's end, the first's run a whole stride further).
    auto moves = [&](const Stage &st) {
        return std::any_of(st.producers.begin(), st.producers.end(), [&](const Edge *e) {
            return scope_.role[e->producer->id] != Role::None && (e->narrowed || (st.predicated && e->clamps()));
        });
    };
    if (moves(stage_)) return true;
    for (int id : scope_.members) {
        for (const auto &st : dag_.nodes()[id]->stages) {
            if (moves(*st)) return true;
        }
    }
    return false;
}

void KernelGeometry::find_placed_loops() {
    placements_.assign(stage_.loops.size(), Placement::Uniform);
    if (!member_sizes_may_move()) return;
    // Whether a member's size differs at tile `k` along loop `i` from
    // `here`, its regions at `box`.
    auto sizes_differ_at = [&](const std::vector<Span> &box, const NodeRegions &here, size_t i, int64_t k) {
        std::vector<Span> moved = box;
        moved[i].min = whole_box_[i].min + k * std::max<int64_t>(box[i].extent, 1);
        const NodeRegions there = regions_for(moved);
        return std::any_of(scope_.members.begin(), scope_.members.end(), [&](int id) {
            return (here[id] ? points(*here[id]) : 0) != (there[id] ? points(*there[id]) : 0);
        });
    };
    for (size_t i = 0; i < stage_.loops.size(); ++i) {
        if (stage_.loops[i].is_rvar) continue;
        Placement &p = placements_[i];
        using Tile = std::pair<const std::vector<Span> *, const NodeRegions *>;
        for (const auto &[box, here] : {Tile{&block_box_, &block_regions_}, Tile{&thread_box_, &thread_regions_}}) {
            const int64_t tiles = whole_box_[i].extent / std::max<int64_t>((*box)[i].extent, 1);
            if (tiles < 2 || p == Placement::Throughout) continue;
            if (p == Placement::Uniform && !sizes_differ_at(*box, *here, i, 0) &&
                !sizes_differ_at(*box, *here, i, tiles - 1)) {
                continue;
            }
            const bool inside = sizes_differ_at(*box, *here, i, tiles / 4) || sizes_differ_at(*box, *here, i, 3 * tiles / 4);
            p = inside ? Placement::Throughout : Placement::AtBorders;
        }
    }
}

std::vector<KernelGeometry::TileClass> KernelGeometry::tile_classes(const std::vector<int64_t> &tile) const {
    std::vector<TileClass> classes = {TileClass{1, whole_box_}};
    for (size_t i = 0; i < stage_.loops.size(); ++i) {
        if (tile[i] <= 0) continue;
        const Span whole = whole_box_[i];
        const DimTiling dim = tiling_of_loop(i);
        const int64_t per_block = std::max<int64_t>(dim.tile() / std::max<int64_t>(tile[i], 1), 1);
        std::vector<TileClass> next;
        if (dim.tail != TileTail::Guarded && dim.tile() > 1) {
            // Every tile whole: the last one shifted back over points
            // already computed (or run past the end), as many tiles as
            // the launch computes points.
            const int64_t t = tile[i];
            const double tiles = double(dim.computed_extent(whole.extent)) / double(t);
            if (placed_loop(i) && tiles >= 2) {
                // The last tile shifted back (or run past the end).
                for (const auto &[k, n] : tile_runs(std::llround(tiles), per_block, placement(i))) {
                    for (TileClass c : classes) {
                        c.count *= double(n);
                        c.box[i] = Span{whole.min + std::min(k * t, std::max<int64_t>(whole.extent - t, 0)), t};
                        next.push_back(c);
                    }
                }
                classes = std::move(next);
                continue;
            }
            for (TileClass c : classes) {
                c.count *= tiles;
                c.box[i] = Span{whole.min + (whole.extent / t / 2) * t, t};
                next.push_back(c);
            }
            classes = std::move(next);
            continue;
        }
        const int64_t t = std::min(tile[i], whole.extent);
        const int64_t full = whole.extent / t, rest = whole.extent - full * t;
        // An interior full tile, as block_box() and thread_box() take it,
        // or one per run of them along a placed loop.
        const std::vector<std::pair<int64_t, int64_t>> runs =
            placed_loop(i) ? tile_runs(full, per_block, placement(i))
                          : std::vector<std::pair<int64_t, int64_t>>{{full / 2, full}};
        for (const TileClass &c : classes) {
            for (const auto &[k, n] : runs) {
                TileClass f = c;
                f.count *= double(n);
                f.box[i] = Span{whole.min + k * t, t};
                next.push_back(f);
            }
            if (rest > 0) {
                TileClass r = c;
                r.box[i] = Span{whole.min + full * t, rest};
                next.push_back(r);
            }
        }
        classes = std::move(next);
    }
    return classes;
}

DimTiling KernelGeometry::tiling_of_loop(size_t loop) const {
    if (stage_.loops[loop].is_rvar) return DimTiling{};
    size_t pure = 0;
    for (size_t i = 0; i < loop; ++i) pure += !stage_.loops[i].is_rvar;
    return pure < tiling_.dims.size() ? tiling_.dims[pure] : DimTiling{};
}

std::vector<int64_t> KernelGeometry::block_tile() const {
    std::vector<int64_t> tile(stage_.loops.size(), 0);
    for (size_t i = 0; i < stage_.loops.size(); ++i) {
        if (!stage_.loops[i].is_rvar) tile[i] = std::max<int64_t>(tiling_of_loop(i).tile(), 1);
    }
    return tile;
}

std::vector<KernelGeometry::TileClass> KernelGeometry::block_classes() const { return tile_classes(block_tile()); }

std::vector<KernelGeometry::TileClass> KernelGeometry::chunk_classes() const {
    std::vector<int64_t> tile = block_tile();
    if (chunk_loop_ >= 0) tile[chunk_loop_] = chunk_;
    return tile_classes(tile);
}

std::vector<KernelGeometry::TileClass> KernelGeometry::thread_classes() const {
    std::vector<int64_t> tile(stage_.loops.size(), 0);
    for (size_t i = 0; i < stage_.loops.size(); ++i) {
        if (!stage_.loops[i].is_rvar) tile[i] = std::max<int64_t>(thread_box_[i].extent, 1);
    }
    std::vector<TileClass> classes = tile_classes(tile);
    for (TileClass &c : classes) c.count *= double(thread_box_copies_);
    return classes;
}

double KernelGeometry::idle_thread_factor(int member) const {
    const double factor = idle_thread_factors_[member];
    return factor > 0 ? factor : 1.0;
}

void KernelGeometry::find_idle_thread_factors() {
    if (!scope_.has(Role::Thread)) return;
    for (size_t i = 0, pure = 0; i < stage_.loops.size(); ++i) {
        if (stage_.loops[i].is_rvar) continue;
        const size_t pure_loop = pure++;
        const DimTiling dim = tiling_of_loop(i);
        const int64_t t = std::max<int64_t>(thread_box_[i].extent, 1), extent = whole_box_[i].extent;
        if (dim.tail != TileTail::Guarded || dim.threads < 2 || dim.tiles_per_block != 1 || dim.tile() % t != 0) {
            continue;
        }
        const int64_t with_points = ceil_div(extent, t);
        const int64_t launched = ceil_div(extent, dim.tile()) * (dim.tile() / t);
        if (launched <= with_points) continue;
        // A member whose region is the same for the first and the last
        // thread tile along the loop as for the thread box does not follow it.
        std::optional<NodeRegions> at_first, at_last;
        auto follows_loop = [&](int id) {
            if (!at_first) {
                std::vector<Span> first = thread_box_, last = thread_box_;
                first[i] = Span{whole_box_[i].min, std::min(t, extent)};
                last[i].min = whole_box_[i].min + (with_points - 1) * t;
                last[i].extent = extent - (with_points - 1) * t;
                at_first = regions_for(first);
                at_last = regions_for(last);
            }
            const std::optional<Region> &here = thread_regions_[id], &a = (*at_first)[id], &b = (*at_last)[id];
            return !here || !a || !b || !same_region(*a, *here) || !same_region(*b, *here);
        };
        for (int id : scope_.members) {
            if (scope_.role[id] != Role::Thread || scope_.host_of(id) >= 0) continue;
            // One that spans the block's threads along the loop is computed
            // outside their check, by each of them, over what its block
            // reaches (resnet_block's conv1 at Mullapudi2016's c_i, over the
            // row of threads inside it). Priced per block along a placed
            // loop, so the idle threads add their block's region; elsewhere
            // its threads with points are priced at an interior block's
            // whole span, which comes to what all the launched threads
            // compute over their blocks' spans, clipped at the last.
            const std::vector<int64_t> *span = scope_.span(id);
            const bool spans_loop = span && pure_loop < span->size() && (*span)[pure_loop] > 1 && placed_loop(i);
            if (!spans_loop && (t < 2 || follows_loop(id))) continue;
            double &factor = idle_thread_factors_.slot(id);
            factor = (factor > 0 ? factor : 1.0) * double(launched) / double(with_points);
        }
    }
}

const Region &KernelGeometry::storage_extents(int member) const { return storage_[member]; }

double KernelGeometry::thread_member_registers(int member) const {
    if (heap_member(member)) return 0;
    const Node &m = *dag_.nodes()[member];
    return double(points(storage_[member]) * registers_per_point(m));
}

int64_t KernelGeometry::shared_bytes_per_block() const {
    int64_t bytes = 0;
    for (int id : scope_.members) {
        if (block_level(scope_.role[id])) bytes += points(storage_[id]) * dag_.nodes()[id]->bytes_per_point;
    }
    return bytes;
}

}  // namespace strata::autoscheduler
