#include "strata/costmodel/FeatureSchema.h"

namespace strata::costmodel {

namespace {
#define STRATA_NAME(e, name) name,
constexpr const char *kFeatureNames[] = {STRATA_FEATURES(STRATA_NAME)};
constexpr const char *kTermNames[] = {STRATA_TERMS(STRATA_NAME)};
#undef STRATA_NAME
static_assert(sizeof(kFeatureNames) / sizeof(kFeatureNames[0]) == kNumFeatures);
static_assert(sizeof(kTermNames) / sizeof(kTermNames[0]) == kNumTerms);
}  // namespace

const char *feature_name(Feature f) { return kFeatureNames[index(f)]; }
const char *term_name(Term t) { return kTermNames[index(t)]; }

int feature_added_in(Feature f) {
    switch (f) {
    case Feature::DependentSteps:
    case Feature::DependentStepMisses:
        return 4;
    default:
        return 1;
    }
}

const std::vector<std::string> &feature_names() {
    static const std::vector<std::string> names(std::begin(kFeatureNames), std::end(kFeatureNames));
    return names;
}

const std::vector<std::string> &term_names() {
    static const std::vector<std::string> names(std::begin(kTermNames), std::end(kTermNames));
    return names;
}

}  // namespace strata::costmodel
