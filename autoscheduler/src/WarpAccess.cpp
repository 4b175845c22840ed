#include "WarpAccess.h"

#include "GpuTiling.h"  // floor_div, floor_mod

#include <algorithm>
#include <utility>

namespace strata::autoscheduler {

// Each a warp's worth of values (32 lanes, a few sectors each): sorting a
// small vector beats a tree, and the search calls these for every load of
// every kernel it analyses.

int global_sectors(const std::vector<int64_t> &lane_byte_addresses, int access_bytes, int sector_bytes) {
    std::vector<int64_t> sectors;
    sectors.reserve(lane_byte_addresses.size() * 2);
    for (int64_t a : lane_byte_addresses) {
        const int64_t last = floor_div(a + std::max(access_bytes, 1) - 1, sector_bytes);
        for (int64_t s = floor_div(a, sector_bytes); s <= last; ++s) sectors.push_back(s);
    }
    std::sort(sectors.begin(), sectors.end());
    return int(std::unique(sectors.begin(), sectors.end()) - sectors.begin());
}

int shared_bank_ways(const std::vector<int64_t> &lane_byte_addresses, int banks, int bank_bytes) {
    if (lane_byte_addresses.empty()) return 0;
    // (bank, word) of each lane; lanes reading one word share it (a broadcast).
    std::vector<std::pair<int64_t, int64_t>> words;
    words.reserve(lane_byte_addresses.size());
    for (int64_t a : lane_byte_addresses) {
        const int64_t word = floor_div(a, bank_bytes);
        words.emplace_back(floor_mod(word, banks), word);
    }
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    int ways = 1;
    for (size_t i = 0; i < words.size();) {
        size_t j = i;
        while (j < words.size() && words[j].first == words[i].first) ++j;
        ways = std::max(ways, int(j - i));
        i = j;
    }
    return ways;
}

}  // namespace strata::autoscheduler
