#include "strata/harness/LaunchLog.h"

#include <algorithm>
#include <mutex>

namespace strata::harness {

namespace {
std::mutex g_mutex;
std::map<std::string, KernelLaunches> &log() {
    static std::map<std::string, KernelLaunches> launches;
    return launches;
}
}  // namespace

void record_launch(const std::string &kernel, const int64_t grid[3], int64_t threads_per_block, int64_t shared_bytes) {
    std::lock_guard<std::mutex> lock(g_mutex);
    KernelLaunches &k = log()[kernel];
    ++k.launches;
    k.max_blocks = std::max(k.max_blocks, grid[0] * grid[1] * grid[2]);
    for (int d = 0; d < 3; ++d) k.max_grid[d] = std::max(k.max_grid[d], grid[d]);
    k.max_threads_per_block = std::max(k.max_threads_per_block, threads_per_block);
    k.max_shared_bytes = std::max(k.max_shared_bytes, shared_bytes);
}

void clear_launches() {
    std::lock_guard<std::mutex> lock(g_mutex);
    log().clear();
}

const std::map<std::string, KernelLaunches> &launches() { return log(); }

}  // namespace strata::harness
