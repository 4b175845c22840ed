//===- CodeSize.cpp - one checked copy of a kernel where it costs little --===//
//
// Tries each partitioned kernel with unrolled serial points unpartitioned,
// the largest first (serial points times what a point of the stage does:
// only an order, the price decides), and keeps it where the pipeline's
// price stays within the budget.
//===----------------------------------------------------------------------===//
#include "CodeSize.h"

#include <algorithm>
#include <vector>

namespace strata::autoscheduler {

int unpartition_within(Schedule &schedule, const std::function<double(const Schedule &)> &price, double budget) {
    if (budget <= 0) return 0;
    struct Kernel {
        double unrolled_work;
        int func, stage;
    };
    std::vector<Kernel> kernels;
    for (const Node *node : schedule.dag().funcs()) {
        const FuncChoice &choice = schedule.choice(node->id);
        if (choice.placement != Placement::Root) continue;
        for (const auto &stage : node->stages) {
            const GpuTiling &tiling = choice.stages[stage->index].tiling;
            if (tiling.rolled || !tiling.partitioned || tiling.serial_per_thread() < 2) continue;
            kernels.push_back({double(tiling.serial_per_thread()) * stage->work_per_point(), node->id, stage->index});
        }
    }
    std::stable_sort(kernels.begin(), kernels.end(),
                     [](const Kernel &a, const Kernel &b) { return a.unrolled_work > b.unrolled_work; });
    const double limit = price(schedule) * (1 + budget);
    int marked = 0;
    for (const Kernel &k : kernels) {
        Schedule trial = schedule;
        FuncChoice choice = trial.choice(k.func);
        choice.stages[k.stage].tiling.partitioned = false;
        trial.set(k.func, std::move(choice));
        if (price(trial) <= limit) {
            schedule = std::move(trial);
            ++marked;
        }
    }
    return marked;
}

}  // namespace strata::autoscheduler
