#include "strata/harness/OutputComparison.h"

#include "strata/runtime/TypeDispatch.h"

#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace strata::harness {

namespace {

constexpr size_t kMismatchesToShow = 5;

bool same_shape(const Halide::Runtime::Buffer<void> &a, const Halide::Runtime::Buffer<void> &b) {
    if (a.dimensions() != b.dimensions() || !(a.type() == b.type())) return false;
    for (int d = 0; d < a.dimensions(); ++d) {
        if (a.dim(d).min() != b.dim(d).min() || a.dim(d).extent() != b.dim(d).extent()) return false;
    }
    return true;
}

std::string coordinates(const int *pos, int dims) {
    std::ostringstream s;
    s << "(";
    for (int d = 0; d < dims; ++d) s << (d ? ", " : "") << pos[d];
    s << ")";
    return s.str();
}

const uint8_t *element_address(const Halide::Runtime::Buffer<void> &buffer, const int *pos) {
    int64_t offset = 0;
    for (int d = 0; d < buffer.dimensions(); ++d) {
        offset += int64_t(pos[d] - buffer.dim(d).min()) * buffer.dim(d).stride();
    }
    return static_cast<const uint8_t *>(buffer.data()) + offset * buffer.type().bytes();
}

bool all_bytes_equal(const void *element, size_t bytes, uint8_t value) {
    const uint8_t *p = static_cast<const uint8_t *>(element);
    for (size_t i = 0; i < bytes; ++i) {
        if (p[i] != value) return false;
    }
    return true;
}

}  // namespace

void poison(Halide::Runtime::Buffer<void> &buffer, uint8_t byte) {
    buffer.for_each_element([&](const int *pos) {
        std::memset(const_cast<uint8_t *>(element_address(buffer, pos)), byte, buffer.type().bytes());
    });
    buffer.set_host_dirty();
}

int64_t count_unwritten(const Halide::Runtime::Buffer<void> &run_a, const Halide::Runtime::Buffer<void> &run_b) {
    if (!same_shape(run_a, run_b)) throw std::invalid_argument("count_unwritten: buffers differ in shape");
    const size_t bytes = run_a.type().bytes();
    int64_t unwritten = 0;
    run_a.for_each_element([&](const int *pos) {
        if (all_bytes_equal(element_address(run_a, pos), bytes, kPoisonA) &&
            all_bytes_equal(element_address(run_b, pos), bytes, kPoisonB)) {
            ++unwritten;
        }
    });
    return unwritten;
}

OutputComparison compare_output(const std::string &name, const Halide::Runtime::Buffer<void> &actual,
                                const Halide::Runtime::Buffer<void> &expected, const Tolerance &tolerance) {
    if (!same_shape(actual, expected)) {
        throw std::invalid_argument("output '" + name + "': pipeline and reference buffers differ in type or shape");
    }
    OutputComparison result;
    result.name = name;
    runtime::dispatch_on_type(actual.type(), [&](auto tag) {
        using T = decltype(tag);
        Halide::Runtime::Buffer<const T> a(*actual.raw_buffer()), e(*expected.raw_buffer());
        a.for_each_element([&](const int *pos) {
            const double got = double(a(pos));
            const double want = double(e(pos));
            const double abs_error = std::fabs(got - want);
            const double rel_error = abs_error / std::max(std::fabs(want), tolerance.absolute);
            ++result.elements;
            const bool ok = std::isfinite(got) == std::isfinite(want) &&
                            (got == want || abs_error <= tolerance.absolute + tolerance.relative * std::fabs(want));
            if (std::isfinite(abs_error)) {
                result.max_abs_error = std::max(result.max_abs_error, abs_error);
                result.max_rel_error = std::max(result.max_rel_error, rel_error);
            } else if (!ok) {
                result.max_abs_error = result.max_rel_error = INFINITY;
            }
            if (!ok) {
                if (result.first_mismatches.size() < kMismatchesToShow) {
                    std::ostringstream s;
                    s << "at " << coordinates(pos, a.dimensions()) << ": got " << got << ", expected " << want;
                    result.first_mismatches.push_back(s.str());
                }
                ++result.mismatches;
            }
        });
    });
    return result;
}

}  // namespace strata::harness
