#include "strata/runtime/ProfileLog.h"

#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

using namespace strata::runtime;
using strata::costmodel::ContentHash;
using strata::costmodel::Feature;
using strata::costmodel::feature_name;
using strata::costmodel::kNumFeatures;
using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace {

ProfileRecord record(int schedule) {
    ProfileRecord r;
    r.identity = {"unsharp", ContentHash::of_text("unsharp pipeline"), ContentHash::of_text(std::to_string(schedule))};
    r.target = "x86-64-linux-cuda-cuda_capability_80";
    r.gpu = "NVIDIA H200";
    r.halide_version = halide_version();
    r.strata_version = strata_version();
    for (int s = 0; s < 2; ++s) {
        strata::costmodel::StageFeatures stage;
        stage.name = "f" + std::to_string(s) + ".s0";
        stage.kernel = s;
        for (int i = 0; i < kNumFeatures; ++i) stage.features[i] = schedule * 100.0 + i + 0.25;
        r.stages.push_back(stage);
    }
    r.times = {0.5 + schedule, 0.75 + schedule, 20};
    return r;
}

// A fresh directory per test, removed afterwards.
class TemporaryDirectory {
public:
    TemporaryDirectory()
        : path_(fs::temp_directory_path() / ("strata_profile_log_test_" + std::to_string(::getpid()))) {
        fs::remove_all(path_);
        fs::create_directories(path_);
    }
    ~TemporaryDirectory() { fs::remove_all(path_); }
    std::string file(const std::string &name) const { return (path_ / name).string(); }
    std::string path() const { return path_.string(); }

private:
    fs::path path_;
};

void append_text(const std::string &path, const std::string &text) {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    out << text;
}

ProfileLogContents read(const std::string &path) {
    ProfileLogContents contents;
    read_profile_log(path, contents);
    return contents;
}

}  // namespace

TEST_CASE("a record round-trips through one line") {
    const ProfileRecord r = record(3);
    const std::string line = r.to_line();
    CHECK(line.find('\n') == std::string::npos);
    const ProfileRecord back = ProfileRecord::from_json(Json::parse(line), "mem:1");
    CHECK(back.identity.pipeline_name == "unsharp");
    CHECK(back.identity.pipeline_hash == r.identity.pipeline_hash);
    CHECK(back.identity.schedule_hash == r.identity.schedule_hash);
    CHECK(back.target == r.target);
    CHECK(back.gpu == "NVIDIA H200");
    CHECK(back.halide_version == r.halide_version);
    CHECK(back.halide_version.rfind("21.", 0) == 0);
    CHECK(back.strata_version == strata_version());
    REQUIRE(back.stages.size() == 2);
    CHECK(back.stages[1].features == r.stages[1].features);
    CHECK(back.times.min_ms == 3.5);
    CHECK(back.times.median_ms == 3.75);
    CHECK(back.times.samples == 20);
    const Json json = Json::parse(line);
    CHECK(json["schema"] == kProfileSchema);
    CHECK(json["pipeline"]["hash"] == r.identity.pipeline_hash.hex());
}

TEST_CASE("writers append and never truncate") {
    TemporaryDirectory dir;
    const std::string path = dir.file("log.jsonl");
    {
        ProfileLogWriter log(path);
        log.append(record(1));
        log.append(record(2));
    }
    ProfileLogWriter(path).append(record(3));
    const ProfileLogContents contents = read(path);
    CHECK(contents.skipped.total() == 0);
    REQUIRE(contents.records.size() == 3);
    CHECK(contents.records[2].times.min_ms == 3.5);
}

TEST_CASE("a torn last line is skipped and counted, and the next record starts on a new line") {
    TemporaryDirectory dir;
    const std::string path = dir.file("log.jsonl");
    ProfileLogWriter(path).append(record(1));
    const std::string whole = record(2).to_line();
    append_text(path, whole.substr(0, whole.size() / 2));  // a crash mid-write

    ProfileLogContents contents = read(path);
    CHECK(contents.records.size() == 1);
    CHECK(contents.skipped.torn_last_line == 1);
    CHECK(contents.skipped.total() == 1);
    REQUIRE(contents.messages.size() == 1);
    CHECK(contents.messages[0].find(path + ":2: torn last line") == 0);

    ProfileLogWriter(path).append(record(3));
    contents = read(path);
    CHECK(contents.records.size() == 2);
    CHECK(contents.skipped.bad_json == 1);  // no longer last
    CHECK(contents.skipped.torn_last_line == 0);
    CHECK(contents.messages[0].find(path + ":2: bad JSON") == 0);
}

TEST_CASE("a complete last record without its newline is kept") {
    TemporaryDirectory dir;
    const std::string path = dir.file("log.jsonl");
    append_text(path, record(1).to_line());
    CHECK(read(path).records.size() == 1);
}

TEST_CASE("bad lines are skipped by reason with their line numbers, never fatally") {
    TemporaryDirectory dir;
    const std::string path = dir.file("log.jsonl");
    Json renamed = record(4).to_json();
    renamed["stages"][0]["features"].erase(feature_name(Feature::Blocks));
    renamed["stages"][0]["features"]["blocks_total"] = 1;
    Json old_version = record(5).to_json();
    old_version["feature_schema_version"] = 0;
    Json no_times = record(6).to_json();
    no_times.erase("times");
    Json negative_time = record(7).to_json();
    negative_time["times"]["min_ms"] = -1;
    Json annotated = record(8).to_json();
    annotated["note"] = "tools may add fields";

    append_text(path, record(1).to_line() + "\n" +                         // 1 ok
                          "{not json\n" +                                  // 2 bad JSON
                          "\n" +                                           // 3 blank: ignored
                          "{\"schema\": \"strata.featurization.v1\"}\n" +  // 4 wrong schema
                          "[1, 2, 3]\n" +                                  // 5 wrong schema
                          renamed.dump() + "\n" +                          // 6 mismatched features
                          old_version.dump() + "\n" +                      // 7 mismatched features
                          no_times.dump() + "\n" +                         // 8 malformed
                          negative_time.dump() + "\n" +                    // 9 malformed
                          annotated.dump() + "\n");                        // 10 ok
    const ProfileLogContents contents = read(path);
    CHECK(contents.records.size() == 2);
    CHECK(contents.skipped.bad_json == 1);
    CHECK(contents.skipped.wrong_schema == 2);
    CHECK(contents.skipped.feature_mismatch == 2);
    CHECK(contents.skipped.bad_record == 2);
    CHECK(contents.skipped.torn_last_line == 0);
    CHECK(contents.skipped.summary() ==
          "7 skipped: 1 bad JSON, 2 wrong schema, 2 mismatched features, 2 malformed record");
    REQUIRE(contents.messages.size() == 7);
    CHECK(contents.messages[0].find(path + ":2: bad JSON") == 0);
    CHECK(contents.messages[1] ==
          path + ":4: wrong schema: schema \"strata.featurization.v1\", expected \"strata.profile.v1\"");
    CHECK(contents.messages[2] == path + ":5: wrong schema: schema none, expected \"strata.profile.v1\"");
    CHECK(contents.messages[3].find(path + ":6: stages[0] ('f0.s0'): feature names differ") == 0);
    CHECK(contents.messages[3].find("unknown 'blocks_total'; missing 'blocks'") != std::string::npos);
    CHECK(contents.messages[4].find(path + ":7: written with feature schema version 0") == 0);
    CHECK(contents.messages[5] == path + ":8: missing field 'times'");
    CHECK(contents.messages[6] == path + ":9: times.min_ms must be a positive number, not -1");
}

TEST_CASE("directories are searched for *.jsonl logs in a fixed order") {
    TemporaryDirectory dir;
    fs::create_directories(dir.file("b"));
    ProfileLogWriter(dir.file("b/two.jsonl")).append(record(2));
    ProfileLogWriter(dir.file("a.jsonl")).append(record(1));
    append_text(dir.file("notes.txt"), "not a log\n");
    const ProfileLogContents contents = read_profile_logs({dir.path()});
    REQUIRE(contents.records.size() == 2);
    CHECK(contents.records[0].times.min_ms == 1.5);
    CHECK(contents.files == std::vector<std::string>{dir.file("a.jsonl"), dir.file("b/two.jsonl")});

    CHECK_THROWS_WITH_AS(read_profile_logs({dir.file("missing.jsonl")}),
                         ("profile logs: " + dir.file("missing.jsonl") + " does not exist").c_str(),
                         std::runtime_error);
    fs::create_directories(dir.file("empty"));
    CHECK_THROWS_WITH_AS(read_profile_logs({dir.file("empty")}), doctest::Contains("no *.jsonl files under"),
                         std::runtime_error);
}

TEST_CASE("a log that cannot be created is an error naming it") {
    CHECK_THROWS_WITH_AS(ProfileLogWriter("/nonexistent/dir/log.jsonl"),
                         doctest::Contains("profile log /nonexistent/dir/log.jsonl: cannot open for appending"),
                         std::runtime_error);
}
