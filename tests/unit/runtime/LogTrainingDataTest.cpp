#include "strata/runtime/LogTrainingData.h"

#include "strata/costmodel/SyntheticProfiles.h"
#include "strata/costmodel/Trainer.h"

#include "runtime/TestRecords.h"

#include <doctest/doctest.h>

using namespace strata::runtime;
using namespace strata::costmodel;
using strata::runtime::test::h200_device;
using strata::runtime::test::TemporaryDirectory;

namespace {

MeasuredDevice a100_device() {
    MeasuredDevice d;
    d.api = "cuda";
    d.info.name = "NVIDIA A100-SXM4-80GB";
    d.info.sm_count = 108;
    d.info.compute_capability = 80;
    return d;
}

ProfileRecord record_of(const MeasuredPipeline &p, const MeasuredSchedule &s, const MeasuredDevice &device,
                        double scale) {
    ProfileRecord r;
    r.identity = {p.name, p.pipeline_hash, *ContentHash::from_hex(s.label), std::nullopt};
    r.target = "x86-64-linux-cuda-cuda_capability_80";
    r.featurized_for = p.spec;
    r.device = device;
    r.halide_version = halide_version();
    r.strata_version = strata_version();
    r.stages = s.stages;
    r.times = {s.seconds * 1e3 * scale, s.seconds * 1e3 * scale * 1.05, 10, {}};
    return r;
}

std::vector<MeasuredPipeline> synthetic(int pipelines, int schedules, const char *gpu = "h200") {
    SyntheticOptions options;
    options.pipelines = pipelines;
    options.schedules_per_pipeline = schedules;
    return make_synthetic_pipelines(options, GpuSpec::by_name(gpu));
}

LogTrainingData build(const std::vector<ProfileRecord> &records, LogTrainingOptions options = {}) {
    TrainingDataBuilder builder(std::move(options));
    for (size_t i = 0; i < records.size(); ++i) builder.add(records[i], "log.jsonl:" + std::to_string(i + 1));
    return std::move(builder).finish();
}

}  // namespace

TEST_CASE("records are grouped by pipeline and device, each with the spec it was featurized for") {
    const std::vector<MeasuredPipeline> h200 = synthetic(2, 3, "h200");
    const std::vector<MeasuredPipeline> a100 = synthetic(2, 3, "a100");
    std::vector<ProfileRecord> records;
    for (size_t p = 0; p < h200.size(); ++p) {
        for (size_t s = 0; s < h200[p].schedules.size(); ++s) {
            records.push_back(record_of(h200[p], h200[p].schedules[s], h200_device(), 1.0));
            records.push_back(record_of(a100[p], a100[p].schedules[s], a100_device(), 2.0));
        }
    }
    const LogTrainingData out = build(records);
    REQUIRE(out.pipelines.size() == 4);
    CHECK(out.schedules == 12);
    CHECK(out.duplicates_merged == 0);
    CHECK(out.records_per_gpu.at("NVIDIA H200") == 6);
    CHECK(out.gpu_specs == std::set<std::string>{"a100", "h200"});
    for (const MeasuredPipeline &p : out.pipelines) {
        CHECK(p.schedules.size() == 3);
        CHECK((p.spec.name == "h200" || p.spec.name == "a100"));
    }
}

TEST_CASE("a schedule measured again keeps its fastest time") {
    const std::vector<MeasuredPipeline> data = synthetic(1, 2);
    const std::vector<ProfileRecord> records = {record_of(data[0], data[0].schedules[0], h200_device(), 1.5),
                                                record_of(data[0], data[0].schedules[0], h200_device(), 1.0),
                                                record_of(data[0], data[0].schedules[0], h200_device(), 1.2)};
    const LogTrainingData out = build(records);
    REQUIRE(out.pipelines.size() == 1);
    REQUIRE(out.pipelines[0].schedules.size() == 1);
    CHECK(out.duplicates_merged == 2);
    CHECK(out.pipelines[0].schedules[0].seconds == doctest::Approx(data[0].schedules[0].seconds));
}

TEST_CASE("times with Halide's device-allocation cache on are another group than times without it") {
    const std::vector<MeasuredPipeline> data = synthetic(1, 2);
    std::vector<ProfileRecord> records;
    for (const bool reused : {false, true}) {
        for (const auto &schedule : data[0].schedules) {
            records.push_back(record_of(data[0], schedule, h200_device(), reused ? 0.5 : 1.0));
            records.back().times.reused_device_allocations = reused;
        }
    }
    const LogTrainingData out = build(records);
    REQUIRE(out.pipelines.size() == 2);  // not merged as repeated measurements
    CHECK(out.duplicates_merged == 0);
    CHECK(out.pipelines[0].schedules.size() == 2);
    CHECK(out.pipelines[1].schedules.size() == 2);
}

TEST_CASE("records featurized for another GPU than the one measured are refused, naming what differs") {
    const std::vector<MeasuredPipeline> a100 = synthetic(1, 2, "a100");
    // A100 features timed on an H200: the mix the trainer must never learn from.
    const std::vector<ProfileRecord> records = {record_of(a100[0], a100[0].schedules[0], h200_device(), 1.0),
                                                record_of(a100[0], a100[0].schedules[1], h200_device(), 1.0)};
    try {
        build(records);
        FAIL("a spec mismatch was accepted");
    } catch (const std::runtime_error &e) {
        const std::string message = e.what();
        CHECK(message.find("2 record(s) were featurized for another GPU spec") == 0);
        CHECK(message.find("log.jsonl:1: features computed for a100 but measured on NVIDIA H200 (spec h200), "
                           "features' vs device's: compute_capability 80 vs 90, sm_count 108 vs 132, ") !=
              std::string::npos);
        CHECK(message.find("log.jsonl:2: ") != std::string::npos);
    }
    LogTrainingOptions unchecked;
    unchecked.check_specs = false;
    const LogTrainingData out = build(records, unchecked);
    REQUIRE(out.pipelines.size() == 1);
    CHECK(out.pipelines[0].spec.name == "a100");  // the features' own spec prices them
}

TEST_CASE("an H200 on any CUDA target expects the H200 spec; a MIG slice its own SM count") {
    CHECK(expected_device_spec(h200_device(), std::nullopt).name == "h200");
    MeasuredDevice mig = h200_device();
    mig.info.sm_count = 16;
    const GpuSpec slice = expected_device_spec(mig, std::nullopt);
    CHECK(slice.sm_count == 16);
    CHECK(slice.name == "h200-16sm");
}

TEST_CASE("unknown devices need a fallback spec") {
    const std::vector<MeasuredPipeline> data = synthetic(1, 1, "h100");
    MeasuredDevice pocl;
    pocl.api = "opencl";
    pocl.info.name = "PoCL CPU";
    MeasuredDevice future = h200_device();
    future.info.name = "NVIDIA Future GPU";
    future.info.compute_capability = 120;
    const std::vector<ProfileRecord> records = {record_of(data[0], data[0].schedules[0], pocl, 1.0),
                                                record_of(data[0], data[0].schedules[0], future, 1.0)};
    CHECK_THROWS_WITH_AS(build(records),
                         "the logs measure GPUs that are not in the GPU table: 'NVIDIA Future GPU', 'PoCL CPU'; "
                         "give a spec for them with --gpu <name or spec.json>",
                         std::runtime_error);
    LogTrainingOptions with_fallback;
    with_fallback.fallback = GpuSpec::by_name("h100");
    const LogTrainingData out = build(records, with_fallback);
    CHECK(out.pipelines.size() == 2);
    CHECK(out.gpus_on_fallback == std::vector<std::string>{"PoCL CPU", "NVIDIA Future GPU"});
    CHECK(out.pipelines[0].spec.name == "h100");
}

TEST_CASE("the algorithm hash, not the sized pipeline hash, is what validation holds out") {
    const std::vector<MeasuredPipeline> data = synthetic(1, 1);
    ProfileRecord small = record_of(data[0], data[0].schedules[0], h200_device(), 1.0);
    ProfileRecord large = small;
    large.identity.pipeline_hash = ContentHash::of_text("the same app at twice the size");
    small.identity.algorithm_hash = large.identity.algorithm_hash = ContentHash::of_text("one algorithm");
    const LogTrainingData out = build({small, large});
    REQUIRE(out.pipelines.size() == 2);
    CHECK(out.pipelines[0].algorithm_key() == out.pipelines[1].algorithm_key());
    CHECK(out.pipelines[0].algorithm_key() == ContentHash::of_text("one algorithm").hex());
}

TEST_CASE("logs written, streamed back and trained on give weights that load") {
    TemporaryDirectory dir("strata_log_training");
    const std::vector<MeasuredPipeline> data = synthetic(12, 6);
    {
        ProfileLogWriter log(dir.file("h200.jsonl"));
        for (const MeasuredPipeline &p : data) {
            for (const MeasuredSchedule &s : p.schedules) log.append(record_of(p, s, h200_device(), 1.0));
        }
    }
    TrainingDataBuilder builder({});
    LogReadReport report;
    read_profile_logs(
        {dir.path()}, [&](ProfileRecord &&r, const std::string &where) { builder.add(r, where); }, report);
    CHECK(report.skipped.total() == 0);
    const LogTrainingData training = std::move(builder).finish();
    CHECK(training.schedules == 72);

    TrainerOptions options;
    options.epochs = 3;
    options.max_folds = 3;
    const TrainingResult result = train_cost_model(training.pipelines, options);
    const std::string weights = dir.file("weights.json");
    result.weights.write_file(weights);
    CHECK(Weights::read_file(weights).to_text() == result.weights.to_text());
}
