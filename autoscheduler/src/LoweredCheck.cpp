//===- LoweredCheck.cpp - what was priced against what was built ----------===//
#include "LoweredCheck.h"

#include "Errors.h"
#include "KernelGeometry.h"

#include <algorithm>
#include <cmath>
#include <fstream>

namespace strata::autoscheduler {

using costmodel::Feature;
using costmodel::index;
using Json = nlohmann::json;

namespace {

// Whether a Thread member lives in a heap buffer (KernelGeometry::
// heap_member): its traffic is global, priced with the rest.
bool in_heap(const FunctionDAG &dag, const Schedule &schedule, int member) {
    const FuncChoice &c = schedule.choice(member);
    if (c.imported_span.empty()) return false;
    const KernelScope scope = KernelScope::collect(dag, schedule, c.kernel_func, c.kernel_stage);
    return KernelGeometry(dag, schedule, scope).heap_member(member);
}

}  // namespace

PricedSchedule priced_schedule(const FunctionDAG &dag, const Schedule &schedule,
                               const ScheduleFeaturization &featurization, const costmodel::GpuSpec &spec,
                               const std::map<std::string, std::string> &made_funcs) {
    PricedSchedule out;
    out.sector_bytes = spec.global_memory_sector_bytes;
    std::map<std::string, const Stage *> stages;
    for (const Node *node : dag.funcs()) {
        out.funcs[node->name] = node->func.outputs();
        double needed = 0;
        for (const auto &st : node->stages) {
            stages[st->name] = st.get();
            double p = 1;
            for (const Span &s : st->loop_bounds(node->root_region)) p *= double(std::max<int64_t>(s.extent, 0));
            needed += p;
        }
        out.needed_points[node->name] = needed;
    }
    std::map<int, PricedKernel> kernels;
    for (const costmodel::StageFeatures &sf : featurization.stages) {
        auto it = stages.find(sf.name);
        if (it == stages.end()) continue;
        // A definition that leaves its values undefined (a scan's pure
        // stage) builds no loop and no kernel.
        const Halide::Internal::Definition &definition = it->second->definition;
        if (definition.defined() && std::all_of(definition.values().begin(), definition.values().end(),
                                                [](const Halide::Expr &v) { return Halide::Internal::is_undef(v); })) {
            continue;
        }
        const Node &node = *it->second->node;
        PricedKernel &k = kernels[sf.kernel];
        const auto &f = sf.features;
        if (f[index(Feature::IsKernelRoot)] > 0) {
            k.name = sf.name;
            k.blocks = f[index(Feature::Blocks)];
            k.launches = f[index(Feature::KernelLaunches)];
            k.threads_per_block = f[index(Feature::ThreadsPerBlock)];
            k.registers = f[index(Feature::RegistersPerThread)];
            // A chunked stage's partial results live per thread in registers.
            if (schedule.runs_in_chunks(node.id, it->second->index)) {
                const std::string partials = chunk_partials_name(node, made_funcs);
                k.members[partials] = "Register";
                out.priced_as[partials] = node.name;
                out.funcs[partials] = node.func.outputs();
            }
        }
        k.points[node.name] += f[index(Feature::PointsComputed)];
        double &threads = k.threads[node.name];
        threads = std::max(threads, f[index(Feature::ThreadsPerBlock)] * f[index(Feature::ActiveThreadFraction)]);
        k.global_load_bytes += f[index(Feature::GlobalLoadBytesUseful)];
        k.load_bytes[node.name] += f[index(Feature::GlobalLoadBytesUseful)];
        k.global_store_bytes += f[index(Feature::GlobalStoreBytesUseful)];
        const Placement placement = schedule.choice(node.id).placement;
        if (placement == Placement::Thread && !in_heap(dag, schedule, node.id)) k.members[node.name] = "Register";
        if (placement == Placement::Block || placement == Placement::Staged) k.members[node.name] = "GPUShared";
    }
    for (auto &[index, k] : kernels) out.kernels.push_back(std::move(k));
    out.values = values_from_estimates(dag);
    return out;
}

namespace {

double relative_difference(double lowered, double priced) {
    return std::fabs(lowered - priced) / std::max(std::fabs(priced), 1.0);
}

Json count_pair(double lowered, double priced) { return Json{{"lowered", lowered}, {"priced", priced}}; }

// Per-Func counts with the Funcs priced as another added to it (or, for
// counts that do not add, the largest kept).
enum class Merge { Sum, Max };
std::map<std::string, double> as_priced(const std::map<std::string, double> &by_func,
                                        const std::map<std::string, std::string> &priced_as,
                                        Merge merge = Merge::Sum) {
    std::map<std::string, double> out;
    for (const auto &[func, n] : by_func) {
        auto alias = priced_as.find(func);
        double &total = out[alias == priced_as.end() ? func : alias->second];
        total = merge == Merge::Sum ? total + n : std::max(total, n);
    }
    return out;
}

// How far apart two counts are, as a factor (1: equal), each taken as at
// least `floor`.
double factor_apart(double lowered, double priced, double floor = 1.0) {
    const double a = std::max(lowered, floor), b = std::max(priced, floor);
    return std::max(a / b, b / a);
}

// Whether an allocation inside a kernel is where the model priced a member
// ("Register": per thread; "GPUShared": per block). Halide's PTX backend
// makes every constant-sized allocation that is not shared a per-thread
// array (an alloca: registers where its indices are constant, local memory
// otherwise), whether the schedule said Register, Stack or nothing (Auto:
// Halide turns an Auto allocation outside the thread loops into shared
// memory and a variable-sized one inside them into heap memory, so an Auto
// one left in the kernel is per thread). Shared memory may be sized per
// launch by the host.
bool holds(const LoweredAllocation &a, const std::string &priced_memory) {
    if (priced_memory == "GPUShared") return a.memory == "GPUShared";
    const bool per_thread = a.memory == "Register" || a.memory == "Stack" || a.memory == "Auto";
    return priced_memory == "Register" && per_thread && a.bytes >= 0;
}

}  // namespace

Json compare_lowered(const PricedSchedule &priced, const LoweredCounts &lowered, double tolerance) {
    Json report;
    Json mismatches = Json::array(), kernels = Json::array();
    auto check = [&](const std::string &kernel, const std::string &what, double l, double p) {
        if (relative_difference(l, p) > tolerance) {
            mismatches.push_back("kernel " + kernel + ": " + what + " lowered " + std::to_string(l) +
                                 ", priced " + std::to_string(p));
        }
    };
    std::map<std::string, const LoweredKernel *> by_name;
    for (const LoweredKernel &k : lowered.kernels) by_name[k.name] = &k;
    std::map<std::string, double> lowered_points;
    for (const LoweredKernel &k : lowered.kernels) {
        for (const auto &[func, n] : as_priced(k.points, priced.priced_as)) lowered_points[func] += n;
    }
    for (const PricedKernel &p : priced.kernels) {
        Json entry = {{"name", p.name}};
        auto found = by_name.find(p.name);
        if (found == by_name.end()) {
            mismatches.push_back("kernel " + p.name + ": priced, but Halide built no kernel for it");
            kernels.push_back(entry);
            continue;
        }
        const LoweredKernel &l = *found->second;
        by_name.erase(found);
        entry["blocks"] = count_pair(l.blocks, p.blocks);
        entry["launches"] = count_pair(l.launches, p.launches);
        entry["grid"] = {l.grid[0], l.grid[1], l.grid[2]};
        entry["block_dims"] = {l.block_dims[0], l.block_dims[1], l.block_dims[2]};
        entry["threads_per_block"] = count_pair(l.threads_per_block, p.threads_per_block);
        entry["priced_registers"] = p.registers;
        entry["global_load_bytes"] = count_pair(l.global_load_bytes, p.global_load_bytes);
        entry["global_store_bytes"] = count_pair(l.global_store_bytes, p.global_store_bytes);
        check(p.name, "blocks", l.blocks, p.blocks);
        check(p.name, "launches", l.launches, p.launches);
        check(p.name, "threads per block", l.threads_per_block, p.threads_per_block);
        // Bytes are the model's traffic against the Stmt's accesses (each
        // distinct address of a straight-line body once, accumulators kept
        // in registers across serial loops): the model's reuse of a
        // thread's tile and of stencil taps is an estimate of what the
        // compiler and L1 do, so they are held to a factor, not a percentage.
        auto check_bytes = [&](const std::string &what, double l, double priced_bytes) {
            if (factor_apart(l, priced_bytes, priced.sector_bytes) > kTrafficFactor) {
                mismatches.push_back("kernel " + p.name + ": " + what + " lowered " + std::to_string(l) +
                                     ", priced " + std::to_string(priced_bytes) + " (more than " +
                                     std::to_string(int(kTrafficFactor)) + "x apart)");
            }
        };
        check_bytes("global bytes stored", l.global_store_bytes, p.global_store_bytes);
        check_bytes("global bytes loaded", l.global_load_bytes, p.global_load_bytes);
        Json points = Json::object();
        const std::map<std::string, double> lowered_here = as_priced(l.points, priced.priced_as);
        for (const auto &[func, n] : p.points) {
            auto it = lowered_here.find(func);
            const double built = it == lowered_here.end() ? 0 : it->second;
            points[func] = count_pair(built, n);
            check(p.name, "points of " + func, built, n);
        }
        for (const auto &[func, n] : lowered_here) {
            if (!p.points.count(func)) {
                points[func] = count_pair(n, 0);
                check(p.name, "points of " + func, n, 0);
            }
        }
        entry["points"] = points;
        // A block member run by a few of the block's threads (one, where
        // it has no thread loops of its own) takes as many times longer:
        // its threads are held to the traffic factor too. (A kernel's own
        // stage and its Thread members run on every thread with work.)
        Json threads = Json::object();
        const std::map<std::string, double> threads_here = as_priced(l.threads, priced.priced_as, Merge::Max);
        for (const auto &[func, priced_threads] : p.threads) {
            auto member = p.members.find(func);
            if (member == p.members.end() || member->second != "GPUShared") continue;
            auto it = threads_here.find(func);
            if (it == threads_here.end() || it->second == 0) continue;  // inlined, or stores nothing here
            const double built = it->second;
            threads[func] = count_pair(built, priced_threads);
            if (factor_apart(built, priced_threads) > kTrafficFactor) {
                mismatches.push_back("kernel " + p.name + ": threads of a block computing " + func + " lowered " +
                                     std::to_string(built) + ", priced " + std::to_string(priced_threads) +
                                     " (more than " + std::to_string(int(kTrafficFactor)) + "x apart)");
            }
        }
        entry["threads"] = threads;
        Json loads = Json::object();
        const std::map<std::string, double> loaded_here = as_priced(l.load_bytes, priced.priced_as);
        for (const auto &[func, bytes] : p.load_bytes) {
            auto it = loaded_here.find(func);
            loads[func] = count_pair(it == loaded_here.end() ? 0 : it->second, bytes);
        }
        entry["global_load_bytes_by_func"] = loads;
        Json allocations = Json::array();
        for (const LoweredAllocation &a : l.allocations) {
            allocations.push_back({{"func", a.func}, {"memory", a.memory}, {"bytes", a.bytes}});
        }
        entry["allocations"] = allocations;
        for (const auto &[member, memory] : p.members) {
            bool placed = false;
            for (const LoweredAllocation &a : l.allocations) placed |= a.func == member && holds(a, memory);
            if (!placed) {
                mismatches.push_back("kernel " + p.name + ": " + member + " is priced in " + memory +
                                     " but Halide did not allocate it there" +
                                     (memory == "Register" ? " with a constant size" : ""));
            }
        }
        kernels.push_back(entry);
    }
    for (const auto &[name, k] : by_name) mismatches.push_back("kernel " + name + ": built by Halide but not priced");
    Json outside = Json::array();
    for (const LoweredAllocation &a : lowered.outside_kernels) {
        Json entry = {{"func", a.func}, {"memory", a.memory}, {"bytes", a.bytes}};
        for (const PricedKernel &p : priced.kernels) {
            if (p.members.count(a.func)) {
                entry["priced_member_of"] = p.name;
                mismatches.push_back(a.func + " is priced per block or thread in kernel " + p.name +
                                     " but Halide allocated it outside the kernel (" + a.memory + ")");
            }
        }
        outside.push_back(entry);
    }
    Json host = Json::object();
    for (const auto &[func, n] : lowered.host_points) {
        host[func] = n;
        mismatches.push_back(func + " computes " + std::to_string(n) + " points on the host, outside every GPU kernel");
    }
    Json funcs = Json::array();
    for (const auto &[func, needed] : priced.needed_points) {
        auto it = lowered_points.find(func);
        if (it == lowered_points.end()) continue;  // inlined
        funcs.push_back({{"func", func},
                         {"lowered_points", it->second},
                         {"needed_points", needed},
                         {"redundant_work", needed > 0 ? it->second / needed : 0.0}});
    }
    report["status"] = mismatches.empty() ? "pass" : "fail";
    report["tolerance"] = tolerance;
    report["traffic_factor"] = kTrafficFactor;
    report["kernels"] = kernels;
    report["funcs"] = funcs;
    report["allocations_outside_kernels"] = outside;
    report["host_points"] = host;
    report["mismatches"] = mismatches;
    Json unevaluated = Json::array();
    for (const std::string &u : lowered.unevaluated) unevaluated.push_back(u);
    report["unevaluated"] = unevaluated;
    return report;
}

namespace {

// Looks at the lowered Stmt and changes nothing.
class LoweredCheckPass : public Halide::Internal::IRMutator {
public:
    LoweredCheckPass(PricedSchedule priced, std::string report_path)
        : priced_(std::move(priced)), report_path_(std::move(report_path)) {}

    using IRMutator::mutate;
    Halide::Internal::Stmt mutate(const Halide::Internal::Stmt &s) override {
        const LoweredCounts counts = count_lowered(s, priced_.values, priced_.funcs);
        std::ofstream out(report_path_);
        out << compare_lowered(priced_, counts).dump(1) << "\n";
        if (!out) warn("cannot write the lowered-code check to '" + report_path_ + "'");
        return s;
    }

private:
    PricedSchedule priced_;
    std::string report_path_;
};

}  // namespace

void install_lowered_check(const Halide::Pipeline &pipeline, PricedSchedule priced, const std::string &report_path) {
    Halide::Pipeline shared = pipeline;  // a handle: the caller's pipeline gets the pass too
    shared.add_custom_lowering_pass(new LoweredCheckPass(std::move(priced), report_path));
}

}  // namespace strata::autoscheduler
