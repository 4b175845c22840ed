#include "strata/runtime/ProfileLog.h"

#include "runtime/TestRecords.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

using namespace strata::runtime;
using strata::costmodel::ContentHash;
using strata::costmodel::Feature;
using strata::costmodel::feature_name;
using strata::runtime::test::make_record;
using strata::runtime::test::TemporaryDirectory;
using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace {

void append_text(const std::string &path, const std::string &text) {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    out << text;
}

ProfileLogContents read(const std::string &path) { return read_profile_logs(std::vector<std::string>{path}); }

}  // namespace

TEST_CASE("a record round-trips through one line with every field") {
    const ProfileRecord r = make_record(3);
    const std::string line = r.to_line();
    CHECK(line.find('\n') == std::string::npos);
    const ProfileRecord back = ProfileRecord::from_json(Json::parse(line), "mem:1");
    CHECK(back.identity.pipeline_name == "unsharp");
    CHECK(back.identity.pipeline_hash == r.identity.pipeline_hash);
    CHECK(back.identity.schedule_hash == r.identity.schedule_hash);
    REQUIRE(back.identity.algorithm_hash);
    CHECK(*back.identity.algorithm_hash == *r.identity.algorithm_hash);
    CHECK(back.sizes == r.sizes);
    CHECK(back.variant == "strata");
    CHECK(back.sample_index == 3);
    CHECK(back.target == r.target);
    CHECK(back.featurized_for.name == "h200");
    CHECK(back.featurized_for.differences(r.featurized_for).empty());
    CHECK(back.device.api == "cuda");
    CHECK(back.device.info.name == "NVIDIA H200");
    CHECK(back.device.info.sm_count == 132);
    CHECK(back.device.info.compute_capability == 90);
    CHECK(back.device.info.clock_khz == 1980000);
    CHECK(back.device.info.memory_clock_khz == 2619000);
    CHECK(back.device.info.memory_bus_width_bits == 6144);
    CHECK(back.device.info.l2_cache_bytes == r.device.info.l2_cache_bytes);
    CHECK(back.device.info.total_memory_bytes == r.device.info.total_memory_bytes);
    CHECK(back.device.driver_version == 13000);
    CHECK(back.halide_version == r.halide_version);
    CHECK(back.halide_version.rfind("21.", 0) == 0);
    CHECK(back.strata_version == strata_version());
    REQUIRE(back.stages.size() == 2);
    CHECK(back.stages[1].features == r.stages[1].features);
    CHECK(back.times.min_ms == 3.5);
    CHECK(back.times.median_ms == 3.75);
    CHECK(back.times.samples == 3);
    CHECK(back.times.samples_ms == r.times.samples_ms);
    CHECK_FALSE(back.times.reused_device_allocations);
    ProfileRecord cached = r;
    cached.times.reused_device_allocations = true;
    CHECK(ProfileRecord::from_json(Json::parse(cached.to_line()), "mem:1").times.reused_device_allocations);
    // Logs written before the condition was recorded ran without the cache; a non-boolean is refused.
    Json old = Json::parse(cached.to_line());
    old["times"].erase("reused_device_allocations");
    CHECK_FALSE(ProfileRecord::from_json(old, "mem:1").times.reused_device_allocations);
    old["times"]["reused_device_allocations"] = "yes";
    CHECK_THROWS_WITH(ProfileRecord::from_json(old, "old.jsonl:4"),
                      doctest::Contains("old.jsonl:4: times.reused_device_allocations must be true or false"));
    const Json json = Json::parse(line);
    CHECK(json["schema"] == kProfileSchema);
    CHECK(json["pipeline"]["hash"] == r.identity.pipeline_hash.hex());

    ProfileRecord bare = make_record(1);  // the optional fields left out
    bare.identity.algorithm_hash.reset();
    bare.variant.clear();
    bare.sample_index.reset();
    const ProfileRecord bare_back = ProfileRecord::from_json(bare.to_json(), "mem:2");
    CHECK(!bare_back.identity.algorithm_hash);
    CHECK(bare_back.variant.empty());
    CHECK(!bare_back.sample_index);
}

TEST_CASE("writers append and never truncate") {
    TemporaryDirectory dir("strata_profile_log_test");
    const std::string path = dir.file("log.jsonl");
    {
        ProfileLogWriter log(path);
        log.append(make_record(1));
        log.append(make_record(2));
    }
    ProfileLogWriter(path).append(make_record(3));
    const ProfileLogContents contents = read(path);
    CHECK(contents.report.skipped.total() == 0);
    REQUIRE(contents.records.size() == 3);
    CHECK(contents.records[2].times.min_ms == 3.5);
    REQUIRE(contents.report.files.size() == 1);
    CHECK(contents.report.files[0].lines == 3);
    CHECK(contents.report.files[0].records == 3);
}

TEST_CASE("records are streamed with where they came from, and the log's content hash is its bytes'") {
    TemporaryDirectory dir("strata_profile_log_test");
    const std::string path = dir.file("log.jsonl");
    append_text(path, make_record(1).to_line() + "\n\n" + make_record(2).to_line() + "\n");
    std::vector<std::string> where;
    LogReadReport report;
    read_profile_log(
        path, [&](ProfileRecord &&, const std::string &w) { where.push_back(w); }, report);
    CHECK(where == std::vector<std::string>{path + ":1", path + ":3"});
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(report.files[0].content == ContentHash::of_text(bytes));
    CHECK(report.records == 2);
}

TEST_CASE("a torn last line is skipped and counted, and the next record starts on a new line") {
    TemporaryDirectory dir("strata_profile_log_test");
    const std::string path = dir.file("log.jsonl");
    ProfileLogWriter(path).append(make_record(1));
    const std::string whole = make_record(2).to_line();
    append_text(path, whole.substr(0, whole.size() / 2));  // a crash mid-write

    ProfileLogContents contents = read(path);
    CHECK(contents.records.size() == 1);
    CHECK(contents.report.skipped.torn_last_line == 1);
    CHECK(contents.report.skipped.total() == 1);
    REQUIRE(contents.report.messages.size() == 1);
    CHECK(contents.report.messages[0].find(path + ":2: torn last line") == 0);

    ProfileLogWriter(path).append(make_record(3));
    contents = read(path);
    CHECK(contents.records.size() == 2);
    CHECK(contents.report.skipped.bad_json == 1);  // no longer last
    CHECK(contents.report.skipped.torn_last_line == 0);
    CHECK(contents.report.messages[0].find(path + ":2: bad JSON") == 0);
}

TEST_CASE("a complete last record without its newline is kept") {
    TemporaryDirectory dir("strata_profile_log_test");
    const std::string path = dir.file("log.jsonl");
    append_text(path, make_record(1).to_line());
    CHECK(read(path).records.size() == 1);
}

TEST_CASE("every bad line is skipped by reason with its file and line, never fatally") {
    TemporaryDirectory dir("strata_profile_log_test");
    const std::string path = dir.file("log.jsonl");
    Json renamed = make_record(4).to_json();
    renamed["stages"][0]["features"].erase(feature_name(Feature::Blocks));
    renamed["stages"][0]["features"]["blocks_total"] = 1;
    Json old_version = make_record(5).to_json();
    old_version["feature_schema_version"] = 0;
    Json no_times = make_record(6).to_json();
    no_times.erase("times");
    Json negative_time = make_record(7).to_json();
    negative_time["times"]["min_ms"] = -1;
    Json annotated = make_record(8).to_json();
    annotated["note"] = "tools may add fields";
    Json negative_feature = make_record(9).to_json();
    negative_feature["stages"][1]["features"]["dram_bytes"] = -1e12;
    Json huge_feature = make_record(10).to_json();
    huge_feature["stages"][0]["features"]["flops"] = 1e300;
    Json v1 = make_record(11).to_json();
    v1["schema"] = "strata.profile.v1";
    Json other_spec = make_record(12).to_json();
    other_spec["featurized_for"]["sm_count"] = "many";
    Json huge_time = make_record(13).to_json();
    huge_time["times"]["median_ms"] = 1e300;
    std::string overflow = make_record(14).to_line();
    overflow.replace(overflow.find("\"min_ms\":14.5"), 13, "\"min_ms\":1e999");

    append_text(path, make_record(1).to_line() + "\n" +                    // 1 ok
                          "{not json\n" +                                  // 2 bad JSON
                          "\n" +                                           // 3 blank: ignored
                          "{\"schema\": \"strata.featurization.v1\"}\n" +  // 4 wrong schema
                          "[1, 2, 3]\n" +                                  // 5 wrong schema
                          renamed.dump() + "\n" +                          // 6 mismatched features
                          old_version.dump() + "\n" +                      // 7 mismatched features
                          no_times.dump() + "\n" +                         // 8 malformed
                          negative_time.dump() + "\n" +                    // 9 malformed
                          annotated.dump() + "\n" +                        // 10 ok
                          overflow + "\n" +                                // 11 bad JSON: overflow
                          "{\"schema\": NaN}\n" +                          // 12 bad JSON
                          negative_feature.dump() + "\n" +                 // 13 malformed: absurd feature
                          huge_feature.dump() + "\n" +                     // 14 malformed: absurd feature
                          v1.dump() + "\n" +                               // 15 outdated
                          other_spec.dump() + "\n" +                       // 16 malformed spec
                          huge_time.dump() + "\n");                        // 17 malformed time
    const ProfileLogContents contents = read(path);
    const SkippedLines &skipped = contents.report.skipped;
    CHECK(contents.records.size() == 2);
    CHECK(skipped.bad_json == 3);
    CHECK(skipped.wrong_schema == 2);
    CHECK(skipped.outdated_schema == 1);
    CHECK(skipped.feature_mismatch == 2);
    CHECK(skipped.bad_record == 6);
    CHECK(skipped.torn_last_line == 0);
    CHECK(skipped.summary() ==
          "14 skipped: 3 bad JSON, 2 wrong schema, 1 outdated schema, 2 mismatched features, 6 malformed record");
    const std::vector<std::string> &m = contents.report.messages;
    REQUIRE(m.size() == 14);
    CHECK(m[0].find(path + ":2: bad JSON: column 3: not valid JSON") == 0);
    CHECK(m[1] == path + ":4: wrong schema: schema \"strata.featurization.v1\", expected \"strata.profile.v2\"");
    CHECK(m[2] == path + ":5: wrong schema: schema none, expected \"strata.profile.v2\"");
    CHECK(m[3].find(path + ":6: stages[0] ('f0.s0'): feature names differ") == 0);
    CHECK(m[3].find("unknown 'blocks_total'; missing 'blocks'") != std::string::npos);
    CHECK(m[4].find(path + ":7: written with feature schema version 0") == 0);
    CHECK(m[5] == path + ":8: missing field 'times'");
    CHECK(m[6] == path + ":9: times.min_ms must be a positive number of milliseconds (at most 1e8), not -1");
    CHECK(m[7].find(path + ":11: bad JSON: column ") == 0);
    CHECK(m[7].find("a number too large for a double: '1e999'") != std::string::npos);
    CHECK(m[8].find(path + ":12: bad JSON: column 12: not valid JSON") == 0);
    CHECK(m[9] == path + ":13: stages[1] ('f1.s0'): feature 'dram_bytes' is -1e+12 (expected 0 to 1e+18)");
    CHECK(m[10] == path + ":14: stages[0] ('f0.s0'): feature 'flops' is 1e+300 (expected 0 to 1e+18)");
    CHECK(m[11].find(path + ":15: outdated schema: a strata.profile.v1 record") == 0);
    CHECK(m[12] == "GPU spec " + path + ":16: featurized_for: field 'sm_count' must be an integer, not \"many\"");
    CHECK(m[13].find(path + ":17: times.median_ms must be a positive number") == 0);
}

TEST_CASE("directories are searched for *.jsonl logs in a fixed order") {
    TemporaryDirectory dir("strata_profile_log_test");
    fs::create_directories(dir.file("b"));
    ProfileLogWriter(dir.file("b/two.jsonl")).append(make_record(2));
    ProfileLogWriter(dir.file("a.jsonl")).append(make_record(1));
    append_text(dir.file("notes.txt"), "not a log\n");
    const ProfileLogContents contents = read_profile_logs(std::vector<std::string>{dir.path()});
    REQUIRE(contents.records.size() == 2);
    CHECK(contents.records[0].times.min_ms == 1.5);
    REQUIRE(contents.report.files.size() == 2);
    CHECK(contents.report.files[0].path == dir.file("a.jsonl"));
    CHECK(contents.report.files[1].path == dir.file("b/two.jsonl"));

    CHECK_THROWS_WITH_AS(read_profile_logs(std::vector<std::string>{dir.file("missing.jsonl")}),
                         ("profile logs: " + dir.file("missing.jsonl") + " does not exist").c_str(),
                         std::runtime_error);
    fs::create_directories(dir.file("empty"));
    CHECK_THROWS_WITH_AS(read_profile_logs(std::vector<std::string>{dir.file("empty")}),
                         doctest::Contains("no *.jsonl files under"), std::runtime_error);
}

TEST_CASE("a log that cannot be created is an error naming it") {
    CHECK_THROWS_WITH_AS(ProfileLogWriter("/nonexistent/dir/log.jsonl"),
                         doctest::Contains("profile log /nonexistent/dir/log.jsonl: cannot open for appending"),
                         std::runtime_error);
}
