// `liftc explore` on a convolution whose own definition adds a residual (relu(conv(x) + x)):
// split into the convolution, which the dense strategies take, and the add over it, with
// the definition as written explored as the fused alternative (explore/products/
// residual.hpp). Small sizes, few evaluations: a CI test on PoCL.

#include <string>

#include <gtest/gtest.h>

#include "explore_cli.hpp"

namespace liftc::explore::test {
namespace {

const std::string kResidual = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/forms/conv_residual_one_definition.sr";

// Explores examples/networks/`network`.sr with `strategy` alone (and `flags`) into folder
// `out`: the exploration succeeds, offers the fused `layer` `alternatives` alternative(s) of
// that strategy alone, without a note about it, and one of its points validates. Its output.
std::string expect_fused_layer_validates(ExploreCli& cli, const std::string& network, const std::string& flags,
                                         const std::string& strategy, int alternatives, const std::string& layer,
                                         const std::string& out) {
  SCOPED_TRACE(strategy);
  Result r = cli.run(fmt::format("explore {}/examples/networks/{}.sr -s {} {} --search random --evals 2 --jobs 2 -o {}",
                                 LIFTC_SOURCE_DIR, network, strategy, flags, out));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(fmt::format("fused layer ({}): {} alternative(s) of 1 strategy ({})", layer, alternatives,
                                      strategy)),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("note: fused layer (" + layer + ")"), std::string::npos) << r.output;
  EXPECT_TRUE(layer_validated_by(cli.read(cli.dir() / out / "evaluated.csv"), layer, strategy)) << r.output;
  return r.output;
}

// conv-chw-tile, conv-gemm and conv-chw run on its convolution split off, and take the
// definition as written too, the fused alternative (the first two with a residual epilogue).
// Every point validates against the interpreter, and the front point's host program
// validates every layer it runs.
TEST_F(ExploreCli, AResidualAddInTheConvolutionsDefinitionIsSplitOffAndValidates) {
  Result r = run(fmt::format("explore {} -s conv-chw-tile -s conv-gemm -s conv-chw --search random --pareto --evals 4 "
                             "--jobs 2 -o out",
                             kResidual));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(
      r.output,
      {"network: 2 layers, 2 of a shape of their own, each explored with its own space and reference (4 evaluations "
       "each): out_conv, out\n",
       "residual add split off its convolution, each explored as a layer of its own (the convolution alone takes "
       "every dense strategy; the add over it fused back in is the alternative): out into out_conv (the convolution) "
       "and out (its values combined with image)\n",
       "layer 1/2 (out_conv): ", "of 3 strategies (conv-chw-tile, conv-gemm, conv-chw)",
       "fused layer (out_conv+out): 6 alternative(s) of 3 strategies (conv-chw-tile, conv-gemm, conv-chw)",
       "network Pareto front"});
  EXPECT_EQ(r.output.find("code generation refuses"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("note: fused layer (out_conv+out)"), std::string::npos) << r.output;
  std::string csv = read(dir_ / "out/evaluated.csv");
  EXPECT_TRUE(layer_validated_by(csv, "out_conv", "conv-chw-tile") || layer_validated_by(csv, "out_conv", "conv-gemm"))
      << csv;
  EXPECT_TRUE(layer_validated_by(csv, "out_conv+out", "conv-chw-tile") ||
              layer_validated_by(csv, "out_conv+out", "conv-gemm") ||
              layer_validated_by(csv, "out_conv+out", "conv-chw"))
      << csv;
  EXPECT_TRUE(std::filesystem::exists(dir_ / "out/expected/out_conv.npy"));

  Result host = run_front_point(*this, "conv_residual_one_definition");
  ASSERT_EQ(host.exit_code, 0) << host.output;
  EXPECT_NE(host.output.find("out: matches the expected values"), std::string::npos) << host.output;
}

// The register tile with a residual epilogue (register-tile-residual, -activation): the
// convolution's sigma x kappa accumulators start from the bias plus the residual value, or
// the function of each sum and its residual value is applied to them in private memory; so do
// the GEMM's (gemm-register-tile-residual), the split-K local tiles
// (conv-block-rows-split-residual) in their summing kernel, and the local-memory tiles'
// work-items each their own tile's (conv-block-chunks-residual, register-tile-acc-residual). The
// one-definition form relu(conv(x) + x) (residual-windows-form) and MobileNetV2's projection
// with its residual add fused (projected+block, explore's one-to-one fusion: a 1x1
// convolution written per pixel, pointwise-windows-residual) each get conv-chw-tile (and the
// latter conv-gemm, conv-chw-tile-split and conv-chw-tile-local), whose points validate against the interpreter
// (float8 accumulators need a multiple of 8 kernels: C = 4 leaves that alternative out).
TEST_F(ExploreCli, TheTileGemmAndSplitStrategiesTakeAResidualAddFusedIntoTheirConvolution) {
  Result one = run(fmt::format("explore {} -s conv-chw-tile --search random --evals 3 --jobs 2 -o one", kResidual));
  ASSERT_EQ(one.exit_code, 0) << one.output;
  EXPECT_NE(one.output.find("fused layer (out_conv+out): 3 alternative(s) of 1 strategy (conv-chw-tile)"), std::string::npos)
      << one.output;
  EXPECT_EQ(one.output.find("code generation refuses"), std::string::npos) << one.output;
  EXPECT_TRUE(layer_validated_by(read(dir_ / "one/evaluated.csv"), "out_conv+out", "conv-chw-tile")) << one.output;

  // MobileNetV2's projection with the block's add fused: the register tile; the GEMM (the
  // projection's pixels read in place, 1x1 windows, or copied by im2col, the accumulators
  // starting from the bias and the block's input); the split along the 576 (here 24)
  // channels of the projection (the partial sums' kernel, then the summing kernel adds each
  // output's partial sums to its bias and the block's input); the local-memory tiles (each
  // work-item's register tile starting from its bias and the block's input; one alternative:
  // no padding kernel for 1x1 windows, and the windows not dealt out).
  struct Case {
    const char* strategy;
    int alternatives;
  };
  for (const Case& c : {Case{"conv-chw-tile", 3}, Case{"conv-gemm", 4}, Case{"conv-chw-tile-split", 2},
                        Case{"conv-chw-tile-local", 1}})
    expect_fused_layer_validates(*this, "mobilenet_v2_block", "", c.strategy, c.alternatives, "projected+block",
                                 c.strategy);
}

// The Winograd strategies with a residual epilogue (winograd-f2x2-residual, -f4x4-residual,
// their -gemm forms and -residual-activation variants, winograd-kernel-groups-residual and
// winograd-register-tile-residual): the ResNet block's second 3x3 convolution with its skip add
// and ReLU fused (conv2+block), each output value of the output transform starting from the
// bias plus the block's input and the ReLU applied there. Every alternative is offered (F(2x2)
// and F(4x4): 8 x 8), the fused layer's points validate against the interpreter, and the
// conv-winograd-local front point's host program validates every layer it runs. And the
// one-definition form with the ReLU before the add (relu(conv(x)) + x: a function of each sum
// and the residual value), split and fused back, with conv-winograd-gemm (6 x 6: F(2x2) only).
TEST_F(ExploreCli, TheWinogradStrategiesTakeAResidualAddFusedIntoTheirConvolution) {
  struct Case {
    const char* strategy;
    int alternatives;
    const char* out;
  };
  for (const Case& c : {Case{"conv-winograd", 6, "conv-winograd"}, Case{"conv-winograd-gemm", 6, "conv-winograd-gemm"},
                        Case{"conv-winograd-local", 2, "out"}})
    expect_fused_layer_validates(*this, "resnet_block", "--fusion only", c.strategy, c.alternatives, "conv2+block",
                                 c.out);
  // The fused layer computes through Winograd's arrays: the network point's allowance/ has its
  // output's, which the host program compares with (run_front_point).
  EXPECT_TRUE(std::filesystem::is_regular_file(dir_ / "out/front/1/allowance/block.npy"));
  Result host = run_front_point(*this, "resnet_block");
  ASSERT_EQ(host.exit_code, 0) << host.output;
  EXPECT_NE(host.output.find("block: matches the expected values"), std::string::npos) << host.output;

  Result first = run(fmt::format("explore {}/examples/conv/forms/conv_residual_relu_first.sr -s conv-winograd-gemm "
                                 "--search random --evals 2 --jobs 2 -o first",
                                 LIFTC_SOURCE_DIR));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_NE(first.output.find("fused layer (out_conv+out): 3 alternative(s) of 1 strategy (conv-winograd-gemm)"),
            std::string::npos)
      << first.output;
  EXPECT_TRUE(layer_validated_by(read(dir_ / "first/evaluated.csv"), "out_conv+out", "conv-winograd-gemm"))
      << first.output;
}

// The omega partial sums with a residual epilogue (map2D-flatten-residual,
// partial-sums-out-residual, -residual-activation; with kappa kernels per work-item
// kernel-groups-into-reduction-residual and partial-sums-out-kappa-residual, -residual-activation):
// ResNet's conv2+block, its partial sums a kernel of their own, the summing kernel adding each
// output's partial sums to its bias plus the block's input and applying the ReLU. Each strategy
// is offered the fused layer (conv-chw-omega-kappa two alternatives), whose points validate.
TEST_F(ExploreCli, TheOmegaPartialSumsTakeAResidualAddFusedIntoTheirConvolution) {
  struct Case {
    const char* strategy;
    int alternatives;
  };
  for (const Case& c : {Case{"conv-chw-omega", 1}, Case{"conv-chw-omega-m0", 1}, Case{"conv-chw-omega-kappa", 2}})
    expect_fused_layer_validates(*this, "resnet_block", "--fusion only", c.strategy, c.alternatives, "conv2+block",
                                 c.strategy);
}

// The residual forms a fourth writer wrote (issue 38): the image zipped first, zip2D(image,
// windows); the convolution's output zipped after the image, zip2D(image, conv); the image's
// value in each sum's start, reduce(b + r, ...); the value zipped first with the kernels and
// biases, as (value, kernel, bias) triples or (value, (kernel, bias)) pairs, or the pairs
// zipped with the values as ((kernel, bias), value), read through projections. normal-form
// makes each conv_residual_one_definition.sr's form: explore splits it (all but the second in
// their normal form, the second as written), and the fused alternative takes the register tile with
// its residual epilogue, as conv_residual_one_definition.sr's does. Points of both validate.
TEST_F(ExploreCli, TheResidualFormsWithTheImageFirstOrInTheSumsStartAreSplitAndTiled) {
  for (const char* form : {"conv_residual_image_first", "conv_residual_output_image_first", "conv_residual_in_start",
                           "conv_residual_value_first", "conv_residual_value_start", "conv_residual_nested_pairs"}) {
    SCOPED_TRACE(form);
    Result r = run(fmt::format("explore {}/examples/conv/forms/{}.sr -s conv-chw-tile --search random --evals 3 --jobs 2 -o {}",
                               LIFTC_SOURCE_DIR, form, form));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    expect_all_in(r.output, {"out into out_conv (the convolution) and out (its values combined with image)\n",
                             "fused layer (out_conv+out): 3 alternative(s) of 1 strategy (conv-chw-tile)"});
    EXPECT_EQ(r.output.find("code generation refuses"), std::string::npos) << r.output;
    std::string csv = read(dir_ / form / "evaluated.csv");
    EXPECT_TRUE(layer_validated_by(csv, "out_conv", "conv-chw-tile")) << csv;
    EXPECT_TRUE(layer_validated_by(csv, "out_conv+out", "conv-chw-tile")) << csv;
  }
}

// A network's residual add written with the block's input first: the ResNet block's
// zip(image, conv2) at the rows, pixels and values (residual-pass-second), and MobileNetV2's 2D
// map over zip2D(image, projected) (residual-outputs-second, then as the one-definition forms,
// residual-windows-form). Their fused layers take the residual epilogue's strategies with as
// many alternatives as resnet_block.sr's and mobilenet_v2_block.sr's (above), and validate.
TEST_F(ExploreCli, ANetworksResidualAddWithTheInputFirstTakesTheEpiloguesStrategiesWhenFused) {
  struct Case {
    const char* network;
    const char* strategy;
    const char* fused;
    int alternatives;
  };
  for (const Case& c : {Case{"resnet_block_skip_first", "conv-chw-tile", "conv2+block", 4},
                        Case{"mobilenet_v2_block_residual_first", "conv-chw-tile", "projected+block", 3},
                        Case{"mobilenet_v2_block_residual_first", "conv-gemm", "projected+block", 4},
                        Case{"mobilenet_v2_block_residual_first", "conv-chw-tile-split", "projected+block", 2},
                        Case{"mobilenet_v2_block_residual_first", "conv-chw-tile-local", "projected+block", 1}}) {
    SCOPED_TRACE(std::string(c.network) + " " + c.strategy);
    std::string out = std::string(c.network) + "-" + c.strategy;
    Result r = run(fmt::format("explore {}/examples/networks/{}.sr -s {} --search random --evals 2 --jobs 2 -o {}",
                               LIFTC_SOURCE_DIR, c.network, c.strategy, out));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(fmt::format("fused layer ({}): {} alternative(s) of 1 strategy ({})", c.fused,
                                        c.alternatives, c.strategy)),
              std::string::npos)
        << r.output;
    EXPECT_TRUE(layer_validated_by(read(dir_ / out / "evaluated.csv"), c.fused, c.strategy)) << r.output;
  }
}

// A channel-first residual add of a channel-first convolution, each in a definition of its own,
// the add over the planes (zip(image, conv) plane by plane, zip2D in each): the fused layer's
// normal form adds the planes of the channel-last convolution transposed back, which
// pass-over-planes-of-channels-last reads as the channel-last add (before, only the omega
// strategies had valid points: a generality check's ResNet block). The tiles, the local tiles
// and Winograd take it and validate, and every front point's host program matches; the add
// written row by row validates with the tiles too.
TEST_F(ExploreCli, AChannelFirstResidualAddOfAChannelFirstConvolutionTakesTheEpiloguesStrategiesWhenFused) {
  const std::string convolution = R"(size C = 4, H = 6, W = 6
input image : [[[float]W]H]C
input weights : [[[[float]3]3]C]C
input biases : [float]C
def windows(x) = map(transpose, transpose(map(ch -> slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, ch)), x)))
def conv = map(wb -> map(join, map2D(win -> reduce(wb.1, (a, p) -> a + p.0 * p.1, zip(join(join(wb.0)), join(join(win)))),
                                    windows(image))), zip(weights, biases))
)";
  std::ofstream(dir_ / "chw_residual.sr")
      << convolution
      << "def block = map(pair -> map2D(q -> max(q.0 + q.1, 0.0), zip2D(pair.0, pair.1)), zip(image, conv))\n";
  // The same add written row by row, the convolution's planes first (a generality check's
  // MobileNetV2 block: pass-over-planes-of-channels-last-rows-first).
  std::ofstream(dir_ / "chw_residual_rows.sr")
      << convolution
      << "def block = map((a, b) -> map((r1, r2) -> map((u, v) -> u + v, zip(r1, r2)), zip(a, b)), zip(conv, image))\n";
  {
    Result r =
        run("explore chw_residual_rows.sr -s conv-chw-tile --fusion only --search random --pareto --evals 2 "
            "--jobs 1 -o rows");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("fused layer (conv+block): "), std::string::npos) << r.output;
    EXPECT_TRUE(layer_validated_by(read(dir_ / "rows/evaluated.csv"), "conv+block", "conv-chw-tile"))
        << read(dir_ / "rows/evaluated.csv");
  }
  for (const char* strategy : {"conv-chw-tile", "conv-chw-tile-local", "conv-winograd-gemm"}) {
    SCOPED_TRACE(strategy);
    std::filesystem::remove_all(dir_ / "out");
    Result r = run(fmt::format(
        "explore chw_residual.sr -s {} --fusion only --search random --pareto --evals 2 --jobs 1 -o out", strategy));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("fused layer (conv+block): "), std::string::npos) << r.output;
    EXPECT_TRUE(layer_validated_by(read(dir_ / "out/evaluated.csv"), "conv+block", strategy))
        << read(dir_ / "out/evaluated.csv");
    expect_every_front_point_matches(*this, "chw_residual", "block: matches the expected values (144 values)");
  }
}

// A channel-first residual add over a channel-last convolution transposed back, in one
// definition (the add reads transpose(map(transpose, conv))): split into the convolution and
// the add, a transpose being one value for one, and fused back, where the channel-first add's
// normal form takes the tiles' residual epilogue (before, it was not split: the convolution
// alone was not offered). Both validate, and so does the front point's host program.
TEST_F(ExploreCli, AChannelFirstAddOverAChannelLastConvolutionInOneDefinitionIsSplitAndFusedBack) {
  std::ofstream(dir_ / "hwc_conv_chw_add.sr") << R"(size C = 4, H = 6, W = 6
input weights : [[[[float]C]3]3]C
input biases : [float]C
input image : [[[float]W]H]C
def hwc(t) = map(transpose, transpose(t))
def out = map(pair -> map2D(q -> max(q.0 + q.1, 0.0), zip2D(pair.0, pair.1)),
              zip(image, transpose(map(transpose,
                map2D(win -> join(map(wb -> reduce(wb.1, (a, p) -> a + p.0 * p.1, zip(join(join(wb.0)), join(join(win)))),
                                      zip(weights, biases))),
                      slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, hwc(image))))))))
)";
  Result r = run("explore hwc_conv_chw_add.sr -s conv-chw-tile --search random --pareto --evals 2 --jobs 2 -o out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(r.output, {"residual add split off its convolution, each explored as a layer of its own (the "
                           "convolution alone takes every dense strategy; the add over it fused back in is the "
                           "alternative): out into out_conv (the convolution) and out (its values combined with image)",
                           "fused layer (out_conv+out): "});
  std::string csv = read(dir_ / "out/evaluated.csv");
  EXPECT_TRUE(layer_validated_by(csv, "out_conv", "conv-chw-tile")) << csv;
  EXPECT_TRUE(layer_validated_by(csv, "out_conv+out", "conv-chw-tile")) << csv;
  expect_every_front_point_matches(*this, "hwc_conv_chw_add", "out: matches the expected values (144 values)");
}

// conv-gpu on the one-definition form: code generation refused every alternative before
// ("the values that mapGlb(2) computes are read by other work-items of the same kernel");
// explored whole it is refused with the reason, and split it runs on the convolution.
TEST_F(ExploreCli, AStrategyCodeGenerationRefusedOnTheResidualFormRunsOnTheSplitOrSaysWhy) {
  Result whole = run(fmt::format("explore {} -s conv-gpu --whole-program --search random --evals 2 --jobs 1", kResidual));
  EXPECT_EQ(whole.exit_code, 1) << whole.output;
  EXPECT_NE(
      whole.output.find(fmt::format(
          "error: --whole-program: the convolution with its residual add is explored as written, in one "
          "definition, which the strategies do not take here; explore without the flag to split it into layers "
          "that they take (strategy `conv-gpu` does not apply to any definition of {} (its step "
          "`unzipped-pixels-form` "
          "applies nowhere: a convolution at the definition's root, which this strategy maps onto work-items, "
          "work-groups or kernels of its own: a convolution whose windows (or outputs) are zipped with another "
          "image's pixels in its own definition (a residual add, relu(conv(x) + x)) is split by liftc explore into "
          "the convolution, which every dense strategy takes, and the add over it (with the add fused back as an "
          "alternative); written so, conv-lower, stencil-parametric, conv-chw, conv-chw-kappa, conv-chw-m0, "
          "conv-chw-tile, conv-chw-tile-m0, conv-chw-tile-local, conv-chw-tile-split, conv-chw-omega, "
          "conv-chw-omega-m0, conv-chw-omega-kappa, conv-gemm, conv-winograd, conv-winograd-gemm and "
          "conv-winograd-local take it whole)",
          kResidual)),
      std::string::npos)
      << whole.output;
  EXPECT_EQ(whole.output.find("code generation refuses"), std::string::npos) << whole.output;

  Result split = run(fmt::format("explore {} -s conv-gpu --search random --evals 3 --jobs 2 -o out", kResidual));
  ASSERT_EQ(split.exit_code, 0) << split.output;
  EXPECT_TRUE(layer_validated_by(read(dir_ / "out/evaluated.csv"), "out_conv", "conv-gpu")) << split.output;
}

// `liftc space` shows the layers explore searches: the convolution split off, which
// conv-chw-tile takes, the add, and the two fused back, which conv-chw-tile takes too; --whole-program takes the definition as written, which
// conv-chw-tile takes too (its residual epilogue: residual-windows-form, register-tile-residual)
// and so does conv-chw-tile-local (conv-block-chunks-residual-activation: the padded image by a
// kernel of its own or read with its bounds checked).
TEST_F(ExploreCli, SpaceShowsTheConvolutionSplitOffItsResidualAdd) {
  Result r = run(fmt::format("space {} -s conv-chw-tile --target mali-g72 --samples 0", kResidual));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(
      r.output,
      {"// a residual add split off its convolution: out into out_conv (the convolution) and out (its values combined "
       "with image); the convolution alone takes every dense strategy: explore searches these layers, and the "
       "definition whole as their fused alternative (--whole-program: the program as written, not split)\n",
       "==== layer 1/2 (out_conv)\n\n== strategy conv-chw-tile, alternative 1 of 4",
       "==== layer 2/2 (out)\n// conv-chw-tile does not apply: lowered by lower-glb2",
       "==== fused layer (out_conv+out: the two fused back into one definition, explore's alternative to the split)\n\n"
       "== strategy conv-chw-tile, alternative 1 of 4"});
  Result whole = run(fmt::format("space {} -s conv-chw-tile --target mali-g72 --samples 0 --whole-program", kResidual));
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  EXPECT_NE(whole.output.find("== strategy conv-chw-tile, alternative 1 of 4"), std::string::npos) << whole.output;
  Result local = run(fmt::format("space {} -s conv-chw-tile-local --target mali-g72 --samples 0 --whole-program", kResidual));
  ASSERT_EQ(local.exit_code, 0) << local.output;
  EXPECT_NE(local.output.find("== strategy conv-chw-tile-local, alternative 2 of 2"), std::string::npos) << local.output;
}

// A channel-first residual add with a per-channel gain on the convolution, x + g * conv(x)
// (ConvNeXt's layer scale), the add a definition of its own over (image plane, convolution
// plane, gain) triples (a generality check's): before, the fused layer was refused by code
// generation. The gain is taken out of the add, folded into the kernels and biases, and the add
// fused as a residual add: the fused layer takes the tile and Winograd, its points validate, and
// so does the front point's host program.
TEST_F(ExploreCli, AResidualAddWithAGainOnItsConvolutionIsFused) {
  std::ofstream(dir_ / "scaled.sr") << R"(size H = 8, W = 8, C = 4
input image : [[[float]W]H]C
input wts : [[[[float]C]3]3]C
input bias : [float]C
input gain : [float]C
def conv = map2D(win -> join(map((w, b) -> reduce(b, (acc, q) -> acc + q.0 * q.1, zip(join(join(win)), join(join(w)))), zip(wts, bias))),
                 slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, map(transpose, transpose(image)))))
def res = map((x, r, g) -> map2D(p -> p.0 + g * p.1, zip2D(x, r)), zip(image, transpose(map(transpose, conv)), gain))
)";
  Result r =
      run("explore scaled.sr -s conv-chw-tile -s conv-winograd-gemm --fusion only --search random --pareto "
          "--evals 3 --jobs 2 -o out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("not offered"), std::string::npos) << r.output;
  const std::string csv = read(dir_ / "out/evaluated.csv");
  EXPECT_TRUE(layer_validated_by(csv, "conv+res", "conv-chw-tile") ||
              layer_validated_by(csv, "conv+res", "conv-winograd-gemm"))
      << csv;
  Result host = run_front_point(*this, "scaled");
  ASSERT_EQ(host.exit_code, 0) << host.output;
  EXPECT_NE(host.output.find("res: matches the expected values (256 values)"), std::string::npos) << host.output;
  EXPECT_EQ(host.output.find("conv: "), std::string::npos) << host.output;
}

}  // namespace
}  // namespace liftc::explore::test
