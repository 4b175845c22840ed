#include "strata/runtime/HalideErrorCapture.h"

#include "HalideRuntime.h"

#include <doctest/doctest.h>

using namespace strata::runtime;

TEST_CASE("halide_error keeps its messages instead of aborting, until they are taken") {
    CHECK(take_halide_error_messages().empty());
    halide_error(nullptr, "Input buffer input is accessed at -28\n");
    halide_error(nullptr, "second\n");
    CHECK(take_halide_error_messages() == "Input buffer input is accessed at -28; second");
    CHECK(take_halide_error_messages().empty());
}

TEST_CASE("describe_halide_error names the code and, when there is one, the message") {
    CHECK(describe_halide_error(-3) == "Halide error -3");
    halide_error(nullptr, "device malloc failed\n");
    CHECK(describe_halide_error(-5) == "Halide error -5: device malloc failed");
    CHECK(describe_halide_error(-5) == "Halide error -5");
}
