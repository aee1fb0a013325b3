// `liftc explore` on a convolution and its 2x2 max pooling whose pooled pixels' one-element
// results are not joined (issue 38): map(c -> reduce(..., c), transpose(join(window))) per
// pooled pixel, where examples/networks/vgg_block.sr joins them. normal-form reads it as each
// channel's 2D block of the window (pool-channels-as-blocks), the form the pooled convolution's
// strategies take; in one definition (examples/conv/fused/conv_pool_unjoined.sr) and as two
// that explore fuses (conv_pool_unjoined_layers.sr). Small shapes (6x6 image, 2 to 4
// channels), few evaluations, every front point's host program validating the pooled values.

#include <filesystem>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "explore_cli.hpp"

namespace liftc::explore::test {
namespace {

namespace fs = std::filesystem;

const std::string kFused = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/fused/";

// Runs the host program of every point of out/front and expects each to validate the
// network's pooled output (3x3 pooled pixels of 4 one-element channels).
void expect_front_validates(ExploreCli& cli, const std::string& program) {
  expect_every_front_point_matches(cli, program, "pooled: matches the expected values (36 values)");
}

// The one-definition form takes conv-pool-tile-rt (it was refused: its step
// pool-register-tile-form applied nowhere), and conv-pool-tile and conv-pool-kappa with it.
// Explored as written (--whole-program): without it explore splits the convolution off its
// pooling and offers the definition as written as the fused alternative
// (cli_pool_split_test.cpp).
TEST_F(ExploreCli, AnUnjoinedPoolingOfAConvolutionTakesThePooledStrategies) {
  Result r = run(fmt::format("explore {}conv_pool_unjoined.sr -s conv-pool-tile-rt --whole-program --pareto --evals 4 "
                             "--runs 2 --jobs 1 -o out",
                             kFused));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(r.output, {"space: 1 alternative(s)", "conv-pool-tile-rt #1"});
  EXPECT_EQ(read(dir_ / "out/front/1/kernels.cl").find("gtmp"), std::string::npos);  // the sums private: no scratch buffer
  expect_front_validates(*this, "conv_pool_unjoined");

  Result all = run(fmt::format("explore {}conv_pool_unjoined.sr -s conv-pool-tile -s conv-pool-kappa -s conv-pool-tile-rt "
                               "--whole-program --evals 3 --runs 2 --jobs 1 --db all.db",
                               kFused));
  ASSERT_EQ(all.exit_code, 0) << all.output;
  // conv-pool-tile's one alternative, two of conv-pool-kappa's (1: float2 dot products, 5:
  // scalar; 4 and 8 lanes do not divide a window's 18 values) and conv-pool-tile-rt's one.
  EXPECT_NE(all.output.find("space: 4 alternative(s)"), std::string::npos) << all.output;
  EXPECT_EQ(all.output.find("not apply"), std::string::npos) << all.output;
}

// The two definitions fused (--fusion only): the fused layer conv+pooled takes
// conv-pool-tile-rt (before, no strategy had a valid point: the fallback's code generation
// refused the layer), and its kernel writes no conv buffer.
TEST_F(ExploreCli, AnUnjoinedPoolingLayerFusedWithItsConvolutionTakesARegisterTile) {
  Result r = run(fmt::format("explore {}conv_pool_unjoined_layers.sr -s conv-pool-tile-rt --fusion only --pareto --evals 4 "
                             "--runs 2 --jobs 1 -o out",
                             kFused));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(r.output, {"fused layer (conv+pooled): 1 alternative(s) of 1 strategy (conv-pool-tile-rt)",
                           "network #1          conv+pooled: conv-pool-tile-rt #1"});
  std::string kernels = read(dir_ / "out/front/1/kernels.cl");
  EXPECT_NE(kernels.find("kernel void pooled_kernel("), std::string::npos) << kernels;
  EXPECT_EQ(kernels.find("conv"), std::string::npos) << kernels;
  expect_front_validates(*this, "conv_pool_unjoined_layers");
}

// A strategy the fused layer does not take (conv-local: its work-groups cover the whole
// image) leaves it to explore's fallback lowering, which lowers its normal form: the
// convolution's outputs computed inside each pooling window by the pooled pixel's work-item.
// Lowered as written, every work-item would have computed the whole convolution, which code
// generation refuses ("mapSeq runs outside every parallel map ..."): the fused layer had no
// valid point.
TEST_F(ExploreCli, AFusedLayerNoStrategyTakesIsLoweredFromItsNormalForm) {
  Result r = run(fmt::format("explore {}conv_pool_unjoined_layers.sr -s conv-local --pareto --evals 3 --runs 2 --jobs 1 -o out",
                             kFused));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(r.output, {"layer 1/2 (conv): 2 alternative(s) of 1 strategy (conv-local)",
                           "fused layer (conv+pooled): 1 alternative(s) of 1 strategy (lower-glb2)",
                           "note: fused layer (conv+pooled): conv-local does not apply to it: lowered by lower-glb2, as a "
                           "layer no strategy applies to"});
  EXPECT_EQ(r.output.find("refuses"), std::string::npos) << r.output;
  // The fused layer's candidates ran (the first of a layer is never cut).
  std::istringstream rows(read(dir_ / "out/evaluated.csv"));
  int fused_ok = 0;
  for (std::string row; std::getline(rows, row);)
    if (row.rfind("conv+pooled,", 0) == 0 && row.find(",ok,") != std::string::npos) ++fused_ok;
  EXPECT_GE(fused_ok, 1) << read(dir_ / "out/evaluated.csv");
  expect_front_validates(*this, "conv_pool_unjoined_layers");
}

}  // namespace
}  // namespace liftc::explore::test
