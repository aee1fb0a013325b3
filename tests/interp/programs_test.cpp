// Whole programs written in .sr text against independent C++ loop nests on random inputs:
// the paper's Listing 3 convolution (several shapes, strides 1 and 2, paddings 0..2,
// K = 1, 3, 5, with bias), the Listing 1 stencil, and matrix multiplication.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "liftc/parse/parse.hpp"
#include "naive.hpp"
#include "test_util.hpp"

namespace liftc::interp {
namespace {

using namespace testing;

ir::Program parse(const std::string& name, const std::string& text) {
  return parse::parse_program(std::make_shared<SourceFile>(SourceFile{name, text}));
}

// DESIGN.md's Listing 3 convolution with the stride and padding as parameters.
std::string conv_text(const ConvShape& s) {
  return fmt::format(R"(
size C = {}, H = {}, W = {}, M = {}, K = {}
input weights : [[[[float]C]K]K]M
input biases  : [float]M
input image   : [[[float]C]W]H
def conv = map2D(window ->
             map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1,
                                  zip(join(join(window)), join(join(w)))),
                 zip(weights, biases)),
             slide2D(K, K, {}, {}, pad2D({}, {}, {}, {}, 0.0, image)))
)",
                     s.C, s.H, s.W, s.M, s.K, s.stride, s.stride, s.pad, s.pad, s.pad, s.pad);
}

TEST(InterpPrograms, ConvolutionAgainstLoopNest) {
  const std::vector<ConvShape> shapes = {
      // H, W, C, M, K, stride, pad
      {5, 6, 3, 2, 1, 1, 0},  {7, 5, 2, 3, 1, 2, 0},  {8, 7, 4, 3, 3, 1, 1}, {9, 7, 3, 4, 3, 2, 1},
      {9, 11, 2, 3, 3, 2, 0}, {5, 4, 3, 2, 3, 1, 2},  {6, 6, 3, 5, 5, 1, 2}, {9, 7, 2, 3, 5, 2, 2},
      {7, 8, 2, 2, 5, 1, 0},  {12, 10, 16, 8, 3, 1, 1},
  };
  for (const ConvShape& s : shapes) {
    SCOPED_TRACE(fmt::format("H={} W={} C={} M={} K={} stride={} pad={}", s.H, s.W, s.C, s.M, s.K, s.stride, s.pad));
    ir::Program p = check(parse("conv.sr", conv_text(s)));
    for (std::uint64_t seed : {1u, 2u}) {
      Tensors in = random_inputs(p, seed);
      Tensors out = evaluate(p, in);
      std::vector<double> expected = naive_conv(s, in.at("image"), in.at("weights"), in.at("biases"));
      expect_close(out.at("conv"), {s.out_h(), s.out_w(), s.M, 1}, expected, 1e-5 * (s.K * s.K * s.C + 1));
    }
  }
}

// Inside a function, a subterm that reads only inputs and earlier definitions (a map of an
// input, a reduction of a definition) is evaluated once, before the definition (compile.cpp,
// hoist_invariants); the values are those of the loop nest, next to subterms that read the
// function's parameter and a let of one.
TEST(InterpPrograms, SubtermsOfFunctionsThatReadOnlyInputsAgainstLoopNest) {
  ir::Program p = check(parse("invariant.sr", R"(
size N = 5, M = 4
input a : [[float]M]N
input v : [float]M
def s = map(x -> x + 1.0, v)
def out = map(row -> let w = map(x -> x + 1.0, row) in
                     join(map(t -> map(q -> q.0 * q.1 + t, zip(w, map(y -> y * 2.0, v))),
                              reduce(0.0, (acc, y) -> acc + y, s))), a)
)"));
  for (std::uint64_t seed : {1u, 2u}) {
    Tensors in = random_inputs(p, seed);
    Tensors out = evaluate(p, in);
    const std::vector<float>& a = in.at("a").f32;
    const std::vector<float>& v = in.at("v").f32;
    double sum_s = 0;
    for (float x : v) sum_s += x + 1.0;
    std::vector<double> expected;
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 4; ++j) expected.push_back((a[i * 4 + j] + 1.0) * (v[j] * 2.0) + sum_s);
    expect_close(out.at("out"), {5, 4}, expected, 1e-5);
  }
}

TEST(InterpPrograms, StencilAgainstLoopNest) {
  for (auto [n, m] : std::vector<std::pair<int, int>>{{1, 1}, {3, 2}, {5, 7}, {16, 9}}) {
    SCOPED_TRACE(fmt::format("N={} M={}", n, m));
    ir::Program p = check(parse("stencil.sr", fmt::format(R"(
size N = {}, M = {}
input grid : [[float]M]N
def stencil = map2D(nbh -> reduce(0.0, (acc, x) -> acc + x, join(nbh)),
                    slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, grid)))
)",
                                                          n, m)));
    Tensors in = random_inputs(p, 3);
    expect_close(evaluate(p, in).at("stencil"), {n, m, 1}, naive_stencil_sum(n, m, in.at("grid")), 1e-5);
  }
}

TEST(InterpPrograms, MatmulAgainstLoopNest) {
  for (auto [rows, inner, cols] : std::vector<std::tuple<int, int, int>>{{1, 1, 1}, {4, 5, 3}, {17, 13, 9}}) {
    SCOPED_TRACE(fmt::format("M={} K={} N={}", rows, inner, cols));
    ir::Program p = check(parse("matmul.sr", fmt::format(R"(
size M = {}, K = {}, N = {}
input A : [[float]K]M
input B : [[float]N]K
def matmul = map(row -> join(map(col -> reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(row, col)),
                                 transpose(B))),
                 A)
)",
                                                         rows, inner, cols)));
    Tensors in = random_inputs(p, 4);
    expect_close(evaluate(p, in).at("matmul"), {rows, cols}, naive_matmul(rows, inner, cols, in.at("A"), in.at("B")),
                 1e-5 * (inner + 1));
  }
}

}  // namespace
}  // namespace liftc::interp
