// Minimizer: shrinks a failing pipeline description while it still fails,
// so that a fuzzing failure becomes a pipeline small enough to read and to
// keep as a regression test.
//
// Each step tries smaller variants of the description, in order of how much
// they remove — keeping one output, turning a stage into an input (which
// drops everything only it depended on), bypassing a stage, halving input
// extents, simplifying pointwise expressions — and keeps the first one for
// which `still_fails` holds, until none does or the test budget is spent.
// Every variant is a valid description; the caller decides what "fails"
// means (typically: the same kind of failure, from a command).
//
// Example:
//   MinimizeResult r = minimize(failing, [&](const Description &d) { return crashes(d); }, {}, log_line);
//   write_description(r.description, "regression.json");
#pragma once

#include "strata/fuzz/Description.h"

#include <functional>
#include <string>
#include <vector>

namespace strata::fuzz {

struct Candidate {
    std::string change;  // what was removed, for the log
    Description description;
};

// The valid descriptions one step smaller than `description`, most removed first.
std::vector<Candidate> smaller_candidates(const Description &description);

struct MinimizeOptions {
    int max_tests = 300;
};

struct MinimizeResult {
    Description description;
    int tests = 0;
    int stages_before = 0;
    int stages_after = 0;
};

MinimizeResult minimize(Description description, const std::function<bool(const Description &)> &still_fails,
                        const MinimizeOptions &options, const std::function<void(const std::string &)> &log);

}  // namespace strata::fuzz
