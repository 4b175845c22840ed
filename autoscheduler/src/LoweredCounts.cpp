//===- LoweredCounts.cpp - counting what a lowered pipeline does ----------===//
//
// One walk over the Stmt with an environment of known values (parameters,
// enclosing lets, enclosing loop variables at their representative
// iteration) and a multiplier (how many times the current statement runs in
// the whole launch). Entering a GPU block loop outside any kernel starts a
// kernel; Allocate, Store and Load nodes are tallied against it.
//===----------------------------------------------------------------------===//
#include "LoweredCounts.h"

#include "CompiledExpr.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

namespace strata::autoscheduler {

using namespace Halide;
using namespace Halide::Internal;

namespace {

// A fixed pseudo-random number for the k-th sample of the rank-th loop
// (splitmix64), so that the counts are the same on every run.
uint64_t sample_offset(size_t rank, int64_t k) {
    uint64_t z = (uint64_t(rank) << 40) + uint64_t(k) + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

bool all_digits(const std::string &s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// "out.s0.x.x_b.block_id_x" → "out.s0".
std::string stage_of_loop(const std::string &loop) {
    const size_t s = loop.find(".s");
    if (s == std::string::npos) return loop;
    size_t end = s + 2;
    while (end < loop.size() && std::isdigit(static_cast<unsigned char>(loop[end]))) ++end;
    return loop.substr(0, end);
}

std::string memory_name(MemoryType m) {
    std::ostringstream s;
    s << m;
    return s.str();
}

class LoopAccesses;

struct ActiveLoop {
    std::string name;
    int64_t min = 0, extent = 1;
    double iterations = 1;  // the average extent the multiplier took
    bool serial = false;    // an ordinary loop inside a thread, not a GPU loop
    bool thread = false;    // a loop over a block's threads
    bool synchronizes = false;  // its body waits at a barrier (a staged tile's chunk loop)
    size_t body = 0;            // the body that holds it (Counter::kept_)
    // What its body accesses of the buffers it stores to (serial loops
    // only): which accesses LLVM may keep in a register across it.
    std::shared_ptr<const LoopAccesses> accesses;
};

// How LLVM keeps one global access in a register across the innermost
// serial loops around it (Counter::promotion).
struct Promotion {
    double iterations = 1;  // how many times fewer it runs than the statement that holds it
    int outermost = -1;     // the outermost loop it is kept across (in Counter::loops_), -1 if none
};

// Whether a statement waits at a GPU barrier: memory is fenced there, so no
// value stays in a register across it in place of its global copy.
class BarrierFinder : public IRVisitor {
public:
    bool found = false;

private:
    using IRVisitor::visit;
    void visit(const Call *op) override {
        found |= op->is_intrinsic(Call::gpu_thread_barrier);
        IRVisitor::visit(op);
    }
};

bool has_barrier(const Stmt &s) {
    BarrierFinder finder;
    s.accept(&finder);
    return finder.found;
}

// The accesses a serial loop's body makes to the buffers it stores to, for
// deciding which of them LLVM keeps in a register across the loop. It
// keeps an access only where the loop's other accesses cannot reach the
// same element by another address: a load of an element no other store
// may write is made once, before the loop (the value is forwarded from one
// iteration's store to the next), and a store is made once, after it,
// where no other access may read or write the element. Two addresses are
// told apart when they differ by a constant; a difference LLVM cannot see
// through (a row stride that might be zero) may make them one element:
// Anderson2021's attention scores accumulate a 4x4 tile across rows, and
// its PTX loads and stores all 16 at every step of the reduction. Heap
// Funcs of a kernel share one buffer (Halide's allocation group), so a
// store may also be pinned by the loads of another Func's part of it:
// Mullapudi2016's depthwise_separable_conv keeps its pointwise
// accumulator's value in a register across the reduction but stores it
// at every step, reading the depthwise output from the same buffer.
// Addresses are compared with the body's lets and `outer_lets` (the lets
// around the loop, expanded) substituted, as the Counter's ElementKeys are.
//
// And a buffer of which LLVM keeps nothing: one the body stores to inside
// a branch the body itself opens, at an address it does not also store to
// unconditionally (branches around the loop do not count: there the store
// runs at every iteration or at none). A guarded copy that repeats an
// unguarded store (a reduction's tail tap into the same accumulator) adds
// no store LLVM could not make; a guarded copy at an address of its own
// (the unrolled accumulators of a register-blocked tile) may not be
// stored at every iteration, and LLVM does not add the stores keeping it
// would take.
class LoopAccesses : public IRVisitor {
public:
    LoopAccesses(const Stmt &body, const std::map<std::string, Expr> &outer_lets) : outer_lets_(&outer_lets) {
        body.accept(this);
        outer_lets_ = nullptr;  // the caller's lets move on; the walk is done
        for (const auto &[buffer, addresses] : conditional_) {
            const auto plain = unconditional_.find(buffer);
            for (const std::string &address : addresses) {
                if (plain == unconditional_.end() || !plain->second.count(address)) conditionally_stored_.insert(buffer);
            }
        }
        for (auto &[buffer, accesses] : by_buffer_) {
            if (accesses.stores.empty()) continue;  // read only: every load may stay in a register
            const std::vector<Expr> &all = accesses.all;
            accesses.constant_apart = std::all_of(all.begin(), all.end(), [&](const Expr &e) { return apart(e, all[0]); });
        }
    }

    // Whether LLVM may keep the access to `address` (expanded) of `buffer`
    // in a register across the loop, as far as the loop's other accesses go.
    bool may_keep(const std::string &buffer, const Expr &address, bool store) const {
        if (conditionally_stored_.count(buffer)) return false;
        const auto it = by_buffer_.find(buffer);
        if (it == by_buffer_.end() || it->second.stores.empty() || it->second.constant_apart) return true;
        const std::vector<Expr> &others = store ? it->second.all : it->second.stores;
        return std::all_of(others.begin(), others.end(), [&](const Expr &e) { return apart(e, address); });
    }

private:
    using IRVisitor::visit;
    struct BufferAccesses {
        std::vector<Expr> stores, all;  // expanded addresses
        bool constant_apart = true;     // every two of `all` differ by a constant
    };
    const std::map<std::string, Expr> *outer_lets_;  // while the constructor walks the body
    std::map<std::string, Expr> inner_lets_;  // the body's lets in scope, expanded over each other
    std::map<std::string, BufferAccesses> by_buffer_;
    int branches_ = 0;
    std::map<std::string, std::set<std::string>> conditional_, unconditional_;
    std::set<std::string> conditionally_stored_;

    // Whether two addresses differ by a constant (zero included: one element).
    static bool apart(const Expr &a, const Expr &b) {
        return a.same_as(b) || graph_equal(a, b) || is_const(simplify(a - b));
    }

    Expr expanded(const Expr &e) const { return substitute(*outer_lets_, substitute(inner_lets_, e)); }

    template <typename LetOrLetStmt>
    void visit_let(const LetOrLetStmt *op) {
        op->value.accept(this);
        const auto shadowed = inner_lets_.find(op->name);
        const std::optional<Expr> outer =
            shadowed == inner_lets_.end() ? std::nullopt : std::optional<Expr>(shadowed->second);
        inner_lets_[op->name] = substitute(inner_lets_, op->value);
        op->body.accept(this);
        if (outer) {
            inner_lets_[op->name] = *outer;
        } else {
            inner_lets_.erase(op->name);
        }
    }
    void visit(const LetStmt *op) override { visit_let(op); }
    void visit(const Let *op) override { visit_let(op); }

    void visit(const IfThenElse *op) override {
        op->condition.accept(this);
        ++branches_;
        op->then_case.accept(this);
        if (op->else_case.defined()) op->else_case.accept(this);
        --branches_;
    }
    void visit(const Store *op) override {
        std::ostringstream address;
        address << op->index;
        (branches_ > 0 ? conditional_ : unconditional_)[op->name].insert(address.str());
        const Expr e = expanded(op->index);
        by_buffer_[op->name].stores.push_back(e);
        by_buffer_[op->name].all.push_back(e);
        IRVisitor::visit(op);
    }
    void visit(const Load *op) override {
        by_buffer_[op->name].all.push_back(expanded(op->index));
        IRVisitor::visit(op);
    }
};

// The buffers a statement stores to anywhere.
std::set<std::string> stored_buffers(const Stmt &s) {
    struct Finder : IRVisitor {
        std::set<std::string> buffers;
        using IRVisitor::visit;
        void visit(const Store *op) override {
            buffers.insert(op->name);
            IRVisitor::visit(op);
        }
    } finder;
    s.accept(&finder);
    return finder.buffers;
}

// One element of a buffer: its name and its address with lets expanded
// (Counter::expanded()). The undefined address orders first, so that
// lower_bound({buffer, Expr()}) finds a buffer's first element.
struct ElementKey {
    std::string buffer;
    Expr address;
};

struct ElementLess {
    bool operator()(const ElementKey &a, const ElementKey &b) const {
        if (a.buffer != b.buffer) return a.buffer < b.buffer;
        return graph_less_than(a.address, b.address);
    }
};

using ElementSet = std::set<ElementKey, ElementLess>;

class Counter : public IRVisitor {
public:
    Counter(const std::map<std::string, Expr> &values, const std::map<std::string, int> &funcs, LoweredCounts &out)
        : lets_(values), funcs_(funcs), out_(out) {}

private:
    using IRVisitor::visit;

    // The value of `e` over the enclosing loops: lets and parameters
    // substituted, loop variables left free.
    Expr resolve(const Expr &e) {
        class Bind : public IRMutator {
        public:
            explicit Bind(const std::map<std::string, Expr> &lets) : lets_(lets) {}

        private:
            using IRMutator::visit;
            // Counting follows the real run, never the bounds query.
            Expr visit(const Call *op) override {
                if (op->name == "_halide_buffer_is_bounds_query") return const_false();
                if (op->is_intrinsic(Call::likely) || op->is_intrinsic(Call::likely_if_innermost)) {
                    return mutate(op->args[0]);
                }
                // A buffer's shape: "<buffer>.min.<d>" and the like, at its estimate.
                static const std::map<std::string, std::string> kFields = {{"_halide_buffer_get_min", "min"},
                                                                           {"_halide_buffer_get_extent", "extent"},
                                                                           {"_halide_buffer_get_stride", "stride"}};
                auto field = kFields.find(op->name);
                if (field != kFields.end() && op->args.size() == 2) {
                    Expr buffer = op->args[0];
                    while (const Cast *c = buffer.as<Cast>()) buffer = c->value;
                    const Variable *v = buffer.as<Variable>();
                    const auto d = as_const_int(op->args[1]);
                    if (v && d) {
                        const std::string base = v->name.substr(0, v->name.rfind(".buffer"));
                        auto it = lets_.find(base + "." + field->second + "." + std::to_string(*d));
                        if (it != lets_.end()) return it->second;
                    }
                }
                return IRMutator::visit(op);
            }
            Expr visit(const Variable *op) override {
                auto it = lets_.find(op->name);
                if (it != lets_.end()) return it->second;
                if (op->param.defined() && !op->param.is_buffer() && op->param.estimate().defined()) {
                    return cast(op->type, op->param.estimate());
                }
                return op;
            }
            const std::map<std::string, Expr> &lets_;
        } bind(lets_);
        return simplify(bind.mutate(e));
    }

    static std::optional<double> as_number(const Expr &v) {
        if (auto i = as_const_int(v)) return double(*i);
        if (auto u = as_const_uint(v)) return double(*u);
        if (auto f = as_const_float(v)) return *f;
        return std::nullopt;
    }

    // The enclosing loops whose variables `e` reads.
    std::vector<const ActiveLoop *> loops_read(const Expr &e) const {
        class Names : public IRVisitor {
        public:
            std::set<std::string> names;

        private:
            using IRVisitor::visit;
            void visit(const Variable *op) override { names.insert(op->name); }
        } collect;
        e.accept(&collect);
        const std::set<std::string> &names = collect.names;
        std::vector<const ActiveLoop *> out;
        for (const ActiveLoop &l : loops_) {
            if (names.count(l.name)) out.push_back(&l);
        }
        return out;
    }

    // The mean of `e` over the iterations of the loops it reads; conditions
    // average to the fraction of iterations in which they hold. Every
    // combination is enumerated when there are at most kCombinations (a
    // guard over a block and a thread index: each partial tile counts as
    // it is); beyond that each loop is sampled once per equal bucket of its
    // range, at a fixed pseudo-random offset inside the bucket: a bucket's
    // middle would alias a condition periodic in the index (the x part of
    // a fused block index, v % 2, is the same at every middle of buckets of
    // even width).
    double average(const Expr &e, const std::string &what) {
        const Expr r = resolve(e);
        if (auto v = as_number(r)) return *v;
        const std::vector<const ActiveLoop *> vars = loops_read(r);
        std::vector<std::string> names;
        for (const ActiveLoop *l : vars) names.push_back(l->name);
        const std::optional<CompiledExpr> compiled = CompiledExpr::compile(r, names);
        if (!compiled || vars.empty()) {
            std::ostringstream text;
            text << what << " = " << r;
            out_.unevaluated.push_back(text.str());
            return 1;
        }
        constexpr double kCombinations = 1 << 16;
        // Small loops are enumerated whole; the budget left is shared by the rest.
        std::vector<size_t> order(vars.size());
        for (size_t k = 0; k < order.size(); ++k) order[k] = k;
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return vars[a]->extent < vars[b]->extent; });
        std::vector<std::vector<int64_t>> values(vars.size());
        double budget = kCombinations;
        for (size_t rank = 0; rank < order.size(); ++rank) {
            const ActiveLoop &l = *vars[order[rank]];
            const double share = std::pow(budget, 1.0 / double(order.size() - rank));
            const int64_t n = std::max<int64_t>(1, std::min<int64_t>(l.extent, int64_t(share)));
            for (int64_t k = 0; k < n; ++k) {
                const int64_t first = k * l.extent / n, width = (k + 1) * l.extent / n - first;
                values[order[rank]].push_back(l.min + first + int64_t(sample_offset(rank, k) % uint64_t(width)));
            }
            budget /= double(n);
        }
        std::vector<int64_t> point(vars.size());
        std::vector<size_t> pick(vars.size(), 0);
        double sum = 0, count = 0;
        for (;;) {
            for (size_t k = 0; k < vars.size(); ++k) point[k] = values[k][pick[k]];
            sum += double(compiled->evaluate(point.data()));
            count += 1;
            size_t k = 0;
            while (k < pick.size() && ++pick[k] == values[k].size()) pick[k++] = 0;
            if (k == pick.size()) break;
        }
        return sum / count;
    }

    void visit(const LetStmt *op) override { visit_let(op); }
    void visit(const Let *op) override { visit_let(op); }

    // A let's value (its loads happen here), then its body with the value
    // in scope, resolved and expanded.
    template <typename LetOrLetStmt>
    void visit_let(const LetOrLetStmt *op) {
        op->value.accept(this);
        lets_[op->name] = resolve(op->value);
        expanded_lets_[op->name] = expanded(op->value);
        op->body.accept(this);
        lets_.erase(op->name);
        expanded_lets_.erase(op->name);
    }

    // `e` with the lets it reads replaced by their values, themselves
    // expanded: the same element reached through differently named
    // temporaries, or through a temporary and the expression it names, is
    // one address, as LLVM's value numbering finds it. Parameters and
    // buffer fields stay symbols: `(4·b + 1)·E + E` and `(4·b + 2)·E` are
    // one address only at some values of E, and LLVM, which sees neither E
    // nor b, loads both. The values are shared, not copied, and compared
    // as graphs (ElementLess).
    Expr expanded(const Expr &e) const { return substitute(expanded_lets_, e); }

    // The mean extent of loop `name` (resolved: `extent`) over the
    // iterations of the enclosing loops in which it runs, each weighted by
    // how often it runs there: the product of the enclosing loops' extents
    // that read a variable it reads, where the enclosing branches' conditions
    // that do so hold. Where they move together (a causal mask narrows a
    // member's rows and columns per block, both to nothing past the
    // diagonal; the last blocks of a split reduction run fewer steps, in the
    // branch Halide opens for them), the mean of the product is not the
    // product of the means. A loop runs no iteration where its extent is
    // negative.
    double mean_extent(const Expr &extent, const std::string &name) {
        if (auto v = as_number(extent)) return std::max(0.0, *v);
        const Expr runs = cast(Int(64), max(extent, 0));
        const std::vector<const ActiveLoop *> read = loops_read(extent);
        auto moves_with_extent = [&](const Expr &e) {
            const std::vector<const ActiveLoop *> shared = loops_read(e);
            return std::any_of(shared.begin(), shared.end(),
                               [&](const ActiveLoop *l) { return std::count(read.begin(), read.end(), l) > 0; });
        };
        Expr weight;
        auto weigh = [&](const Expr &w) { weight = weight.defined() ? weight * w : w; };
        for (const Expr &w : extent_weights_) {
            if (moves_with_extent(w)) weigh(w);
        }
        for (const Expr &c : path_) {
            if (moves_with_extent(c)) weigh(select(c, make_const(Int(64), 1), make_const(Int(64), 0)));
        }
        const std::string what = "extent of loop " + name;
        if (!weight.defined()) return average(runs, what);
        const double enclosing = average(weight, what);
        return enclosing > 0 ? average(weight * runs, what) / enclosing : 0.0;
    }

    void visit(const For *op) override {
        const Expr resolved_extent = resolve(op->extent);
        const double extent = mean_extent(resolved_extent, op->name);
        const double min = average(op->min, "min of loop " + op->name);
        const bool block = op->for_type == ForType::GPUBlock;
        const bool thread = op->for_type == ForType::GPUThread || op->for_type == ForType::GPULane;
        bool started_kernel = false;
        if (block && !kernel_) {
            out_.kernels.push_back(LoweredKernel{});
            kernel_ = &out_.kernels.back();
            kernel_->name = stage_of_loop(op->name);
            // Host loops around the kernel launch it once per point.
            kernel_->launches = multiplier_;
            kernel_->blocks = multiplier_;
            kernel_->threads_per_block = 1;
            started_kernel = true;
            kernel_allocations_.clear();
            counted_thread_loops_.clear();
        }
        if (kernel_ && block) {
            kernel_->blocks *= extent;
            kernel_->grid[gpu_axis(op->name)] *= extent;
        }
        // Fused thread loops appear once per block; count each name once.
        if (kernel_ && thread && counted_thread_loops_.insert(op->name).second) {
            kernel_->threads_per_block *= extent;
            kernel_->block_dims[gpu_axis(op->name)] *= extent;
        }
        const ElementSet dominating = dominate_with_pending_loads();
        flush_loads();
        dominating_loads_.clear();  // a loop body starts anew
        const double saved = multiplier_;
        multiplier_ *= extent;
        const bool serial = op->for_type == ForType::Serial;
        loops_.push_back(ActiveLoop{op->name, int64_t(std::floor(min)), std::max<int64_t>(1, int64_t(std::ceil(extent))),
                                    extent, serial, thread, serial && has_barrier(op->body), kept_.size() - 1,
                                    serial ? std::make_shared<const LoopAccesses>(op->body, expanded_lets_) : nullptr});
        const bool weighs = !as_number(resolved_extent);
        if (weighs) extent_weights_.push_back(cast(Int(64), max(resolved_extent, 0)));
        visit_body(op->body);
        if (weighs) extent_weights_.pop_back();
        loops_.pop_back();
        multiplier_ = saved;
        restore_dominating_loads(dominating, op->body);
        if (started_kernel) kernel_ = nullptr;
    }

    // A loop's or a branch's body, with a set of kept elements of its own.
    // What it overwrites ends what the loops before it kept of those
    // buffers in the bodies around it too.
    void visit_body(const Stmt &body) {
        kept_.emplace_back();
        body.accept(this);
        flush_loads();
        const std::set<std::string> overwritten = std::move(kept_.back().overwritten);
        kept_.pop_back();
        for (const std::string &buffer : overwritten) forget_kept(buffer);
    }

    // Whether an access kept in a register across the enclosing loops
    // (`promotion`) is new to the body that holds the outermost of them,
    // recording it there.
    bool newly_kept(const Promotion &promotion, const ElementKey &key, bool store) {
        KeptElements &kept = kept_[loops_[size_t(promotion.outermost)].body];
        return (store ? kept.stored : kept.loaded).insert(key).second;
    }

    // A store no loop keeps in a register ends what the loops before it
    // in the current body kept of its buffer (LLVM no longer knows those
    // elements' values). Only those: a loop still running keeps what it
    // keeps; once it ends, its body's stores reach the body around it
    // (visit_body()).
    void forget_kept(const std::string &buffer) {
        KeptElements &kept = kept_.back();
        forget_loads_of(buffer, kept.loaded);
        forget_loads_of(buffer, kept.stored);
        kept.overwritten.insert(buffer);
    }

    // Loads before a branch or a loop dominate what follows them in the
    // same iteration: LLVM reuses their values (Halide unrolls a loop of
    // unknown extent into nested guards, and each guarded copy reloads
    // only what the copies around it did not load). Returns the set to
    // restore once the branch or loop is counted.
    ElementSet dominate_with_pending_loads() {
        dominating_loads_.insert(held_here_.begin(), held_here_.end());
        return dominating_loads_;
    }

    // After `s`: what dominated before it, less the buffers `s` may store
    // to (inside it, a store ends what its buffer's loads served).
    void restore_dominating_loads(ElementSet dominating, const Stmt &s) {
        for (const std::string &buffer : stored_buffers(s)) forget_loads_of(buffer, dominating);
        dominating_loads_ = std::move(dominating);
    }

    static void forget_loads_of(const std::string &buffer, ElementSet &loads) {
        for (auto it = loads.lower_bound(ElementKey{buffer, Expr()}); it != loads.end() && it->buffer == buffer;) {
            it = loads.erase(it);
        }
    }

    // The fraction of the enclosing loops' iterations in which every
    // condition of the current branch path holds, and `extra` too.
    double path_probability(const Expr &extra = Expr()) {
        Expr all = extra.defined() ? resolve(extra) : const_true();
        for (const Expr &c : path_) all = all && c;
        return std::clamp(average(all, "condition"), 0.0, 1.0);
    }

    void visit(const IfThenElse *op) override {
        const ElementSet dominating = dominate_with_pending_loads();
        flush_loads();
        // A nested condition counts only where the enclosing ones hold (an
        // else-if's guard applies to the iterations its if rejected).
        const double on_path = path_probability();
        const double both = path_probability(op->condition);
        const double saved = multiplier_, saved_threads = thread_share_;
        const Expr condition = resolve(op->condition);
        const Expr on_threads = at_first_iterations(condition);
        if (on_path > 0 && both > 0) {
            multiplier_ = saved * both / on_path;
            if (on_threads.defined()) thread_share_ = thread_share_with(on_threads);
            path_.push_back(condition);
            visit_body(op->then_case);
            path_.pop_back();
            if (on_threads.defined()) thread_path_.pop_back();
            restore_dominating_loads(dominating, op->then_case);
        }
        if (on_path > 0 && both < on_path && op->else_case.defined()) {
            multiplier_ = saved * (on_path - both) / on_path;
            thread_share_ = on_threads.defined() ? thread_share_with(!on_threads) : saved_threads;
            path_.push_back(!condition);
            dominating_loads_ = dominating;
            visit_body(op->else_case);
            path_.pop_back();
            if (on_threads.defined()) thread_path_.pop_back();
            restore_dominating_loads(dominating, op->else_case);
        }
        multiplier_ = saved;
        thread_share_ = saved_threads;
    }

    // Which of a block's threads run a branch: a condition on the thread
    // indices (Halide runs a stage with no thread loops of its own under
    // "thread_id_x < 1"; a member over fewer points than the block has
    // threads, under "thread_id_x < 66") taken at the first iteration of
    // every other enclosing loop, so that a tile's guard does not count
    // against threads that compute in some iteration. Undefined where the
    // condition reads no thread index.
    Expr at_first_iterations(const Expr &condition) const {
        const std::vector<const ActiveLoop *> read = loops_read(condition);
        if (std::none_of(read.begin(), read.end(), [](const ActiveLoop *l) { return l->thread; })) return Expr();
        std::map<std::string, Expr> first;
        for (const ActiveLoop *l : read) {
            if (!l->thread) first[l->name] = make_const(Int(32), l->min);
        }
        return simplify(substitute(first, condition));
    }

    // The share of a block's threads for which the thread conditions of
    // the branches around, and `condition`, hold (a branch's condition
    // stays on thread_path_ until its branch is counted).
    double thread_share_with(const Expr &condition) {
        thread_path_.push_back(condition);
        Expr all = const_true();
        for (const Expr &c : thread_path_) all = all && c;
        return std::clamp(average(all, "thread condition"), 0.0, 1.0);
    }

    void visit(const Allocate *op) override {
        int64_t bytes = -1;
        const int32_t size = op->constant_allocation_size();
        if (size > 0) bytes = int64_t(size) * op->type.bytes();
        // Halide merges a kernel's shared allocations into one
        // "allocgroup__<a>.0__<b>.0" buffer, and gives allocations whose
        // lifetimes do not overlap one space, "<a>.0_<c>.2": each Func in
        // it is allocated there. A tuple Func's elements are listed once,
        // as the Func.
        std::set<std::string> listed;
        for (const std::string &buffer : buffers_of_allocation(op->name)) {
            int element = 0;
            LoweredAllocation a{func_of_buffer(buffer, &element), memory_name(op->memory_type), bytes};
            if (!listed.insert(a.func).second) continue;
            if (kernel_) {
                kernel_->allocations.push_back(a);
            } else if (funcs_.count(a.func)) {
                out_.outside_kernels.push_back(a);
            }
        }
        if (kernel_) kernel_allocations_.insert(op->name);
        IRVisitor::visit(op);
    }

    std::vector<std::string> buffers_of_allocation(const std::string &name) const {
        const std::string group = "allocgroup__";
        std::vector<std::string> spaces;
        if (name.rfind(group, 0) != 0) {
            spaces.push_back(name);
        } else {
            size_t start = group.size();
            while (start < name.size()) {
                const size_t end = name.find("__", start);
                spaces.push_back(name.substr(start, end == std::string::npos ? std::string::npos : end - start));
                if (end == std::string::npos) break;
                start = end + 2;
            }
        }
        std::vector<std::string> out;
        for (const std::string &space : spaces) {
            const std::vector<std::string> sharing = buffers_sharing_space(space);
            out.insert(out.end(), sharing.begin(), sharing.end());
        }
        return out;
    }

    // "<a>.0_<c>.2" → "<a>.0", "<c>.2", where each is a Func's buffer; a
    // name that is one buffer (a Func's name may hold ".<n>_") stays whole.
    std::vector<std::string> buffers_sharing_space(const std::string &space) const {
        int element = 0;
        if (func_of_buffer(space, &element) != space) return {space};
        std::vector<std::string> out;
        size_t start = 0;
        for (size_t dot = space.find('.'); dot != std::string::npos; dot = space.find('.', dot + 1)) {
            size_t end = dot + 1;
            while (end < space.size() && std::isdigit(static_cast<unsigned char>(space[end]))) ++end;
            if (end == dot + 1 || end >= space.size() || space[end] != '_') continue;
            const std::string buffer = space.substr(start, end - start);
            if (func_of_buffer(buffer, &element) == buffer) continue;
            out.push_back(buffer);
            start = end + 1;
        }
        if (out.empty()) return {space};
        out.push_back(space.substr(start));
        return out;
    }

    // The Func a buffer holds, and which tuple element: Halide names a Func's
    // buffer "f", a tuple Func's "f.<element>", and a copy of an allocation
    // (one per partitioned loop body) adds ".<n>" to either. Names of no
    // Func (Halide's own temporaries) come back unchanged.
    std::string func_of_buffer(const std::string &buffer, int *element) const {
        *element = 0;
        std::string base = buffer;
        std::vector<int> suffixes;
        while (!funcs_.count(base)) {
            const size_t dot = base.rfind('.');
            if (dot == std::string::npos || !all_digits(base.substr(dot + 1))) return buffer;
            suffixes.insert(suffixes.begin(), std::stoi(base.substr(dot + 1)));
            base.resize(dot);
        }
        if (funcs_.at(base) > 1 && !suffixes.empty()) *element = suffixes.front();
        return base;
    }

    void visit(const ProducerConsumer *op) override {
        if (op->is_producer) producing_.push_back(op->name);
        IRVisitor::visit(op);
        if (op->is_producer) producing_.pop_back();
    }

    // "...block_id_y" → 1: the axis of a GPU loop, from Halide's loop names.
    static int gpu_axis(const std::string &loop) {
        if (loop.size() >= 2 && loop[loop.size() - 2] == '_') {
            const char c = loop.back();
            if (c == 'y') return 1;
            if (c == 'z') return 2;
        }
        return 0;
    }

    // The Func a store computes a point of, and how much of a point it is:
    // 1 for the store of a Func's (first) value, 0 for its other tuple
    // elements. A store into a merged allocation ("allocgroup__...") belongs
    // to the Func being produced, and its name no longer says which tuple
    // element it writes: each of a tuple Func's n stores is 1/n of a point.
    std::pair<std::string, double> point_of_store(const std::string &buffer) const {
        int element = 0;
        std::string func = func_of_buffer(buffer, &element);
        if (funcs_.count(func)) return {func, element == 0 ? 1.0 : 0.0};
        if (producing_.empty()) return {func, 1.0};
        func = producing_.back();
        return {func, funcs_.count(func) ? 1.0 / std::max(1, funcs_.at(func)) : 1.0};
    }

    void visit(const Store *op) override {
        const Expr address = resolve(op->index);
        const ElementKey key{op->name, expanded(op->index)};
        const auto [func, share] = point_of_store(op->name);
        // On the host, only a Func's own buffer holds its points: Halide's
        // temporaries there (the host loop that sizes a kernel's shared
        // memory per launch stores to "<func>.0.shared_size") are none.
        int element = 0;
        const bool funcs_buffer = func_of_buffer(op->name, &element) == func;
        if (!kernel_ && funcs_buffer && funcs_.count(func) && share > 0) out_.host_points[func] += multiplier_ * share;
        if (kernel_) {
            if (share > 0) {
                kernel_->points[func] += multiplier_ * share;
                double &threads = kernel_->threads[func];
                threads = std::max(threads, thread_share_ * kernel_->threads_per_block);
            }
            if (!kernel_allocations_.count(op->name)) {
                // Unrolled copies of a store to one address (an accumulator
                // over unrolled taps) leave one store once LLVM has kept
                // the value in a register.
                const Promotion kept = promotion(key, address, /*store=*/true);
                const double bytes = op->value.type().bytes() / kept.iterations;
                if (kept.outermost < 0) {
                    pending_stores_[key] = bytes;
                    forget_kept(op->name);
                } else if (newly_kept(kept, key, /*store=*/true)) {
                    kernel_->global_store_bytes += multiplier_ * bytes;
                }
            }
        }
        IRVisitor::visit(op);
        // The store may overwrite what earlier loads of the buffer read; its
        // own element's value is known (LLVM forwards it to a later load).
        forget_loads_of(op->name, dominating_loads_);
        forget_loads_of(op->name, held_here_);
        held_here_.insert(key);
    }

    void visit(const Load *op) override {
        if (kernel_ && !kernel_allocations_.count(op->name)) {
            // The same element reached through differently named
            // temporaries is one load (expanded()).
            const Expr address = resolve(op->index);
            const ElementKey key{op->name, expanded(op->index)};
            if (dominating_loads_.count(key)) return IRVisitor::visit(op);
            held_here_.insert(key);
            const Promotion kept = promotion(key, address, /*store=*/false);
            const double bytes = op->type.bytes() / kept.iterations;
            const std::string loading = producing_.empty() ? std::string() : producing_.back();
            if (kept.outermost < 0) {
                pending_loads_[key] = {bytes, loading};
            } else if (newly_kept(kept, key, /*store=*/false)) {
                kernel_->global_load_bytes += multiplier_ * bytes;
                kernel_->load_bytes[loading] += multiplier_ * bytes;
            }
        }
        IRVisitor::visit(op);
    }

    // Kernel arguments are noalias, so LLVM keeps a global element whose
    // address the innermost serial loops do not change in a register across
    // them (an update's accumulator over its reduction loop): the access
    // runs once per iteration of the loops outside those. A store is not
    // kept across a loop that waits at a barrier (a chunked reduction's
    // chunk loop), which publishes global writes to the block; whether
    // loads of read-only inputs are is for a GPU to tell, and they are
    // counted as kept, as the Featurizer prices them. Nor is an access
    // another access of the loop may alias (LoopAccesses). `address` is the
    // index with lets substituted (resolve()); `element`'s, with lets
    // expanded and parameters left symbolic.
    Promotion promotion(const ElementKey &element, const Expr &address, bool store) const {
        Promotion out;
        for (int i = int(loops_.size()) - 1; i >= 0 && loops_[size_t(i)].serial; --i) {
            const ActiveLoop &loop = loops_[size_t(i)];
            if (expr_uses_var(address, loop.name) || (store && loop.synchronizes) ||
                !loop.accesses->may_keep(element.buffer, element.address, store)) {
                break;
            }
            if (loop.iterations > 0) out.iterations *= loop.iterations;
            out.outermost = i;
        }
        return out;
    }

    // Loads and stores of one straight-line body, each distinct address once.
    void flush_loads() {
        if (kernel_) {
            for (const auto &[key, bytes] : pending_stores_) kernel_->global_store_bytes += multiplier_ * bytes;
            for (const auto &[key, load] : pending_loads_) {
                kernel_->global_load_bytes += multiplier_ * load.first;
                kernel_->load_bytes[load.second] += multiplier_ * load.first;
            }
        }
        pending_loads_.clear();
        pending_stores_.clear();
        held_here_.clear();
    }

    std::map<std::string, Expr> lets_;
    std::map<std::string, Expr> expanded_lets_;  // let in scope → its value, lets expanded
    std::vector<ActiveLoop> loops_;
    std::vector<Expr> path_;  // resolved conditions of the enclosing branches
    std::vector<Expr> extent_weights_;  // the enclosing loops' extents that are not constants (mean_extent)
    std::vector<std::string> producing_;  // the enclosing produce blocks' Funcs
    const std::map<std::string, int> &funcs_;  // name → values per point
    LoweredCounts &out_;
    LoweredKernel *kernel_ = nullptr;
    double multiplier_ = 1;
    double thread_share_ = 1;  // of a block's threads, those that run the statement visited
    std::vector<Expr> thread_path_;  // the thread conditions of the branches around it (at_first_iterations)
    std::set<std::string> kernel_allocations_;
    std::set<std::string> counted_thread_loops_;
    std::map<ElementKey, std::pair<double, std::string>, ElementLess> pending_loads_;  // → (bytes, loading Func)
    ElementSet dominating_loads_;  // elements loaded or stored by code that dominates this statement
    ElementSet held_here_;         // elements this straight-line body loaded or stored so far
    std::map<ElementKey, double, ElementLess> pending_stores_;  // → bytes
    // Per open body (the host's, each loop's and each branch's), the
    // elements that loops directly inside it keep in a register across
    // themselves: loaded before such a loop and stored after it, once per
    // run of the body. Two loops of one body that keep the same element
    // (Halide's partition of a reduction loop over a padded input into
    // border and interior runs) share that load and that store: LLVM
    // forwards the first loop's value to the second and drops the first
    // loop's store, as the PTX shows (fuzz seed 3255: one ld.global and
    // one st.global around three loops).
    struct KeptElements {
        ElementSet loaded, stored;
        std::set<std::string> overwritten;  // buffers the body stores to outside such loops
    };
    std::vector<KeptElements> kept_ = std::vector<KeptElements>(1);
};

}  // namespace

std::map<std::string, Expr> values_from_estimates(const FunctionDAG &dag) {
    std::map<std::string, Expr> values;
    for (const auto &node : dag.nodes()) {
        if (!node->is_input() && !node->is_output) continue;
        // A tuple output has a buffer per element, "<func>.0", "<func>.1", ...
        std::vector<std::string> buffers = {node->name};
        const int elements = node->is_input() ? 1 : node->func.outputs();
        for (int i = 0; elements > 1 && i < elements; ++i) buffers.push_back(node->name + "." + std::to_string(i));
        for (const std::string &buffer : buffers) {
            int64_t stride = 1;
            for (size_t d = 0; d < node->root_region.size(); ++d) {
                const std::string prefix = buffer + ".";
                const Span &span = node->root_region[d];
                values[prefix + "min." + std::to_string(d)] = Expr(int32_t(span.min));
                values[prefix + "extent." + std::to_string(d)] = Expr(int32_t(span.extent));
                values[prefix + "stride." + std::to_string(d)] = Expr(int32_t(stride));
                stride *= std::max<int64_t>(span.extent, 1);
            }
        }
    }
    return values;
}

LoweredCounts count_lowered(const Stmt &stmt, const std::map<std::string, Expr> &values,
                            const std::map<std::string, int> &funcs) {
    LoweredCounts out;
    Counter counter(values, funcs, out);
    stmt.accept(&counter);
    // Pointers into out.kernels were only held during the walk.
    return out;
}

}  // namespace strata::autoscheduler
