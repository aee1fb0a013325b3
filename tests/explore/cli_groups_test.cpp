// `liftc explore` and `liftc space` on a grouped convolution: besides the convolution whole,
// its groups as dense convolutions (explore/products/groups.hpp), which the dense strategies
// take; their points validate, and a front point's host program validates every layer.
// Small sizes, few evaluations: a CI test on PoCL.

#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "explore_cli.hpp"
#include "grouped_orders.hpp"

namespace liftc::explore::test {
namespace {

namespace fs = std::filesystem;

const std::string kGrouped = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/forms/grouped.sr";

// conv-chw-tile and conv-gemm, which grouped.sr whole does not take, run on its two groups
// (explored once: the second takes the first's points): their points validate against the
// interpreter, and the network front's point runs the groups' kernels and the
// concatenation, every layer matching its expected values.
TEST_F(ExploreCli, AGroupedConvolutionGetsTheDenseStrategiesPerGroupAndValidates) {
  Result r = run(fmt::format("explore {} -s conv-chw-tile -s conv-gemm --search random --pareto --evals 4 --jobs 2 -o out",
                             kGrouped));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(
      r.output,
      {"program: 1 layer, explored with its own space and reference (4 evaluations): conv\n",
       "grouped convolution split by group, explored as an alternative (each group a dense convolution over its "
       "channels of the image, which every dense strategy takes; their outputs joined per pixel): conv into 2 groups "
       "(conv_g0, conv_g1) of 2 channels each",
       "layer 1/1 (conv): not offered: conv-chw-tile, conv-gemm do not apply to the grouped convolution whole (its "
       "groups, dense convolutions, take them)",
       "group layer (conv_g0, a group of conv): 4 alternative(s) of 2 strategies (conv-chw-tile, conv-gemm)",
       "group layer (conv_g1, a group of conv): the shape of group layer (conv_g0, a group of conv): explored once, "
       "its results taken",
       "group layer (conv: its groups' outputs joined): 1 alternative(s) of 1 strategy (id)", "network Pareto front"});
  // conv_g1 takes conv_g0's points (the same program but the channels it crops), its code
  // rewritten for its own channels: the host program validates it.
  std::string csv = read(dir_ / "out/evaluated.csv");
  EXPECT_TRUE(layer_validated_by(csv, "conv_g0", "conv-chw-tile") || layer_validated_by(csv, "conv_g0", "conv-gemm"))
      << csv;
  EXPECT_TRUE(fs::exists(dir_ / "out/expected/conv_g1.npy"));

  Result host = run_front_point(*this, "grouped");
  ASSERT_EQ(host.exit_code, 0) << host.output;
  expect_layers_match(host.output, {"conv_g0", "conv_g1", "conv"});

  // Its store's rows are its layers': deployed from its folder, not from the store.
  Result deploy = run("deploy --db out/results.db --run 1 -o deployed");
  EXPECT_EQ(deploy.exit_code, 1) << deploy.output;
  std::string file = fs::absolute(kGrouped).lexically_normal().string();
  EXPECT_NE(deploy.output.find(fmt::format("error: out/results.db: run 1 explored {} layer by layer: deploy its front "
                                           "from the folder its exploration wrote (liftc explore {} --pareto -o DIR, "
                                           "then liftc deploy DIR)",
                                           file, file)),
            std::string::npos)
      << deploy.output;
  EXPECT_FALSE(fs::exists(dir_ / "deployed"));
}

// Written as a map over its groups (grouped_per_group.sr), each group's windows a view of
// each pixel's groups' windows: the groups take conv-chw-tile and conv-gemm too, and the
// front point's host program validates every layer.
TEST_F(ExploreCli, AGroupedConvolutionWrittenPerGroupGetsTheDenseStrategiesPerGroup) {
  const std::string file = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/forms/grouped_per_group.sr";
  Result r = run(fmt::format("explore {} -s conv-chw-tile -s conv-gemm --search random --evals 3 --jobs 2 -o out", file));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("conv into 2 groups (conv_g0, conv_g1) of 2 channels each"), std::string::npos) << r.output;
  std::string csv = read(dir_ / "out/evaluated.csv");
  EXPECT_TRUE(layer_validated_by(csv, "conv_g0", "conv-chw-tile") || layer_validated_by(csv, "conv_g0", "conv-gemm"))
      << csv;
  Result host = run_front_point(*this, "grouped_per_group");
  ASSERT_EQ(host.exit_code, 0) << host.output;
  expect_layers_match(host.output, {"conv_g0", "conv_g1", "conv"});
}

// A grouped 3x3 convolution of a CHW image written per group, kernel by kernel
// (grouped_chw_kernel_by_kernel.sr, as a generality check wrote it too, issue 38) and an HWC
// one written per group (grouped_per_group.sr), and grouped_chw_kernel_by_kernel.sr with each
// kernel's rows of scalars joined (grouped_chw_rows_joined.sr, whose joins normal-form moves
// out of the grouped convolution): the convolution whole is not offered the local
// tiles or Winograd, its groups are (normal-form reads a group's windows, the k-th of each
// pixel's groups' windows, as the group's channels slid: one-group-windows), and their points
// and the front point's host program validate. Before, the whole was told its groups took
// them and every group layer then refused them.
class PerGroupLocalTilesCli : public ExploreCli, public ::testing::WithParamInterface<std::string> {};

TEST_P(PerGroupLocalTilesCli, ItsGroupsTakeTheLocalTilesAndWinograd) {
  const std::string file = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/forms/" + GetParam() + ".sr";
  for (const char* strategy : {"conv-winograd-local", "conv-chw-tile-local"}) {
    SCOPED_TRACE(strategy);
    fs::remove_all(dir_ / "out");
    Result r = run(fmt::format("explore {} -s {} --search random --evals 2 --jobs 2 -o out", file, strategy));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(fmt::format("not offered: {} does not apply to the grouped convolution whole (its groups, "
                                        "dense convolutions, take it)",
                                        strategy)),
              std::string::npos)
        << r.output;
    EXPECT_EQ(r.output.find("applies nowhere"), std::string::npos) << r.output;
    EXPECT_TRUE(layer_validated_by(read(dir_ / "out/evaluated.csv"), "conv_g0", strategy))
        << read(dir_ / "out/evaluated.csv");
  }
  Result host = run_front_point(*this, GetParam());
  ASSERT_EQ(host.exit_code, 0) << host.output;
  expect_layers_match(host.output, {"conv_g0", "conv_g1", "conv"});
}

INSTANTIATE_TEST_SUITE_P(Groups, PerGroupLocalTilesCli,
                         ::testing::Values("grouped_chw_kernel_by_kernel", "grouped_per_group", "grouped_chw_rows_joined"),
                         [](const auto& info) { return info.param; });

// A grouped 1x1 convolution (grouped_pointwise.sr): neither the whole nor its groups take
// Winograd (3x3 windows only), and the line about the whole says so rather than that its
// groups take it (before, it did, and the group layer's refusal then contradicted it); of
// the strategies named, those the groups take are said to be theirs.
TEST_F(ExploreCli, AStrategyNeitherTheGroupedConvolutionNorItsGroupsTakeIsSaidSo) {
  const std::string file = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/forms/grouped_pointwise.sr";
  Result r = run(fmt::format("explore {} -s conv-winograd -s conv-chw-tile --search random --evals 2 --jobs 2 -o out", file));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  expect_all_in(r.output, {"layer 1/1 (conv): not offered: conv-chw-tile does not apply to the grouped convolution whole "
                           "(its groups, dense convolutions, take it)",
                           "layer 1/1 (conv): not offered: conv-winograd does not apply to the grouped convolution "
                           "whole, nor to its groups (dense convolutions: the group layer's reason is given for it)",
                           "error: strategy `conv-winograd` applies to no layer of",
                           "(layer 'conv_g0': strategy `conv-winograd` does not apply to any definition of",
                           "which needs a convolution over 3x3 windows with stride 1"});
  EXPECT_EQ(r.output.find("conv-winograd, conv-chw-tile do not apply"), std::string::npos) << r.output;
}

// A grouped 1x1 convolution written per pixel whose channels are taken with slide(N, N, px)
// (grouped_pointwise_slide.sr) or zipped first (grouped_pointwise_channels_first.sr), a
// second writer's forms, a grouped 3x3 convolution whose groups' outputs are joined inside
// the map over the groups (grouped_joined_per_group.sr, a third writer's) and one of a CHW
// image split into groups of planes, each group written kernel by kernel
// (grouped_chw_kernel_by_kernel.sr, a third writer's), and one whose image's pixels are split
// into the groups' channels before the windows (grouped_split_image.sr, a fifth writer's; and
// grouped_split_image_unpadded.sr, its windows slid without padding), and one written per group
// whose groups join their results (grouped_per_group_joined.sr, a generality check's form;
// group-results-joined-twice): split by group
// (normal-form's grouped-channels-*, join-of-joined-results-triples, groups-kernels-outermost,
// split-pixels-into-windows and its -unpadded form), its groups take
// conv-chw-tile and conv-gemm, and the front point's host program validates every layer.
class GroupedPointwiseCli : public ExploreCli, public ::testing::WithParamInterface<std::string> {};

TEST_P(GroupedPointwiseCli, IsSplitByGroupAndItsGroupsValidate) {
  const std::string file = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/forms/" + GetParam() + ".sr";
  Result r = run(fmt::format("explore {} -s conv-chw-tile -s conv-gemm --search random --evals 3 --jobs 2 -o out", file));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("conv into 2 groups (conv_g0, conv_g1) of 4 channels each"), std::string::npos) << r.output;
  std::string csv = read(dir_ / "out/evaluated.csv");
  EXPECT_TRUE(layer_validated_by(csv, "conv_g0", "conv-chw-tile") || layer_validated_by(csv, "conv_g0", "conv-gemm"))
      << csv;
  Result host = run_front_point(*this, GetParam());
  ASSERT_EQ(host.exit_code, 0) << host.output;
  expect_layers_match(host.output, {"conv_g0", "conv_g1", "conv"});
}

INSTANTIATE_TEST_SUITE_P(Groups, GroupedPointwiseCli,
                         ::testing::Values("grouped_pointwise_slide", "grouped_pointwise_channels_first",
                                           "grouped_joined_per_group", "grouped_chw_kernel_by_kernel",
                                           "grouped_split_image", "grouped_split_image_unpadded",
                                           "grouped_per_group_joined", "grouped_window_split", "grouped_no_bias",
                                           "grouped_pointwise_no_bias", "grouped_pointwise_chw_no_bias"),
                         [](const auto& info) { return info.param; });

// A grouped convolution whose map over its groups zips the groups' kernels, biases and window
// channels in another order than grouped.sr's (grouped_orders.hpp; bwkt: the triple taken
// whole): split by group all the same (normal-form reorders the zip), its groups take
// conv-gemm, and their points validate.
class GroupZipOrderCli : public ExploreCli, public ::testing::WithParamInterface<std::string> {};

TEST_P(GroupZipOrderCli, EveryOrderIsSplitByGroupAndItsGroupsValidate) {
  {
    std::ofstream out(dir_ / "gconv.sr");
    out << grouped_in_order(GetParam());
  }
  Result r = run("explore gconv.sr -s conv-gemm --search random --evals 2 --jobs 2 -o out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("gconv into 2 groups (gconv_g0, gconv_g1) of 4 channels each"), std::string::npos) << r.output;
  EXPECT_TRUE(layer_validated_by(read(dir_ / "out/evaluated.csv"), "gconv_g0", "conv-gemm"))
      << read(dir_ / "out/evaluated.csv");
}

INSTANTIATE_TEST_SUITE_P(Groups, GroupZipOrderCli, ::testing::Values("kwb", "bkw", "bwk", "wkb", "wbk", "bwkt"),
                         [](const auto& info) { return info.param; });

// Without strategies named, the convolution whole keeps its own (conv-chw-kappa, conv-gpu,
// ...) as one variant; `liftc space` shows the groups' layers after it, and --whole-program
// takes the program as one, not split.
TEST_F(ExploreCli, SpaceShowsAGroupedConvolutionWholeAndSplitByGroup) {
  Result r = run(fmt::format("space {} -s conv-chw-kappa -s conv-chw-tile --target mali-g72 --samples 0", kGrouped));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(
      r.output,
      {"// a grouped convolution split by group: conv into 2 groups (conv_g0, conv_g1) of 2 channels each; each group "
       "a dense convolution over its channels of the image (every dense strategy takes it), their outputs joined per "
       "pixel: explore searches these layers as an alternative to the convolution whole (--whole-program: the program "
       "as one, not split)",
       "==== layer 1/1 (conv)\n// conv-chw-tile does not apply to this layer\n\n== strategy conv-chw-kappa",
       "==== group layer (conv_g0, a group of conv)\n\n== strategy conv-chw-kappa, alternative 1 of 1",
       "==== group layer (conv: its groups' outputs joined)"});
  Result whole = run(fmt::format("space {} -s conv-chw-kappa --target mali-g72 --samples 0 --whole-program", kGrouped));
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  EXPECT_EQ(whole.output.find("group layer"), std::string::npos) << whole.output;
  EXPECT_EQ(whole.output.find("split by group"), std::string::npos) << whole.output;
}

// A ResNeXt block (examples/networks): its grouped layer whole, split by group (four groups
// explored once), and split with `expanded` reading the groups' outputs itself; every front
// point's host program validates every layer it runs.
TEST_F(ExploreCli, ResNeXtBlockGetsTheDenseStrategiesPerGroupAndValidates) {
  const std::string file = std::string(LIFTC_SOURCE_DIR) + "/examples/networks/resnext_block.sr";
  Result r = run(fmt::format("explore {} -s conv-chw-tile -s conv-gemm -s conv-chw-kappa --search random --pareto "
                             "--evals 4 --jobs 2 -o out",
                             file));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(
      r.output,
      {"grouped into 4 groups (grouped_g0, grouped_g1, grouped_g2, grouped_g3) of 8 channels each",
       "group layer (grouped_g3, a group of grouped): the shape of group layer (grouped_g0, a group of grouped): "
       "explored once, its results taken",
       "fused layer (grouped+expanded): 9 alternative(s) of 3 strategies", "network Pareto front"});
  expect_every_front_point_matches(*this, "resnext_block", "block: matches the expected values");
}

// A residual add (and ReLU) over a grouped convolution (examples/networks/grouped_residual.sr):
// fused into the convolution whole it has no strategy with a valid point, and explore says why;
// the add also goes into each group's epilogue, block_g0 being group 0's dense convolution with
// the input's channels of the group added (a view), which conv-chw-tile and conv-gemm take
// (their residual epilogues), explored once for both groups; and into the groups' join, the
// add reading the groups' outputs through their concatenation (conv_g0+conv_g1+block, which
// before took the place of conv+block and went with it). Their points validate against the
// interpreter, and so does every front point's host program, each layer it runs. (Before:
// only the fused layer whole, refused.)
TEST_F(ExploreCli, AResidualAddOverAGroupedConvolutionGoesIntoEachGroupsEpilogue) {
  const std::string file = std::string(LIFTC_SOURCE_DIR) + "/examples/networks/grouped_residual.sr";
  Result r = run(fmt::format("explore {} -s conv-chw-tile -s conv-gemm -s conv-lower --search random --pareto --evals 3 "
                             "--jobs 2 -o out",
                             file));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(
      r.output,
      {"conv into 2 groups (conv_g0, conv_g1) of 2 channels each; block fused into each of conv's groups (block_g0, "
       "block_g1), over their channels",
       "fused layer (conv+block): not offered: the strategies given have no valid point (conv-lower #1: code "
       "generation refuses this program: mapSeq runs outside every parallel map",
       "fused layer (conv+block_g0): 5 alternative(s) of 3 strategies (conv-chw-tile, conv-gemm, conv-lower)",
       "fused layer (conv+block_g1): the shape of fused layer (conv+block_g0): explored once, its results taken",
       "fused layer (conv_g0+conv_g1+block): 1 alternative(s) of 1 strategy (conv-lower)",
       "group layer (block: its groups' outputs joined): the shape of group layer (conv: its groups' outputs joined)",
       "network Pareto front"});
  std::string csv = read(dir_ / "out/evaluated.csv");
  EXPECT_TRUE(layer_validated_by(csv, "conv+block_g0", "conv-chw-tile") ||
              layer_validated_by(csv, "conv+block_g0", "conv-gemm"))
      << csv;
  EXPECT_TRUE(layer_validated_by(csv, "conv_g0+conv_g1+block", "conv-lower")) << csv;
  EXPECT_TRUE(fs::exists(dir_ / "out/expected/block_g1.npy"));
  // Every front point's host program (whichever variant it runs) matches the interpreter's
  // values for each layer it runs.
  expect_every_front_point_matches(*this, "grouped_residual", "block: matches the expected values");
}

// A grouped convolution and its residual add in one definition: explore splits the add off
// (z_conv, then z over it), then z_conv by group, whose groups' joined values are checked
// against z_conv's value from the residual split. (Before, the group split was checked before
// that value existed: "does not compute its value (an internal error ...)".)
TEST_F(ExploreCli, AGroupedConvolutionAndItsResidualAddInOneDefinitionAreSplitBoth) {
  std::ofstream(dir_ / "grouped_residual_one.sr")
      << "size H = 6, W = 6, G = 2, CG = 4, MG = 4\n"
         "input x : [[[float](G*CG)]W]H\n"
         "input wts : [[[[[float]CG]3]3]MG]G\n"
         "input bs : [[float]MG]G\n"
         "def z = map2D(pq -> map(uv -> max(uv.0 + uv.1, 0.0), zip(pq.0, pq.1)),\n"
         "  zip2D(map2D(win -> join(map((gwin, gw, gb) -> join(map((k, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1,\n"
         "                                 zip(join(join(gwin)), join(join(k)))), zip(gw, gb))),\n"
         "                               zip(transpose(map(transpose, map2D(px -> split(CG, px), win))), wts, bs))),\n"
         "              slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, x))),\n"
         "        x))\n";
  Result r = run("explore grouped_residual_one.sr -s conv-chw-tile -s conv-lower --search random --pareto --evals 2 "
                 "--jobs 2 -o out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(r.output, {"z into z_conv (the convolution) and z", "group layer (z_conv_g0, a group of z_conv)",
                           "network Pareto front"});
  Result host = run_front_point(*this, "grouped_residual_one");
  ASSERT_EQ(host.exit_code, 0) << host.output;
  EXPECT_NE(host.output.find("z: matches the expected values"), std::string::npos) << host.output;
}

// A replay and a warm start take one program's space: the grouped convolution is taken
// whole, and explore says so (half storage splits it: cli_network_test.cpp).
TEST_F(ExploreCli, AReplayTakesAGroupedConvolutionWholeAndSaysSo) {
  Result r = run(fmt::format("explore {} --replay missing.db", kGrouped));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("note: --replay: the grouped convolution is explored whole, not also split by group "
                          "(explore without it to search its groups too)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("error: no results store at missing.db"), std::string::npos) << r.output;
}

// A grouped convolution whose biases are added after each sum, `map(s -> s + b, reduce(0.0,
// ...))`: its groups are made of its normal form, which starts each sum from its bias, so
// their concatenation is its value up to the rounding of that order (add_group_references).
// The split was refused as an internal error when it was checked bit for bit (a generality
// check's form); now its groups are explored and every front point validates the program's
// value.
TEST_F(ExploreCli, AGroupedConvolutionWithItsBiasAfterTheSumIsSplitByGroup) {
  std::ofstream(dir_ / "grouped_bias_after.sr") << R"(size C = 8, G = 2, CG = 4, MG = 4, H = 6, W = 6, K = 3
input weights : [[[[[float]CG]K]K]MG]G
input biases  : [[float]MG]G
input image   : [[[float]C]W]H
def out = map2D(win -> join(map((gw, ws, bs) -> join(map((w, b) -> map(s -> s + b,
                                 reduce(0.0, (a, p) -> a + p.0 * p.1, zip(join(join(gw)), join(join(w))))),
                               zip(ws, bs))),
                          zip(transpose(map(transpose, map2D(px -> split(CG, px), win))), weights, biases))),
            slide2D(K, K, 1, 1, pad2D(1, 1, 1, 1, 0.0, image)))
)";
  Result r = run("explore grouped_bias_after.sr -s conv-chw-tile --pareto --evals 3 --runs 1 --jobs 1 -q -o out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("group layer (out_g0, a group of out)"), std::string::npos) << r.output;
  expect_each_alternative_validated(read(dir_ / "out/evaluated.csv"), "conv-chw-tile", 1);
  expect_every_front_point_matches(*this, "grouped_bias_after", "out: matches the expected values");
}

// A grouped convolution on a CHW image written kernel by kernel in each group, each output
// plane's rows joined after its 2D map (map(join, map2D(..)), a generality check's form):
// normal-form moves the joins out of the map over the groups (rows-joined-after-out-of-groups),
// so explore splits it by group and each group takes the dense strategies; the front's host
// program validates the groups and their concatenation. Before, it was not split, and the
// dense strategies offered on it whole were refused by code generation.
TEST_F(ExploreCli, AGroupedChannelFirstConvolutionWithItsRowsJoinedAfterIsSplitByGroup) {
  std::ofstream(dir_ / "grouped_chw_joined_after.sr") << R"(size C = 4, G = 2, CG = 2, MG = 2, H = 6, W = 6, K = 3
input weights : [[[[[float]K]K]CG]MG]G
input biases  : [[float]MG]G
input image   : [[[float]W]H]C
def out = join(map((planes, ws, bs) ->
                     map((w, b) -> map(join, map2D(win -> map(s -> max(s, 0.0), reduce(b, (a, p) -> a + p.0 * p.1,
                                                                                          zip(join(join(win)), join(join(w))))),
                                                   map(transpose, transpose(map(pl -> slide2D(K, K, 1, 1, pad2D(1, 1, 1, 1, 0.0, pl)),
                                                                                planes))))),
                         zip(ws, bs)),
                   zip(split(CG, image), weights, biases)))
)";
  Result r = run("explore grouped_chw_joined_after.sr -s conv-chw-tile-local -s conv-gemm --pareto --evals 4 --runs 1 "
                 "--jobs 1 -q -o out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("group layer (out_g0, a group of out): "), std::string::npos) << r.output;
  std::string csv = read(dir_ / "out/evaluated.csv");
  EXPECT_TRUE(csv.find("out_g0,") != std::string::npos && csv.find(",ok,") != std::string::npos) << csv;
  expect_every_front_point_matches(*this, "grouped_chw_joined_after", "out: matches the expected values");
}

}  // namespace
}  // namespace liftc::explore::test
