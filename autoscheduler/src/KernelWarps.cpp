//===- KernelWarps.cpp - one warp of a kernel, simulated -------------------===//
//
// A lane's first loop point depends on its stage's role: the kernel's own
// stage starts at the interior block's corner plus the lane's thread
// coordinates (times S when threads are compact); a per-block member's
// threads spread over its block region's pure loops (MemberThreads.h); a per-thread member
// starts at the corner of the lane's own per-thread region. Each lane's
// load address is the access chain (through inlined Funcs) evaluated at
// that point, laid out densely over the callee's storage: its root region
// in global memory, its per-block extents in shared memory.
//===----------------------------------------------------------------------===//
#include "KernelWarps.h"

#include "Errors.h"
#include "MemberThreads.h"
#include "WarpAccess.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <string>

namespace strata::autoscheduler {

namespace {

// The loop point at which access `a` enters the pure definition it calls,
// given the callee index it reaches (`index`, one per dimension): each pure
// loop takes its dimension's index, any other loop `none`. A chain is
// followed through this both by value (evaluate_chain) and by form
// (index_text). `point` has room for the callee's loops.
template <typename T>
void callee_point(const Access &a, const std::vector<T> &index, const T &none, T *point) {
    const Stage &next = *a.callee->stages[0];
    for (size_t i = 0; i < next.loops.size(); ++i) {
        const int dim = next.loops[i].pure_dim;
        point[i] = dim >= 0 && dim < int(index.size()) ? index[dim] : none;
    }
}

// Evaluates a chain of accesses at a point of the first caller's loops;
// false at a data-dependent index, whose caller's point and depth in the
// chain then go to `origin` (element_or_origin()), when given.
bool evaluate_chain(const std::vector<const Access *> &chain, const std::vector<int64_t> &start,
                    std::vector<int64_t> &index, std::vector<int64_t> *origin = nullptr) {
    // The search evaluates chains millions of times, on several threads: a
    // callee's point lives on the stack (a thread_local vector cost a TLS
    // lookup per call in this plugin, 10% of the evaluation).
    constexpr size_t kStackLoops = 16;
    int64_t on_stack[kStackLoops];
    std::vector<int64_t> on_heap;
    const int64_t *point = start.data();
    for (size_t c = 0; c < chain.size(); ++c) {
        const Access &a = *chain[c];
        index.resize(a.index.size());
        for (size_t d = 0; d < a.index.size(); ++d) {
            if (!a.index[d]) {
                std::fill(index.begin(), index.end(), 0);
                if (origin) {
                    const size_t loops = c == 0 ? start.size() : chain[c - 1]->callee->stages[0]->loops.size();
                    origin->assign(point, point + loops);
                    origin->push_back(int64_t(c));
                }
                return false;
            }
            index[d] = a.index[d]->evaluate(point);
        }
        if (c + 1 < chain.size()) {
            const size_t loops = a.callee->stages[0]->loops.size();
            int64_t *next = on_stack;
            if (loops > kStackLoops) {
                on_heap.resize(loops);
                next = on_heap.data();
            }
            callee_point(a, index, int64_t(0), next);
            point = next;
        }
    }
    return true;
}

// Byte address of `index` in a buffer laid out densely over `region`.
int64_t byte_address(const std::vector<int64_t> &index, const Region &region, int bytes) {
    int64_t offset = 0, stride = 1;
    for (size_t d = 0; d < region.size() && d < index.size(); ++d) {
        offset += (index[d] - region[d].min) * stride;
        stride *= std::max<int64_t>(region[d].extent, 1);
    }
    return offset * bytes;
}

// Sectors newly reached per step from byte address `from` to `to`, at most one.
double new_sectors(int64_t from, int64_t to, int sector_bytes) {
    return std::min(1.0, double(std::abs(to - from)) / double(std::max(sector_bytes, 1)));
}

// The elements `leaf` loads at `point` and one step of loop `loop` later;
// false when an index is data-dependent.
bool elements_at_step(const LeafAccess &leaf, const std::vector<int64_t> &point, size_t loop,
                      std::vector<int64_t> &here_index, std::vector<int64_t> &next_index) {
    std::vector<int64_t> next = point;
    ++next.at(loop);
    return evaluate_chain(leaf.chain, point, here_index) && evaluate_chain(leaf.chain, next, next_index);
}

}  // namespace

double leaf_new_sector_fraction(const LeafAccess &leaf, const std::vector<int64_t> &point, size_t loop,
                                int sector_bytes) {
    std::vector<int64_t> here_index, next_index;
    if (!elements_at_step(leaf, point, loop, here_index, next_index)) return 1;
    const Region &layout = leaf.callee->root_region;
    return new_sectors(byte_address(here_index, layout, leaf.bytes()), byte_address(next_index, layout, leaf.bytes()),
                       sector_bytes);
}

double store_new_sector_fraction(const Stage &s, const std::vector<int64_t> &point, size_t loop, int sector_bytes) {
    std::vector<int64_t> next = point, here_index, next_index;
    ++next.at(loop);
    for (const std::optional<CompiledExpr> &index : s.store_index) {
        if (!index) return 1;
        here_index.push_back(index->evaluate(point.data()));
        next_index.push_back(index->evaluate(next.data()));
    }
    const Region &layout = s.node->root_region;
    const int bytes = s.node->bytes_per_point;
    return new_sectors(byte_address(here_index, layout, bytes), byte_address(next_index, layout, bytes), sector_bytes);
}

bool moves_with(const LeafAccess &leaf, size_t loop) {
    // The loops of each level's calling stage that follow `loop`: at the
    // first, `loop` alone; at an inlined Func's, the pure loops whose
    // dimension the level above indexes by something that follows it.
    std::vector<bool> following(loop + 1, false);
    following[loop] = true;
    for (size_t c = 0; c < leaf.chain.size(); ++c) {
        const Access &a = *leaf.chain[c];
        std::vector<bool> dims(a.index.size(), false);
        for (size_t d = 0; d < a.index.size(); ++d) {
            if (!a.index[d]) return true;
            for (size_t k = 0; k < following.size() && !dims[d]; ++k) {
                dims[d] = following[k] && a.index[d]->uses_symbol(int(k));
            }
        }
        if (c + 1 == leaf.chain.size()) return std::find(dims.begin(), dims.end(), true) != dims.end();
        const Stage &next = *a.callee->stages[0];
        following.assign(next.loops.size(), false);
        for (size_t i = 0; i < next.loops.size(); ++i) {
            const int dim = next.loops[i].pure_dim;
            following[i] = dim >= 0 && dim < int(dims.size()) && dims[size_t(dim)];
        }
    }
    return false;
}

bool shares_between_copies(const LeafAccess &leaf, const std::vector<int64_t> &point, size_t loop,
                           bool one_load_per_statement) {
    // Four copies tell a constant step from a division's alternating one.
    constexpr int kCopies = 4;
    std::vector<std::vector<int64_t>> elements(kCopies);
    std::vector<int64_t> at = point;
    for (int k = 0; k < kCopies; ++k, ++at.at(loop)) {
        if (!evaluate_chain(leaf.chain, at, elements[k])) return false;
    }
    for (size_t d = 0; d < elements[0].size(); ++d) {
        const int64_t step = elements[1][d] - elements[0][d];
        if (step != 0 && d > 0 && !one_load_per_statement) return false;
        for (int k = 2; k < kCopies; ++k) {
            if (elements[k][d] - elements[k - 1][d] != step) return false;
        }
    }
    return true;
}

std::optional<std::vector<int64_t>> loaded_elements(const LeafAccess &leaf,
                                                    const std::vector<std::vector<int64_t>> &points) {
    std::vector<int64_t> all, index;
    for (const std::vector<int64_t> &point : points) {
        if (!evaluate_chain(leaf.chain, point, index)) return std::nullopt;
        all.insert(all.end(), index.begin(), index.end());
    }
    return all;
}

bool element_at(const LeafAccess &leaf, const std::vector<int64_t> &point, std::vector<int64_t> &element) {
    return evaluate_chain(leaf.chain, point, element);
}

bool element_or_origin(const LeafAccess &leaf, const std::vector<int64_t> &point, std::vector<int64_t> &element) {
    // The origin overwrites the element once the chain stops, in place.
    return evaluate_chain(leaf.chain, point, element, &element);
}

namespace {

// index_text() with `symbols` the forms of the calling stage's loops (an
// atom of its own for each loop past them).
IndexText text_over(const LeafAccess &leaf, std::vector<IndexForm> symbols) {
    std::vector<IndexForm> index;
    IndexText out;
    for (size_t c = 0; c < leaf.chain.size(); ++c) {
        const Access &a = *leaf.chain[c];
        index.clear();
        for (size_t d = 0; d < a.index.size(); ++d) {
            if (a.index[d]) {
                index.push_back(a.index[d]->canonical(symbols));
            } else {
                // Data-dependent: its text over this level's loops.
                uint64_t id = std::hash<std::string>()(d < a.opaque_index.size() ? a.opaque_index[d] : std::string());
                for (const IndexForm &s : symbols) id = hash_combine(id, s.hash());
                index.push_back(IndexForm::opaque(id, {}, false));
            }
        }
        if (c + 1 < leaf.chain.size()) {
            symbols.resize(a.callee->stages[0]->loops.size());
            callee_point(a, index, IndexForm::number(0), symbols.data());
        }
    }
    out.key = hash_combine(0x74657874, uint64_t(leaf.callee ? leaf.callee->id : -1));
    for (const IndexForm &f : index) {
        out.key = hash_combine(out.key, f.hash());
        out.affine &= f.affine();
    }
    return out;
}

}  // namespace

IndexText index_text(const LeafAccess &leaf) { return text_over(leaf, {}); }

IndexText index_text_at(const LeafAccess &leaf, const std::vector<size_t> &fixed, const std::vector<int64_t> &at) {
    std::vector<IndexForm> symbols;
    symbols.reserve(at.size());
    for (size_t i = 0; i < at.size(); ++i) symbols.push_back(CompiledExpr::symbol_form(int(i)));
    for (size_t i : fixed) symbols.at(i) = IndexForm::number(at.at(i));
    return text_over(leaf, std::move(symbols));
}

size_t IndexTexts::ChainHash::operator()(const std::vector<const Access *> &chain) const {
    uint64_t h = 0x636861696e;
    for (const Access *a : chain) h = hash_combine(h, uint64_t(reinterpret_cast<uintptr_t>(a)));
    return size_t(h);
}

IndexText IndexTexts::of(const LeafAccess &leaf) {
    {
        std::shared_lock<std::shared_mutex> reading(mutex_);
        if (auto it = texts_.find(leaf.chain); it != texts_.end()) return it->second;
    }
    const IndexText text = index_text(leaf);
    std::unique_lock<std::shared_mutex> writing(mutex_);
    texts_.emplace(leaf.chain, text);
    return text;
}

KernelWarps::KernelWarps(const KernelGeometry &geometry, const NodeMap<Role> &roles,
                         const costmodel::GpuSpec &spec)
    : geometry_(geometry), roles_(roles), spec_(spec) {
    lanes_ = int(std::min<int64_t>(spec.warp_size, geometry.tiling().threads_per_block()));
}

// Lane coordinates along the kernel's thread dimensions.
std::vector<int64_t> KernelWarps::lane_coords(int lane) const {
    const auto &dims = geometry_.thread_dims();
    std::vector<int64_t> c(dims.size(), 0);
    int64_t rest = lane;
    for (size_t k = 0; k < dims.size(); ++k) {
        c[k] = rest % dims[k].second;
        rest /= dims[k].second;
    }
    return c;
}

// How far apart consecutive threads start along kernel loop `loop`: a
// compact thread owns its serial points, so the next one starts S later.
int64_t KernelWarps::thread_stride(int loop) const {
    const GpuTiling &tiling = geometry_.tiling();
    if (!tiling.compact) return 1;
    size_t pure = 0;
    for (int i = 0; i < loop; ++i) pure += !geometry_.stage().loops[i].is_rvar;
    return pure < tiling.dims.size() ? tiling.dims[pure].serial : 1;
}

// The loop point of `s` that lane `lane` executes first.
std::vector<int64_t> KernelWarps::lane_point(const Stage &s, Role r, int lane) {
    const std::vector<int64_t> coords = lane_coords(lane);
    const auto &dims = geometry_.thread_dims();
    if (r == Role::Kernel) {
        std::vector<int64_t> p(s.loops.size());
        for (size_t i = 0; i < s.loops.size(); ++i) p[i] = geometry_.block_box()[i].min;
        for (size_t k = 0; k < dims.size(); ++k) p[dims[k].first] += coords[k] * thread_stride(dims[k].first);
        return p;
    }
    if (block_level(r)) fail("internal: KernelWarps::lane_point of a block member (see block_member_lane_points)");
    // Thread members: the lane's own per-thread region, shifted with its thread.
    std::vector<Span> box = geometry_.thread_box();
    for (size_t k = 0; k < dims.size(); ++k) box[dims[k].first].min += coords[k] * thread_stride(dims[k].first);
    auto regions = lane_regions_.find(lane);
    if (regions == lane_regions_.end()) regions = lane_regions_.emplace(lane, geometry_.regions_for(box)).first;
    const std::vector<Span> b = s.loop_bounds(*regions->second[s.node->id]);
    std::vector<int64_t> p(s.loops.size());
    for (size_t i = 0; i < s.loops.size(); ++i) p[i] = b[i].min;
    return p;
}

// A block member's lanes: the kernel's thread coordinates spread over the
// member's block region as the writer splits its loops (MemberThreads.h).
std::vector<std::vector<int64_t>> KernelWarps::block_member_lane_points(const Stage &s) const {
    const std::vector<Span> b = s.loop_bounds(*geometry_.member_region(s.node->id));
    const std::vector<int64_t> loop_threads = member_loop_threads(s, b, geometry_.tiling().thread_extents());
    std::vector<std::vector<int64_t>> points;
    for (int lane = 0; lane < lanes_; ++lane) {
        const std::vector<int64_t> coords = lane_coords(lane);
        std::vector<int64_t> p(s.loops.size());
        size_t k = 0;
        for (size_t i = 0; i < s.loops.size(); ++i) {
            p[i] = b[i].min;
            if (loop_threads[i] > 1 && k < coords.size()) p[i] += coords[k++];
        }
        points.push_back(std::move(p));
    }
    return points;
}

const std::vector<std::vector<int64_t>> &KernelWarps::lane_points(const Stage &s, Role r) {
    auto [it, inserted] = lane_points_.try_emplace({&s, r});
    if (inserted && block_level(r)) {
        it->second = block_member_lane_points(s);
    } else if (inserted) {
        for (int lane = 0; lane < lanes_; ++lane) it->second.push_back(lane_point(s, r, lane));
    }
    return it->second;
}

WarpCost KernelWarps::load(const Stage &s, Role r, const LeafAccess &leaf) {
    WarpCost cost;
    const Role callee_role = roles_[leaf.callee->id];
    if (callee_role == Role::Thread && geometry_.heap_member(leaf.callee->id)) {
        // A slot per thread, the threads' slots side by side (Halide
        // indexes the buffer by the element, then the thread).
        cost.where = WarpCost::Where::Global;
        cost.sectors = int(ceil_div(int64_t(lanes_) * leaf.bytes(), spec_.global_memory_sector_bytes));
        return cost;
    }
    if (callee_role == Role::Thread) {
        cost.where = WarpCost::Where::Registers;
        return cost;
    }
    const bool shared = block_level(callee_role);
    cost.where = shared ? WarpCost::Where::Shared : WarpCost::Where::Global;
    const Region &layout = shared ? geometry_.storage_extents(leaf.callee->id) : leaf.callee->root_region;
    std::vector<int64_t> &addresses = addresses_, &index = index_;
    addresses.clear();
    const std::vector<std::vector<int64_t>> &points = lane_points(s, r);
    for (int lane = 0; lane < lanes_; ++lane) {
        if (!evaluate_chain(leaf.chain, points[lane], index)) {
            // Data-dependent: assume every lane touches its own sector.
            cost.sectors = std::min<int64_t>(lanes_, ceil_div(int64_t(leaf.bytes()) *
                                                                  std::max<int64_t>(leaf.callee->root_points(), 1),
                                                              spec_.global_memory_sector_bytes));
            cost.ways = std::min(lanes_, 8);
            return cost;
        }
        addresses.push_back(byte_address(index, layout, leaf.bytes()));
    }
    cost.sectors = global_sectors(addresses, leaf.bytes(), spec_.global_memory_sector_bytes);
    cost.ways = shared_bank_ways(addresses, spec_.shared_memory_banks, spec_.shared_memory_bank_bytes);
    return cost;
}

int KernelWarps::store_sectors(const Stage &s, Role r) {
    if (s.data_dependent_store) return lanes_;
    std::vector<int64_t> addresses;
    const std::vector<std::vector<int64_t>> &points = lane_points(s, r);
    for (int lane = 0; lane < lanes_; ++lane) {
        const std::vector<int64_t> &p = points[lane];
        std::vector<int64_t> index(s.node->dimensions, 0);
        for (size_t i = 0; i < s.loops.size(); ++i) {
            if (s.loops[i].pure_dim >= 0) index[s.loops[i].pure_dim] = p[i];
        }
        const Region &layout = block_level(r) ? geometry_.storage_extents(s.node->id) : s.node->root_region;
        addresses.push_back(byte_address(index, layout, s.node->bytes_per_point));
    }
    return global_sectors(addresses, s.node->bytes_per_point, spec_.global_memory_sector_bytes);
}

}  // namespace strata::autoscheduler
