// Random: the drawing's source of randomness — the standard's 64-bit
// Mersenne twister (whose sequence the standard fixes) with distributions of
// its own, because the standard library's distributions differ between
// implementations and a seed must give the same pipeline everywhere.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <random>
#include <vector>

namespace strata::fuzz {

class Random {
public:
    explicit Random(uint64_t seed) : engine_(seed) {}

    uint64_t next() { return engine_(); }

    // Uniform in [lo, hi] (inclusive); lo when hi < lo.
    int64_t uniform(int64_t lo, int64_t hi) {
        if (hi <= lo) return lo;
        return lo + int64_t(next() % uint64_t(hi - lo + 1));
    }

    // Uniform in [lo, hi).
    double real(double lo, double hi) { return lo + (hi - lo) * (double(next() >> 11) * (1.0 / double(1ull << 53))); }

    bool chance(double p) { return real(0, 1) < p; }

    template <typename T>
    const T &pick(const std::vector<T> &options) {
        return options[size_t(uniform(0, int64_t(options.size()) - 1))];
    }

    template <typename T>
    T pick(std::initializer_list<T> options) {
        return *(options.begin() + uniform(0, int64_t(options.size()) - 1));
    }

    // An index drawn with probability proportional to its weight (weights >= 0, not all 0).
    size_t weighted(const std::vector<double> &weights) {
        double total = 0;
        for (double w : weights) total += w;
        double r = real(0, total);
        for (size_t i = 0; i < weights.size(); ++i) {
            if (r < weights[i]) return i;
            r -= weights[i];
        }
        return weights.size() - 1;
    }

private:
    std::mt19937_64 engine_;
};

}  // namespace strata::fuzz
