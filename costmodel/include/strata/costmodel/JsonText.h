// JsonText: JSON text parsed into a document, with every failure reported as
// "<source>:<line>:<column>: ..." — syntax errors, truncation, and numbers
// too large for a double (1e999), which the JSON library otherwise reports
// without any position. Weights, GPU specs, featurizations and log lines all
// come through here, so a bad file always names the place to look.
//
// Example:
//   try {
//       nlohmann::ordered_json doc = parse_json_text(text, "h200.json");
//   } catch (const JsonSyntaxError &e) {
//       // e.what(): "h200.json:12:31: a number too large for a double: '1e999'"
//   }
#pragma once

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <string_view>

namespace strata::costmodel {

class JsonSyntaxError : public std::runtime_error {
public:
    JsonSyntaxError(const std::string &source, int line, int column, const std::string &problem)
        : std::runtime_error(source + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + problem),
          line_(line),
          column_(column),
          problem_(problem) {}
    int line() const { return line_; }
    int column() const { return column_; }
    // What is wrong, without the position.
    const std::string &problem() const { return problem_; }

private:
    int line_, column_;
    std::string problem_;
};

// Throws JsonSyntaxError; `source` starts its message (a file name, or
// "file.jsonl:12" for one line of a log, where the line is then the column's).
nlohmann::ordered_json parse_json_text(std::string_view text, const std::string &source);

}  // namespace strata::costmodel
