#include "strata/runtime/ProfileLog.h"

#include "strata/costmodel/JsonText.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#ifndef STRATA_VERSION
#error "STRATA_VERSION must be defined by the build"
#endif
#ifndef STRATA_HALIDE_VERSION
#error "STRATA_HALIDE_VERSION must be defined by the build"
#endif

namespace strata::runtime {

namespace {

using Json = nlohmann::ordered_json;
using costmodel::FeatureSchemaMismatch;
using costmodel::FeaturizationFormatError;

[[noreturn]] void bad(const std::string &where, const std::string &problem) {
    throw FeaturizationFormatError(where + ": " + problem);
}

const Json &field(const Json &object, const char *key, const std::string &where) {
    auto it = object.find(key);
    if (it == object.end()) bad(where, std::string("missing field '") + key + "'");
    return *it;
}

std::string string_field(const Json &object, const char *key, const std::string &where) {
    const Json &value = field(object, key, where);
    if (!value.is_string()) bad(where, std::string("'") + key + "' must be a string");
    return value.get<std::string>();
}

const Json &object_field(const Json &object, const char *key, const std::string &where) {
    const Json &value = field(object, key, where);
    if (!value.is_object()) bad(where, std::string("'") + key + "' must be an object");
    return value;
}

// A time no benchmark takes (over a day) is a corrupted value, not a measurement.
constexpr double kMaxMilliseconds = 1e8;

double milliseconds(const Json &value, const std::string &what, const std::string &where) {
    if (!value.is_number() || !(value.get<double>() > 0) || !(value.get<double>() <= kMaxMilliseconds)) {
        bad(where, what + " must be a positive number of milliseconds (at most 1e8), not " + value.dump());
    }
    return value.get<double>();
}

double time_field(const Json &times, const char *key, const std::string &where) {
    return milliseconds(field(times, key, where + ": times"), std::string("times.") + key, where);
}

template <typename Int>
Int bounded_integer(const Json &value, const std::string &what, int64_t max, const std::string &where) {
    if (!value.is_number_integer() || value.get<int64_t>() < 0 || value.get<int64_t>() > max) {
        bad(where, what + " must be an integer from 0 to " + std::to_string(max) + ", not " + value.dump());
    }
    return Int(value.get<int64_t>());
}

Json sizes_json(const std::map<std::string, std::vector<int>> &sizes) {
    Json out = Json::object();
    for (const auto &[name, extents] : sizes) out[name] = extents;
    return out;
}

std::map<std::string, std::vector<int>> sizes_from_json(const Json &json, const std::string &where) {
    if (!json.is_object()) bad(where, "'pipeline.sizes' must be an object of argument name to extents");
    std::map<std::string, std::vector<int>> sizes;
    for (const auto &[name, extents] : json.items()) {
        const std::string what = "pipeline.sizes." + name;
        if (!extents.is_array()) bad(where, what + " must be an array of extents");
        std::vector<int> &out = sizes[name];
        for (size_t d = 0; d < extents.size(); ++d) {
            out.push_back(bounded_integer<int>(extents[d], what + "[" + std::to_string(d) + "]", 1 << 30, where));
        }
    }
    return sizes;
}

Json device_json(const MeasuredDevice &device) {
    const CudaDeviceInfo &d = device.info;
    return Json{{"api", device.api},
                {"name", d.name},
                {"sm_count", d.sm_count},
                {"compute_capability", d.compute_capability},
                {"clock_khz", d.clock_khz},
                {"memory_clock_khz", d.memory_clock_khz},
                {"memory_bus_width_bits", d.memory_bus_width_bits},
                {"l2_cache_bytes", d.l2_cache_bytes},
                {"total_memory_bytes", d.total_memory_bytes},
                {"driver_version", device.driver_version}};
}

MeasuredDevice device_from_json(const Json &json, const std::string &where) {
    const std::string at = where + ": device";
    MeasuredDevice device;
    device.api = string_field(json, "api", at);
    CudaDeviceInfo &d = device.info;
    d.name = string_field(json, "name", at);
    if (d.name.empty()) bad(where, "device.name is empty");
    constexpr int64_t kMaxInt = 2147483647;
    d.sm_count = bounded_integer<int>(field(json, "sm_count", at), "device.sm_count", 100000, where);
    d.compute_capability =
        bounded_integer<int>(field(json, "compute_capability", at), "device.compute_capability", 1000, where);
    d.clock_khz = bounded_integer<int>(field(json, "clock_khz", at), "device.clock_khz", 100000000, where);
    d.memory_clock_khz =
        bounded_integer<int>(field(json, "memory_clock_khz", at), "device.memory_clock_khz", 100000000, where);
    d.memory_bus_width_bits =
        bounded_integer<int>(field(json, "memory_bus_width_bits", at), "device.memory_bus_width_bits", 1 << 20, where);
    d.l2_cache_bytes = bounded_integer<int64_t>(field(json, "l2_cache_bytes", at), "device.l2_cache_bytes",
                                                int64_t(1) << 40, where);
    d.total_memory_bytes = bounded_integer<int64_t>(field(json, "total_memory_bytes", at),
                                                    "device.total_memory_bytes", int64_t(1) << 50, where);
    device.driver_version =
        bounded_integer<int>(field(json, "driver_version", at), "device.driver_version", kMaxInt, where);
    return device;
}

std::string system_error(const std::string &what, const std::string &path) {
    return "profile log " + path + ": " + what + ": " + std::strerror(errno);
}

}  // namespace

const char *halide_version() { return STRATA_HALIDE_VERSION; }
const char *strata_version() { return STRATA_VERSION; }

Json ProfileRecord::to_json() const {
    Json pipeline{{"name", identity.pipeline_name}, {"hash", identity.pipeline_hash.hex()}};
    if (identity.algorithm_hash) pipeline["algorithm_hash"] = identity.algorithm_hash->hex();
    pipeline["sizes"] = sizes_json(sizes);
    Json schedule{{"hash", identity.schedule_hash.hex()}};
    if (!variant.empty()) schedule["variant"] = variant;
    if (sample_index) schedule["sample_index"] = *sample_index;
    return Json{{"schema", kProfileSchema},
                {"feature_schema_version", costmodel::kFeatureSchemaVersion},
                {"pipeline", std::move(pipeline)},
                {"schedule", std::move(schedule)},
                {"target", target},
                {"featurized_for", featurized_for.to_json()},
                {"device", device_json(device)},
                {"halide_version", halide_version},
                {"strata_version", strata_version},
                {"stages", costmodel::stages_to_json(stages)},
                {"times",
                 {{"min_ms", times.min_ms},
                  {"median_ms", times.median_ms},
                  {"samples", times.samples},
                  {"samples_ms", times.samples_ms},
                  {"reused_device_allocations", times.reused_device_allocations}}}};
}

std::string ProfileRecord::to_line() const { return to_json().dump(); }

ProfileRecord ProfileRecord::from_json(const Json &json, const std::string &where) {
    if (!json.is_object()) bad(where, "a record must be a JSON object");
    ProfileRecord r;
    const int version = costmodel::readable_feature_schema_version(json, where);
    const Json &pipeline = object_field(json, "pipeline", where);
    r.identity.pipeline_name = string_field(pipeline, "name", where + ": pipeline");
    r.identity.pipeline_hash = costmodel::hash_from_json(field(pipeline, "hash", where), where + ": pipeline.hash");
    if (pipeline.contains("algorithm_hash")) {
        r.identity.algorithm_hash =
            costmodel::hash_from_json(pipeline["algorithm_hash"], where + ": pipeline.algorithm_hash");
    }
    r.sizes = sizes_from_json(field(pipeline, "sizes", where + ": pipeline"), where);
    const Json &schedule = object_field(json, "schedule", where);
    r.identity.schedule_hash = costmodel::hash_from_json(field(schedule, "hash", where), where + ": schedule.hash");
    if (schedule.contains("variant")) r.variant = string_field(schedule, "variant", where + ": schedule");
    if (schedule.contains("sample_index")) {
        r.sample_index = bounded_integer<int>(schedule["sample_index"], "schedule.sample_index", 1000000, where);
    }
    r.target = string_field(json, "target", where);
    try {
        r.featurized_for = costmodel::GpuSpec::from_json(object_field(json, "featurized_for", where),
                                                         where + ": featurized_for");
    } catch (const FeaturizationFormatError &) {
        throw;
    } catch (const std::runtime_error &e) {
        throw FeaturizationFormatError(e.what());
    }
    r.device = device_from_json(object_field(json, "device", where), where);
    r.halide_version = string_field(json, "halide_version", where);
    r.strata_version = string_field(json, "strata_version", where);
    r.stages = costmodel::stages_from_json(field(json, "stages", where), version, where);
    if (r.stages.empty()) bad(where, "a record needs at least one stage");
    const Json &times = object_field(json, "times", where);
    r.times.min_ms = time_field(times, "min_ms", where);
    r.times.median_ms = time_field(times, "median_ms", where);
    r.times.samples = bounded_integer<int>(field(times, "samples", where + ": times"), "times.samples", 1000000000,
                                           where);
    if (r.times.samples < 1) bad(where, "times.samples must be at least 1");
    if (r.times.min_ms > r.times.median_ms) bad(where, "times.min_ms exceeds times.median_ms");
    if (times.contains("reused_device_allocations")) {  // absent in logs written before it was recorded: false
        const Json &reused = times["reused_device_allocations"];
        if (!reused.is_boolean()) bad(where, "times.reused_device_allocations must be true or false");
        r.times.reused_device_allocations = reused.get<bool>();
    }
    const Json &samples = field(times, "samples_ms", where + ": times");
    if (!samples.is_array()) bad(where, "times.samples_ms must be an array");
    if (!samples.empty() && int64_t(samples.size()) != r.times.samples) {
        bad(where, "times.samples_ms has " + std::to_string(samples.size()) + " values, times.samples says " +
                       std::to_string(r.times.samples));
    }
    for (size_t i = 0; i < samples.size(); ++i) {
        r.times.samples_ms.push_back(milliseconds(samples[i], "times.samples_ms[" + std::to_string(i) + "]", where));
        if (r.times.samples_ms.back() < r.times.min_ms) {
            bad(where, "times.samples_ms[" + std::to_string(i) + "] is below times.min_ms");
        }
    }
    return r;
}

ProfileLogWriter::ProfileLogWriter(std::string path) : path_(std::move(path)) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw std::runtime_error(system_error("cannot open for appending", path_));
}

ProfileLogWriter::~ProfileLogWriter() {
    if (fd_ >= 0) ::close(fd_);
}

void ProfileLogWriter::append(const ProfileRecord &record) {
    std::string line = record.to_line() + "\n";
    // Other processes (a parallel benchmark run) may append to the same log:
    // hold an exclusive lock from the torn-line check to the fsync.
    if (::flock(fd_, LOCK_EX) != 0) throw std::runtime_error(system_error("cannot lock", path_));
    struct Unlock {
        int fd;
        ~Unlock() { ::flock(fd, LOCK_UN); }
    } unlock{fd_};

    struct stat info {};
    if (::fstat(fd_, &info) != 0) throw std::runtime_error(system_error("cannot stat", path_));
    if (info.st_size > 0) {
        char last = '\n';
        const int reader = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
        if (reader >= 0) {
            if (::pread(reader, &last, 1, info.st_size - 1) != 1) last = '\n';
            ::close(reader);
        }
        if (last != '\n') line.insert(line.begin(), '\n');
    }
    const char *data = line.data();
    size_t left = line.size();
    while (left > 0) {
        const ssize_t written = ::write(fd_, data, left);
        if (written < 0) {
            if (errno == EINTR) continue;
            throw std::runtime_error(system_error("write failed", path_));
        }
        data += written;
        left -= size_t(written);
    }
    if (::fsync(fd_) != 0) throw std::runtime_error(system_error("fsync failed", path_));
}

std::string SkippedLines::summary() const {
    std::string parts;
    auto add = [&parts](int count, const char *what) {
        if (count > 0) parts += (parts.empty() ? "" : ", ") + std::to_string(count) + " " + what;
    };
    add(torn_last_line, "torn last line");
    add(bad_json, "bad JSON");
    add(wrong_schema, "wrong schema");
    add(outdated_schema, "outdated schema");
    add(feature_mismatch, "mismatched features");
    add(bad_record, "malformed record");
    return std::to_string(total()) + " skipped" + (parts.empty() ? "" : ": " + parts);
}

void read_profile_log(const std::string &path, const RecordConsumer &consume, LogReadReport &report) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("profile log " + path + ": cannot open the file");
    LogFileSummary file;
    file.path = path;
    auto skip = [&report](int &counter, const std::string &message) {
        ++counter;
        if (report.messages.size() < LogReadReport::kMaxMessages) report.messages.push_back(message);
    };

    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        const bool terminated = !in.eof();
        file.lines = number;
        file.content = file.content.extended(line).extended(terminated ? "\n" : "");
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const std::string where = path + ":" + std::to_string(number);

        Json json;
        try {
            json = costmodel::parse_json_text(line, where);
        } catch (const costmodel::JsonSyntaxError &e) {
            if (!terminated && e.problem().find("truncated") != std::string::npos) {
                skip(report.skipped.torn_last_line, where + ": torn last line: incomplete record (interrupted write?)");
            } else {
                skip(report.skipped.bad_json,
                     where + ": bad JSON: column " + std::to_string(e.column()) + ": " + e.problem());
            }
            continue;
        }
        const Json *schema = json.is_object() && json.contains("schema") ? &json["schema"] : nullptr;
        if (schema && *schema == "strata.profile.v1") {
            skip(report.skipped.outdated_schema,
                 where + ": outdated schema: a strata.profile.v1 record does not say which GPU spec its features "
                         "were computed for, nor the sizes it ran: measure again");
            continue;
        }
        if (!schema || *schema != kProfileSchema) {
            skip(report.skipped.wrong_schema, where + ": wrong schema: schema " + (schema ? schema->dump() : "none") +
                                                  ", expected \"" + kProfileSchema + "\"");
            continue;
        }
        ProfileRecord record;
        try {
            record = ProfileRecord::from_json(json, where);
        } catch (const FeatureSchemaMismatch &e) {
            skip(report.skipped.feature_mismatch, e.what());
            continue;
        } catch (const FeaturizationFormatError &e) {
            skip(report.skipped.bad_record, e.what());
            continue;
        }
        ++file.records;
        ++report.records;
        consume(std::move(record), where);
    }
    if (in.bad()) throw std::runtime_error("profile log " + path + ": read failed");
    report.files.push_back(std::move(file));
}

void read_profile_logs(const std::vector<std::string> &paths, const RecordConsumer &consume, LogReadReport &report) {
    namespace fs = std::filesystem;
    for (const std::string &path : paths) {
        std::error_code error;
        if (fs::is_directory(path, error)) {
            std::vector<std::string> logs;
            for (const auto &entry : fs::recursive_directory_iterator(path)) {
                if (entry.is_regular_file() && entry.path().extension() == ".jsonl")
                    logs.push_back(entry.path().string());
            }
            if (logs.empty()) throw std::runtime_error("profile logs: no *.jsonl files under " + path);
            std::sort(logs.begin(), logs.end());
            for (const std::string &log : logs) read_profile_log(log, consume, report);
        } else if (fs::exists(path, error)) {
            read_profile_log(path, consume, report);
        } else {
            throw std::runtime_error("profile logs: " + path + " does not exist");
        }
    }
}

ProfileLogContents read_profile_logs(const std::vector<std::string> &paths) {
    ProfileLogContents contents;
    read_profile_logs(
        paths, [&](ProfileRecord &&record, const std::string &) { contents.records.push_back(std::move(record)); },
        contents.report);
    return contents;
}

}  // namespace strata::runtime
