#include "Params.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

using strata::autoscheduler::Params;

namespace {

// Sets an environment variable for one scope.
class ScopedEnv {
public:
    ScopedEnv(const char *name, const std::string &value) : name_(name) { setenv(name, value.c_str(), 1); }
    ~ScopedEnv() { unsetenv(name_); }

private:
    const char *name_;
};

std::string write_temp_file(const std::string &name, const std::string &text) {
    const std::string path = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/" + name;
    std::ofstream(path) << text;
    return path;
}

}  // namespace

TEST_CASE("defaults are documented values") {
    Params p;
    CHECK(p.beam_size == 32);
    CHECK(p.passes == 2);
    CHECK(p.two_phase);
    CHECK(p.memoize);
    CHECK(p.parallel_reductions);
}

TEST_CASE("JSON keys set fields; unknown keys and bad values are errors naming them") {
    Params p;
    p.apply_json(R"({"beam_size": 8, "seed": 5, "gpu": "h100", "two_phase": false})", "test.json");
    CHECK(p.beam_size == 8);
    CHECK(p.seed == 5);
    CHECK(p.gpu == "h100");
    CHECK_FALSE(p.two_phase);
    CHECK_THROWS_WITH(p.apply_json(R"({"beam": 8})", "test.json"),
                      doctest::Contains("unknown key \"beam\" (valid keys: beam_size, passes"));
    CHECK_THROWS_WITH(p.apply_json(R"({"beam_size": "wide"})", "test.json"),
                      doctest::Contains("\"beam_size\" must be an integer in [1, 4096], got \"wide\""));
    CHECK_THROWS_WITH(p.apply_json(R"({"passes": 0})", "test.json"), doctest::Contains("in [1, 8], got 0"));
    CHECK_THROWS_WITH(p.apply_json(R"({"cost_model": "neural"})", "test.json"),
                      doctest::Contains("must be one of \"learned\", \"analytic\""));
    CHECK_THROWS_WITH(p.apply_json("[1, 2]", "test.json"), doctest::Contains("must hold a JSON object"));
}

TEST_CASE("a JSON syntax error names the line and column") {
    Params p;
    CHECK_THROWS_WITH(p.apply_json("{\n  \"beam_size\": 8,\n  \"seed\" 3\n}", "cfg.json"),
                      doctest::Contains("cfg.json is not valid JSON: parse error at line 3, column"));
}

TEST_CASE("seeds span the whole 64-bit range and out-of-range numbers are reported as written") {
    Params p;
    p.apply_text("seed", "18446744073709551615", "test");
    CHECK(p.seed == UINT64_MAX);
    p.apply_json(R"({"seed": 18446744073709551615})", "test.json");
    CHECK(p.seed == UINT64_MAX);
    CHECK_THROWS_WITH(p.apply_text("seed", "18446744073709551616", "STRATA_SEED"),
                      doctest::Contains("got \"18446744073709551616\""));
    CHECK_THROWS_WITH(p.apply_text("seed", "1e20", "STRATA_SEED"),
                      doctest::Contains("STRATA_SEED must be an integer in [0, 18446744073709551615], got \"1e20\""));
    CHECK_THROWS_WITH(p.apply_text("seed", "-1", "STRATA_SEED"), doctest::Contains("got -1"));
    CHECK_THROWS_WITH(p.apply_json(R"({"seed": 1e20})", "c.json"), doctest::Contains("got 1e+20"));
}

TEST_CASE("booleans from text are 1/0 or true/false") {
    Params p;
    p.apply_text("memoize", "0", "test");
    CHECK_FALSE(p.memoize);
    p.apply_text("memoize", "true", "test");
    CHECK(p.memoize);
    CHECK_THROWS_WITH(p.apply_text("memoize", "yes", "autoscheduler.memoize"),
                      doctest::Contains("autoscheduler.memoize must be 1/0 or true/false, got \"yes\""));
}

TEST_CASE("environment variables override the config file, generator keys override both") {
    const std::string config = write_temp_file("strata_params_test.json", R"({"beam_size": 5, "passes": 3})");
    ScopedEnv file("STRATA_CONFIG", config);
    Params from_file = Params::resolve();
    CHECK(from_file.beam_size == 5);
    CHECK(from_file.passes == 3);

    ScopedEnv beam("STRATA_BEAM_SIZE", "3");
    ScopedEnv gpu("STRATA_GPU", "v100");
    Params from_env = Params::resolve();
    CHECK(from_env.beam_size == 3);
    CHECK(from_env.passes == 3);
    CHECK(from_env.gpu == "v100");

    Params from_keys = Params::resolve({{"beam_size", "9"}, {"gpu", "h200"}});
    CHECK(from_keys.beam_size == 9);
    CHECK(from_keys.gpu == "h200");
    CHECK(from_keys.passes == 3);
    std::remove(config.c_str());
}

TEST_CASE("autoscheduler.config names the JSON file instead of STRATA_CONFIG") {
    const std::string env_config = write_temp_file("strata_params_env.json", R"({"beam_size": 5})");
    const std::string key_config = write_temp_file("strata_params_key.json", R"({"passes": 4})");
    ScopedEnv file("STRATA_CONFIG", env_config);
    Params p = Params::resolve({{"config", key_config}});
    CHECK(p.passes == 4);
    CHECK(p.beam_size == 32);
    CHECK_THROWS_WITH(Params::resolve({{"config", "/nonexistent/strata.json"}}),
                      doctest::Contains("autoscheduler.config names '/nonexistent/strata.json', which cannot be read"));
    std::remove(env_config.c_str());
    std::remove(key_config.c_str());
}

TEST_CASE("bad environment values and unknown generator keys are errors that name them") {
    {
        ScopedEnv beam("STRATA_BEAM_SIZE", "lots");
        CHECK_THROWS_WITH(Params::resolve(), doctest::Contains("STRATA_BEAM_SIZE must be an integer"));
    }
    CHECK_THROWS_WITH(Params::resolve({{"beamsize", "8"}}),
                      doctest::Contains("autoscheduler.beamsize is not a Strata parameter (valid keys: config, "
                                        "beam_size"));
    CHECK_THROWS_WITH(Params::resolve({{"parallelism", "108"}}), doctest::Contains("autoscheduler.parallelism"));
}

TEST_CASE("every key has its variable and appears in to_string") {
    const std::string text = Params().to_string();
    for (const std::string &key : Params::keys()) {
        CHECK(Params::environment_variable(key).rfind("STRATA_", 0) == 0);
        CHECK(text.find(key + "=") != std::string::npos);
    }
    CHECK(Params::environment_variable("gpu_spec_file") == "STRATA_GPU_SPEC");
}
