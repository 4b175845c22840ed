# Project-wide warning flags, applied per target so that generated Halide
# objects and third-party headers are not affected.
add_library(strata_warnings INTERFACE)
target_compile_options(strata_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
     # GCC 12 misreports Halide::Runtime::Buffer::for_each_element's position array.
     -Wno-maybe-uninitialized>)
