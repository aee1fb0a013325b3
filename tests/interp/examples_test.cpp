// The programs of examples/ against the independent loop nests: every high-level
// convolution (its stride and padding read from the file's "Shape: ..." comment), the
// reduced VGG-16 layer, the stencil, matmul, and the hand-written low-level partial
// convolution (the paper's Listing 4), which must equal both the loop nest and the
// high-level convolution of the same shape.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "liftc/parse/parse.hpp"
#include "naive.hpp"
#include "test_util.hpp"

namespace liftc::interp {
namespace {

using namespace testing;
namespace fs = std::filesystem;

const fs::path kExamples = LIFTC_EXAMPLES_DIR;

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The shape of a convolution example: sizes from the checked program, padding and stride
// from its "Shape: ... padding P, stride S." comment.
ConvShape conv_shape(const fs::path& file, const ir::Program& checked) {
  std::smatch m;
  std::string text = read_text(file);
  static const std::regex shape_comment(R"(padding (\d+), stride (\d+))");
  EXPECT_TRUE(std::regex_search(text, m, shape_comment)) << file << " has no 'padding P, stride S' comment";
  auto sizes = ir::size_values(checked);
  auto size = [&](const char* n) { return static_cast<int>(sizes.at(n)); };
  return {size("H"), size("W"), size("C"), size("M"), size("K"), m.empty() ? 1 : std::stoi(m[2]),
          m.empty() ? 0 : std::stoi(m[1])};
}

void expect_conv_matches_loop_nest(const fs::path& file) {
  SCOPED_TRACE(file.string());
  ir::Program p = check(parse::load_program(file.string()));
  ConvShape s = conv_shape(file, p);
  Tensors in = random_inputs(p, 11);
  Tensors out = evaluate(p, in);
  std::vector<double> expected = naive_conv(s, in.at("image"), in.at("weights"), in.at("biases"));
  if (read_text(file).find("a ReLU after") != std::string::npos)
    for (double& v : expected) v = std::max(v, 0.0);
  expect_close(out.at("conv"), {s.out_h(), s.out_w(), s.M, 1}, expected, 1e-5 * (s.K * s.K * s.C + 1));
}

TEST(InterpExamples, Convolutions) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(kExamples / "conv")) {
    if (entry.path().extension() != ".sr") continue;
    expect_conv_matches_loop_nest(entry.path());
    ++count;
  }
  EXPECT_GE(count, 1);
}

TEST(InterpExamples, ReducedVggLayer) { expect_conv_matches_loop_nest(kExamples / "vgg16" / "conv_reduced.sr"); }

TEST(InterpExamples, Stencil) {
  ir::Program p = check(parse::load_program((kExamples / "stencil2d.sr").string()));
  auto sizes = ir::size_values(p);
  int n = static_cast<int>(sizes.at("N")), m = static_cast<int>(sizes.at("M"));
  Tensors in = random_inputs(p, 5);
  std::vector<double> expected = naive_stencil_sum(n, m, in.at("grid"));
  for (double& v : expected) v /= 9.0;
  expect_close(evaluate(p, in).at("stencil"), {n, m}, expected, 1e-5);
}

TEST(InterpExamples, Matmul) {
  ir::Program p = check(parse::load_program((kExamples / "matmul.sr").string()));
  auto sizes = ir::size_values(p);
  int rows = static_cast<int>(sizes.at("M")), inner = static_cast<int>(sizes.at("K")), cols = static_cast<int>(sizes.at("N"));
  Tensors in = random_inputs(p, 6);
  expect_close(evaluate(p, in).at("matmul"), {rows, cols}, naive_matmul(rows, inner, cols, in.at("A"), in.at("B")),
               1e-5 * (inner + 1));
}

// Listing 4 by hand: the same values as the loop nest and as the high-level program of
// the same shape (conv_partial_shape.sr), on the same inputs.
TEST(InterpExamples, LowLevelPartialConvolution) {
  ir::Program low = check(parse::load_program((kExamples / "lowlevel" / "partial_conv.sr").string()));
  ir::Program high = check(parse::load_program((kExamples / "conv" / "conv_partial_shape.sr").string()));
  ConvShape s = conv_shape(kExamples / "conv" / "conv_partial_shape.sr", high);
  Tensors in = random_inputs(high, 12);
  Tensors low_out = evaluate(low, in);
  Tensors high_out = evaluate(high, in);
  std::vector<std::int64_t> shape = {s.out_h(), s.out_w(), s.M, 1};
  expect_close(low_out.at("conv"), shape, naive_conv(s, in.at("image"), in.at("weights"), in.at("biases")),
               1e-5 * (s.K * s.K * s.C + 1));
  const io::Tensor& h = high_out.at("conv");
  expect_close(low_out.at("conv"), h.shape, std::vector<double>(h.f32.begin(), h.f32.end()), 1e-5 * (s.K * s.K * s.C + 1));
}

}  // namespace
}  // namespace liftc::interp
