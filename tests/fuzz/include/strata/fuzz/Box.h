// Box: the region a stage is defined over — [0, extent) in each dimension,
// dimension 0 innermost — and the few ways the fuzzing code walks one.
//
// Example:
//   for_each_coordinate(Shape{3, 2}, [&](const int64_t *c, int64_t i) { values[i] = c[0] + 10 * c[1]; });
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace strata::fuzz {

using Shape = std::vector<int64_t>;

int64_t element_count(const Shape &shape);
std::string to_string(const Shape &shape);

// The extents of some dimensions, in the order given.
Shape sub_shape(const Shape &shape, const std::vector<int> &dims);
// 0, 1, ..., rank - 1.
std::vector<int> all_dims(size_t rank);
// The dimensions of a rank-`rank` box that are not in `reduced`, in order.
std::vector<int> kept_dims(size_t rank, const std::vector<int> &reduced);

// Calls f(coordinates, linear index) for every point, in storage order.
template <typename F>
void for_each_coordinate(const Shape &shape, F &&f) {
    std::vector<int64_t> c(shape.size(), 0);
    const int64_t n = element_count(shape);
    for (int64_t i = 0; i < n; ++i) {
        f(static_cast<const int64_t *>(c.data()), i);
        for (size_t d = 0; d < c.size(); ++d) {
            if (++c[d] < shape[d]) break;
            c[d] = 0;
        }
    }
}

}  // namespace strata::fuzz
