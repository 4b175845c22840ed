// CowVector: a fixed-size vector whose copies share their elements in
// chunks of 64, a chunk being copied on its first write.
//
// The search copies per-node and per-slot tables (a schedule's choices, a
// kernel table's keys and prices) for every beam child it keeps and every
// kernel it queues, and each copy then differs in an entry or two. Copying
// one pointer per chunk instead of every element keeps that cost from
// growing with the pipeline. One vector is written by one thread at a time;
// its copies may be read and written on others at once (the worker pool's
// analyses read them, a beam step's candidates recompose beam states side
// by side): a chunk is written in place only once no other copy holds it.
//
// Example:
//   CowVector<uint64_t> keys(slots, 0);
//   CowVector<uint64_t> child = keys;   // shares every chunk
//   child.set(7, key);                  // copies chunk 0 only
//   uint64_t k = keys[7];               // still 0
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace strata::autoscheduler {

template <typename T>
class CowVector {
public:
    CowVector() = default;
    CowVector(size_t size, const T &value) : size_(size) {
        auto filled = std::make_shared<Chunk>();
        filled->fill(value);
        chunks_.assign((size + kChunk - 1) / kChunk, filled);
    }

    size_t size() const { return size_; }
    const T &operator[](size_t i) const { return (*chunks_[i / kChunk])[i % kChunk]; }

    // Sets element i, copying its chunk first if a copy of this vector shares it.
    void set(size_t i, T value) {
        std::shared_ptr<Chunk> &chunk = chunks_[i / kChunk];
        if (chunk.use_count() > 1) {
            chunk = std::make_shared<Chunk>(*chunk);
        } else {
            // The last other copy let go on another thread: what it read
            // happened before this write.
            std::atomic_thread_fence(std::memory_order_acquire);
        }
        (*chunk)[i % kChunk] = std::move(value);
    }

    std::vector<T> to_vector() const {
        std::vector<T> out;
        out.reserve(size_);
        for (size_t i = 0; i < size_; ++i) out.push_back((*this)[i]);
        return out;
    }

private:
    static constexpr size_t kChunk = 64;
    using Chunk = std::array<T, kChunk>;

    size_t size_ = 0;
    std::vector<std::shared_ptr<Chunk>> chunks_;
};

}  // namespace strata::autoscheduler
