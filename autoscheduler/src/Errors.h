// Errors: how the Strata autoscheduler reports problems. User errors (a
// missing estimate, a non-GPU target) throw Halide::CompileError with a
// message that names the Func, dimension or setting; warnings go to stderr
// with the same "Strata:" prefix and never stop the build.
//
// Example:
//   strata::autoscheduler::fail("output Func '" + name + "' has no estimate for dimension " + dim);
//   strata::autoscheduler::warn("Func 'f' is an extern stage; it gets a safe schedule");
#pragma once

#include "Halide.h"

#include <string>

namespace strata::autoscheduler {

[[noreturn]] inline void fail(const std::string &message) {
    throw Halide::CompileError("Strata: " + message + "\n");
}

void warn(const std::string &message);

// The message of the exception being handled, whatever its type: Halide's
// errors (which do not derive from std::exception since Halide 15), the
// standard ones, or "unknown exception". Call only inside a catch block.
//
//   try { ... } catch (...) { warn("the search failed: " + current_exception_message()); }
std::string current_exception_message();

// Verbosity from Params (0 quiet, 1 summary, 2 search progress, 3 everything).
void set_log_level(int level);
int log_level();

// Writes `message` to stderr when the log level is at least `level`.
void log(int level, const std::string &message);

}  // namespace strata::autoscheduler
