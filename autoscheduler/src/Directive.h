// Directive: one scheduling call on one stage of one Func — the unit that
// the schedule writer both applies to Halide and prints as C++, so that the
// emitted schedule source and the applied schedule cannot drift apart.
//
// Example:
//   Directive d = Directive::split("blur", 0, "x", "x_b", "x_i", 64);
//   d.apply(env);                       // blur.split(x, x_b, x_i, 64, TailStrategy::GuardWithIf)
//   std::string code = d.to_source(names);   // ".split(x, x_b, x_i, 64, TailStrategy::GuardWithIf)"
#pragma once

#include "Halide.h"

#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace strata::autoscheduler {

struct Directive {
    enum class Kind {
        ComputeRoot,
        ComputeAt,      // names[0]: the Func computed at, names[1]: its loop var; stage_at: its stage
        Split,          // names: old, outer, inner; factor
        Fuse,           // names: inner, outer, fused
        Reorder,        // names: innermost first
        GpuBlocks,      // names: up to three, innermost first
        GpuThreads,     // names: up to three, innermost first
        GpuSingleThread,
        Unroll,         // names[0]
        NeverPartition, // names[0]: a loop Halide must not split into a checked and an unchecked copy
        RFactor,        // names: (RVar, new pure Var) pairs; result_func: the intermediate's name
        BoundStorage,   // names[0]: a pure Var of the Func; factor: its storage extent
        BoundExtent,    // names[0]: a pure Var of the Func; factor: the extent it is computed over
        StoreIn,        // names[0]: "Register" or "GPUShared"
    };

    Kind kind;
    std::string func;   // the Func this directive schedules
    int stage = 0;      // which of its stages (0 pure, k update k-1)
    std::vector<std::string> names;
    int64_t factor = 0;
    int stage_at = 0;
    std::string result_func;
    Halide::TailStrategy tail = Halide::TailStrategy::GuardWithIf;  // Split only

    static Directive compute_root(const std::string &func);
    static Directive compute_at(const std::string &func, const std::string &at_func, const std::string &at_var,
                                int at_stage);
    // `tail`: how the last, partial tile is computed (GuardWithIf: each
    // point once; ShiftInwards: a whole tile shifted back over computed
    // points, legal on a pure definition's pure loops only).
    static Directive split(const std::string &func, int stage, const std::string &old, const std::string &outer,
                           const std::string &inner, int64_t factor,
                           Halide::TailStrategy tail = Halide::TailStrategy::GuardWithIf);
    static Directive fuse(const std::string &func, int stage, const std::string &inner, const std::string &outer,
                          const std::string &fused);
    static Directive reorder(const std::string &func, int stage, std::vector<std::string> innermost_first);
    static Directive gpu_blocks(const std::string &func, int stage, std::vector<std::string> vars);
    static Directive gpu_threads(const std::string &func, int stage, std::vector<std::string> vars);
    static Directive gpu_single_thread(const std::string &func, int stage);
    static Directive unroll(const std::string &func, int stage, const std::string &var);
    static Directive never_partition(const std::string &func, int stage, const std::string &var);
    static Directive bound_storage(const std::string &func, const std::string &var, int64_t extent);
    static Directive bound_extent(const std::string &func, const std::string &var, int64_t extent);
    static Directive store_in(const std::string &func, const std::string &memory_type);
    static Directive rfactor(const std::string &func, int stage,
                             const std::vector<std::pair<std::string, std::string>> &rvar_to_var,
                             const std::string &intermediate);
};

// The Funcs a schedule touches, by name, and which loop names are RVars.
class DirectiveTarget {
public:
    void add_func(const Halide::Func &f);
    void mark_rvar(const std::string &func, int stage, const std::string &name);
    bool is_rvar(const std::string &func, int stage, const std::string &name) const;
    Halide::Func &func(const std::string &name);
    // Whether stage `stage` of `func` has Func::specialize() branches.
    bool has_specializations(const std::string &func, int stage) const;

    // Applies to the Funcs (loop directives to every specialization of the
    // stage too); throws what Halide throws.
    void apply(const Directive &d);

    // The name Halide gave the intermediate of the last RFactor applied.
    const std::string &last_rfactor_result() const { return last_rfactor_result_; }
    // Each RFactor intermediate applied: the name the directives give it →
    // the name Halide gave it (unique in the process, so not known before).
    const std::map<std::string, std::string> &halide_names() const { return halide_names_; }

private:
    Halide::VarOrRVar var(const Directive &d, const std::string &name) const;
    Halide::Stage stage(const Directive &d);
    // The stage and its specializations.
    std::vector<Halide::Stage> stages(const Directive &d);
    void apply_loop_directive(const Directive &d, Halide::Stage s);

    std::map<std::string, Halide::Func> funcs_;
    std::set<std::string> rvars_;  // "func.stage.name"
    std::string last_rfactor_result_;
    std::map<std::string, std::string> halide_names_;
};

// Prints directives as C++ inside a Halide `apply_schedule_<name>` body.
class SourcePrinter {
public:
    // `func_index` maps Func names to their pipeline.get_func() index.
    explicit SourcePrinter(std::map<std::string, int> func_index) : func_index_(std::move(func_index)) {}

    // A handle for each of these Funcs, from pipeline.get_func(), at the top
    // of the body, for every print_func() block after it. Source that adds a
    // Func to the pipeline (an rfactor() intermediate) renumbers get_func(),
    // so handles used after it must be taken before it.
    std::string declare_funcs(const std::vector<std::string> &funcs);

    // All directives for one Func (and for the intermediates its rfactor()
    // directives make), as one block. Funcs not declared up front get their
    // handle in the block.
    std::string print_func(const std::string &func, const std::vector<Directive> &directives,
                           const DirectiveTarget &target);

private:
    // C++ identifiers by key: a loop's name, or "Func <name>".
    using Ids = std::map<std::string, std::string>;
    // The C++ identifier for `name` under `key`, unique among those `taken`.
    std::string identifier(const std::string &key, const std::string &name, Ids &taken);
    // The parts of a print_func() block, in order.
    std::string print_handles(const std::string &func, const std::vector<Directive> &directives, Ids &ids,
                              std::ostream &s);
    void print_loop_names(const std::vector<Directive> &directives, const DirectiveTarget &target, Ids &ids,
                          std::ostream &s);
    void print_chains(const std::vector<Directive> &directives, Ids &ids, std::ostream &s);
    void print_specializations(const std::string &func, const std::string &f, const std::vector<Directive> &directives,
                               const DirectiveTarget &target, Ids &ids, std::ostream &s);
    // One directive as a chained call, e.g. ".split(x, x_b, x_i, 64, TailStrategy::GuardWithIf)".
    std::string directive_call(const Directive &d, Ids &ids);
    static bool is_loop_directive(const Directive &d);
    std::map<std::string, int> func_index_;
    Ids declared_;  // declare_funcs()'s handles
};

}  // namespace strata::autoscheduler
