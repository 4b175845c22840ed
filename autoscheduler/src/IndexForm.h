// IndexForm: an integer index expression in a canonical form, so that two
// loads whose indices Halide's simplifier writes the same way compare equal
// and two it writes differently do not.
//
// Once a chain of inlined Funcs is substituted into a stage, Halide
// simplifies the indices and its common-subexpression elimination gives one
// load to each distinct index text. Loads that merely reach the same element
// are not merged: a stencil over two nested boundary conditions reaches
// in(x + 1) through clamp(clamp(x + 2) - 1) and through clamp(clamp(x) + 1),
// equal inside the image, loaded twice (fuzz seed 2662: 600 loads a point in
// the Stmt, 139 where leaves were merged by the elements they reach).
//
// The form is what the simplifier makes of affine arithmetic: a sum of
// constant multiples of atoms plus a constant, terms sorted, constants
// folded, exact divisions pulled out of a division or a modulus by a
// constant ((x + 4) / 2 is x / 2 + 2). Everything else (a clamp, a
// select, a division that does not divide out, an index that depends on
// loaded data) is an atom: a hash of its operation and its operands' forms,
// commutative operands sorted.
//
// Example:
//   IndexForm x = IndexForm::atom(symbol_hash(0));
//   IndexForm a = x + IndexForm::number(1), b = (x + IndexForm::number(2)) + IndexForm::number(-1);
//   bool same = a.hash() == b.hash();   // true: x + 1 either way
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace strata::autoscheduler {

class IndexForm {
public:
    static IndexForm number(int64_t value);
    // An opaque value identified by `id` (a loop variable, a clamp, ...).
    static IndexForm atom(uint64_t id);

    // Affine combinations, folded.
    friend IndexForm operator+(const IndexForm &a, const IndexForm &b);
    friend IndexForm operator-(const IndexForm &a, const IndexForm &b);
    IndexForm scaled(int64_t factor) const;
    // Floor division and modulus by a constant, with the terms it divides
    // exactly taken out of the atom; `divisor` ≠ 0.
    IndexForm divided_by(int64_t divisor) const;
    IndexForm modulo(int64_t divisor) const;
    // An operation the form does not model: an atom over its operands.
    // `commutative`: operands compare as a multiset (min, max, ==, &&).
    static IndexForm opaque(uint64_t operation, std::vector<IndexForm> operands, bool commutative);

    bool is_constant() const { return terms_.empty(); }
    int64_t constant() const { return constant_; }
    // Whether it is affine in the atoms it was built from: no atom of its own
    // (opaque()) anywhere inside it.
    bool affine() const { return affine_; }
    uint64_t hash() const;
    bool operator==(const IndexForm &o) const { return terms_ == o.terms_ && constant_ == o.constant_; }

private:
    // (atom id, coefficient), sorted by id, no zero coefficient.
    std::vector<std::pair<uint64_t, int64_t>> terms_;
    int64_t constant_ = 0;
    bool affine_ = true;
};

}  // namespace strata::autoscheduler
