// `liftc explore` on convolutions followed by a batch norm folded into a scale and a shift per
// output channel (a generality check's forms, issue 38): in the convolution's definition
// (examples/conv/forms/*_scale_shift_relu.sr) and as definitions of their own
// (examples/networks/conv_bn_relu_chw.sr). Before, no strategy's epilogue read a kernel's scale
// and shift, so only the generic strategies took them, and the fused layer was refused by code
// generation. normal-form now folds the scale into the kernels and the shift into the biases
// (rules/normalize.rules, "a per-channel scale and shift"). Small sizes, two or three
// evaluations per strategy: a CI test on PoCL.

#include <filesystem>
#include <initializer_list>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "explore_cli.hpp"

namespace liftc::explore::test {
namespace {

// The forms and their kind's strategies: FormStrategiesCli (explore_cli.hpp).
INSTANTIATE_TEST_SUITE_P(ScaleShift, FormStrategiesCli,
                         ::testing::Values(FormCase{"conv_scale_shift_relu",
                                                    {"conv-chw-tile-m0", "conv-winograd-local"}},
                                           FormCase{"chw_scale_shift_relu", {"conv-chw-tile", "conv-gemm"}},
                                           FormCase{"conv_gain_relu", {"conv-chw-tile-split", "conv-winograd-gemm"}},
                                           FormCase{"chw_bias_gain_relu", {"conv-chw-tile-local", "conv-gemm"}},
                                           FormCase{"conv_batch_norm_relu", {"conv-chw-tile", "conv-winograd-local"}},
                                           FormCase{"conv_batch_norm_in_kernels", {"conv-chw-tile-m0", "conv-gemm"}}),
                         [](const auto& info) { return std::string(info.param.form); });

// Each of `strategies` explored alone on the fused layer `layer` of `file` (--fusion only, two
// random points): it is offered the layer, and some point of it validates.
void expect_each_validates_the_fused_layer(ExploreCli& cli, const std::string& file, const std::string& layer,
                                           std::initializer_list<const char*> strategies) {
  for (const char* strategy : strategies) {
    SCOPED_TRACE(strategy);
    std::filesystem::remove_all(cli.dir() / "out");
    Result r = cli.run(
        fmt::format("explore {} -s {} --fusion only --search random --evals 2 --jobs 2 -o out", file, strategy));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("not offered"), std::string::npos) << r.output;
    const std::string csv = cli.read(cli.dir() / "out/evaluated.csv");
    EXPECT_TRUE(layer_validated_by(csv, layer, strategy)) << csv;
  }
}

// Each convolution with its batch norm (and the first with its ReLU) fused: both fused layers
// take the register tile and Winograd, their points validate, and so does the host program of
// each point of the network's front, which holds neither the convolutions' outputs nor the
// batch norms'.
TEST_F(ExploreCli, ABatchNormOfItsOwnIsFoldedIntoTheConvolutionBefore) {
  const std::string network = std::string(LIFTC_SOURCE_DIR) + "/examples/networks/conv_bn_relu_chw.sr";
  Result r = run(fmt::format(
      "explore {} -s conv-chw-tile -s conv-winograd-gemm --fusion only --search random --pareto --evals 3 --jobs 2 "
      "-o out",
      network));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(r.output, {"fused layer (conv1+bn1+relu1): 10 alternative(s) of 2 strategies (conv-chw-tile, "
                           "conv-winograd-gemm)",
                           "fused layer (conv2+bn2): 10 alternative(s) of 2 strategies (conv-chw-tile, "
                           "conv-winograd-gemm)",
                           "network Pareto front"});
  EXPECT_EQ(r.output.find("not offered"), std::string::npos) << r.output;
  const std::string csv = read(dir_ / "out/evaluated.csv");
  for (const char* layer : {"conv1+bn1+relu1", "conv2+bn2"})
    EXPECT_TRUE(layer_validated_by(csv, layer, "conv-chw-tile") || layer_validated_by(csv, layer, "conv-winograd-gemm"))
        << layer << "\n"
        << csv;
  expect_every_front_point_matches(*this, "conv_bn_relu_chw", "bn2: matches the expected values (512 values)");
}

// A per-channel gain without a shift as a definition of its own over a convolution's pixels
// (before, the fused layer was refused by code generation): folded into the kernels and the
// biases, the fused layer takes the tiles, the GEMM and Winograd, and its points validate.
TEST_F(ExploreCli, AGainOfItsOwnIsFoldedIntoTheConvolutionBefore) {
  std::ofstream(dir_ / "gain.sr") << R"(size H = 6, W = 6, C = 4, M = 8
input image : [[[float]C]W]H
input weights : [[[[float]C]3]3]M
input biases : [float]M
input gains : [float]M
def conv = map2D(win -> join(map((w, b) -> reduce(b, (acc, q) -> acc + q.0 * q.1, zip(join(join(win)), join(join(w)))),
                                 zip(weights, biases))),
                 slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, image)))
def scaled = map2D(px -> map((v, g) -> v * g, zip(px, gains)), conv)
)";
  expect_each_validates_the_fused_layer(*this, "gain.sr", "conv+scaled",
                                        {"conv-chw-tile", "conv-gemm", "conv-winograd-gemm"});
}

// The same gain as a channel-first pass of its own over a biased convolution's planes, the
// gain first in its zip (a generality check's): normal-form merges the fused layer's pass into
// the map over the kernels, (kernel, gain, bias) triples, which only the generic strategies
// took before; folded there (scale-into-weights-kernels-outermost), it takes the tiles and
// Winograd, and its points validate.
TEST_F(ExploreCli, AChannelFirstGainOfItsOwnIsFoldedIntoTheBiasedConvolutionBefore) {
  std::ofstream(dir_ / "gain.sr") << R"(size C = 4, H = 8, W = 8, M = 8
input x    : [[[float]W]H]C
input wts  : [[[[float]3]3]C]M
input bias : [float]M
input gain : [float]M
def windows(img) = map(transpose, transpose(map(ch -> slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, ch)), img)))
def conv = map((k, b) -> map(join, map2D(win -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(join(join(win)), join(join(k)))),
                                         windows(x))),
               zip(wts, bias))
def act = map((g, plane) -> map2D(v -> max(0.0, g * v), plane), zip(gain, conv))
)";
  expect_each_validates_the_fused_layer(*this, "gain.sr", "conv+act", {"conv-chw-tile", "conv-winograd-local"});
}

// A batch norm written out with its running statistics (gamma * (v - mean) / sqrt(var + eps) +
// beta, PyTorch's order of the four arrays) as a definition of its own over a channel-first
// convolution's planes: before, the fused layer was refused by code generation. Its pass is
// read per pixel, its scale and shift computed by kernels of their own and folded into the
// kernels and biases: the fused layer takes the tile and Winograd, its points validate, and so
// does the front point's host program, which holds no buffer for the convolution's output.
TEST_F(ExploreCli, ABatchNormWrittenOutIsFoldedIntoTheConvolutionBefore) {
  std::ofstream(dir_ / "bn.sr") << R"(size C = 4, H = 8, W = 8, M = 6
input weights : [[[[float]3]3]C]M
input biases  : [float]M
input mean : [float]M
input var : [float]M
input gamma : [float]M
input beta : [float]M
input image : [[[float]W]H]C
def windows(x) = map(transpose, transpose(map(ch -> slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, ch)), x)))
def conv = map((w, b) -> map(join, map2D(win -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(join(join(win)), join(join(w)))),
                                         windows(image))),
               zip(weights, biases))
def bn = map((u, m, q, g, b) -> map2D(v -> max(g * (v - m) / sqrt(q + 1.5) + b, 0.0), u), zip(conv, mean, var, gamma, beta))
)";
  Result r = run(
      "explore bn.sr -s conv-chw-tile -s conv-winograd-gemm --fusion only --search random --pareto --evals 3 --jobs 2 "
      "-o out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(r.output,
                {"fused layer (conv+bn): 8 alternative(s) of 2 strategies (conv-chw-tile, conv-winograd-gemm)",
                 "network Pareto front"});
  const std::string csv = read(dir_ / "out/evaluated.csv");
  EXPECT_TRUE(layer_validated_by(csv, "conv+bn", "conv-chw-tile") ||
              layer_validated_by(csv, "conv+bn", "conv-winograd-gemm"))
      << csv;
  Result host = run_front_point(*this, "bn");
  ASSERT_EQ(host.exit_code, 0) << host.output;
  EXPECT_NE(host.output.find("bn: matches the expected values (384 values)"), std::string::npos) << host.output;
  EXPECT_EQ(host.output.find("conv: "), std::string::npos) << host.output;
}

// The same batch norm over a convolution without biases written kernel by kernel, its
// (plane, mean, var, gamma, beta) quintuples read through projections, t.0 to t.4 (a
// generality check's form: the fused layer was refused by code generation). Destructured
// (quintuple-projections-scalars-last), it is folded as above: the fused layer takes the
// tiles, the GEMM and Winograd, and its points validate.
TEST_F(ExploreCli, ABatchNormWrittenOutThroughProjectionsIsFoldedIntoTheConvolutionBefore) {
  std::ofstream(dir_ / "bn.sr") << R"(size C = 4, H = 8, W = 8, M = 8
input x     : [[[float]W]H]C
input w     : [[[[float]3]3]C]M
input mean  : [float]M
input var   : [float]M
input gamma : [float]M
input beta  : [float]M
def windows(xs) = map(transpose, transpose(map(p -> slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, p)), xs)))
def conv = map(k -> map(row -> join(map(win -> reduce(0.0, (a, t) -> a + t.0 * t.1, zip(join(join(win)), join(join(k)))), row)),
                        windows(x)),
               w)
def bnrelu = map(t -> map(row -> map(v -> max((v - t.1) / sqrt(t.2 + 1.5) * t.3 + t.4, 0.0), row), t.0),
                 zip(conv, mean, var, gamma, beta))
)";
  expect_each_validates_the_fused_layer(*this, "bn.sr", "conv+bnrelu", {"conv-chw-tile-split", "conv-winograd-gemm"});
}

}  // namespace
}  // namespace liftc::explore::test
