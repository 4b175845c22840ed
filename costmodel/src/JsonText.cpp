#include "strata/costmodel/JsonText.h"

#include <algorithm>

namespace strata::costmodel {

namespace {

using Json = nlohmann::ordered_json;

// A second, validating-only pass over text the DOM parser refused: the SAX
// interface is the one place the library hands out the byte position of
// every failure, number overflow included.
class FailureLocator : public nlohmann::json_sax<Json> {
public:
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t &) override { return true; }
    bool string(string_t &) override { return true; }
    bool binary(binary_t &) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t &) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t position, const std::string &last_token,
                     const nlohmann::detail::exception &error) override {
        position_ = position;
        last_token_ = last_token;
        overflow_ = error.id == 406;
        message_ = error.what();
        return false;
    }

    size_t position() const { return position_; }
    const std::string &last_token() const { return last_token_; }
    bool overflow() const { return overflow_; }
    const std::string &message() const { return message_; }

private:
    size_t position_ = 0;
    std::string last_token_;
    bool overflow_ = false;
    std::string message_;
};

// "[json.exception.parse_error.101] parse error at line 1, column 7: syntax error ..." → "syntax error ...":
// the position is reported once, our way, for every kind of failure.
std::string without_library_prefixes(std::string message) {
    if (!message.empty() && message[0] == '[') {
        const size_t end = message.find("] ");
        if (end != std::string::npos) message.erase(0, end + 2);
    }
    if (message.rfind("parse error", 0) == 0) {
        const size_t colon = message.find(": ");
        if (colon != std::string::npos) message.erase(0, colon + 2);
    }
    return message;
}

}  // namespace

Json parse_json_text(std::string_view text, const std::string &source) {
    try {
        return Json::parse(text.begin(), text.end());
    } catch (const Json::exception &) {
        // Located below.
    }
    FailureLocator locator;
    Json::sax_parse(text.begin(), text.end(), &locator);
    // The position counts the characters read, the offending one included.
    const size_t at = std::min(text.size(), locator.position() > 0 ? locator.position() - 1 : 0);
    const size_t line_start = at == 0 ? 0 : text.rfind('\n', at - 1) + 1;  // npos + 1 == 0
    const int line = 1 + int(std::count(text.begin(), text.begin() + long(at), '\n'));
    const int column = 1 + int(at - line_start);
    const std::string problem = locator.overflow()
                                    ? "a number too large for a double: '" + locator.last_token() + "'"
                                : at + 1 >= text.size() && text.find_first_not_of(" \t\r\n") != std::string::npos
                                    ? "not valid JSON (truncated?): " + without_library_prefixes(locator.message())
                                    : "not valid JSON: " + without_library_prefixes(locator.message());
    throw JsonSyntaxError(source, line, column, problem);
}

}  // namespace strata::costmodel
