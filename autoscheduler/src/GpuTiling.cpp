#include "GpuTiling.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <sstream>

namespace strata::autoscheduler {

namespace {

int64_t next_pow2(int64_t v) {
    int64_t p = 1;
    while (p < v) p *= 2;
    return p;
}

// Powers of `step` (and 1) up to `limit`.
std::vector<int64_t> powers(int64_t limit, int64_t step) {
    std::vector<int64_t> out = {1};
    for (int64_t p = step; p <= limit; p *= step) out.push_back(p);
    return out;
}

// Whether a grid's y or z passes the GPU's limit (then the writer fuses
// every block loop into x).
bool yz_over_limit(const std::array<int64_t, 3> &g, const costmodel::GpuSpec &spec) {
    return g[1] > spec.max_grid_dim_yz || g[2] > spec.max_grid_dim_yz;
}

}  // namespace

GpuTiling GpuTiling::uniform(const std::vector<int64_t> &extents, const std::vector<int64_t> &threads,
                             const std::vector<int64_t> &serial, bool compact) {
    GpuTiling t;
    t.compact = compact;
    t.dims.resize(extents.size());
    for (size_t d = 0; d < extents.size(); ++d) {
        if (d < threads.size()) t.dims[d].threads = threads[d];
        if (d < serial.size()) t.dims[d].serial = serial[d];
    }
    return t;
}

bool GpuTiling::layout_matters() const {
    return std::any_of(dims.begin(), dims.end(), [](const DimTiling &d) { return d.threads > 1 && d.serial > 1; });
}

int64_t GpuTiling::threads_per_block() const {
    int64_t n = 1;
    for (const DimTiling &d : dims) n *= d.threads;
    return n;
}

int64_t GpuTiling::serial_per_thread() const {
    int64_t n = 1;
    for (const DimTiling &d : dims) n *= d.serial;
    return n;
}

int GpuTiling::thread_dims() const {
    int n = 0;
    for (const DimTiling &d : dims) n += d.threads > 1;
    return n;
}

std::vector<int64_t> GpuTiling::thread_extents() const {
    std::vector<int64_t> out;
    for (const DimTiling &d : dims) {
        if (d.threads > 1) out.push_back(d.threads);
    }
    return out;
}

int64_t GpuTiling::blocks(const std::vector<int64_t> &extents) const {
    int64_t n = 1;
    for (size_t d = 0; d < dims.size(); ++d) n *= ceil_div(extents[d], dims[d].tile());
    return n;
}

int64_t GpuTiling::launched_blocks(const std::vector<int64_t> &extents) const {
    int64_t n = std::max<int64_t>(reduction_blocks, 1);
    for (size_t d = 0; d < dims.size(); ++d) {
        n *= ceil_div(ceil_div(extents[d], dims[d].tile()), std::max<int64_t>(dims[d].tiles_per_block, 1));
    }
    return n;
}

int64_t GpuTiling::launches(const std::vector<int64_t> &extents) const {
    int64_t n = 1;
    for (size_t d = 0; d < dims.size() && d < extents.size(); ++d) {
        if (dims[d].host) n *= ceil_div(extents[d], dims[d].tile());
    }
    return n;
}

size_t GpuTiling::grid_loop(size_t d) const {
    const auto end = dims.begin() + std::ptrdiff_t(std::min(d, dims.size()));
    return size_t(std::count_if(dims.begin(), end, [](const DimTiling &t) { return !t.host; }));
}

size_t GpuTiling::grid_loops() const { return grid_loop(dims.size()); }

int64_t GpuTiling::tiles_per_block(const std::vector<int64_t> &extents) const {
    int64_t n = 1;
    for (size_t d = 0; d < dims.size(); ++d) {
        n *= std::min(std::max<int64_t>(dims[d].tiles_per_block, 1), ceil_div(extents[d], dims[d].tile()));
    }
    return n;
}

std::array<int64_t, 3> GpuTiling::unfused_grid(const std::vector<int64_t> &extents) const {
    std::array<int64_t, 3> g = {1, 1, 1};
    size_t axis = 0;
    for (size_t d = 0; d < dims.size() && d < extents.size(); ++d) {
        if (dims[d].host) continue;
        g[std::min<size_t>(axis++, 2)] *= ceil_div(extents[d], dims[d].tile());
    }
    g[std::min<size_t>(axis, 2)] *= std::max<int64_t>(reduction_blocks, 1);
    return g;
}

bool GpuTiling::fuse_all_blocks(const std::vector<int64_t> &extents, const costmodel::GpuSpec &spec) const {
    return yz_over_limit(unfused_grid(extents), spec);
}

std::array<int64_t, 3> GpuTiling::grid(const std::vector<int64_t> &extents, const costmodel::GpuSpec &spec) const {
    const std::array<int64_t, 3> g = unfused_grid(extents);
    if (yz_over_limit(g, spec)) return {g[0] * g[1] * g[2], 1, 1};
    return g;
}

bool fits_grid(const GpuTiling &t, const std::vector<int64_t> &extents, const costmodel::GpuSpec &spec) {
    const std::array<int64_t, 3> g = t.grid(extents, spec);
    return g[0] <= spec.max_grid_dim_x && g[1] <= spec.max_grid_dim_yz && g[2] <= spec.max_grid_dim_yz;
}

bool GpuTiling::has_checked_tail() const {
    return std::any_of(dims.begin(), dims.end(),
                       [](const DimTiling &d) { return d.tile() > 1 && d.tail == TileTail::Guarded; });
}

double GpuTiling::active_fraction(const std::vector<int64_t> &extents) const {
    double used = 1, launched = 1;
    for (size_t d = 0; d < dims.size(); ++d) {
        used *= double(dims[d].computed_extent(extents[d]));
        launched *= double(ceil_div(extents[d], dims[d].tile()) * dims[d].tile());
    }
    return launched > 0 ? used / launched : 1.0;
}

uint64_t GpuTiling::hash() const {
    uint64_t h = dims.size() * 2 + (compact && layout_matters());
    if (rolled) h = hash_combine(h, uint64_t(0x726f6c6c6564));
    if (!partitioned) h = hash_combine(h, uint64_t(0x756e70617274));
    if (reduction_blocks != 1) h = hash_combine(h, uint64_t(reduction_blocks) << 16);
    if (tile_inside_reduction) h = hash_combine(h, uint64_t(0x696e73696465));
    for (const DimTiling &d : dims) {
        h = hash_combine(hash_combine(h, uint64_t(d.threads)), uint64_t(d.serial));
        if (d.tail != TileTail::Guarded) h = hash_combine(h, uint64_t(d.tail));
        if (d.tiles_per_block != 1) h = hash_combine(h, uint64_t(d.tiles_per_block) << 8);
        if (d.host) h = hash_combine(h, uint64_t(0x686f7374));
    }
    return h;
}

bool GpuTiling::operator==(const GpuTiling &o) const {
    if (dims.size() != o.dims.size()) return false;
    if ((compact && layout_matters()) != (o.compact && o.layout_matters())) return false;
    if (rolled != o.rolled || partitioned != o.partitioned || reduction_blocks != o.reduction_blocks ||
        tile_inside_reduction != o.tile_inside_reduction) {
        return false;
    }
    for (size_t d = 0; d < dims.size(); ++d) {
        if (dims[d].threads != o.dims[d].threads || dims[d].serial != o.dims[d].serial ||
            dims[d].tail != o.dims[d].tail || dims[d].tiles_per_block != o.dims[d].tiles_per_block ||
            dims[d].host != o.dims[d].host) {
            return false;
        }
    }
    return true;
}

bool GpuTiling::operator<(const GpuTiling &o) const {
    if (dims.size() != o.dims.size()) return dims.size() < o.dims.size();
    const bool a = compact && layout_matters(), b = o.compact && o.layout_matters();
    if (a != b) return a < b;
    if (rolled != o.rolled) return rolled < o.rolled;
    if (partitioned != o.partitioned) return partitioned < o.partitioned;
    if (reduction_blocks != o.reduction_blocks) return reduction_blocks < o.reduction_blocks;
    if (tile_inside_reduction != o.tile_inside_reduction) return tile_inside_reduction < o.tile_inside_reduction;
    for (size_t d = 0; d < dims.size(); ++d) {
        if (dims[d].threads != o.dims[d].threads) return dims[d].threads < o.dims[d].threads;
        if (dims[d].serial != o.dims[d].serial) return dims[d].serial < o.dims[d].serial;
        if (dims[d].tail != o.dims[d].tail) return dims[d].tail < o.dims[d].tail;
        if (dims[d].tiles_per_block != o.dims[d].tiles_per_block) {
            return dims[d].tiles_per_block < o.dims[d].tiles_per_block;
        }
        if (dims[d].host != o.dims[d].host) return dims[d].host < o.dims[d].host;
    }
    return false;
}

std::string GpuTiling::key() const {
    std::ostringstream s;
    for (const DimTiling &d : dims) {
        s << d.threads << "x" << d.serial;
        if (d.tiles_per_block != 1) s << "b" << d.tiles_per_block;
        if (d.host) s << "h";
        s << (d.tail == TileTail::Guarded ? ";" : d.tail == TileTail::RoundedUp ? "r;" : "s;");
    }
    if (compact && layout_matters()) s << "c";
    if (rolled) s << "l";
    if (!partitioned) s << "u";
    if (reduction_blocks != 1) s << "r" << reduction_blocks;
    if (tile_inside_reduction) s << "i";
    return s.str();
}

bool is_legal(const GpuTiling &t, const std::vector<int64_t> &extents, const costmodel::GpuSpec &spec,
              const TilingOptions &options) {
    const int64_t threads = t.threads_per_block();
    if (threads > std::min<int64_t>(options.max_threads_per_block, spec.max_threads_per_block)) return false;
    if (t.serial_per_thread() > options.max_serial_per_thread) return false;
    if (t.thread_dims() > 3) return false;
    int thread_dim_index = 0;
    for (size_t d = 0; d < t.dims.size(); ++d) {
        const DimTiling &dt = t.dims[d];
        if (dt.threads < 1 || dt.serial < 1) return false;
        // Never tile beyond the (power-of-two rounded) extent: it only idles threads.
        if (dt.tile() > next_pow2(extents[d])) return false;
        if (dt.threads > 1) {
            const int64_t limit = thread_dim_index < 2 ? spec.max_block_dim_xy : spec.max_block_dim_z;
            if (dt.threads > limit) return false;
            ++thread_dim_index;
        }
    }
    return fits_grid(t, extents, spec);
}

std::vector<GpuTiling> candidate_tilings(const std::vector<int64_t> &extents, const costmodel::GpuSpec &spec,
                                         const TilingOptions &options, std::mt19937_64 &rng) {
    const int n = int(extents.size());
    const int64_t step = options.coarse ? 4 : 2;
    std::vector<std::vector<int64_t>> thread_choices(n), serial_choices(n);
    for (int d = 0; d < n; ++d) {
        const int64_t cap = next_pow2(extents[d]);
        for (int64_t t : powers(std::min<int64_t>(cap, 1024), step)) {
            // The innermost dimension carries the warp: give it ≥ 16 threads
            // when it is long enough, for coalesced accesses.
            if (d == 0 && cap >= 16 && t < 16) continue;
            thread_choices[d].push_back(t);
        }
        for (int64_t s : powers(std::min<int64_t>(cap, options.max_serial_per_thread), step == 4 ? 4 : 2)) {
            serial_choices[d].push_back(s);
        }
    }
    // Enumerate the product space; prune as we go.
    std::map<std::string, std::vector<GpuTiling>> groups;
    GpuTiling current;
    current.dims.resize(n);
    std::function<void(int)> enumerate = [&](int d) {
        if (d == n) {
            if (!is_legal(current, extents, spec, options)) return;
            const int64_t threads = current.threads_per_block();
            if (threads < 32 && current.blocks(extents) > 1 &&
                std::any_of(extents.begin(), extents.end(), [](int64_t e) { return e >= 32; })) {
                return;  // less than a warp per block wastes lanes when there is room for more
            }
            for (bool compact : {false, true}) {
                current.compact = compact;
                if (compact && !current.layout_matters()) continue;
                std::ostringstream group;
                group << int(std::log2(double(threads))) << "/" << current.thread_dims() << "/"
                      << int(std::log2(double(current.serial_per_thread()))) << (compact ? "c" : "");
                groups[group.str()].push_back(current);
            }
            current.compact = false;
            return;
        }
        for (int64_t t : thread_choices[d]) {
            for (int64_t s : serial_choices[d]) {
                current.dims[d] = DimTiling{t, s};
                if (current.dims[d].tile() > next_pow2(extents[d])) continue;
                enumerate(d + 1);
            }
        }
    };
    enumerate(0);

    std::vector<GpuTiling> out;
    for (auto &[key, members] : groups) {
        if (int(members.size()) <= options.samples_per_group) {
            out.insert(out.end(), members.begin(), members.end());
            continue;
        }
        // Partial Fisher-Yates: the first k of a seeded shuffle.
        for (int i = 0; i < options.samples_per_group; ++i) {
            std::uniform_int_distribution<size_t> pick(i, members.size() - 1);
            std::swap(members[i], members[pick(rng)]);
            out.push_back(members[i]);
        }
    }
    if (out.empty()) out.push_back(default_tiling(extents, spec));
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<GpuTiling> neighbour_tilings(const GpuTiling &center, const std::vector<int64_t> &extents,
                                         const costmodel::GpuSpec &spec, const TilingOptions &options) {
    std::vector<GpuTiling> out;
    auto consider = [&](const GpuTiling &t) {
        if (is_legal(t, extents, spec, options) && std::find(out.begin(), out.end(), t) == out.end()) {
            out.push_back(t);
        }
    };
    consider(center);
    if (center.layout_matters()) {
        GpuTiling flipped = center;
        flipped.compact = !center.compact;
        consider(flipped);
    }
    for (size_t d = 0; d < center.dims.size(); ++d) {
        for (int which = 0; which < 2; ++which) {
            for (int dir = 0; dir < 2; ++dir) {
                GpuTiling t = center;
                int64_t &v = which == 0 ? t.dims[d].threads : t.dims[d].serial;
                if (dir == 0) v *= 2;
                else if (v > 1) v /= 2;
                else continue;
                consider(t);
            }
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

GpuTiling default_tiling(const std::vector<int64_t> &extents, const costmodel::GpuSpec &spec) {
    GpuTiling t;
    t.dims.resize(extents.size());
    int64_t budget = std::min<int64_t>(256, spec.max_threads_per_block);
    int thread_dims = 0;
    for (size_t d = 0; d < extents.size() && thread_dims < 3 && budget > 1; ++d) {
        const int64_t want = d == 0 ? std::min<int64_t>(32, budget) : budget;
        const int64_t limit = thread_dims < 2 ? spec.max_block_dim_xy : spec.max_block_dim_z;
        const int64_t threads = std::min({next_pow2(extents[d]), want, budget, limit});
        if (threads <= 1) continue;
        t.dims[d].threads = threads;
        budget /= threads;
        ++thread_dims;
    }
    // More blocks than even a fused x grid takes (2^31 - 1): longer serial
    // runs along the outermost loop until it fits.
    for (int round = 0; round < 64 && !fits_grid(t, extents, spec) && !extents.empty(); ++round) {
        t.dims.back().serial *= 2;
    }
    return t;
}

}  // namespace strata::autoscheduler
