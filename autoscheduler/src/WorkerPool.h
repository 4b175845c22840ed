// WorkerPool: a few threads kept for the whole search, so that the kernels
// a beam step must analyse (KernelAnalysis, the bulk of the search's time)
// are analysed side by side.
//
// A pool of N threads is the caller plus N-1 workers. run() hands out the
// indices of one batch; each task writes only its own result slot, so what
// the caller reads afterwards does not depend on which thread ran what. A
// pool of one thread runs every task on the caller, in index order, with no
// worker ever started.
//
// Example:
//   WorkerPool pool(WorkerPool::threads_for(params.threads));
//   std::vector<KernelFeatures> out(jobs.size());
//   pool.run(jobs.size(), [&](size_t i) { out[i] = analyse(jobs[i]); });
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace strata::autoscheduler {

class WorkerPool {
public:
    // `threads` ≥ 1, the caller's included.
    explicit WorkerPool(int threads);
    ~WorkerPool();
    WorkerPool(const WorkerPool &) = delete;
    WorkerPool &operator=(const WorkerPool &) = delete;

    // The pool size a `requested` count gives: itself if ≥ 1; for 0, one
    // per hardware thread, at most kMaxDefaultThreads.
    static int threads_for(int requested);
    static constexpr int kMaxDefaultThreads = 8;

    int threads() const { return int(workers_.size()) + 1; }

    // Calls task(i) for every i in [0, count) and returns once all have
    // returned. If tasks throw, the exception of the lowest index is
    // rethrown (the one a sequential loop would have met first) after every
    // task has run. Not reentrant: a task must not call run().
    void run(size_t count, const std::function<void(size_t)> &task);

private:
    void work();
    // Runs tasks of the current batch until no index is left; `lock` holds
    // mutex_ on entry and on return.
    void drain(std::unique_lock<std::mutex> &lock);

    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable batch_ready_, batch_done_;
    // The current batch; guarded by mutex_.
    const std::function<void(size_t)> *task_ = nullptr;
    size_t count_ = 0, next_ = 0, finished_ = 0;
    uint64_t generation_ = 0;
    bool stopping_ = false;
    size_t first_failed_ = 0;
    std::exception_ptr failure_;
};

}  // namespace strata::autoscheduler
