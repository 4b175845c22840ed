//===- ScheduleImport.cpp - a Halide schedule as a Strata Schedule ---------===//
//
// Per Root stage, each pure loop's threads and per-thread serial count are
// recovered by following the stage's splits from the original variable to
// the loops the stage finally runs, and reading their loop types: constant
// inner factors under GPUThread loops multiply the threads, constant inner
// factors of serial or unrolled loops inside the thread loops multiply the
// serial count (a whole dimension looped inside them: its extent); a serial
// loop between the block and the thread loops runs that many tiles in each
// block; a whole variable looped serially outside the block loops runs on
// the host, one launch per point; everything else is blocks. Each loop's
// stride along its variable (the product of the inner factors split off
// below it) says how a thread's serial points lie: contiguous (compact)
// where every serial loop steps by less than the thread loop, strided
// otherwise; a serial loop left rolled makes the tile rolled.
// compute_at levels become Block or Thread placements by the type of the
// loops that enclose them; a Block member runs on the threads of its own
// thread loops, one where it has none (FuncChoice::imported_threads), each
// running the tile its serial loops unroll inside them
// (FuncChoice::imported_unrolled_tiles); a
// Thread member computed outside some of the kernel's thread loops covers
// their points on every thread (FuncChoice::imported_span).
//===----------------------------------------------------------------------===//
#include "ScheduleImport.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace strata::autoscheduler {

using namespace Halide;
using namespace Halide::Internal;

namespace {

bool names_match(const std::string &qualified, const std::string &name) {
    return qualified == name ||
           (qualified.size() > name.size() && qualified.compare(qualified.size() - name.size(), name.size(), name) == 0 &&
            qualified[qualified.size() - name.size() - 1] == '.');
}

// Where each loop of a stage's final nest came from.
struct LoopOrigin {
    std::set<std::string> pure_vars;  // original variables, pure or RVars, it iterates over (several if fused)
    int64_t factor = 0;               // constant extent (an inner split or what its outer leaves), 0 if unknown
    int64_t stride = 1;               // step along the original variable, 0 if unknown (fused)
    TileTail tail = TileTail::Guarded;  // how the split that made it computes its last tile
};

TileTail tile_tail(TailStrategy tail) {
    switch (tail) {
    case TailStrategy::ShiftInwards:
    case TailStrategy::ShiftInwardsAndBlend: return TileTail::ShiftedInwards;
    case TailStrategy::RoundUp:
    case TailStrategy::RoundUpAndBlend: return TileTail::RoundedUp;
    default: return TileTail::Guarded;
    }
}

// Of two ways a loop's tiles are computed (a split of a split), the one
// that computes and realizes more.
TileTail combined(TileTail a, TileTail b) { return std::max(a, b); }

// The origin of a loop, by its name as the schedule qualifies it or not. An
// exact name first: Halide qualifies a split's inner loop by its parent's
// name, so "x.x" (the inner loop of a split of x named x again) ends like x.
LoopOrigin origin_of(const std::map<std::string, LoopOrigin> &origins, const std::string &loop) {
    if (auto exact = origins.find(loop); exact != origins.end()) return exact->second;
    for (const auto &[n, o] : origins) {
        if (names_match(loop, n) || names_match(n, loop)) return o;
    }
    return LoopOrigin{};
}

// `extents`: each pure variable's extent when the Func is computed at root.
std::map<std::string, LoopOrigin> trace_splits(const StageSchedule &schedule, const std::vector<std::string> &pure,
                                               const std::vector<int64_t> &extents) {
    std::map<std::string, LoopOrigin> origin;
    for (size_t i = 0; i < pure.size(); ++i) {
        origin[pure[i]].pure_vars.insert(pure[i]);
        origin[pure[i]].factor = extents[i];
    }
    auto find = [&](const std::string &name) { return origin_of(origin, name); };
    for (const Split &s : schedule.splits()) {
        const LoopOrigin old = find(s.old_var);
        if (s.split_type == Split::SplitVar) {
            LoopOrigin inner = old, outer = old;
            const auto f = as_const_int(s.factor);
            inner.factor = f ? *f : 0;
            if (inner.factor > 1) inner.tail = combined(old.tail, tile_tail(s.tail));
            // The outer loop of a split of a constant extent runs a constant count too.
            outer.factor = old.factor > 0 && inner.factor > 0 ? ceil_div(old.factor, inner.factor) : 0;
            outer.stride = inner.factor > 0 ? old.stride * inner.factor : 0;
            origin[s.inner] = inner;
            origin[s.outer] = outer;
        } else if (s.split_type == Split::FuseVars) {
            LoopOrigin fused = find(s.inner);
            const LoopOrigin outer = find(s.outer);
            fused.pure_vars.insert(outer.pure_vars.begin(), outer.pure_vars.end());
            // A fused loop runs both counts when both are constant.
            fused.factor = fused.factor > 0 && outer.factor > 0 ? fused.factor * outer.factor : 0;
            fused.stride = 0;
            origin[s.old_var] = fused;
        } else {
            origin[s.outer] = old;
        }
    }
    return origin;
}

// A stage's pure loops (innermost first) and their extents at root, and
// the same for its reduction loops.
struct StageLoops {
    std::vector<std::string> vars, rvars;
    std::vector<int64_t> extents, rvar_extents;
    explicit StageLoops(const Stage &stage) {
        const std::vector<Span> bounds = stage.loop_bounds(stage.node->root_region);
        for (size_t i = 0; i < stage.loops.size(); ++i) {
            (stage.loops[i].is_rvar ? rvars : vars).push_back(stage.loops[i].var);
            (stage.loops[i].is_rvar ? rvar_extents : extents).push_back(bounds[i].extent);
        }
    }
    // Whether a loop of the final nest iterates over reduction loops only.
    bool only_rvars(const LoopOrigin &o) const {
        return !o.pure_vars.empty() && std::all_of(o.pure_vars.begin(), o.pure_vars.end(), [&](const std::string &v) {
            return std::find(rvars.begin(), rvars.end(), v) != rvars.end();
        });
    }
    // The pure loop a loop of the final nest iterates over alone, or -1.
    int of(const LoopOrigin &o) const {
        if (o.pure_vars.size() != 1) return -1;  // fused, or an RVar
        const auto pos = std::find(vars.begin(), vars.end(), *o.pure_vars.begin());
        return pos == vars.end() ? -1 : int(pos - vars.begin());
    }
};

// Whether a serial loop of more than one point over a pure variable runs
// inside the innermost reduction loop (GpuTiling::tile_inside_reduction).
bool tile_inside_reduction(const std::vector<Dim> &dims, const std::map<std::string, LoopOrigin> &origins,
                           const StageLoops &loops) {
    for (const Dim &d : dims) {  // innermost first
        const LoopOrigin o = origin_of(origins, d.var);
        if (loops.only_rvars(o)) return false;
        const bool serial = d.for_type == ForType::Serial || d.for_type == ForType::Unrolled;
        if (serial && loops.of(o) >= 0 && o.factor > 1) {
            // Some reduction loop must lie outside it.
            return std::any_of(dims.begin(), dims.end(),
                               [&](const Dim &r) { return loops.only_rvars(origin_of(origins, r.var)); });
        }
    }
    return false;
}

StageChoice import_stage(const Stage &stage, std::vector<std::string> &notes) {
    const StageSchedule &schedule = stage.definition.schedule();
    const StageLoops loops(stage);
    StageChoice choice;
    choice.tiling.dims.resize(loops.vars.size());
    std::vector<std::string> loop_vars = loops.vars;
    std::vector<int64_t> loop_extents = loops.extents;
    loop_vars.insert(loop_vars.end(), loops.rvars.begin(), loops.rvars.end());
    loop_extents.insert(loop_extents.end(), loops.rvar_extents.begin(), loops.rvar_extents.end());
    const auto origins = trace_splits(schedule, loop_vars, loop_extents);
    bool inside_threads = false;
    // Per pure variable: its thread loop's stride (0 unknown), and whether a serial loop steps wider.
    std::vector<std::optional<int64_t>> thread_stride(loops.vars.size());
    bool strided = false;
    // dims() is innermost first; walk outermost first to know what is inside threads.
    const std::vector<Dim> &dims = schedule.dims();
    // Halide copies a kernel into an unchecked interior and checked borders
    // by partitioning its block loops, unless the schedule says Never.
    bool blocks = false, never_partitioned = true;
    for (const Dim &d : dims) {
        if (d.for_type != ForType::GPUBlock) continue;
        blocks = true;
        never_partitioned &= d.partition_policy == Halide::Partition::Never;
    }
    choice.tiling.partitioned = !(blocks && never_partitioned);
    // A host loop takes a whole variable: one no other loop iterates over.
    std::vector<int> loops_of(loops.vars.size(), 0);
    for (const Dim &d : dims) {
        const int loop = loops.of(origin_of(origins, d.var));
        if (loop >= 0) ++loops_of[size_t(loop)];
    }
    bool inside_blocks = false;
    for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
        if (it->var == Var::outermost().name()) continue;
        inside_blocks |= it->for_type == ForType::GPUBlock;
        const LoopOrigin o = origin_of(origins, it->var);
        if (it->for_type == ForType::GPUBlock && loops.only_rvars(o)) {
            if (o.factor > 0) {
                choice.tiling.reduction_blocks *= o.factor;
            } else {
                notes.push_back(stage.name + ": a block loop over the reduction of unknown extent (taken as 1 block)");
            }
            continue;
        }
        const int loop = loops.of(o);
        if (loop < 0) continue;  // fused or an RVar: no per-dimension tiling to read
        const size_t d = size_t(loop);
        DimTiling &dim = choice.tiling.dims[d];
        if (it->for_type == ForType::GPUThread) {
            inside_threads = true;
            thread_stride[d] = o.stride;
            if (o.factor > 0) {
                dim.threads *= o.factor;
            } else {
                notes.push_back(stage.name + ": a thread loop of unknown extent (taken as 256 threads)");
                dim.threads *= 256;
            }
            dim.tail = combined(dim.tail, o.tail);
        } else if (inside_threads && o.factor > 0 &&
                   (it->for_type == ForType::Serial || it->for_type == ForType::Unrolled ||
                    it->for_type == ForType::Vectorized)) {
            dim.serial *= o.factor;
            dim.tail = combined(dim.tail, o.tail);
            if (o.factor > 1) choice.tiling.rolled |= it->for_type == ForType::Serial;
            if (const std::optional<int64_t> step = thread_stride[d]) {
                strided |= *step == 0 || o.stride == 0 || o.stride > *step;
            }
        } else if (inside_blocks && !inside_threads && o.factor > 1 &&
                   (it->for_type == ForType::Serial || it->for_type == ForType::Unrolled)) {
            dim.tiles_per_block *= o.factor;  // a block runs this many of the loop's tiles in turn
        } else if (blocks && !inside_blocks && loops_of[d] == 1 && it->for_type == ForType::Serial) {
            dim.host = true;  // around the kernel: each of its points launches it
        }
    }
    choice.tiling.compact = !strided;
    choice.tiling.tile_inside_reduction = tile_inside_reduction(dims, origins, loops);
    return choice;
}

// Whether `var` of `kernel`'s last stage lies inside its thread loops.
bool inside_thread_loops(const Node &kernel, const std::string &var) {
    const StageSchedule &schedule = kernel.stages.back()->definition.schedule();
    bool threads = false;
    const std::vector<Dim> &dims = schedule.dims();
    for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
        threads |= it->for_type == ForType::GPUThread;
        if (names_match(it->var, var)) return threads;
    }
    return false;
}

// A Thread member's FuncChoice::imported_span: per pure loop of `kernel`'s
// last stage, the points of the thread loops inside its compute level
// `var` (ones where none lies inside it). A thread loop of no constant
// extent: taken as one point, with a note.
std::vector<int64_t> span_inside_level(const Node &kernel, const std::string &var, std::vector<std::string> &notes) {
    const Stage &stage = *kernel.stages.back();
    const StageSchedule &schedule = stage.definition.schedule();
    const StageLoops loops(stage);
    const auto origins = trace_splits(schedule, loops.vars, loops.extents);
    std::vector<int64_t> span(loops.vars.size(), 1);
    for (const Dim &d : schedule.dims()) {  // innermost first
        if (names_match(d.var, var)) break;
        if (d.for_type != ForType::GPUThread) continue;
        const LoopOrigin o = origin_of(origins, d.var);
        const int loop = loops.of(o);
        if (loop < 0) continue;
        if (o.factor <= 0) {
            notes.push_back(kernel.name + ": a thread loop of unknown extent inside a member's compute level "
                            "(taken as one thread)");
            continue;
        }
        span[size_t(loop)] *= o.factor;
    }
    return span;
}

// A Thread member's FuncChoice::imported_per_computation: per pure loop of
// `kernel`'s last stage, where a serial loop over it runs between the
// thread loops and the member's compute level `var` (the level included),
// the points of it the serial loops inside the level cover (1 where none
// does); 0 elsewhere. Empty when no pure loop is so recomputed.
std::vector<int64_t> points_per_computation(const Node &kernel, const std::string &var) {
    const Stage &stage = *kernel.stages.back();
    const StageSchedule &schedule = stage.definition.schedule();
    const StageLoops loops(stage);
    const auto origins = trace_splits(schedule, loops.vars, loops.extents);
    std::vector<int64_t> inside(loops.vars.size(), 1);
    std::vector<bool> recomputed(loops.vars.size(), false), unknown(loops.vars.size(), false);
    bool past_level = false;
    for (const Dim &d : schedule.dims()) {  // innermost first
        const bool gpu = d.for_type == ForType::GPUThread || d.for_type == ForType::GPUBlock ||
                         d.for_type == ForType::GPULane;
        past_level |= names_match(d.var, var);
        if (past_level && (gpu || d.var == Var::outermost().name())) break;
        if (gpu) continue;
        const LoopOrigin o = origin_of(origins, d.var);
        const int loop = loops.of(o);
        if (loop < 0) continue;
        if (past_level) {
            recomputed[size_t(loop)] = true;
        } else if (o.factor > 0) {
            inside[size_t(loop)] *= o.factor;
        } else {
            unknown[size_t(loop)] = true;  // covers an extent only the run knows: the whole tile
        }
    }
    std::vector<int64_t> out(loops.vars.size(), 0);
    bool any = false;
    for (size_t i = 0; i < out.size(); ++i) {
        if (!recomputed[i] || unknown[i]) continue;
        out[i] = inside[i];
        any = true;
    }
    return any ? out : std::vector<int64_t>{};
}

// A Block member's own loops, read as a Root stage's are: its GPU thread
// loops per pure loop (FuncChoice::imported_threads; a whole loop over
// threads: its extent at root, which the member's region cuts short), of
// its stages the one with the most threads; and per stage the tile its
// threads run unrolled inside them (FuncChoice::imported_unrolled_tiles),
// none where a stage's points inside the thread loops are looped.
struct OwnLoops {
    std::vector<int64_t> threads;
    std::vector<std::vector<int64_t>> unrolled_tiles;
};

OwnLoops own_loops(const Node &node, std::vector<std::string> &notes) {
    OwnLoops out;
    int64_t most_threads = 0;
    bool any_tile = false;
    for (const auto &stage : node.stages) {
        const GpuTiling tiling = import_stage(*stage, notes).tiling;
        std::vector<int64_t> tile;
        for (const DimTiling &d : tiling.dims) tile.push_back(tiling.rolled ? 1 : d.serial);
        any_tile |= std::any_of(tile.begin(), tile.end(), [](int64_t n) { return n > 1; });
        out.unrolled_tiles.push_back(std::move(tile));
        if (tiling.threads_per_block() <= most_threads) continue;
        most_threads = tiling.threads_per_block();
        out.threads.clear();
        for (const DimTiling &d : tiling.dims) out.threads.push_back(d.threads);
    }
    if (!any_tile) out.unrolled_tiles.clear();
    return out;
}

}  // namespace

ImportedSchedule import_schedule(const FunctionDAG &dag, const costmodel::GpuSpec &spec) {
    ImportedSchedule out{Schedule(dag), {}};
    // Consumers first, so a member finds its kernel already read.
    std::vector<Node *> funcs = dag.funcs();
    for (auto f = funcs.rbegin(); f != funcs.rend(); ++f) {
        const Node *node = *f;
        LoopLevel level = node->func.schedule().compute_level();
        level.lock();  // LoopLevels can be inspected only once locked
        if (node->is_extern || level.is_root() || node->is_output) {
            std::vector<StageChoice> stages;
            for (const auto &st : node->stages) {
                // An extern stage has no loops of Halide's to read.
                stages.push_back(node->is_extern ? StageChoice{} : import_stage(*st, out.approximations));
            }
            out.schedule.set(node->id, FuncChoice::root(std::move(stages)));
        } else if (level.is_inlined()) {
            out.schedule.set(node->id, FuncChoice::inlined());
        } else {
            const Node *kernel = dag.node(level.func());
            if (!kernel) {
                out.approximations.push_back(node->name + ": computed at an unknown Func (taken as root)");
                out.schedule.set(node->id, default_choice(*node, spec));
                continue;
            }
            const bool thread = inside_thread_loops(*kernel, level.var().name());
            // Members attach to the Func that finally runs the kernel.
            int kernel_id = kernel->id;
            // On a thread loop of a Block member with thread loops of its
            // own: computed per thread of that member (imported_host).
            bool on_host_threads = false;
            if (out.schedule.decided(kernel_id) && out.schedule.choice(kernel_id).placement != Placement::Root) {
                const FuncChoice &host = out.schedule.choice(kernel_id);
                on_host_threads = thread && host.placement == Placement::Block && !host.imported_threads.empty();
                kernel_id = host.kernel_func;
                if (!on_host_threads) {
                    out.approximations.push_back(node->name + ": computed inside a member of another kernel");
                }
            }
            FuncChoice member = FuncChoice::at(thread ? Placement::Thread : Placement::Block, kernel_id,
                                               int(dag.nodes()[kernel_id]->stages.size()) - 1);
            if (!thread) {
                OwnLoops own = own_loops(*node, out.approximations);
                member.imported_threads = std::move(own.threads);
                member.imported_unrolled_tiles = std::move(own.unrolled_tiles);
            }
            if (on_host_threads) member.imported_host = kernel->id;
            if (thread && kernel_id == kernel->id) {
                member.imported_span = span_inside_level(*kernel, level.var().name(), out.approximations);
                member.imported_per_computation = points_per_computation(*kernel, level.var().name());
            }
            out.schedule.set(node->id, std::move(member));
        }
    }
    return out;
}

}  // namespace strata::autoscheduler
