#include "strata/dsl/Stages.h"

#include "strata/dsl/Require.h"

namespace strata::dsl {

Halide::Func find_stage(const Halide::Func &consumer, const std::string &name) {
    const auto calls = Halide::Internal::find_transitive_calls(consumer.function());
    auto it = calls.find(name);
    if (it == calls.end()) {
        std::string known;
        for (const auto &entry : calls) known += (known.empty() ? "" : ", ") + entry.first;
        require(false, "find_stage: '" + consumer.name() + "' calls no Func named '" + name + "'; it calls: " + known);
    }
    return Halide::Func(it->second);
}

}  // namespace strata::dsl
