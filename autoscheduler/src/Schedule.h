// Schedule: the search's representation of a (possibly partial) GPU schedule
// — for every Func, where it is computed and, for kernels, how it is tiled.
//
//   Inline   folded into every consumer (pure Funcs only)
//   Root     its own kernel per stage, tiled with a GpuTiling (global memory)
//   Block    inside a kernel, once per block, by the block's threads (shared memory)
//   Thread   inside a kernel, once per thread, serially (registers)
//   Staged   inside a kernel whose reduction is chunked, once per block and
//            chunk, by the block's threads (shared memory): a tile of an
//            operand for the chunk's iterations (K-tiling)
//
// Block, Thread and Staged Funcs name the kernel they live in: a Root Func and one of
// its stages. Funcs are decided from the outputs towards the inputs, so when
// a Func is decided all its consumers already are.
//
// Example:
//   Schedule s(dag);
//   s.set(output_id, FuncChoice::root({tiling}));
//   s.set(blur_id, FuncChoice::at(Placement::Block, output_id, 0));
//   bool ok = s.can_place(gray_id, Placement::Thread, output_id, 0);
#pragma once

#include "CowVector.h"
#include "FunctionDAG.h"
#include "GpuTiling.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace strata::autoscheduler {

enum class Placement { Inline, Root, Block, Thread, Staged };
const char *to_string(Placement p);
// Computed inside another Func's kernel (Block, Thread or Staged).
inline bool is_member(Placement p) {
    return p == Placement::Block || p == Placement::Thread || p == Placement::Staged;
}

// The reduction loop a chunked update stage splits (StageChoice::
// reduction_chunk): its RVar of the largest extent at the estimates,
// the outermost among equals; -1 when the stage has no RVar.
int chunked_rvar(const Stage &stage);

// The Func that holds a chunked stage's per-chunk partial results: the
// writer rfactor()s the chunk index of the stage's chunked RVar into a pure
// dimension, and Halide names the intermediate "<func>_intm".
std::string chunk_partials_name(const Node &node);
// The same Func as Halide named it in an applied schedule (unique in the
// process, "<func>_intm$3"), given ScheduleWriter::made_funcs(); the
// schedule's name where the map does not hold it.
std::string chunk_partials_name(const Node &node, const std::map<std::string, std::string> &made_funcs);

// Whether an update stage may run its chunked_rvar() loop in chunks of
// `chunk` with this tiling (K-tiling). The writer computes each chunk's
// partial results per thread in registers (an rfactor() intermediate over
// the thread's tile), which needs an update Halide proves associative and
// can factor (it stores in place, has no specializations, and no other
// Func has the intermediate's name); a thread's tile in one box (compact,
// or one point per thread); threads to load staged tiles with; and a
// chunked RVar at least two chunks long.
bool chunkable(const FunctionDAG &dag, const Stage &stage, const GpuTiling &tiling, int64_t chunk);

struct StageChoice {
    GpuTiling tiling;            // Root stages: their pure loops over the GPU
    // Root update stages: parallelize the reduction with rfactor over the
    // outermost RVar, split by this factor (0: no rfactor).
    int rfactor = 0;
    // Root update stages: run the chunked_rvar() loop in chunks of this many
    // iterations, outside the thread loops, so Staged members are loaded
    // once per chunk; each thread accumulates a chunk's partial results for
    // its tile in registers and adds them to the stage's Func once per
    // chunk (0: no chunks, the reduction innermost). Without a Staged
    // member, or where the stage is not chunkable(), a chunk length has no
    // effect: the stage is written and priced as unchunked (runs_in_chunks()).
    int64_t reduction_chunk = 0;
};

struct FuncChoice {
    Placement placement = Placement::Root;
    int kernel_func = -1;        // members: the Root Func whose kernel holds this one
    int kernel_stage = 0;        //   and which of its stages
    std::vector<StageChoice> stages;  // Root: one per stage
    // Block members of imported schedules only: the threads of the
    // member's own GPU thread loops, per pure loop (innermost first; the
    // member's region may cut a loop short). All ones where it has none:
    // Halide runs it on one thread of the block while the others wait at
    // the barrier after it (Mullapudi2016 computes its members so). Empty:
    // the member is spread over the kernel's threads, as Strata's writer
    // always does (MemberThreads.h).
    std::vector<int64_t> imported_threads;
    // Block members of imported schedules only: per stage, per pure loop
    // (innermost first), the points of the tile each of the member's own
    // threads runs unrolled inside its thread loops (Anderson2021 computes
    // resnet_block's conv1 per block on 56 threads, each running a 4 x 4
    // tile of channels and batches unrolled inside the 3 x 3 x C
    // reduction): a tile's loads of one element share a register. Empty
    // where no stage has one, as for Strata's own Block members, which
    // spread their points over the block's threads one at a time.
    std::vector<std::vector<int64_t>> imported_unrolled_tiles;
    // Thread members of imported schedules only: per pure loop of the
    // kernel's stage (innermost first), the threads of the thread loops
    // inside the member's compute level (Mullapudi2016's compute_at(output,
    // c_i) with the thread loop x_i inside c_i: x_i's 32; ones where none
    // is). Halide runs such a member on every thread over all of those
    // threads' points, in a heap buffer in global memory where it cannot
    // prove its size constant (KernelGeometry::heap_member). Empty for
    // Strata's own members, which the writer bounds (bound_storage).
    std::vector<int64_t> imported_span;
    // Thread members of imported schedules only: per pure loop of the
    // kernel's stage, the points of it one computation of the member
    // covers where its compute level lies inside the thread's serial loop
    // over it (Mullapudi2016's interpolate computes each level at its
    // consumer's innermost serial x: anew at every x, over one x's
    // footprint: 1); 0 where the member covers the thread's whole tile
    // along it. Empty for Strata's own members, computed once per thread.
    std::vector<int64_t> imported_per_computation;
    // Thread members of imported schedules computed at a thread loop of a
    // Block member that has thread loops of its own (imported_threads):
    // that member's id, -1 otherwise. Halide computes it on each of that
    // member's threads over what one of them reads (Anderson2021's
    // harris computes gray's wrapper per thread of ix: 3 x 11 for a
    // thread's 9 rows of ix, on ix's 34 x 4 threads).
    int imported_host = -1;

    static FuncChoice inlined();
    static FuncChoice root(std::vector<StageChoice> stages);
    static FuncChoice at(Placement placement, int kernel_func, int kernel_stage);
    // Whether this is a member of the kernel of (kernel_func, kernel_stage).
    bool member_of(int func, int stage) const {
        return is_member(placement) && kernel_func == func && kernel_stage == stage;
    }
    uint64_t hash() const;
    std::string describe() const;
};

// Where a non-inlined consumer stage runs.
struct KernelSite {
    int func = -1;   // the kernel's Root Func
    int stage = 0;   // the kernel's stage
    Placement level = Placement::Root;  // Root: the kernel's own stage; otherwise a member's placement
    bool operator<(const KernelSite &o) const {
        return std::tie(func, stage, level) < std::tie(o.func, o.stage, o.level);
    }
};

class Schedule {
public:
    explicit Schedule(const FunctionDAG &dag);

    const FunctionDAG &dag() const { return *dag_; }
    int size() const { return int(choices_.size()); }  // nodes, decided or not
    bool decided(int node) const { return choices_[node] != nullptr; }
    const FuncChoice &choice(int node) const { return *choices_[node]; }
    const std::shared_ptr<const FuncChoice> &shared_choice(int node) const { return choices_[node]; }
    void set(int node, FuncChoice choice);
    // Shares an existing choice (schedules in a beam share most of theirs).
    void set(int node, std::shared_ptr<const FuncChoice> choice);

    // Where the (non-inlined) consumers of `node` run, looking through inlined Funcs.
    std::set<KernelSite> consumer_sites(int node) const;

    // Whether `node` may be given this placement (all its consumers decided).
    bool can_place(int node, Placement placement, int kernel_func = -1, int kernel_stage = 0) const;

    // A hash of all decisions (equal schedules, equal hashes): the wrapping
    // sum of one mixed hash per decided Func, kept as choices are set, so
    // that hashing a schedule costs the same whatever the pipeline's size.
    uint64_t hash() const { return hash_; }
    // hash() of this schedule with `node` set to a choice of hash `choice_hash`.
    uint64_t hash_with(int node, uint64_t choice_hash) const;
    // Another hash of the same, folded over the Funcs in order: what orders
    // equal-priced candidates in a beam step (an arbitrary order, but the
    // one the search has always used, so ties resolve as they always have).
    // It walks every Func: compute it for ties only.
    uint64_t tie_order_with(int node, uint64_t choice_hash) const;

    // Whether the Root stage (func, stage) runs its reduction in chunks: it
    // is chunkable() with its chunk length and some Func is Staged in it.
    bool runs_in_chunks(int func, int stage) const;

private:
    const FunctionDAG *dag_;
    // By node. Copies share storage (CowVector): the search copies a
    // schedule for every beam child it keeps and every kernel it queues.
    CowVector<std::shared_ptr<const FuncChoice>> choices_;  // immutable, shared
    CowVector<uint64_t> hashes_;                            // FuncChoice::hash()
    uint64_t hash_ = 0;
};

}  // namespace strata::autoscheduler

namespace strata::autoscheduler {

// The schedule that needs no search: pure Funcs inlined where cheap,
// everything else its own kernel with default_tiling(). It is the fallback
// for pipelines the search cannot handle and the default completion of
// partial schedules. Funcs already decided keep their choice.
void complete_with_defaults(Schedule &schedule, const costmodel::GpuSpec &spec);

// The last resort, for pipelines where even inlining makes Halide fail (its
// simplifier can drop a clamp that its bounds inference then misses): every
// Func that may have its own kernel gets one; only those Halide requires
// inline are inlined.
void complete_with_kernels(Schedule &schedule, const costmodel::GpuSpec &spec);

// The default choice for one Func; with `inline_cheap` false, only a Func
// that must be inlined is.
FuncChoice default_choice(const Node &node, const costmodel::GpuSpec &spec, bool inline_cheap = true);

// Takes `node` out of the kernel it is a member of: it gets its default
// choice (its own kernel, or inlined where that is cheap), and so do the
// members of that kernel that fed it (directly or through inlined Funcs),
// which would otherwise sit in a kernel that no longer consumes them.
void leave_kernel(Schedule &schedule, int node, const costmodel::GpuSpec &spec);

// Runs the chunked kernel (func, stage) unchunked, as where Halide rejects
// its partial results: its Staged members leave it (with what fed them,
// leave_kernel) and its chunk length goes. Returns how many Staged members
// left.
int run_unchunked(Schedule &schedule, int func, int stage, const costmodel::GpuSpec &spec);

// The extents of a stage's pure loops when its Func is computed at root.
std::vector<int64_t> pure_extents(const Stage &stage);

}  // namespace strata::autoscheduler
