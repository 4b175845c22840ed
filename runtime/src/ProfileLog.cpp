#include "strata/runtime/ProfileLog.h"

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

double time_field(const Json &times, const char *key, const std::string &where) {
    const Json &value = field(times, key, where + ": times");
    if (!value.is_number() || !(value.get<double>() > 0) || !std::isfinite(value.get<double>())) {
        bad(where, std::string("times.") + key + " must be a positive number, not " + value.dump());
    }
    return value.get<double>();
}

std::string system_error(const std::string &what, const std::string &path) {
    return "profile log " + path + ": " + what + ": " + std::strerror(errno);
}

}  // namespace

const char *halide_version() { return STRATA_HALIDE_VERSION; }
const char *strata_version() { return STRATA_VERSION; }

Json ProfileRecord::to_json() const {
    return Json{{"schema", kProfileSchema},
                {"feature_schema_version", costmodel::kFeatureSchemaVersion},
                {"pipeline", {{"name", identity.pipeline_name}, {"hash", identity.pipeline_hash.hex()}}},
                {"schedule", {{"hash", identity.schedule_hash.hex()}}},
                {"target", target},
                {"gpu", gpu},
                {"halide_version", halide_version},
                {"strata_version", strata_version},
                {"stages", costmodel::stages_to_json(stages)},
                {"times", {{"min_ms", times.min_ms}, {"median_ms", times.median_ms}, {"samples", times.samples}}}};
}

std::string ProfileRecord::to_line() const { return to_json().dump(); }

ProfileRecord ProfileRecord::from_json(const Json &json, const std::string &where) {
    if (!json.is_object()) bad(where, "a record must be a JSON object");
    ProfileRecord r;
    costmodel::check_feature_schema_version(json, where);
    const Json &pipeline = field(json, "pipeline", where);
    if (!pipeline.is_object()) bad(where, "'pipeline' must be an object");
    r.identity.pipeline_name = string_field(pipeline, "name", where + ": pipeline");
    r.identity.pipeline_hash = costmodel::hash_from_json(field(pipeline, "hash", where), where + ": pipeline.hash");
    const Json &schedule = field(json, "schedule", where);
    if (!schedule.is_object()) bad(where, "'schedule' must be an object");
    r.identity.schedule_hash = costmodel::hash_from_json(field(schedule, "hash", where), where + ": schedule.hash");
    r.target = string_field(json, "target", where);
    r.gpu = string_field(json, "gpu", where);
    r.halide_version = string_field(json, "halide_version", where);
    r.strata_version = string_field(json, "strata_version", where);
    r.stages = costmodel::stages_from_json(field(json, "stages", where), where);
    if (r.stages.empty()) bad(where, "a record needs at least one stage");
    const Json &times = field(json, "times", where);
    if (!times.is_object()) bad(where, "'times' must be an object");
    r.times.min_ms = time_field(times, "min_ms", where);
    r.times.median_ms = time_field(times, "median_ms", where);
    const Json &samples = field(times, "samples", where + ": times");
    if (!samples.is_number_integer() || samples.get<int64_t>() < 1 || samples.get<int64_t>() > 1000000000) {
        bad(where, "times.samples must be a positive integer, not " + samples.dump());
    }
    r.times.samples = samples.get<int>();
    if (r.times.min_ms > r.times.median_ms) bad(where, "times.min_ms exceeds times.median_ms");
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
    add(feature_mismatch, "mismatched features");
    add(bad_record, "malformed record");
    return std::to_string(total()) + " skipped" + (parts.empty() ? "" : ": " + parts);
}

void read_profile_log(const std::string &path, ProfileLogContents &contents) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("profile log " + path + ": cannot open the file");
    contents.files.push_back(path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

    size_t start = 0;
    for (int number = 1; start < text.size(); ++number) {
        size_t end = text.find('\n', start);
        const bool terminated = end != std::string::npos;
        if (!terminated) end = text.size();
        const std::string line = text.substr(start, end - start);
        start = end + 1;
        const std::string where = path + ":" + std::to_string(number);
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;

        auto skip = [&](int &counter, const char *reason, const std::string &detail) {
            ++counter;
            contents.messages.push_back(where + ": " + reason + ": " + detail);
        };
        Json json;
        try {
            json = Json::parse(line);
        } catch (const Json::parse_error &e) {
            if (!terminated) {
                skip(contents.skipped.torn_last_line, "torn last line", "incomplete record (interrupted write?)");
            } else {
                skip(contents.skipped.bad_json, "bad JSON", e.what());
            }
            continue;
        }
        if (!json.is_object() || !json.contains("schema") || json["schema"] != kProfileSchema) {
            const std::string found = json.is_object() && json.contains("schema") ? json["schema"].dump() : "none";
            skip(contents.skipped.wrong_schema, "wrong schema",
                 "schema " + found + ", expected \"" + std::string(kProfileSchema) + "\"");
            continue;
        }
        try {
            contents.records.push_back(ProfileRecord::from_json(json, where));
        } catch (const FeatureSchemaMismatch &e) {
            ++contents.skipped.feature_mismatch;
            contents.messages.push_back(std::string(e.what()));
        } catch (const FeaturizationFormatError &e) {
            ++contents.skipped.bad_record;
            contents.messages.push_back(std::string(e.what()));
        }
    }
}

ProfileLogContents read_profile_logs(const std::vector<std::string> &paths) {
    namespace fs = std::filesystem;
    ProfileLogContents contents;
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
            for (const std::string &log : logs) read_profile_log(log, contents);
        } else if (fs::exists(path, error)) {
            read_profile_log(path, contents);
        } else {
            throw std::runtime_error("profile logs: " + path + " does not exist");
        }
    }
    return contents;
}

}  // namespace strata::runtime
