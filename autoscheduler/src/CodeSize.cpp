//===- CodeSize.cpp - one copy of a kernel's code where it costs little ---===//
//
// Visits each root kernel with unrolled serial points, the largest first
// (serial points times what a point of the stage does: only an order, the
// price decides), and keeps each change that leaves the pipeline's price
// within the budget: its tails shifted inwards, then half its serial
// points along its most unrolled loop (again while it fits), then, if
// checks remain, its checked copy alone (unpartitioned).
//===----------------------------------------------------------------------===//
#include "CodeSize.h"

#include "Errors.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace strata::autoscheduler {

namespace {

// Whether `node` may be computed up to `by` points before the start of its
// region along dimension `dim`, where a shifted last tile lands when the
// run's loop is shorter than the tile, without reading an input buffer
// before where its region reads it (`normal`: what its root region
// reaches): every path to the inputs clamps there (a boundary condition)
// or does not move. What an extern stage reads is not known, so one that
// must compute more says no.
bool may_start_early(const FunctionDAG &dag, const Node &node, const std::vector<std::optional<Region>> &normal,
                     int dim, int64_t by) {
    Region early = node.root_region;
    early[dim].min -= by;
    early[dim].extent += by;
    const std::vector<std::optional<Region>> shifted = dag.regions_reached(node, early);
    for (const auto &n : dag.nodes()) {
        const std::optional<Region> &now = normal[n->id], &then = shifted[n->id];
        if (!then || (!n->is_input() && !n->is_extern)) continue;
        for (size_t d = 0; d < then->size(); ++d) {
            if (!now || (*then)[d].min < (*now)[d].min) return false;
            if (n->is_extern && (*then)[d].extent != (*now)[d].extent) return false;
        }
    }
    return true;
}

// The pure loop of `stage` that tiling dimension `d` tiles.
const Loop *pure_loop(const Stage &stage, size_t d) {
    size_t pure = 0;
    for (const Loop &loop : stage.loops) {
        if (loop.is_rvar) continue;
        if (pure++ == d) return &loop;
    }
    return nullptr;
}

}  // namespace

std::optional<GpuTiling> with_half_the_serial_points(const GpuTiling &tiling) {
    auto most = std::max_element(tiling.dims.begin(), tiling.dims.end(),
                                 [](const DimTiling &a, const DimTiling &b) { return a.serial < b.serial; });
    if (most == tiling.dims.end() || most->serial < 2) return std::nullopt;
    GpuTiling fewer = tiling;
    fewer.dims[most - tiling.dims.begin()].serial = most->serial / 2;
    return fewer;
}

bool tail_may_shift(const FunctionDAG &dag, const Node &node, const Stage &stage, size_t d, int64_t tile,
                    std::optional<std::vector<std::optional<Region>>> &reached) {
    if (node.is_output || node.is_extern || stage.is_update()) return false;
    const Loop *loop = pure_loop(stage, d);
    // A loop shorter than its tile at the estimates would already shift the
    // tile before the loop's start.
    if (!loop || loop->pure_dim < 0 || tile <= 1 || tile > pure_extents(stage)[d]) return false;
    if (!reached) reached = dag.regions_reached(node, node.root_region);
    return may_start_early(dag, node, *reached, loop->pure_dim, tile);
}

GpuTiling with_shifted_tails(const FunctionDAG &dag, const Node &node, const Stage &stage, const GpuTiling &tiling) {
    GpuTiling shifted = tiling;
    std::optional<std::vector<std::optional<Region>>> reached;  // from the root region, once
    for (size_t d = 0; d < shifted.dims.size(); ++d) {
        DimTiling &dim = shifted.dims[d];
        if (tail_may_shift(dag, node, stage, d, dim.tile(), reached)) dim.tail = TileTail::ShiftedInwards;
    }
    return shifted;
}

std::vector<size_t> divided_guarded_loops(const Stage &stage, const GpuTiling &tiling, const MemberFootprint &footprint) {
    std::vector<size_t> out;
    if (footprint.period <= 1) return out;
    size_t pure = 0;
    for (size_t i = 0; i < stage.loops.size(); ++i) {
        if (stage.loops[i].is_rvar) continue;
        const size_t d = pure++;
        if (d < tiling.dims.size() && tiling.dims[d].tile() > 1 && tiling.dims[d].tail == TileTail::Guarded &&
            footprint.followed_loops.count(int(i))) {
            out.push_back(d);
        }
    }
    return out;
}

std::vector<size_t> divided_guarded_loops(const FunctionDAG &dag, const Schedule &schedule, int member) {
    const FuncChoice &choice = schedule.choice(member);
    return divided_guarded_loops(*dag.nodes()[choice.kernel_func]->stages[choice.kernel_stage],
                                 schedule.choice(choice.kernel_func).stages[choice.kernel_stage].tiling,
                                 member_footprint(dag, schedule, member, choice.kernel_func, choice.kernel_stage));
}

int shift_tails_under_divisions(Schedule &schedule) {
    const FunctionDAG &dag = schedule.dag();
    int changed = 0;
    for (const Node *node : dag.funcs()) {
        const Placement placement = schedule.choice(node->id).placement;
        if (placement != Placement::Block && placement != Placement::Staged) continue;
        const std::vector<size_t> loops = divided_guarded_loops(dag, schedule, node->id);
        if (loops.empty()) continue;
        const FuncChoice &member = schedule.choice(node->id);
        const Node &kernel = *dag.nodes()[member.kernel_func];
        const Stage &stage = *kernel.stages[member.kernel_stage];
        FuncChoice choice = schedule.choice(kernel.id);
        GpuTiling &tiling = choice.stages[stage.index].tiling;
        std::optional<std::vector<std::optional<Region>>> reached;
        for (size_t d : loops) {
            if (!tail_may_shift(dag, kernel, stage, d, tiling.dims[d].tile(), reached)) {
                fail("Strata offered '" + node->name + "' in kernel '" + stage.name +
                     "' through a division along a guarded loop that cannot be shifted");
            }
            tiling.dims[d].tail = TileTail::ShiftedInwards;
        }
        schedule.set(kernel.id, std::move(choice));
        ++changed;
    }
    return changed;
}

CodeSizeChanges shrink_code_within(Schedule &schedule, const std::function<double(const Schedule &)> &price,
                                   double budget) {
    CodeSizeChanges made;
    if (budget <= 0) return made;
    struct Kernel {
        double unrolled_work;
        int func, stage;
    };
    const FunctionDAG &dag = schedule.dag();
    std::vector<Kernel> kernels;
    for (const Node *node : dag.funcs()) {
        const FuncChoice &choice = schedule.choice(node->id);
        if (choice.placement != Placement::Root) continue;
        for (const auto &stage : node->stages) {
            const GpuTiling &tiling = choice.stages[stage->index].tiling;
            if (tiling.rolled || tiling.serial_per_thread() < 2) continue;
            kernels.push_back({double(tiling.serial_per_thread()) * stage->work_per_point(), node->id, stage->index});
        }
    }
    std::stable_sort(kernels.begin(), kernels.end(),
                     [](const Kernel &a, const Kernel &b) { return a.unrolled_work > b.unrolled_work; });
    const double limit = price(schedule) * (1 + budget);
    auto try_tiling = [&](const Kernel &k, GpuTiling tiling) {
        Schedule trial = schedule;
        FuncChoice choice = trial.choice(k.func);
        choice.stages[k.stage].tiling = std::move(tiling);
        trial.set(k.func, std::move(choice));
        if (price(trial) > limit) return false;
        schedule = std::move(trial);
        return true;
    };
    for (const Kernel &k : kernels) {
        const Node &node = *dag.nodes()[k.func];
        const GpuTiling &tiling = schedule.choice(k.func).stages[k.stage].tiling;
        const GpuTiling shifted = with_shifted_tails(dag, node, *node.stages[k.stage], tiling);
        if (!(shifted == tiling) && try_tiling(k, shifted)) ++made.shifted;
        bool halved = false;
        while (std::optional<GpuTiling> fewer = with_half_the_serial_points(schedule.choice(k.func).stages[k.stage].tiling)) {
            if (!try_tiling(k, std::move(*fewer))) break;
            halved = true;
        }
        made.fewer_unrolled += halved;
        const GpuTiling &now = schedule.choice(k.func).stages[k.stage].tiling;
        if (!now.partitioned || !now.has_checked_tail() || now.serial_per_thread() < 2) continue;
        GpuTiling unpartitioned = now;
        unpartitioned.partitioned = false;
        made.unpartitioned += try_tiling(k, std::move(unpartitioned));
    }
    return made;
}

}  // namespace strata::autoscheduler
