// AnalyticModel: per-stage time terms from first principles — a roofline
// over compute, DRAM, L2 and shared memory, with the efficiencies that make
// GPUs miss their peaks (occupancy too low to hide latency, idle lanes in
// partial warps, the last partial wave of blocks, uncoalesced sectors, bank
// conflicts) — the latency of a scan's chain of dependent steps, plus
// barrier, atomic and launch overheads.
//
// The features already carry the schedule's traffic (sectors from
// simulated warp addresses, bank-conflict ways, occupancy); this file turns
// them into seconds on a particular GPU. As a CostModel it combines the
// terms with unit coefficients (see TermCombination.h).
//
// Example:
//   AnalyticModel model(GpuSpec::by_name("a100"));
//   TermVector t = model.terms(stage.features);
//   std::vector<double> seconds = model.predict({&schedule});
#pragma once

#include "strata/costmodel/CostModel.h"
#include "strata/costmodel/GpuSpec.h"
#include "strata/costmodel/TermCombination.h"

namespace strata::costmodel {

class AnalyticModel : public CostModel {
public:
    explicit AnalyticModel(GpuSpec spec) : spec_(std::move(spec)) {}

    const GpuSpec &spec() const { return spec_; }

    // The terms of one stage.
    TermVector terms(const FeatureVector &features) const;
    static TermVector terms(const FeatureVector &features, const GpuSpec &spec);

    // The terms of every stage of a schedule, with their kernel indices.
    std::vector<StageTerms> stage_terms(const ScheduleFeatures &schedule) const;

    std::vector<double> predict(const std::vector<const ScheduleFeatures *> &batch) const override;
    std::string describe() const override;

    // The fraction of peak throughput reachable at a given occupancy (resident
    // warps / max warps): latency hiding saturates well below full occupancy.
    static double latency_hiding(double occupancy);

    // The fraction of the GPU's peak a launch keeps busy over its waves:
    // full waves at the latency hiding of `occupancy`, the last partial wave
    // with fewer blocks per SM (less hiding) on fewer SMs.
    static double launch_efficiency(double blocks, double resident_blocks_per_sm, double occupancy,
                                    const GpuSpec &spec);

private:
    GpuSpec spec_;
};

}  // namespace strata::costmodel
