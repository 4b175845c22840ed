#include "strata/dsl/Stages.h"

#include "strata/dsl/Require.h"

#include <cctype>

namespace strata::dsl {

namespace {

// Halide makes Func names unique per process by appending "$<n>", even to a
// name used once (when another name shares its counter); returns the name
// without that suffix.
std::string without_unique_suffix(const std::string &actual) {
    const size_t dollar = actual.rfind('$');
    if (dollar == std::string::npos || dollar + 1 == actual.size()) return actual;
    for (size_t i = dollar + 1; i < actual.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(actual[i]))) return actual;
    }
    return actual.substr(0, dollar);
}

bool is_renamed(const std::string &actual, const std::string &name) {
    return actual != name && without_unique_suffix(actual) == name;
}

}  // namespace

std::string given_name(const Halide::Func &f) { return without_unique_suffix(f.name()); }

Halide::Func find_stage(const Halide::Func &consumer, const std::string &name) {
    const auto calls = Halide::Internal::find_transitive_calls(consumer.function());
    auto it = calls.find(name);
    if (it != calls.end()) return Halide::Func(it->second);
    const Halide::Internal::Function *renamed = nullptr;
    int matches = 0;
    for (const auto &entry : calls) {
        if (is_renamed(entry.first, name)) renamed = &entry.second, ++matches;
    }
    if (matches == 1) return Halide::Func(*renamed);
    std::string known;
    for (const auto &entry : calls) known += (known.empty() ? "" : ", ") + entry.first;
    require(false, "find_stage: '" + consumer.name() + "' calls " +
                       (matches ? "several Funcs named '" + name + "$<n>'" : "no Func named '" + name + "'") +
                       "; it calls: " + known);
    return Halide::Func();
}

}  // namespace strata::dsl
