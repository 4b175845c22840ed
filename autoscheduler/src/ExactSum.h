// ExactSum: a sum of kernel prices (seconds) that does not depend on the
// order of its terms, so that a candidate's price can be its parent's
// total with a few kernels swapped, and still equal, bit for bit, the
// price of the same schedule summed from scratch.
//
// Each term is held in fixed point, in units of 2^-80 s, in a 128-bit
// integer: exact for prices of at least 2^-28 s (a kernel launch alone
// takes longer; smaller ones lose their lowest bits, the same way in every
// sum). A term that is not finite or not below 2^26 s makes the sum
// infinite until it is taken out again; 2^21 such terms still fit.
//
// Example:
//   ExactSum total;
//   for (double s : kernel_seconds) total += s;
//   ExactSum candidate = total;
//   candidate -= kernel_seconds[3];
//   candidate += new_kernel_seconds;
//   double seconds = candidate.seconds();   // as if summed from scratch
#pragma once

#include <cmath>
#include <limits>

namespace strata::autoscheduler {

class ExactSum {
public:
    ExactSum &operator+=(double seconds) {
        add(seconds, +1);
        return *this;
    }
    ExactSum &operator-=(double seconds) {
        add(seconds, -1);
        return *this;
    }
    // The sum, rounded once to the nearest double.
    double seconds() const {
        if (unbounded_terms_ != 0) return std::numeric_limits<double>::infinity();
        return std::ldexp(static_cast<double>(fixed_), -kFractionBits);
    }

private:
    __extension__ typedef __int128 Fixed;  // GCC and Clang
    static constexpr int kFractionBits = 80;
    static constexpr double kLimit = 67108864.0;  // 2^26 s

    void add(double seconds, int sign) {
        if (!(std::fabs(seconds) < kLimit)) {
            unbounded_terms_ += sign;
            return;
        }
        const Fixed term = static_cast<Fixed>(std::ldexp(seconds, kFractionBits));
        fixed_ += sign > 0 ? term : -term;
    }

    Fixed fixed_ = 0;
    int unbounded_terms_ = 0;
};

}  // namespace strata::autoscheduler
