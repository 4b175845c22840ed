#include "strata/dsl/Stages.h"

#include "strata/dsl/Require.h"

#include <cctype>

namespace strata::dsl {

namespace {

// Halide makes Func names unique per process by appending "$<n>", even to a
// name used once (when another Func was created with it before).
bool is_renamed(const std::string &actual, const std::string &name) {
    if (actual.size() <= name.size() + 1 || actual.compare(0, name.size(), name) != 0 || actual[name.size()] != '$') {
        return false;
    }
    for (size_t i = name.size() + 1; i < actual.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(actual[i]))) return false;
    }
    return true;
}

}  // namespace

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
