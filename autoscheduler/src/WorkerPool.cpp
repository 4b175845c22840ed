//===- WorkerPool.cpp - threads that run the tasks of one batch -----------===//
//
// One mutex guards the batch: its task, the next index to hand out, how many
// have finished and the first failure. Workers sleep on `batch_ready_` until
// a new generation starts; the caller takes indices like any worker, then
// sleeps on `batch_done_` until the last task of the batch has returned.
// Tasks run unlocked; the lock is held only to take an index and to report
// one done, which is cheap beside a kernel's analysis.
//===----------------------------------------------------------------------===//
#include "WorkerPool.h"

#include <algorithm>
#include <utility>

namespace strata::autoscheduler {

WorkerPool::WorkerPool(int threads) {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

WorkerPool::~WorkerPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    batch_ready_.notify_all();
    for (std::thread &t : workers_) t.join();
}

int WorkerPool::threads_for(int requested) {
    if (requested >= 1) return requested;
    const int hardware = int(std::thread::hardware_concurrency());
    return std::clamp(hardware, 1, kMaxDefaultThreads);
}

void WorkerPool::run(size_t count, const std::function<void(size_t)> &task) {
    if (count == 0) return;
    std::unique_lock<std::mutex> lock(mutex_);
    task_ = &task;
    count_ = count;
    next_ = finished_ = 0;
    failure_ = nullptr;
    ++generation_;
    if (!workers_.empty() && count > 1) batch_ready_.notify_all();
    drain(lock);
    batch_done_.wait(lock, [&] { return finished_ == count_; });
    task_ = nullptr;
    if (std::exception_ptr failure = std::exchange(failure_, nullptr)) std::rethrow_exception(failure);
}

void WorkerPool::drain(std::unique_lock<std::mutex> &lock) {
    while (task_ && next_ < count_) {
        const size_t index = next_++;
        const std::function<void(size_t)> &task = *task_;
        lock.unlock();
        std::exception_ptr error;
        try {
            task(index);
        } catch (...) {
            error = std::current_exception();
        }
        lock.lock();
        if (error && (!failure_ || index < first_failed_)) {
            failure_ = error;
            first_failed_ = index;
        }
        if (++finished_ == count_) batch_done_.notify_all();
    }
}

void WorkerPool::work() {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        batch_ready_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
        drain(lock);
    }
}

}  // namespace strata::autoscheduler
