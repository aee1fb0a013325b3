// A convolution whose definition adds a residual, split into the convolution and the add
// over it (explore/products/residual.hpp), without a device: which definitions are split,
// and that the split program interprets to the program's values, value for value.

#include <cmath>
#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "liftc/explore/products/layers.hpp"
#include "liftc/explore/products/residual.hpp"
#include "liftc/interp/interp.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/rewrite/load.hpp"
#include "liftc/typecheck/typecheck.hpp"
#include "../readable_name.hpp"
#include "split_examples.hpp"

namespace liftc::explore {
namespace {

using test::example;
using test::rules;

interp::Tensors values(const ir::Program& p, const interp::Tensors& inputs) {
  return interp::evaluate(typecheck::typecheck(ir::bind_sizes(p, {})).program, inputs);
}

struct ResidualCase {
  const char* file;   // under examples/
  std::string split;  // residual_splits_text; empty: nothing split
};
void PrintTo(const ResidualCase& c, std::ostream* os) { *os << c.file; }

class ResidualSplits : public ::testing::TestWithParam<ResidualCase> {};

// What split_residuals splits; the split program's value of each definition the program has
// is the program's, bit for bit (the same sums, the residual added after each as written),
// and the one-to-one fusion offers the convolution fused back into the add.
TEST_P(ResidualSplits, SplitsTheConvolutionOffAndInterpretsAsTheProgram) {
  const ResidualCase& c = GetParam();
  ir::Program program = example(c.file);
  ResidualProgram split = split_residuals(program);
  EXPECT_EQ(residual_splits_text(split), c.split);
  if (split.splits.empty()) return;
  ir::Program checked = typecheck::typecheck(ir::bind_sizes(program, {})).program;
  interp::Tensors inputs = interp::random_inputs(checked, 11);
  interp::Tensors want = values(program, inputs), got = values(split.program, inputs);
  for (const auto& def : program.defs) {
    ASSERT_TRUE(got.count(def.name)) << def.name;
    EXPECT_EQ(got.at(def.name).shape, want.at(def.name).shape) << def.name;
    EXPECT_EQ(got.at(def.name).f32, want.at(def.name).f32) << def.name;
  }
  std::vector<Fusion> fusions = one_to_one_fusions(split.program);
  for (const auto& s : split.splits)
    EXPECT_TRUE(std::any_of(fusions.begin(), fusions.end(), [&](const Fusion& f) {
      return f.producer == s.convolution && f.consumer == s.definition;
    })) << s.definition;

  Problem problem;
  problem.file = c.file;
  problem.inputs = inputs;
  problem.reference = want;
  add_residual_references(problem, split);
  for (const auto& s : split.splits) EXPECT_EQ(problem.reference.at(s.convolution).f32, got.at(s.convolution).f32);
}

INSTANTIATE_TEST_SUITE_P(
    Residuals, ResidualSplits,
    ::testing::Values(
        // The windows zipped with the image, the add (and ReLU) after each kernel's sum.
        ResidualCase{"conv/forms/conv_residual_one_definition.sr",
                     "out into out_conv (the convolution) and out (its values combined with image)"},
        // ReLU before the add: the convolution keeps it.
        ResidualCase{"conv/forms/conv_residual_relu_first.sr",
                     "out into out_conv (the convolution) and out (its values combined with image)"},
        // The convolution's output zipped with the image (explore's one-to-one fusion of conv_skip.sr).
        ResidualCase{"conv/forms/conv_residual_output.sr",
                     "out into out_conv (the convolution) and out (its values combined with image)"},
        // The same with the image zipped first, zip2D(image, conv): the convolution a closed part.
        ResidualCase{"conv/forms/conv_residual_output_image_first.sr",
                     "out into out_conv (the convolution) and out (its values combined with image)"},
        // MobileNetV2's block with every fusion: the depthwise and pointwise layers fused, then the add.
        ResidualCase{"conv/fused/depthwise_pointwise_residual.sr",
                     "block into block_conv (the convolution) and block (its values combined with image)"},
        // Not a residual: a convolution and its ReLU, its bias (a value per channel) and ReLU
        // as a pass, its pooling, an add of its own definition.
        ResidualCase{"conv/conv_small.sr", ""}, ResidualCase{"conv/forms/relu_pass.sr", ""},
        ResidualCase{"conv/forms/bias_relu_pass.sr", ""},
        ResidualCase{"conv/forms/conv_pool_one_definition.sr", ""}, ResidualCase{"conv/forms/conv_skip.sr", ""},
        ResidualCase{"networks/resnet_block.sr", ""}, ResidualCase{"networks/mobilenet_v2_block.sr", ""}),
    [](const auto& info) { return testing::readable_name(info.index, {info.param.file}); });

// The windows and the residual pixels destructured, `(window, r) -> ...`, the names the split
// would pick (`window`, `out_conv`) bound inside the definition: fresh names, nothing captured,
// and the split interprets as the program.
TEST(ResidualSplits, ADestructuredPairAndTakenNamesSplitWithoutCapture) {
  const std::string text = R"(size C = 2, H = 4, W = 4
input weights : [[[[float]C]3]3]C
input biases : [float]C
input image : [[[float]C]W]H
def out = map2D((window, r) -> map(v -> v.0 + v.1,
                                   zip(join(map((out_conv, b) -> reduce(b, (acc, q) -> acc + q.0 * q.1,
                                                                        zip(join(join(window)), join(join(out_conv)))),
                                                zip(weights, biases))),
                                       r)),
                zip2D(slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, image)), image))
)";
  ir::Program program = parse::parse_program(std::make_shared<const SourceFile>(SourceFile{"pair.sr", text}));
  ResidualProgram split = split_residuals(program);
  EXPECT_EQ(residual_splits_text(split), "out into out_conv_1 (the convolution) and out (its values combined with image)");
  ASSERT_EQ(split.program.defs.size(), 2u);
  interp::Tensors inputs = interp::random_inputs(typecheck::typecheck(ir::bind_sizes(program, {})).program, 5);
  EXPECT_EQ(values(split.program, inputs).at("out").f32, values(program, inputs).at("out").f32);
}

// Every example: split_residuals takes every program (low-level ones, stencils, networks)
// without an error, and splits only the convolutions with a residual add in their definition:
// as written, and with the rules, also those whose normal form is such a definition (the image
// zipped first, conv_residual_image_first.sr; the image's value in the sums' start,
// conv_residual_in_start.sr; the value zipped first with the kernels and biases,
// conv_residual_value_first.sr and conv_residual_value_start.sr).
// conv_residual_output_image_first.sr's convolution is a closed
// part of its definition, split as written, and so is conv_residual_gain_chw.sr's (x + g *
// conv(x) over planes, the convolution transposed back to channel-first).
TEST(ResidualSplits, OnlyTheConvolutionsWithAResidualAddAreSplit) {
  test::ExamplesSplit split = test::examples_split(
      [](const ir::Program& p, const rewrite::RuleSet* r) { return !split_residuals(p, r).splits.empty(); });
  EXPECT_GE(split.programs, 50);
  const std::string as_written =
      "conv/forms/conv_residual_gain_chw.sr, conv/forms/conv_residual_one_definition.sr, "
      "conv/forms/conv_residual_output.sr, "
      "conv/forms/conv_residual_output_image_first.sr, conv/forms/conv_residual_relu_first.sr, conv/fused/conv_residual.sr, "
      "conv/fused/depthwise_pointwise_residual.sr, conv/fused/pointwise_residual.sr";
  EXPECT_EQ(fmt::format("{}", fmt::join(split.as_written, ", ")), as_written);
  EXPECT_EQ(
      fmt::format("{}", fmt::join(split.with_rules, ", ")),
      "conv/forms/conv_residual_gain_chw.sr, conv/forms/conv_residual_image_first.sr, "
      "conv/forms/conv_residual_in_start.sr, conv/forms/conv_residual_nested_pairs.sr, "
      "conv/forms/conv_residual_one_definition.sr, "
      "conv/forms/conv_residual_output.sr, "
      "conv/forms/conv_residual_output_image_first.sr, conv/forms/conv_residual_relu_first.sr, "
      "conv/forms/conv_residual_value_first.sr, conv/forms/conv_residual_value_start.sr, conv/fused/conv_residual.sr, "
      "conv/fused/depthwise_pointwise_residual.sr, conv/fused/pointwise_residual.sr");
}

// A residual add written with the image zipped first, or with the image's value in each sum's
// start, is split in its normal form (with the rules; as written it is not): the convolution
// and the add over it. The image first: the split computes the program's values bit for bit
// (an addition's operands swapped); the value in the start: up to the rounding of the
// additions' order ((b + r) + the products before, (b + the products) + r after), which
// add_residual_references allows it and no other split.
TEST(ResidualSplits, AResidualAddWrittenOtherwiseIsSplitInItsNormalForm) {
  struct Case {
    const char* file;
    bool exact;
  };
  for (const Case& c : {Case{"conv/forms/conv_residual_image_first.sr", true}, Case{"conv/forms/conv_residual_in_start.sr", false}}) {
    SCOPED_TRACE(c.file);
    ir::Program program = example(c.file);
    EXPECT_TRUE(split_residuals(program).splits.empty());
    ResidualProgram split = split_residuals(program, &rules());
    EXPECT_EQ(residual_splits_text(split), "out into out_conv (the convolution) and out (its values combined with image)");
    ASSERT_EQ(split.splits.size(), 1u);
    EXPECT_TRUE(split.splits[0].normal_form);
    interp::Tensors inputs = interp::random_inputs(typecheck::typecheck(ir::bind_sizes(program, {})).program, 13);
    std::vector<float> want = values(program, inputs).at("out").f32, got = values(split.program, inputs).at("out").f32;
    ASSERT_EQ(got.size(), want.size());
    if (c.exact) EXPECT_EQ(got, want);
    for (std::size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(got[i], want[i], interp::magnitude_tolerance * (1 + std::fabs(want[i]))) << i;
    Problem problem;
    problem.file = c.file;
    problem.inputs = inputs;
    problem.reference = values(program, inputs);
    add_residual_references(problem, split);  // no error: the split's values are the definition's
    EXPECT_TRUE(problem.reference.count("out_conv"));
  }
}

}  // namespace
}  // namespace liftc::explore
