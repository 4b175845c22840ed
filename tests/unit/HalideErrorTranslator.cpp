// Lets doctest read Halide's errors: since Halide 15 they do not derive from
// std::exception, so without this CHECK_THROWS_WITH on a Halide::CompileError
// would see "unknown exception" instead of its message. Linked into every
// unit-test executable whose code throws them.
#include "Halide.h"

#include <doctest/doctest.h>

REGISTER_EXCEPTION_TRANSLATOR(const Halide::Error &e) { return doctest::String(e.what()); }
