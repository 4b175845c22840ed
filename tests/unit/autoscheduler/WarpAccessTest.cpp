// Hand-computed coalescing and bank-conflict cases.
#include "WarpAccess.h"

#include <doctest/doctest.h>

using namespace strata::autoscheduler;

namespace {
std::vector<int64_t> lanes(int64_t stride_bytes) {
    std::vector<int64_t> a;
    for (int l = 0; l < 32; ++l) a.push_back(l * stride_bytes);
    return a;
}
}  // namespace

TEST_CASE("a stride-1 float warp load touches 4 sectors; stride 32 touches 32") {
    CHECK(global_sectors(lanes(4), 4) == 4);       // 128 contiguous bytes / 32-byte sectors
    CHECK(global_sectors(lanes(4 * 32), 4) == 32); // each lane in its own sector
    CHECK(global_sectors(lanes(8), 4) == 8);       // stride 2: half of each sector wasted
    CHECK(global_sectors(lanes(0), 4) == 1);       // a broadcast
}

TEST_CASE("a misaligned contiguous load straddles one more sector") {
    std::vector<int64_t> a = lanes(4);
    for (int64_t &v : a) v += 16;
    CHECK(global_sectors(a, 4) == 5);
}

TEST_CASE("wide elements: 32 doubles are 256 bytes, 8 sectors") { CHECK(global_sectors(lanes(8), 8) == 8); }

TEST_CASE("a column of a 32x32 float tile in shared memory is a 32-way conflict; padding to 33 removes it") {
    CHECK(shared_bank_ways(lanes(32 * 4)) == 32);
    CHECK(shared_bank_ways(lanes(33 * 4)) == 1);
    CHECK(shared_bank_ways(lanes(4)) == 1);  // a row: one word per bank
    CHECK(shared_bank_ways(lanes(8)) == 2);  // stride 2: two words per used bank
    CHECK(shared_bank_ways(lanes(0)) == 1);  // everyone reads one word: a broadcast
}
