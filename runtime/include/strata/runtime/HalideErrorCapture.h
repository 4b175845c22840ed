// HalideErrorCapture: keeps the messages of Halide's runtime errors instead
// of letting them end the process.
//
// An AOT pipeline reports a failure (a bounds violation, a device error)
// through halide_error(), whose default since Halide 16 prints the message
// and aborts. Programs that run pipelines to report on them (the app check
// harness, strata-bench) link HalideErrorCapture.cpp, which defines
// halide_error() (the runtime's own is weak): the message is kept, and the
// pipeline returns its error code as it did before.
//
// Example:
//   if (int error = pipeline_argv(args)) {
//       throw std::runtime_error("pipeline failed with " + strata::runtime::describe_halide_error(error));
//   }
#pragma once

#include <string>

namespace strata::runtime {

// The messages halide_error() received since the last call (joined by "; ",
// trailing newlines removed), or "" if none; clears them.
std::string take_halide_error_messages();

// "Halide error <code>", followed by ": <messages>" when halide_error()
// received any (they are taken).
std::string describe_halide_error(int code);

}  // namespace strata::runtime
