#include "strata/fuzz/Minimizer.h"

#include <algorithm>

namespace strata::fuzz {

namespace {

// Prunes and validates a changed description; false when it is invalid.
bool settle(Description &d) {
    try {
        prune(d);
        infer(d);
        return true;
    } catch (const std::invalid_argument &) {
        return false;
    }
}

void add_if_valid(std::vector<Candidate> &out, std::string change, Description d) {
    if (settle(d)) out.push_back({std::move(change), std::move(d)});
}

// Every node of a tree, by position (a path of argument indices).
void collect_paths(const Expr &e, std::vector<int> &path, std::vector<std::vector<int>> &paths) {
    paths.push_back(path);
    for (size_t i = 0; i < e.args.size(); ++i) {
        path.push_back(int(i));
        collect_paths(e.args[i], path, paths);
        path.pop_back();
    }
}

template <typename E>  // Expr or const Expr
E &node_at(E &root, const std::vector<int> &path) {
    E *e = &root;
    for (int i : path) e = &e->args[i];
    return *e;
}

// Drops operands that no value reads any more, renumbering the rest.
void drop_unread_operands(PointwiseOp &op) {
    std::vector<int> used;
    for (const Expr &v : op.values) collect_operands(v, used);
    std::vector<int> new_index(op.operands.size(), -1);
    std::vector<PointwiseOperand> kept;
    for (size_t j = 0; j < op.operands.size(); ++j) {
        if (std::find(used.begin(), used.end(), int(j)) == used.end()) continue;
        new_index[j] = int(kept.size());
        kept.push_back(op.operands[j]);
    }
    if (kept.empty()) return;  // keep the shape-giving operand
    std::function<void(Expr &)> renumber = [&](Expr &e) {
        if (e.kind == Expr::Kind::Operand) e.operand = new_index[e.operand];
        for (Expr &a : e.args) renumber(a);
    };
    for (Expr &v : op.values) renumber(v);
    op.operands = std::move(kept);
}

void expression_candidates(const Description &d, std::vector<Candidate> &out) {
    for (size_t s = 0; s < d.stages.size(); ++s) {
        const auto *op = std::get_if<PointwiseOp>(&d.stages[s].op);
        if (!op) continue;
        for (size_t v = 0; v < op->values.size(); ++v) {
            std::vector<std::vector<int>> paths;
            std::vector<int> path;
            collect_paths(op->values[v], path, paths);
            for (const std::vector<int> &p : paths) {
                const Expr node = node_at(op->values[v], p);
                std::vector<Expr> replacements;
                for (const Expr &arg : node.args) {
                    if (arg.type == node.type) replacements.push_back(arg);
                }
                if (node.kind != Expr::Kind::Constant && node.kind != Expr::Kind::Operand) {
                    replacements.push_back(constant(node.type, 1));
                }
                for (const Expr &r : replacements) {
                    Description c = d;
                    auto &target = std::get<PointwiseOp>(c.stages[s].op);
                    node_at(target.values[v], p) = r;
                    drop_unread_operands(target);
                    add_if_valid(out, "simplify " + d.stages[s].name + ": " + to_string(node) + " -> " + to_string(r),
                                 std::move(c));
                }
            }
        }
    }
}

}  // namespace

std::vector<Candidate> smaller_candidates(const Description &d) {
    std::vector<Candidate> out;
    const auto &outputs = d.outputs;
    if (outputs.size() > 1) {
        for (int o : outputs) {
            Description c = d;
            c.outputs = {o};
            add_if_valid(out, "keep only output " + d.stages[o].name, std::move(c));
        }
        for (int o : outputs) {
            Description c = d;
            c.outputs.erase(std::find(c.outputs.begin(), c.outputs.end(), o));
            add_if_valid(out, "drop output " + d.stages[o].name, std::move(c));
        }
    }
    // The pipeline ends at an earlier stage: everything after it goes.
    for (size_t s = d.stages.size(); s-- > 0;) {
        if (is_input(d.stages[s]) || outputs == std::vector<int>{int(s)}) continue;
        Description c = d;
        c.outputs = {int(s)};
        add_if_valid(out, "end at " + d.stages[s].name, std::move(c));
    }
    // A stage becomes an input of its own shape and type (latest first: that
    // removes the most).
    for (size_t s = d.stages.size(); s-- > 0;) {
        const Stage &stage = d.stages[s];
        if (is_input(stage) || stage.types.size() != 1) continue;
        if (std::find(outputs.begin(), outputs.end(), int(s)) != outputs.end()) continue;
        Description c = d;
        c.stages[s].op = InputOp{stage.types[0], stage.shape, std::nullopt};
        add_if_valid(out, "make " + stage.name + " an input", std::move(c));
    }
    // A stage is bypassed: its readers read one of its operands instead.
    for (size_t s = 0; s < d.stages.size(); ++s) {
        const Stage &stage = d.stages[s];
        for (int p : operands_of(stage.op)) {
            const Stage &operand = d.stages[p];
            if (operand.types != stage.types || operand.shape != stage.shape) continue;
            Description c = d;
            for (Stage &reader : c.stages) remap_operands(reader.op, [&](int i) { return i == int(s) ? p : i; });
            for (int &o : c.outputs) o = o == int(s) ? p : o;
            add_if_valid(out, "bypass " + stage.name + " (read " + operand.name + ")", std::move(c));
        }
    }
    // Inputs shrink: all at once, then one dimension at a time.
    {
        Description c = d;
        bool changed = false;
        for (Stage &s : c.stages) {
            if (auto *input = std::get_if<InputOp>(&s.op)) {
                for (int64_t &e : input->shape) {
                    changed |= e > 1;
                    e = (e + 1) / 2;
                }
            }
        }
        if (changed) add_if_valid(out, "halve every input", std::move(c));
    }
    for (size_t s = 0; s < d.stages.size(); ++s) {
        const auto *input = std::get_if<InputOp>(&d.stages[s].op);
        if (!input) continue;
        for (size_t dim = 0; dim < input->shape.size(); ++dim) {
            if (input->shape[dim] <= 1) continue;
            Description c = d;
            std::get<InputOp>(c.stages[s].op).shape[dim] = (input->shape[dim] + 1) / 2;
            add_if_valid(out, "halve " + d.stages[s].name + " along " + std::to_string(dim), std::move(c));
        }
    }
    // Reductions over several dimensions reduce fewer.
    for (size_t s = 0; s < d.stages.size(); ++s) {
        if (const auto *r = std::get_if<ReduceOp>(&d.stages[s].op); r && r->dims.size() > 1) {
            for (size_t k = 0; k < r->dims.size(); ++k) {
                Description c = d;
                auto &dims = std::get<ReduceOp>(c.stages[s].op).dims;
                dims.erase(dims.begin() + long(k));
                add_if_valid(out, "reduce fewer dimensions in " + d.stages[s].name, std::move(c));
            }
        }
    }
    expression_candidates(d, out);
    return out;
}

MinimizeResult minimize(Description description, const std::function<bool(const Description &)> &still_fails,
                        const MinimizeOptions &options, const std::function<void(const std::string &)> &log) {
    MinimizeResult result;
    result.stages_before = int(description.stages.size());
    bool progress = true;
    while (progress && result.tests < options.max_tests) {
        progress = false;
        for (Candidate &candidate : smaller_candidates(description)) {
            if (result.tests >= options.max_tests) break;
            ++result.tests;
            if (still_fails(candidate.description)) {
                log("test " + std::to_string(result.tests) + ": " + candidate.change + " (" +
                    std::to_string(candidate.description.stages.size()) + " stages)");
                description = std::move(candidate.description);
                progress = true;
                break;
            }
        }
    }
    if (result.tests >= options.max_tests) log("stopped after " + std::to_string(result.tests) + " tests");
    result.description = std::move(description);
    result.stages_after = int(result.description.stages.size());
    return result;
}

}  // namespace strata::fuzz
