#include "strata/dsl/Estimates.h"

namespace strata::dsl {

Halide::Region extents_region(const std::vector<int> &extents) {
    Halide::Region region;
    for (int extent : extents) region.emplace_back(0, extent);
    return region;
}

}  // namespace strata::dsl
