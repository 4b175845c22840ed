#include "ScheduleWriter.h"

#include "Errors.h"
#include "MemberThreads.h"

#include <algorithm>
#include <sstream>

namespace strata::autoscheduler {

namespace {

std::vector<std::string> loop_handles(const Stage &stage, const std::vector<int> &loops) {
    std::vector<std::string> out;
    for (int i : loops) out.push_back(stage.loops[i].handle());
    return out;
}

Halide::TailStrategy tail_strategy(TileTail tail) {
    switch (tail) {
    case TileTail::Guarded: return Halide::TailStrategy::GuardWithIf;
    case TileTail::ShiftedInwards: return Halide::TailStrategy::ShiftInwards;
    case TileTail::RoundedUp: return Halide::TailStrategy::RoundUp;
    }
    return Halide::TailStrategy::GuardWithIf;
}

}  // namespace

ScheduleWriter::ScheduleWriter(const FunctionDAG &dag, const Schedule &schedule, const costmodel::GpuSpec &spec,
                               const std::set<std::string> &kept)
    : dag_(dag), schedule_(schedule), spec_(spec) {
    const std::vector<Node *> funcs = dag.funcs();
    for (const Node *node : funcs) {
        target_.add_func(Halide::Func(node->func));
        for (const auto &stage : node->stages) {
            for (const Loop &loop : stage->loops) {
                if (loop.is_rvar) target_.mark_rvar(node->name, stage->index, loop.handle());
            }
        }
    }
    // Kernels first (outputs towards inputs), so members can name their loops.
    for (auto it = funcs.rbegin(); it != funcs.rend(); ++it) {
        const Node &node = **it;
        if (!schedule.decided(node.id)) fail("internal: Func '" + node.name + "' has no schedule");
        const FuncChoice &choice = schedule.choice(node.id);
        if (choice.placement != Placement::Root || kept.count(node.name)) continue;
        std::vector<Directive> out;
        out.push_back(Directive::compute_root(node.name));
        if (!node.is_extern) {
            for (const auto &stage : node.stages) write_root_stage(node, *stage, choice.stages[stage->index], out);
        }
        per_func_.emplace_back(node.name, std::move(out));
    }
    for (auto it = funcs.rbegin(); it != funcs.rend(); ++it) {
        const Node &node = **it;
        const FuncChoice &choice = schedule.choice(node.id);
        if (!is_member(choice.placement)) continue;
        if (kept.count(node.name)) continue;
        std::vector<Directive> out;
        write_member(node, choice, out);
        per_func_.emplace_back(node.name, std::move(out));
    }
}

void ScheduleWriter::write_root_stage(const Node &node, const Stage &stage, const StageChoice &choice,
                                      std::vector<Directive> &out) {
    const std::string &f = node.name;
    const int s = stage.index;
    // A chunked reduction: its chunk index becomes a pure dimension of an
    // intermediate that holds each chunk's partial results (written by
    // write_chunk_partials); the stage itself then reduces over the chunk
    // index alone, outside the thread loops.
    const int chunk_loop = stage.is_update() && schedule_.runs_in_chunks(node.id, s) ? chunked_rvar(stage) : -1;
    std::string chunk_outer, chunk_index;
    if (chunk_loop >= 0) {
        const std::string r = stage.loops[chunk_loop].handle();
        chunk_outer = r + "_o";
        chunk_index = r + "_chunk";
        out.push_back(Directive::split(f, s, r, chunk_outer, r + "_i", choice.reduction_chunk));
        out.push_back(Directive::rfactor(f, s, {{chunk_outer, chunk_index}}, chunk_partials_name(node)));
    }
    std::vector<std::string> rvars, serial, threads, blocks;
    size_t pure_index = 0;
    for (const Loop &loop : stage.loops) {
        if (loop.is_rvar) {
            if (chunk_loop < 0) rvars.push_back(loop.handle());
            continue;
        }
        const DimTiling dim = pure_index < choice.tiling.dims.size() ? choice.tiling.dims[pure_index] : DimTiling{};
        ++pure_index;
        const std::string v = loop.handle();
        if (dim.tile() <= 1) {
            blocks.push_back(v);
            continue;
        }
        const std::string vb = v + "_b", vi = v + "_i";
        out.push_back(Directive::split(f, s, v, vb, vi, dim.tile(), tail_strategy(dim.tail)));
        blocks.push_back(vb);
        if (dim.threads > 1 && dim.serial > 1) {
            const std::string vs = v + "_s", vt = v + "_t";
            if (choice.tiling.compact) {
                out.push_back(Directive::split(f, s, vi, vt, vs, dim.serial));
            } else {
                out.push_back(Directive::split(f, s, vi, vs, vt, dim.threads));
            }
            serial.push_back(vs);
            threads.push_back(vt);
        } else if (dim.threads > 1) {
            threads.push_back(vi);
        } else {
            serial.push_back(vi);
        }
    }
    if (blocks.empty()) {
        // No pure loop to parallelize (a scalar, or a reduction into data-dependent places).
        out.push_back(Directive::gpu_single_thread(f, s));
        kernel_loops_[{node.id, s}] = KernelLoops{};
        return;
    }
    // The reduction runs innermost (an accumulator per point) — or, chunked,
    // only the chunk index is left of it, outside the threads.
    std::vector<std::string> order = rvars;
    order.insert(order.end(), serial.begin(), serial.end());
    order.insert(order.end(), threads.begin(), threads.end());
    if (!chunk_outer.empty()) order.push_back(chunk_outer);
    order.insert(order.end(), blocks.begin(), blocks.end());
    if (order.size() > 1) out.push_back(Directive::reorder(f, s, order));
    // A grid over the GPU's y/z limits: every block loop fused into x.
    // Otherwise at most three block dimensions: fuse the outer ones.
    if (choice.tiling.fuse_all_blocks(pure_extents(stage), spec_)) {
        while (blocks.size() > 1) {
            const std::string fused = blocks[0] + "_" + blocks[1];
            out.push_back(Directive::fuse(f, s, blocks[0], blocks[1], fused));
            blocks[0] = fused;
            blocks.erase(blocks.begin() + 1);
        }
    }
    while (blocks.size() > 3) {
        const std::string fused = blocks[2] + "_" + blocks[3];
        out.push_back(Directive::fuse(f, s, blocks[2], blocks[3], fused));
        blocks[2] = fused;
        blocks.erase(blocks.begin() + 3);
    }
    out.push_back(Directive::gpu_blocks(f, s, blocks));
    if (!threads.empty()) out.push_back(Directive::gpu_threads(f, s, threads));
    for (const std::string &v : serial) out.push_back(Directive::unroll(f, s, v));
    if (!choice.tiling.partitioned) {
        for (const std::string &b : blocks) out.push_back(Directive::never_partition(f, s, b));
    }
    if (chunk_loop < 0) {
        for (const std::string &r : loop_handles(stage, geometry(node.id, s).unrolled_rvars(stage))) {
            out.push_back(Directive::unroll(f, s, r));
        }
    }
    const KernelLoops &loops = kernel_loops_[{node.id, s}] =
        KernelLoops{blocks.front(), threads.empty() ? "" : threads.front(), chunk_outer, choice.tiling.thread_extents()};
    if (chunk_loop >= 0) write_chunk_partials(node, stage, chunk_loop, chunk_index, loops, out);
}

// One chunk's partial results, per thread in registers: the intermediate
// rfactor() made (the Func's dimensions, then the chunk index) is computed
// inside the innermost thread loop over the thread's tile, with its pure
// loops unrolled inside its reduction loops (the taps unrolled innermost).
// Each operand a reduction step loads serves the whole tile, and the
// accumulators stay in registers across the chunk: a Register allocation
// is promoted whatever guards Halide puts around the unrolled copies
// (accumulating into the Func itself, every guarded copy went through
// global memory at every step).
void ScheduleWriter::write_chunk_partials(const Node &node, const Stage &stage, int chunk_loop,
                                          const std::string &chunk_index, const KernelLoops &loops,
                                          std::vector<Directive> &out) {
    if (loops.innermost_thread.empty()) fail("internal: chunked kernel " + stage.name + " has no thread loop");
    const std::string partials = chunk_partials_name(node);
    out.push_back(Directive::compute_at(partials, node.name, loops.innermost_thread, stage.index));
    std::vector<std::string> dims = node.dim_names;
    dims.push_back(chunk_index);
    const std::vector<int64_t> extents = geometry(node.id, stage.index).partials_extents();
    for (size_t d = 0; d < dims.size(); ++d) out.push_back(Directive::bound_storage(partials, dims[d], extents[d]));
    bound_one_point_extents(partials, dims, extents, out);
    out.push_back(Directive::store_in(partials, "Register"));
    for (const std::string &v : dims) out.push_back(Directive::unroll(partials, 0, v));
    // Its update: the taps, the tile, the chunk index; then the rest of the
    // reduction (the chunk's own iterations in place of the chunked RVar).
    const std::vector<std::string> taps = loop_handles(stage, geometry(node.id, stage.index).unrolled_rvars(stage));
    std::vector<std::string> order = taps, rolled;
    for (int i = 0; i < int(stage.loops.size()); ++i) {
        const Loop &loop = stage.loops[i];
        if (!loop.is_rvar) continue;
        const std::string r = i == chunk_loop ? loop.handle() + "_i" : loop.handle();
        if (std::find(taps.begin(), taps.end(), r) == taps.end()) rolled.push_back(r);
    }
    order.insert(order.end(), dims.begin(), dims.end());
    order.insert(order.end(), rolled.begin(), rolled.end());
    out.push_back(Directive::reorder(partials, 1, order));
    for (const std::string &r : taps) out.push_back(Directive::unroll(partials, 1, r));
    for (const std::string &v : dims) out.push_back(Directive::unroll(partials, 1, v));
}

const KernelGeometry &ScheduleWriter::geometry(int func, int stage) {
    auto &entry = geometries_[{func, stage}];
    if (!entry.second) {
        entry.first = std::make_unique<KernelScope>(KernelScope::collect(dag_, schedule_, func, stage));
        entry.second = std::make_unique<KernelGeometry>(dag_, schedule_, *entry.first);
    }
    return *entry.second;
}

void ScheduleWriter::write_member(const Node &node, const FuncChoice &choice, std::vector<Directive> &out) {
    const Node &kernel = *dag_.nodes()[choice.kernel_func];
    const KernelLoops &loops = kernel_loops_.at({choice.kernel_func, choice.kernel_stage});
    if (choice.placement == Placement::Thread) {
        if (loops.innermost_thread.empty()) fail("internal: thread placement in a kernel without threads");
        out.push_back(Directive::compute_at(node.name, kernel.name, loops.innermost_thread, choice.kernel_stage));
        bound_member_storage(node, choice, out);
        write_thread_member(node, geometry(choice.kernel_func, choice.kernel_stage), out);
    } else {
        // Block members once per block; staged tiles once per chunk of the
        // kernel's reduction. Either way the block's threads compute them.
        const std::string &at = choice.placement == Placement::Staged ? loops.chunk : loops.innermost_block;
        if (at.empty()) fail("internal: staged Func '" + node.name + "' in a kernel whose reduction has no chunks");
        out.push_back(Directive::compute_at(node.name, kernel.name, at, choice.kernel_stage));
        bound_member_storage(node, choice, out);
        write_block_member(node, geometry(choice.kernel_func, choice.kernel_stage), loops, out);
    }
}

// A register buffer needs extents Halide proves constant. Along a
// dimension the thread covers one point of, the extent is exactly 1, said
// outright: Halide's bounds name a fused block index two ways (the loop's
// variable, the GPU's) and cannot prove it. A longer tile dimension keeps
// its guarded extent (bound_extent() would compute past the edge of the
// image).
void ScheduleWriter::bound_one_point_extents(const std::string &func, const std::vector<std::string> &dims,
                                             const std::vector<int64_t> &extents, std::vector<Directive> &out) {
    for (size_t d = 0; d < dims.size() && d < extents.size(); ++d) {
        if (extents[d] == 1) out.push_back(Directive::bound_extent(func, dims[d], 1));
    }
}

void ScheduleWriter::bound_member_storage(const Node &node, const FuncChoice &choice, std::vector<Directive> &out) {
    const Region &storage = geometry(choice.kernel_func, choice.kernel_stage).storage_extents(node.id);
    if (storage.size() != node.dim_names.size()) {
        fail("internal: no storage extents for member '" + node.name + "' of kernel '" +
             dag_.nodes()[choice.kernel_func]->name + "'");
    }
    for (size_t d = 0; d < storage.size(); ++d) {
        out.push_back(Directive::bound_storage(node.name, node.dim_names[d], std::max<int64_t>(storage[d].extent, 1)));
    }
    // Not where the member is read under a condition: Halide may need none
    // of it there, and a forced point would be computed anyway, past the
    // edge of what it reads.
    if (choice.placement == Placement::Thread &&
        !member_footprint(dag_, schedule_, node.id, choice.kernel_func, choice.kernel_stage).conditional) {
        std::vector<int64_t> extents;
        for (const Span &span : storage) extents.push_back(span.extent);
        bound_one_point_extents(node.name, node.dim_names, extents, out);
    }
    out.push_back(Directive::store_in(node.name, choice.placement == Placement::Thread ? "Register" : "GPUShared"));
}

void ScheduleWriter::write_thread_member(const Node &node, const KernelGeometry &geometry,
                                         std::vector<Directive> &out) {
    // Each stage's pure loops are unrolled innermost, its reduction outside
    // them: a reduction's accumulators stay in registers across it and each
    // operand is loaded once per reduction step for the whole tile. Of the
    // reduction loops, those the geometry says (unrolled_rvars).
    const std::string &f = node.name;
    for (const auto &stage : node.stages) {
        const int s = stage->index;
        std::vector<std::string> pure, rvars;
        for (const Loop &loop : stage->loops) (loop.is_rvar ? rvars : pure).push_back(loop.handle());
        std::vector<std::string> order = pure;
        order.insert(order.end(), rvars.begin(), rvars.end());
        if (!rvars.empty() && !pure.empty()) out.push_back(Directive::reorder(f, s, order));
        for (const std::string &v : pure) out.push_back(Directive::unroll(f, s, v));
        for (const std::string &r : loop_handles(*stage, geometry.unrolled_rvars(*stage))) {
            out.push_back(Directive::unroll(f, s, r));
        }
    }
}

void ScheduleWriter::write_block_member(const Node &node, const KernelGeometry &geometry, const KernelLoops &loops,
                                       std::vector<Directive> &out) {
    const std::string &f = node.name;
    const std::optional<Region> &region = geometry.member_region(node.id);
    if (!region) fail("internal: no per-block region for member '" + node.name + "'");
    for (const auto &stage : node.stages) {
        const int s = stage->index;
        const std::vector<int64_t> loop_threads =
            member_loop_threads(*stage, stage->loop_bounds(*region), loops.thread_extents);
        std::vector<std::string> rvars, serial, other, threads;
        for (size_t i = 0; i < stage->loops.size(); ++i) {
            const Loop &loop = stage->loops[i];
            const std::string v = loop.handle();
            if (loop.is_rvar) {
                rvars.push_back(v);
            } else if (loop_threads[i] > 1) {
                const std::string vs = v + "_s", vt = v + "_t";
                out.push_back(Directive::split(f, s, v, vs, vt, loop_threads[i]));
                serial.push_back(vs);
                threads.push_back(vt);
            } else {
                other.push_back(v);
            }
        }
        std::vector<std::string> order = rvars;
        order.insert(order.end(), serial.begin(), serial.end());
        order.insert(order.end(), other.begin(), other.end());
        order.insert(order.end(), threads.begin(), threads.end());
        if (order.size() > 1) out.push_back(Directive::reorder(f, s, order));
        if (!threads.empty()) out.push_back(Directive::gpu_threads(f, s, threads));
        for (const std::string &r : loop_handles(*stage, geometry.unrolled_rvars(*stage))) {
            out.push_back(Directive::unroll(f, s, r));
        }
    }
}

void ScheduleWriter::apply() {
    for (const auto &[func, directives] : per_func_) {
        for (const Directive &d : directives) target_.apply(d);
    }
}

std::string ScheduleWriter::source(const std::map<std::string, int> &func_index) const {
    SourcePrinter printer(func_index);
    std::vector<std::string> named;  // every Func the schedule names but rfactor()'s intermediates
    std::set<std::string> intermediates;
    for (const auto &[func, directives] : per_func_) {
        named.push_back(func);
        for (const Directive &d : directives) {
            if (d.kind == Directive::Kind::RFactor) intermediates.insert(d.result_func);
            if (d.kind == Directive::Kind::ComputeAt) named.push_back(d.names[0]);
        }
    }
    named.erase(std::remove_if(named.begin(), named.end(), [&](const std::string &f) { return intermediates.count(f); }),
                named.end());
    std::ostringstream s;
    s << printer.declare_funcs(named);
    for (const auto &[func, directives] : per_func_) s << printer.print_func(func, directives, target_);
    return s.str();
}

}  // namespace strata::autoscheduler
