// ParseName: the value of an enumeration whose name_of() is `name`, or an
// error that lists the valid names — how every enumeration in a description
// file is read.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace strata::fuzz {

template <typename Enum, size_t N>
Enum parse_name(const std::string &name, const Enum (&all)[N], const char *what) {
    std::string valid;
    for (Enum e : all) {
        if (name == name_of(e)) return e;
        valid += std::string(valid.empty() ? "" : ", ") + name_of(e);
    }
    throw std::invalid_argument(std::string("unknown ") + what + " '" + name + "' (valid: " + valid + ")");
}

}  // namespace strata::fuzz
