// A pool runs every task of a batch once, on several threads when it has
// them, reports the failure a sequential loop would have met first, and
// serves batch after batch.
#include "WorkerPool.h"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using strata::autoscheduler::WorkerPool;

TEST_CASE("every task of a batch runs once, batch after batch") {
    for (int threads : {1, 2, 4}) {
        INFO("threads " << threads);
        WorkerPool pool(threads);
        CHECK(pool.threads() == threads);
        for (size_t count : {0, 1, 3, 100}) {
            std::vector<std::atomic<int>> runs(count);
            pool.run(count, [&](size_t i) { runs[i].fetch_add(1); });
            for (size_t i = 0; i < count; ++i) CHECK(runs[i].load() == 1);
        }
    }
}

TEST_CASE("a pool of one thread runs the tasks on the caller, in order") {
    WorkerPool pool(1);
    const std::thread::id caller = std::this_thread::get_id();
    std::vector<size_t> order;
    std::set<std::thread::id> threads;
    pool.run(5, [&](size_t i) {
        threads.insert(std::this_thread::get_id());
        order.push_back(i);
    });
    CHECK(threads == std::set<std::thread::id>{caller});
    CHECK(order == std::vector<size_t>{0, 1, 2, 3, 4});
}

TEST_CASE("the tasks of a batch run side by side when the pool has threads") {
    // Each task waits until two tasks have started: only a pool that runs
    // two at once finishes (the wait gives up after 10 s and fails).
    WorkerPool pool(2);
    std::atomic<int> started{0};
    std::atomic<bool> met{true};
    std::mutex lock;
    std::set<std::thread::id> threads;
    pool.run(2, [&](size_t) {
        {
            std::lock_guard<std::mutex> guard(lock);
            threads.insert(std::this_thread::get_id());
        }
        ++started;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (started.load() < 2) {
            if (std::chrono::steady_clock::now() > deadline) {
                met = false;
                return;
            }
            std::this_thread::yield();
        }
    });
    CHECK(met.load());
    CHECK(threads.size() == 2);
}

TEST_CASE("a failing task: every task still runs, and the lowest index's exception is rethrown") {
    for (int threads : {1, 3}) {
        INFO("threads " << threads);
        WorkerPool pool(threads);
        std::vector<std::atomic<int>> runs(50);
        auto batch = [&] {
            pool.run(runs.size(), [&](size_t i) {
                runs[i].fetch_add(1);
                if (i == 7 || i == 31) throw std::runtime_error("task " + std::to_string(i));
            });
        };
        CHECK_THROWS_WITH(batch(), "task 7");
        for (const std::atomic<int> &r : runs) CHECK(r.load() == 1);
        // The pool serves the next batch as if nothing had failed.
        std::atomic<int> total{0};
        pool.run(10, [&](size_t) { ++total; });
        CHECK(total.load() == 10);
    }
}

TEST_CASE("threads_for: a count is kept, 0 is the hardware's, within the default cap") {
    CHECK(WorkerPool::threads_for(3) == 3);
    const int automatic = WorkerPool::threads_for(0);
    CHECK(automatic >= 1);
    CHECK(automatic <= WorkerPool::kMaxDefaultThreads);
}
