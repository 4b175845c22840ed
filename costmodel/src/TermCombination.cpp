#include "strata/costmodel/TermCombination.h"

#include <map>
#include <stdexcept>

namespace strata::costmodel {

TermVector unit_coefficients() {
    TermVector ones;
    ones.fill(1.0);
    return ones;
}

double pipeline_seconds(const std::vector<StageTerms> &stages, const std::vector<TermVector> &coefficients,
                        std::vector<TermVector> *gradient) {
    if (coefficients.size() != stages.size()) {
        throw std::invalid_argument("pipeline_seconds: " + std::to_string(stages.size()) + " stages but " +
                                    std::to_string(coefficients.size()) + " coefficient vectors");
    }
    if (gradient) gradient->assign(stages.size(), TermVector{});

    struct KernelSums {
        TermVector overlapping{};  // sums over the kernel's stages, overlapping terms only
        double additive = 0;
    };
    std::map<int, KernelSums> kernels;
    for (size_t s = 0; s < stages.size(); ++s) {
        KernelSums &k = kernels[stages[s].kernel];
        for (int t = 0; t < kNumTerms; ++t) {
            const double scaled = coefficients[s][t] * stages[s].terms[t];
            if (overlaps_within_kernel(Term(t))) {
                k.overlapping[t] += scaled;
            } else {
                k.additive += scaled;
                if (gradient) (*gradient)[s][t] = stages[s].terms[t];
            }
        }
    }

    double total = 0;
    std::map<int, int> busiest;
    for (auto &[id, k] : kernels) {
        int best = index(Term::Compute);
        for (int t = 0; t < kNumTerms; ++t) {
            if (overlaps_within_kernel(Term(t)) && k.overlapping[t] > k.overlapping[best]) best = t;
        }
        busiest[id] = best;
        total += k.overlapping[best] + k.additive;
    }
    if (gradient) {
        for (size_t s = 0; s < stages.size(); ++s) {
            const int t = busiest[stages[s].kernel];
            (*gradient)[s][t] = stages[s].terms[t];
        }
    }
    return total;
}

}  // namespace strata::costmodel
