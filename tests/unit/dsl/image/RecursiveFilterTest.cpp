#include "strata/dsl/image/RecursiveFilter.h"
#include "strata/dsl/Stages.h"

#include "TestData.h"

#include <doctest/doctest.h>

#include <random>
#include <vector>

using namespace Halide;
namespace image = strata::dsl::image;
using strata::testing::random_buffer;

namespace {

// The textbook recursions on one line of samples.
std::vector<double> causal(const std::vector<double> &x, double a) {
    std::vector<double> y(x.size());
    for (size_t n = 0; n < x.size(); ++n) y[n] = n == 0 ? x[0] : (1 - a) * y[n - 1] + a * x[n];
    return y;
}

std::vector<double> anticausal(const std::vector<double> &x, double a) {
    std::vector<double> y(x.size());
    for (size_t k = x.size(); k-- > 0;) y[k] = k + 1 == x.size() ? x[k] : (1 - a) * y[k + 1] + a * x[k];
    return y;
}

// Applies `filter` to every line of `in` along `dim` and compares with `out`.
template <typename Filter>
void check_lines(const Buffer<float> &in, const Buffer<float> &out, int dim, Filter filter) {
    const int lines = in.dim(1 - dim).extent(), length = in.dim(dim).extent();
    for (int l = 0; l < lines; ++l) {
        std::vector<double> x(length);
        for (int n = 0; n < length; ++n) x[n] = dim == 0 ? in(n, l) : in(l, n);
        const std::vector<double> y = filter(x);
        for (int n = 0; n < length; ++n) {
            CAPTURE(l);
            CAPTURE(n);
            CHECK((dim == 0 ? out(n, l) : out(l, n)) == doctest::Approx(y[n]).epsilon(1e-5));
        }
    }
}

}  // namespace

TEST_CASE("causal and anti-causal filters follow their recursions along x and along y") {
    Buffer<float> in = random_buffer({19, 13}, 0.0f, 1.0f, 1);
    const float alpha = 0.3f;
    for (int dim : {0, 1}) {
        CAPTURE(dim);
        const Expr extent = in.dim(dim).extent();
        Buffer<float> c = image::causal_recursive_filter(Func(in), dim, alpha, 0, extent, "c").realize({19, 13});
        check_lines(in, c, dim, [&](const std::vector<double> &x) { return causal(x, alpha); });
        Buffer<float> a =
            image::anticausal_recursive_filter(Func(in), dim, alpha, 0, extent, "a").realize({19, 13});
        check_lines(in, a, dim, [&](const std::vector<double> &x) { return anticausal(x, alpha); });
    }
}

TEST_CASE("the symmetric filter is the anti-causal pass over the causal result; channels pass through") {
    Buffer<uint8_t> in(11, 17, 3);
    std::mt19937 rng(2);
    in.for_each_value([&](uint8_t &v) { v = uint8_t(rng() % 256); });
    const float alpha = 0.25f;
    Buffer<float> out =
        image::symmetric_recursive_filter(Func(in), 1, alpha, 0, 17, "sym").realize({11, 17, 3});
    for (int c = 0; c < 3; ++c) {
        for (int x = 0; x < 11; ++x) {
            std::vector<double> column(17);
            for (int y = 0; y < 17; ++y) column[y] = in(x, y, c);
            const std::vector<double> expected = anticausal(causal(column, alpha), alpha);
            for (int y = 0; y < 17; ++y) CHECK(out(x, y, c) == doctest::Approx(expected[y]).epsilon(1e-5));
        }
    }
}

TEST_CASE("the scan covers [min, min + extent) and starts from its own edge") {
    Buffer<float> in = random_buffer({20, 4}, 0.0f, 1.0f, 3);
    const float alpha = 0.5f;
    // Realize only the scanned interval: the result is undefined elsewhere.
    Buffer<float> out(10, 4);
    out.set_min(3, 0);
    image::symmetric_recursive_filter(Func(in), 0, alpha, 3, 10, "part").realize(out);
    for (int y = 0; y < 4; ++y) {
        std::vector<double> x(10);
        for (int n = 0; n < 10; ++n) x[n] = in(3 + n, y);
        const std::vector<double> expected = anticausal(causal(x, alpha), alpha);
        for (int n = 0; n < 10; ++n) CHECK(out(3 + n, y) == doctest::Approx(expected[n]).epsilon(1e-5));
    }
}

TEST_CASE("alpha = 1 copies the input, and a one-element scan is its element") {
    Buffer<float> in = random_buffer({6, 5}, 0.0f, 1.0f, 4);
    Buffer<float> copy = image::symmetric_recursive_filter(Func(in), 0, 1.0f, 0, 6, "copy").realize({6, 5});
    copy.for_each_element([&](int x, int y) { CHECK(copy(x, y) == in(x, y)); });
    Buffer<float> single(6, 1);
    single.set_min(0, 2);
    image::causal_recursive_filter(Func(in), 1, 0.5f, 2, 1, "one").realize(single);
    for (int x = 0; x < 6; ++x) CHECK(single(x, 2) == in(x, 2));
}

TEST_CASE("the stages are named and the scans are update definitions") {
    Buffer<float> in = random_buffer({6, 5}, 0.0f, 1.0f, 5);
    Func f = image::symmetric_recursive_filter(Func(in), 0, 0.5f, 0, 6, "iir");
    CHECK(strata::dsl::given_name(f) == "iir");
    CHECK(f.num_update_definitions() == 3);  // the edge, the forward scan, the backward scan
    CHECK(image::causal_recursive_filter(Func(in), 0, 0.5f, 0, 6, "fwd").num_update_definitions() == 2);
}

TEST_CASE("bad arguments are refused with the operator's and the Func's names") {
    Buffer<float> in(8, 8);
    CHECK_THROWS_WITH(image::causal_recursive_filter(Func(in), 0, 0.0f, 0, 8, "zero"), doctest::Contains("alpha"));
    CHECK_THROWS_WITH(image::anticausal_recursive_filter(Func(in), 0, 1.5f, 0, 8, "big"), doctest::Contains("alpha"));
    CHECK_THROWS_WITH(image::symmetric_recursive_filter(Func(in), 1, 0.5f, 0, 0, "empty"),
                      doctest::Contains("must be positive"));
    CHECK_THROWS_WITH(image::symmetric_recursive_filter(Func(in), 2, 0.5f, 0, 8, "deep"),
                      doctest::Contains("symmetric_recursive_filter"));
    Func pair("pair");
    Var x, y;
    pair(x, y) = Tuple(1.0f, 2.0f);
    CHECK_THROWS_WITH(image::causal_recursive_filter(pair, 0, 0.5f, 0, 8, "tuple"), doctest::Contains("pair"));
}
