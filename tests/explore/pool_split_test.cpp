// A convolution and its pooling written in one definition, split into the convolution and the
// pooling over it (explore/products/pool_split.hpp), without a device: which definitions are
// split, that the split program interprets to the program's values, value for value, and that
// the convolution-pooling fusion offers the two fused back.

#include <cmath>
#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "liftc/explore/products/layers.hpp"
#include "liftc/explore/products/pool_split.hpp"
#include "liftc/explore/products/residual.hpp"
#include "liftc/interp/interp.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/rewrite/engine.hpp"
#include "liftc/rewrite/load.hpp"
#include "liftc/typecheck/typecheck.hpp"
#include "../readable_name.hpp"
#include "split_examples.hpp"

namespace liftc::explore {
namespace {

using test::example;
using test::rules;

ir::Program parsed(const std::string& text) {
  return parse::parse_program(std::make_shared<const SourceFile>(SourceFile{"pool.sr", text}));
}

interp::Tensors values(const ir::Program& p, const interp::Tensors& inputs) {
  return interp::evaluate(typecheck::typecheck(ir::bind_sizes(p, {})).program, inputs);
}

const std::string kPooledSplit = "pooled into pooled_conv (the convolution) and pooled (its pooling)";

struct PoolCase {
  const char* file;   // under examples/
  std::string split;  // pool_splits_text with the rules; empty: nothing split
  bool normal_form;   // split in its normal form (not as written)
};
void PrintTo(const PoolCase& c, std::ostream* os) { *os << c.file; }

class PoolSplits : public ::testing::TestWithParam<PoolCase> {};

// What split_poolings splits (with the rules); the split program's value of each definition
// the program has is the program's, bit for bit where it was split as written (the same sums,
// the pooling's reductions in the same order) and within the interpreter's tolerance of a
// reordered sum where it was split in its normal form; the convolution-pooling fusion offers
// the convolution fused back into its pooling; add_pool_split_references takes the split.
TEST_P(PoolSplits, SplitsTheConvolutionOffAndInterpretsAsTheProgram) {
  const PoolCase& c = GetParam();
  ir::Program program = example(c.file);
  PooledProgram split = split_poolings(program, &rules());
  EXPECT_EQ(pool_splits_text(split), c.split);
  if (split.splits.empty()) return;
  for (const auto& s : split.splits) EXPECT_EQ(s.normal_form, c.normal_form) << s.definition;
  // Without the rules only the definitions split as written are.
  EXPECT_EQ(pool_splits_text(split_poolings(program)), c.normal_form ? "" : c.split);
  interp::Tensors inputs = interp::random_inputs(typecheck::typecheck(ir::bind_sizes(program, {})).program, 11);
  interp::Tensors want = values(program, inputs), got = values(split.program, inputs);
  for (const auto& def : program.defs) {
    ASSERT_TRUE(got.count(def.name)) << def.name;
    EXPECT_EQ(got.at(def.name).shape, want.at(def.name).shape) << def.name;
    const std::vector<float>& w = want.at(def.name).f32;
    const std::vector<float>& g = got.at(def.name).f32;
    ASSERT_EQ(g.size(), w.size()) << def.name;
    if (!c.normal_form) EXPECT_EQ(g, w) << def.name;
    for (std::size_t i = 0; i < w.size(); ++i)
      EXPECT_NEAR(g[i], w[i], interp::magnitude_tolerance * (1 + std::fabs(w[i]))) << def.name << " " << i;
  }
  std::vector<Fusion> fusions = conv_pool_fusions(split.program, rules());
  for (const auto& s : split.splits)
    EXPECT_TRUE(std::any_of(fusions.begin(), fusions.end(), [&](const Fusion& f) {
      return f.producer == s.convolution && f.consumer == s.definition && f.kind == FusionKind::ConvPool;
    })) << s.definition;

  Problem problem;
  problem.file = c.file;
  problem.inputs = inputs;
  problem.reference = want;
  add_pool_split_references(problem, split);
  for (const auto& s : split.splits) EXPECT_EQ(problem.reference.at(s.convolution).f32, got.at(s.convolution).f32);
}

INSTANTIATE_TEST_SUITE_P(
    Poolings, PoolSplits,
    ::testing::Values(
        // The pooling's windows of the convolution's output as written: a max pooling of each
        // channel's 2D block, of each channel's values (unjoined, joined, the convolution's
        // pixels joined in the pooling), an average pooling (unjoined; joined per pooled pixel).
        PoolCase{"conv/forms/conv_pool_one_definition.sr", kPooledSplit, false},
        PoolCase{"conv/forms/conv_pool_joined.sr", kPooledSplit, false},
        PoolCase{"conv/fused/conv_pool_unjoined.sr", kPooledSplit, false},
        PoolCase{"conv/fused/conv_pool_unjoined_pixels.sr", kPooledSplit, false},
        PoolCase{"conv/fused/conv_pool_unjoined_mean.sr", kPooledSplit, false},
        PoolCase{"conv/fused/conv_avgpool_joined.sr", kPooledSplit, false},
        // tile2D's tiles of the convolution's output (the bias added after the sums).
        PoolCase{"conv/forms/conv_pool_tile2d.sr", kPooledSplit, false},
        // The convolution a let: split in its normal form (the let inlined, the convolution's
        // outputs computed inside each pooling window).
        PoolCase{"conv/forms/conv_pool_tile2d_let.sr", kPooledSplit, true},
        // Not split: the convolution and the pooling two definitions already (explore fuses
        // them), a convolution alone, a pooling of an input, a residual add.
        PoolCase{"conv/forms/conv_pool.sr", "", false}, PoolCase{"conv/forms/conv_pool_tile2d_layers.sr", "", false},
        PoolCase{"conv/conv_small.sr", "", false}, PoolCase{"maxpool_floor.sr", "", false},
        PoolCase{"conv/forms/conv_residual_one_definition.sr", "", false}, PoolCase{"networks/vgg_block.sr", "", false}),
    [](const auto& info) { return testing::readable_name(info.index, {info.param.file}); });

const std::string kHeader = R"(size C = 2, H = 6, W = 6, M = 4
input weights : [[[[float]C]3]3]M
input biases : [float]M
input image : [[[float]C]W]H
)";

// The convolution's output, joined per pixel.
const std::string kConv =
    "map2D(window -> join(map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(join(join(window)), join(join(w)))), "
    "zip(weights, biases))), slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, image)))";

// A max pooling of each channel over a window.
const std::string kMax = "pw -> join(map(c -> reduce(-inf, (a, v) -> max(a, v), c), transpose(join(pw))))";

// The inputs of a channel-first convolution of 2 channels into 4 on a side x side image, and
// its windows built plane by plane.
std::string chw_header(int side) {
  return fmt::format(R"(size C = 2, H = {0}, W = {0}, M = 4
input weights : [[[[float]3]3]C]M
input biases : [float]M
input image : [[[float]W]H]C
def windows(img) = map(transpose, transpose(map(pl -> slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, pl)), img)))
)",
                     side);
}
const std::string kChwHeader = chw_header(6);

// A kernel's sum over a window with its bias and a ReLU, one value (`conv` of a CHW plane per kernel).
const std::string kChwSum =
    "map(s -> max(s, 0.0), reduce(b, (acc, p) -> acc + p.0 * p.1, zip(join(join(win)), join(join(w)))))";

// The fused form written by hand (normal-form's pool-windows-of-conv's: each pooling window's
// convolution outputs computed inside it) is split as written, the names the split would pick
// (`pooled_conv`, `pw`) taken inside the definition: fresh names, nothing captured. Windows of
// 1 x 1 are no pooling to split off; nor is a pooling window that the pooling reads besides
// the convolution's outputs, nor a function of overlapping windows that reads more than its
// window (a second convolution: the biases here).
TEST(PoolSplits, TheFusedFormIsSplitAndWhatIsNoPoolingIsNot) {
  ir::Program fused = parsed(kHeader + R"(def pooled = map2D(ww -> join(map(c -> reduce(-inf, (a, v) -> max(a, v), c),
    transpose(join(map2D(pooled_conv -> join(map((w, b) -> reduce(b, (acc, pw) -> acc + pw.0 * pw.1,
                                                              zip(join(join(pooled_conv)), join(join(w)))),
                                                   zip(weights, biases))), ww))))),
  slide2D(2, 2, 2, 2, slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, image))))
)");
  PooledProgram split = split_poolings(fused);
  EXPECT_EQ(pool_splits_text(split), "pooled into pooled_conv_1 (the convolution) and pooled (its pooling)");
  ASSERT_EQ(split.program.defs.size(), 2u);
  EXPECT_FALSE(split.splits[0].normal_form);
  interp::Tensors inputs = interp::random_inputs(typecheck::typecheck(ir::bind_sizes(fused, {})).program, 5);
  EXPECT_EQ(values(split.program, inputs).at("pooled").f32, values(fused, inputs).at("pooled").f32);

  for (const std::string& unsplit :
       {fmt::format("def pooled = map2D(pw -> map(t -> t.0 + t.1, zip(join(map(c -> reduce(-inf, (a, v) -> max(a, v), "
                    "c), transpose(join(pw)))), biases)), slide2D(2, 2, 1, 1, {}))\n",
                    kConv),
        fmt::format("def pooled = map2D({}, slide2D(1, 1, 1, 1, {}))\n", kMax, kConv),
        std::string("def pooled = map2D(ww -> map(v -> v.0, zip(join(map2D(win -> reduce(0.0, (a, x) -> a + x, "
                    "join(join(win))), ww)), join(ww))), slide2D(2, 2, 2, 2, slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, image))))\n")}) {
    SCOPED_TRACE(unsplit);
    EXPECT_EQ(pool_splits_text(split_poolings(parsed(kHeader + unsplit), &rules())), "");
  }
}

// A pooling over windows that overlap (3x3 with stride 2, 2x2 with stride 1) or of a crop of
// the convolution's output (floor mode: pad2D with -1 drops the last row and column), channel
// last or channel first (per plane), in one definition: the convolution is split off (each
// output computed once, the pooling reading it as often as its windows hold it; the crop kept
// in the pooling, a view), the same values bit for bit. No fusion takes them back: the
// convolution-pooling fusion needs non-overlapping windows of the convolution's output itself.
TEST(PoolSplits, AnOverlappingOrCroppedPoolingIsSplitAndNotFusedBack) {
  const std::string hwc = R"(size C = 2, H = 7, W = 7, M = 4
input weights : [[[[float]C]3]3]M
input biases : [float]M
input image : [[[float]C]W]H
)";
  const std::string chw = chw_header(7);  const std::string planes = fmt::format(
      "map((w, b) -> map(join, map2D(win -> {}, windows(image))), zip(weights, biases))", kChwSum);
  const std::string plane_max = "map(join, map2D(w -> reduce(-inf, (a, v) -> max(a, v), join(w)), ";
  for (const std::string& program_text :
       {hwc + fmt::format("def pooled = map2D({}, slide2D(3, 3, 2, 2, {}))\n", kMax, kConv),
        hwc + fmt::format("def pooled = map2D({}, slide2D(2, 2, 1, 1, {}))\n", kMax, kConv),
        hwc + fmt::format("def pooled = map2D({}, slide2D(2, 2, 2, 2, pad2D(0, -1, 0, -1, 0.0, {})))\n", kMax, kConv),
        chw + fmt::format("def pooled = map(pl -> {}slide2D(3, 3, 2, 2, pl))), {})\n", plane_max, planes),
        chw + fmt::format("def pooled = map(pl -> {}slide2D(2, 2, 2, 2, pad2D(0, -1, 0, -1, 0.0, pl)))), {})\n",
                          plane_max, planes)}) {
    SCOPED_TRACE(program_text);
    ir::Program program = parsed(program_text);
    PooledProgram split = split_poolings(program, &rules());
    ASSERT_EQ(pool_splits_text(split), kPooledSplit);
    EXPECT_FALSE(split.splits[0].normal_form);
    interp::Tensors inputs = interp::random_inputs(typecheck::typecheck(ir::bind_sizes(program, {})).program, 9);
    EXPECT_EQ(values(split.program, inputs).at("pooled").f32, values(program, inputs).at("pooled").f32);
    EXPECT_TRUE(conv_pool_fusions(split.program, rules()).empty());
  }
}

// A batch of one image, each convolved and pooled in one definition, `map(img -> P(img),
// images)`: split as written, as a map whose function pools the convolution it computes from
// its element (element_pool_parts), bit for bit; its normal form (the pooling of the one
// image under a view that restores the batch, `transpose(split(1, P))`) is split too, the
// view kept on the pooling: the same values within the tolerance of a normal-form split.
TEST(PoolSplits, ABatchOfOneImagePooledInItsConvolutionsDefinitionIsSplit) {
  ir::Program program = parsed(R"(size C = 2, H = 6, W = 6, M = 4, N = 1
input weights : [[[[float]C]3]3]M
input biases : [float]M
input images : [[[[float]C]W]H]N
)" + fmt::format("def pooled = map(img -> map2D({}, slide2D(2, 2, 2, 2, {})), images)\n", kMax,
                 std::string(kConv).replace(kConv.rfind("image"), 5, "img")));
  interp::Tensors inputs = interp::random_inputs(typecheck::typecheck(ir::bind_sizes(program, {})).program, 4);
  const std::vector<float> want = values(program, inputs).at("pooled").f32;
  PooledProgram as_written = split_poolings(program);
  ASSERT_EQ(pool_splits_text(as_written), kPooledSplit);
  EXPECT_FALSE(as_written.splits[0].normal_form);
  EXPECT_EQ(values(as_written.program, inputs).at("pooled").f32, want);
  ir::Program normal = rewrite::rewrite_program(rules(), "normal-form", program, {}).programs.front().program;
  PooledProgram split = split_poolings(normal);
  ASSERT_EQ(pool_splits_text(split), kPooledSplit);
  const std::vector<float> got = values(split.program, inputs).at("pooled").f32;
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], interp::magnitude_tolerance * (1 + std::fabs(want[i]))) << i;
}

// A convolution, a residual add and a ReLU, and a 2x2 max pooling, all in one definition:
// split_poolings splits off what the pooling pools, the convolution and the add over it (not
// the convolution alone, and says so), and split_residuals then splits the convolution off
// that: three layers, which compute the definition's value bit for bit; the references of
// both splits are taken in that order.
TEST(PoolSplits, APoolingOfAResidualAddIsSplitAndTheAddThenToo) {
  const std::string header = R"(size C = 4, H = 6, W = 6
input weights : [[[[float]C]3]3]C
input biases : [float]C
input image : [[[float]C]W]H
)";
  ir::Program program = parsed(header + fmt::format(R"(def pooled = map2D({}, slide2D(2, 2, 2, 2,
  map2D(q -> map(sr -> max(sr.0 + sr.1, 0.0), zip(q.0, q.1)), zip2D({}, image))))
)",
                                                    kMax, kConv));
  PooledProgram pooled = split_poolings(program, &rules());
  EXPECT_EQ(pool_splits_text(pooled),
            "pooled into pooled_conv (the convolution and what follows it) and pooled (its pooling)");
  ASSERT_EQ(pooled.splits.size(), 1u);
  EXPECT_FALSE(pooled.splits[0].convolution_alone);
  ResidualProgram residual = split_residuals(pooled.program, &rules());
  EXPECT_EQ(residual_splits_text(residual),
            "pooled_conv into pooled_conv_conv (the convolution) and pooled_conv (its values combined with image)");
  ASSERT_EQ(residual.program.defs.size(), 3u);
  interp::Tensors inputs = interp::random_inputs(typecheck::typecheck(ir::bind_sizes(program, {})).program, 3);
  interp::Tensors want = values(program, inputs), got = values(residual.program, inputs);
  EXPECT_EQ(got.at("pooled").f32, want.at("pooled").f32);
  Problem problem;
  problem.file = "pool.sr";
  problem.inputs = inputs;
  problem.reference = want;
  add_pool_split_references(problem, pooled);
  add_residual_references(problem, residual);
  EXPECT_EQ(problem.reference.at("pooled_conv").f32, got.at("pooled_conv").f32);
  EXPECT_EQ(problem.reference.at("pooled_conv_conv").f32, got.at("pooled_conv_conv").f32);
}

// A channel-first convolution pooled plane by plane in one definition is split into the
// convolution (its planes as written: kernel by kernel, or the channel-last convolution
// transposed to CHW) and the per-plane pooling over it, however the plane is pooled (a max
// pooling of slide2D's windows of the plane or of its rows joined, an average over tile2D's
// tiles); the convolution a let, in its normal form. The split program computes the
// program's values (bit for bit as written). The two are fused back (conv_pool_fusions: the
// normal form's pool-planes-of-channels-last rules read the pooling of the planes as that of
// the channel-last convolution's tiles, which conv-pool-form reads; before, none was), but
// where the pooling takes windows of each plane's values joined, map(join, pl), which
// conv_pool_fusions does not read. A per-plane pooling of an input, or over windows of one
// value, is not split.
TEST(PoolSplits, AChannelFirstConvolutionPooledPlaneByPlaneIsSplit) {
  const std::string max = "w -> reduce(-inf, (a, v) -> max(a, v), join(w))";
  const std::string planes = fmt::format(
      "map((w, b) -> map(join, map2D(win -> {}, windows(image))), zip(weights, biases))", kChwSum);
  const std::string unjoined_planes =
      fmt::format("map((w, b) -> map2D(win -> {}, windows(image)), zip(weights, biases))", kChwSum);
  const std::string transposed = fmt::format(
      "transpose(map(transpose, map2D(win -> join(map((w, b) -> {}, zip(weights, biases))), windows(image))))",
      kChwSum);
  struct Case {
    std::string body;
    bool normal_form;
    bool fused = true;
  };
  for (const Case& c : {
           Case{fmt::format("map(pl -> map(join, map2D({}, slide2D(2, 2, 2, 2, pl))), {})", max, planes), false},
           Case{fmt::format("map(pl -> map(join, map2D({}, slide2D(2, 2, 2, 2, map(join, pl)))), {})", max,
                            unjoined_planes),
                false, false},
           Case{fmt::format("map(pl -> map(join, map2D({}, slide2D(2, 2, 2, 2, pl))), {})", max, transposed), false},
           Case{fmt::format("map(pl -> map(join, map2D(t -> map(s -> s / 4.0, reduce(0.0, (a, v) -> a + v, "
                            "join(t))), tile2D(2, 2, pl))), {})",
                            planes),
                false},
           Case{fmt::format("let c = {} in map(pl -> map(join, map2D({}, slide2D(2, 2, 2, 2, pl))), c)", planes, max),
                true},
           // Each kernel's plane pooled inside the map over (kernel, bias) pairs, as it is made
           // (element_pool_parts), the windows named by a let or not (found by a generality check).
           Case{fmt::format("map((w, b) -> map(join, map2D({}, slide2D(2, 2, 2, 2, map(join, map2D(win -> {}, "
                            "windows(image)))))), zip(weights, biases))",
                            max, kChwSum),
                false},
           // Its plane's rows joined in the map over the rows (found by a second generality check).
           Case{fmt::format("map((w, b) -> map(join, map2D({}, slide2D(2, 2, 2, 2, map(r -> join(map(win -> {}, r)), "
                            "windows(image))))), zip(weights, biases))",
                            max, kChwSum),
                false},
           Case{
               fmt::format("let ws = windows(image) in map((w, b) -> map(join, map2D({}, slide2D(2, 2, 2, 2, map(join, "
                           "map2D(win -> {}, ws))))), zip(weights, biases))",
                           max, kChwSum),
               false},
       }) {
    SCOPED_TRACE(c.body);
    ir::Program program = parsed(kChwHeader + "def pooled = " + c.body + "\n");
    PooledProgram split = split_poolings(program, &rules());
    ASSERT_EQ(pool_splits_text(split), kPooledSplit);
    EXPECT_EQ(split.splits[0].normal_form, c.normal_form);
    ASSERT_EQ(split.program.defs.size(), 2u);
    interp::Tensors inputs = interp::random_inputs(typecheck::typecheck(ir::bind_sizes(program, {})).program, 7);
    const std::vector<float> want = values(program, inputs).at("pooled").f32;
    const std::vector<float> got = values(split.program, inputs).at("pooled").f32;
    ASSERT_EQ(got.size(), want.size());
    if (!c.normal_form) EXPECT_EQ(got, want);
    for (std::size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(got[i], want[i], interp::magnitude_tolerance * (1 + std::fabs(want[i]))) << i;
    EXPECT_EQ(conv_pool_fusions(split.program, rules()).size(), c.fused ? 1u : 0u);
  }
  for (const std::string& unsplit :
       {fmt::format("map(pl -> map(join, map2D({}, slide2D(2, 2, 2, 2, pl))), image)", max),
        fmt::format("map(pl -> map(join, map2D({}, slide2D(1, 1, 1, 1, pl))), {})", max, planes)}) {
    SCOPED_TRACE(unsplit);
    EXPECT_EQ(pool_splits_text(split_poolings(parsed(kChwHeader + "def pooled = " + unsplit + "\n"), &rules())), "");
  }
}

// Every example: split_poolings takes every program (low-level ones, stencils, networks)
// without an error, and splits only the convolutions pooled in their own definition: as
// written, and with the rules also conv_pool_tile2d_let.sr, whose normal form is one.
TEST(PoolSplits, OnlyTheConvolutionsPooledInTheirOwnDefinitionAreSplit) {
  test::ExamplesSplit split = test::examples_split(
      [](const ir::Program& p, const rewrite::RuleSet* r) { return !split_poolings(p, r).splits.empty(); });
  EXPECT_GE(split.programs, 50);
  const std::string as_written =
      "conv/forms/conv_pool_chw_planes.sr, conv/forms/conv_pool_joined.sr, conv/forms/conv_pool_one_definition.sr, "
      "conv/forms/conv_pool_tile2d.sr, "
      "conv/fused/chw_conv_pool.sr, conv/fused/conv_avgpool_joined.sr, conv/fused/conv_pool_unjoined.sr, "
      "conv/fused/conv_pool_unjoined_mean.sr, conv/fused/conv_pool_unjoined_pixels.sr";
  EXPECT_EQ(fmt::format("{}", fmt::join(split.as_written, ", ")), as_written);
  EXPECT_EQ(fmt::format("{}", fmt::join(split.with_rules, ", ")),
            "conv/forms/conv_pool_chw_planes.sr, conv/forms/conv_pool_joined.sr, "
            "conv/forms/conv_pool_one_definition.sr, conv/forms/conv_pool_tile2d.sr, "
            "conv/forms/conv_pool_tile2d_let.sr, conv/fused/chw_conv_pool.sr, conv/fused/conv_avgpool_joined.sr, "
            "conv/fused/conv_pool_unjoined.sr, conv/fused/conv_pool_unjoined_mean.sr, "
            "conv/fused/conv_pool_unjoined_pixels.sr");
}

}  // namespace
}  // namespace liftc::explore
