// `liftc explore` and `liftc space` on a convolution and its pooling written in one definition
// (issue 38): split into the convolution, which the dense strategies take, and the pooling
// over it, with the definition as written explored as the fused alternative
// (explore/products/pool_split.hpp). Small shapes (8x8 image, 4 to 4 channels), few
// evaluations, one job: a CI test on PoCL.

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "explore_cli.hpp"

namespace liftc::explore::test {
namespace {

const std::string kAverage = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/fused/conv_avgpool_joined.sr";

// The average pooling in the convolution's definition: the convolution split off takes
// conv-gemm and conv-chw-tile (before, only the pooled strategies and the slow generic ones
// took the definition), the pooling is lowered, and the two fused back, the definition as
// written, take conv-pool-tile (and conv-chw-tile, with a scratch buffer). Points of the
// split convolution and of the fused layer validate against the interpreter, and every front
// point's host program validates the pooled values.
TEST_F(ExploreCli, APoolingInTheConvolutionsDefinitionIsSplitOffAndValidates) {
  Result r = run(fmt::format("explore {} -s conv-gemm -s conv-chw-tile -s conv-pool-tile --search random --pareto "
                             "--evals 3 --jobs 1 -o out",
                             kAverage));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(
      r.output,
      {"network: 2 layers, 2 of a shape of their own, each explored with its own space and reference (3 evaluations "
       "each): pooled_conv, pooled\n",
       "pooling split off its convolution, each explored as a layer of its own (the convolution alone takes every "
       "dense strategy; the two fused back, the convolution computed inside each pooling window, are the "
       "alternative): pooled into pooled_conv (the convolution) and pooled (its pooling)\n",
       "layer 1/2 (pooled_conv): 5 alternative(s) of 2 strategies (conv-gemm, conv-chw-tile)",
       "layer 2/2 (pooled): 1 alternative(s) of 1 strategy (lower-glb2)",
       "fused layer (pooled_conv+pooled): 4 alternative(s) of 2 strategies (conv-chw-tile, conv-pool-tile)",
       "network Pareto front"});
  EXPECT_EQ(r.output.find("code generation refuses"), std::string::npos) << r.output;
  std::string csv = read(dir_ / "out/evaluated.csv");
  EXPECT_TRUE(layer_validated_by(csv, "pooled_conv", "conv-gemm") ||
              layer_validated_by(csv, "pooled_conv", "conv-chw-tile"))
      << csv;
  EXPECT_TRUE(layer_validated_by(csv, "pooled_conv+pooled", "conv-pool-tile") ||
              layer_validated_by(csv, "pooled_conv+pooled", "conv-chw-tile"))
      << csv;
  EXPECT_TRUE(std::filesystem::exists(dir_ / "out/expected/pooled_conv.npy"));
  expect_every_front_point_matches(*this, "conv_avgpool_joined", "pooled: matches the expected values (64 values)");
}

// A convolution with no activation after its sums and its 2x2 max pooling in one
// definition: the fused layer takes conv-pool-kappa and conv-pool-tile-rt, whose rules read
// an activation after each sum (pool-sums-identity-activation gives them the identity; before,
// they refused it though their refusal said "an activation after it or none"), and a point of
// each validates, as does every front point's host program.
TEST_F(ExploreCli, APooledConvolutionWithoutAnActivationTakesThePooledRegisterTiles) {
  std::ofstream(dir_ / "no_activation.sr") << R"(size C = 2, H = 4, W = 4, M = 4, K = 3
input weights : [[[[float]C]K]K]M
input biases  : [float]M
input image   : [[[float]C]W]H
def pooled = map2D(pw -> join(map(ch -> reduce(-inf, (a, v) -> max(a, v), join(ch)), transpose(map(transpose, pw)))),
                   slide2D(2, 2, 2, 2,
                           map2D(window -> join(map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1,
                                                                     zip(join(join(window)), join(join(w)))),
                                                    zip(weights, biases))),
                                 slide2D(K, K, 1, 1, pad2D(1, 1, 1, 1, 0.0, image)))))
)";
  Result r = run("explore no_activation.sr -s conv-pool-kappa -s conv-pool-tile-rt --fusion only --pareto --evals 8 "
                 "--jobs 1 -o out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("fused layer (pooled_conv+pooled): 3 alternative(s) of 2 strategies (conv-pool-kappa, "
                          "conv-pool-tile-rt)"),
            std::string::npos)
      << r.output;
  std::string csv = read(dir_ / "out/evaluated.csv");
  EXPECT_TRUE(layer_validated_by(csv, "pooled_conv+pooled", "conv-pool-kappa")) << csv;
  EXPECT_TRUE(layer_validated_by(csv, "pooled_conv+pooled", "conv-pool-tile-rt")) << csv;
  expect_every_front_point_matches(*this, "no_activation", "pooled: matches the expected values");
  // With --fusion off the split is explored without the definition whole, and explore says so.
  Result off = run("explore no_activation.sr -s conv-gemm --fusion off --evals 1 --jobs 1 -q --db off.db");
  ASSERT_EQ(off.exit_code, 0) << off.output;
  EXPECT_NE(off.output.find("(the convolution alone takes every dense strategy; not fused back (--fusion off)): "
                            "pooled into pooled_conv (the convolution) and pooled (its pooling)"),
            std::string::npos)
      << off.output;
}

// The max pooling forms (each channel's 2D block of the window; each channel's values, its
// one-element results unjoined; the convolution a let over tile2D's tiles, split in its
// normal form): the convolution split off takes conv-gemm, and the fused layer conv-pool-tile.
// --whole-program explores the definition as written, which conv-gemm does not take.
TEST_F(ExploreCli, TheMaxPoolingFormsAreSplitAndTheirConvolutionTakesTheGemm) {
  for (const char* form : {"forms/conv_pool_one_definition", "fused/conv_pool_unjoined", "forms/conv_pool_tile2d_let"}) {
    SCOPED_TRACE(form);
    std::string db = std::string(form).substr(std::string(form).find('/') + 1) + ".db";
    Result r = run(fmt::format("explore {}/examples/conv/{}.sr -s conv-gemm -s conv-pool-tile --search random --evals 2 "
                               "--jobs 1 --db {}",
                               LIFTC_SOURCE_DIR, form, db));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    expect_all_in(r.output, {"pooled into pooled_conv (the convolution) and pooled (its pooling)\n",
                             "layer 1/2 (pooled_conv): 2 alternative(s) of 1 strategy (conv-gemm)",
                             "fused layer (pooled_conv+pooled): 1 alternative(s) of 1 strategy (conv-pool-tile)"});
  }
  Result whole = run(fmt::format("explore {}/examples/conv/forms/conv_pool_one_definition.sr -s conv-gemm "
                                 "--whole-program --search random --evals 2 --jobs 1 --db whole.db",
                                 LIFTC_SOURCE_DIR));
  EXPECT_EQ(whole.exit_code, 1) << whole.output;
  EXPECT_NE(whole.output.find("its step `unpooled-conv-form` applies nowhere"), std::string::npos) << whole.output;
}

// A channel-first convolution written kernel by kernel with each output plane pooled 2x2, in
// one definition (before, every strategy was offered it whole and code generation refused
// each): the convolution split off takes the dense CHW strategies (conv-chw-tile), the
// per-plane pooling is lowered, and the two are fused back as the alternative (before this,
// not: normal-form pooled the planes of the channel-last convolution transposed, which
// conv-pool-form did not read; pool-planes-of-channels-last-windows-joined now reads it), which
// conv-pool-kappa takes. Points of the convolution and the fused layer validate, and every
// front point's host program validates the pooled values.
TEST_F(ExploreCli, AChannelFirstConvolutionPooledPlaneByPlaneIsSplitAndFusedBack) {
  Result r =
      run(fmt::format("explore {}/examples/conv/fused/chw_conv_pool.sr -s conv-chw-tile -s conv-pool-kappa "
                      "--search random --pareto --evals 3 --jobs 1 -o out",
                      LIFTC_SOURCE_DIR));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(r.output,
                {"pooling split off its convolution, each explored as a layer of its own (the convolution alone takes "
                 "every dense strategy; the two fused back, the convolution computed inside each pooling window, are "
                 "the alternative): pooled into pooled_conv (the convolution) and pooled (its pooling)\n",
                 "layer 1/2 (pooled_conv): ", "of 1 strategy (conv-chw-tile)",
                 "layer 2/2 (pooled): 1 alternative(s) of 1 strategy (lower-glb2)",
                 "fused layer (pooled_conv+pooled): ", "of 2 strategies (conv-chw-tile, conv-pool-kappa)",
                 "network Pareto front"});
  EXPECT_EQ(r.output.find("code generation refuses"), std::string::npos) << r.output;
  std::string csv = read(dir_ / "out/evaluated.csv");
  EXPECT_TRUE(layer_validated_by(csv, "pooled_conv", "conv-chw-tile")) << csv;
  EXPECT_TRUE(layer_validated_by(csv, "pooled_conv+pooled", "conv-pool-kappa")) << csv;
  expect_every_front_point_matches(*this, "chw_conv_pool", "pooled: matches the expected values (64 values)");
  // liftc space shows the same two layers and the definition whole as their fused alternative.
  Result space =
      run(fmt::format("space {}/examples/conv/fused/chw_conv_pool.sr -s conv-pool-kappa --target mali-g72 "
                      "--samples 0",
                      LIFTC_SOURCE_DIR));
  ASSERT_EQ(space.exit_code, 0) << space.output;
  expect_all_in(space.output, {"// a pooling split off its convolution: pooled into pooled_conv (the convolution) and "
                               "pooled (its pooling); the convolution alone takes every dense strategy: explore "
                               "searches these layers, and the definition whole (the convolution computed inside each "
                               "pooling window) as their fused alternative (--whole-program: the program as written, "
                               "not split)\n",
                               "==== layer 1/2 (pooled_conv)\n", "==== layer 2/2 (pooled)\n",
                               "==== fused layer (pooled_conv+pooled: the two fused back into one definition, "
                               "explore's alternative to the split)\n\n== strategy conv-pool-kappa, alternative 1 of"});
  // --whole-program explores the definition as written, which conv-pool-kappa now takes, and
  // says that explore without it splits the convolution off.
  Result whole =
      run(fmt::format("explore {}/examples/conv/fused/chw_conv_pool.sr -s conv-pool-kappa --whole-program "
                      "--evals 1 --jobs 1 --db whole.db",
                      LIFTC_SOURCE_DIR));
  EXPECT_EQ(whole.exit_code, 0) << whole.output;
  expect_all_in(whole.output, {"note: --whole-program: the convolution with its pooling is explored as written, not "
                               "also split (explore without it to search the convolution alone too)\n",
                               "1 valid"});
}

// The same pooling in a definition of its own, over a channel-first convolution's definition:
// an average pooling of each plane's tile2D tiles, and a max pooling of its slide2D windows with
// each plane's rows joined, after the 2D map or in the map over the rows. Before, no fused
// layer was made (explore said so: `pools` read a 2D map over the convolution's windows
// only); now conv+pool is fused, conv-pool-tile-rt takes it,
// its points validate and the front's host program matches.
TEST_F(ExploreCli, AChannelFirstPoolingOfAChannelFirstConvolutionIsFused) {
  const char* conv = R"(size C = 4, H = 8, W = 8, M = 4
input image : [[[float]W]H]C
input weights : [[[[float]3]3]C]M
input biases : [float]M
def conv = map((w, b) -> map(join, map2D(win -> map(v -> max(v, 0.0), reduce(b, (a, p) -> a + p.0 * p.1,
                                                                   zip(join(join(win)), join(join(w))))),
                                         map(transpose, transpose(map(ch -> slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, ch)),
                                                                     image))))),
               zip(weights, biases))
)";
  std::ofstream(dir_ / "chw_avg.sr")
      << conv
      << "def pool = map(ch -> map2D(t -> reduce(0.0, (a, v) -> a + 0.25 * v, join(t)), tile2D(2, 2, ch)), conv)\n";
  std::ofstream(dir_ / "chw_max.sr")
      << conv
      << "def pool = map(pl -> map(join, map2D(w -> reduce(-inf, max, join(w)), slide2D(2, 2, 2, 2, pl))), conv)\n";
  // Each row's results joined in the map over the rows (a later generality check's form).
  std::ofstream(dir_ / "chw_rows.sr") << conv
                                      << "def pool = map(pl -> map(r -> join(map(w -> reduce(-inf, max, join(w)), r)), "
                                         "slide2D(2, 2, 2, 2, pl)), conv)\n";
  for (const char* name : {"chw_avg", "chw_max", "chw_rows"}) {
    SCOPED_TRACE(name);
    std::filesystem::remove_all(dir_ / "out");
    Result r = run(fmt::format(
        "explore {}.sr -s conv-pool-tile-rt --fusion only --search random --pareto --evals 3 --jobs 1 -o out", name));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    expect_all_in(r.output, {"fused layer (conv+pool): ", "network Pareto front"});
    EXPECT_TRUE(validated_by(read(dir_ / "out/evaluated.csv"), "conv-pool-tile-rt"))
        << read(dir_ / "out/evaluated.csv");
    expect_every_front_point_matches(*this, name, "pool: matches the expected values (64 values)");
  }
}

// A convolution, its residual add and a ReLU, and a 2x2 max pooling in one definition, as
// residual_pool.sr in `dir`.
void write_residual_pool(const std::filesystem::path& dir) {
  std::ofstream(dir / "residual_pool.sr") << R"(size C = 4, H = 8, W = 8, K = 3
input weights : [[[[float]C]K]K]C
input biases  : [float]C
input image   : [[[float]C]W]H
def pooled = map2D(pw -> join(map(ch -> reduce(-inf, (a, v) -> max(a, v), join(ch)), transpose(map(transpose, pw)))),
               slide2D(2, 2, 2, 2,
                 map2D(q -> map(sr -> max(sr.0 + sr.1, 0.0), zip(q.0, q.1)),
                   zip2D(map2D(win -> join(map((w, b) -> reduce(b, (a, p) -> a + p.0 * p.1, zip(join(join(win)), join(join(w)))),
                                               zip(weights, biases))),
                               slide2D(K, K, 1, 1, pad2D(1, 1, 1, 1, 0.0, image))),
                         image))))
)";
}

// A convolution, its residual add and a ReLU, and a 2x2 max pooling in one definition (before,
// every strategy was offered it whole and code generation refused each): the pooling is split
// off the rest, and the convolution off the add, three layers; the convolution takes
// conv-chw-tile, the add fused back into it too, and a point of each validates, as does every
// front point's host program.
TEST_F(ExploreCli, AResidualAddAndAPoolingInTheConvolutionsDefinitionAreBothSplitOff) {
  write_residual_pool(dir_);
  Result r = run("explore residual_pool.sr -s conv-chw-tile --search random --pareto --evals 3 --jobs 1 -o out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(r.output,
                {"network: 3 layers, 3 of a shape of their own, each explored with its own space and reference (3 "
                 "evaluations each): pooled_conv_conv, pooled_conv, pooled\n",
                 "pooled into pooled_conv (the convolution and what follows it) and pooled (its pooling)\n",
                 "pooled_conv into pooled_conv_conv (the convolution) and pooled_conv (its values combined with image)\n",
                 "layer 1/3 (pooled_conv_conv): ", "fused layer (pooled_conv_conv+pooled_conv): ",
                 "network Pareto front"});
  EXPECT_EQ(r.output.find("code generation refuses"), std::string::npos) << r.output;
  std::string csv = read(dir_ / "out/evaluated.csv");
  EXPECT_TRUE(layer_validated_by(csv, "pooled_conv_conv", "conv-chw-tile")) << csv;
  EXPECT_TRUE(layer_validated_by(csv, "pooled_conv_conv+pooled_conv", "conv-chw-tile")) << csv;
  expect_every_front_point_matches(*this, "residual_pool", "pooled: matches the expected values (64 values)");
}

// A 7x7 image's convolution pooled in one definition over windows that overlap (3x3, stride 2)
// or over a crop of its output (floor mode: pad2D with -1, then 2x2 windows): before, every
// strategy was offered the definition whole and code generation refused each; now the
// convolution is split off (the pooling reads it as often as its windows hold each value; the
// crop stays in the pooling), takes conv-gemm, and the pooling is lowered; no fusion takes the
// two back, which explore says. Every front point's host program validates.
TEST_F(ExploreCli, AnOverlappingOrCroppedPoolingOfAConvolutionIsSplitOffAndValidates) {
  const std::string header = R"(size C = 4, H = 7, W = 7, M = 4, K = 3
input weights : [[[[float]C]K]K]M
input biases  : [float]M
input image   : [[[float]C]W]H
def convr(img) = map2D(window -> join(map((w, b) -> map(s -> max(s, 0.0), reduce(b, (acc, p) -> acc + p.0 * p.1,
                                          zip(join(join(window)), join(join(w))))),
                                   zip(weights, biases))),
                    slide2D(K, K, 1, 1, pad2D(1, 1, 1, 1, 0.0, img)))
)";
  const std::string pool =
      "def pooled = map2D(pw -> join(map(ch -> reduce(-inf, (a, v) -> max(a, v), join(ch)), transpose(map(transpose, "
      "pw)))), ";
  for (const auto& [name, windows] : {std::pair<std::string, std::string>{"overlapping", "slide2D(3, 3, 2, 2, convr(image)))\n"},
                                      {"cropped", "slide2D(2, 2, 2, 2, pad2D(0, -1, 0, -1, 0.0, convr(image))))\n"}}) {
    SCOPED_TRACE(name);
    std::ofstream(dir_ / (name + ".sr")) << header << pool << windows;
    std::filesystem::remove_all(dir_ / "out");
    Result r = run(fmt::format("explore {}.sr -s conv-gemm --search random --pareto --evals 2 --jobs 1 --db {}.db -o out",
                               name, name));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    expect_all_in(r.output, {"(the convolution alone takes every dense strategy; not fused back: no fusion takes it): "
                             "pooled into pooled_conv (the convolution) and pooled (its pooling)\n",
                             "layer 1/2 (pooled_conv): 2 alternative(s) of 1 strategy (conv-gemm)",
                             "layer 2/2 (pooled): 1 alternative(s) of 1 strategy (lower-glb2)"});
    EXPECT_EQ(r.output.find("code generation refuses"), std::string::npos) << r.output;
    expect_every_front_point_matches(*this, name, "pooled: matches the expected values (36 values)");
  }
}

// `liftc space` shows the layers explore searches: the convolution split off, which conv-gemm
// takes, the pooling, and the two fused back, which conv-pool-tile takes (so a strategy that
// takes only the fused layer is no error); --whole-program the definition as written.
TEST_F(ExploreCli, SpaceShowsTheConvolutionSplitOffItsPooling) {
  Result r = run(fmt::format("space {} -s conv-gemm -s conv-pool-tile --target mali-g72 --samples 0", kAverage));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(
      r.output,
      {"// a pooling split off its convolution: pooled into pooled_conv (the convolution) and pooled (its pooling); "
       "the convolution alone takes every dense strategy: explore searches these layers, and the definition whole "
       "(the convolution computed inside each pooling window) as their fused alternative (--whole-program: the "
       "program as written, not split)\n",
       "==== layer 1/2 (pooled_conv)\n// conv-pool-tile does not apply to this layer\n\n== strategy conv-gemm, "
       "alternative 1 of 2",
       "==== layer 2/2 (pooled)\n",
       "==== fused layer (pooled_conv+pooled: the two fused back into one definition, explore's alternative to the "
       "split)\n// conv-gemm does not apply to this layer\n\n== strategy conv-pool-tile, alternative 1 of 1"});
  Result whole = run(fmt::format("space {} -s conv-pool-tile --target mali-g72 --samples 0 --whole-program", kAverage));
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  EXPECT_NE(whole.output.find("== strategy conv-pool-tile, alternative 1 of 1"), std::string::npos) << whole.output;
  EXPECT_EQ(whole.output.find("pooled_conv"), std::string::npos) << whole.output;
}

// A batch of one image, each convolved and pooled in one definition, `map(img -> P(img),
// images)` (before, every strategy was offered it whole and code generation refused each):
// the convolution is split off and takes conv-gemm and conv-chw-tile, the pooling is lowered,
// and every front point's host program validates both.
TEST_F(ExploreCli, ABatchOfOneImagePooledInItsConvolutionsDefinitionIsSplitAndValidates) {
  std::ofstream(dir_ / "batch_pool.sr") << R"(size C = 2, H = 6, W = 6, M = 4, N = 1
input weights : [[[[float]C]3]3]M
input biases : [float]M
input images : [[[[float]C]W]H]N
def pooled = map(img -> map2D(pw -> join(map(c -> reduce(-inf, (a, v) -> max(a, v), c), transpose(join(pw)))),
                   slide2D(2, 2, 2, 2,
                     map2D(window -> join(map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1,
                                                                zip(join(join(window)), join(join(w)))),
                                              zip(weights, biases))),
                           slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, img))))), images)
)";
  Result r =
      run("explore batch_pool.sr -s conv-gemm -s conv-chw-tile --search random --pareto --evals 3 --jobs 1 "
          "-o out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(r.output,
                {"pooled into pooled_conv (the convolution) and pooled (its pooling)\n",
                 "layer 1/2 (pooled_conv): ", "of 2 strategies (conv-gemm, conv-chw-tile)", "network Pareto front"});
  EXPECT_EQ(r.output.find("code generation refuses"), std::string::npos) << r.output;
  std::string csv = read(dir_ / "out/evaluated.csv");
  EXPECT_TRUE(layer_validated_by(csv, "pooled_conv", "conv-gemm") ||
              layer_validated_by(csv, "pooled_conv", "conv-chw-tile"))
      << csv;
  expect_every_front_point_matches(*this, "batch_pool", "pooled: matches the expected values (36 values)");
}

// The same batch of one with the convolution and its pooling in two definitions, each a map
// over the batch: the convolution is fused into the pooling (before, no fused layer was made:
// the pooling's definition is a map over the convolution's batch, not a 2D map over its
// windows), normal-form takes both batch maps off (batch-of-one, batch-of-one-joined), and
// conv-pool-kappa finds the fused map inside the batch's view. Its points and host program
// validate.
TEST_F(ExploreCli, ABatchOfOneConvolutionIsFusedIntoItsPoolingDefinition) {
  std::ofstream(dir_ / "batch_layers.sr") << R"(size C = 2, H = 6, W = 6, M = 4, N = 1
input weights : [[[[float]C]3]3]M
input biases : [float]M
input images : [[[[float]C]W]H]N
def conv = map(img -> map2D(window -> join(map((w, b) -> map(v -> max(v, 0.0), reduce(b, (acc, p) -> acc + p.0 * p.1,
                                                                      zip(join(join(window)), join(join(w))))),
                                              zip(weights, biases))),
                            slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, img))), images)
def pooled = map(img -> map2D(pw -> join(map(c -> reduce(-inf, (a, v) -> max(a, v), c), transpose(join(pw)))),
                              slide2D(2, 2, 2, 2, img)), conv)
)";
  Result r = run(
      "explore batch_layers.sr -s conv-pool-kappa --fusion only --search random --pareto --evals 3 --jobs 1 -o out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(r.output, {"fused layer (conv+pooled): ", "network Pareto front"});
  EXPECT_TRUE(validated_by(read(dir_ / "out/evaluated.csv"), "conv-pool-kappa")) << read(dir_ / "out/evaluated.csv");
  expect_every_front_point_matches(*this, "batch_layers", "pooled: matches the expected values (36 values)");
}

// Half storage splits too (before, it explored the definition as written, which code
// generation refused for a residual add and a pooling in one definition): the three layers
// validate, the split-off convolution and its residual add keep their values in floats, as
// the definition as written does before it rounds, and the pooling, the program's output,
// stores halves. Every front point's host program validates.
TEST_F(ExploreCli, HalfStorageSplitsAPooledConvolutionAndKeepsWhatItSplitOffInFloats) {
  write_residual_pool(dir_);
  Result r =
      run("explore residual_pool.sr -s conv-chw-tile --storage half --search random --pareto --evals 3 --jobs 1 "
          "-o out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(r.output, {"network: 3 layers, 3 of a shape of their own, each explored with its own space and "
                           "reference (3 evaluations each): pooled_conv_conv, pooled_conv, pooled\n",
                           "fused layer (pooled_conv_conv+pooled_conv): ", "network Pareto front"});
  EXPECT_EQ(r.output.find("not also split"), std::string::npos) << r.output;
  std::string csv = read(dir_ / "out/evaluated.csv");
  EXPECT_TRUE(layer_validated_by(csv, "pooled_conv_conv", "conv-chw-tile")) << csv;
  std::string kernels = read(dir_ / "out/front/1/kernels.cl");
  // A buffer parameter of that storage and name: "half* restrict pooled" then ")" or ",".
  auto has_buffer = [&kernels](const std::string& type, const std::string& name) {
    std::string head = type + "* restrict " + name;
    return kernels.find(head + ")") != std::string::npos || kernels.find(head + ",") != std::string::npos;
  };
  EXPECT_TRUE(has_buffer("const half", "image")) << kernels;
  EXPECT_TRUE(has_buffer("global half", "pooled")) << kernels;
  EXPECT_TRUE(has_buffer("float", "pooled_conv") || has_buffer("float", "pooled_conv_conv")) << kernels;
  for (const char* split_off : {"pooled_conv", "pooled_conv_conv"})
    EXPECT_FALSE(has_buffer("half", split_off)) << kernels;
  expect_every_front_point_matches(*this, "residual_pool", "pooled: matches the expected values (64 values)");
}

// --whole-program explores the definition as written and says so; where no strategy then
// generates code for it (a residual add and a pooling in one definition), the error says that
// in the user's terms first, then code generation's reason.
TEST_F(ExploreCli, WholeProgramSaysWhyNoStrategyTakesAConvolutionWithItsPooling) {
  write_residual_pool(dir_);
  Result r = run("explore residual_pool.sr --whole-program --search random --evals 1 --jobs 1");
  EXPECT_NE(r.exit_code, 0) << r.output;
  expect_all_in(r.output, {"note: --whole-program: the convolution with its pooling is explored as written, not also "
                           "split",
                           "error: --whole-program: the convolution with its pooling is explored as written, in one "
                           "definition, which the strategies do not take here; explore without the flag to split it "
                           "into layers that they take (no strategy of rules/strategies.rules applies"});
}

}  // namespace
}  // namespace liftc::explore::test
