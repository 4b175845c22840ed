// GpuTiling: how one stage's pure loops are spread over a GPU — per loop, a
// number of threads and a number of serial iterations per thread; what is
// left of the loop's extent becomes blocks. Within a block tile a thread's
// serial points are either strided (x = s·T + t: consecutive threads touch
// consecutive elements, so a warp's accesses coalesce) or compact
// (x = t·S + s: each thread owns a contiguous tile, so what it computes per
// thread — a stencil's producer, a register-blocked accumulator — is one
// small box). Kernels that compute Funcs per thread use compact tiles.
//
// Also: the candidate tilings the search considers for a stage, within the
// GPU's limits (threads per block, three thread dimensions, block-dimension
// limits), coarse or refined around a previous choice, grouped by structure
// and sampled a few per group (hierarchical sampling), deterministically for
// a seed.
//
// Example:
//   GpuTiling t = GpuTiling::uniform({1536, 2560}, {32, 8}, {1, 2});
//   t.threads_per_block() == 256; t.blocks({1536, 2560}) == 48 * 160
#pragma once

#include "strata/costmodel/GpuSpec.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace strata::autoscheduler {

// a / b rounded up, for positive a and b (tiles, blocks, sectors).
inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Halide's integer division and modulus, which round towards negative
// infinity; 0 for a zero divisor, as Halide defines it.
inline int64_t floor_div(int64_t a, int64_t b) {
    if (b == 0) return 0;
    const int64_t q = a / b;
    return (a % b != 0) && ((a < 0) != (b < 0)) ? q - 1 : q;
}
inline int64_t floor_mod(int64_t a, int64_t b) { return b == 0 ? 0 : a - floor_div(a, b) * b; }

// Mixes `value` into the running hash `h` (for the search's memo keys).
inline uint64_t hash_combine(uint64_t h, uint64_t value) {
    value += 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    value ^= value >> 31;
    value *= 0xBF58476D1CE4E5B9ull;
    return h ^ (value ^ (value >> 29));
}

// How a loop's last, partial tile is computed. Strata's writer guards it
// (GuardWithIf: each point once); imported schedules may compute every tile
// in full, shifting the last one inwards over points already computed
// (Halide's ShiftInwards) or running it past the end (RoundUp).
enum class TileTail : uint8_t { Guarded, ShiftedInwards, RoundedUp };

struct DimTiling {
    int64_t threads = 1;
    int64_t serial = 1;
    TileTail tail = TileTail::Guarded;
    // Imported schedules only: how many of the loop's tiles each block
    // runs, one after another (a serial loop between the block and the
    // thread loops, as Mullapudi2016 leaves a colour channel). Strata's
    // writer gives every tile its own block (1).
    int64_t tiles_per_block = 1;
    // Imported schedules only: the whole loop runs on the host, around the
    // block loops (Mullapudi2016 leaves a fourth dimension serial outside
    // the three it maps to the grid): each of its points launches the
    // kernel anew, and it takes no grid dimension. Strata's writer maps
    // every pure loop to blocks (false).
    bool host = false;
    int64_t tile() const { return threads * serial; }
    // Points the loop computes over an extent of `extent`.
    int64_t computed_extent(int64_t extent) const {
        return tail == TileTail::Guarded ? extent : ceil_div(extent, std::max<int64_t>(tile(), 1)) * tile();
    }
};

struct GpuTiling {
    std::vector<DimTiling> dims;  // one per pure loop of the stage, innermost first
    bool compact = false;         // serial points contiguous per thread (else strided)
    // Serial points run as a loop rather than as straight-line code. The
    // writer always unrolls them; an imported schedule may not (Li2018 loops
    // a histogram's 256 bins in each thread), and a loop holds no per-point
    // registers.
    bool rolled = false;
    // Halide copies a kernel whose tile has checked serial points into an
    // interior without the checks and borders with them (loop partitioning);
    // unpartitioned, every block runs the one checked copy: about half the
    // code, but the checks everywhere, and no load shared between two of a
    // thread's points (see CodeSize.h).
    bool partitioned = true;
    // Imported schedules only: blocks along the stage's reduction loops
    // (Li2018 runs a histogram's rfactored reduction over blocks, adding
    // with atomics): the launch has that many more blocks, each running its
    // share of the reduction's steps. Strata's writer keeps reductions
    // inside the threads (1).
    int64_t reduction_blocks = 1;
    // Imported schedules only: an update's serial tile runs inside its
    // reduction loops (Anderson2021 orders depthwise_separable_conv's
    // update xii, yii, r.x, r.y, ...: each step updates the whole 2 x 8
    // tile). Where the tile's points are checked, each store sits under
    // its check inside the reduction loops, and the compiled code stores
    // it at every step (KernelAnalysis::kernel_stores_per_point). Strata's
    // writer orders its own tiles (KernelAnalysis::tile_innermost).
    bool tile_inside_reduction = false;

    static GpuTiling uniform(const std::vector<int64_t> &extents, const std::vector<int64_t> &threads,
                             const std::vector<int64_t> &serial, bool compact = false);
    // Whether compact and strided differ (some loop has threads and serial points).
    bool layout_matters() const;
    // Whether some tiled loop has its last tile checked point by point
    // (guarded, whatever the estimates): what Halide partitions on.
    bool has_checked_tail() const;

    int64_t threads_per_block() const;
    int64_t serial_per_thread() const;
    int thread_dims() const;
    // The thread counts of the loops that have threads, innermost first: what
    // a block member's loops are split by (MemberThreads.h).
    std::vector<int64_t> thread_extents() const;
    // Whether the block loop of pure loop `d` shares a grid dimension with
    // another: a launch grid has three, so the writer fuses the block loops
    // of the third pure loop and beyond into one (see grid()). Host loops
    // (DimTiling::host) take no grid dimension.
    bool block_loop_fused(size_t d) const {
        if (dims.size() <= 3) return false;
        return !dims[d].host && grid_loop(d) >= 2 && grid_loops() > 3;
    }
    // Whether a thread owns several points along a fused block loop: Halide
    // cannot prove a per-thread buffer's extent there through the fused
    // index, so such a kernel computes nothing per thread.
    bool serial_along_fused_block() const {
        for (size_t d = 0; d < dims.size(); ++d) {
            if (block_loop_fused(d) && dims[d].serial > 1) return true;
        }
        return false;
    }
    // Number of block tiles when the loops have the given extents: what
    // a kernel's per-block work is counted in.
    int64_t blocks(const std::vector<int64_t> &extents) const;
    // The blocks launched, over all launches, and the tiles each runs
    // (DimTiling::tiles_per_block).
    int64_t launched_blocks(const std::vector<int64_t> &extents) const;
    // Times the host launches the kernel: the points of its host loops
    // (DimTiling::host), 1 where it has none.
    int64_t launches(const std::vector<int64_t> &extents) const;
    int64_t tiles_per_block(const std::vector<int64_t> &extents) const;
    // The launch grid (x, y, z), as the writer lays out the block loops:
    // one per pure loop, innermost first, every loop past the third fused
    // into the third — or, when y or z would exceed the GPU's limit (a very
    // tall image), all of them fused into x (fuse_all_blocks()).
    // Host loops (DimTiling::host) take no grid dimension; reduction
    // blocks take the one after the pure loops'.
    std::array<int64_t, 3> grid(const std::vector<int64_t> &extents, const costmodel::GpuSpec &spec) const;
    bool fuse_all_blocks(const std::vector<int64_t> &extents, const costmodel::GpuSpec &spec) const;
    // Fraction of launched threads that have work (partial tiles idle the rest).
    double active_fraction(const std::vector<int64_t> &extents) const;
    std::string key() const;
    uint64_t hash() const;
    bool operator==(const GpuTiling &o) const;
    bool operator<(const GpuTiling &o) const;

private:
    // Pure loop `d`'s place among the loops that take a grid dimension
    // (every loop but the host's), and how many take one.
    size_t grid_loop(size_t d) const;
    size_t grid_loops() const;
    // The launch grid with the block loops past the third fused into z,
    // before any check of the GPU's limits (grid()).
    std::array<int64_t, 3> unfused_grid(const std::vector<int64_t> &extents) const;
};

struct TilingOptions {
    int max_threads_per_block = 1024;
    int max_serial_per_thread = 16;  // serial tiles are unrolled: keep them small
    bool coarse = true;              // coarse grid of powers of 4, else powers of 2
    int samples_per_group = 3;
};

// All legal tilings, grouped by structure (thread count, thread dims, serial
// count) and sampled `samples_per_group` per group with `rng`; the result is
// sorted by key so the order never depends on the sampling order.
std::vector<GpuTiling> candidate_tilings(const std::vector<int64_t> &extents, const costmodel::GpuSpec &spec,
                                         const TilingOptions &options, std::mt19937_64 &rng);

// Tilings one step (×2 or ÷2 in one factor) from `center`.
std::vector<GpuTiling> neighbour_tilings(const GpuTiling &center, const std::vector<int64_t> &extents,
                                         const costmodel::GpuSpec &spec, const TilingOptions &options);

// A reasonable tiling without search: 32×8-like blocks (at most 256 threads,
// or the spec's max_threads_per_block if lower), one point per thread,
// with serial points added where the grid would exceed the spec's limits.
GpuTiling default_tiling(const std::vector<int64_t> &extents, const costmodel::GpuSpec &spec);

// Whether the launch grid of `t` over these extents fits the spec's grid limits.
bool fits_grid(const GpuTiling &t, const std::vector<int64_t> &extents, const costmodel::GpuSpec &spec);

// Whether `t` respects the GPU's limits for loops of these extents.
bool is_legal(const GpuTiling &t, const std::vector<int64_t> &extents, const costmodel::GpuSpec &spec,
              const TilingOptions &options);

}  // namespace strata::autoscheduler
