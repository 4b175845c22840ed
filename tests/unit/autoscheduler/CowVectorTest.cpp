// A copy shares its elements until one side writes, and a write changes
// the writer's copy alone, in whichever chunk it lands.
#include "CowVector.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <vector>

using strata::autoscheduler::CowVector;

TEST_CASE("a write changes only the copy written, in every chunk") {
    CowVector<uint64_t> original(200, 7);  // four chunks, the last one partly used
    CHECK(original.size() == 200);
    CHECK(original.to_vector() == std::vector<uint64_t>(200, 7));
    CowVector<uint64_t> copy = original;
    for (size_t i : {0, 63, 64, 130, 199}) copy.set(i, 100 + i);
    for (size_t i = 0; i < 200; ++i) {
        CHECK(original[i] == 7);
        const bool written = i == 0 || i == 63 || i == 64 || i == 130 || i == 199;
        CHECK(copy[i] == (written ? 100 + i : 7));
    }
    // Writing the original afterwards leaves the copy alone too.
    original.set(64, 1);
    CHECK(copy[64] == 164);
    CHECK(original[64] == 1);
}

TEST_CASE("elements that own resources are shared, not duplicated, by copies") {
    auto shared = std::make_shared<int>(5);
    CowVector<std::shared_ptr<int>> a(10, nullptr);
    a.set(3, shared);
    const long owners = shared.use_count();
    CowVector<std::shared_ptr<int>> b = a;  // shares the chunk: no new owner
    CHECK(shared.use_count() == owners);
    b.set(4, nullptr);  // the chunk is copied: its elements gain an owner
    CHECK(shared.use_count() == owners + 1);
    CHECK(a[3].get() == shared.get());
    CHECK(b[3].get() == shared.get());
    CHECK(a[4].get() == nullptr);
}

TEST_CASE("an empty vector has no elements") {
    CowVector<int> empty;
    CHECK(empty.size() == 0);
    CHECK(empty.to_vector().empty());
    CowVector<int> none(0, 1);
    CHECK(none.size() == 0);
}
