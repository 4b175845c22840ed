// DescriptionJson: a pipeline description in JSON, the form in which a drawn
// pipeline is handed between tools, shrunk by the minimizer and saved as a
// regression test (tests/fuzz/regressions/).
//
// Stages refer to each other by name. Derived facts (each stage's "types"
// and "shape") are written for the reader; when a file gives them they must
// agree with what the operations derive, so a hand edit that changes a
// shape is caught at load time rather than as a wrong result.
//
// Example:
//   Description d = read_description("seed17.json");   // errors name the file
//   write_description(d, "copy.json");
#pragma once

#include "strata/fuzz/Description.h"

#include <nlohmann/json.hpp>

#include <string>

namespace strata::fuzz {

nlohmann::json to_json(const Description &description);
// Throws std::invalid_argument naming the stage and field that is wrong.
Description from_json(const nlohmann::json &json);

// Both throw std::runtime_error or std::invalid_argument naming `path`.
Description read_description(const std::string &path);
void write_description(const Description &description, const std::string &path);

}  // namespace strata::fuzz
