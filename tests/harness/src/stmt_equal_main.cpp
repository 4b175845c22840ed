// strata-stmt-equal: whether two lowered statements (`-e stmt` or
// `-e conceptual_stmt`) are the same program. Halide numbers the temporaries
// it creates while lowering (t123), the Vars it makes without a name (v80)
// and the names it makes unique (result$2) from process-wide counters, so a
// process that did other work first (an autoscheduler, which lowers the
// pipeline to check its candidates) numbers them differently. Two
// consequences are undone before comparing:
//  - temporaries and unnamed Vars are renamed in order of first appearance
//    and uniquifying suffixes dropped;
//  - the simplifier orders the operands of a commutative operation by node
//    type and, between two variables, by name (Simplify::should_commute), so
//    `a + b` in one statement can be `b + a` in the other. The two operands of
//    a commutative operation are put in a fixed order when both are plain
//    names, which is the only case where the order depends on naming;
//  - lets of temporaries that Halide emits together come out in the order of
//    their numbers (unet's staged enc2b_conv_padded: two adjacent lets,
//    swapped between the first run and the replay). A run of adjacent lets
//    of temporaries at one indentation, none using another, is put in the
//    order of their values before the temporaries they define are renamed.
// Everything else must match exactly.
//
// usage: strata-stmt-equal A.stmt B.stmt   (exit 0 when equal, 1 when not)
#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace {

// Rewrites every match of `pattern` in `line` to what `rewrite` makes of it.
template <typename Rewrite>
std::string rewrite_matches(const std::string &line, const std::regex &pattern, Rewrite rewrite) {
    std::string out;
    size_t last = 0;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), pattern); it != std::sregex_iterator(); ++it) {
        out += line.substr(last, it->position() - last) + rewrite(*it);
        last = it->position() + it->length();
    }
    return out + line.substr(last);
}

// A plain name as Halide prints it, after renaming: f.s0.x, t#12, input.
constexpr const char *kName = R"(([A-Za-z_#][A-Za-z0-9_.#]*))";

// Puts the operands of every commutative operation on two plain names in
// lexicographic order. Only operands delimited so that no operator of higher
// precedence can bind them are touched: `[a + b]`, `(a == b)`, `min(a, b)`,
// a let's whole value `let t = a + b`.
std::string order_commutative_operands(std::string line) {
    const std::string name = kName;
    // Groups: 1 what precedes, 2 and 4 the operands, 3 the operator.
    static const std::regex spaced(R"(([\[(,] ?|^\s*let \S+ = ))" + name + R"( (\+|==|!=|&&|\|\|) )" + name +
                                   R"((?=[\]),]|$))");
    static const std::regex product(R"(([\[(,] ?))" + name + R"((\*))" + name + R"((?=[\]), ]))");
    static const std::regex min_max(R"((\b(?:min|max)\())" + name + R"((, ))" + name + R"(\))");
    const auto ordered = [](const std::smatch &m, const std::string &separator, const std::string &close) {
        std::string a = m[2], b = m[4];
        if (b < a) std::swap(a, b);
        return m[1].str() + a + separator + b + close;
    };
    line = rewrite_matches(line, spaced, [&](const std::smatch &m) { return ordered(m, " " + m[3].str() + " ", ""); });
    line = rewrite_matches(line, product, [&](const std::smatch &m) { return ordered(m, "*", ""); });
    return rewrite_matches(line, min_max, [&](const std::smatch &m) { return ordered(m, ", ", ")"); });
}

// A temporary Halide numbered: t123.
const std::regex &temporary() {
    static const std::regex t(R"(\bt[0-9]+\b)");
    return t;
}

// `<indent>let t123 = <value>`: groups 1 indent, 2 the temporary, 3 the value.
const std::regex &let_of_temporary() {
    static const std::regex let(R"(^(\s*)let (t[0-9]+) = (.*)$)");
    return let;
}

// The end of the run of adjacent lets of temporaries that starts at `begin`
// (begin itself when none starts there): one indentation, and no value
// using a temporary another let of the run defines.
size_t independent_lets_from(const std::vector<std::string> &lines, size_t begin) {
    std::smatch first;
    if (!std::regex_match(lines[begin], first, let_of_temporary())) return begin;
    const std::string indent = first[1];
    std::set<std::string> defined = {first[2]};
    size_t end = begin + 1;
    for (; end < lines.size(); ++end) {
        std::smatch let;
        if (!std::regex_match(lines[end], let, let_of_temporary()) || let[1] != indent) break;
        const std::string value = let[3];
        const bool uses_run = std::any_of(std::sregex_iterator(value.begin(), value.end(), temporary()),
                                          std::sregex_iterator(),
                                          [&](const std::smatch &t) { return defined.count(t.str()) > 0; });
        if (uses_run) break;
        defined.insert(let[2]);
    }
    return end;
}

std::vector<std::string> canonical_lines(const std::string &path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    static const std::regex unnamed_var(R"(\bv[0-9]+\b)");
    static const std::regex unique_suffix(R"(\$[0-9]+\b)");
    std::map<std::string, std::string> renamed;
    const auto renumber = [&](const char *prefix) {
        return [&renamed, prefix](const std::smatch &m) {
            return renamed.emplace(m.str(), prefix + std::to_string(renamed.size())).first->second;
        };
    };
    std::vector<std::string> raw;
    for (std::string line; std::getline(in, line);) raw.push_back(std::regex_replace(line, unique_suffix, ""));
    // The value of a let line with the temporaries named so far renamed and
    // any other shown as "t?": what a run of lets is ordered by.
    const auto value_key = [&renamed](const std::smatch &let) {
        return rewrite_matches(let[3].str(), temporary(), [&renamed](const std::smatch &m) {
            auto found = renamed.find(m.str());
            return found == renamed.end() ? std::string("t?") : found->second;
        });
    };
    std::vector<std::string> lines;
    for (size_t i = 0; i < raw.size();) {
        size_t end = independent_lets_from(raw, i);
        if (end - i > 1) {
            std::vector<std::pair<std::string, std::string>> run;  // (key, line)
            for (size_t j = i; j < end; ++j) {
                std::smatch let;
                std::regex_match(raw[j], let, let_of_temporary());
                run.emplace_back(value_key(let), raw[j]);
            }
            std::stable_sort(run.begin(), run.end(),
                             [](const auto &a, const auto &b) { return a.first < b.first; });
            for (size_t j = i; j < end; ++j) raw[j] = run[j - i].second;
        } else {
            end = i + 1;
        }
        for (; i < end; ++i) {
            std::string renumbered = rewrite_matches(raw[i], temporary(), renumber("t#"));
            renumbered = rewrite_matches(renumbered, unnamed_var, renumber("v#"));
            lines.push_back(order_commutative_operands(renumbered));
        }
    }
    return lines;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 3) {
        std::cerr << "usage: strata-stmt-equal A.stmt B.stmt\n";
        return 2;
    }
    try {
        const auto a = canonical_lines(argv[1]), b = canonical_lines(argv[2]);
        for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
            const std::string la = i < a.size() ? a[i] : "<end of file>", lb = i < b.size() ? b[i] : "<end of file>";
            if (la != lb) {
                std::cout << "statements differ at line " << i + 1 << ":\n  " << argv[1] << ": " << la.substr(0, 300)
                          << "\n  " << argv[2] << ": " << lb.substr(0, 300) << "\n";
                return 1;
            }
        }
        std::cout << "same statement (" << a.size() << " lines)\n";
        return 0;
    } catch (const std::exception &e) {
        std::cerr << "strata-stmt-equal: " << e.what() << "\n";
        return 2;
    }
}
