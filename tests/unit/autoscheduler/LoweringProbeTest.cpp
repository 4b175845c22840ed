// Tests for LoweringProbe (lowering a schedule to learn whether Halide takes
// it) and for Schedule's leave_kernel, with which the autoscheduler repairs a
// schedule Halide rejects.
#include "FunctionDAG.h"
#include "LoweringProbe.h"
#include "Schedule.h"
#include "SchedulingTestSupport.h"

#include "strata/costmodel/GpuSpec.h"

#include <doctest/doctest.h>

using namespace strata::autoscheduler;
using Halide::Func;
using Halide::ImageParam;
using Halide::Var;

namespace {

// in → clamped → blur → out: `blur` per thread of `out` reads a clamped
// (boundary-condition) Func, so its per-thread region has no size Halide can
// prove constant.
struct ClampedBlur {
    ImageParam in{Halide::Float(32), 1, "in"};
    Func clamped{"clamped"}, blur{"blur"}, out{"out"};
    Var x{"x"}, xo{"xo"}, xi{"xi"};
    ClampedBlur() {
        clamped(x) = in(Halide::clamp(x, 0, in.dim(0).extent() - 1));
        blur(x) = clamped(x - 1) + clamped(x + 1);
        out(x) = blur(x / 3) * 2.0f;
        in.set_estimates({{0, 1024}});
        out.set_estimates({{0, 3072}});
    }
};

}  // namespace

TEST_CASE("a schedule Halide lowers gives no error; the probe leaves the caller's passes alone") {
    ClampedBlur p;
    p.out.split(p.x, p.xo, p.xi, 64).gpu_blocks(p.xo).gpu_threads(p.xi);
    p.blur.compute_at(p.out, p.xi);
    Halide::Pipeline pipeline(p.out);
    CHECK_FALSE(lowering_error({p.out}, strata::testing::cuda_target()).has_value());
    CHECK(pipeline.custom_lowering_passes().empty());
    // The pipeline still compiles as usual afterwards.
    CHECK_NOTHROW(pipeline.compile_to_module({p.in}, "after_probe", strata::testing::cuda_target()));
}

TEST_CASE("a storage bound short of what bounds inference requires is Halide's error, naming the Func") {
    ClampedBlur p;
    p.out.split(p.x, p.xo, p.xi, 64, Halide::TailStrategy::GuardWithIf).gpu_blocks(p.xo).gpu_threads(p.xi);
    // Each thread's blur needs two points of clamped (x/3 - 1 and x/3 + 1).
    p.clamped.compute_at(p.out, p.xi).bound_storage(p.x, 1).store_in(Halide::MemoryType::Register);
    const std::optional<std::string> error = lowering_error({p.out}, strata::testing::cuda_target());
    REQUIRE(error.has_value());
    CHECK(funcs_named_in(*error, {p.blur.name(), p.clamped.name(), p.out.name()}) ==
          std::set<std::string>{p.clamped.name()});
}

TEST_CASE("a storage bound Halide cannot prove inside a kernel is reported, naming the Func") {
    // Per block of `out`, clamped covers about a third of the block plus
    // the clamp at the border: enough room, but not provably (the clamp).
    ClampedBlur p;
    p.out.split(p.x, p.xo, p.xi, 64, Halide::TailStrategy::GuardWithIf).gpu_blocks(p.xo).gpu_threads(p.xi);
    Var cx("cx"), ct("ct");
    p.clamped.compute_at(p.out, p.xo).bound_storage(p.x, 40).store_in(Halide::MemoryType::GPUShared);
    p.clamped.split(p.x, cx, ct, 32, Halide::TailStrategy::GuardWithIf).gpu_threads(ct);
    const std::optional<std::string> error = lowering_error({p.out}, strata::testing::cuda_target());
    REQUIRE(error.has_value());
    CHECK(error->find("inside GPU kernels") != std::string::npos);
    CHECK(funcs_named_in(*error, {p.blur.name(), p.clamped.name(), p.out.name()}) ==
          std::set<std::string>{p.clamped.name()});
}

// level4 reads level5 at x / 2 and x / 2 + 1 (an upsample), level5 reads
// level6 the same way, and the output reads level4 through two more:
// interpolate's pyramid, in small. level6 is per block of level4, whose
// tiles are shifted inwards at the last one, so they start at any residue
// of the output's min over 4: level6's rows per 4-row tile are 3, or 4
// where the tile starts at a row 3 modulo 4.
struct Pyramid {
    ImageParam in{Halide::Float(32), 2, "in"};
    Func level6{"level6"}, level5{"level5"}, level4{"level4"}, level3{"level3"}, out{"out"};
    Var x{"x"}, y{"y"}, xb{"xb"}, xi{"xi"}, yb{"yb"}, yi{"yi"}, cx{"cx"}, cy{"cy"}, tx{"tx"}, ty{"ty"};
    static Halide::Expr halved(const Func &f, const Halide::Expr &x, const Halide::Expr &y) {
        return f(x / 2, y / 2) + f(x / 2 + 1, y / 2 + 1);
    }
    explicit Pyramid(int rows_bound) {
        level6(x, y) = in(x, y) * 2.0f;
        level5(x, y) = halved(level6, x, y);
        level4(x, y) = halved(level5, x, y);
        level3(x, y) = halved(level4, x, y);
        out(x, y) = halved(level3, x, y);
        in.set_estimates({{0, 256}, {0, 256}});
        out.set_estimates({{0, 4000}, {0, 4000}});
        out.split(x, xb, xi, 32).split(y, yb, yi, 4).reorder(xi, yi, xb, yb).gpu_blocks(xb, yb).gpu_threads(xi, yi);
        level4.compute_root()
            .split(x, xb, xi, 32, Halide::TailStrategy::ShiftInwards)
            .split(y, yb, yi, 4, Halide::TailStrategy::ShiftInwards)
            .reorder(xi, yi, xb, yb)
            .gpu_blocks(xb, yb)
            .gpu_threads(xi, yi);
        level6.compute_at(level4, xb)
            .bound_storage(x, 11)
            .bound_storage(y, rows_bound)
            .store_in(Halide::MemoryType::GPUShared)
            .split(x, cx, tx, 32, Halide::TailStrategy::GuardWithIf)
            .split(y, cy, ty, 4, Halide::TailStrategy::GuardWithIf)
            .gpu_threads(tx, ty);
    }
};

TEST_CASE("a storage bound Halide cannot prove but that holds at every tile position is accepted") {
    // 4 rows cover every tile; Halide leaves the check in the kernel, and
    // the probe proves it by the tile's residue. 3 rows fall short where
    // the tile starts at a row 3 modulo 4.
    Pyramid holds(4), short_by_one(3);
    const std::optional<std::string> accepted = lowering_error({holds.out}, strata::testing::cuda_target());
    CHECK_MESSAGE(!accepted.has_value(), accepted.value_or(""));
    const std::optional<std::string> rejected = lowering_error({short_by_one.out}, strata::testing::cuda_target());
    REQUIRE(rejected.has_value());
    CHECK(funcs_named_in(*rejected, {short_by_one.level6.name(), short_by_one.level4.name()}) ==
          std::set<std::string>{short_by_one.level6.name()});
}

namespace {

// A lowering pass that counts the storage checks left in the code it sees.
class StorageChecksCounted : public Halide::Internal::IRMutator {
public:
    explicit StorageChecksCounted(int &count) : count_(count) {}
    using IRMutator::mutate;
    Halide::Internal::Stmt mutate(const Halide::Internal::Stmt &s) override {
        struct Counter : Halide::Internal::IRVisitor {
            int count = 0;
            using IRVisitor::visit;
            void visit(const Halide::Internal::AssertStmt *op) override {
                const auto *call = op->message.as<Halide::Internal::Call>();
                if (call && call->name == "halide_error_storage_bound_too_small") ++count;
                IRVisitor::visit(op);
            }
        } counter;
        s.accept(&counter);
        count_ = counter.count;
        return s;
    }

private:
    int &count_;
};

int storage_checks_compiled(Halide::Pipeline pipeline, bool drop_proven) {
    int count = 0;
    if (drop_proven) drop_proven_storage_checks(pipeline);
    pipeline.add_custom_lowering_pass(new StorageChecksCounted(count));
    pipeline.compile_to_module(pipeline.infer_arguments(), "counted", strata::testing::cuda_target());
    return count;
}

}  // namespace

TEST_CASE("the storage checks the probe proves are taken out of the compiled kernels, no others") {
    // Halide leaves two checks per level6 (its rows and its columns).
    CHECK(storage_checks_compiled(Halide::Pipeline(Pyramid(4).out), false) == 2);
    CHECK(storage_checks_compiled(Halide::Pipeline(Pyramid(4).out), true) == 0);
    // Three rows fall short: that check stays (the columns' goes).
    CHECK(storage_checks_compiled(Halide::Pipeline(Pyramid(3).out), true) == 1);
}

TEST_CASE("the probe lowers a CUDA target as OpenCL, with the same verdicts, unless a user kept a schedule") {
    const Halide::Target cuda = strata::testing::cuda_target();
    ClampedBlur any;
    const Halide::Target stand_in = probe_target(cuda, {any.out}, /*user_schedules=*/false);
    CHECK(stand_in.has_feature(Halide::Target::OpenCL));
    CHECK_FALSE(stand_in.has_feature(Halide::Target::CUDA));
    CHECK_FALSE(stand_in.has_feature(Halide::Target::CUDACapability80));
    CHECK(stand_in.os == cuda.os);
    CHECK(stand_in.arch == cuda.arch);
    CHECK(probe_target(cuda, {any.out}, /*user_schedules=*/true) == cuda);
    const Halide::Target opencl("host-opencl");
    CHECK(probe_target(opencl, {any.out}, false) == opencl);
    // The three verdicts above: none, Halide's error, a bound left to a
    // check inside a kernel; each the same for the stand-in.
    for (int verdict = 0; verdict < 3; ++verdict) {
        INFO("verdict " << verdict);
        ClampedBlur p;
        p.out.split(p.x, p.xo, p.xi, 64, Halide::TailStrategy::GuardWithIf).gpu_blocks(p.xo).gpu_threads(p.xi);
        if (verdict == 0) p.blur.compute_at(p.out, p.xi);
        if (verdict == 1) p.clamped.compute_at(p.out, p.xi).bound_storage(p.x, 1).store_in(Halide::MemoryType::Register);
        if (verdict == 2) {
            Var cx("cx"), ct("ct");
            p.clamped.compute_at(p.out, p.xo).bound_storage(p.x, 40).store_in(Halide::MemoryType::GPUShared);
            p.clamped.split(p.x, cx, ct, 32, Halide::TailStrategy::GuardWithIf).gpu_threads(ct);
        }
        const std::optional<std::string> on_cuda = lowering_error({p.out}, cuda);
        const std::optional<std::string> on_stand_in = lowering_error({p.out}, stand_in);
        CHECK(on_cuda.has_value() == (verdict > 0));
        CHECK(on_stand_in.has_value() == on_cuda.has_value());
        const std::set<std::string> funcs{p.blur.name(), p.clamped.name(), p.out.name()};
        if (on_cuda && on_stand_in) CHECK(funcs_named_in(*on_stand_in, funcs) == funcs_named_in(*on_cuda, funcs));
    }
}

TEST_CASE("a pipeline with an extern stage on the CUDA API is probed for CUDA itself") {
    // Halide refuses to lower an extern stage whose device API the target
    // lacks: the OpenCL stand-in would reject every schedule of it.
    for (const Halide::DeviceAPI api : {Halide::DeviceAPI::Host, Halide::DeviceAPI::CUDA}) {
        INFO("extern on " << int(api));
        ImageParam in(Halide::Float(32), 1, "in");
        Func pre("pre"), ext("ext"), out("out");
        Var x("x"), xo("xo"), xi("xi");
        pre(x) = in(x) + 1;
        ext.define_extern("strata_test_extern", {pre}, Halide::Float(32), 1, Halide::NameMangling::Default, api);
        out(x) = ext(x) * 2;
        pre.compute_root();
        ext.compute_root();
        out.split(x, xo, xi, 64).gpu_blocks(xo).gpu_threads(xi);
        const Halide::Target cuda = strata::testing::cuda_target();
        const Halide::Target probe_for = probe_target(cuda, {out}, false);
        CHECK(probe_for.has_feature(Halide::Target::CUDA) == (api == Halide::DeviceAPI::CUDA));
        const std::optional<std::string> error = lowering_error({out}, probe_for);
        CHECK_MESSAGE(!error.has_value(), error.value_or(""));
    }
}

TEST_CASE("funcs_named_in matches whole names, loop names and tuple buffers, not longer names") {
    const std::set<std::string> funcs = {"f", "g", "blur"};
    CHECK(funcs_named_in("Loop over f.s0.y has extent (x + 1)", funcs) == std::set<std::string>{"f"});
    CHECK(funcs_named_in("realization f_x and blur_y", funcs).empty());
    CHECK(funcs_named_in("function g.1 is smaller", funcs) == std::set<std::string>{"g"});
    CHECK(funcs_named_in("blur", funcs) == std::set<std::string>{"blur"});
}

TEST_CASE("leave_kernel takes a member out with the members that fed it, and leaves the others") {
    // in → a → b → out, c → out: a and b per thread of out, c per block.
    ImageParam in(Halide::Float(32), 2, "in");
    Func a("a"), b("b"), c("c"), out("out");
    Var x("x"), y("y");
    a(x, y) = in(x, y) * 2.0f;
    b(x, y) = a(x, y) + a(x + 1, y);
    c(x, y) = in(x, y) - 1.0f;
    out(x, y) = b(x, y) + c(x, y + 1);
    in.set_estimates({{0, 513}, {0, 513}});
    out.set_estimates({{0, 512}, {0, 512}});
    FunctionDAG dag({out});
    const strata::costmodel::GpuSpec spec = strata::costmodel::GpuSpec::default_spec();
    // Halide renames Funcs made twice in one process: look them up by their real names.
    auto id = [&](const Func &f) { return dag.node(f.name())->id; };
    Schedule s(dag);
    s.set(id(out), default_choice(*dag.node(out.name()), spec));
    s.set(id(b), FuncChoice::at(Placement::Thread, id(out), 0));
    s.set(id(a), FuncChoice::at(Placement::Thread, id(out), 0));
    s.set(id(c), FuncChoice::at(Placement::Block, id(out), 0));

    leave_kernel(s, id(b), spec);
    CHECK(s.choice(id(b)).placement != Placement::Thread);
    CHECK(s.choice(id(a)).placement != Placement::Thread);
    CHECK(s.choice(id(c)).placement == Placement::Block);
}
