#include "Directive.h"

#include "Errors.h"

#include <cctype>
#include <sstream>

namespace strata::autoscheduler {

using namespace Halide;

Directive Directive::compute_root(const std::string &func) { return Directive{Kind::ComputeRoot, func}; }

Directive Directive::compute_at(const std::string &func, const std::string &at_func, const std::string &at_var,
                                int at_stage) {
    Directive d{Kind::ComputeAt, func};
    d.names = {at_func, at_var};
    d.stage_at = at_stage;
    return d;
}

Directive Directive::split(const std::string &func, int stage, const std::string &old, const std::string &outer,
                           const std::string &inner, int64_t factor, TailStrategy tail) {
    Directive d{Kind::Split, func, stage, {old, outer, inner}};
    d.factor = factor;
    d.tail = tail;
    return d;
}

Directive Directive::fuse(const std::string &func, int stage, const std::string &inner, const std::string &outer,
                          const std::string &fused) {
    return Directive{Kind::Fuse, func, stage, {inner, outer, fused}};
}

Directive Directive::reorder(const std::string &func, int stage, std::vector<std::string> innermost_first) {
    return Directive{Kind::Reorder, func, stage, std::move(innermost_first)};
}

Directive Directive::gpu_blocks(const std::string &func, int stage, std::vector<std::string> vars) {
    return Directive{Kind::GpuBlocks, func, stage, std::move(vars)};
}

Directive Directive::gpu_threads(const std::string &func, int stage, std::vector<std::string> vars) {
    return Directive{Kind::GpuThreads, func, stage, std::move(vars)};
}

Directive Directive::gpu_single_thread(const std::string &func, int stage) {
    return Directive{Kind::GpuSingleThread, func, stage};
}

Directive Directive::unroll(const std::string &func, int stage, const std::string &var) {
    return Directive{Kind::Unroll, func, stage, {var}};
}

Directive Directive::never_partition(const std::string &func, int stage, const std::string &var) {
    return Directive{Kind::NeverPartition, func, stage, {var}};
}

Directive Directive::rfactor(const std::string &func, int stage,
                             const std::vector<std::pair<std::string, std::string>> &rvar_to_var,
                             const std::string &intermediate) {
    Directive d{Kind::RFactor, func, stage};
    for (const auto &[rvar, var] : rvar_to_var) {
        d.names.push_back(rvar);
        d.names.push_back(var);
    }
    d.result_func = intermediate;
    return d;
}

Directive Directive::bound_storage(const std::string &func, const std::string &var, int64_t extent) {
    Directive d{Kind::BoundStorage, func, 0, {var}};
    d.factor = extent;
    return d;
}

Directive Directive::bound_extent(const std::string &func, const std::string &var, int64_t extent) {
    Directive d{Kind::BoundExtent, func, 0, {var}};
    d.factor = extent;
    return d;
}

Directive Directive::store_in(const std::string &func, const std::string &memory_type) {
    if (memory_type != "Register" && memory_type != "GPUShared") {
        fail("internal: no memory type '" + memory_type + "' for Func '" + func + "'");
    }
    return Directive{Kind::StoreIn, func, 0, {memory_type}};
}

void DirectiveTarget::add_func(const Func &f) { funcs_.emplace(f.name(), f); }

void DirectiveTarget::mark_rvar(const std::string &func, int stage, const std::string &name) {
    rvars_.insert(func + "." + std::to_string(stage) + "." + name);
}

bool DirectiveTarget::is_rvar(const std::string &func, int stage, const std::string &name) const {
    return rvars_.count(func + "." + std::to_string(stage) + "." + name) > 0;
}

Func &DirectiveTarget::func(const std::string &name) {
    auto it = funcs_.find(name);
    if (it == funcs_.end()) fail("internal: the schedule names an unknown Func '" + name + "'");
    return it->second;
}

VarOrRVar DirectiveTarget::var(const Directive &d, const std::string &name) const {
    if (is_rvar(d.func, d.stage, name)) return RVar(name);
    return Var(name);
}

Stage DirectiveTarget::stage(const Directive &d) {
    Func &f = func(d.func);
    if (d.stage == 0) return Stage(f);
    return f.update(d.stage - 1);
}

std::vector<Stage> DirectiveTarget::stages(const Directive &d) {
    std::vector<Stage> out = {stage(d)};
    // A specialized definition runs its own schedule: the loop directives
    // go to each specialization too, or its branch would run unscheduled
    // (on the host). Specializations of specializations are not reached.
    Func &f = func(d.func);
    const Halide::Internal::Definition &def = d.stage == 0 ? f.function().definition() : f.function().update(d.stage - 1);
    for (const Halide::Internal::Specialization &spec : def.specializations()) {
        if (spec.failure_message.empty()) out.push_back(stage(d).specialize(spec.condition));
    }
    return out;
}

void DirectiveTarget::apply(const Directive &d) {
    switch (d.kind) {
    case Directive::Kind::ComputeRoot:
        func(d.func).compute_root();
        return;
    case Directive::Kind::ComputeAt: {
        const Func &at = func(d.names[0]);
        // Halide (14 through 21) accepts only the last stage's loops, named without a stage index.
        func(d.func).compute_at(LoopLevel(at, var(Directive{d.kind, d.names[0], d.stage_at}, d.names[1])));
        return;
    }
    case Directive::Kind::BoundStorage:
        func(d.func).bound_storage(Var(d.names[0]), Expr(int(d.factor)));
        return;
    case Directive::Kind::BoundExtent:
        func(d.func).bound_extent(Var(d.names[0]), Expr(int(d.factor)));
        return;
    case Directive::Kind::StoreIn:
        func(d.func).store_in(d.names[0] == "Register" ? MemoryType::Register : MemoryType::GPUShared);
        return;
    case Directive::Kind::RFactor: {
        std::vector<std::pair<RVar, Var>> preserved;
        for (size_t i = 0; i + 1 < d.names.size(); i += 2) preserved.emplace_back(RVar(d.names[i]), Var(d.names[i + 1]));
        Func intermediate = stage(d).rfactor(preserved);
        // Halide makes the name unique in the process ("f_intm$2" once the
        // search has lowered a few candidates): directives use the
        // schedule's name for it.
        const std::string name = d.result_func.empty() ? intermediate.name() : d.result_func;
        funcs_.insert_or_assign(name, intermediate);
        funcs_.insert_or_assign(intermediate.name(), intermediate);
        halide_names_[name] = intermediate.name();
        last_rfactor_result_ = intermediate.name();
        // The RVars the factored stage keeps are the intermediate's update's.
        const std::string prefix = d.func + "." + std::to_string(d.stage) + ".";
        std::vector<std::string> kept;
        for (auto it = rvars_.lower_bound(prefix); it != rvars_.end() && it->rfind(prefix, 0) == 0; ++it) {
            const std::string rvar = it->substr(prefix.size());
            bool made_pure = false;
            for (size_t i = 0; i < d.names.size(); i += 2) made_pure |= d.names[i] == rvar;
            if (!made_pure) kept.push_back(rvar);
        }
        for (const std::string &rvar : kept) mark_rvar(name, 1, rvar);
        return;
    }
    case Directive::Kind::Split:
        if (is_rvar(d.func, d.stage, d.names[0])) {
            mark_rvar(d.func, d.stage, d.names[1]);
            mark_rvar(d.func, d.stage, d.names[2]);
        }
        break;
    case Directive::Kind::Fuse:
        if (is_rvar(d.func, d.stage, d.names[0]) && is_rvar(d.func, d.stage, d.names[1])) {
            mark_rvar(d.func, d.stage, d.names[2]);
        }
        break;
    default:
        break;
    }
    for (Stage s : stages(d)) apply_loop_directive(d, s);
}

bool DirectiveTarget::has_specializations(const std::string &func, int stage) const {
    auto it = funcs_.find(func);
    if (it == funcs_.end()) return false;
    const Halide::Internal::Function &f = it->second.function();
    if (stage == 0) return f.definition().defined() && !f.definition().specializations().empty();
    return stage - 1 < int(f.updates().size()) && !f.updates()[stage - 1].specializations().empty();
}

void DirectiveTarget::apply_loop_directive(const Directive &d, Stage s) {
    switch (d.kind) {
    case Directive::Kind::Split:
        s.split(var(d, d.names[0]), var(d, d.names[1]), var(d, d.names[2]), Expr(int(d.factor)), d.tail);
        return;
    case Directive::Kind::Fuse:
        s.fuse(var(d, d.names[0]), var(d, d.names[1]), var(d, d.names[2]));
        return;
    case Directive::Kind::Reorder: {
        std::vector<VarOrRVar> vars;
        for (const std::string &n : d.names) vars.push_back(var(d, n));
        s.reorder(vars);
        return;
    }
    case Directive::Kind::GpuBlocks:
    case Directive::Kind::GpuThreads: {
        std::vector<VarOrRVar> v;
        for (const std::string &n : d.names) v.push_back(var(d, n));
        const bool blocks = d.kind == Directive::Kind::GpuBlocks;
        if (v.size() == 1) blocks ? s.gpu_blocks(v[0]) : s.gpu_threads(v[0]);
        else if (v.size() == 2) blocks ? s.gpu_blocks(v[0], v[1]) : s.gpu_threads(v[0], v[1]);
        else blocks ? s.gpu_blocks(v[0], v[1], v[2]) : s.gpu_threads(v[0], v[1], v[2]);
        return;
    }
    case Directive::Kind::GpuSingleThread:
        s.gpu_single_thread();
        return;
    case Directive::Kind::Unroll:
        s.unroll(var(d, d.names[0]));
        return;
    case Directive::Kind::NeverPartition:
        s.partition(var(d, d.names[0]), Halide::Partition::Never);
        return;
    default:
        fail("internal: directive kind " + std::to_string(int(d.kind)) + " is not a loop directive");
    }
}

std::string SourcePrinter::identifier(const std::string &key, const std::string &name, Ids &taken) {
    auto it = taken.find(key);
    if (it != taken.end()) return it->second;
    std::string id;
    for (char c : name) id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0]))) id = "v_" + id;
    // C++ keywords and the schedule function's own parameter names.
    static const std::set<std::string> kReserved = {"pipeline", "target", "int", "float", "double", "char",
                                                    "auto", "for", "if", "else", "return", "default", "case",
                                                    "switch", "new", "delete", "this", "class", "struct"};
    std::string unique = id;
    for (int i = 2; kReserved.count(unique) || [&] {
             for (const auto &entry : taken) {
                 if (entry.second == unique) return true;
             }
             return false;
         }();
         ++i) {
        unique = id + "_" + std::to_string(i);
    }
    taken[key] = unique;
    return unique;
}

namespace {
// Funcs and loops share one table of identifiers, under different keys.
std::string func_key(const std::string &func) { return "Func " + func; }

const char *tail_name(TailStrategy tail) {
    switch (tail) {
    case TailStrategy::RoundUp: return "RoundUp";
    case TailStrategy::GuardWithIf: return "GuardWithIf";
    case TailStrategy::Predicate: return "Predicate";
    case TailStrategy::PredicateLoads: return "PredicateLoads";
    case TailStrategy::PredicateStores: return "PredicateStores";
    case TailStrategy::ShiftInwards: return "ShiftInwards";
    case TailStrategy::ShiftInwardsAndBlend: return "ShiftInwardsAndBlend";
    case TailStrategy::RoundUpAndBlend: return "RoundUpAndBlend";
    case TailStrategy::Auto: return "Auto";
    }
    return "Auto";
}
}  // namespace

std::string SourcePrinter::declare_funcs(const std::vector<std::string> &funcs) {
    std::ostringstream s;
    for (const std::string &func : funcs) {
        if (declared_.count(func_key(func))) continue;
        auto index = func_index_.find(func);
        if (index == func_index_.end()) fail("internal: the schedule names Func '" + func + "', not in the pipeline");
        s << "Func " << identifier(func_key(func), func, declared_) << " = pipeline.get_func(" << index->second
          << ");  // " << func << "\n";
    }
    return s.str();
}

std::string SourcePrinter::print_func(const std::string &func, const std::vector<Directive> &directives,
                                      const DirectiveTarget &target) {
    std::ostringstream s;
    Ids ids = declared_;
    s << "{\n";
    const std::string f = print_handles(func, directives, ids, s);
    print_loop_names(directives, target, ids, s);
    print_chains(directives, ids, s);
    print_specializations(func, f, directives, target, ids, s);
    s << "}\n";
    return s.str();
}

// Handles for the Funcs the block names that were not declared up front (an
// rfactor() intermediate gets its handle where rfactor() returns it).
// Returns the block's own Func's identifier.
std::string SourcePrinter::print_handles(const std::string &func, const std::vector<Directive> &directives, Ids &ids,
                                         std::ostream &s) {
    std::set<std::string> intermediates;
    for (const Directive &d : directives) {
        if (d.kind == Directive::Kind::RFactor && !d.result_func.empty()) intermediates.insert(d.result_func);
    }
    auto handle = [&](const std::string &name) {
        if (!ids.count(func_key(name)) && !intermediates.count(name)) {
            auto index = func_index_.find(name);
            if (index == func_index_.end()) fail("internal: the schedule names Func '" + name + "', not in the pipeline");
            s << "    Func " << identifier(func_key(name), name, ids) << " = pipeline.get_func(" << index->second
              << ");  // " << name << "\n";
        }
        return identifier(func_key(name), name, ids);
    };
    const std::string f = handle(func);
    for (const Directive &d : directives) {
        if (d.kind == Directive::Kind::ComputeAt) handle(d.names[0]);
    }
    return f;
}

// Loop names, in order of first use, declared as Var or RVar.
void SourcePrinter::print_loop_names(const std::vector<Directive> &directives, const DirectiveTarget &target, Ids &ids,
                                     std::ostream &s) {
    std::vector<std::pair<std::string, bool>> loop_names;
    std::set<std::string> seen;
    auto note = [&](const std::string &name, bool rvar) {
        if (seen.insert(name).second) loop_names.emplace_back(name, rvar);
    };
    for (const Directive &d : directives) {
        switch (d.kind) {
        case Directive::Kind::ComputeRoot:
        case Directive::Kind::GpuSingleThread:
        case Directive::Kind::StoreIn:
            break;
        case Directive::Kind::ComputeAt:
            note(d.names[1], target.is_rvar(d.names[0], d.stage_at, d.names[1]));
            break;
        case Directive::Kind::RFactor:
            for (size_t i = 0; i < d.names.size(); ++i) note(d.names[i], i % 2 == 0);
            break;
        default:
            for (const std::string &n : d.names) note(n, target.is_rvar(d.func, d.stage, n));
        }
    }
    for (const auto &[name, rvar] : loop_names) {
        s << "    " << (rvar ? "RVar " : "Var ") << identifier(name, name, ids) << "(\"" << name << "\");\n";
    }
}

// Directives on one stage of one Func chain; rfactor() ends a chain (it
// returns the intermediate, which the directives after it schedule by its
// own handle).
void SourcePrinter::print_chains(const std::vector<Directive> &directives, Ids &ids, std::ostream &s) {
    std::set<std::string> scheduled;  // Funcs some directive here schedules
    for (const Directive &d : directives) scheduled.insert(d.func);
    auto stage_of = [&](const Directive &d) {
        return identifier(func_key(d.func), d.func, ids) +
               (d.stage > 0 ? ".update(" + std::to_string(d.stage - 1) + ")" : "");
    };
    const Directive *chain = nullptr;  // the first directive of the open chain
    for (const Directive &d : directives) {
        if (d.kind == Directive::Kind::RFactor) {
            if (chain) s << ";\n";
            chain = nullptr;
            s << "    ";
            if (scheduled.count(d.result_func)) {
                s << "Func " << identifier(func_key(d.result_func), d.result_func, ids) << " = ";
            }
            s << stage_of(d) << directive_call(d, ids) << ";\n";
            continue;
        }
        if (!chain || d.func != chain->func || d.stage != chain->stage) {
            if (chain) s << ";\n";
            s << "    " << stage_of(d);
            chain = &d;
        }
        s << "\n        " << directive_call(d, ids);
    }
    if (chain) s << ";\n";
}

// Specialized stages of the block's Func get its loop directives too (see
// DirectiveTarget::stages).
void SourcePrinter::print_specializations(const std::string &func, const std::string &f,
                                          const std::vector<Directive> &directives, const DirectiveTarget &target,
                                          Ids &ids, std::ostream &s) {
    std::set<int> stages;
    for (const Directive &d : directives) {
        if (d.func == func) stages.insert(d.stage);
    }
    for (int stage : stages) {
        if (!target.has_specializations(func, stage)) continue;
        const std::string definition = stage == 0 ? ".definition()" : ".update(" + std::to_string(stage - 1) + ")";
        const std::string base = stage == 0 ? "Halide::Stage(" + f + ")" : f + ".update(" + std::to_string(stage - 1) + ")";
        s << "    for (const Halide::Internal::Specialization &spec : " << f << ".function()" << definition
          << ".specializations()) {\n        if (!spec.failure_message.empty()) continue;\n        " << base
          << ".specialize(spec.condition)";
        for (const Directive &d : directives) {
            if (d.func == func && d.stage == stage && is_loop_directive(d)) s << "\n            " << directive_call(d, ids);
        }
        s << ";\n    }\n";
    }
}

bool SourcePrinter::is_loop_directive(const Directive &d) {
    switch (d.kind) {
    case Directive::Kind::Split:
    case Directive::Kind::Fuse:
    case Directive::Kind::Reorder:
    case Directive::Kind::GpuBlocks:
    case Directive::Kind::GpuThreads:
    case Directive::Kind::GpuSingleThread:
    case Directive::Kind::Unroll:
    case Directive::Kind::NeverPartition:
        return true;
    default:
        return false;
    }
}

std::string SourcePrinter::directive_call(const Directive &d, Ids &ids) {
    std::ostringstream s;
    {
        auto n = [&](int i) { return identifier(d.names[i], d.names[i], ids); };
        auto list = [&] {
            std::string out;
            for (size_t i = 0; i < d.names.size(); ++i) out += (i ? ", " : "") + n(int(i));
            return out;
        };
        switch (d.kind) {
        case Directive::Kind::ComputeRoot: s << ".compute_root()"; break;
        case Directive::Kind::ComputeAt:
            s << ".compute_at(" << identifier(func_key(d.names[0]), d.names[0], ids) << ", " << n(1) << ")";
            break;
        case Directive::Kind::Split:
            s << ".split(" << n(0) << ", " << n(1) << ", " << n(2) << ", " << d.factor << ", TailStrategy::"
              << tail_name(d.tail) << ")";
            break;
        case Directive::Kind::Fuse: s << ".fuse(" << n(0) << ", " << n(1) << ", " << n(2) << ")"; break;
        case Directive::Kind::Reorder: s << ".reorder(" << list() << ")"; break;
        case Directive::Kind::GpuBlocks: s << ".gpu_blocks(" << list() << ")"; break;
        case Directive::Kind::GpuThreads: s << ".gpu_threads(" << list() << ")"; break;
        case Directive::Kind::GpuSingleThread: s << ".gpu_single_thread()"; break;
        case Directive::Kind::Unroll: s << ".unroll(" << n(0) << ")"; break;
        case Directive::Kind::NeverPartition: s << ".partition(" << n(0) << ", ::Halide::Partition::Never)"; break;
        case Directive::Kind::BoundStorage: s << ".bound_storage(" << n(0) << ", " << d.factor << ")"; break;
        case Directive::Kind::BoundExtent: s << ".bound_extent(" << n(0) << ", " << d.factor << ")"; break;
        case Directive::Kind::StoreIn: s << ".store_in(MemoryType::" << d.names[0] << ")"; break;
        case Directive::Kind::RFactor: {
            s << ".rfactor({";
            for (size_t i = 0; i + 1 < d.names.size(); i += 2) {
                s << (i ? ", " : "") << "{" << n(int(i)) << ", " << n(int(i + 1)) << "}";
            }
            s << "})";
            break;
        }
        }
    }
    return s.str();
}

}  // namespace strata::autoscheduler
