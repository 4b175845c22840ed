#include "strata/fuzz/Box.h"

#include <algorithm>
#include <sstream>

namespace strata::fuzz {

int64_t element_count(const Shape &shape) {
    int64_t n = 1;
    for (int64_t e : shape) n *= e;
    return n;
}

std::string to_string(const Shape &shape) {
    std::ostringstream s;
    s << "[";
    for (size_t i = 0; i < shape.size(); ++i) s << (i ? ", " : "") << shape[i];
    s << "]";
    return s.str();
}

Shape sub_shape(const Shape &shape, const std::vector<int> &dims) {
    Shape s;
    for (int d : dims) s.push_back(shape[d]);
    return s;
}

std::vector<int> all_dims(size_t rank) {
    std::vector<int> dims(rank);
    for (size_t d = 0; d < rank; ++d) dims[d] = int(d);
    return dims;
}

std::vector<int> kept_dims(size_t rank, const std::vector<int> &reduced) {
    std::vector<int> kept;
    for (int d : all_dims(rank)) {
        if (std::find(reduced.begin(), reduced.end(), d) == reduced.end()) kept.push_back(d);
    }
    return kept;
}

}  // namespace strata::fuzz
