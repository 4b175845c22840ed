#include "strata/costmodel/ContentHash.h"

#include <doctest/doctest.h>

using namespace strata::costmodel;

TEST_CASE("content hashes are FNV-1a 64 (published test vectors)") {
    CHECK(ContentHash::of_text("").value() == 0xcbf29ce484222325ull);
    CHECK(ContentHash::of_text("a").value() == 0xaf63dc4c8601ec8cull);
    CHECK(ContentHash::of_text("foobar").value() == 0x85944171f73967e8ull);
}

TEST_CASE("extending a hash equals hashing the concatenation") {
    CHECK(ContentHash::of_text("foo").extended("bar") == ContentHash::of_text("foobar"));
    CHECK(ContentHash::of_text("foo") != ContentHash::of_text("fop"));
}

TEST_CASE("hashes are written as 16 hex digits and read back") {
    const ContentHash h = ContentHash::of_text("foobar");
    CHECK(h.hex() == "85944171f73967e8");
    CHECK(ContentHash(0x1).hex() == "0000000000000001");
    CHECK(ContentHash::from_hex("85944171F73967E8") == h);
    CHECK_FALSE(ContentHash::from_hex("85944171f73967e"));    // too short
    CHECK_FALSE(ContentHash::from_hex("85944171f73967e8a"));  // too long
    CHECK_FALSE(ContentHash::from_hex("85944171f73967g8"));   // not hex
}
