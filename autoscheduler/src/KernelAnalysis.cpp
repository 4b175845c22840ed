//===- KernelAnalysis.cpp - the features of one GPU kernel -----------------===//
//
// A kernel is analysed in five steps, each a method below:
//  1. collect_entries: the stages it computes (its own, then its Block,
//     Thread and Staged members'), with the points each computes over the
//     launch, counted per class of equal block, thread or chunk tiles so
//     that partial edge tiles count as what they are.
//  2. size_launch: registers (what ptxas carries between unrolled loops
//     included), shared memory, threads per block and grid against the GPU
//     spec (a kernel over a limit, or priced within kRegisterHeadroom of
//     the register file, is not a candidate), then occupancy and waves.
//  3. measure_working_set: each global producer's launch-wide bytes, and
//     the fraction of L2 traffic that misses when they exceed the L2.
//  4. measure_register_reuse: how much of what thread-level code loads per
//     point its unrolled per-thread tile keeps in registers: what copies of
//     the tile reach by one expression (less where a Thread member's rolled
//     reduction reloads its tile at every step).
//  5. stage_features, then share_memory_levels: per stage, work (points,
//     arithmetic with inlined producers folded in) and traffic (one warp
//     simulated per load and store, KernelWarps, scaled by the warp
//     instructions the stage executes); then each global producer's L2 and
//     DRAM bytes shared out among the stages by their sector requests.
//===----------------------------------------------------------------------===//
#include "KernelAnalysis.h"

#include "KernelWarps.h"
#include "MemberThreads.h"
#include "Occupancy.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

namespace strata::autoscheduler {

using costmodel::Feature;
using costmodel::StageFeatures;
using costmodel::index;

namespace {

// A thread's tile is enumerated point by point up to this many points.
constexpr int64_t kMaxTilePoints = 4096;

// A load's key (IndexText::sharing_key() or its own) with the element it
// loads folded in: equal keys are one load.
uint64_t with_element(uint64_t key, const std::vector<int64_t> &element) {
    for (int64_t v : element) key = hash_combine(key, uint64_t(v));
    return key;
}

// ptxas unrolls a short rolled loop of constant trip count completely, and
// then serves a later unrolled loop's loads of the same addresses from the
// registers the first one loaded them into (fuzz seed 1126: a thread takes
// a row's mean over 251 doubles, then its variance over the same 251: 255
// registers and 3 KB of spills; 32 registers once the second loop's
// addresses are moved off the first's). Measured with ptxas 13.0 for sm_80
// on that kernel, the longest loop it unrolls completely shrinks as the
// square of the instructions a step takes: steps x instructions^2 up to
// about 22,500 (9 instructions: 270 steps unrolled, 280 not; 12: 140
// unrolled; 16: 80 unrolled, 100 not; a float32 product of 11: 128
// unrolled, 200 not). ptxas also bounds a kernel's unrolled code as a whole
// (8 copies of a 64-step product stay loops, 4 do not), which this leaves
// out: it errs towards registers, not spills.
constexpr double kPtxasFullUnrollBudget = 22500;
// The share of the register file the estimate may fill. What it leaves out
// (loads ptxas issues ahead of their use, the temporaries of interleaved
// transcendentals) is left this room: fuzz seeds priced at 222, 227 and
// 252 registers spilled at 255; the apps' largest pick, priced at 210, takes
// 128 (stencil_chain's H200 stage_5).
constexpr double kRegisterHeadroom = 0.85;
// Element evaluations past which a kernel's forwarded loads are not
// enumerated (forwarded_load_registers).
constexpr int64_t kMaxForwardingEvaluations = int64_t(1) << 15;

// Points that tell index functions apart over a loop box: its low and high
// corners, its middle and a point skewed off the middle by a different step
// along each loop, so that indices that agree on one line only (x + y
// against 2·x) differ somewhere.
std::vector<std::vector<int64_t>> probe_points(const std::vector<Span> &box) {
    std::vector<int64_t> low, high, skewed = middle_point(box);
    for (size_t i = 0; i < box.size(); ++i) {
        low.push_back(box[i].min);
        high.push_back(box[i].max());
        skewed[i] = std::min(skewed[i] + int64_t(i) + 1, box[i].max());
    }
    return {low, middle_point(box), skewed, high};
}

// Every point of a loop box (one value per loop), the first loop varying
// slowest; for small boxes (a thread's tile).
std::vector<std::vector<int64_t>> all_points(const std::vector<Span> &box) {
    std::vector<std::vector<int64_t>> out(1);
    for (const Span &span : box) {
        std::vector<std::vector<int64_t>> grown;
        for (const std::vector<int64_t> &p : out) {
            for (int64_t v = span.min; v <= span.max(); ++v) {
                grown.push_back(p);
                grown.back().push_back(v);
            }
        }
        out = std::move(grown);
    }
    return out;
}

// The distinct elements a thread loads, by a hash of each element and of
// the copy that loads it apart, with the loads each stands for: one, or a
// leaf's count where it stands for several sites whose elements are its own
// (merged chains, data-dependent sites alike). Kept as a list and reduced
// once: a hash table allocated a node for every element of every tile the
// search enumerates.
using ElementLoads = std::vector<std::pair<uint64_t, double>>;

void add_element(ElementLoads &loads, uint64_t key, double n) { loads.emplace_back(key, n); }

// The loads of the distinct elements: per key, the most any load stood for.
double total_loads(ElementLoads &loads) {
    std::sort(loads.begin(), loads.end());
    double sum = 0;
    for (size_t i = 0; i < loads.size(); ++i) {
        if (i + 1 == loads.size() || loads[i + 1].first != loads[i].first) sum += loads[i].second;
    }
    return sum;
}

// `key` told apart by the point's place along each loop in `apart`: copies
// of the tile one step apart along those loops load separately.
uint64_t key_apart(uint64_t key, const std::vector<size_t> &apart, const std::vector<int64_t> &point) {
    for (size_t i : apart) key = hash_combine(key, (uint64_t(i) << 48) ^ uint64_t(point[i]));
    return key;
}

class KernelAnalysis {
public:
    KernelAnalysis(const FunctionDAG &dag, const costmodel::GpuSpec &spec, const Schedule &schedule,
                   const KernelScope &scope, StageLeaves &leaves, InlinedFolds &folds)
        : dag_(dag), spec_(spec), stage_leaves_(leaves), folds_(folds), geometry_(dag, schedule, scope),
          warps_(geometry_, scope.role, spec), role_(scope.role), funcs_(scope.members),
          node_(geometry_.node()), stage_(geometry_.stage()), tiling_(geometry_.tiling()) {
        threads_per_block_ = geometry_.launched_threads_per_block();
        blocks_ = tiling_.blocks(geometry_.pure_extents());
        launched_blocks_ = tiling_.launched_blocks(geometry_.pure_extents());
        tiles_per_block_ = tiling_.tiles_per_block(geometry_.pure_extents());
        // Threads a Block member's own thread loops add idle in the kernel's stage.
        active_fraction_ = tiling_.active_fraction(geometry_.pure_extents()) * double(tiling_.threads_per_block()) /
                           double(std::max<int64_t>(threads_per_block_, 1));
        serial_per_thread_ = tiling_.serial_per_thread();
        // An imported rolled tile runs its serial points as a loop: one at a time.
        unrolled_per_thread_ = tiling_.rolled ? 1 : serial_per_thread_;
        shared_bytes_ = geometry_.shared_bytes_per_block();
        for (size_t i = 0; i < stage_.loops.size(); ++i) {
            if (stage_.loops[i].is_rvar) rvar_points_ *= double(geometry_.whole_box()[i].extent);
        }
        reduction_blocks_ = double(std::max<int64_t>(tiling_.reduction_blocks, 1));
    }

    KernelFeatures compute();

private:
    // A stage the kernel computes, in its role there.
    struct Entry {
        const Stage *stage;
        Role role;
        double points;                 // over the whole launch
        double active_fraction = 1;    // of the block's threads computing it (set by collect_entries)
        // A chunked kernel stage's pure points × chunks: each chunk's
        // partial results are initialised, then added to the Func, once per
        // point (ScheduleWriter::write_chunk_partials).
        double chunk_merges = 0;
    };

    void collect_entries();
    // What Halide's simplifier makes of stage `s` with the Funcs this
    // kernel inlines into it (InlinedFolds.h).
    const StageFolds &folds(const Stage &s);
    // Whether it drops `s` (an update folded to a store of what it loads).
    bool folded_away(const Stage &s) { return folds(s).no_op; }
    double member_points(const Stage &st, const std::vector<KernelGeometry::TileClass> &classes);
    void size_launch(KernelFeatures &out);
    void measure_working_set();
    bool tile_innermost(const Entry &e) const;
    void measure_register_reuse();
    std::vector<size_t> rolled_loops(const Entry &e) const;
    std::optional<std::string> register_member_indexed_by_rolled_loop();
    double forwarded_load_registers();
    std::vector<size_t> unrolled_by_ptxas(const Stage &s, const std::vector<Span> &tile,
                                          const std::vector<size_t> &rolled, double body_points);
    // Per producer, per thread: loads where no check splits the tile, and
    // where every serial point runs under its own check.
    struct TileLoads {
        std::map<int, double> unchecked, checked;
    };
    std::optional<TileLoads> thread_tile_loads(const Entry &e);
    // The loops of `box` along which copies of `leaf`'s load run apart,
    // unchecked and under a check per serial point.
    std::pair<std::vector<size_t>, std::vector<size_t>> loops_apart(const Entry &e, const LeafAccess &leaf,
                                                                    const std::vector<Span> &box,
                                                                    const std::vector<int64_t> &middle,
                                                                    const std::vector<size_t> &numbered) const;
    std::vector<size_t> numbered_loops(const Entry &e, const std::vector<Span> &box) const;
    static const IndexText &text_at(const LeafAccess &leaf, const std::vector<size_t> &numbered,
                                    const std::vector<int64_t> &p, std::map<std::vector<int64_t>, IndexText> &texts);
    StageFeatures stage_features(const Entry &e, std::map<int, double> &sectors_by_producer);
    void set_work_features(const Entry &e, costmodel::FeatureVector &f);
    void set_chain_features(const Entry &e, costmodel::FeatureVector &f);
    // The fraction of the block's threads that compute `e`: a block member
    // keeps only the threads its loops are spread over (MemberThreads.h),
    // or, imported, those of its own thread loops (one where it has none).
    double active_fraction_of(const Entry &e) const;
    void set_traffic_features(const Entry &e, costmodel::FeatureVector &f, std::map<int, double> &sectors_by_producer);
    void share_memory_levels(std::vector<StageFeatures> &stages,
                             const std::vector<std::map<int, double>> &sectors_by_stage);

    double kernel_stores_per_point() const;
    bool tile_spans_rows() const;
    double heap_passes_per_point(const Stage &s) const;
    double heap_stores_per_point(const Stage &s);
    // The leaf loads of `s`'s values in `values` (an inlined Func: the
    // elements its reader reads).
    const std::vector<LeafAccess> &leaves(const Stage &s, uint64_t values = kAllValues);
    std::vector<double> points_per_load(const Stage &s);
    bool block_invariant(const Stage &s, const LeafAccess &leaf) const;
    // The share of its per-point loads of `leaf`'s producer a Block
    // member stage makes (block_copy_shares(), once per stage).
    double block_tile_share(const Stage &s, const LeafAccess &leaf);
    std::map<int, double> block_copy_shares(const Stage &s);
    double update_operands(const Node &member);
    const OpCounts &effective_ops(const Stage &s);
    double inlined_calls(const Stage &s);

    const FunctionDAG &dag_;
    const costmodel::GpuSpec &spec_;
    StageLeaves &stage_leaves_;
    InlinedFolds &folds_;
    const KernelGeometry geometry_;
    KernelWarps warps_;
    const NodeMap<Role> &role_;
    const std::vector<int> &funcs_;
    const Node &node_;
    const Stage &stage_;
    const GpuTiling &tiling_;

    // The launch shape.
    int64_t threads_per_block_ = 1;
    int64_t blocks_ = 1;           // block tiles: what per-block work is counted in
    int64_t launched_blocks_ = 1;  // GpuTiling::launched_blocks: each runs tiles_per_block_ tiles
    int64_t tiles_per_block_ = 1;
    double active_fraction_ = 1;
    int64_t serial_per_thread_ = 1;
    int64_t unrolled_per_thread_ = 1;  // the serial points a thread runs as straight-line code
    int64_t shared_bytes_ = 0;
    double rvar_points_ = 1;  // the kernel stage's reduction points per pure point
    double reduction_blocks_ = 1;  // GpuTiling::reduction_blocks: each runs rvar_points_ / this of them

    // Step 1.
    std::vector<Entry> entries_;
    int block_member_stages_ = 0;
    bool staged_ = false;
    double thread_member_values_ = 0;
    std::vector<KernelGeometry::TileClass> block_classes_, thread_classes_, chunk_classes_;
    std::map<std::pair<const KernelGeometry::TileClass *, int>, std::optional<Region>> class_regions_;
    // Step 2.
    int registers_ = 0;
    Occupancy occupancy_;
    double waves_ = 0;
    // Step 3.
    std::map<int, double> unique_bytes_;
    double own_bytes_ = 0, l2_miss_ = 0;
    // Step 4.
    std::map<int, double> reuse_;
    std::map<const Stage *, std::map<int, double>> block_copy_shares_;

    std::map<std::pair<const Stage *, uint64_t>, const std::vector<LeafAccess> *> leaves_;
    std::map<const Stage *, OpCounts> ops_;
};

KernelFeatures KernelAnalysis::compute() {
    KernelFeatures out;
    collect_entries();
    size_launch(out);
    measure_working_set();
    measure_register_reuse();
    std::map<int, double> sectors;
    std::vector<std::map<int, double>> sectors_by_stage;
    for (const Entry &e : entries_) {
        std::map<int, double> stage_sectors;
        out.stages.push_back(stage_features(e, stage_sectors));
        sectors_by_stage.push_back(std::move(stage_sectors));
    }
    share_memory_levels(out.stages, sectors_by_stage);
    return out;
}

const StageFolds &KernelAnalysis::folds(const Stage &s) {
    return folds_.of(s, inlined_closure(s, role_, node_.id));
}

// The root stage first, then members' stages (producers last).
void KernelAnalysis::collect_entries() {
    entries_.push_back({&stage_, Role::Kernel, geometry_.computed_points()});
    if (geometry_.chunk_loop() >= 0) {
        entries_.back().chunk_merges =
            geometry_.computed_points() / std::max(rvar_points_, 1.0) * double(geometry_.chunks());
    }
    block_classes_ = geometry_.block_classes();
    thread_classes_ = geometry_.thread_classes();
    chunk_classes_ = geometry_.chunk_classes();
    for (int id : funcs_) {
        const Node &m = *dag_.nodes()[id];
        if (role_[id] == Role::Block) {
            for (const auto &st : m.stages) {
                if (folded_away(*st)) continue;
                entries_.push_back({st.get(), Role::Block, member_points(*st, block_classes_)});
                ++block_member_stages_;
            }
        } else if (role_[id] == Role::Staged) {
            staged_ = true;
            for (const auto &st : m.stages) {
                if (!folded_away(*st)) entries_.push_back({st.get(), Role::Staged, member_points(*st, chunk_classes_)});
            }
        } else if (role_[id] == Role::Thread) {
            // An update unrolled over the member's tile is scheduled by the
            // compiler with its operands loaded ahead of the arithmetic:
            // the distinct values one reduction step loads stay live beside
            // the accumulators (lens_blur's 4x32 cost aggregate, a value
            // per accumulator, spilled when they were not counted).
            if (!geometry_.heap_member(id)) {
                thread_member_values_ += geometry_.thread_member_registers(id) + update_operands(m);
            }
            // The thread loops of a chunked reduction run inside its chunk
            // loop, so a Thread member is computed anew in every chunk.
            const double computations = geometry_.chunk_loop() >= 0 ? double(geometry_.chunks()) : 1.0;
            // One computed per thread of a Block member is counted per block
            // (KernelGeometry::computations counts the member's threads).
            const bool hosted = geometry_.scope().host_of(id) >= 0;
            const auto &classes = hosted ? block_classes_ : thread_classes_;
            const double idle_threads = hosted ? 1.0 : geometry_.idle_thread_factor(id);
            for (const auto &st : m.stages) {
                if (folded_away(*st)) continue;
                entries_.push_back({st.get(), Role::Thread, computations * idle_threads * member_points(*st, classes)});
            }
        }
    }
    for (Entry &e : entries_) {
        e.active_fraction = active_fraction_of(e);
        // A where clause's failing points compute and load nothing.
        e.points *= e.stage->predicate_density;
    }
}

// The 32-bit registers of the distinct values one step of a Thread
// member's unrolled update loads: per load of the update, the member's
// storage extents along the pure loops its index follows (a
// register-blocked product's row and column: 4 + 4 for a 4x4 tile; a box
// sum's taps: the whole tile), at the bytes it loads (a float64 two
// registers: fuzz seed 2050's 32 float64 channels of input and weights a
// step, counted as 64 values, are 128 registers). The largest over its
// updates.
double KernelAnalysis::update_operands(const Node &m) {
    const Region &storage = geometry_.storage_extents(m.id);
    double most = 0;
    for (size_t k = 1; k < m.stages.size(); ++k) {
        const Stage &st = *m.stages[k];
        double operands = 0;
        for (const LeafAccess &leaf : leaves(st)) {
            if (leaf.callee == &m || leaf.chain.empty()) continue;
            double distinct = leaf.count;
            for (size_t i = 0; i < st.loops.size(); ++i) {
                const int d = st.loops[i].pure_dim;
                if (st.loops[i].is_rvar || d < 0 || d >= int(storage.size())) continue;
                if (moves_with(leaf, i)) distinct *= double(std::max<int64_t>(storage[d].extent, 1));
            }
            operands += distinct * double(registers_for_bytes(leaf.bytes()));
        }
        most = std::max(most, operands);
    }
    return most;
}

// Points a member stage computes over the launch: per class of equal
// block (or thread) tiles, partial edge tiles included, its region there.
double KernelAnalysis::member_points(const Stage &st, const std::vector<KernelGeometry::TileClass> &classes) {
    double total = 0;
    for (const KernelGeometry::TileClass &c : classes) {
        auto key = std::make_pair(&c, st.node->id);
        if (!class_regions_.count(key)) {
            const auto regions = geometry_.regions_for(c.box);
            for (int id : funcs_) class_regions_[{&c, id}] = regions[id];
        }
        const std::optional<Region> &r = class_regions_[key];
        if (r) total += c.count * geometry_.member_points(st, c.box, *r);
    }
    return total;
}

// Registers: a base for addressing and loop state, the per-thread tile of
// outputs or accumulators, thread members' values with the operands their
// unrolled updates keep live (update_operands), and the values ptxas
// carries from one unrolled loop to the next (forwarded_load_registers).
// Past the register file a thread spills to local memory, which the model
// does not price: a kernel priced near it (kRegisterHeadroom) is not a
// candidate, nor is one over any launch limit.
void KernelAnalysis::size_launch(KernelFeatures &out) {
    const double registers_estimate = 24 + 2.0 * double(unrolled_per_thread_) + thread_member_values_ +
                                      forwarded_load_registers() + (stage_.is_update() ? 4 : 0);
    registers_ = int(std::min<double>(registers_estimate, spec_.max_registers_per_thread));
    auto illegal = [&](const std::string &why) {
        if (out.legal) out.why_illegal = why;  // the first reason found
        out.legal = false;
    };
    if (staged_ && geometry_.chunk_loop() < 0) {
        illegal("kernel " + stage_.name + " has Staged members, but its reduction cannot run in chunks");
    }
    if (std::optional<std::string> why = register_member_indexed_by_rolled_loop()) illegal(*why);
    if (registers_estimate > kRegisterHeadroom * spec_.max_registers_per_thread) {
        illegal("per-thread state of kernel " + stage_.name + " needs ~" + std::to_string(int(registers_estimate)) +
                " registers, more than " + std::to_string(int(kRegisterHeadroom * spec_.max_registers_per_thread)) +
                " leave ptxas room for what the estimate leaves out");
    }
    if (shared_bytes_ > spec_.shared_memory_per_block) {
        illegal("kernel " + stage_.name + " needs " + std::to_string(shared_bytes_) +
                " bytes of shared memory per block");
    }
    if (threads_per_block_ > spec_.max_threads_per_block) {
        illegal("kernel " + stage_.name + " launches " + std::to_string(threads_per_block_) + " threads per block");
    }
    if (!fits_grid(tiling_, geometry_.pure_extents(), spec_)) {
        const std::array<int64_t, 3> g = tiling_.grid(geometry_.pure_extents(), spec_);
        illegal("kernel " + stage_.name + " launches a grid of " + std::to_string(g[0]) + " x " +
                std::to_string(g[1]) + " x " + std::to_string(g[2]) + " blocks");
    }
    occupancy_ = occupancy(spec_, threads_per_block_, registers_, shared_bytes_);
    if (occupancy_.blocks_per_sm == 0 && out.legal) illegal("kernel " + stage_.name + " cannot be resident on an SM");
    waves_ = waves(spec_, occupancy_, launched_blocks_);
}

// Launch-wide unique bytes of each global producer (for DRAM), and the
// total, to decide whether re-reads across blocks hit L2.
void KernelAnalysis::measure_working_set() {
    double unique_total = 0;
    for (const auto &[id, region] : geometry_.whole_regions()) {
        if (!region || role_[id] != Role::None || id == node_.id) continue;
        const double bytes = double(points(*region)) * dag_.nodes()[id]->bytes_per_point;
        unique_bytes_[id] = bytes;
        unique_total += bytes;
    }
    // What the kernel stores, once: an update may store a slice (the edge
    // row a scan starts from) or a few bins.
    const double stored_points = geometry_.computed_points() * kernel_stores_per_point();
    own_bytes_ = std::min(double(node_.root_points()), stored_points) * node_.bytes_per_point;
    unique_total += own_bytes_;
    const double l2 = double(spec_.l2_cache_bytes);
    l2_miss_ = unique_total <= l2 ? 0.0 : std::min(1.0, (unique_total - l2) / unique_total);
}

// The stores the kernel's own stage makes per point it computes: one, or
// one per pass over the reduction loops where the stored location stays put
// across them (see set_traffic_features).
double KernelAnalysis::kernel_stores_per_point() const {
    // Blocks along the reduction each make a pass of their own.
    const double passes = (staged_ ? double(geometry_.chunks()) : 1.0) * reduction_blocks_;
    if (stage_.stores_each_point()) return 1.0;
    const double kept = std::min(1.0, passes / rvar_points_);
    // A tile inside the reduction loops that spans rows (a serial point
    // along any loop but the innermost) accumulates at elements a row
    // stride apart, a stride the compiler cannot see and which might be
    // zero: it keeps none of them in a register, and every point is
    // stored at every step (Anderson2021's 4x4 attention scores).
    if (tiling_.tile_inside_reduction && tile_spans_rows()) return 1.0;
    // A checked tile inside the reduction loops stores each checked point
    // under its check at every step: the compiler keeps no conditionally
    // stored element in a register across the loop.
    if (tiling_.tile_inside_reduction && geometry_.guarded_copies() > 1) {
        const double checked = geometry_.guarded_fraction();
        return checked + (1.0 - checked) * kept;
    }
    return kept;
}

// Whether the kernel's serial tile has points along a loop other than its
// innermost: loop d of the tiling is the Func's dimension d, and every
// dimension but the first is a stride apart in its buffer.
bool KernelAnalysis::tile_spans_rows() const {
    for (size_t d = 1; d < tiling_.dims.size(); ++d) {
        if (tiling_.dims[d].serial > 1) return true;
    }
    return false;
}

// The passes a heap member's stage makes per point over the reduction loops
// innermost in the nest its schedule gives it (its accumulator's value
// stays in a register across them; Mullapudi2016 orders conv_layer's
// product r.x, x, r.y, y, ...: a pass per 3 taps), one per point where it
// stores at data-dependent places. It loads its own point once a pass.
double KernelAnalysis::heap_passes_per_point(const Stage &s) const {
    if (s.stores_each_point()) return 1.0;
    const std::vector<Span> box = s.loop_bounds(s.node->root_region);
    double innermost = 1;
    for (const Halide::Internal::Dim &d : s.definition.schedule().dims()) {  // innermost first
        const auto loop = std::find_if(s.loops.begin(), s.loops.end(), [&](const Loop &l) { return l.var == d.var; });
        if (loop == s.loops.end() || !loop->is_rvar) break;
        innermost *= double(std::max<int64_t>(box[size_t(loop - s.loops.begin())].extent, 1));
    }
    return 1.0 / innermost;
}

// The stores a heap member's stage makes per point: one a pass, or one a
// step where it reads another heap member of the kernel. Halide puts a
// kernel's heap Funcs in one buffer, so those reads may read the element
// being accumulated, and the compiler stores it at every step
// (Mullapudi2016's depthwise_separable_conv reads the depthwise output
// while it accumulates the pointwise product: a st.global a step).
double KernelAnalysis::heap_stores_per_point(const Stage &s) {
    for (const LeafAccess &leaf : leaves(s)) {
        if (leaf.callee->id != s.node->id && geometry_.heap_member(leaf.callee->id)) return 1.0;
    }
    return heap_passes_per_point(s);
}

// Whether a stage runs its unrolled per-thread tile innermost: pure stages,
// Thread members (not heap members), chunked reductions (whose reductions the writer runs
// outside their unrolled tile) and reductions over unrolled taps do; any
// other root reduction runs its reduction innermost.
bool KernelAnalysis::tile_innermost(const Entry &e) const {
    // A heap member runs the loop nest its (imported) schedule gave it, rolled.
    if (e.role == Role::Thread) return !geometry_.heap_member(e.stage->node->id);
    // A rolled tile (imported) loads each point's operands in its own iteration.
    if (e.role != Role::Kernel || tiling_.rolled) return false;
    if (geometry_.chunk_loop() >= 0) return true;
    // A reduction whose every RVar is an unrolled tap runs inside the
    // unrolled tile as straight-line code too (lens_blur's 9-tap box sum
    // over 16 rows per thread loads 24 rows, not 144).
    return rvar_loops(*e.stage) == geometry_.unrolled_rvars(*e.stage).size();
}

// Thread-level code whose unrolled tile is innermost loads an element of
// its per-thread footprint once for the copies of the tile that reach it by
// one expression, not once per point that reads it (a register-blocked
// product loads a row and a column per k, not one of each per output):
// per producer, what thread_tile_loads() counts over every stage that
// reads it per thread, against the per-point count. Producers also read
// per block, or by code that reloads per point, keep factor 1.
void KernelAnalysis::measure_register_reuse() {
    std::map<int, double> per_point_loads, read_per_block, one_point_loads, tile_loads, checked_tile_loads;
    std::map<int, double> recomputed_loads;  // the most computations per thread of a stage reading it
    std::set<int> read_by_member_updates, unenumerated;
    for (const Entry &e : entries_) {
        std::map<int, double> loads_here;
        const bool per_thread = !block_level(e.role) && tile_innermost(e);
        for (const LeafAccess &leaf : leaves(*e.stage)) {
            if (!per_thread) {
                read_per_block[leaf.callee->id] = 1;
            } else {
                per_point_loads[leaf.callee->id] += e.points * leaf.count;
                loads_here[leaf.callee->id] += leaf.count;
                if (e.role == Role::Thread && e.stage->is_update()) read_by_member_updates.insert(leaf.callee->id);
            }
        }
        for (const auto &[id, n] : loads_here) one_point_loads[id] = std::max(one_point_loads[id], n);
        if (!per_thread) continue;
        // A member computed anew along the thread's serial loops loads its
        // footprint anew each time: the regions are one computation's.
        const double computations = geometry_.computations(e.stage->node->id, geometry_.thread_box());
        for (const auto &[id, n] : loads_here) recomputed_loads[id] = std::max(recomputed_loads[id], computations);
        const std::optional<TileLoads> counted = thread_tile_loads(e);
        if (!counted) {
            for (const auto &[id, n] : loads_here) unenumerated.insert(id);
            continue;
        }
        for (const auto &[id, n] : counted->unchecked) tile_loads[id] += n;
        for (const auto &[id, n] : counted->checked) checked_tile_loads[id] += n;
    }
    // In the share of threads that run checks, no load is shared where a
    // Thread member's update reads: its reduction steps run every checked
    // point apart (matmul's and conv_layer's products, whose lowered code
    // loads 1.7-2.5x the shared count; guarded_copies). Elsewhere a checked
    // thread shares along its innermost serial loop only (guarded_rows), as
    // thread_tile_loads() finds every thread's copies doing.
    const double guarded = geometry_.guarded_fraction();
    for (const auto &[id, naive] : per_point_loads) {
        double factor = 1;
        const std::optional<Region> &whole_box = geometry_.thread_regions()[id];
        if (!read_per_block.count(id) && whole_box && naive > 0) {
            const double copies = double(geometry_.distinct_thread_copies(id));
            const bool by_members = read_by_member_updates.count(id) > 0;
            // Where a tile is too large to enumerate: the thread's
            // footprint once, and in checked threads one row of it per row
            // (guarded_rows).
            double shared = tile_loads[id], checked = checked_tile_loads[id];
            const std::optional<Region> &one_check =
                by_members ? geometry_.guarded_thread_regions()[id] : geometry_.guarded_row_regions()[id];
            if (unenumerated.count(id)) {
                shared = copies * double(geometry_.thread_elements(id));
                checked = one_check ? copies * double(geometry_.guarded_rows()) * double(points(*one_check)) : shared;
            }
            if (by_members && one_check) {
                checked = copies * double(geometry_.guarded_copies()) * double(points(*one_check));
            }
            shared = (1.0 - guarded) * shared + guarded * checked;
            // A thread loads at least one point's distinct addresses.
            const double per_thread = recomputed_loads[id] * std::max(one_point_loads[id], shared);
            factor = std::min(1.0, geometry_.thread_instances() * per_thread / naive);
        }
        reuse_[id] = factor;
    }
}

// The reduction loops of a thread-level stage that the writer leaves
// rolled (KernelGeometry::unrolled_rvars).
std::vector<size_t> KernelAnalysis::rolled_loops(const Entry &e) const {
    const Stage &s = *e.stage;
    const std::vector<int> unrolled = geometry_.unrolled_rvars(s);
    std::vector<size_t> out;
    for (size_t i = 0; i < s.loops.size(); ++i) {
        if (s.loops[i].is_rvar && std::find(unrolled.begin(), unrolled.end(), int(i)) == unrolled.end()) out.push_back(i);
    }
    return out;
}

// A Thread member is kept in registers only if every index into it is a
// constant once the loops around it are unrolled. The writer unrolls the
// loops along which a stage indexes one where the code stays small
// (KernelGeometry::unrolled_rvars); one left rolled (longer, of a symbolic
// extent, in a chunked kernel) leaves the member in local memory, an array
// on the thread's stack indexed at run time (ptxas: a stack frame of 156
// bytes for depthwise's per-thread padded tile and 3×3 weights read over
// rolled taps, 256 for a 32-lane merge of attention's partial maxima),
// which the model does not price: such a kernel is not a candidate. The
// reason, naming the member, the loop and its reader, or nothing.
std::optional<std::string> KernelAnalysis::register_member_indexed_by_rolled_loop() {
    for (const Entry &e : entries_) {
        if (e.role != Role::Kernel && e.role != Role::Thread) continue;
        const std::vector<size_t> rolled = rolled_loops(e);
        if (rolled.empty()) continue;
        const std::optional<std::vector<Span>> tile = geometry_.thread_tile(*e.stage);
        if (!tile) continue;
        for (size_t i : rolled) {
            if ((*tile)[i].extent < 2) continue;
            std::set<int> members = geometry_.thread_members_indexed_along(*e.stage, i);
            // A heap member is indexed at run time anyway.
            for (auto it = members.begin(); it != members.end();) {
                it = geometry_.heap_member(*it) ? members.erase(it) : std::next(it);
            }
            if (members.empty()) continue;
            return "Thread member " + dag_.nodes()[*members.begin()]->name + " of kernel " + stage_.name +
                   " is indexed along the rolled loop " + e.stage->loops[i].var + " of " + e.stage->name +
                   ": Halide would keep it in local memory, not in registers";
        }
    }
    return std::nullopt;
}

// The 32-bit registers that hold values one completely unrolled loop of a
// thread loaded until a later copy of such a loop reads them again: each
// element loaded by two or more copies, at its bytes. A copy of a
// thread-level stage's loops runs once per point of the thread's tile, or
// once for the whole tile where the stage runs it inside its reduction
// (Thread members, register-blocked kernels). Register members are not
// loaded, a data-dependent element has no address to compare, and a kernel
// past kMaxForwardingEvaluations is not enumerated.
double KernelAnalysis::forwarded_load_registers() {
    struct Loaded {
        int copy;
        bool again;
        int registers;
    };
    std::unordered_map<uint64_t, Loaded> loaded;
    int copy = 0;
    std::vector<int64_t> element;
    // What `leaf` loads along loop `i` of `tile` from point `p`, in `copy`.
    auto load_along = [&](const LeafAccess &leaf, std::vector<int64_t> p, size_t i, const Span &steps) {
        const int registers = registers_for_bytes(leaf.bytes());
        for (p[i] = steps.min; p[i] <= steps.max(); ++p[i]) {
            if (!element_at(leaf, p, element)) return;
            uint64_t key = hash_combine(0x66776400, uint64_t(leaf.callee->id));
            for (int64_t v : element) key = hash_combine(key, uint64_t(v));
            const auto [it, first] = loaded.emplace(key, Loaded{copy, false, registers});
            if (!first && it->second.copy != copy) it->second.again = true;
        }
    };
    int64_t evaluations = 0;
    for (const Entry &e : entries_) {
        if (e.role != Role::Kernel && e.role != Role::Thread) continue;
        // A heap member's loads are not kept in registers across its loops.
        if (e.role == Role::Thread && geometry_.heap_member(e.stage->node->id)) continue;
        const std::vector<size_t> rolled = rolled_loops(e);
        if (rolled.empty()) continue;
        const std::optional<std::vector<Span>> tile = geometry_.thread_tile(*e.stage);
        if (!tile) continue;
        // The copies enumerate the tile's points (or one point); the body
        // of one step, the unrolled loops inside the rolled ones.
        const bool tile_inside = tile_innermost(e);
        const std::vector<int64_t> middle = middle_point(*tile);
        std::vector<Span> copies = *tile, body = *tile;
        for (size_t j = 0; j < tile->size(); ++j) {
            const bool pure = !e.stage->loops[j].is_rvar;
            if (!pure || tile_inside) copies[j] = Span{middle[j], 1};
            if (pure && !tile_inside) body[j] = Span{middle[j], 1};
        }
        for (size_t j : rolled) body[j] = Span{middle[j], 1};
        const std::vector<size_t> unrolled = unrolled_by_ptxas(*e.stage, *tile, rolled, double(points(body)));
        for (size_t i : unrolled) {
            evaluations += points(copies) * points(body) * (*tile)[i].extent * int64_t(leaves(*e.stage).size());
        }
        if (evaluations > kMaxForwardingEvaluations) return 0;
        const std::vector<std::vector<int64_t>> body_points = all_points(body);
        for (const std::vector<int64_t> &at : all_points(copies)) {
            ++copy;
            for (std::vector<int64_t> p : body_points) {
                for (size_t j = 0; j < p.size(); ++j) {
                    if (copies[j].extent > 1) p[j] = at[j];
                }
                for (size_t i : unrolled) {
                    for (const LeafAccess &leaf : leaves(*e.stage)) {
                        if (role_[leaf.callee->id] != Role::Thread && moves_with(leaf, i)) {
                            load_along(leaf, p, i, (*tile)[i]);
                        }
                    }
                }
            }
        }
    }
    double registers = 0;
    for (const auto &[key, value] : loaded) registers += value.again ? value.registers : 0;
    return registers;
}

// The rolled loops of a thread-level stage (`rolled`, innermost first) that
// ptxas unrolls completely (kPtxasFullUnrollBudget): the innermost, if
// short for its body, and each loop around it while the nest stays short;
// none of constant extent unknown at compile time. A step of the innermost
// runs `body_points` points (the unrolled loops inside it), each its own
// arithmetic (a transcendental as a short sequence) and an address and a
// load per load, plus the loop's increment, compare and branch. Inlined
// producers' arithmetic is left out: much of it does not move along the
// loop and is hoisted (seed 1126's variance subtracts a mean computed
// once); counting too few instructions errs towards the registers, not the
// spills.
std::vector<size_t> KernelAnalysis::unrolled_by_ptxas(const Stage &s, const std::vector<Span> &tile,
                                                       const std::vector<size_t> &rolled, double body_points) {
    constexpr double kLoopInstructions = 3;
    double loads = 0;
    for (const LeafAccess &leaf : leaves(s)) loads += role_[leaf.callee->id] == Role::Thread ? 0 : leaf.count;
    double body = body_points * (s.ops.arithmetic() + 20 * s.ops.transcendental + 3 * loads) + kLoopInstructions;
    std::vector<size_t> out;
    for (size_t i : rolled) {
        const double steps = double(tile[i].extent);
        if (steps < 2) continue;
        if (!s.loops[i].static_extent || steps * body * body > kPtxasFullUnrollBudget) break;
        out.push_back(i);
        body = steps * body + kLoopInstructions;
    }
    return out;
}

// What one thread loads of each producer running stage `e`'s tile, in the
// lowered code: the tile's points and unrolled taps enumerated, each
// element once for the copies that reach it by one expression
// (shares_between_copies: rows of a tile load apart, points along a row
// share), and a rolled reduction loop (a Thread member's long taps, a
// chunked product's k) reloading, at every step, what the tile reads
// there (max_filter's 53-tap max over a 4×4 tile loads 53 × 16 elements,
// not the 56 × 4 of its box); what no rolled loop moves is loaded once.
// A strided kernel thread loads its copies of the box apart
// (distinct_thread_copies); a data-dependent index loads at every point.
// Nothing when the tile is too large to enumerate.
std::optional<KernelAnalysis::TileLoads> KernelAnalysis::thread_tile_loads(const Entry &e) {
    const Stage &s = *e.stage;
    const std::optional<std::vector<Span>> tile = geometry_.thread_tile(s);
    if (!tile) return std::nullopt;
    const std::vector<Span> &whole = *tile;
    const std::vector<size_t> rolled = rolled_loops(e);
    // One step: the rolled loops held at their middle, every other loop of
    // the tile (pure points and unrolled taps) enumerated.
    std::vector<Span> box = whole;
    const std::vector<int64_t> middle = middle_point(box);
    for (size_t i : rolled) box[i] = Span{middle[i], 1};
    if (points(box) > kMaxTilePoints) return std::nullopt;
    const std::vector<std::vector<int64_t>> step_points = all_points(box);
    const std::vector<size_t> numbered = numbered_loops(e, box);
    struct Elements {
        ElementLoads moving, hoisted, checked_moving, checked_hoisted;
        double steps = 1;
    };
    std::map<int, Elements> by_producer;
    uint64_t ordinal = 0;
    std::vector<int64_t> element;
    for (const LeafAccess &leaf : leaves(s)) {
        Elements &el = by_producer[leaf.callee->id];
        double steps = 1;
        bool moves = false;
        for (size_t i : rolled) {
            if (!moves_with(leaf, i)) continue;
            moves = true;
            steps *= double(std::max<int64_t>(whole[i].extent, 1));
        }
        el.steps = std::max(el.steps, steps);
        const auto [apart, checked_apart] = loops_apart(e, leaf, box, middle, numbered);
        // A strided thread's copies of the box each load a data-dependent
        // element of their own, wherever the gather's bound says its
        // footprint lies (distinct_thread_copies).
        const double gathered_copies =
            e.role != Role::Kernel ? 1.0
                                   : double(geometry_.thread_box_copies()) /
                                         double(std::max<int64_t>(geometry_.distinct_thread_copies(leaf.callee->id), 1));
        ++ordinal;
        // Loads of one element by affine indices share a register (the
        // addresses fold to one base and offset); through a clamp or a
        // select they share only with the same text's (index_text), which
        // the numbered loops' values are part of.
        std::map<std::vector<int64_t>, IndexText> texts;
        for (const std::vector<int64_t> &p : step_points) {
            const IndexText &text = numbered.empty() ? leaf.text : text_at(leaf, numbered, p, texts);
            // A data-dependent element is this leaf's own wherever its
            // origin differs: the same text at the same point of the
            // gather's caller is one load.
            const bool computed = element_or_origin(leaf, p, element);
            const bool own = leaf.count > 1;
            uint64_t key = own ? hash_combine(0x6f776e, ordinal) : computed ? text.sharing_key() : text.key;
            if (!computed) key = hash_combine(key, 0x6f726967);
            key = with_element(key, element);
            const double n = (own ? leaf.count : 1.0) * (computed ? 1.0 : gathered_copies);
            add_element(moves ? el.moving : el.hoisted, key_apart(key, apart, p), n);
            add_element(moves ? el.checked_moving : el.checked_hoisted, key_apart(key, checked_apart, p), n);
        }
    }
    TileLoads out;
    for (auto &[id, el] : by_producer) {
        const double copies = e.role == Role::Kernel ? double(geometry_.distinct_thread_copies(id)) : 1.0;
        out.unchecked[id] = copies * (el.steps * total_loads(el.moving) + total_loads(el.hoisted));
        out.checked[id] = copies * (el.steps * total_loads(el.checked_moving) + total_loads(el.checked_hoisted));
    }
    return out;
}

// The loops of a thread-level stage's `box` whose unrolled copies run at
// positions Halide knows when it compiles, so that each copy's indices
// along them are numbers: unrolled taps of constant bounds, and a Thread
// member's pure loops over a span every thread computes whole
// (KernelGeometry::constant_member_span).
std::vector<size_t> KernelAnalysis::numbered_loops(const Entry &e, const std::vector<Span> &box) const {
    const Stage &s = *e.stage;
    std::vector<size_t> out;
    for (size_t i = 0; i < box.size(); ++i) {
        if (box[i].extent <= 1) continue;
        const Loop &loop = s.loops[i];
        const bool numbered = loop.is_rvar ? loop.constant_bounds()
                                           : e.role == Role::Thread &&
                                                 geometry_.constant_member_span(s.node->id, loop.pure_dim);
        if (numbered) out.push_back(i);
    }
    return out;
}

// index_text_at() of `leaf` at `p`'s values of the `numbered` loops, once
// per such values (in `texts`).
const IndexText &KernelAnalysis::text_at(const LeafAccess &leaf, const std::vector<size_t> &numbered,
                                         const std::vector<int64_t> &p,
                                         std::map<std::vector<int64_t>, IndexText> &texts) {
    std::vector<int64_t> values;
    values.reserve(numbered.size());
    for (size_t i : numbered) values.push_back(p[i]);
    auto [it, fresh] = texts.try_emplace(std::move(values));
    if (fresh) it->second = index_text_at(leaf, numbered, p);
    return it->second;
}

// Copies along a loop load apart where shares_between_copies() says so.
// Under a check per serial point, the kernel stage's copies load apart too
// but along its innermost serial loop, where Halide nests the checks (each
// implies the one before): a row's points reuse what the points before
// them loaded (nl_means's output, 4 channels to a checked copy, loads each
// pixel's weight once). A Thread member's points are computed as they are
// unchecked.
std::pair<std::vector<size_t>, std::vector<size_t>> KernelAnalysis::loops_apart(const Entry &e, const LeafAccess &leaf,
                                                                               const std::vector<Span> &box,
                                                                               const std::vector<int64_t> &middle,
                                                                               const std::vector<size_t> &numbered) const {
    const Stage &s = *e.stage;
    int row_loop = -1;
    for (size_t i = 0; i < box.size() && row_loop < 0; ++i) {
        if (!s.loops[i].is_rvar && box[i].extent > 1) row_loop = int(i);
    }
    std::vector<size_t> apart, checked_apart;
    for (size_t i = 0; i < box.size(); ++i) {
        if (box[i].extent <= 1) continue;
        // Copies along a numbered loop share wherever their texts and
        // elements agree (the caller keys them so).
        const bool shares = std::find(numbered.begin(), numbered.end(), i) != numbered.end() ||
                            shares_between_copies(leaf, middle, i, s.is_update());
        const bool checked_copy = e.role == Role::Kernel && !s.loops[i].is_rvar && int(i) != row_loop;
        if (!shares) apart.push_back(i);
        if (!shares || checked_copy) checked_apart.push_back(i);
    }
    return {apart, checked_apart};
}

StageFeatures KernelAnalysis::stage_features(const Entry &e, std::map<int, double> &sectors_by_producer) {
    StageFeatures sf;
    sf.name = e.stage->name;
    set_work_features(e, sf.features);
    set_traffic_features(e, sf.features, sectors_by_producer);
    return sf;
}

// What the stage computes, and the launch it runs in.
void KernelAnalysis::set_work_features(const Entry &e, costmodel::FeatureVector &f) {
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
    f[index(Feature::PointsComputed)] = e.points + 2 * e.chunk_merges;
    f[index(Feature::RecomputeRatio)] = e.points / std::max(1.0, double(points(root_bounds)));
    f[index(Feature::InlinedCalls)] = e.points * inlined_calls(*e.stage);
    f[index(Feature::IsKernelRoot)] = e.role == Role::Kernel;
    // Once per point of an imported schedule's host loops (DimTiling::host).
    f[index(Feature::KernelLaunches)] =
        e.role == Role::Kernel ? double(tiling_.launches(geometry_.pure_extents())) : 0.0;
    f[index(Feature::Blocks)] = double(launched_blocks_);
    f[index(Feature::ThreadsPerBlock)] = double(threads_per_block_);
    f[index(Feature::ActiveThreadFraction)] = e.active_fraction;
    f[index(Feature::SerialIterationsPerThread)] =
        e.role == Role::Kernel ? double(serial_per_thread_) * rvar_points_ / reduction_blocks_ * double(tiles_per_block_)
                               : e.points / std::max(1.0, double(launched_blocks_) * double(threads_per_block_) *
                                                              (block_level(e.role) ? e.active_fraction : 1.0));
    // Independent work a thread has in flight: its unrolled tile (a
    // kernel's serial points; a Thread member's per-thread pure tile,
    // which the writer unrolls inside the member's reduction).
    f[index(Feature::UnrollFactor)] = e.role == Role::Kernel   ? double(unrolled_per_thread_)
                                      : e.role == Role::Thread ? double(points(geometry_.storage_extents(e.stage->node->id)))
                                                               : 1;
    f[index(Feature::RegistersPerThread)] = registers_;
    f[index(Feature::SharedBytesPerBlock)] = double(shared_bytes_);
    f[index(Feature::ResidentBlocksPerSm)] = occupancy_.blocks_per_sm;
    f[index(Feature::Occupancy)] = occupancy_.occupancy;
    f[index(Feature::Waves)] = waves_;
    f[index(Feature::WaveEfficiency)] = wave_efficiency(waves_);
    f[index(Feature::Flops)] = e.points * ops.arithmetic() + e.chunk_merges;
    f[index(Feature::TranscendentalOps)] = e.points * ops.transcendental;
    // A chunked reduction with staged tiles waits twice per chunk: for the
    // tiles to be loaded, and for every thread to be done with them.
    f[index(Feature::BarriersPerBlock)] =
        double(tiles_per_block_) *
        (block_member_stages_ + (e.role == Role::Kernel && staged_ ? 2.0 * double(geometry_.chunks()) : 0.0));
    f[index(Feature::AtomicOps)] = 0;
    set_chain_features(e, f);
}

// A scan (Stage::chain_loop) waits at every serial step of a thread for the
// value the step before stored; only the independent points of its
// unrolled tile advance side by side. A step misses L1 when a global load
// it waits on reaches a sector the step before did not: its own point,
// stored by the stage before (iir_blur's column scan: a new row each
// step), or a producer's element.
void KernelAnalysis::set_chain_features(const Entry &e, costmodel::FeatureVector &f) {
    const Stage &s = *e.stage;
    if (s.chain_loop < 0) return;
    const double steps =
        f[index(Feature::SerialIterationsPerThread)] / std::max(1.0, f[index(Feature::UnrollFactor)]);
    const size_t loop = size_t(s.chain_loop);
    const std::vector<int64_t> middle = middle_point(s.loop_bounds(s.node->root_region));
    const int sector = spec_.global_memory_sector_bytes;
    double miss = 0;
    if (s.reads_own_point && e.role == Role::Kernel) miss = store_new_sector_fraction(s, middle, loop, sector);
    for (const LeafAccess &leaf : leaves(s)) {
        const Role callee = role_[leaf.callee->id];
        if (callee == Role::Thread || block_level(callee)) continue;  // registers, shared memory
        miss = std::max(miss, leaf_new_sector_fraction(leaf, middle, loop, sector));
    }
    f[index(Feature::DependentSteps)] = steps;
    f[index(Feature::DependentStepMisses)] = steps * miss;
}

double KernelAnalysis::active_fraction_of(const Entry &e) const {
    if (!block_level(e.role)) return active_fraction_;
    const int id = e.stage->node->id;
    const std::optional<Region> &region = geometry_.member_region(id);
    const double threads_per_block = double(std::max<int64_t>(threads_per_block_, 1));
    if (const std::vector<int64_t> *threads = geometry_.scope().own_threads(id)) {
        const std::vector<Span> bounds = region ? e.stage->loop_bounds(*region) : std::vector<Span>();
        const int64_t active = threads_with_work(own_loop_threads(*e.stage, *threads), bounds);
        return std::min(1.0, double(active) / threads_per_block);
    }
    if (!region) return active_fraction_;
    const int64_t active =
        active_member_threads(*e.stage, e.stage->loop_bounds(*region), tiling_.thread_extents());
    return std::min(active_fraction_, double(active) / threads_per_block);
}

// Loads and stores: one warp simulated per leaf load and for the store,
// scaled by the warp instructions the stage executes. Global sector
// requests per producer go to `sectors_by_producer` for the memory levels.
void KernelAnalysis::set_traffic_features(const Entry &e, costmodel::FeatureVector &f,
                                          std::map<int, double> &sectors_by_producer) {
    // Idle threads leave lanes of the warps empty, but a warp instruction
    // does at least one point (a member on one thread: one per point).
    const double warp_instructions =
        e.points / std::max(1.0, double(std::max(1, warps_.lanes())) * e.active_fraction);
    double loads_per_point = 0, load_sectors = 0, load_useful = 0, shared_requests = 0, weighted_ways = 0;
    const std::vector<LeafAccess> &stage_leaves = leaves(*e.stage);
    const bool rolled_innermost = !block_level(e.role) && !tile_innermost(e);
    const std::vector<double> sharing = rolled_innermost ? points_per_load(*e.stage) : std::vector<double>();
    // A Block member's load of one element for the whole block (a colour
    // matrix's row, a bias, per block channel) runs once per thread: the
    // compiler hoists it out of the thread's serial loops.
    const double once_per_thread =
        std::min(1.0, double(blocks_) * double(threads_per_block_) * e.active_fraction / std::max(1.0, e.points));
    for (size_t k = 0; k < stage_leaves.size(); ++k) {
        const LeafAccess &leaf = stage_leaves[k];
        loads_per_point += leaf.count;
        const WarpCost c = warps_.load(*e.stage, e.role, leaf);
        const double factor = e.role == Role::Block && block_invariant(*e.stage, leaf) ? once_per_thread
                              : e.role == Role::Block                              ? block_tile_share(*e.stage, leaf)
                              : block_level(e.role)                                ? 1.0
                              : rolled_innermost                                   ? 1.0 / sharing[k]
                                                                                   : reuse_[leaf.callee->id];
        const double instructions = warp_instructions * leaf.count * factor;
        if (c.where == WarpCost::Where::Global) {
            load_sectors += instructions * c.sectors;
            sectors_by_producer[leaf.callee->id] += instructions * c.sectors;
            load_useful += e.points * leaf.count * factor * leaf.bytes();
        } else if (c.where == WarpCost::Where::Shared) {
            shared_requests += instructions;
            weighted_ways += instructions * c.ways;
        }
    }
    // An update stores where it reads its own point (an accumulator).
    // Where that location stays put across the reduction loops
    // (innermost), the value stays in a register across them, so it is read
    // and written once per pure point — per chunk in a chunked reduction,
    // whose partial results stay in registers across a chunk and are added
    // to the Func once per chunk; a scan or a histogram stores somewhere
    // else at every step. Its reads of other points of its own Func (a
    // scan's neighbour, just stored) are loads at every step: the compiler
    // does not forward a store to the next iteration's load (the PTX of
    // iir_blur's scans loads both), and they follow the store's layout.
    double store_sectors_total = 0, shared_stores = 0;
    const double own_point_reads = e.stage->reads_own_point ? 1.0 : 0.0;
    const double own_reads_elsewhere = double(e.stage->own_reads_elsewhere);
    if (e.role == Role::Kernel) {
        const double stores_per_point = kernel_stores_per_point();
        const double sectors_per_access = warp_instructions * warps_.store_sectors(*e.stage, e.role);
        store_sectors_total = sectors_per_access * stores_per_point;
        const double own_loads_per_point = own_point_reads * stores_per_point + own_reads_elsewhere;
        load_sectors += sectors_per_access * own_loads_per_point;
        load_useful += e.points * own_loads_per_point * e.stage->node->bytes_per_point;
        f[index(Feature::GlobalStoreBytesUseful)] = e.points * stores_per_point * e.stage->node->bytes_per_point;
    } else if (e.role == Role::Thread && geometry_.heap_member(e.stage->node->id)) {
        // A heap member's slots, a thread's side by side with its warp's.
        const Node &member = *e.stage->node;
        const double stores_per_point = heap_stores_per_point(*e.stage);
        const double sectors_per_access =
            warp_instructions * double(ceil_div(int64_t(std::max(1, warps_.lanes())) * member.bytes_per_point,
                                                spec_.global_memory_sector_bytes));
        store_sectors_total = sectors_per_access * stores_per_point;
        const double own_loads_per_point = own_point_reads * heap_passes_per_point(*e.stage) + own_reads_elsewhere;
        load_sectors += sectors_per_access * own_loads_per_point;
        load_useful += e.points * own_loads_per_point * member.bytes_per_point;
        f[index(Feature::GlobalStoreBytesUseful)] = e.points * stores_per_point * member.bytes_per_point;
    } else if (block_level(e.role)) {
        shared_stores = warp_instructions;
        const double own_loads = warp_instructions * (own_point_reads + own_reads_elsewhere);
        shared_requests += own_loads, weighted_ways += own_loads;
    }
    f[index(Feature::LoadsPerPoint)] = loads_per_point;
    f[index(Feature::GlobalLoadSectors)] = load_sectors;
    f[index(Feature::GlobalStoreSectors)] = store_sectors_total;
    f[index(Feature::GlobalLoadBytesUseful)] = load_useful;
    f[index(Feature::SharedLoadRequests)] = shared_requests;
    f[index(Feature::SharedStoreRequests)] = shared_stores;
    f[index(Feature::SharedBankConflictWays)] = shared_requests > 0 ? weighted_ways / shared_requests : 1;
    f[index(Feature::WorkingSetBytesPerBlock)] = double(shared_bytes_);
}

// Memory levels, per global producer: the warps' sector requests go to L1;
// what a block's footprint holds is fetched from L2 once per block
// (repeated reads within a block, as with stencil taps or a thread's
// register tile, hit L1); DRAM sees the launch-wide footprint once plus the
// share of L2 traffic that misses when the working set exceeds L2. Stages
// share each producer's traffic by their sector requests.
void KernelAnalysis::share_memory_levels(std::vector<StageFeatures> &stages,
                                         const std::vector<std::map<int, double>> &sectors_by_stage) {
    std::map<int, double> sectors_by_producer;
    for (const auto &stage_sectors : sectors_by_stage) {
        for (const auto &[id, sectors] : stage_sectors) sectors_by_producer[id] += sectors;
    }
    const double sector = spec_.global_memory_sector_bytes;
    std::map<int, double> l2_bytes_by_producer, dram_by_producer;
    for (const auto &[id, sectors] : sectors_by_producer) {
        const double requested = sectors * sector;
        double per_block = requested;
        if (geometry_.block_regions()[id]) {
            const Node &producer = *dag_.nodes()[id];
            const Region &r = *geometry_.block_regions()[id];
            // Whole sectors along the contiguous dimension.
            const double row_bytes = double(r.empty() ? 1 : r[0].extent) * producer.bytes_per_point;
            const double rows = r.empty() ? 1 : double(points(r)) / double(std::max<int64_t>(r[0].extent, 1));
            per_block = std::ceil(row_bytes / sector + 1) * sector * rows * double(blocks_);
        }
        const double l2 = std::min(requested, per_block);
        const double unique = unique_bytes_.count(id) ? unique_bytes_[id] : 0;
        l2_bytes_by_producer[id] = l2;
        dram_by_producer[id] = std::min(l2, unique + std::max(0.0, l2 - unique) * l2_miss_);
    }
    for (size_t i = 0; i < stages.size(); ++i) {
        auto &f = stages[i].features;
        double dram = 0, l2 = 0;
        for (const auto &[id, sectors] : sectors_by_stage[i]) {
            const double total = sectors_by_producer[id];
            const double share = total > 0 ? sectors / total : 0;
            dram += share * dram_by_producer[id];
            l2 += share * l2_bytes_by_producer[id];
        }
        if (entries_[i].role == Role::Kernel) {
            // Stores go through L2 a sector per lane's store (a store that
            // fills part of a sector still moves it). An update's reads of
            // the points it stores are loads, from DRAM: where the loop
            // point decides the location, the thread's next points share
            // their sectors through L1 (iir_blur's backward pass, a row per
            // thread and its lanes' stores 32 sectors apart, fetches each
            // sector once, as its forward pass fetches its input, and the
            // two take the same time on the H200); a histogram's bins, a
            // sector per read. What a scan reads of the point it just
            // stored, L1 holds.
            const Stage &kernel_stage = *entries_[i].stage;
            const double store_l2 = f[index(Feature::GlobalStoreSectors)] * sector;
            const double own_read_l2 = !kernel_stage.reads_own_point ? 0.0
                                       : kernel_stage.store_reads_data
                                           ? store_l2
                                           : f[index(Feature::GlobalStoreBytesUseful)];
            dram += own_bytes_ * (kernel_stage.reads_own_point ? 2 : 1);
            l2 += store_l2 + own_read_l2;
        }
        f[index(Feature::DramBytes)] = dram;
        f[index(Feature::L2Bytes)] = std::max(0.0, l2 - dram);
    }
}

// A stage whose rolled reduction runs innermost issues a load whose address
// those loops do not move once for all their iterations: the compiler keeps
// it in a register (lens_blur's blur reads its own pixel's depth and radius
// once per 32 taps, its neighbours' at every tap). Per leaf of the stage,
// the points that share one load: the extents of the innermost rolled RVars
// the address does not follow, up to the first it does, times those of the
// unrolled taps it does not follow (copies of one load in straight-line code).
std::vector<double> KernelAnalysis::points_per_load(const Stage &s) {
    const std::vector<Span> box = s.loop_bounds(s.node->root_region);
    const std::vector<int> taps = geometry_.unrolled_rvars(s);
    std::vector<double> out;
    for (const LeafAccess &leaf : leaves(s)) {
        double shared = 1;
        for (size_t i = 0; i < s.loops.size() && s.loops[i].is_rvar; ++i) {
            const bool tap = std::find(taps.begin(), taps.end(), int(i)) != taps.end();
            if (!moves_with(leaf, i)) {
                shared *= double(std::max<int64_t>(box[i].extent, 1));
            } else if (!tap) {
                break;
            }
        }
        out.push_back(shared);
    }
    return out;
}

// A Block member's point runs its unrolled reduction taps as straight-line
// code, and one whose own threads each run an unrolled tile (imported:
// FuncChoice::imported_unrolled_tiles) runs the tile's points there too:
// the code loads an element once for the copies that reach it. Per
// producer, the share of the per-point loads those copies make,
// enumerated at the middle of the member's block region with its rolled
// reduction loops held there (resnet_block's conv1 under Anderson2021, a
// 4 x 4 tile of channels and batches per reduction step, loads 4 inputs
// and 4 weights for 16 points: a quarter of each; a random pipeline's
// per-block sum over 7 up-sampled slices of a 3-tap stencil loads the 4
// slices' 3 rows once, 12 loads for 42). Copies share an element through
// affine indices or one text, a tap's index a number in it (as in
// thread_tile_loads()). None where a producer's index is data-dependent.
std::map<int, double> KernelAnalysis::block_copy_shares(const Stage &s) {
    std::map<int, double> out;
    const std::optional<Region> &region = geometry_.member_region(s.node->id);
    if (!region) return out;
    const std::vector<int64_t> *tile = geometry_.scope().unrolled_tile(s.node->id, s.index);
    const std::vector<int> taps = geometry_.unrolled_rvars(s);
    const std::vector<Span> bounds = s.loop_bounds(*region);
    const std::vector<int64_t> middle = middle_point(bounds);
    std::vector<Span> box(bounds.size());
    std::vector<size_t> numbered;  // the taps: their indices are numbers (numbered_loops())
    for (size_t i = 0, pure = 0; i < bounds.size(); ++i) {
        box[i] = Span{middle[i], 1};
        const Loop &loop = s.loops[i];
        if (loop.is_rvar) {
            const bool tap = std::find(taps.begin(), taps.end(), int(i)) != taps.end();
            if (tap && loop.constant_bounds() && bounds[i].extent > 1) {
                box[i] = bounds[i];
                numbered.push_back(i);
            }
            continue;
        }
        if (!tile) continue;
        const int64_t n = std::min(pure < tile->size() ? (*tile)[pure] : 1, std::max<int64_t>(bounds[i].extent, 1));
        ++pure;
        box[i] = Span{std::max(bounds[i].min, std::min(middle[i], bounds[i].max() + 1 - n)), n};
    }
    const int64_t copies = points(box);
    if (copies < 2 || copies > kMaxTilePoints) return out;
    struct Loads {
        std::set<uint64_t> distinct;
        double naive = 0;
        bool gathered = false;
    };
    std::map<int, Loads> by_producer;
    const std::vector<std::vector<int64_t>> box_points = all_points(box);
    std::vector<int64_t> element;
    for (const LeafAccess &leaf : leaves(s)) {
        Loads &loads = by_producer[leaf.callee->id];
        loads.naive += leaf.count * double(copies);
        std::map<std::vector<int64_t>, IndexText> texts;
        for (const std::vector<int64_t> &p : box_points) {
            if (loads.gathered || !element_at(leaf, p, element)) {
                loads.gathered = true;
                break;
            }
            const IndexText &text = numbered.empty() ? leaf.text : text_at(leaf, numbered, p, texts);
            loads.distinct.insert(with_element(text.sharing_key(), element));
        }
    }
    for (const auto &[id, loads] : by_producer) {
        if (!loads.gathered && loads.naive > 0) out[id] = double(loads.distinct.size()) / loads.naive;
    }
    return out;
}

double KernelAnalysis::block_tile_share(const Stage &s, const LeafAccess &leaf) {
    auto [it, fresh] = block_copy_shares_.try_emplace(&s);
    if (fresh) it->second = block_copy_shares(s);
    const auto share = it->second.find(leaf.callee->id);
    return share == it->second.end() ? 1.0 : share->second;
}

// Whether `leaf` of Block member stage `s` loads one element wherever the
// member's per-block region puts it (at every one of probe_points()); false
// for a data-dependent index.
bool KernelAnalysis::block_invariant(const Stage &s, const LeafAccess &leaf) const {
    const std::optional<Region> &region = geometry_.member_region(s.node->id);
    if (!region) return false;
    const std::vector<std::vector<int64_t>> probes = probe_points(s.loop_bounds(*region));
    const std::optional<std::vector<int64_t>> first = loaded_elements(leaf, {probes.front()});
    if (!first) return false;
    for (const std::vector<int64_t> &p : probes) {
        if (loaded_elements(leaf, {p}) != first) return false;
    }
    return true;
}

// The leaf loads of a stage, composed once per set of inlined Funcs for the
// whole search (StageLeaves.h) and looked up once per kernel.
const std::vector<LeafAccess> &KernelAnalysis::leaves(const Stage &s, uint64_t values) {
    const std::vector<LeafAccess> *&known = leaves_[{&s, values}];
    if (!known) known = &stage_leaves_.of(s, values, role_, node_.id);
    return *known;
}

// Arithmetic of one point of `s`, with inlined producers folded in.
const OpCounts &KernelAnalysis::effective_ops(const Stage &s) {
    auto it = ops_.find(&s);
    if (it != ops_.end()) return it->second;
    OpCounts total = s.ops;
    for (const Edge *e : s.producers) {
        if (role_[e->producer->id] == Role::Inlined) total += effective_ops(*e->producer->stages[0]).scaled(e->calls);
    }
    return ops_[&s] = total;
}

double KernelAnalysis::inlined_calls(const Stage &s) {
    double calls = 0;
    for (const Edge *e : s.producers) {
        if (role_[e->producer->id] == Role::Inlined) calls += e->calls * (1 + inlined_calls(*e->producer->stages[0]));
    }
    return calls;
}

}  // namespace

KernelFeatures analyze_kernel(const FunctionDAG &dag, const costmodel::GpuSpec &spec, const Schedule &schedule,
                              const KernelScope &scope, StageLeaves &leaves, InlinedFolds &folds) {
    return KernelAnalysis(dag, spec, schedule, scope, leaves, folds).compute();
}

KernelFeatures analyze_extern_kernel(const Node &node, const costmodel::GpuSpec &spec) {
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
    f[index(Feature::Blocks)] = spec.sm_count * 4.0;
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
