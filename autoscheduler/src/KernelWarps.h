// KernelWarps: one warp of a GPU kernel, simulated — which loop point each
// lane executes first, for the kernel's own stage and for its per-block and
// per-thread members, and from those points the addresses one warp
// instruction touches: global sectors (coalescing), shared-memory bank ways
// (conflicts), or registers. The Featurizer scales these per-instruction
// costs by the instructions each stage executes.
//
// Lanes follow the layout the writer emits (KernelGeometry): consecutive
// lanes step along the kernel's thread dimensions, innermost first; a
// compact thread owns S consecutive serial points, so the next lane starts
// S points later, while a strided one starts one point later.
//
// Example:
//   KernelWarps warps(geometry, roles, spec);
//   LeafAccess load{producer, 1, {&access}};
//   WarpCost c = warps.load(stage, Role::Kernel, load);
//   if (c.where == WarpCost::Where::Global) sectors += c.sectors;
#pragma once

#include "FunctionDAG.h"
#include "KernelGeometry.h"
#include "Schedule.h"

#include "strata/costmodel/GpuSpec.h"

#include <map>
#include <optional>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

namespace strata::autoscheduler {

// What Halide's common-subexpression elimination compares of a load
// (index_text() below).
struct IndexText {
    uint64_t key = 0;     // equal for equal texts (callee included)
    bool affine = true;   // every index affine in the loops: no clamp, select or inexact division
    // What loads of one element share a register by: any affine text (the
    // addresses fold to one base and offset), else only the same text.
    uint64_t sharing_key() const { return affine ? 0x656c656d : key; }
};

// A load as a stage finally performs it: through zero or more inlined Funcs
// (all but the last access of the chain) into a stored Node.
struct LeafAccess {
    const Node *callee = nullptr;
    double count = 1;  // loads per point of the calling stage
    std::vector<const Access *> chain;
    // index_text(*this), kept by whoever composes the chain (KernelAnalysis's
    // leaves): comparing loads must not walk their chains again.
    IndexText text;
    // Bytes one load reads: the tuple elements the last call reads for the
    // values its caller is read for (Access::bytes_for; a lens_blur depth
    // read takes depth_search's index, 4 of its 8 bytes).
    int read_bytes = 0;
    int bytes() const { return read_bytes > 0 ? read_bytes : callee->bytes_per_point; }
};

// Memory behaviour of one warp instruction.
struct WarpCost {
    enum class Where { Global, Shared, Registers } where = Where::Global;
    int sectors = 0;  // global
    int ways = 1;     // shared
};

// Whether the address `leaf` loads is written over loop `loop` of its
// calling stage (through the chain's inlined Funcs), so that the load is
// not hoisted out of that loop: even where a rounding or a clamp keeps the
// element from one step to the next (`in(min(r, 13) / 2)` loads at every
// step of r, though steps 14 and 15 reach one element). A data-dependent
// index always moves.
//
// Example:
//   if (!moves_with(leaf, r)) loads /= extent;   // hoisted out of loop r
bool moves_with(const LeafAccess &leaf, size_t loop);

// Whether unrolled copies of `leaf`'s load one step apart along `loop` (from
// `point`) reach one element by one expression, so that the compiler loads
// it once for both: where the address does not move with the loop, or
// moves by a constant step along the producer's innermost (unit-stride)
// dimension, which folds into the constant offsets Halide writes. Along an
// outer dimension that holds only `one_load_per_statement` (an update's
// unrolled taps: each step is a statement of its own, whose row offset
// Halide writes whole, lens_blur's 9-row box sum over 8 rows loading 16
// rows); a pure definition's taps share one statement, where Halide writes
// each row as the point's row plus a multiple of the runtime stride, and
// copies load apart (stencil_chain's per-thread stages: 12 rows × 3 taps
// × 8, not 14 × 8). A step through a division (x / 2) depends on the
// parity of a runtime origin, and a data-dependent index on the data:
// copies never share either (camera_pipe's demosaic: 24 loads a point in
// its PTX, priced 10.5 when its rows shared).
//
// Example:
//   if (!shares_between_copies(leaf, middle, y, s.is_update())) key.push_back(point[y]);
bool shares_between_copies(const LeafAccess &leaf, const std::vector<int64_t> &point, size_t loop,
                           bool one_load_per_statement);

// The elements `leaf` loads at each of `points` (loop points of its calling
// stage), one index after another; nullopt when an index is data-dependent.
// Two leaves with the same callee and the same elements at points spread
// over the stage's box (its corners and interior) load one value: Halide's
// common-subexpression elimination gives them one load, however differently
// the inlined Funcs on their way index it.
//
// Example:
//   if (loaded_elements(a, probes) == loaded_elements(b, probes)) count = max(a.count, b.count);
std::optional<std::vector<int64_t>> loaded_elements(const LeafAccess &leaf,
                                                    const std::vector<std::vector<int64_t>> &points);

// The element `leaf` loads at `point`, into `element`; false when an index
// is data-dependent. loaded_elements() for one point, without allocating.
bool element_at(const LeafAccess &leaf, const std::vector<int64_t> &point, std::vector<int64_t> &element);

// element_at(), or where an index is data-dependent, its origin: the point
// of the caller whose index reads data, and how deep in the chain that
// caller is. Everything the load's address depends on is computed from
// that point, so two points of one leaf with one origin load one element
// by one expression (a mirrored row of a gather's caller, reached by
// several rows of an unrolled tile, is gathered once).
//
// Example:
//   const bool exact = element_or_origin(leaf, p, element);   // else `element` holds the origin
//   uint64_t key = exact ? 0 : leaf.text.key;
//   for (int64_t v : element) key = hash_combine(key, uint64_t(v));
bool element_or_origin(const LeafAccess &leaf, const std::vector<int64_t> &point, std::vector<int64_t> &element);

// The indices `leaf` loads at as Halide writes them once the chain's
// inlined Funcs are substituted and simplified (IndexForm.h), loop i of the
// calling stage standing for an atom of its own; a data-dependent index is
// an atom of its text and of the forms of the loops it is written over.
// Halide's common-subexpression elimination gives one load to each distinct
// text: two leaves of one callee with equal texts are one load, two that
// reach the same element through different clamps are two.
//
// Example:
//   leaf.text = index_text(leaf);
//   if (a.text.key == b.text.key) count = std::max(a.count, b.count);   // one load
IndexText index_text(const LeafAccess &leaf);
// The same with the calling stage's loops in `fixed` at their values in
// `at` (one value per loop), the others atoms: what an unrolled copy's
// load compares where those loops' positions are compile-time constants
// (an unrolled tap of constant bounds: `in(x, r / 4)` is `in(x, 0)` at
// r = 0..3, one load; `in((x + r) / 2)` is a text per r).
//
// Example:
//   const bool one_load = index_text_at(leaf, {r}, p).key == index_text_at(leaf, {r}, q).key;
IndexText index_text_at(const LeafAccess &leaf, const std::vector<size_t> &fixed, const std::vector<int64_t> &at);

// index_text() of the chains a search meets, each composed once (a
// kernel analysis reads the texts of all its leaves, and most chains recur
// in thousands of kernels). Keyed by a chain's Access pointers, so one
// cache serves one FunctionDAG and lives no longer than it. Safe to share
// between threads.
//
// Example:
//   IndexTexts texts;                 // beside the DAG (StageLeaves')
//   leaf.text = texts.of(leaf);
class IndexTexts {
public:
    IndexText of(const LeafAccess &leaf);

private:
    struct ChainHash {
        size_t operator()(const std::vector<const Access *> &chain) const;
    };
    std::shared_mutex mutex_;
    std::unordered_map<std::vector<const Access *>, IndexText, ChainHash> texts_;
};

// How often a thread stepping loop `loop` of stage `s` from `point` loads
// from a global sector its step before did not touch: 1 when the element
// moves a sector or more per step (the next row), its stride over the sector
// when it walks along a row, 0 when it stays put. A data-dependent index
// counts as a new sector every step.
//
// Example:
//   double misses = steps * std::max(leaf_new_sector_fraction(leaf, middle, r, 32),
//                                    store_new_sector_fraction(s, middle, r, 32));
double leaf_new_sector_fraction(const LeafAccess &leaf, const std::vector<int64_t> &point, size_t loop,
                                int sector_bytes);
// The same for the point stage `s` stores, in its Func's root buffer.
double store_new_sector_fraction(const Stage &s, const std::vector<int64_t> &point, size_t loop, int sector_bytes);

class KernelWarps {
public:
    // `roles`: each Func's role in the kernel (KernelScope::role).
    KernelWarps(const KernelGeometry &geometry, const NodeMap<Role> &roles, const costmodel::GpuSpec &spec);

    // Lanes in one warp: the warp size, or fewer when the block is smaller.
    int lanes() const { return lanes_; }

    // One warp instruction of stage `s` (role `r` in the kernel) performing `leaf`.
    WarpCost load(const Stage &s, Role r, const LeafAccess &leaf);

    // Sectors of one warp's store of stage `s` (pure left-hand side) to its own Func.
    int store_sectors(const Stage &s, Role r);

private:
    std::vector<int64_t> lane_coords(int lane) const;
    int64_t thread_stride(int loop) const;
    // The first loop point of lane `lane` in a kernel's own stage or a per-thread member.
    std::vector<int64_t> lane_point(const Stage &s, Role r, int lane);
    std::vector<std::vector<int64_t>> block_member_lane_points(const Stage &s) const;
    // lane_point() of every lane, computed once per stage: a stage performs
    // many loads from the same lanes.
    const std::vector<std::vector<int64_t>> &lane_points(const Stage &s, Role r);

    const KernelGeometry &geometry_;
    const NodeMap<Role> &roles_;
    const costmodel::GpuSpec &spec_;
    int lanes_ = 1;
    // Per lane, each Func's per-thread region (Thread members), computed on first use.
    std::map<int, NodeRegions> lane_regions_;
    std::map<std::pair<const Stage *, Role>, std::vector<std::vector<int64_t>>> lane_points_;
    // load()'s scratch: one warp's addresses and one lane's element.
    std::vector<int64_t> addresses_, index_;
};

}  // namespace strata::autoscheduler
