// `liftc explore` on convolutions whose ReLU is a pass of its own over their output (a
// generality check's forms, issue 38): depthwise in HWC, depthwise channel-first, and dense
// channel-first, the pass in the convolution's definition (examples/conv/forms/*_relu_pass.sr),
// and a depthwise layer whose ReLU is a definition of its own before a pointwise layer. Before,
// code generation refused every alternative of the depthwise ones and all but 2 of the dense
// one's (the pass stayed outside the convolution's maps), and the pointwise layer was never
// fused with the depthwise one. normal-form now fuses the pass into each sum
// (activation-pass-into-windows-triples, -triples-unjoined, activation-into-kernels-triples,
// pass-before-planes-transposed), and explore chains the fusions (the ReLU into the depthwise
// layer, then that into the pointwise one). Small sizes, two evaluations per strategy: a CI
// test on PoCL.

#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "explore_cli.hpp"

namespace liftc::explore::test {
namespace {

// The forms and their kind's strategies: FormStrategiesCli (explore_cli.hpp).
INSTANTIATE_TEST_SUITE_P(
    ReluPass, FormStrategiesCli,
    ::testing::Values(FormCase{"depthwise_relu_pass", {"conv-depthwise-tile", "conv-depthwise-local"}},
                      FormCase{"depthwise_chw_relu_pass", {"conv-depthwise-kappa"}},
                      FormCase{"chw_relu_pass", {"conv-chw-tile", "conv-winograd-local"}},
                      FormCase{"depthwise_bias_pass", {"conv-depthwise-tile"}},
                      FormCase{"depthwise_chw_rows_joined_leaky_pass", {"conv-depthwise-kappa"}},
                      FormCase{"chw_rows_joined_relu_pass", {"conv-gemm"}},
                      FormCase{"depthwise_chw_bias_inner_pass", {"conv-depthwise-local"}},
                      FormCase{"chw_rows_joined_relu_inner_pass", {"conv-chw-tile-split"}},
                      FormCase{"chw_bias_pass", {"conv-chw-tile"}},
                      FormCase{"depthwise_chw_bias_relu_pass", {"conv-depthwise-tile"}},
                      FormCase{"chw_oihw_no_bias", {"conv-chw-tile", "conv-winograd-gemm"}},
                      FormCase{"chw_oihw_no_bias_kernel_first", {"conv-gemm"}},
                      FormCase{"chw_bias_pass_unjoined", {"conv-chw-tile", "conv-winograd-gemm"}},
                      FormCase{"depthwise_dilated_windows_first", {"conv-depthwise-tile", "conv-depthwise-local"}},
                      FormCase{"depthwise_flat_columns", {"conv-depthwise-tile"}},
                      FormCase{"depthwise_flat_window_columns", {"conv-depthwise-local"}},
                      FormCase{"depthwise_zipped_positions", {"conv-depthwise-tile"}},
                      FormCase{"depthwise_chw_dilated_1x1_windows", {"conv-depthwise-local"}},
                      FormCase{"depthwise_multiplier_chw", {"conv-depthwise-local", "conv-depthwise-tile"}},
                      FormCase{"depthwise_multiplier_chw_no_bias", {"conv-depthwise-tile"}},
                      FormCase{"depthwise_multiplier_no_bias", {"conv-depthwise-kappa"}},
                      FormCase{"depthwise_kernel_window_bias", {"conv-depthwise-tile"}},
                      FormCase{"depthwise_chw_kernel_plane_bias", {"conv-depthwise-local"}},
                      FormCase{"conv1d", {"conv-chw-tile", "conv-gemm"}},
                      FormCase{"conv1d_per_kernel", {"conv-chw-tile-local", "conv-gemm"}},
                      FormCase{"conv1d_joined_relu", {"conv-chw-tile", "conv-gemm"}},
                      FormCase{"conv1d_chw_relu", {"conv-chw-tile-m0", "conv-chw-tile-split"}},
                      FormCase{"conv1d_dilated", {"conv-chw-tile-local", "conv-gemm"}},
                      FormCase{"conv1d_kernels_transposed", {"conv-chw-tile", "conv-gemm"}},
                      FormCase{"conv1d_per_kernel_projections", {"conv-chw-tile-split", "conv-gemm"}}),
    [](const auto& info) { return std::string(info.param.form); });

// A depthwise layer, then a pass of its own over its output, then a pointwise layer: the pass
// is fused into the depthwise layer, and that into the pointwise one (conv-dw-pw-private takes
// it), whose points and host program validate.
// - A ReLU (dw+act+pw): before, no depthwise-pointwise fusion was made through it.
// - A bias zipped per pixel, the depthwise sums from 0.0 (dw+biased+pw; gen27's form): explore
//   stopped with a type error of a fused layer it made ("join: expected an array of arrays":
//   the depthwise layer with the pass around it was taken for one whose windows were the
//   pass's pixels); bias-pass-into-windows-depthwise now fuses the pass into the sums.
// - The same two with a pointwise layer without biases, the depthwise kernels stored
//   [K][K][C] and read as columns of the flattened block (TensorFlow's layout), or the
//   pointwise products written kernel first (gen29's forms): before, the pointwise layer got
//   only conv-lower and stencil-parametric and the fused layer no conv-dw-pw strategy
//   (join-out-of-windows-no-bias; dw-pw-pointwise-zero-biases).
struct PassNetworkCase {
  const char* name;
  const char* program;
  const char* fused;  // the fused layer's label
};

void PrintTo(const PassNetworkCase& c, std::ostream* os) { *os << c.name; }

class PassBetweenLayersCli : public ExploreCli, public ::testing::WithParamInterface<PassNetworkCase> {};

TEST_P(PassBetweenLayersCli, IsFusedIntoTheDepthwiseAndPointwiseLayers) {
  std::ofstream(dir_ / (std::string(GetParam().name) + ".sr")) << GetParam().program;
  Result r =
      run(fmt::format("explore {}.sr -s conv-dw-pw-private --fusion only --search random --pareto --evals 2 "
                      "--jobs 2 -o out",
                      GetParam().name));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(r.output, {GetParam().fused, "network Pareto front"});
  EXPECT_EQ(r.output.find("not offered"), std::string::npos) << r.output;
  EXPECT_TRUE(validated_by(read(dir_ / "out" / "evaluated.csv"), "conv-dw-pw-private"))
      << read(dir_ / "out" / "evaluated.csv");
  expect_every_front_point_matches(*this, GetParam().name, "pw: matches the expected values (288 values)");
}

INSTANTIATE_TEST_SUITE_P(
    ReluPass, PassBetweenLayersCli,
    ::testing::Values(PassNetworkCase{"dw_relu_pw", R"(size C = 4, H = 6, W = 6, M = 8, K = 3
input img : [[[float]C]W]H
input dw_w : [[[float]K]K]C
input dw_b : [float]C
input pw_w : [[float]C]M
input pw_b : [float]M
def dw = map2D(win -> join(map((w, b, cw) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(join(cw), join(w))),
                               zip(dw_w, dw_b, transpose(map(transpose, win))))),
               slide2D(K, K, 1, 1, pad2D(1, 1, 1, 1, 0.0, img)))
def act = map2D(px -> map(v -> max(v, 0.0), px), dw)
def pw = map2D(px -> join(map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(px, w)), zip(pw_w, pw_b))), act)
)",
                                      "fused layer (dw+act+pw): "},
                      PassNetworkCase{"dw_bias_pw", R"(size C = 4, H = 6, W = 6, M = 8, K = 3
input dw_w : [[[float]K]K]C
input dw_b : [float]C
input pw_w : [[float]C]M
input pw_b : [float]M
input image : [[[float]C]W]H
def dw = map2D(window -> join(map((w, cw) -> reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(join(w), join(cw))),
                                  zip(dw_w, transpose(map(transpose, window))))),
               slide2D(K, K, 1, 1, pad2D(1, 1, 1, 1, 0.0, image)))
def biased = map2D(px -> map((v, b) -> v + b, zip(px, dw_b)), dw)
def pw = map2D(px -> join(map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(px, w)), zip(pw_w, pw_b))), biased)
)",
                                      "fused layer (dw+biased+pw): "},
                      PassNetworkCase{"dw_columns_relu_pw_no_bias", R"(size C = 4, H = 6, W = 6, M = 8, K = 3
input dw_w : [[[float]C]K]K
input pw_w : [[float]C]M
input image : [[[float]C]W]H
def dw = map2D(window -> join(map(p -> reduce(0.0, (acc, q) -> acc + q.0 * q.1, zip(p.0, p.1)),
                                  zip(transpose(join(window)), transpose(join(dw_w))))),
               slide2D(K, K, 1, 1, pad2D(1, 1, 1, 1, 0.0, image)))
def act = map2D(px -> map(v -> max(v, 0.0), px), dw)
def pw = map2D(px -> join(map(w -> reduce(0.0, (acc, q) -> acc + q.0 * q.1, zip(px, w)), pw_w)), act)
)",
                                      "fused layer (dw+act+pw): "},
                      PassNetworkCase{"dw_bias_pw_no_bias_kernel_first", R"(size C = 4, H = 6, W = 6, M = 8, K = 3
input dw_w : [[[float]K]K]C
input dw_b : [float]C
input pw_w : [[float]C]M
input image : [[[float]C]W]H
def dw = map2D(window -> join(map((k, col) -> reduce(0.0, (acc, q) -> acc + q.0 * q.1, zip(join(k), col)),
                                  zip(dw_w, transpose(join(window))))),
               slide2D(K, K, 1, 1, pad2D(1, 1, 1, 1, 0.0, image)))
def biased = map2D(px -> map((v, b) -> v + b, zip(px, dw_b)), dw)
def pw = map2D(px -> join(map(w -> reduce(0.0, (acc, q) -> acc + q.1 * q.0, zip(w, px)), pw_w)), biased)
)",
                                      "fused layer (dw+biased+pw): "}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace liftc::explore::test
