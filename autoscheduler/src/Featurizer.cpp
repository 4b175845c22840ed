//===- Featurizer.cpp - per-stage GPU features of a schedule ---------------===//
//
// A schedule's features are its kernels' (KernelAnalysis), one kernel per
// Root Func's stage, numbered in realization order. A kernel's features
// depend only on its composition — root stage, tiling, members and their
// roles — so they are memoized by a hash of it: the search's candidates
// differ from their parents in a kernel or two and reuse the rest.
//===----------------------------------------------------------------------===//
#include "Featurizer.h"

#include "Errors.h"

#include <algorithm>

namespace strata::autoscheduler {

using costmodel::StageFeatures;

Featurizer::Featurizer(const FunctionDAG &dag, const costmodel::GpuSpec &spec, bool memoize)
    : dag_(dag), spec_(spec), memoize_(memoize), folds_(dag), leaves_(folds_) {}

uint64_t Featurizer::kernel_key(const Schedule &schedule, const KernelScope &scope) const {
    uint64_t h = hash_combine(uint64_t(scope.func), uint64_t(scope.stage));
    const StageChoice &kernel = schedule.choice(scope.func).stages[scope.stage];
    h = hash_combine(h, kernel.tiling.hash());
    if (scope.has(Role::Staged)) h = hash_combine(h, uint64_t(kernel.reduction_chunk));
    for (int id : scope.members) h = hash_combine(h, uint64_t(id) * 8 + uint64_t(scope.role[id]));
    for (const auto &[id, threads] : scope.imported_threads) {
        h = hash_combine(h, ~uint64_t(id));
        for (int64_t t : threads) h = hash_combine(h, uint64_t(t));
    }
    for (const auto &[id, span] : scope.spanning_members) {
        h = hash_combine(h, ~uint64_t(id) ^ 0x5350414eull);
        for (int64_t t : span) h = hash_combine(h, uint64_t(t));
    }
    for (const auto &[id, points] : scope.recomputed_members) {
        h = hash_combine(h, ~uint64_t(id) ^ 0x52454350ull);
        for (int64_t n : points) h = hash_combine(h, uint64_t(n));
    }
    for (const auto &[id, host] : scope.hosted_members) h = hash_combine(h, ~uint64_t(id) ^ (uint64_t(host) << 32));
    for (const auto &[id, tiles] : scope.unrolled_tiles) {
        h = hash_combine(h, ~uint64_t(id) ^ 0x54494c45ull);
        for (const std::vector<int64_t> &tile : tiles) {
            for (int64_t n : tile) h = hash_combine(h, uint64_t(n));
        }
    }
    return h;
}

const KernelFeatures &Featurizer::kernel(const Schedule &schedule, int func, int stage, uint64_t *key_out) {
    const KernelScope scope = KernelScope::collect(dag_, schedule, func, stage);
    const uint64_t key = kernel_key(schedule, scope);
    if (key_out) *key_out = key;
    if (const KernelFeatures *known = cache_hit(key)) return *known;
    ++stats_.kernels_featurized;
    KernelFeatures features = analyze(schedule, scope);
    if (!memoize_) cache_.clear();
    return cache_[key] = std::move(features);
}

const KernelFeatures *Featurizer::cache_hit(uint64_t key) {
    if (!memoize_) return nullptr;
    const KernelFeatures *known = cached(key);
    if (known) ++stats_.kernel_cache_hits;
    return known;
}

KernelFeatures Featurizer::analyze(const Schedule &schedule, const KernelScope &scope) const {
    const Node &node = *dag_.nodes()[scope.func];
    if (node.unread) return KernelFeatures{};  // Halide builds no kernel for it
    if (node.is_extern) return analyze_extern_kernel(node, spec_);
    const Stage &stage = *node.stages[size_t(scope.stage)];
    if (folds_.of(stage, inlined_closure(stage, scope.role, node.id)).no_op) return KernelFeatures{};  // nor for it
    return analyze_kernel(dag_, spec_, schedule, scope, leaves_, folds_);
}

std::vector<KernelFeatures> Featurizer::analyze_all(const Schedule &schedule) const {
    std::vector<KernelFeatures> kernels;
    for (const Node *node : dag_.funcs()) {
        if (schedule.choice(node->id).placement != Placement::Root) continue;
        for (const auto &st : node->stages) {
            kernels.push_back(analyze(schedule, KernelScope::collect(dag_, schedule, node->id, st->index)));
        }
    }
    return kernels;
}

void PendingKernels::absorb(PendingKernels &&other) {
    cache_hits_ += other.cache_hits_;
    for (Job &job : other.jobs_) {
        if (keys_.insert(job.key).second) {
            jobs_.push_back(std::move(job));
        } else {
            ++cache_hits_;
        }
    }
    other = PendingKernels();
}

const KernelFeatures *Featurizer::kernel_or_queue(const Schedule &schedule, int func, int stage, uint64_t &key,
                                                  PendingKernels &pending) const {
    if (!memoize_) fail("internal: a batch of kernels is featurized only with memoization on");
    KernelScope scope = KernelScope::collect(dag_, schedule, func, stage);
    key = kernel_key(schedule, scope);
    if (const KernelFeatures *known = cached(key)) {
        ++pending.cache_hits_;
        return known;
    }
    if (!pending.keys_.insert(key).second) {
        ++pending.cache_hits_;
        return nullptr;
    }
    pending.jobs_.push_back(PendingKernels::Job{key, schedule, std::move(scope)});
    return nullptr;
}

void Featurizer::analyze_pending(PendingKernels &pending, WorkerPool &pool) {
    stats_.kernel_cache_hits += pending.cache_hits_;
    stats_.kernels_featurized += int64_t(pending.jobs_.size());
    std::vector<KernelFeatures> analysed(pending.jobs_.size());
    pool.run(pending.jobs_.size(), [&](size_t i) {
        const PendingKernels::Job &job = pending.jobs_[i];
        analysed[i] = analyze(job.schedule, job.scope);
    });
    for (size_t i = 0; i < analysed.size(); ++i) cache_[pending.jobs_[i].key] = std::move(analysed[i]);
    pending = PendingKernels();
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

}  // namespace strata::autoscheduler
