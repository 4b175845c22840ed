#include "strata/dsl/nn/Attention.h"

#include "strata/dsl/Stages.h"
#include "TestData.h"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using namespace Halide;
namespace nn = strata::dsl::nn;
using strata::testing::random_buffer;

namespace {

// Attention of one query row, by the definition.
std::vector<double> attend(const Buffer<float> &q, const Buffer<float> &k, const Buffer<float> &v, int i, int h,
                           int b, bool causal) {
    const int d = q.dim(0).extent(), keys = k.dim(1).extent();
    std::vector<double> logits;
    for (int j = 0; j < keys; ++j) {
        if (causal && j > i) break;
        double s = 0;
        for (int x = 0; x < d; ++x) s += double(q(x, i, h, b)) * k(x, j, h, b);
        logits.push_back(s / std::sqrt(double(d)));
    }
    double m = logits[0], total = 0;
    for (double l : logits) m = std::max(m, l);
    for (double &l : logits) total += (l = std::exp(l - m));
    std::vector<double> out(d, 0.0);
    for (size_t j = 0; j < logits.size(); ++j) {
        for (int x = 0; x < d; ++x) out[x] += logits[j] / total * v(x, int(j), h, b);
    }
    return out;
}

void check_attention(bool causal) {
    const int d = 8, seq = 6, heads = 2, batch = 2;
    Buffer<float> q = random_buffer({d, seq, heads, batch}, -1.0f, 1.0f, 1);
    Buffer<float> k = random_buffer({d, seq, heads, batch}, -1.0f, 1.0f, 2);
    Buffer<float> v = random_buffer({d, seq, heads, batch}, -1.0f, 1.0f, 3);
    Func att = nn::attention(Func(q), Func(k), Func(v), d, seq, causal, causal ? "causal" : "full");
    Buffer<float> out = att.realize({d, seq, heads, batch});
    for (int b = 0; b < batch; ++b) {
        for (int h = 0; h < heads; ++h) {
            for (int i = 0; i < seq; ++i) {
                const std::vector<double> expected = attend(q, k, v, i, h, b, causal);
                for (int x = 0; x < d; ++x) CHECK(out(x, i, h, b) == doctest::Approx(expected[x]).epsilon(1e-5));
            }
        }
    }
}

}  // namespace

TEST_CASE("attention is softmax(Q Kᵀ / sqrt(d)) V per head and batch") {
    check_attention(false);
}

TEST_CASE("causal attention ignores later keys: query 0 returns v at key 0") {
    check_attention(true);
    Buffer<float> q = random_buffer({4, 3, 1, 1}, -1.0f, 1.0f, 4), k = random_buffer({4, 3, 1, 1}, -1.0f, 1.0f, 5);
    Buffer<float> v = random_buffer({4, 3, 1, 1}, -1.0f, 1.0f, 6);
    Buffer<float> out = nn::attention(Func(q), Func(k), Func(v), 4, 3, true, "first").realize({4, 3, 1, 1});
    for (int x = 0; x < 4; ++x) CHECK(out(x, 0, 0, 0) == doctest::Approx(v(x, 0, 0, 0)));
}

TEST_CASE("attention names its stages and refuses operands of the wrong rank") {
    Buffer<float> t(4, 3, 1, 1), m(4, 3);
    Func att = nn::attention(Func(t), Func(t), Func(t), 4, 3, false, "named");
    for (const char *stage : {"named_scores", "named_logits", "named_probs", "named_probs_max", "named_probs_sum"}) {
        CHECK_NOTHROW(strata::dsl::find_stage(att, stage));
    }
    CHECK_THROWS_WITH(nn::attention(Func(t), Func(m), Func(t), 4, 3, false, "a"),
                      doctest::Contains("(d, seq, heads, batch)"));
}
