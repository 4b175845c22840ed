// WarpAccess: what one warp-wide memory instruction costs, found by
// simulating the 32 lanes' addresses — the number of 32-byte sectors a
// global access touches (coalescing), and the number of serialized passes a
// shared-memory access needs (bank conflicts).
//
// Example:
//   std::vector<int64_t> stride1(32), stride32(32);
//   for (int l = 0; l < 32; ++l) stride1[l] = 4 * l, stride32[l] = 4 * 32 * l;
//   global_sectors(stride1) == 4;    // 128 contiguous bytes
//   global_sectors(stride32) == 32;  // one sector per lane
#pragma once

#include <cstdint>
#include <vector>

namespace strata::autoscheduler {

// Distinct `sector_bytes`-byte sectors among the lanes' byte addresses
// (each lane reads `access_bytes` bytes starting at its address).
int global_sectors(const std::vector<int64_t> &lane_byte_addresses, int access_bytes = 4, int sector_bytes = 32);

// The number of passes the shared-memory unit needs for these byte
// addresses: for each bank, the number of distinct 4-byte words requested
// (lanes reading the same word are served together).
int shared_bank_ways(const std::vector<int64_t> &lane_byte_addresses, int banks = 32, int bank_bytes = 4);

}  // namespace strata::autoscheduler
