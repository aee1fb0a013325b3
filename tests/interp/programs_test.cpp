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

// Issue 36, item 1: size arithmetic used as a value is exact (64 bits), as the loop nest's
// int64_t arithmetic, converted to float once; it wrapped at 32 bits (x + float(N * N) was
// x + 0 for N = 65536, and float(N) was 0 for N = 2^32). One row a program: its sizes, the
// value expression added to x, and the loop nest's value of it.
TEST(InterpPrograms, SizeArithmeticAsValuesAgainstLoopNest) {
  struct Case {
    const char* sizes;
    const char* value;
    std::int64_t expected;
  };
  const std::int64_t n16 = 65536, n32 = 4294967296, k = 3;
  const Case cases[] = {
      {"N = 65536", "float(N * N)", n16 * n16},
      {"N = 4294967296", "float(N)", n32},
      {"N = 65536, K = 3", "float(N * N * K - K + 7)", n16 * n16 * k - k + 7},
      {"N = 65536", "float(2 * N * N)", 2 * n16 * n16},
      {"N = 65536", "float(N % 3 + N * 4)", n16 % 3 + n16 * 4},
      {"N = 4294967296, K = 3", "float(N - N + K)", k},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.value);
    ir::Program p = check(parse("sizes.sr", fmt::format("size {}\ninput x : [float]4\ndef out = map(v -> v + {}, x)\n",
                                                        c.sizes, c.value)));
    Tensors in = random_inputs(p, 1);
    Tensors out = evaluate(p, in);
    std::vector<double> expected;
    for (float v : in.at("x").f32) expected.push_back(static_cast<double>(v + static_cast<float>(c.expected)));
    expect_close(out.at("out"), {4}, expected, 0.0);
  }
}

// concat(a, b, ...): a's elements, then b's (issue 38, item 5), against an index loop:
// result[i] = a[i] for i < n, else b[i - n], and so on; symbolic lengths bound by --size.
TEST(InterpPrograms, ConcatAgainstLoopNest) {
  for (auto [n, m, k] : std::vector<std::tuple<int, int, int>>{{1, 1, 1}, {3, 5, 2}, {8, 1, 7}}) {
    SCOPED_TRACE(fmt::format("N={} M={} K={}", n, m, k));
    ir::Program p = check(parse("concat.sr", R"(
size N, M, K
input a : [float]N
input b : [float]M
input c : [float]K
def two = concat(a, b)
def three = map(v -> v * 2.0, concat(a, b, c))
)"),
                          {{"N", n}, {"M", m}, {"K", k}});
    Tensors in = random_inputs(p, 5);
    Tensors out = evaluate(p, in);
    std::vector<double> two, three;
    for (int i = 0; i < n + m; ++i) two.push_back(i < n ? in.at("a").f32[i] : in.at("b").f32[i - n]);
    for (int i = 0; i < n + m + k; ++i) {
      float v = i < n ? in.at("a").f32[i] : i < n + m ? in.at("b").f32[i - n] : in.at("c").f32[i - n - m];
      three.push_back(double(v * 2.0f));
    }
    expect_close(out.at("two"), {n + m}, two, 0.0);
    expect_close(out.at("three"), {n + m + k}, three, 0.0);
  }
}

// U-Net's skip concatenation: per pixel of two HWC images, the channels of the first then
// those of the second; then a reduction over the concatenated channels (a 1x1 convolution of
// one output channel), which reads through the concat.
TEST(InterpPrograms, ChannelConcatPerPixelAgainstLoopNest) {
  const int H = 3, W = 4, C1 = 2, C2 = 3;
  ir::Program p = check(parse("skip.sr", fmt::format(R"(
size H = {}, W = {}, C1 = {}, C2 = {}
input up : [[[float]C1]W]H
input skip : [[[float]C2]W]H
input w : [float](C1 + C2)
def cat = map2D(p -> concat(p.0, p.1), zip2D(up, skip))
def mix = map2D(p -> reduce(0.0, (acc, q) -> acc + q.0 * q.1, zip(concat(p.0, p.1), w)), zip2D(up, skip))
)",
                                                     H, W, C1, C2)));
  Tensors in = random_inputs(p, 6);
  Tensors out = evaluate(p, in);
  std::vector<double> cat, mix;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      double acc = 0;
      for (int c = 0; c < C1 + C2; ++c) {
        float v = c < C1 ? in.at("up").f32[(y * W + x) * C1 + c] : in.at("skip").f32[(y * W + x) * C2 + c - C1];
        cat.push_back(v);
        acc += double(v) * double(in.at("w").f32[c]);
      }
      mix.push_back(acc);
    }
  expect_close(out.at("cat"), {H, W, C1 + C2}, cat, 0.0);
  expect_close(out.at("mix"), {H, W, 1}, mix, 1e-5);
}

// Nearest upsampling by 2 (the prelude's upsample and upsample2D): out[y][x] = in[y/2][x/2],
// on a 1D array and an HWC image.
TEST(InterpPrograms, NearestUpsamplingAgainstLoopNest) {
  const int N = 5, H = 3, W = 2, C = 3;
  ir::Program p = check(parse("up.sr", fmt::format(R"(
size N = {}, H = {}, W = {}, C = {}
input xs : [float]N
input image : [[[float]C]W]H
def up1 = upsample(xs)
def up2 = upsample2D(image)
)",
                                                   N, H, W, C)));
  Tensors in = random_inputs(p, 7);
  Tensors out = evaluate(p, in);
  std::vector<double> up1, up2;
  for (int i = 0; i < 2 * N; ++i) up1.push_back(in.at("xs").f32[i / 2]);
  for (int y = 0; y < 2 * H; ++y)
    for (int x = 0; x < 2 * W; ++x)
      for (int c = 0; c < C; ++c) up2.push_back(in.at("image").f32[((y / 2) * W + x / 2) * C + c]);
  expect_close(out.at("up1"), {2 * N}, up1, 0.0);
  expect_close(out.at("up2"), {2 * H, 2 * W, C}, up2, 0.0);
}

// Where a size value is an int (not the operand of float(...)), one that does not fit in 32
// bits is refused once the sizes are bound, at the size expression.
TEST(InterpPrograms, SizeValuesThatDoNotFitAnIntAreRefused) {
  const char* const values[] = {"float(N * N / 2)", "float(N * N + i)", "float(let n = N * N in n)"};
  for (const char* value : values) {
    SCOPED_TRACE(value);
    ir::Program p = parse("sizes.sr", fmt::format("size N = 65536\ninput x : [float]4\ninput i : int\n"
                                                  "def out = map(v -> v + {}, x)\n", value));
    try {
      check(p);
      FAIL() << "expected an error";
    } catch (const Error& e) {
      EXPECT_EQ(e.message(), "the size value 4294967296 does not fit in an int (32 bits): a size used as a value is an "
                             "int, except in float(...), which converts its exact value; write float(...) around the "
                             "size expression alone");
    }
  }
}

}  // namespace
}  // namespace liftc::interp
