#include "strata/costmodel/ContentHash.h"

namespace strata::costmodel {

namespace {

constexpr uint64_t kFnvPrime = 0x100000001b3ull;

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace

ContentHash ContentHash::of_text(std::string_view text) { return ContentHash().extended(text); }

ContentHash ContentHash::extended(std::string_view text) const {
    uint64_t h = value_;
    for (unsigned char c : text) {
        h ^= c;
        h *= kFnvPrime;
    }
    return ContentHash(h);
}

std::string ContentHash::hex() const {
    static const char digits[] = "0123456789abcdef";
    std::string out(16, '0');
    for (int i = 15, shift = 0; i >= 0; --i, shift += 4) out[i] = digits[(value_ >> shift) & 0xf];
    return out;
}

std::optional<ContentHash> ContentHash::from_hex(std::string_view hex) {
    if (hex.size() != 16) return std::nullopt;
    uint64_t value = 0;
    for (char c : hex) {
        const int digit = hex_digit(c);
        if (digit < 0) return std::nullopt;
        value = value << 4 | uint64_t(digit);
    }
    return ContentHash(value);
}

}  // namespace strata::costmodel
