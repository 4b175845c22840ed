// app_check_main(): the command line of every app's check executable.
#include "strata/harness/AppCheck.h"

#include <nlohmann/json.hpp>

#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <stdexcept>

namespace strata::harness {

namespace {

struct Options {
    std::string variant;
    uint64_t seed = 1;
    std::string report;
    std::string generator_log;
    std::string expected_failure;
    std::string gpu_stmt;
    bool expect_failure = false;
    // Set for the second run after a mismatch or a crash, PoCL's optimizer
    // off: what the first run was ("wrong", "crashed").
    std::string unoptimized_after;
    bool unoptimized() const { return !unoptimized_after.empty(); }
    // A kernel that reads outside its buffers can hang PoCL instead of
    // crashing it; past this many seconds the check is killed and reported.
    // The slowest app checks take seconds, so the default leaves a wide margin
    // on a loaded machine and still ends well inside CTest's limit.
    int timeout_seconds = 300;
};

// A child's exit status for a mismatch that a run with PoCL's optimizer off
// may clear (CheckStatus::PassedUnoptimized), and the status of a crash,
// which it may clear too (fuzz seed 1234: a kernel whose block-uniform
// branch holds barriers crashes PoCL's optimized build, and runs right
// without the optimizer).
constexpr int kMismatchExit = 3;
constexpr int kCrashExit = 4;
constexpr const char *kOclBuildOptions = "HL_OCL_BUILD_OPTIONS";
constexpr const char *kUnoptimized = "-cl-opt-disable";

int parse_timeout(const std::string &text) {
    size_t used = 0;
    int seconds = 0;
    try {
        seconds = std::stoi(text, &used);
    } catch (const std::exception &) {
        used = 0;
    }
    if (used != text.size() || seconds <= 0) {
        throw std::invalid_argument("--timeout wants a positive number of seconds, not '" + text + "'");
    }
    return seconds;
}

Options parse_options(int argc, char **argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        std::string flag = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw std::invalid_argument("missing value after " + flag);
            return argv[++i];
        };
        if (flag == "--variant") options.variant = value();
        else if (flag == "--seed") options.seed = std::stoull(value());
        else if (flag == "--report") options.report = value();
        else if (flag == "--generator-log") options.generator_log = value();
        else if (flag == "--require-gpu-stmt") options.gpu_stmt = value();
        else if (flag == "--expect-failure") options.expect_failure = true, options.expected_failure = value();
        else if (flag == "--timeout") options.timeout_seconds = parse_timeout(value());
        else throw std::invalid_argument("unknown option " + flag);
    }
    if (options.variant.empty()) throw std::invalid_argument("--variant is required");
    return options;
}

bool launches_gpu_kernels(const std::string &stmt_path) {
    std::ifstream stmt(stmt_path);
    for (std::string line; std::getline(stmt, line);) {
        if (line.find("halide_opencl_run(") != std::string::npos) return true;
    }
    return false;
}

void print_generator_log(const std::string &path) {
    std::ifstream log(path);
    if (!log) return;
    std::cout << "---- generator log " << path << " (last lines) ----\n";
    std::vector<std::string> lines;
    for (std::string line; std::getline(log, line);) lines.push_back(line);
    const size_t first = lines.size() > 30 ? lines.size() - 30 : 0;
    for (size_t i = first; i < lines.size(); ++i) std::cout << lines[i] << "\n";
    std::cout << "----\n";
}

void write_report(const std::string &path, const CheckResult &result, bool expected_failure,
                  const std::string &expected_reason) {
    nlohmann::json outputs = nlohmann::json::array();
    double max_rel = 0;
    for (const OutputComparison &c : result.outputs) {
        outputs.push_back({{"name", c.name},
                           {"elements", c.elements},
                           {"mismatches", c.mismatches},
                           {"max_abs_error", c.max_abs_error},
                           {"max_rel_error", c.max_rel_error}});
        max_rel = std::max(max_rel, c.max_rel_error);
    }
    int64_t max_shared = 0, max_threads = 0;
    std::vector<int64_t> max_grid = {0, 0, 0};
    for (const auto &[kernel, k] : result.launches) {
        max_shared = std::max(max_shared, k.max_shared_bytes);
        max_threads = std::max(max_threads, k.max_threads_per_block);
        for (int d = 0; d < 3; ++d) max_grid[d] = std::max(max_grid[d], k.max_grid[d]);
    }
    nlohmann::json report = {{"app", result.app},
                             {"variant", result.variant},
                             {"check", "opencl"},
                             {"status", to_string(result.status)},
                             {"message", result.message},
                             {"max_rel_error", max_rel},
                             {"unwritten", result.unwritten},
                             {"seconds", result.seconds},
                             {"kernels_launched", result.launches.size()},
                             {"max_shared_bytes", max_shared},
                             {"max_threads_per_block", max_threads},
                             {"max_grid", max_grid},
                             {"outputs", outputs}};
    if (expected_failure) report["known_failure"] = expected_reason;
    std::ofstream(path) << report.dump(2) << "\n";
}

// What the check's child process left behind.
struct ChildOutcome {
    int wait_status = 0;
    bool timed_out = false;
    std::string last_stderr_line;  // its last words explain a crash
};

// Echoes the child's stderr to ours, keeping its last non-empty line.
class StderrRelay {
public:
    void echo(const char *bytes, ssize_t n) {
        std::cerr.write(bytes, n);
        for (ssize_t i = 0; i < n; ++i) {
            if (bytes[i] != '\n') {
                current_ += bytes[i];
            } else if (!current_.empty()) {
                last_ = std::move(current_);
                current_.clear();
            }
        }
    }
    std::string last_line() const { return current_.empty() ? last_ : current_; }

private:
    std::string last_, current_;
};

// Relays the child's stderr (`fd`) and waits for the child to exit, killing
// it once `timeout` has passed. A process the child started can hold the pipe
// open after the child is gone, so the pipe is read only a moment longer.
ChildOutcome relay_until_exit(pid_t child, int fd, std::chrono::seconds timeout) {
    using Clock = std::chrono::steady_clock;
    constexpr auto kGrace = std::chrono::seconds(2);
    ChildOutcome outcome;
    StderrRelay relay;
    // Readable once the child has exited; -1 on kernels without pidfds, where
    // the end of the pipe stands for the child's end.
    // (The system call itself: Debian 12's <sys/pidfd.h> lacks C linkage.)
    const int child_exited = static_cast<int>(syscall(SYS_pidfd_open, child, 0));
    bool pipe_open = true, child_gone = false;
    auto deadline = Clock::now() + timeout;
    char chunk[4096];
    while (pipe_open || (child_exited >= 0 && !child_gone)) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) {
            if (child_gone || outcome.timed_out) break;
            outcome.timed_out = true;
            kill(child, SIGKILL);
            deadline = Clock::now() + kGrace;
            continue;
        }
        pollfd watched[2] = {{pipe_open ? fd : -1, POLLIN, 0}, {child_gone ? -1 : child_exited, POLLIN, 0}};
        if (poll(watched, 2, static_cast<int>(left.count())) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (watched[0].revents != 0) {
            const ssize_t n = read(fd, chunk, sizeof chunk);
            if (n > 0) relay.echo(chunk, n);
            else if (n == 0 || errno != EINTR) pipe_open = false;
        }
        if (watched[1].revents != 0 && !child_gone) {
            child_gone = true;
            deadline = std::min(deadline, Clock::now() + kGrace);
        }
    }
    if (child_exited >= 0) close(child_exited);
    outcome.last_stderr_line = relay.last_line();
    while (waitpid(child, &outcome.wait_status, 0) < 0) {
        if (errno != EINTR) throw std::runtime_error(std::string("waitpid failed: ") + std::strerror(errno));
    }
    return outcome;
}

// The result of a child that did not exit by itself.
CheckResult abnormal_end(const std::string &app, const std::string &variant, const ChildOutcome &outcome,
                         int timeout_seconds) {
    CheckResult result;
    result.app = app;
    result.variant = variant;
    const std::string after =
        outcome.last_stderr_line.empty() ? "" : " after printing: " + outcome.last_stderr_line;
    if (outcome.timed_out) {
        result.status = CheckStatus::TimedOut;
        result.message = "the check did not finish within " + std::to_string(timeout_seconds) +
                         " s (--timeout) and was killed" + after;
        result.seconds = timeout_seconds;
        return result;
    }
    result.status = CheckStatus::Crashed;
    const int signal = WIFSIGNALED(outcome.wait_status) ? WTERMSIG(outcome.wait_status) : 0;
    result.message = "the pipeline crashed the check process (signal " + std::to_string(signal) + ", " +
                     (signal ? strsignal(signal) : "unknown") + ")" + after;
    return result;
}

// Prints the result, writes its report, and turns it into the exit status
// (a recorded known failure passes while it reproduces).
int report_result(const std::string &app, const CheckResult &result, const Options &options) {
    std::cout << app << "/" << result.variant << ": " << to_string(result.status);
    for (const OutputComparison &c : result.outputs) {
        std::cout << "\n  output '" << c.name << "': " << c.elements << " elements, max abs error " << c.max_abs_error
                  << ", max relative error " << c.max_rel_error << ", " << c.mismatches << " mismatches";
        for (const std::string &m : c.first_mismatches) std::cout << "\n    " << m;
    }
    for (const auto &[kernel, k] : result.launches) {
        std::cout << "\n  kernel " << kernel << ": " << k.launches << " launches, " << k.max_threads_per_block
                  << " threads/block, " << k.max_shared_bytes << " bytes shared/block";
    }
    if (!result.message.empty()) std::cout << "\n  " << result.message;
    std::cout << "\n";
    if (result.status == CheckStatus::GeneratorFailed) print_generator_log(options.generator_log);
    if (!options.report.empty()) write_report(options.report, result, options.expect_failure, options.expected_failure);

    const bool passed = result.status == CheckStatus::Passed || result.status == CheckStatus::PassedUnoptimized;
    if (options.expect_failure) {
        if (passed) {
            std::cout << "UNEXPECTED PASS: this variant is recorded as failing (" << options.expected_failure
                      << "); it now passes, so update the record in apps/" << app << "/CMakeLists.txt\n";
            return 1;
        }
        std::cout << "KNOWN FAILURE reproduced: " << options.expected_failure << "\n";
        return 0;
    }
    if (result.status == CheckStatus::Mismatch && !options.unoptimized()) return kMismatchExit;
    return passed ? 0 : 1;
}

// Runs the variant against the reference and reports the result.
int run_check(const std::string &app, const CompiledVariant &variant, const Options &options,
              const std::function<AppCheckSpec()> &spec) {
    const auto start = std::chrono::steady_clock::now();
    CheckResult result;
    try {
        result = check_variant(app, variant, spec(), options.seed);
    } catch (const std::exception &e) {
        // A malformed spec or reference is the harness user's error, not the schedule's.
        std::cerr << app << "/" << options.variant << ": check could not run: " << e.what() << "\n";
        return 2;
    }
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (result.status == CheckStatus::Passed && !options.gpu_stmt.empty() && !launches_gpu_kernels(options.gpu_stmt)) {
        result.status = CheckStatus::NoGpuKernels;
        result.message = "the lowered statement " + options.gpu_stmt + " launches no OpenCL kernel";
    }
    if (options.unoptimized() && result.status == CheckStatus::Passed) {
        result.status = CheckStatus::PassedUnoptimized;
        result.message = options.unoptimized_after + " with PoCL's optimizer on (the run above), right with it off (" +
                         std::string(kOclBuildOptions) + "=" + kUnoptimized + ")";
    }

    return report_result(app, result, options);
}

// Runs the check in a child process: a schedule can crash the process (a
// kernel that reads out of bounds under PoCL), and a crash is then a
// result, reported and recorded like any other, not a lost test. Returns
// the child's exit status (kMismatchExit for a mismatch to check again,
// kCrashExit for a crash).
int run_in_child(const std::string &app, const CompiledVariant &variant, const Options &options,
                 const std::function<AppCheckSpec()> &spec) {
    std::cout.flush();
    std::cerr.flush();
    int stderr_pipe[2];
    if (pipe(stderr_pipe) != 0) {
        std::cerr << app << "_check: pipe failed: " << std::strerror(errno) << "\n";
        return 2;
    }
    const pid_t child = fork();
    if (child < 0) {
        std::cerr << app << "_check: fork failed: " << std::strerror(errno) << "\n";
        return 2;
    }
    if (child == 0) {
        close(stderr_pipe[0]);
        dup2(stderr_pipe[1], STDERR_FILENO);
        close(stderr_pipe[1]);
        const int status = run_check(app, variant, options, spec);
        std::cout.flush();
        std::cerr.flush();
        std::_Exit(status);
    }
    close(stderr_pipe[1]);
    ChildOutcome outcome;
    try {
        outcome = relay_until_exit(child, stderr_pipe[0], std::chrono::seconds(options.timeout_seconds));
    } catch (const std::exception &e) {
        std::cerr << app << "_check: " << e.what() << "\n";
        return 2;
    }
    close(stderr_pipe[0]);
    if (!outcome.timed_out && WIFEXITED(outcome.wait_status)) return WEXITSTATUS(outcome.wait_status);
    const CheckResult ended = abnormal_end(app, variant.name, outcome, options.timeout_seconds);
    const int status = report_result(app, ended, options);
    const bool retry = ended.status == CheckStatus::Crashed && !options.unoptimized() && !options.expect_failure;
    return retry ? kCrashExit : status;
}

}  // namespace

int app_check_main(int argc, char **argv, const std::string &app, const std::vector<CompiledVariant> &variants,
                   const std::function<AppCheckSpec()> &spec) {
    Options options;
    try {
        options = parse_options(argc, argv);
    } catch (const std::exception &e) {
        std::cerr << app << "_check: " << e.what() << "\n";
        return 2;
    }
    const CompiledVariant *variant = nullptr;
    for (const CompiledVariant &v : variants) {
        if (v.name == options.variant) variant = &v;
    }
    if (!variant) {
        std::cerr << app << "_check: no compiled variant named '" << options.variant << "'\n";
        return 2;
    }

    int status = run_in_child(app, *variant, options, spec);
    // Halide's OpenCL runtime reads the build options once per process, so
    // the unoptimized run is a second child.
    if ((status == kMismatchExit || status == kCrashExit) && !std::getenv(kOclBuildOptions)) {
        options.unoptimized_after = status == kMismatchExit ? "wrong" : "crashed";
        std::cout << app << "/" << variant->name << ": " << (status == kMismatchExit ? "mismatch" : "crash")
                  << "; checking again with " << kOclBuildOptions << "=" << kUnoptimized << "\n";
        setenv(kOclBuildOptions, kUnoptimized, 1);
        status = run_in_child(app, *variant, options, spec);
    }
    return status == kMismatchExit || status == kCrashExit ? 1 : status;
}

}  // namespace strata::harness
