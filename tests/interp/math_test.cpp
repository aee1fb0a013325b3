// The math functions, the infinity literal (issue 11, section 6) and the examples they make
// writable: log-sum-exp and floor-mode max pooling on an odd size, each against a naive
// loop nest.

#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "liftc/ir/printer.hpp"
#include "liftc/parse/parse.hpp"
#include "naive.hpp"
#include "test_util.hpp"

namespace liftc::interp {
namespace {

using namespace testing;
namespace fs = std::filesystem;

const fs::path kExamples = LIFTC_EXAMPLES_DIR;

ir::Program text(const std::string& t) {
  return check(parse::parse_program(std::make_shared<const SourceFile>(SourceFile{"<test>", t})));
}

// Each function applied to a few values, against the same <cmath> function in float.
TEST(InterpMath, UnaryFunctionsOfOpenCL) {
  struct Case {
    const char* name;
    std::function<float(float)> reference;
  };
  const Case cases[] = {
      {"exp", [](float v) { return std::exp(v); }},       {"exp2", [](float v) { return std::exp2(v); }},
      {"log", [](float v) { return std::log(v); }},       {"log2", [](float v) { return std::log2(v); }},
      {"log10", [](float v) { return std::log10(v); }},   {"sqrt", [](float v) { return std::sqrt(v); }},
      {"rsqrt", [](float v) { return 1.0f / std::sqrt(v); }},
      {"sin", [](float v) { return std::sin(v); }},       {"cos", [](float v) { return std::cos(v); }},
      {"tan", [](float v) { return std::tan(v); }},       {"asin", [](float v) { return std::asin(v); }},
      {"acos", [](float v) { return std::acos(v); }},     {"atan", [](float v) { return std::atan(v); }},
      {"sinh", [](float v) { return std::sinh(v); }},     {"cosh", [](float v) { return std::cosh(v); }},
      {"tanh", [](float v) { return std::tanh(v); }},     {"floor", [](float v) { return std::floor(v); }},
      {"ceil", [](float v) { return std::ceil(v); }},     {"round", [](float v) { return std::round(v); }},
      {"trunc", [](float v) { return std::trunc(v); }},
  };
  const std::vector<float> values = {0.25f, 0.5f, 0.75f, 0.875f};  // in every function's domain
  for (const auto& c : cases) {
    ir::Program p = text(fmt::format("input x : [float]4\ndef y = map(v -> {}(v), x)\n", c.name));
    Tensors out = evaluate(p, {{"x", tensor({4}, values)}});
    std::vector<double> expected;
    for (float v : values) expected.push_back(c.reference(v));
    expect_close(out.at("y"), {4}, expected, 0.0);
  }
  // Lane by lane on vectors; round's halfway cases go away from zero, as in OpenCL.
  ir::Program p = text("input x : [float]4\ndef y = asScalar(map(v -> floor(v), asVector(4, x)))\n"
                       "def z = asScalar(map(v -> round(v), asVector(4, x)))\n");
  Tensors out = evaluate(p, {{"x", tensor({4}, {-1.5f, 1.5f, 2.5f, -2.5f})}});
  expect_close(out.at("y"), {4}, {-2, 1, 2, -3}, 0.0);
  expect_close(out.at("z"), {4}, {-2, 2, 3, -3}, 0.0);
}

// roundHalf: the nearest IEEE half, ties to even, as a float (what a half buffer holds), on
// values whose halves are known: ties, the largest half and past it, subnormal halves.
TEST(InterpMath, RoundHalfIsTheNearestHalf) {
  const std::vector<float> values = {1.0001f,  0.1f,     1.00048828125f, 1.00146484375f,
                                     65519.0f, 65520.0f, 1e-7f,          1.4901161193847656e-08f};
  const std::vector<double> halves = {1.0,
                                      0.0999755859375,
                                      1.0 /* tie to the even 1 */,
                                      1.001953125 /* tie to the even 1 + 2^-9 */,
                                      65504.0,
                                      INFINITY,
                                      1.1920928955078125e-07 /* 2 * 2^-24 */,
                                      0.0 /* 2^-26: a quarter of the least subnormal */};
  ir::Program p = text(
      "input x : [float]8\ndef y = map(v -> roundHalf(v), x)\n"
      "def z = asScalar(map(v -> roundHalf(v), asVector(4, x)))\n");
  Tensors out = evaluate(p, {{"x", tensor({8}, values)}});
  for (const char* name : {"y", "z"}) {
    ASSERT_EQ(out.at(name).f32.size(), halves.size()) << name;
    for (std::size_t i = 0; i < halves.size(); ++i)
      EXPECT_EQ(out.at(name).f32[i], float(halves[i])) << name << " " << i;
  }
}

TEST(InterpMath, InfinityLiterals) {
  ir::Program p = text("input x : [float]3\ndef lo = reduce(-inf, (a, v) -> max(a, v), x)\n"
                       "def hi = reduce(inf, (a, v) -> min(a, v), x)\ndef e = map(v -> exp(-inf) + v, x)\n");
  Tensors out = evaluate(p, {{"x", tensor({3}, {-7.0f, -2.0f, -9.0f})}});
  expect_close(out.at("lo"), {1}, {-2.0}, 0.0);
  expect_close(out.at("hi"), {1}, {-9.0}, 0.0);
  expect_close(out.at("e"), {3}, {-7.0, -2.0, -9.0}, 0.0);
  ir::Program empty_max = text("input x : [float]3\ndef y = map(v -> -inf, x)\n");
  EXPECT_EQ(evaluate(empty_max, {{"x", tensor({3}, {1, 2, 3})}}).at("y").f32[0], -std::numeric_limits<float>::infinity());
}

// inf and -inf print back as themselves and read back to the same program; `inf` is a
// literal, so it cannot name anything.
TEST(InterpMath, InfinityRoundTripsThroughThePrinter) {
  ir::Program p = text("input x : [float]3\ndef y = map(v -> max(v, -inf) + min(v, inf), x)\n");
  std::string printed = ir::to_string(p.defs[0].body);
  EXPECT_EQ(printed, "map(v -> max(v, -inf) + min(v, inf), x)");
  ir::Program again = text("input x : [float]3\ndef y = " + printed + "\n");
  EXPECT_TRUE(ir::alpha_equal(p.defs[0].body, again.defs[0].body));
  EXPECT_THROW(text("input x : [float]3\ndef inf = x\n"), Error);
  EXPECT_THROW(text("input x : [float]3\ndef y = map(inf -> inf, x)\n"), Error);
  ir::Program info = text("input info : [float]3\ndef y = info\n");  // a name that starts with inf
  EXPECT_EQ(ir::to_string(info.defs[0].body), "info");
}

TEST(InterpMath, LogSumExpExample) {
  ir::Program p = check(parse::load_program((kExamples / "logsumexp.sr").string()));
  Tensors in = random_inputs(p, 17);
  const io::Tensor& x = in.at("x");
  double m = -INFINITY, sum = 0.0;
  for (float v : x.f32) m = std::max(m, double(v));
  for (float v : x.f32) sum += std::exp(double(v) - m);
  Tensors out = evaluate(p, in);
  expect_close(out.at("m"), {1}, {m}, 0.0);
  expect_close(out.at("lse"), {1}, {m + std::log(sum)}, 1e-4);
}

TEST(InterpMath, FloorModeMaxPoolingExample) {
  ir::Program p = check(parse::load_program((kExamples / "maxpool_floor.sr").string()));
  auto sizes = ir::size_values(p);
  const int h = static_cast<int>(sizes.at("H")), w = static_cast<int>(sizes.at("W"));
  ASSERT_EQ(h % 2, 1);  // the example is about an odd size
  Tensors in = random_inputs(p, 23);
  const io::Tensor& image = in.at("image");
  std::vector<double> expected;
  for (int i = 0; i + 2 <= h; i += 2)
    for (int j = 0; j + 2 <= w; j += 2) {
      double best = -INFINITY;
      for (int di = 0; di < 2; ++di)
        for (int dj = 0; dj < 2; ++dj) best = std::max(best, double(image.f32[(i + di) * w + j + dj]));
      expected.push_back(best);
    }
  expect_close(evaluate(p, in).at("pooled"), {h / 2, w / 2}, expected, 0.0);
}

}  // namespace
}  // namespace liftc::interp
