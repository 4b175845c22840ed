#include "strata/runtime/RandomFill.h"

#include "strata/runtime/TypeDispatch.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <type_traits>

namespace strata::runtime {

ValueRange default_range(halide_type_t type) {
    if (type.code == halide_type_float) return {0.05, 1.0};
    if (type.code == halide_type_uint && type.bits == 1) return {0, 1};
    return {1, 255};
}

void fill_uniform(Halide::Runtime::Buffer<void> &buffer, ValueRange range, uint64_t seed) {
    // splitmix64: the same stream on every platform, unlike std distributions.
    uint64_t state = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    auto next_unit = [&state]() {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        return double(z >> 11) * (1.0 / double(1ull << 53));
    };
    dispatch_on_type(buffer.type(), [&](auto tag) {
        using T = decltype(tag);
        Halide::Runtime::Buffer<T> typed = buffer.as<T>();
        if constexpr (std::is_floating_point_v<T>) {
            typed.for_each_value([&](T &v) { v = T(range.lo + (range.hi - range.lo) * next_unit()); });
        } else if constexpr (std::is_same_v<T, bool>) {
            typed.for_each_value([&](T &v) { v = next_unit() < 0.5; });
        } else {
            const double lo = std::max(range.lo, double(std::numeric_limits<T>::lowest()));
            const double hi = std::min(range.hi, double(std::numeric_limits<T>::max()));
            const double span = hi - lo + 1;
            typed.for_each_value([&](T &v) { v = T(std::min(hi, lo + std::floor(span * next_unit()))); });
        }
    });
    buffer.set_host_dirty();
}

}  // namespace strata::runtime
