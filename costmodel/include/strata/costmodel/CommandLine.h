// CommandLine: the option parsing shared by Strata's command-line tools
// (strata-retrain here, strata-bench in runtime/): a walk over argv that
// hands out the value following an option, whole-text number parsing, and
// the error a tool answers with its usage text. Header-only: the tools are
// its only users and the library does not need it.
//
// Example:
//   try {
//       for (CommandLine args(argc, argv); args.next();) {
//           const std::string arg = args.current();
//           if (arg == "-o") output = args.value();
//           else if (arg == "--epochs") epochs = parse_number<int>(arg, args.value());
//           else throw UsageError("unknown option " + arg);
//       }
//   } catch (const UsageError &e) { /* print e.what() and the usage */ }
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace strata::costmodel {

// A command line the tool cannot run with; the message names the argument.
class UsageError : public std::runtime_error {
    using std::runtime_error::runtime_error;
};

class CommandLine {
public:
    CommandLine(int argc, char **argv) : argc_(argc), argv_(argv) {}

    // Moves to the next argument (the first call to argv[1]); false when none is left.
    bool next() {
        if (index_ + 1 >= argc_) return false;
        current_ = argv_[++index_];
        return true;
    }

    const std::string &current() const { return current_; }

    // Takes the argument after the current option as its value.
    std::string value() {
        if (index_ + 1 >= argc_) throw UsageError(current_ + " expects a value");
        return argv_[++index_];
    }

private:
    int argc_;
    char **argv_;
    int index_ = 0;
    std::string current_;
};

// `text` as a T, all of it ("12x" and "" are refused); `option` names the
// argument in the error.
template <typename T>
T parse_number(const std::string &option, const std::string &text) {
    std::istringstream in(text);
    T value{};
    if (!(in >> value) || !in.eof()) {
        const char *expected = std::is_integral_v<T> ? "an integer" : "a number";
        throw UsageError(option + " expects " + expected + ", not '" + text + "'");
    }
    return value;
}

}  // namespace strata::costmodel
