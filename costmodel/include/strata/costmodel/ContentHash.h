// ContentHash: a 64-bit identity of a piece of canonical text (a pipeline's
// printed definition, a schedule's directives) that is the same on every
// platform, compiler and run — FNV-1a over the bytes, never std::hash or
// pointer values — so that profiling logs from different machines agree on
// which pipeline and which schedule they measured.
//
// Written as 16 lower-case hex digits.
//
// Example:
//   ContentHash h = ContentHash::of_text("blur_x(x, y) = in(x - 1, y) + ...");
//   std::string hex = h.hex();                          // "3f2c...", 16 digits
//   std::optional<ContentHash> back = ContentHash::from_hex(hex);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace strata::costmodel {

class ContentHash {
public:
    ContentHash() = default;
    explicit constexpr ContentHash(uint64_t value) : value_(value) {}

    // FNV-1a 64 of the bytes of `text`.
    static ContentHash of_text(std::string_view text);
    // Accepts exactly 16 hex digits (either case).
    static std::optional<ContentHash> from_hex(std::string_view hex);

    // Extends this hash with more text, as if it had been appended.
    ContentHash extended(std::string_view text) const;

    uint64_t value() const { return value_; }
    std::string hex() const;

    friend bool operator==(ContentHash a, ContentHash b) { return a.value_ == b.value_; }
    friend bool operator!=(ContentHash a, ContentHash b) { return a.value_ != b.value_; }
    friend bool operator<(ContentHash a, ContentHash b) { return a.value_ < b.value_; }

private:
    static constexpr uint64_t kOffsetBasis = 0xcbf29ce484222325ull;
    uint64_t value_ = kOffsetBasis;  // the hash of empty text
};

}  // namespace strata::costmodel
