#include "Errors.h"

#include <iostream>

namespace strata::autoscheduler {

namespace {
int g_log_level = 0;
}  // namespace

void warn(const std::string &message) { std::cerr << "Strata: warning: " << message << "\n"; }

std::string current_exception_message() {
    try {
        throw;
    } catch (const Halide::Error &e) {
        return e.what();
    } catch (const std::exception &e) {
        return e.what();
    } catch (...) {
        return "unknown exception";
    }
}

void set_log_level(int level) { g_log_level = level; }
int log_level() { return g_log_level; }

void log(int level, const std::string &message) {
    if (level <= g_log_level) std::cerr << "Strata: " << message << "\n";
}

}  // namespace strata::autoscheduler
