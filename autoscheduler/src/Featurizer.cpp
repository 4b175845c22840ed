//===- Featurizer.cpp - per-stage GPU features of a schedule ---------------===//
//
// For each kernel (Root Func F, stage s):
//  1. Scope and regions: KernelGeometry — F's stage s, its Block/Thread
//     members and the Funcs inlined into them, with each one's region per
//     launch, per interior block and per interior thread, in the layout the
//     writer emits; everything else the kernel reads is in global memory.
//  3. Work: points per stage, arithmetic with inlined producers folded in.
//  4. Traffic: for each load (leaf of the inlined call chains) the lanes of
//     one warp are simulated — global sectors, shared-memory bank ways, or
//     registers — and scaled by the warp instructions the stage executes.
//     DRAM sees each global producer's launch-wide footprint once, plus
//     re-reads when the launch's working set exceeds L2.
//  5. Launch shape: blocks, threads, registers and shared memory per block,
//     occupancy and waves from the GPU spec.
//===----------------------------------------------------------------------===//
#include "Featurizer.h"

#include "Errors.h"
#include "KernelGeometry.h"
#include "Occupancy.h"
#include "WarpAccess.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

namespace strata::autoscheduler {

using costmodel::Feature;
using costmodel::StageFeatures;
using costmodel::index;

namespace {

// A load as a stage finally performs it: through zero or more inlined Funcs
// (all but the last access of the chain) into a stored Node.
struct LeafAccess {
    const Node *callee = nullptr;
    double count = 1;
    std::vector<const Access *> chain;
};

// More distinct call chains than this are merged per callee (a deep chain of
// inlined stencils has exponentially many; they share one access pattern).
constexpr size_t kMaxLeafAccesses = 64;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t loop_points(const std::vector<Span> &bounds) {
    int64_t p = 1;
    for (const Span &s : bounds) p *= std::max<int64_t>(s.extent, 0);
    return p;
}

// Evaluates a chain of accesses at a point of the first caller's loops.
bool evaluate_chain(const std::vector<const Access *> &chain, std::vector<int64_t> point,
                    std::vector<int64_t> &index) {
    for (size_t c = 0; c < chain.size(); ++c) {
        const Access &a = *chain[c];
        index.assign(a.index.size(), 0);
        for (size_t d = 0; d < a.index.size(); ++d) {
            if (!a.index[d]) return false;
            index[d] = a.index[d]->evaluate(point.data());
        }
        if (c + 1 < chain.size()) {
            const Stage &next = *a.callee->stages[0];
            point.assign(next.loops.size(), 0);
            for (size_t i = 0; i < next.loops.size(); ++i) {
                const int dim = next.loops[i].pure_dim;
                point[i] = dim >= 0 && dim < int(index.size()) ? index[dim] : 0;
            }
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

}  // namespace

Featurizer::Featurizer(const FunctionDAG &dag, const costmodel::GpuSpec &spec, bool memoize)
    : dag_(dag), spec_(spec), memoize_(memoize) {}

uint64_t Featurizer::kernel_key(const Schedule &schedule, const KernelScope &scope) const {
    uint64_t h = hash_combine(uint64_t(scope.func), uint64_t(scope.stage));
    h = hash_combine(h, schedule.choice(scope.func).stages[scope.stage].tiling.hash());
    for (int id : scope.members) h = hash_combine(h, uint64_t(id) * 8 + uint64_t(scope.role[id]));
    return h;
}

const KernelFeatures &Featurizer::kernel(const Schedule &schedule, int func, int stage, uint64_t *key_out) {
    const KernelScope scope = KernelScope::collect(dag_, schedule, func, stage);
    const uint64_t key = kernel_key(schedule, scope);
    if (key_out) *key_out = key;
    if (memoize_) {
        auto it = cache_.find(key);
        if (it != cache_.end()) {
            ++stats_.kernel_cache_hits;
            return it->second;
        }
    }
    ++stats_.kernels_featurized;
    const Node &node = *dag_.nodes()[func];
    KernelFeatures features = node.is_extern ? compute_extern_kernel(node) : compute_kernel(schedule, scope);
    if (!memoize_) cache_.clear();
    return cache_[key] = std::move(features);
}

ScheduleFeaturization Featurizer::featurize(const Schedule &schedule) {
    ScheduleFeaturization out;
    int kernel_index = 0;
    for (const Node *node : dag_.funcs()) {
        const FuncChoice &c = schedule.choice(node->id);
        if (c.placement != Placement::Root) continue;
        for (const auto &st : node->stages) {
            const KernelFeatures &k = kernel(schedule, node->id, st->index);
            for (StageFeatures f : k.stages) {
                f.kernel = kernel_index;
                out.stages.push_back(std::move(f));
            }
            if (!k.legal && out.legal) {
                out.legal = false;
                out.why_illegal = k.why_illegal;
            }
            ++kernel_index;
        }
    }
    out.kernels = kernel_index;
    return out;
}

namespace {

// Everything computed about one kernel while featurizing it.
class KernelAnalysis {
public:
    KernelAnalysis(const FunctionDAG &dag, const costmodel::GpuSpec &spec, const Schedule &schedule,
                   const KernelScope &scope)
        : dag_(dag), spec_(spec), geometry_(dag, schedule, scope), role_(scope.role), funcs_(scope.members),
          node_(geometry_.node()), stage_(geometry_.stage()), tiling_(geometry_.tiling()),
          block_regions_(geometry_.block_regions()), thread_regions_(geometry_.thread_regions()),
          whole_regions_(geometry_.whole_regions()) {
        threads_per_block_ = tiling_.threads_per_block();
        lanes_ = int(std::min<int64_t>(spec.warp_size, threads_per_block_));
        blocks_ = tiling_.blocks(geometry_.pure_extents());
        active_fraction_ = tiling_.active_fraction(geometry_.pure_extents());
        serial_per_thread_ = tiling_.serial_per_thread();
    }

    KernelFeatures compute();

private:
    // The leaf loads of a stage, looking through inlined Funcs.
    const std::vector<LeafAccess> &leaves(const Stage &s) {
        auto it = leaves_.find(&s);
        if (it != leaves_.end()) return it->second;
        std::vector<LeafAccess> out;
        for (const Access &a : s.accesses) {
            if (role_[a.callee->id] == Role::Inlined && a.callee != &node_) {
                for (const LeafAccess &inner : leaves(*a.callee->stages[0])) {
                    LeafAccess l = inner;
                    l.count *= a.count;
                    l.chain.insert(l.chain.begin(), &a);
                    out.push_back(std::move(l));
                }
            } else {
                out.push_back(LeafAccess{a.callee, double(a.count), {&a}});
            }
        }
        if (out.size() > kMaxLeafAccesses) {
            std::vector<LeafAccess> merged;
            for (const LeafAccess &l : out) {
                auto m = std::find_if(merged.begin(), merged.end(),
                                      [&](const LeafAccess &x) { return x.callee == l.callee; });
                if (m == merged.end()) merged.push_back(l);
                else m->count += l.count;
            }
            out = std::move(merged);
        }
        return leaves_[&s] = std::move(out);
    }

    // Arithmetic of one point of `s`, with inlined producers folded in.
    const OpCounts &effective_ops(const Stage &s) {
        auto it = ops_.find(&s);
        if (it != ops_.end()) return it->second;
        OpCounts total = s.ops;
        for (const Edge *e : s.producers) {
            if (role_[e->producer->id] == Role::Inlined) {
                total += effective_ops(*e->producer->stages[0]).scaled(e->calls);
            }
        }
        return ops_[&s] = total;
    }

    double inlined_calls(const Stage &s) {
        double calls = 0;
        for (const Edge *e : s.producers) {
            if (role_[e->producer->id] == Role::Inlined) {
                calls += e->calls * (1 + inlined_calls(*e->producer->stages[0]));
            }
        }
        return calls;
    }

    // Lane coordinates along the kernel's thread dimensions.
    std::vector<int64_t> lane_coords(int lane) const {
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
    int64_t thread_stride(int loop) const {
        if (!tiling_.compact) return 1;
        size_t pure = 0;
        for (int i = 0; i < loop; ++i) pure += !stage_.loops[i].is_rvar;
        return pure < tiling_.dims.size() ? tiling_.dims[pure].serial : 1;
    }

    // The loop point of `s` that lane `lane` executes first.
    std::vector<int64_t> lane_point(const Stage &s, Role r, int lane) {
        const std::vector<int64_t> coords = lane_coords(lane);
        const auto &dims = geometry_.thread_dims();
        if (r == Role::Kernel) {
            std::vector<int64_t> p(s.loops.size());
            for (size_t i = 0; i < s.loops.size(); ++i) p[i] = geometry_.block_box()[i].min;
            for (size_t k = 0; k < dims.size(); ++k) p[dims[k].first] += coords[k] * thread_stride(dims[k].first);
            return p;
        }
        if (r == Role::Block) {
            const std::vector<Span> b = s.loop_bounds(*block_regions_[s.node->id]);
            std::vector<int64_t> p(s.loops.size());
            size_t k = 0;
            for (size_t i = 0; i < s.loops.size(); ++i) {
                p[i] = b[i].min;
                if (!s.loops[i].is_rvar && k < coords.size()) p[i] += coords[k++];
            }
            return p;
        }
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

    // Memory behaviour of one leaf access from stage `s` (role `r`), per warp instruction.
    struct WarpCost {
        enum class Where { Global, Shared, Registers } where = Where::Global;
        int sectors = 0;  // global
        int ways = 1;     // shared
    };
    WarpCost simulate(const Stage &s, Role r, const LeafAccess &leaf) {
        WarpCost cost;
        const Role callee_role = role_[leaf.callee->id];
        if (callee_role == Role::Thread) {
            cost.where = WarpCost::Where::Registers;
            return cost;
        }
        const bool shared = callee_role == Role::Block;
        cost.where = shared ? WarpCost::Where::Shared : WarpCost::Where::Global;
        const Region &layout = shared ? geometry_.storage_extents(leaf.callee->id) : leaf.callee->root_region;
        std::vector<int64_t> addresses;
        std::vector<int64_t> index;
        for (int lane = 0; lane < lanes_; ++lane) {
            if (!evaluate_chain(leaf.chain, lane_point(s, r, lane), index)) {
                // Data-dependent: assume every lane touches its own sector.
                cost.sectors = std::min<int64_t>(lanes_, ceil_div(leaf.callee->bytes_per_point *
                                                                      std::max<int64_t>(leaf.callee->root_points(), 1),
                                                                  spec_.global_memory_sector_bytes));
                cost.ways = std::min(lanes_, 8);
                return cost;
            }
            addresses.push_back(byte_address(index, layout, leaf.callee->bytes_per_point));
        }
        cost.sectors = global_sectors(addresses, leaf.callee->bytes_per_point, spec_.global_memory_sector_bytes);
        cost.ways = shared_bank_ways(addresses, spec_.shared_memory_banks, spec_.shared_memory_bank_bytes);
        return cost;
    }

    // Sectors of one warp's store of stage `s` (pure left-hand side) to its own Func.
    int store_sectors(const Stage &s, Role r) {
        if (s.data_dependent_store) return lanes_;
        std::vector<int64_t> addresses;
        for (int lane = 0; lane < lanes_; ++lane) {
            const std::vector<int64_t> p = lane_point(s, r, lane);
            std::vector<int64_t> index(s.node->dimensions, 0);
            for (size_t i = 0; i < s.loops.size(); ++i) {
                if (s.loops[i].pure_dim >= 0) index[s.loops[i].pure_dim] = p[i];
            }
            const Region &layout = r == Role::Block ? geometry_.storage_extents(s.node->id) : s.node->root_region;
            addresses.push_back(byte_address(index, layout, s.node->bytes_per_point));
        }
        return global_sectors(addresses, s.node->bytes_per_point, spec_.global_memory_sector_bytes);
    }

    const FunctionDAG &dag_;
    const costmodel::GpuSpec &spec_;
    const KernelGeometry geometry_;
    const std::vector<Role> &role_;
    const std::vector<int> &funcs_;
    const Node &node_;
    const Stage &stage_;
    const GpuTiling &tiling_;
    const std::vector<std::optional<Region>> &block_regions_, &thread_regions_, &whole_regions_;

    int64_t threads_per_block_ = 1;
    int lanes_ = 1;
    int64_t blocks_ = 1;
    double active_fraction_ = 1;
    int64_t serial_per_thread_ = 1;
    std::map<int, std::vector<std::optional<Region>>> lane_regions_;
    std::map<const Stage *, std::vector<LeafAccess>> leaves_;
    std::map<const Stage *, OpCounts> ops_;
};

KernelFeatures KernelAnalysis::compute() {
    KernelFeatures out;

    // The kernel's stages: the root stage, then members' stages (producers last).
    struct Entry {
        const Stage *stage;
        Role role;
        double points;  // over the whole launch
    };
    std::vector<Entry> entries;
    entries.push_back({&stage_, Role::Kernel, double(loop_points(geometry_.whole_box()))});
    const double thread_instances = geometry_.thread_instances();
    int block_member_stages = 0;
    const int64_t shared_bytes = geometry_.shared_bytes_per_block();
    // Points a member stage computes over the launch: per class of equal
    // block (or thread) tiles, partial edge tiles included, its region there.
    const std::vector<KernelGeometry::TileClass> block_classes = geometry_.block_classes();
    const std::vector<KernelGeometry::TileClass> thread_classes = geometry_.thread_classes();
    std::map<std::pair<const KernelGeometry::TileClass *, int>, std::optional<Region>> class_regions;
    auto member_points = [&](const Stage &st, const std::vector<KernelGeometry::TileClass> &classes) {
        double total = 0;
        for (const KernelGeometry::TileClass &c : classes) {
            auto key = std::make_pair(&c, st.node->id);
            if (!class_regions.count(key)) {
                const auto regions = geometry_.regions_for(c.box);
                for (int id : funcs_) class_regions[{&c, id}] = regions[id];
            }
            const std::optional<Region> &r = class_regions[key];
            if (r) total += c.count * double(loop_points(st.loop_bounds(*r)));
        }
        return total;
    };
    double thread_member_values = 0;
    for (int id : funcs_) {
        const Node &m = *dag_.nodes()[id];
        if (role_[id] == Role::Block) {
            for (const auto &st : m.stages) {
                entries.push_back({st.get(), Role::Block, member_points(*st, block_classes)});
                ++block_member_stages;
            }
        } else if (role_[id] == Role::Thread) {
            thread_member_values += geometry_.thread_member_registers(id);
            for (const auto &st : m.stages) entries.push_back({st.get(), Role::Thread, member_points(*st, thread_classes)});
        }
    }

    // Registers: a base for addressing and loop state, the per-thread tile of
    // outputs or accumulators, and thread members' values.
    double rvar_points = 1;
    for (size_t i = 0; i < stage_.loops.size(); ++i) {
        if (stage_.loops[i].is_rvar) rvar_points *= double(geometry_.whole_box()[i].extent);
    }
    const double registers_estimate =
        24 + 2.0 * double(serial_per_thread_) + thread_member_values + (stage_.is_update() ? 4 : 0);
    const int registers = int(std::min<double>(registers_estimate, spec_.max_registers_per_thread));
    // Past the register file a thread spills to local memory, which the
    // model does not price: such a kernel is not a candidate.
    if (registers_estimate > spec_.max_registers_per_thread) {
        out.legal = false;
        out.why_illegal = "per-thread state of kernel " + stage_.name + " needs ~" +
                          std::to_string(int(registers_estimate)) + " registers";
    }
    if (shared_bytes > spec_.shared_memory_per_block) {
        out.legal = false;
        out.why_illegal = "kernel " + stage_.name + " needs " + std::to_string(shared_bytes) +
                          " bytes of shared memory per block";
    }
    // The launch itself: threads per block and grid within the GPU's limits.
    if (threads_per_block_ > spec_.max_threads_per_block) {
        out.legal = false;
        out.why_illegal = "kernel " + stage_.name + " launches " + std::to_string(threads_per_block_) +
                          " threads per block";
    }
    if (!fits_grid(tiling_, geometry_.pure_extents(), spec_)) {
        const std::array<int64_t, 3> g = tiling_.grid(geometry_.pure_extents(), spec_);
        out.legal = false;
        out.why_illegal = "kernel " + stage_.name + " launches a grid of " + std::to_string(g[0]) + " x " +
                          std::to_string(g[1]) + " x " + std::to_string(g[2]) + " blocks";
    }
    const Occupancy occ = occupancy(spec_, threads_per_block_, registers, shared_bytes);
    if (occ.blocks_per_sm == 0 && out.legal) {
        out.legal = false;
        out.why_illegal = "kernel " + stage_.name + " cannot be resident on an SM";
    }
    const double w = waves(spec_, occ, blocks_);

    // Launch-wide unique bytes of each global producer (for DRAM), and the
    // total, to decide whether re-reads across blocks hit L2.
    double unique_total = 0;
    std::map<int, double> unique_bytes;
    for (size_t id = 0; id < whole_regions_.size(); ++id) {
        if (!whole_regions_[id] || role_[id] != Role::None || int(id) == node_.id) continue;
        const double bytes = double(points(*whole_regions_[id])) * dag_.nodes()[id]->bytes_per_point;
        unique_bytes[int(id)] = bytes;
        unique_total += bytes;
    }
    const double own_bytes = double(node_.root_points()) * node_.bytes_per_point;
    unique_total += own_bytes;
    const double l2_miss = unique_total <= double(spec_.l2_cache_bytes)
                               ? 0.0
                               : std::min(1.0, (unique_total - double(spec_.l2_cache_bytes)) / unique_total);

    // Register reuse: thread-level code (the kernel's stage and Thread
    // members) runs its per-thread tile unrolled, so it loads each element of
    // its per-thread footprint once, not once per point that reads it (a
    // register-blocked product loads a row and a column per k, not one of
    // each per output). That holds where the unrolled tile is innermost: in
    // pure stages and in Thread members (whose reductions the writer runs
    // outside their unrolled tile); a root reduction runs its reduction
    // innermost and reloads per point. The factor per producer is the
    // footprint over the per-point count; producers also read per block keep
    // factor 1. A strided thread's footprint is one point's, S times over.
    auto tile_innermost = [&](const Entry &e) {
        if (e.role == Role::Thread) return true;
        if (e.role != Role::Kernel) return false;
        return std::none_of(e.stage->loops.begin(), e.stage->loops.end(), [](const Loop &l) { return l.is_rvar; });
    };
    std::map<int, double> per_point_loads, read_per_block;
    for (const Entry &e : entries) {
        for (const LeafAccess &leaf : leaves(*e.stage)) {
            if (e.role == Role::Block || !tile_innermost(e)) read_per_block[leaf.callee->id] = 1;
            else per_point_loads[leaf.callee->id] += e.points * leaf.count;
        }
    }
    std::map<int, double> reuse;
    for (const auto &[id, naive] : per_point_loads) {
        double factor = 1;
        if (!read_per_block.count(id) && thread_regions_[id] && naive > 0) {
            const double per_thread = double(geometry_.thread_box_copies()) * double(points(*thread_regions_[id]));
            factor = std::min(1.0, thread_instances * per_thread / naive);
        }
        reuse[id] = factor;
    }

    // Global sector traffic per producer over all stages, to share its DRAM bytes out.
    std::map<int, double> sectors_by_producer;
    std::vector<StageFeatures> stages;
    std::vector<std::map<int, double>> stage_sectors_by_producer;
    for (const Entry &e : entries) {
        StageFeatures sf;
        sf.name = e.stage->name;
        auto &f = sf.features;
        const OpCounts &ops = effective_ops(*e.stage);
        f[index(Feature::OpsAddSub)] = ops.add_sub;
        f[index(Feature::OpsMul)] = ops.mul;
        f[index(Feature::OpsDivMod)] = ops.div_mod;
        f[index(Feature::OpsMinMax)] = ops.min_max;
        f[index(Feature::OpsCompareSelect)] = ops.compare_select;
        f[index(Feature::OpsTranscendental)] = ops.transcendental;
        f[index(Feature::OpsCast)] = ops.cast;
        f[index(Feature::OpsBitwise)] = ops.bitwise;
        f[index(Feature::BytesPerPoint)] = e.stage->node->bytes_per_point;
        f[index(Feature::IsUpdate)] = e.stage->is_update();
        double reduction = 1;
        const std::vector<Span> root_bounds = e.stage->loop_bounds(e.stage->node->root_region);
        for (size_t i = 0; i < e.stage->loops.size(); ++i) {
            if (e.stage->loops[i].is_rvar) reduction *= double(root_bounds[i].extent);
        }
        f[index(Feature::ReductionPointsPerPoint)] = reduction;
        f[index(Feature::Producers)] = double(e.stage->producers.size());
        f[index(Feature::PointsComputed)] = e.points;
        f[index(Feature::RecomputeRatio)] = e.points / std::max(1.0, double(loop_points(root_bounds)));
        f[index(Feature::InlinedCalls)] = e.points * inlined_calls(*e.stage);
        f[index(Feature::IsKernelRoot)] = e.role == Role::Kernel;
        f[index(Feature::KernelLaunches)] = e.role == Role::Kernel;
        f[index(Feature::Blocks)] = double(blocks_);
        f[index(Feature::ThreadsPerBlock)] = double(threads_per_block_);
        f[index(Feature::ActiveThreadFraction)] = active_fraction_;
        f[index(Feature::SerialIterationsPerThread)] =
            e.role == Role::Kernel ? double(serial_per_thread_) * rvar_points
                                   : e.points / std::max(1.0, double(blocks_ * threads_per_block_));
        // Independent work a thread has in flight: its unrolled tile (a
        // kernel's serial points; a Thread member's per-thread pure tile,
        // which the writer unrolls inside the member's reduction).
        f[index(Feature::UnrollFactor)] = e.role == Role::Kernel   ? double(serial_per_thread_)
                                          : e.role == Role::Thread ? double(points(geometry_.storage_extents(e.stage->node->id)))
                                                                   : 1;
        f[index(Feature::RegistersPerThread)] = registers;
        f[index(Feature::SharedBytesPerBlock)] = double(shared_bytes);
        f[index(Feature::ResidentBlocksPerSm)] = occ.blocks_per_sm;
        f[index(Feature::Occupancy)] = occ.occupancy;
        f[index(Feature::Waves)] = w;
        f[index(Feature::WaveEfficiency)] = wave_efficiency(w);
        f[index(Feature::Flops)] = e.points * ops.arithmetic();
        f[index(Feature::TranscendentalOps)] = e.points * ops.transcendental;
        f[index(Feature::BarriersPerBlock)] = block_member_stages;
        f[index(Feature::AtomicOps)] = 0;

        // Loads.
        const double warp_instructions = e.points / std::max(1, lanes_) / std::max(active_fraction_, 1e-3);
        double loads_per_point = 0, load_sectors = 0, load_useful = 0, shared_requests = 0, weighted_ways = 0;
        std::map<int, double> sectors_by;
        for (const LeafAccess &leaf : leaves(*e.stage)) {
            loads_per_point += leaf.count;
            const WarpCost c = simulate(*e.stage, e.role, leaf);
            const double factor = e.role == Role::Block || !tile_innermost(e) ? 1.0 : reuse[leaf.callee->id];
            const double instructions = warp_instructions * leaf.count * factor;
            if (c.where == WarpCost::Where::Global) {
                load_sectors += instructions * c.sectors;
                sectors_by[leaf.callee->id] += instructions * c.sectors;
                load_useful += e.points * leaf.count * factor * leaf.callee->bytes_per_point;
            } else if (c.where == WarpCost::Where::Shared) {
                shared_requests += instructions;
                weighted_ways += instructions * c.ways;
            }
        }
        // Updates read their own Func at the stored location. Where that
        // location stays put across the reduction loops (innermost), the
        // value stays in a register across them, so it is read and written
        // once per pure point; a scan or a histogram stores somewhere else
        // at every step.
        double store_sectors_total = 0, shared_stores = 0;
        if (e.role == Role::Kernel) {
            const double stores_per_point = e.stage->data_dependent_store ? 1.0 : 1.0 / rvar_points;
            const double sectors = warp_instructions * stores_per_point * store_sectors(*e.stage, e.role);
            store_sectors_total = sectors;
            if (e.stage->is_update()) {
                load_sectors += sectors;
                load_useful += e.points * stores_per_point * e.stage->node->bytes_per_point;
            }
            f[index(Feature::GlobalStoreBytesUseful)] = e.points * stores_per_point * e.stage->node->bytes_per_point;
        } else if (e.role == Role::Block) {
            shared_stores = warp_instructions;
            if (e.stage->is_update()) shared_requests += warp_instructions, weighted_ways += warp_instructions;
        }
        f[index(Feature::LoadsPerPoint)] = loads_per_point;
        f[index(Feature::GlobalLoadSectors)] = load_sectors;
        f[index(Feature::GlobalStoreSectors)] = store_sectors_total;
        f[index(Feature::GlobalLoadBytesUseful)] = load_useful;
        f[index(Feature::SharedLoadRequests)] = shared_requests;
        f[index(Feature::SharedStoreRequests)] = shared_stores;
        f[index(Feature::SharedBankConflictWays)] = shared_requests > 0 ? weighted_ways / shared_requests : 1;
        f[index(Feature::WorkingSetBytesPerBlock)] = double(shared_bytes);
        for (const auto &[id, sectors] : sectors_by) sectors_by_producer[id] += sectors;
        stage_sectors_by_producer.push_back(std::move(sectors_by));
        stages.push_back(std::move(sf));
    }

    // Memory levels, per global producer: the warps' sector requests go to
    // L1; what a block's footprint holds is fetched from L2 once per block
    // (repeated reads within a block, as with stencil taps or a thread's
    // register tile, hit L1); DRAM sees the launch-wide footprint once plus
    // the share of L2 traffic that misses when the working set exceeds L2.
    // Stages share each producer's traffic by their sector requests.
    const double sector = spec_.global_memory_sector_bytes;
    std::map<int, double> l2_bytes_by_producer, dram_by_producer;
    for (const auto &[id, sectors] : sectors_by_producer) {
        const double requested = sectors * sector;
        double per_block = requested;
        if (block_regions_[id]) {
            const Node &producer = *dag_.nodes()[id];
            const Region &r = *block_regions_[id];
            // Whole sectors along the contiguous dimension.
            const double row_bytes = double(r.empty() ? 1 : r[0].extent) * producer.bytes_per_point;
            const double rows = r.empty() ? 1 : double(points(r)) / double(std::max<int64_t>(r[0].extent, 1));
            per_block = std::ceil(row_bytes / sector + 1) * sector * rows * double(blocks_);
        }
        const double l2 = std::min(requested, per_block);
        const double unique = unique_bytes.count(id) ? unique_bytes[id] : 0;
        l2_bytes_by_producer[id] = l2;
        dram_by_producer[id] = std::min(l2, unique + std::max(0.0, l2 - unique) * l2_miss);
    }
    for (size_t i = 0; i < stages.size(); ++i) {
        auto &f = stages[i].features;
        double dram = 0, l2 = 0;
        for (const auto &[id, sectors] : stage_sectors_by_producer[i]) {
            const double total = sectors_by_producer[id];
            const double share = total > 0 ? sectors / total : 0;
            dram += share * dram_by_producer[id];
            l2 += share * l2_bytes_by_producer[id];
        }
        if (entries[i].role == Role::Kernel) {
            // Stores (and an update's reads of what it accumulates) go through L2.
            const double updates = entries[i].stage->is_update() ? 2 : 1;
            dram += own_bytes * updates;
            l2 += f[index(Feature::GlobalStoreSectors)] * sector * updates;
        }
        f[index(Feature::DramBytes)] = dram;
        f[index(Feature::L2Bytes)] = std::max(0.0, l2 - dram);
    }
    out.stages = std::move(stages);
    return out;
}

}  // namespace

KernelFeatures Featurizer::compute_kernel(const Schedule &schedule, const KernelScope &scope) const {
    KernelAnalysis analysis(dag_, spec_, schedule, scope);
    return analysis.compute();
}

KernelFeatures Featurizer::compute_extern_kernel(const Node &node) const {
    // Opaque: assume it streams its inputs and output once at full occupancy.
    KernelFeatures out;
    StageFeatures sf;
    sf.name = node.name + ".s0";
    auto &f = sf.features;
    double bytes = double(node.root_points()) * node.bytes_per_point;
    for (const auto &st : node.stages) {
        for (const Edge *e : st->producers) bytes += double(e->producer->root_points()) * e->producer->bytes_per_point;
    }
    f[index(Feature::PointsComputed)] = double(node.root_points());
    f[index(Feature::IsKernelRoot)] = 1;
    f[index(Feature::KernelLaunches)] = 1;
    f[index(Feature::Blocks)] = spec_.sm_count * 4.0;
    f[index(Feature::ThreadsPerBlock)] = 256;
    f[index(Feature::ActiveThreadFraction)] = 1;
    f[index(Feature::Occupancy)] = 1;
    f[index(Feature::Waves)] = 1;
    f[index(Feature::WaveEfficiency)] = 1;
    f[index(Feature::DramBytes)] = bytes;
    f[index(Feature::BytesPerPoint)] = node.bytes_per_point;
    out.stages.push_back(sf);
    return out;
}

}  // namespace strata::autoscheduler
