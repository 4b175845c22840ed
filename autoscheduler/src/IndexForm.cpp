//===- IndexForm.cpp - index expressions in canonical form -----------------===//
//
// Forms are kept normalised as they are built, so equal forms have equal
// term lists and hashes. An opaque atom's identity hashes its operation
// and its operands' hashes; a modulus or division by a constant keeps as
// its operand only the terms the constant does not divide, as Halide's
// simplifier rewrites (x * 4 + y) % 4 to y % 4.
//===----------------------------------------------------------------------===//
#include "IndexForm.h"

#include "GpuTiling.h"  // hash_combine, floor_div

#include <algorithm>

namespace strata::autoscheduler {

namespace {

constexpr uint64_t kDivision = 0x6469762f;
constexpr uint64_t kModulus = 0x6d6f6425;

}  // namespace

IndexForm IndexForm::number(int64_t value) {
    IndexForm f;
    f.constant_ = value;
    return f;
}

IndexForm IndexForm::atom(uint64_t id) {
    IndexForm f;
    f.terms_.push_back({id, 1});
    return f;
}

IndexForm operator+(const IndexForm &a, const IndexForm &b) {
    IndexForm sum;
    sum.constant_ = a.constant_ + b.constant_;
    sum.affine_ = a.affine_ && b.affine_;
    auto i = a.terms_.begin(), j = b.terms_.begin();
    while (i != a.terms_.end() || j != b.terms_.end()) {
        if (j == b.terms_.end() || (i != a.terms_.end() && i->first < j->first)) {
            sum.terms_.push_back(*i++);
        } else if (i == a.terms_.end() || j->first < i->first) {
            sum.terms_.push_back(*j++);
        } else {
            if (const int64_t c = i->second + j->second) sum.terms_.push_back({i->first, c});
            ++i, ++j;
        }
    }
    return sum;
}

IndexForm operator-(const IndexForm &a, const IndexForm &b) { return a + b.scaled(-1); }

IndexForm IndexForm::scaled(int64_t factor) const {
    if (factor == 0) return number(0);
    IndexForm f = *this;
    f.constant_ *= factor;
    for (auto &term : f.terms_) term.second *= factor;
    return f;
}

IndexForm IndexForm::divided_by(int64_t divisor) const {
    IndexForm exact, rest;
    rest.affine_ = affine_;
    for (const auto &[id, coefficient] : terms_) {
        if (coefficient % divisor == 0) {
            exact.terms_.push_back({id, coefficient / divisor});
        } else {
            rest.terms_.push_back({id, coefficient});
        }
    }
    exact.affine_ = affine_;
    if (rest.terms_.empty()) {
        exact.constant_ = floor_div(constant_, divisor);
        return exact;
    }
    // The constant comes out only where it divides exactly: (x + 4) / 2 is
    // x / 2 + 2, but (x + 3) / 2 stays as it is.
    if (constant_ % divisor == 0) {
        exact.constant_ = constant_ / divisor;
    } else {
        rest.constant_ = constant_;
    }
    return exact + opaque(kDivision, {rest, number(divisor)}, false);
}

IndexForm IndexForm::modulo(int64_t divisor) const {
    IndexForm rest;
    rest.affine_ = affine_;
    for (const auto &term : terms_) {
        if (term.second % divisor != 0) rest.terms_.push_back(term);
    }
    // (x + 5) % 4 is (x + 1) % 4.
    rest.constant_ = floor_mod(constant_, divisor);
    if (rest.terms_.empty()) return number(rest.constant_);
    return opaque(kModulus, {rest, number(divisor)}, false);
}

IndexForm IndexForm::opaque(uint64_t operation, std::vector<IndexForm> operands, bool commutative) {
    std::vector<uint64_t> hashes;
    hashes.reserve(operands.size());
    for (const IndexForm &f : operands) hashes.push_back(f.hash());
    if (commutative) std::sort(hashes.begin(), hashes.end());
    uint64_t id = hash_combine(0x6f706171, operation);
    for (uint64_t h : hashes) id = hash_combine(id, h);
    IndexForm f = atom(id);
    f.affine_ = false;
    return f;
}

uint64_t IndexForm::hash() const {
    uint64_t h = hash_combine(0x666f726d, uint64_t(constant_));
    for (const auto &[id, coefficient] : terms_) h = hash_combine(hash_combine(h, id), uint64_t(coefficient));
    return h;
}

}  // namespace strata::autoscheduler
