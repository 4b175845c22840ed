// What the autoscheduler's in-process tests share: the CUDA target they
// schedule for, parameters for a quick search, scratch file paths, and
// Funcs looked up by the name a test gave them.
#pragma once

#include "FunctionDAG.h"
#include "Params.h"

#include <doctest/doctest.h>

#include "Halide.h"

#include <cstdlib>
#include <regex>
#include <string>

namespace strata::testing {

inline const Halide::Target &cuda_target() {
    static const Halide::Target target("host-cuda-cuda_capability_80");
    return target;
}

// A small beam and one pass: the tests check what a schedule is, not how good.
inline autoscheduler::Params quick_params() {
    autoscheduler::Params p;
    p.beam_size = 4;
    p.passes = 1;
    return p;
}

// `name` in the temporary directory (TMPDIR, else /tmp).
inline std::string temp_path(const std::string &name) {
    const char *dir = std::getenv("TMPDIR");
    return std::string(dir ? dir : "/tmp") + "/" + name;
}

// Halide renames Funcs re-created in one process ("bx$1"), and a schedule
// source names them "bx_1"; without those suffixes two sources of the same
// pipeline built twice compare equal.
inline std::string without_unique_suffixes(const std::string &s) {
    return std::regex_replace(std::regex_replace(s, std::regex("\\$[0-9]+"), ""),
                              std::regex("\\b([A-Za-z][A-Za-z_]*[A-Za-z])_[0-9]+\\b"), "$1");
}

// The id of the Func a test named `given` (Halide may have appended "$n").
inline int id_of(const autoscheduler::FunctionDAG &dag, const std::string &given) {
    for (const autoscheduler::Node *n : dag.funcs()) {
        if (n->name == given || n->name.rfind(given + "$", 0) == 0) return n->id;
    }
    FAIL("no Func " << given);
    return -1;
}

}  // namespace strata::testing
