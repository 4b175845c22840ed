// KernelGeometry: what one GPU kernel of a Schedule covers, in the layout the
// ScheduleWriter emits — derived in one place, read by the Featurizer (which
// prices it) and by the writer (which bounds every member's storage with
// it), so that what Strata emits is what it prices.
//
// A kernel is a Root Func's stage. Its scope is that stage, the Funcs placed
// in it (Block members: computed once per block into shared memory; Thread
// members: once per thread into registers; Staged members: once per block
// and chunk of a chunked reduction, into shared memory) and the Funcs
// inlined into any of them. For the kernel's own stage the geometry gives the loop box of the
// whole launch, of a representative interior block, and of a representative
// interior thread; for every scope Func and every global producer the scope
// reads, the region it covers for each of those boxes; and for members, the
// constant storage extents that bound their per-block or per-thread region at
// every position of the tile (a footprint such as x/2 covers one point more
// at odd offsets; a clamped one changes near the borders), which become
// bound_storage() calls.
//
// Imported schedules place Thread members where Strata's writer never
// does, and the regions follow what Halide computes there: outside some of
// the kernel's thread loops (spanning members: every thread covers all of
// their points), inside a thread's serial loop (recomputed members: one
// computation per point of it), or at a thread loop of a Block member with
// thread loops of its own (hosted members: one computation per thread of
// that member).
//
// A member read under a select whose condition loads nothing covers only
// where the condition picks it (Edge::narrowed), so its size can depend on
// where its tile lies, not only on how big it is (a causal mask's scores
// per block of keys): placement() finds the loops along which it does,
// and the tile classes price their tiles in runs rather than by one
// interior block. So does a member read by a stage whose where clause
// clamps the read (a factored reduction's lanes stop at the row's end).
//
// A chunked reduction (StageChoice::reduction_chunk) runs its chunked RVar
// in chunks outside the thread loops: a chunk box is the block box with
// that loop narrowed to one chunk, and Staged members cover what one chunk
// box reads.
//
// Thread layouts (GpuTiling::compact): a compact thread owns S consecutive
// points per tiled loop ([t·S, t·S + S)), so what it computes per thread is
// one box; a strided thread owns the points s·T + t, which keeps a warp's
// accesses contiguous but scatters the thread's own points — only kernels
// without Thread members use it, and its per-thread footprint is S copies of
// one point's.
//
// Example:
//   KernelScope scope = KernelScope::collect(dag, schedule, output_id, 0);
//   KernelGeometry g(dag, schedule, scope);
//   Region per_thread = *g.thread_regions()[blur_id];
//   Region storage = g.storage_extents(blur_id);   // what bound_storage() gets
#pragma once

#include "FunctionDAG.h"
#include "NodeMap.h"
#include "Schedule.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace strata::autoscheduler {

enum class Role : uint8_t { None, Kernel, Block, Thread, Inlined, Staged };

// Regions of the nodes a kernel reaches, by node id (nullopt: none).
using NodeRegions = NodeMap<std::optional<Region>>;
// Roles whose Funcs live in shared memory, computed by the block's threads.
inline bool block_level(Role r) { return r == Role::Block || r == Role::Staged; }

// The Funcs one kernel computes.
struct KernelScope {
    int func = -1, stage = 0;
    NodeMap<Role> role;        // by node id; Role::None for the nodes not in the kernel
    std::vector<int> members;  // Block, Thread, Staged and Inlined Funcs other than the kernel's, consumers first
    // Block members on thread loops of their own: id, FuncChoice::imported_threads.
    std::vector<std::pair<int, std::vector<int64_t>>> imported_threads;
    // Block members whose threads run unrolled tiles: id, FuncChoice::imported_unrolled_tiles.
    std::vector<std::pair<int, std::vector<std::vector<int64_t>>>> unrolled_tiles;
    // Thread members of imported schedules: id, FuncChoice::imported_span.
    std::vector<std::pair<int, std::vector<int64_t>>> spanning_members;
    // Thread members of imported schedules computed anew along serial
    // loops of the thread: id, FuncChoice::imported_per_computation.
    std::vector<std::pair<int, std::vector<int64_t>>> recomputed_members;
    // Thread members of imported schedules computed per thread of a Block
    // member with thread loops of its own: id, FuncChoice::imported_host.
    std::vector<std::pair<int, int>> hosted_members;

    // The span of such a member, or nullptr for any other node.
    const std::vector<int64_t> *span(int id) const { return of_member(spanning_members, id); }
    // The Block member whose threads compute `id`, or -1.
    int host_of(int id) const {
        const int *host = of_member(hosted_members, id);
        return host ? *host : -1;
    }
    // The threads of Block member `id` per pure loop (imported_threads), or nullptr.
    const std::vector<int64_t> *own_threads(int id) const { return of_member(imported_threads, id); }
    // The unrolled tile of Block member `id`'s stage `stage` per pure loop
    // (imported_unrolled_tiles), or nullptr.
    const std::vector<int64_t> *unrolled_tile(int id, int stage) const {
        const std::vector<std::vector<int64_t>> *tiles = of_member(unrolled_tiles, id);
        return tiles && size_t(stage) < tiles->size() ? &(*tiles)[size_t(stage)] : nullptr;
    }
    // The points per computation of such a member, or nullptr for any other node.
    const std::vector<int64_t> *per_computation(int id) const { return of_member(recomputed_members, id); }

    static KernelScope collect(const FunctionDAG &dag, const Schedule &schedule, int func, int stage);
    // Whether some member has this role (a Staged one: the reduction runs in chunks).
    bool has(Role r) const {
        return std::any_of(members.begin(), members.end(), [&](int id) { return role[id] == r; });
    }

private:
    // Member `id`'s entry in one of the imported lists above, or nullptr.
    template <typename T>
    static const T *of_member(const std::vector<std::pair<int, T>> &list, int id) {
        for (const auto &[member, value] : list) {
            if (member == id) return &value;
        }
        return nullptr;
    }
};

// Members whose region size repeats with a longer period than this (as the
// kernel's tile moves) are not bounded, so they are not placed in a kernel.
constexpr int64_t kMaxMemberPeriod = 64;
// A member computed anew along a serial loop covers a region whose size may
// change with the loop's residue (x / 2 per level of a pyramid: a period of
// 4 over two levels); its points are averaged over this many consecutive
// computations per loop.
constexpr int64_t kAveragedComputations = 4;
// The full tiles along a placed loop (KernelGeometry::placed_loop) are
// priced in this many runs of consecutive tiles, at most, each by its
// middle tile: a region that grows linearly along the loop (a triangle's
// rows) is then exact but for the run its edge crosses.
constexpr int64_t kPlacedRuns = 8;

// How the region of `member` — a Func whose consumers are all decided and
// all inside the kernel of (`kernel_func`, `kernel_stage`) — changes size as
// the kernel's tile moves.
struct MemberFootprint {
    // The period with which its size repeats: the product of the divisions
    // on each path from the kernel stage, least common multiple over paths;
    // 0 when no period bounds it (a wrap or a choice on the way, a
    // consumer outside the kernel, or a member consumer that reads it along
    // a reduction loop of its own without a constant extent: the member
    // runs that loop whole, so the buffer spans all of it).
    int64_t period = 1;
    // The same per dimension of the member: a member consumer's unbounded
    // dimension leaves this one's unbounded only where the path reads it
    // along that dimension (lens_blur's accumulator spans a varying number
    // of channels per pixel; the radius it reads per pixel stays one point).
    std::vector<int64_t> dim_periods;
    // A clamp on some path: the size also changes near the borders.
    bool clamped = false;
    // Reduction loops of the kernel stage (loop indices) whose extent is not
    // a compile-time constant (an RDom over an input's extent) and along
    // which some path's footprint grows: a buffer computed outside such a
    // loop covers all of it, a size Halide cannot prove constant.
    std::set<int> symbolic_reductions;
    // Some path reads it only under a condition (Edge::conditional): where
    // the condition fails, Halide computes less of it, possibly nothing.
    bool conditional = false;
    // Pure loops of the kernel stage (loop indices) along which some path's
    // footprint grows: a per-block buffer's extent along them follows the
    // block's tile there.
    std::set<int> followed_loops;
    // Some path reads it under a condition that narrows its region
    // (Edge::narrowed): the size changes with the tile's place, not only
    // near the borders, down to nothing.
    bool narrowed = false;
};
MemberFootprint member_footprint(const FunctionDAG &dag, const Schedule &schedule, int member, int kernel_func,
                                 int kernel_stage);

// The reduction loops the writer unrolls in a stage: its innermost RVars
// of constant extent while their product stays small (a 3×3 stencil's taps:
// the loop overhead goes, the loads become independent instructions, and
// an unrolled serial tile around them shares the loads of overlapping
// taps). Loop indices, innermost first; none at or past `stop_at` (a
// chunked RVar).
constexpr int64_t kMaxUnrolledReduction = 16;
std::vector<int> unrolled_taps(const Stage &stage, int stop_at = -1);
// The most points of straight-line code a thread-level stage's unrolled
// loops may make when the writer also unrolls the reduction loops along
// which the stage indexes a Thread member (KernelGeometry::unrolled_rvars):
// lens_blur's argmin over 32 depth slices, depthwise's 3×3 taps over an
// 8-point tile.
constexpr int64_t kMaxUnrolledPoints = 128;
// Nor when the Thread members it indexes along them take more 32-bit
// registers than this: straight-line code keeps all their values live at
// once beside what computes them (a random pipeline's 74-value member of
// gathered tanh values, read over an unrolled 74-step sum: 255 registers
// and 5 KB spilled). Such a kernel stays rolled, and illegal.
constexpr int64_t kMaxUnrolledMemberRegisters = 64;
// The 32-bit registers a value of `bytes` takes (a float64 two), at least one.
inline int registers_for_bytes(int bytes) { return bytes > 4 ? (bytes + 3) / 4 : 1; }
// The number of a stage's loops that are RVars.
size_t rvar_loops(const Stage &stage);
// The middle point of a loop box (one value per loop), away from its borders.
std::vector<int64_t> middle_point(const std::vector<Span> &box);

class KernelGeometry {
public:
    KernelGeometry(const FunctionDAG &dag, const Schedule &schedule, const KernelScope &scope);

    const Node &node() const { return node_; }
    const Stage &stage() const { return stage_; }
    const GpuTiling &tiling() const { return tiling_; }
    const KernelScope &scope() const { return scope_; }
    bool in_kernel(const Stage &s) const;

    // Loop boxes of the kernel's stage (one Span per loop, innermost first).
    const std::vector<Span> &whole_box() const { return whole_box_; }
    // Points the launch computes: the whole box's, with each pure loop
    // rounded up to whole tiles where its tail is not guarded (imported
    // schedules, DimTiling::tail).
    double computed_points() const { return computed_points_; }
    const std::vector<Span> &block_box() const { return block_box_; }
    // One thread's points: compact, its S-point tile; strided, its first point
    // (it owns serial_per_thread() copies of that point's footprint).
    const std::vector<Span> &thread_box() const { return thread_box_; }
    // Copies of thread_box() a thread computes: 1 when compact, S when strided.
    int64_t thread_box_copies() const { return thread_box_copies_; }
    // Of those copies, how many read distinct values of `node`: a strided
    // thread's serial points along a loop that `node`'s footprint does not
    // follow (a matrix product's rows along its columns) read the same ones.
    int64_t distinct_thread_copies(int node) const;
    // Elements of `node` one thread's box reaches (0 where it reaches none):
    // at thread_box(), or one block lower along every tiled loop, whichever
    // reaches more. Where a clamp pins two of a thread's points to one
    // element (a box at the border the pipeline pads), the code still
    // loads them apart: their index expressions differ.
    int64_t thread_elements(int node) const;
    // Where the block tile does not divide some loop's extent, each serial
    // point a thread unrolls runs under its own bounds check (GuardWithIf).
    // Thread members' points are computed under those checks too, and the
    // compiler shares no load between two of them: the copies of the
    // thread box that load separately (its serial points; 1 when every
    // extent is divided), and the regions of one copy (the thread box
    // narrowed to one point along its serial loops).
    int64_t guarded_copies() const { return guarded_copies_; }
    const NodeRegions &guarded_thread_regions() const { return guarded_thread_regions_; }
    // The kernel's own stage fares better: Halide nests the checks of the
    // points along its innermost unrolled serial loop (each implies the one
    // before), so a point reuses what the points before it on that row
    // loaded (nl_means's output, one checked copy unrolling 4 channels,
    // loads each pixel's weight once for its channels, as its lowered code
    // does; priced once per channel, it was 1.5x what Halide loads). The
    // rows along its other serial loops load apart: their count, and the
    // regions of one row.
    int64_t guarded_rows() const { return guarded_rows_; }
    const NodeRegions &guarded_row_regions() const { return guarded_row_regions_; }
    // The share of the launch's threads that run those checks. Halide
    // partitions the block loops into an unchecked interior and checked
    // border blocks, unless the kernel synchronizes its threads (a Block or
    // Staged member) or computes a Thread member with a loop Halide does not
    // unroll (its checks are then not in an innermost loop): 1 then, the
    // border blocks' share otherwise, 0 when nothing is checked.
    double guarded_fraction() const { return guarded_fraction_; }
    // The reduction loops (indices, innermost first) the writer unrolls in
    // `stage`, a stage of this kernel's scope: its unrollable taps
    // (unrolled_taps(), none at or past a chunked RVar), none for a Thread
    // member with pure loops (it unrolls its tile inside its reduction);
    // and, in the kernel's own unchunked stage and in Thread members, every
    // reduction loop of constant extent along which the stage indexes a
    // Thread member, while the straight-line code stays within
    // kMaxUnrolledPoints and those members within
    // kMaxUnrolledMemberRegisters — but none, taps included, in the
    // kernel's own update when its RDom has a where clause (each unrolled
    // step would keep its guarded load and store of the accumulator in
    // global memory). A register buffer indexed along a
    // loop left rolled is no register: Halide keeps it in an array on the
    // thread's stack (ptxas: 384 bytes for lens_blur's 32 depth costs read
    // over 32 rolled slices). The one source of what is rolled for the
    // writer and the Featurizer.
    //
    // Example:
    //   for (int r : geometry.unrolled_rvars(stage)) out.push_back(Directive::unroll(f, s, stage.loops[r].handle()));
    std::vector<int> unrolled_rvars(const Stage &stage) const;
    // The loop box one thread computes of `stage`, a thread-level stage of
    // this kernel: the kernel stage's thread box, or a Thread member's
    // per-thread region; nullopt where it computes none.
    std::optional<std::vector<Span>> thread_tile(const Stage &stage) const;
    // The Thread members other than `stage`'s own Func whose element
    // `stage` (or a Func inlined into it) loads moves when loop `loop` of
    // its thread tile steps from the tile's middle; an index that depends
    // on loaded data always may. What unrolled_rvars() unrolls, and what a
    // loop left rolled makes illegal.
    //
    // Example:
    //   if (!geometry.thread_members_indexed_along(stage, r).empty()) unroll(r);
    std::set<int> thread_members_indexed_along(const Stage &stage, size_t loop) const;

    // Chunked reductions: the chunked loop (an index into the stage's loops,
    // -1 when not chunked), the number of chunks, and one interior chunk of
    // the interior block (the block box otherwise).
    int chunk_loop() const { return chunk_loop_; }
    int64_t chunks() const { return chunks_; }
    const std::vector<Span> &chunk_box() const { return chunk_box_; }
    // Chunked reductions: the storage of one thread's partial results for
    // one chunk (the Func chunk_partials_name() names, in registers), by its
    // dimension: the thread's tile along each of the kernel Func's
    // dimensions, then 1 along the chunk index.
    std::vector<int64_t> partials_extents() const;

    // The pure loop extents of the kernel stage, and which loops get threads.
    const std::vector<int64_t> &pure_extents() const { return pure_extents_; }
    const std::vector<std::pair<int, int64_t>> &thread_dims() const { return thread_dims_; }
    // The threads per block Halide launches: along each thread dimension
    // the largest extent over the kernel's stage and the thread loops its
    // imported Block members have of their own (Anderson2021 computes
    // depthwise_separable_conv's pw per block on 16 x 16 threads beside
    // the output's 16 x 14: 256 threads launch, 224 of them compute the
    // output).
    int64_t launched_threads_per_block() const;
    // Threads that run (ceil over the serial tiles; every thread of a
    // shifted or rounded-up last tile), over the whole launch.
    double thread_instances() const { return thread_instances_; }

    // Regions by node id (scope Funcs and the global Nodes they read) when the
    // kernel's stage covers each box; nullopt where the kernel reads nothing.
    const NodeRegions &whole_regions() const { return whole_regions_; }
    const NodeRegions &block_regions() const { return block_regions_; }
    const NodeRegions &thread_regions() const { return thread_regions_; }
    const NodeRegions &chunk_regions() const { return chunk_regions_; }
    // The region each member covers where it is computed: per block, per
    // thread, or per block and chunk, by its role.
    const std::optional<Region> &member_region(int member) const;
    // Whether every thread computes the same span of Thread member `member`
    // along its dimension `dim`, with bounds Halide knows when it compiles:
    // the launch's whole span, reached through reduction loops of constant
    // bounds and not through a pure loop one thread spans (a row minimum
    // over 13 rows of a per-thread member: each thread computes rows
    // 0..12). Its unrolled copies there index by constants, so two that
    // reach one element by one expression fold into one load.
    bool constant_member_span(int member, int dim) const;
    // The same for any box of the kernel stage's loops. An imported Thread
    // member (KernelScope::spanning_members) covers what its readers reach
    // over the box widened, along each pure loop, to whole spans of the
    // thread loops inside its compute level: every thread computes it for
    // all of them.
    // An imported Thread member computed anew along a thread's serial loops
    // (KernelScope::recomputed_members) covers, instead, what one
    // computation's points along them reach, in the middle of the box.
    NodeRegions regions_for(const std::vector<Span> &box, bool unclamped = false) const;
    // The points `stage` (a member's) computes per thread over `box` (a
    // thread box) when its Func covers `region` there: for a recomputed
    // member, its computations along the box times the average points of
    // one, over up to kAveragedComputations consecutive ones per loop.
    double member_points(const Stage &stage, const std::vector<Span> &box, const Region &region) const;
    // How many times `member` is computed over `box`: the product, over
    // the serial loops it is computed anew along, of the box's extent over
    // the points one computation covers; for a hosted member (whose box is
    // a block's), its host's threads with work; 1 for any other member.
    double computations(int member, const std::vector<Span> &box) const;

    // The launch's blocks (or threads) in classes of equal boxes: per tiled
    // loop, the full tiles and the partial last one (a 1538-wide loop in
    // 1024-wide tiles has one of each; none where the last tile is whole,
    // shifted inwards or rounded up). What a member computes over the
    // launch is the sum over classes of count × its region for that box.
    // Along a placed loop (placed_loop()) the full tiles split further, each
    // run of consecutive tiles its own class: up to kPlacedRuns of them
    // where sizes change throughout, the first block's, the last block's
    // and the rest where they change at the borders only.
    struct TileClass {
        double count = 0;
        std::vector<Span> box;
    };
    std::vector<TileClass> block_classes() const;
    std::vector<TileClass> thread_classes() const;
    // How many times the thread tiles with points a Thread member is
    // computed by: along a guarded loop with threads and serial points per
    // thread that the member's region does not follow (the same at the
    // loop's first and last thread tiles), every thread tile the blocks
    // launch computes it. The check of each serial point sits inside the
    // member's compute level, so a thread past the extent computes the
    // member all the same (fuzz seed 3339: a 24-channel member per thread
    // of a 12-channel output in blocks of 8 channels, 2 per thread: 4/3);
    // with one point per thread along the loop, Halide hoists the check
    // around the thread's whole body, member included (seed 3182). A
    // member spanning the block's threads along a placed loop
    // (placed_loop()) is computed outside their check, by every launched
    // thread, whatever its region (Mullapudi2016's resnet_block conv1). 1
    // where no such loop has idle threads.
    double idle_thread_factor(int member) const;
    // How the size of some member's region changes with the place of the
    // tile along kernel loop `loop`, for a member read under a narrowing
    // condition (Edge::narrowed) or a clamping where clause that mentions
    // the loop (the last lane block of a factored row). Throughout: a
    // causal mask's scores, per block of keys j, cover the keys j <= i,
    // all of them below the diagonal and none past it. At the borders
    // only: a padded input read where x >= 0 && x < width. Found by moving
    // the representative block and thread tiles to either end of the loop,
    // and then to a quarter and three quarters of it.
    enum class Placement : uint8_t { Uniform, AtBorders, Throughout };
    Placement placement(size_t loop) const {
        return loop < placements_.size() ? placements_[loop] : Placement::Uniform;
    }
    bool placed_loop(size_t loop) const { return placement(loop) != Placement::Uniform; }
    // Blocks times chunks: the full chunks and the partial last one.
    std::vector<TileClass> chunk_classes() const;

    // Constant extents bounding a member's region at every alignment of its
    // block (Block members), thread (Thread members) or chunk (Staged
    // members) tile.
    const Region &storage_extents(int member) const;
    // Whether `member` is a Thread member Halide keeps in a heap buffer in
    // global memory: an imported one (KernelScope::spanning_members; the
    // writer bounds Strata's own with bound_storage) whose size Halide
    // cannot prove constant: no period bounds its size (MemberFootprint:
    // read along a reduction loop of symbolic extent, as
    // depthwise_separable_conv's dw_out by pw over every input channel, or
    // through a wrap or a choice), or it grows along the thread loops inside its level,
    // which Halide lifts out of it and sizes it by (conv_layer's product at
    // Mullapudi2016's c_i, over the
    // 32-point x_vi: min(width - x, 32) wide; local_laplacian's and
    // resnet_block's members, in their lowered code). One whose region does not grow
    // along them (softmax's row maximum at r_i, beside the thread loop over
    // the row) keeps a constant size, per thread, and so does one a thread
    // reads at a single point, whatever the path (a register of one value).
    bool heap_member(int member) const { return heap_members_.count(member) > 0; }
    // Values a Thread member keeps per thread (its storage, all tuple elements,
    // in 32-bit registers; none for a heap member).
    double thread_member_registers(int member) const;
    // Bytes of shared memory all Block and Staged members take per block.
    int64_t shared_bytes_per_block() const;

private:
    NodeRegions regions_over(const std::vector<Span> &box, bool unclamped, bool widen_spanning_members) const;
    void measure_serial_steps();
    void find_heap_members(const Schedule &schedule);
    void find_idle_thread_factors();
    void find_placed_loops();
    // Whether a member's size may depend on where its tile lies, not only
    // on the tile's size: an edge of the scope narrows it, or a where
    // clause clamps what it reads.
    bool member_sizes_may_move() const;
    // `box` widened to whole spans of `span` (per pure loop) inside the whole box.
    std::vector<Span> widened_to_span(const std::vector<Span> &box, const std::vector<int64_t> &span) const;
    // `box` narrowed, along each pure loop with a count in `points`, to that
    // many points: one computation of a recomputed member, the middle one
    // or, by `window`'s digits in base kAveragedComputations, one of those
    // after it; along a thread loop, the box of one of the threads after it.
    std::vector<Span> narrowed_to_computation(const std::vector<Span> &box, const std::vector<int64_t> &points,
                                              int64_t window) const;
    // Whether a thread loop runs over kernel loop `loop`.
    bool threaded(int loop) const;
    // The loop bounds one of `host`'s threads computes of `stage` (one of
    // its stages) within `bounds`: a middle thread's share along each pure
    // loop its own thread loops split.
    std::vector<Span> host_thread_tile(int host, const Stage &stage, const std::vector<Span> &bounds) const;
    // A recomputed member's region at each of those computations of `box`
    // and of the boxes of the threads beside it along the thread loops
    // (empty for any other member).
    std::vector<Region> computation_regions(int member, const std::vector<Span> &box) const;
    void compute_storage_extents(const Schedule &schedule);
    // Whether Halide's loop partitioning gives the kernel an interior
    // without bounds checks (see guarded_fraction()).
    bool partitions_interior() const;
    // What unrolled_rvars() adds to `taps` for a thread-level stage whose
    // one thread computes `tile` (its loop box) with `unrolled_points` of
    // it unrolled; nothing where the code would grow past
    // kMaxUnrolledPoints or the members past kMaxUnrolledMemberRegisters.
    std::vector<int> member_indexing_rvars(const Stage &stage, const std::vector<Span> &tile,
                                           int64_t unrolled_points, const std::vector<int> &taps) const;
    // Tile classes for tiles of `tile[i]` points along each loop i with
    // tile[i] > 0.
    std::vector<TileClass> tile_classes(const std::vector<int64_t> &tile) const;
    // Per loop, the block tile (pure loops), 0 for RVars.
    std::vector<int64_t> block_tile() const;
    // The tiling of loop `loop` of the stage (untiled for RVars).
    DimTiling tiling_of_loop(size_t loop) const;

    const FunctionDAG &dag_;
    const KernelScope &scope_;
    const Node &node_;
    const Stage &stage_;
    const GpuTiling &tiling_;

    std::vector<Span> whole_box_, block_box_, thread_box_, chunk_box_;
    int64_t thread_box_copies_ = 1;
    int chunk_loop_ = -1;
    int64_t chunk_ = 0, chunks_ = 1;
    std::vector<int64_t> pure_extents_;
    std::vector<std::pair<int, int64_t>> thread_dims_;  // (loop index in the kernel stage, threads)
    double thread_instances_ = 1;
    double computed_points_ = 1;
    NodeRegions whole_regions_, block_regions_, thread_regions_, chunk_regions_;
    int64_t guarded_copies_ = 1, guarded_rows_ = 1;
    double guarded_fraction_ = 0;
    NodeRegions guarded_thread_regions_, guarded_row_regions_;
    NodeRegions lower_thread_regions_;  // see thread_elements()
    // Strided layouts: per loop with threads and serial points, its serial
    // count and, per Node, whether one serial step (T points) along it
    // moves the Node's footprint (measure_serial_steps()).
    struct SerialStep {
        int64_t serial;
        NodeMap<char> moves;
    };
    std::vector<SerialStep> serial_steps_;
    NodeMap<Region> storage_;  // by node id; empty for non-members
    NodeMap<double> idle_thread_factors_;  // see idle_thread_factor(); 0 for 1
    std::set<int> heap_members_;  // see heap_member()
    std::vector<Placement> placements_;  // by loop index; see placement()
};

}  // namespace strata::autoscheduler
