//===- LoweredCounts.cpp - counting what a lowered pipeline does ----------===//
//
// One walk over the Stmt with an environment of known values (parameters,
// enclosing lets, enclosing loop variables at their representative
// iteration) and a multiplier (how many times the current statement runs in
// the whole launch). Entering a GPU block loop outside any kernel starts a
// kernel; Allocate, Store and Load nodes are tallied against it.
//===----------------------------------------------------------------------===//
#include "LoweredCounts.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <set>
#include <sstream>

namespace strata::autoscheduler {

using namespace Halide;
using namespace Halide::Internal;

namespace {

// "out.0" → "out" for the buffers of tuple elements; other names unchanged.
std::string func_of_buffer(const std::string &buffer, int *element) {
    const size_t dot = buffer.rfind('.');
    *element = 0;
    if (dot == std::string::npos || dot + 1 == buffer.size()) return buffer;
    for (size_t i = dot + 1; i < buffer.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(buffer[i]))) return buffer;
    }
    *element = std::stoi(buffer.substr(dot + 1));
    return buffer.substr(0, dot);
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

struct ActiveLoop {
    std::string name;
    int64_t min = 0, extent = 1;
};

class Counter : public IRVisitor {
public:
    Counter(const std::map<std::string, Expr> &values, const std::set<std::string> &funcs, LoweredCounts &out)
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

    // The mean of `e` over the iterations of the loops it reads (sampled
    // evenly when there are many); conditions average to the fraction of
    // iterations in which they hold.
    double average(const Expr &e, const std::string &what) {
        const Expr r = resolve(e);
        if (auto v = as_number(r)) return *v;
        const std::vector<const ActiveLoop *> vars = loops_read(r);
        constexpr int64_t kSamples = 512;
        int64_t per_var = vars.empty() ? 1 : std::max<int64_t>(2, int64_t(std::pow(double(kSamples), 1.0 / double(vars.size()))));
        std::vector<std::vector<int64_t>> values;
        for (const ActiveLoop *l : vars) {
            std::vector<int64_t> vs;
            const int64_t n = std::min<int64_t>(l->extent, per_var);
            for (int64_t k = 0; k < n; ++k) vs.push_back(l->min + (n == l->extent ? k : k * l->extent / n));
            values.push_back(vs);
        }
        double sum = 0;
        int64_t count = 0;
        std::vector<size_t> pick(vars.size(), 0);
        for (;;) {
            std::map<std::string, Expr> point;
            for (size_t k = 0; k < vars.size(); ++k) point[vars[k]->name] = make_const(Int(32), values[k][pick[k]]);
            const Expr here = simplify(substitute(point, r));
            auto v = as_number(here);
            if (!v) {
                std::ostringstream text;
                text << what << " = " << here;
                out_.unevaluated.push_back(text.str());
                return 1;
            }
            sum += *v;
            ++count;
            size_t k = 0;
            while (k < pick.size() && ++pick[k] == values[k].size()) pick[k++] = 0;
            if (k == pick.size()) break;
        }
        return count ? sum / double(count) : 1;
    }

    void visit(const LetStmt *op) override {
        lets_[op->name] = resolve(op->value);
        op->body.accept(this);
        lets_.erase(op->name);
    }

    void visit(const Let *op) override {
        lets_[op->name] = resolve(op->value);
        op->body.accept(this);
        lets_.erase(op->name);
    }

    void visit(const For *op) override {
        const double extent = std::max(0.0, average(op->extent, "extent of loop " + op->name));
        const double min = average(op->min, "min of loop " + op->name);
        const bool block = op->for_type == ForType::GPUBlock;
        const bool thread = op->for_type == ForType::GPUThread || op->for_type == ForType::GPULane;
        bool started_kernel = false;
        if (block && !kernel_) {
            out_.kernels.push_back(LoweredKernel{});
            kernel_ = &out_.kernels.back();
            kernel_->name = stage_of_loop(op->name);
            kernel_->blocks = 1;
            kernel_->threads_per_block = 1;
            started_kernel = true;
            kernel_allocations_.clear();
            counted_thread_loops_.clear();
        }
        if (kernel_ && block) kernel_->blocks *= extent;
        // Fused thread loops appear once per block; count each name once.
        if (kernel_ && thread && counted_thread_loops_.insert(op->name).second) kernel_->threads_per_block *= extent;
        flush_loads();
        const double saved = multiplier_;
        multiplier_ *= extent;
        loops_.push_back(ActiveLoop{op->name, int64_t(std::floor(min)), std::max<int64_t>(1, int64_t(std::ceil(extent)))});
        op->body.accept(this);
        flush_loads();
        loops_.pop_back();
        multiplier_ = saved;
        if (started_kernel) kernel_ = nullptr;
    }

    void visit(const IfThenElse *op) override {
        flush_loads();
        const double taken = std::clamp(average(select(op->condition, 1.0f, 0.0f), "condition " +
                                                [&] { std::ostringstream s; s << op->condition; return s.str(); }()),
                                        0.0, 1.0);
        const double saved = multiplier_;
        if (taken > 0) {
            multiplier_ = saved * taken;
            op->then_case.accept(this);
            flush_loads();
        }
        if (taken < 1 && op->else_case.defined()) {
            multiplier_ = saved * (1 - taken);
            op->else_case.accept(this);
            flush_loads();
        }
        multiplier_ = saved;
    }

    void visit(const Allocate *op) override {
        int element = 0;
        LoweredAllocation a{func_of_buffer(op->name, &element), memory_name(op->memory_type), -1};
        const int32_t size = op->constant_allocation_size();
        if (size > 0) a.bytes = int64_t(size) * op->type.bytes();
        if (kernel_) {
            kernel_->allocations.push_back(a);
            kernel_allocations_.insert(op->name);
        } else if (funcs_.count(a.func)) {
            out_.outside_kernels.push_back(a);
        }
        IRVisitor::visit(op);
    }

    void visit(const Store *op) override {
        if (kernel_) {
            int element = 0;
            const std::string func = func_of_buffer(op->name, &element);
            if (element == 0) kernel_->points[func] += multiplier_;
            if (!kernel_allocations_.count(op->name)) {
                kernel_->global_store_bytes += multiplier_ * op->value.type().bytes();
            }
        }
        IRVisitor::visit(op);
    }

    void visit(const Load *op) override {
        if (kernel_ && !kernel_allocations_.count(op->name)) {
            std::ostringstream key;
            key << op->name << "[" << op->index << "]";
            pending_loads_[key.str()] = op->type.bytes();
        }
        IRVisitor::visit(op);
    }

    // Loads of one straight-line body, each distinct address once.
    void flush_loads() {
        if (kernel_) {
            for (const auto &[key, bytes] : pending_loads_) kernel_->global_load_bytes += multiplier_ * bytes;
        }
        pending_loads_.clear();
    }

    std::map<std::string, Expr> lets_;
    std::vector<ActiveLoop> loops_;
    const std::set<std::string> &funcs_;
    LoweredCounts &out_;
    LoweredKernel *kernel_ = nullptr;
    double multiplier_ = 1;
    std::set<std::string> kernel_allocations_;
    std::set<std::string> counted_thread_loops_;
    std::map<std::string, int> pending_loads_;
};

}  // namespace

std::map<std::string, Expr> values_from_estimates(const FunctionDAG &dag) {
    std::map<std::string, Expr> values;
    for (const auto &node : dag.nodes()) {
        if (!node->is_input() && !node->is_output) continue;
        int64_t stride = 1;
        for (size_t d = 0; d < node->root_region.size(); ++d) {
            const std::string prefix = node->name + ".";
            const Span &span = node->root_region[d];
            values[prefix + "min." + std::to_string(d)] = Expr(int32_t(span.min));
            values[prefix + "extent." + std::to_string(d)] = Expr(int32_t(span.extent));
            values[prefix + "stride." + std::to_string(d)] = Expr(int32_t(stride));
            stride *= std::max<int64_t>(span.extent, 1);
        }
    }
    return values;
}

LoweredCounts count_lowered(const Stmt &stmt, const std::map<std::string, Expr> &values,
                            const std::set<std::string> &funcs) {
    LoweredCounts out;
    Counter counter(values, funcs, out);
    stmt.accept(&counter);
    // Pointers into out.kernels were only held during the walk.
    return out;
}

}  // namespace strata::autoscheduler
