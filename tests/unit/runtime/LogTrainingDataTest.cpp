#include "strata/runtime/LogTrainingData.h"

#include "strata/costmodel/SyntheticProfiles.h"
#include "strata/costmodel/Trainer.h"

#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>

using namespace strata::runtime;
using namespace strata::costmodel;
namespace fs = std::filesystem;

namespace {

ProfileRecord record_of(const MeasuredPipeline &p, const MeasuredSchedule &s, const std::string &gpu, double scale) {
    ProfileRecord r;
    r.identity = {p.name, p.pipeline_hash, *ContentHash::from_hex(s.label)};
    r.target = "x86-64-linux-cuda-cuda_capability_80";
    r.gpu = gpu;
    r.halide_version = halide_version();
    r.strata_version = strata_version();
    r.stages = s.stages;
    r.times = {s.seconds * 1e3 * scale, s.seconds * 1e3 * scale * 1.05, 10};
    return r;
}

std::vector<MeasuredPipeline> synthetic(int pipelines, int schedules) {
    SyntheticOptions options;
    options.pipelines = pipelines;
    options.schedules_per_pipeline = schedules;
    return make_synthetic_pipelines(options, GpuSpec::by_name("h200"));
}

}  // namespace

TEST_CASE("records are grouped by pipeline and GPU, with each GPU's spec") {
    const std::vector<MeasuredPipeline> data = synthetic(2, 3);
    std::vector<ProfileRecord> records;
    for (const MeasuredPipeline &p : data) {
        for (const MeasuredSchedule &s : p.schedules) {
            records.push_back(record_of(p, s, "NVIDIA H200", 1.0));
            records.push_back(record_of(p, s, "NVIDIA A100-SXM4-80GB", 2.0));
        }
    }
    const LogTrainingData out = training_data_from_logs(records, std::nullopt);
    REQUIRE(out.pipelines.size() == 4);
    CHECK(out.schedules == 12);
    CHECK(out.duplicates_merged == 0);
    CHECK(out.records_per_gpu.at("NVIDIA H200") == 6);
    for (const MeasuredPipeline &p : out.pipelines) {
        CHECK(p.schedules.size() == 3);
        CHECK((p.spec.name == "h200" || p.spec.name == "a100"));
    }
    // Times are the minimum, in seconds.
    const MeasuredPipeline &first = out.pipelines[0];
    const MeasuredPipeline &source = data[0].pipeline_hash == first.pipeline_hash ? data[0] : data[1];
    const double scale = first.spec.name == "h200" ? 1.0 : 2.0;
    CHECK(first.schedules[0].seconds == doctest::Approx(source.schedules[0].seconds * scale));
}

TEST_CASE("a schedule measured again keeps its fastest time") {
    const std::vector<MeasuredPipeline> data = synthetic(1, 2);
    const std::vector<ProfileRecord> records = {record_of(data[0], data[0].schedules[0], "NVIDIA H200", 1.5),
                                                record_of(data[0], data[0].schedules[0], "NVIDIA H200", 1.0),
                                                record_of(data[0], data[0].schedules[0], "NVIDIA H200", 1.2)};
    const LogTrainingData out = training_data_from_logs(records, std::nullopt);
    REQUIRE(out.pipelines.size() == 1);
    REQUIRE(out.pipelines[0].schedules.size() == 1);
    CHECK(out.duplicates_merged == 2);
    CHECK(out.pipelines[0].schedules[0].seconds == doctest::Approx(data[0].schedules[0].seconds));
}

TEST_CASE("unknown GPUs need a fallback spec") {
    const std::vector<MeasuredPipeline> data = synthetic(1, 1);
    const std::vector<ProfileRecord> records = {record_of(data[0], data[0].schedules[0], "NVIDIA B200", 1.0),
                                                record_of(data[0], data[0].schedules[0], "NVIDIA RTX A6000", 1.0)};
    CHECK_THROWS_WITH_AS(training_data_from_logs(records, std::nullopt),
                         "the logs measure GPUs that are not in the GPU table: 'NVIDIA B200', 'NVIDIA RTX A6000'; "
                         "give a spec for them with --gpu <name or spec.json>",
                         std::runtime_error);
    const LogTrainingData out = training_data_from_logs(records, GpuSpec::by_name("h100"));
    CHECK(out.pipelines.size() == 2);
    CHECK(out.gpus_on_fallback == std::vector<std::string>{"NVIDIA B200", "NVIDIA RTX A6000"});
    CHECK(out.pipelines[0].spec.name == "h100");
}

TEST_CASE("logs written, read back and trained on give weights that load") {
    const fs::path dir = fs::temp_directory_path() / ("strata_log_training_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::vector<MeasuredPipeline> data = synthetic(12, 6);
    {
        ProfileLogWriter log((dir / "h200.jsonl").string());
        for (const MeasuredPipeline &p : data) {
            for (const MeasuredSchedule &s : p.schedules) log.append(record_of(p, s, "NVIDIA H200", 1.0));
        }
    }
    const ProfileLogContents logs = read_profile_logs({dir.string()});
    CHECK(logs.skipped.total() == 0);
    const LogTrainingData training = training_data_from_logs(logs.records, std::nullopt);
    CHECK(training.schedules == 72);

    TrainerOptions options;
    options.epochs = 3;
    const TrainingResult result = train_cost_model(training.pipelines, options);
    const std::string weights = (dir / "weights.json").string();
    result.weights.write_file(weights);
    CHECK(Weights::read_file(weights).to_text() == result.weights.to_text());
    fs::remove_all(dir);
}
