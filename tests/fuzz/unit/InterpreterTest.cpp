// Small descriptions whose values are known by hand: the interpreter is the
// reference, so its semantics (Halide's) are pinned down here.
#include "strata/fuzz/DescriptionJson.h"
#include "strata/fuzz/Interpreter.h"

#include <doctest/doctest.h>

using namespace strata::fuzz;

namespace {

Description with_stages(std::vector<Stage> stages) {
    Description d;
    d.stages = std::move(stages);
    d.outputs = {int(d.stages.size()) - 1};
    infer(d);
    return d;
}

Stage input(const std::string &name, ScalarType type, Shape shape) { return {name, InputOp{type, shape, {}}, {}, {}}; }

Tensor tensor(ScalarType type, Shape shape, std::vector<double> values) {
    Tensor t(type, std::move(shape));
    for (size_t i = 0; i < values.size(); ++i) t[int64_t(i)] = values[i];
    return t;
}

std::vector<double> values_of(const Tensor &t) {
    std::vector<double> v;
    for (int64_t i = 0; i < t.size(); ++i) v.push_back(t[i]);
    return v;
}

std::vector<double> run_1d(const Op &op, ScalarType type, std::vector<double> in) {
    const Description d = with_stages({input("in", type, {int64_t(in.size())}), {"out", op, {}, {}}});
    return values_of(evaluate(d, {{"in", tensor(type, {int64_t(in.size())}, in)}})[1][0]);
}

}  // namespace

TEST_CASE("boundary conditions map coordinates the way Halide's do") {
    const std::vector<double> in = {10, 11, 12};
    auto pad = [&](BoundaryKind kind) { return run_1d(BoundaryOp{0, kind, {4}, {4}, -1}, ScalarType::Float32, in); };
    // Coordinates -4 .. 6 of the input.
    CHECK(pad(BoundaryKind::RepeatEdge) == std::vector<double>{10, 10, 10, 10, 10, 11, 12, 12, 12, 12, 12});
    CHECK(pad(BoundaryKind::ConstantExterior) == std::vector<double>{-1, -1, -1, -1, 10, 11, 12, -1, -1, -1, -1});
    CHECK(pad(BoundaryKind::RepeatImage) == std::vector<double>{12, 10, 11, 12, 10, 11, 12, 10, 11, 12, 10});
    CHECK(pad(BoundaryKind::MirrorImage) == std::vector<double>{12, 12, 11, 10, 10, 11, 12, 12, 11, 10, 10});
    CHECK(pad(BoundaryKind::MirrorInterior) == std::vector<double>{10, 11, 12, 11, 10, 11, 12, 11, 10, 11, 12});
}

TEST_CASE("integer arithmetic wraps, divides and takes moduli as Halide does") {
    const Expr x = operand(0, 0, ScalarType::UInt8);
    auto pointwise = [](Expr e) { return PointwiseOp{{{0, {0}}}, {std::move(e)}}; };
    CHECK(run_1d(pointwise(binary(BinaryOp::Add, x, constant(ScalarType::UInt8, 200))), ScalarType::UInt8, {100}) ==
          std::vector<double>{44});
    CHECK(run_1d(pointwise(binary(BinaryOp::Sub, x, constant(ScalarType::UInt8, 3))), ScalarType::UInt8, {1}) ==
          std::vector<double>{254});
    const Expr i = operand(0, 0, ScalarType::Int32);
    CHECK(run_1d(pointwise(binary(BinaryOp::Div, i, constant(ScalarType::Int32, 2))), ScalarType::Int32, {-7, 7}) ==
          std::vector<double>{-4, 3});
    CHECK(run_1d(pointwise(binary(BinaryOp::Mod, i, constant(ScalarType::Int32, 3))), ScalarType::Int32, {-7, 7}) ==
          std::vector<double>{2, 1});
    CHECK(run_1d(pointwise(binary(BinaryOp::ShiftRight, i, constant(ScalarType::Int32, 1))), ScalarType::Int32, {-3}) ==
          std::vector<double>{-2});
    CHECK(run_1d(pointwise(cast(ScalarType::UInt8, i)), ScalarType::Int32, {-1, 256, 300}) ==
          std::vector<double>{255, 0, 44});
    CHECK_THROWS_AS(run_1d(pointwise(binary(BinaryOp::Mul, i, i)), ScalarType::Int32, {70000}), UndefinedArithmetic);
}

TEST_CASE("float32 arithmetic rounds to single precision") {
    const Expr x = operand(0, 0, ScalarType::Float32);
    const auto out = run_1d(PointwiseOp{{{0, {0}}}, {binary(BinaryOp::Add, x, constant(ScalarType::Float32, 1e-8))}},
                            ScalarType::Float32, {1.0});
    CHECK(out[0] == 1.0);
}

TEST_CASE("reductions, scans, histograms and argmax") {
    CHECK(run_1d(ReduceOp{0, {0}, ReduceKind::Sum, ScalarType::Int32, false}, ScalarType::UInt8, {200, 100, 1}) ==
          std::vector<double>{301});
    CHECK(run_1d(ReduceOp{0, {0}, ReduceKind::Mean, ScalarType::Int32, true}, ScalarType::UInt8, {1, 2, 4}) ==
          std::vector<double>{2});
    CHECK(run_1d(ScanOp{0, 0, ScanKind::PrefixSum, 0, false, ScalarType::Int32}, ScalarType::Int32, {1, 2, 3}) ==
          std::vector<double>{1, 3, 6});
    CHECK(run_1d(ScanOp{0, 0, ScanKind::PrefixSum, 0, true, ScalarType::Int32}, ScalarType::Int32, {1, 2, 3}) ==
          std::vector<double>{6, 5, 3});
    CHECK(run_1d(HistogramOp{0, std::nullopt, 3}, ScalarType::Int32, {-1, 0, 4, 5, 7}) == std::vector<double>{1, 2, 2});

    const Description d =
        with_stages({input("in", ScalarType::Int32, {5}), {"arg", ArgReduceOp{0, {0}, true}, {}, {}}});
    const auto values = evaluate(d, {{"in", tensor(ScalarType::Int32, {5}, {3, 9, 1, 9, 2})}});
    CHECK(values_of(values[1][0]) == std::vector<double>{9});
    CHECK(values_of(values[1][1]) == std::vector<double>{1});  // the first of equal maxima
}

TEST_CASE("a gather clamps its index; a stencil shrinks its box") {
    const Description d = with_stages({input("table", ScalarType::Float32, {3}),
                                       input("index", ScalarType::Int32, {4}),
                                       {"g", GatherOp{0, 1, 0}, {}, {}}});
    const auto values = evaluate(d, {{"table", tensor(ScalarType::Float32, {3}, {5, 6, 7})},
                                     {"index", tensor(ScalarType::Int32, {4}, {-5, 1, 2, 9})}});
    CHECK(values_of(values[2][0]) == std::vector<double>{5, 6, 7, 7});
    CHECK(run_1d(StencilOp{0, {0}, {2}, {1, -1}, false}, ScalarType::Int32, {1, 4, 9}) == std::vector<double>{-3, -5});
}

TEST_CASE("inputs must match their description") {
    const Description d = with_stages({input("in", ScalarType::Float32, {2}), {"s", TransposeOp{0, {0}}, {}, {}}});
    CHECK_THROWS_WITH(evaluate(d, {}), doctest::Contains("no values for input 'in'"));
    CHECK_THROWS_WITH(evaluate(d, {{"in", Tensor(ScalarType::Float32, {3})}}), doctest::Contains("float32 [2]"));
}
