// Defines halide_error(): see HalideErrorCapture.h. Pipelines may report
// errors from several threads at once, hence the lock.
#include "strata/runtime/HalideErrorCapture.h"

#include <mutex>

namespace strata::runtime {

namespace {

std::mutex &messages_lock() {
    static std::mutex lock;
    return lock;
}

std::string &messages() {
    static std::string text;
    return text;
}

}  // namespace

std::string take_halide_error_messages() {
    std::lock_guard<std::mutex> guard(messages_lock());
    std::string out;
    out.swap(messages());
    return out;
}

std::string describe_halide_error(int code) {
    const std::string messages = take_halide_error_messages();
    return "Halide error " + std::to_string(code) + (messages.empty() ? "" : ": " + messages);
}

}  // namespace strata::runtime

extern "C" void halide_error(void * /*user_context*/, const char *message) {
    std::string text = message ? message : "";
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    std::lock_guard<std::mutex> guard(strata::runtime::messages_lock());
    std::string &all = strata::runtime::messages();
    all += (all.empty() ? "" : "; ") + text;
}
