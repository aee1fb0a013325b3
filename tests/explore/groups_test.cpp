// A grouped convolution split by group (explore/products/groups.hpp), without a device: which
// definitions are split, that the split program interprets to the grouped convolution's
// values, that each group takes the dense strategies the grouped convolution whole does not,
// and the split's layers and references.

#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "liftc/codegen/module.hpp"
#include "liftc/constraints/target.hpp"
#include "liftc/explore/candidates/constraint_space.hpp"
#include "liftc/explore/products/groups.hpp"
#include "liftc/interp/interp.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/rewrite/engine.hpp"
#include "liftc/support/half.hpp"
#include "liftc/typecheck/typecheck.hpp"
#include "../readable_name.hpp"
#include "grouped_orders.hpp"
#include "split_examples.hpp"

namespace liftc::explore {
namespace {

using test::example;
using test::rules;

// The values of `p` (sizes bound) on random inputs from seed 11.
interp::Tensors values(const ir::Program& p, const interp::Tensors* inputs = nullptr) {
  ir::Program checked = typecheck::typecheck(ir::bind_sizes(p, {})).program;
  return interp::evaluate(checked, inputs ? *inputs : interp::random_inputs(checked, 11));
}

struct SplitCase {
  const char* file;  // under examples/
  std::string split;  // group_splits_text; empty: nothing split
};
void PrintTo(const SplitCase& c, std::ostream* os) { *os << c.file; }

class GroupSplits : public ::testing::TestWithParam<SplitCase> {};

// What split_groups splits, and the split program's value of each definition the program
// has is the program's, value for value (each sum adds the same products in the same order).
TEST_P(GroupSplits, SplitsTheGroupedConvolutionsAndInterpretsAsTheProgram) {
  const SplitCase& c = GetParam();
  ir::Program program = example(c.file);
  GroupedProgram split = split_groups(program, rules());
  EXPECT_EQ(group_splits_text(split), c.split);
  if (split.splits.empty()) return;
  ir::Program checked = typecheck::typecheck(ir::bind_sizes(program, {})).program;
  interp::Tensors inputs = interp::random_inputs(checked, 11);
  interp::Tensors want = values(program, &inputs), got = values(split.program, &inputs);
  // Read through by its readers, the concatenation is no definition; the others' values are the same.
  interp::Tensors through = split.read_through.defs.empty() ? got : values(split.read_through, &inputs);
  for (const auto& def : program.defs) {
    if (std::none_of(split.splits.begin(), split.splits.end(), [&](const GroupSplit& s) { return s.definition == def.name; }) ||
        split.read_through.defs.empty()) {
      ASSERT_TRUE(through.count(def.name)) << def.name;
      EXPECT_EQ(through.at(def.name).f32, want.at(def.name).f32) << def.name;
    }
    ASSERT_TRUE(got.count(def.name)) << def.name;
    EXPECT_FALSE(got.at(def.name).f32.empty()) << def.name;
    EXPECT_EQ(got.at(def.name).shape, want.at(def.name).shape) << def.name;
    EXPECT_EQ(got.at(def.name).f32, want.at(def.name).f32) << def.name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Groups, GroupSplits,
    ::testing::Values(
        SplitCase{"conv/forms/grouped.sr", "conv into 2 groups (conv_g0, conv_g1) of 2 channels each"},
        SplitCase{"conv/grouped/resnext_3x3.sr",
                  "conv into 4 groups (conv_g0, conv_g1, conv_g2, conv_g3) of 8 channels each"},
        SplitCase{"networks/resnext_block.sr",
                  "grouped into 4 groups (grouped_g0, grouped_g1, grouped_g2, grouped_g3) of 8 channels each"},
        // Written as a map over its groups' convolutions: each group's windows the group's of
        // each pixel's groups' windows (a view), the output rearranged as written.
        SplitCase{"conv/forms/grouped_per_group.sr", "conv into 2 groups (conv_g0, conv_g1) of 2 channels each"},
        // A grouped 1x1 convolution written per pixel, split(N, px) (grouped-pointwise-windows-joined).
        SplitCase{"conv/forms/grouped_pointwise.sr", "conv into 2 groups (conv_g0, conv_g1) of 4 channels each"},
        // Its channels taken by slide(N, N, px) (grouped-channels-slide-as-split), or zipped
        // first (grouped-channels-last).
        SplitCase{"conv/forms/grouped_pointwise_slide.sr", "conv into 2 groups (conv_g0, conv_g1) of 4 channels each"},
        SplitCase{"conv/forms/grouped_pointwise_channels_first.sr",
                  "conv into 2 groups (conv_g0, conv_g1) of 4 channels each"},
        // Each group's outputs joined inside the map over the groups, the window zipped first
        // (a third writer's form): join-of-joined-results-triples moves the join out.
        SplitCase{"conv/forms/grouped_joined_per_group.sr", "conv into 2 groups (conv_g0, conv_g1) of 4 channels each"},
        // Written channel-first, each group a dense CHW convolution written kernel by kernel
        // (a third writer's form): kernels-outermost in each group, groups-kernels-outermost
        // moves the transposes back to kernel-first out of the map over the groups, and
        // groups-channel-first makes it grouped_per_group.sr's form.
        SplitCase{"conv/forms/grouped_chw_kernel_by_kernel.sr",
                  "conv into 2 groups (conv_g0, conv_g1) of 4 channels each"},
        // The same with each kernel's rows of scalars joined (a generality check's form):
        // rows-joined-out-of-groups and join-of-groups-joined-rows move the joins out of the
        // grouped convolution, a layout step after it, then as grouped_chw_kernel_by_kernel.sr.
        SplitCase{"conv/forms/grouped_chw_rows_joined.sr", "conv into 2 groups (conv_g0, conv_g1) of 4 channels each"},
        // The image's pixels split into the groups' channels before the windows (a fifth
        // writer's form): split-pixels-into-windows moves the split into each window.
        SplitCase{"conv/forms/grouped_split_image.sr", "conv into 2 groups (conv_g0, conv_g1) of 4 channels each"},
        // Written per group, each group padding its own channels and joining its pairs'
        // results, the output joined per pixel (a generality check's form):
        // groups-channel-first, then group-results-joined-twice.
        SplitCase{"conv/forms/grouped_per_group_joined.sr", "conv into 2 groups (conv_g0, conv_g1) of 4 channels each"},
        // Each window's pixels split into the groups' channels and its rows transposed in one
        // map (a generality check's form): window-split-before-transposes.
        SplitCase{"conv/forms/grouped_window_split.sr", "conv into 2 groups (conv_g0, conv_g1) of 4 channels each"},
        // Without biases, a map over (group window, group kernels) pairs (a generality check's
        // form): zero-bias per group, then group-zero-biases.
        SplitCase{"conv/forms/grouped_no_bias.sr", "conv into 2 groups (conv_g0, conv_g1) of 4 channels each"},
        // A grouped 1x1 without biases, HWC over (group channels, group kernels) pairs and
        // channel-first per group (gen30's forms): grouped-pointwise-zero-biases-activation,
        // grouped-planes-zero-biases.
        SplitCase{"conv/forms/grouped_pointwise_no_bias.sr",
                  "conv into 2 groups (conv_g0, conv_g1) of 4 channels each"},
        SplitCase{"conv/forms/grouped_pointwise_chw_no_bias.sr",
                  "conv into 2 groups (conv_g0, conv_g1) of 4 channels each"},
        // The same split pixels slid without padding (split-pixels-into-windows-unpadded).
        SplitCase{"conv/forms/grouped_split_image_unpadded.sr",
                  "conv into 2 groups (conv_g0, conv_g1) of 4 channels each"},
        // g2's residual add (unit) goes into each of its groups' epilogues too.
        SplitCase{"networks/shufflenet_unit.sr",
                  "g1 into 2 groups (g1_g0, g1_g1) of 4 channels each; g2 into 2 groups (g2_g0, g2_g1) of 4 channels "
                  "each; unit fused into each of g2's groups (unit_g0, unit_g1), over their channels"},
        SplitCase{"networks/grouped_residual.sr",
                  "conv into 2 groups (conv_g0, conv_g1) of 2 channels each; block fused into each of conv's groups "
                  "(block_g0, block_g1), over their channels"},
        // Not grouped: a dense convolution, a depthwise one, a network of dense ones.
        SplitCase{"conv/conv_small.sr", ""}, SplitCase{"conv/forms/depthwise.sr", ""},
        SplitCase{"conv/forms/depthwise_chw.sr", ""}, SplitCase{"conv/forms/relu_max_0x.sr", ""},
        SplitCase{"networks/resnet_block.sr", ""}, SplitCase{"networks/mobilenet_v2_block.sr", ""}),
    [](const auto& info) { return testing::readable_name(info.index, {info.param.file}); });

// A grouped convolution whose map over its groups zips their kernels, biases and window
// channels in each order (grouped_orders.hpp): normal-form's group-biases-second,
// group-biases-second-from-last and group-kernels-first bring each to grouped.sr's
// (kernels, biases, windows).
class GroupZipOrders : public ::testing::TestWithParam<std::string> {};

// Every order of the zip is split into the groups' dense convolutions, and the split program
// interprets to the grouped convolution's values, value for value.
TEST_P(GroupZipOrders, EveryOrderIsSplitAndInterpretsAsTheProgram) {
  ir::Program program =
      parse::parse_program(std::make_shared<const SourceFile>(SourceFile{"grouped.sr", test::grouped_in_order(GetParam())}));
  GroupedProgram split = split_groups(program, rules());
  EXPECT_EQ(group_splits_text(split), "gconv into 2 groups (gconv_g0, gconv_g1) of 4 channels each");
  if (split.splits.empty()) return;
  ir::Program checked = typecheck::typecheck(ir::bind_sizes(program, {})).program;
  interp::Tensors inputs = interp::random_inputs(checked, 11);
  interp::Tensors want = values(program, &inputs), got = values(split.program, &inputs);
  ASSERT_TRUE(got.count("gconv"));
  EXPECT_EQ(got.at("gconv").shape, want.at("gconv").shape);
  EXPECT_EQ(got.at("gconv").f32, want.at("gconv").f32);
}

INSTANTIATE_TEST_SUITE_P(Groups, GroupZipOrders, ::testing::ValuesIn(test::kGroupZipOrders),
                         [](const auto& info) { return info.param; });

// Every example: split_groups splits the grouped convolutions and nothing else, and takes
// every program (low-level ones, stencils, networks) without an error.
TEST(GroupSplits, OnlyTheGroupedExamplesAreSplit) {
  const std::set<std::string> grouped = {"conv/forms/grouped.sr",
                                         "conv/forms/grouped_per_group.sr",
                                         "conv/forms/grouped_pointwise.sr",
                                         "conv/forms/grouped_pointwise_slide.sr",
                                         "conv/forms/grouped_pointwise_channels_first.sr",
                                         "conv/forms/grouped_joined_per_group.sr",
                                         "conv/forms/grouped_chw_kernel_by_kernel.sr",
                                         "conv/forms/grouped_chw_rows_joined.sr",
                                         "conv/forms/grouped_split_image.sr",
                                         "conv/forms/grouped_split_image_unpadded.sr",
                                         "conv/forms/grouped_per_group_joined.sr",
                                         "conv/forms/grouped_window_split.sr",
                                         "conv/forms/grouped_no_bias.sr",
                                         "conv/forms/grouped_pointwise_no_bias.sr",
                                         "conv/forms/grouped_pointwise_chw_no_bias.sr",
                                         "conv/grouped/resnext_3x3.sr",
                                         "networks/resnext_block.sr",
                                         "networks/shufflenet_unit.sr",
                                         "networks/grouped_residual.sr"};
  // split_groups always reads the rules (a group is found in the normal form): asked with them only.
  test::ExamplesSplit split = test::examples_split(
      [](const ir::Program& p, const rewrite::RuleSet* r) { return r && !split_groups(p, *r).splits.empty(); });
  EXPECT_EQ(split.with_rules, grouped);
  EXPECT_GE(split.programs, 80);
}

// A 2D map over pixels (not windows) whose function joins a map over the groups that
// normal-form does not read as grouped.sr's form (a grouped 1x1 convolution per pixel whose
// kernels are [1][N] blocks, not the N-vectors grouped-pointwise-windows reads): left whole,
// without an error (the pixel, an array of scalars, has no rows: grouped_form stopped with an
// internal error, kind() of an empty type, where it looked for them).
TEST(GroupSplits, APerPixelMapOverGroupsInNoKnownFormIsLeftWhole) {
  const std::string text = R"(size H = 4, W = 4, C = 8, N = 4
input image : [[[float]C]W]H
input ws : [[[[float]N]1]N]2
input bs : [[float]N]2
def g = map2D(px -> join(map(t -> map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(t.2, join(w))), zip(t.0, t.1)),
                             zip(ws, bs, split(N, px)))), image)
)";
  ir::Program program = parse::parse_program(std::make_shared<const SourceFile>(SourceFile{"t.sr", text}));
  GroupedProgram split = split_groups(program, rules());
  EXPECT_TRUE(split.splits.empty());
  EXPECT_EQ(group_splits_text(split), "");
}

// Each group of a grouped convolution is a dense convolution: the register tile, GEMM, the
// omega partial sums, the kernel-minor copy, local-memory tiles, conv-local and Winograd take
// it, which the grouped convolution whole refuses. Written per group (grouped_per_group.sr,
// grouped_chw_kernel_by_kernel.sr), a group's windows are the k-th of each pixel's groups'
// windows, which normal-form reads as the group's channels slid (one-group-windows), slide2D's
// windows: so the slide tiling takes the groups too, which the whole refuses (its windows are
// each group's). Before, those groups were refused all but the first four, while the whole
// was told that its groups took them (a generality check, issue 38).
struct GroupStrategiesCase {
  const char* file;
  std::vector<const char*> strategies;
};
void PrintTo(const GroupStrategiesCase& c, std::ostream* os) { *os << c.file; }

class GroupStrategies : public ::testing::TestWithParam<GroupStrategiesCase> {};

// What a grouped convolution written per group refuses whole and its groups take.
const std::vector<const char*> kPerGroupStrategies = {
    "conv-parametric", "conv-tiled", "conv-local", "conv-chw-m0", "conv-chw-tile", "conv-chw-tile-m0",
    "conv-chw-tile-local", "conv-chw-tile-split", "conv-chw-omega", "conv-chw-omega-m0", "conv-chw-omega-kappa",
    "conv-gemm", "conv-winograd", "conv-winograd-gemm", "conv-winograd-local"};

TEST_P(GroupStrategies, EachGroupTakesTheDenseStrategiesTheGroupedConvolutionRefuses) {
  ir::Program program = example(GetParam().file);
  std::vector<Layer> layers = split_layers(program);
  ASSERT_EQ(add_group_split_layers(split_groups(program, rules()), layers).size(), 1u);
  ASSERT_EQ(layers.size(), 4u);
  for (const char* s : GetParam().strategies) {
    SCOPED_TRACE(s);
    EXPECT_THROW(rewrite::rewrite_program(rules(), s, layers[0].program), Error);
    for (std::size_t g : {1u, 2u}) {
      rewrite::ProgramRewrite r = rewrite::rewrite_program(rules(), s, layers[g].program);
      EXPECT_FALSE(r.programs.empty()) << layers[g].name;
      EXPECT_TRUE(r.unchanged.empty()) << layers[g].name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Groups, GroupStrategies,
    ::testing::Values(GroupStrategiesCase{"conv/forms/grouped.sr",
                                          {"conv-chw-tile", "conv-chw-tile-m0", "conv-chw-tile-local",
                                           "conv-chw-tile-split", "conv-chw-omega", "conv-chw-omega-kappa", "conv-gemm",
                                           "conv-winograd", "conv-winograd-gemm", "conv-local"}},
                      GroupStrategiesCase{"conv/forms/grouped_per_group.sr", kPerGroupStrategies},
                      GroupStrategiesCase{"conv/forms/grouped_chw_kernel_by_kernel.sr", kPerGroupStrategies},
                      GroupStrategiesCase{"conv/forms/grouped_chw_rows_joined.sr", kPerGroupStrategies}),
    [](const auto& info) { return testing::readable_name(info.index, {info.param.file}); });

// The variant of the split: the groups' layers and their concatenation appended, each marked
// as a part of the grouped convolution; the network's other layers are those as written.
TEST(GroupSplits, TheSplitIsAVariantOfItsOwnLayers) {
  ir::Program grouped = example("conv/forms/grouped.sr");
  std::vector<Layer> layers = split_layers(grouped);
  std::vector<NetworkVariant> v = add_group_split_layers(split_groups(grouped, rules()), layers);
  ASSERT_EQ(v.size(), 1u);  // no definition reads the concatenation: no variant reading through it
  EXPECT_EQ(v[0].layers, (std::vector<std::size_t>{1, 2, 3}));
  ASSERT_EQ(layers.size(), 4u);
  EXPECT_TRUE(written_layer(layers[0]));
  for (std::size_t i : {1u, 2u, 3u}) {
    EXPECT_FALSE(written_layer(layers[i])) << i;
    EXPECT_EQ(layers[i].group_of, "conv") << i;
  }
  // The groups differ only in the channels, kernels and biases they crop: explored once.
  EXPECT_EQ(layers[1].same_as, 1u);
  EXPECT_EQ(layers[2].same_as, 1u);
  EXPECT_EQ(layers[3].same_as, 3u);
  EXPECT_EQ(layer_title(layers[1]), "conv_g0");
  EXPECT_EQ(layer_title(layers[3]), "conv (its groups joined)");
  EXPECT_EQ(layers[1].reads, (std::vector<std::string>{"weights", "biases", "image"}));
  EXPECT_EQ(layers[3].reads, (std::vector<std::string>{"conv_g0", "conv_g1"}));

  // In a network the layers before and after the grouped one are those as written.
  ir::Program block = example("networks/resnext_block.sr");
  std::vector<Layer> net = split_layers(block);
  std::vector<NetworkVariant> w = add_group_split_layers(split_groups(block, rules()), net);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].layers, (std::vector<std::size_t>{0, 4, 5, 6, 7, 8, 2, 3}));
  EXPECT_EQ(net[8].reads, (std::vector<std::string>{"grouped_g0", "grouped_g1", "grouped_g2", "grouped_g3"}));
  for (std::size_t i : {5u, 6u, 7u}) EXPECT_EQ(net[i].same_as, 4u) << i;
  // The second reads the groups' outputs where `expanded` read their concatenation: no
  // concatenation layer, and `expanded` took it in.
  EXPECT_EQ(w[1].layers, (std::vector<std::size_t>{0, 4, 5, 6, 7, 9, 3}));
  ASSERT_EQ(net.size(), 10u);
  EXPECT_EQ(layer_title(net[9]), "grouped+expanded");
  EXPECT_EQ(net[9].reads, (std::vector<std::string>{"w3", "b3", "grouped_g0", "grouped_g1", "grouped_g2", "grouped_g3"}));

  std::vector<Layer> dense = split_layers(example("networks/resnet_block.sr"));
  EXPECT_TRUE(add_group_split_layers(split_groups(example("networks/resnet_block.sr"), rules()), dense).empty());
}

// A residual add over a grouped convolution (grouped_residual.sr) split into its groups'
// epilogues: block_g0 is group 0's dense convolution with the image's channels 0..1 added, the
// program of the parts interprets to block's value bit for bit, and its variant explores the
// parts once (fused layers: conv+block_g0) and their concatenation, with no layer for conv.
TEST(GroupSplits, AResidualAddOverTheGroupsIsSplitIntoTheirEpilogues) {
  ir::Program program = example("networks/grouped_residual.sr");
  GroupedProgram split = split_groups(program, rules());
  ASSERT_EQ(split.epilogue_splits.size(), 1u);
  EXPECT_EQ(split.epilogue_splits[0].fused, "conv");
  std::vector<std::string> names;
  for (const auto& d : split.epilogues.defs) names.push_back(d.name);
  EXPECT_EQ(names, (std::vector<std::string>{"block_g0", "block_g1", "block"}));
  ir::Program checked = typecheck::typecheck(ir::bind_sizes(program, {})).program;
  interp::Tensors inputs = interp::random_inputs(checked, 11);
  interp::Tensors want = values(program, &inputs), got = values(split.epilogues, &inputs);
  EXPECT_EQ(got.at("block").shape, want.at("block").shape);
  EXPECT_EQ(got.at("block").f32, want.at("block").f32);

  std::vector<Layer> layers = split_layers(program);
  std::vector<NetworkVariant> v = add_group_split_layers(split, layers);
  ASSERT_EQ(v.size(), 3u);  // the groups and their concatenation, read through by block, the add in the epilogues
  ASSERT_EQ(v[2].layers.size(), 3u);
  const Layer &g0 = layers[v[2].layers[0]], &g1 = layers[v[2].layers[1]], &joined = layers[v[2].layers[2]];
  EXPECT_EQ(layer_title(g0), "conv+block_g0");
  EXPECT_EQ(layer_title(g1), "conv+block_g1");
  EXPECT_EQ(layer_title(joined), "block (its groups joined)");
  EXPECT_EQ(g0.reads, (std::vector<std::string>{"weights", "biases", "image"}));
  EXPECT_EQ(g1.same_as, v[2].layers[0]);
  EXPECT_EQ(joined.reads, (std::vector<std::string>{"block_g0", "block_g1"}));

  // With the convolution whole fused into block too (add_fused_layers: conv+block, reading
  // the convolution's inputs), the variant whose block reads the groups through their
  // concatenation keeps a layer of its own, titled after the groups it reads.
  std::vector<Layer> all = split_layers(program);
  add_fused_layers(program, all, &rules());
  std::vector<NetworkVariant> w = add_group_split_layers(split, all);
  ASSERT_EQ(w.size(), 3u);
  std::vector<std::string> titles;
  for (std::size_t i : w[1].layers) titles.push_back(layer_title(all[i]));
  EXPECT_EQ(titles, (std::vector<std::string>{"conv_g0", "conv_g1", "conv_g0+conv_g1+block"}));
  EXPECT_EQ(all[w[1].layers.back()].reads, (std::vector<std::string>{"conv_g0", "conv_g1", "image"}));

  // A reader that is not one value per value of the convolution is left whole (ResNeXt's
  // `expanded`, a 1x1 convolution over the groups' outputs).
  EXPECT_TRUE(split_groups(example("networks/resnext_block.sr"), rules()).epilogue_splits.empty());
}

// A group explored as the first of its split takes the first's points: its own program
// rewritten by the same strategy, the alternative of the same number, with the same
// parameters in the same order (its kernels' own work-group sizes named after its kernels).
TEST(GroupSplits, AGroupExploredAsAnotherHasItsOwnProgramAndTheSameParameters) {
  ir::Program program = example("conv/forms/grouped.sr");
  std::vector<Layer> layers = split_layers(program);
  add_group_split_layers(split_groups(program, rules()), layers);
  ASSERT_EQ(layers[2].same_as, 1u);
  constraints::Target target = constraints::find_target("mali-g72", constraints::default_targets_dir());
  CandidateSpace first = build_candidate_space(layers[1].program, rules(), {"conv-chw-tile", "conv-gemm"}, true, target);
  ASSERT_FALSE(first.alternatives.empty());
  for (const auto& a : first.alternatives) {
    const constraints::Space& explored = constraint_alternative(*a).space();
    SCOPED_TRACE(fmt::format("{} #{}", explored.strategy, explored.alternative));
    constraints::Space own = group_space(explored, layers[2], rules());
    EXPECT_EQ(own.program.defs.back().name, "conv_g1");
    ASSERT_EQ(own.params.size(), explored.params.size());
    for (std::size_t i = 0; i < own.params.size(); ++i) {
      std::string name = explored.params[i].name;
      if (auto at = name.find("conv_g0"); at != std::string::npos) name.replace(at, 7, "conv_g1");
      EXPECT_EQ(own.params[i].name, name);
      EXPECT_EQ(own.params[i].domain, explored.params[i].domain) << name;
    }
  }
}

// The groups' references are the interpreter's; a split whose concatenation is not the
// grouped convolution's value is refused, naming it.
TEST(GroupSplits, TheGroupsReferencesAreCheckedAgainstTheGroupedConvolution) {
  ir::Program program = example("conv/forms/grouped.sr");
  ir::Program checked = typecheck::typecheck(ir::bind_sizes(program, {})).program;
  Problem p;
  p.file = "grouped.sr";
  p.inputs = interp::random_inputs(checked, 11);
  p.reference = interp::evaluate(checked, p.inputs);
  GroupedProgram split = split_groups(program, rules());
  add_group_references(p, split);
  ASSERT_TRUE(p.reference.count("conv_g0") && p.reference.count("conv_g1"));
  EXPECT_EQ(p.reference.at("conv_g0").f32.size(), 6u * 6u * 2u);

  GroupedProgram swapped = split;  // the groups' outputs concatenated the wrong way round
  std::swap(swapped.program.defs[0].body, swapped.program.defs[1].body);
  try {
    add_group_references(p, swapped);
    ADD_FAILURE() << "a wrong split was taken";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "grouped.sr: the grouped convolution 'conv' split into its 2 groups does not compute its "
                           "value (an internal error: explore it with --whole-program)");
  }
}

// With --storage half, the groups and their concatenation are stored as the network stores
// the grouped convolution, and a reader's epilogue parts as it stores the reader (the
// convolution, which has no buffer there, is no half of theirs): each layer of the split
// reads and writes halves where the network does, and its reference is rounded where they
// are stored. The epilogues' split is checked on floats, where it is exact (the convolution
// the network rounds before the add is not rounded in each group's epilogue).
TEST(GroupSplits, UnderHalfStorageTheGroupsStoreAsTheGroupedConvolution) {
  ir::Program program = example("networks/grouped_residual.sr");
  program.half = codegen::half_buffers(typecheck::typecheck(program).program, codegen::parse_storage("half"));
  GroupedProgram split = split_groups(program, rules());
  ASSERT_EQ(split.splits.size(), 1u);
  ASSERT_EQ(split.epilogue_splits.size(), 1u);
  for (const char* name : {"conv_g0", "conv_g1", "conv", "image", "weights", "biases"})
    EXPECT_TRUE(split.program.half.count(name)) << name;
  EXPECT_TRUE(split.read_through.half.count("conv_g1"));
  EXPECT_TRUE(split.epilogues.half.count("block_g0") && split.epilogues.half.count("block"));
  EXPECT_FALSE(split.epilogues.half.count("conv"));

  std::vector<Layer> layers = split_layers(program);
  std::vector<NetworkVariant> v = add_group_split_layers(split, layers);
  ASSERT_EQ(v.size(), 3u);
  const Layer &group = layers[v[0].layers[0]], &joined = layers[v[0].layers[2]];
  ASSERT_EQ(group.name, "conv_g0");
  EXPECT_EQ(group.program.half, (std::set<std::string>{"weights", "biases", "image", "conv_g0"}));
  ASSERT_EQ(joined.name, "conv");
  EXPECT_EQ(joined.program.half, (std::set<std::string>{"conv_g0", "conv_g1", "conv"}));
  EXPECT_EQ(layers[v[2].layers[0]].program.half, (std::set<std::string>{"weights", "biases", "image", "block_g0"}));

  ir::Program checked = typecheck::typecheck(ir::bind_sizes(program, {})).program;
  Problem p;
  p.file = "grouped_residual.sr";
  p.inputs = interp::random_inputs(checked, 11);
  p.reference = interp::evaluate(checked, p.inputs);
  add_group_references(p, split);
  for (const char* part : {"conv_g0", "conv_g1", "block_g0", "block_g1"}) {
    ASSERT_TRUE(p.reference.count(part)) << part;
    for (float x : p.reference.at(part).f32) ASSERT_EQ(half::round(x), x) << part;  // stored: a half
  }

  // Only the image stored as halves: the groups store floats, as the convolution does.
  ir::Program some = example("networks/grouped_residual.sr");
  some.half = codegen::half_buffers(typecheck::typecheck(some).program, codegen::parse_storage("half=image"));
  GroupedProgram image_only = split_groups(some, rules());
  EXPECT_EQ(image_only.program.half, (std::set<std::string>{"image"}));
  EXPECT_EQ(image_only.epilogues.half, (std::set<std::string>{"image"}));
}

}  // namespace
}  // namespace liftc::explore
