#include "WarpAccess.h"

#include <algorithm>
#include <map>
#include <set>

namespace strata::autoscheduler {

int global_sectors(const std::vector<int64_t> &lane_byte_addresses, int access_bytes, int sector_bytes) {
    std::set<int64_t> sectors;
    for (int64_t a : lane_byte_addresses) {
        const int64_t first = a >= 0 ? a / sector_bytes : -((-a + sector_bytes - 1) / sector_bytes);
        const int64_t last_byte = a + std::max(access_bytes, 1) - 1;
        const int64_t last = last_byte >= 0 ? last_byte / sector_bytes : -((-last_byte + sector_bytes - 1) / sector_bytes);
        for (int64_t s = first; s <= last; ++s) sectors.insert(s);
    }
    return int(sectors.size());
}

int shared_bank_ways(const std::vector<int64_t> &lane_byte_addresses, int banks, int bank_bytes) {
    std::map<int64_t, std::set<int64_t>> words_per_bank;
    for (int64_t a : lane_byte_addresses) {
        const int64_t word = a >= 0 ? a / bank_bytes : -((-a + bank_bytes - 1) / bank_bytes);
        const int64_t bank = ((word % banks) + banks) % banks;
        words_per_bank[bank].insert(word);
    }
    int ways = lane_byte_addresses.empty() ? 0 : 1;
    for (const auto &entry : words_per_bank) ways = std::max(ways, int(entry.second.size()));
    return ways;
}

}  // namespace strata::autoscheduler
