#include "strata/fuzz/DescriptionJson.h"
#include "strata/fuzz/RandomPipeline.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>

using namespace strata::fuzz;

namespace {

nlohmann::json small_pipeline() {
    return nlohmann::json::parse(R"({
      "format": "strata-random-pipeline", "version": 1, "seed": 0, "budget": 2,
      "stages": [
        {"name": "in0", "op": "input", "type": "float32", "shape": [16, 8]},
        {"name": "blur", "op": "stencil", "input": "in0", "dims": [0], "sizes": [3],
         "weights": [0.25, 0.5, 0.25], "as_reduction": false},
        {"name": "scaled", "op": "pointwise", "operands": [{"stage": "blur", "dims": [0, 1]}],
         "values": [{"binary": "mul", "args": [{"operand": 0}, {"const": 2, "type": "float32"}]}]}
      ],
      "outputs": ["scaled"]})");
}

std::string error_of(const nlohmann::json &j) {
    try {
        from_json(j);
    } catch (const std::invalid_argument &e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("drawn pipelines survive a round trip through JSON") {
    for (uint64_t seed = 0; seed < 100; ++seed) {
        CAPTURE(seed);
        const nlohmann::json once = to_json(draw_random_pipeline(seed, 16));
        CHECK(to_json(from_json(once)) == once);
    }
}

TEST_CASE("a hand-written description reads, and its shapes are derived") {
    const Description d = from_json(small_pipeline());
    REQUIRE(d.stages.size() == 3);
    CHECK(d.stages[1].shape == Shape{14, 8});
    CHECK(d.stages[2].types == std::vector<ScalarType>{ScalarType::Float32});
    CHECK(d.outputs == std::vector<int>{2});
}

TEST_CASE("errors name the stage and the field") {
    nlohmann::json j = small_pipeline();
    j["stages"][1]["input"] = "nowhere";
    CHECK(error_of(j).find("stage 'blur'") != std::string::npos);
    CHECK(error_of(j).find("no earlier stage is named 'nowhere'") != std::string::npos);

    j = small_pipeline();
    j["stages"][1]["sizes"] = "three";
    CHECK(error_of(j).find("field 'sizes'") != std::string::npos);

    j = small_pipeline();
    j["stages"][1]["weights"] = {1.0, 2.0};
    CHECK(error_of(j).find("has 2 weights for 3 taps") != std::string::npos);

    j = small_pipeline();
    j["stages"][2]["shape"] = {16, 8};
    CHECK(error_of(j).find("the file says its shape is [16, 8], but its operation gives [14, 8]") != std::string::npos);

    j = small_pipeline();
    j["version"] = 7;
    CHECK(error_of(j).find("version 7") != std::string::npos);

    j = small_pipeline();
    j["stages"][2]["values"][0]["binary"] = "pow";
    CHECK(error_of(j).find("unknown binary operation 'pow'") != std::string::npos);

    j = small_pipeline();
    j["outputs"] = {"in0"};
    CHECK(error_of(j).find("output 'in0' is an input") != std::string::npos);
}

TEST_CASE("a file that is not JSON is reported with its name and position") {
    const std::string path = "strata_fuzz_bad_description.json";
    std::ofstream(path) << "{\n  \"format\": \"strata-random-pipeline\",\n  oops\n}\n";
    try {
        read_description(path);
        FAIL("read a broken file");
    } catch (const std::invalid_argument &e) {
        CHECK(std::string(e.what()).find(path) != std::string::npos);
        CHECK(std::string(e.what()).find("line 3") != std::string::npos);
    }
    std::remove(path.c_str());
    CHECK_THROWS_WITH(read_description("no/such/file.json"), doctest::Contains("no/such/file.json"));
}
