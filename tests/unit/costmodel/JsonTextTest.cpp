#include "strata/costmodel/JsonText.h"

#include <doctest/doctest.h>

#include <string>

using namespace strata::costmodel;

namespace {

std::string error_of(const std::string &text) {
    try {
        (void)parse_json_text(text, "doc.json");
    } catch (const JsonSyntaxError &e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("valid JSON parses, keeping key order") {
    const nlohmann::ordered_json json = parse_json_text(R"({"b": 1, "a": [1.5, "x"]})", "doc.json");
    CHECK(json.begin().key() == "b");
    CHECK(json["a"][0] == 1.5);
}

TEST_CASE("syntax errors, truncation and overflow name the line and column") {
    CHECK(error_of("{\"a\": 1,\n \"b\": tru}") .find("doc.json:2:") == 0);
    CHECK(error_of("{\"a\": [1,\n2,") == "doc.json:2:3: not valid JSON (truncated?): syntax error while parsing value "
                                         "- unexpected end of input; expected '[', '{', or a literal");
    CHECK(error_of("{\"a\":\n\n  1e999}") == "doc.json:3:7: a number too large for a double: '1e999'");
    CHECK(error_of("{\"a\": -1e400}").find("a number too large for a double: '-1e400'") != std::string::npos);
    CHECK(error_of("{\"a\": NaN}").find("doc.json:1:") == 0);
    CHECK(error_of("{\"a\": 1} trailing").find("doc.json:1:") == 0);
    CHECK(error_of("").find("doc.json:1:1: not valid JSON") == 0);
    try {
        (void)parse_json_text("[1,\n 1e999]", "x");
    } catch (const JsonSyntaxError &e) {
        CHECK(e.line() == 2);
        CHECK(e.problem() == "a number too large for a double: '1e999'");
    }
}
