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

const std::string kForms = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/forms/";

struct PassCase {
  const char* form;
  std::vector<const char*> strategies;
};

void PrintTo(const PassCase& c, std::ostream* os) { *os << c.form; }

class ActivationPassCli : public ExploreCli, public ::testing::WithParamInterface<PassCase> {};

TEST_P(ActivationPassCli, TakesItsKindsStrategiesAndValidates) {
  for (const char* strategy : GetParam().strategies) {
    SCOPED_TRACE(strategy);
    std::filesystem::remove_all(dir_ / "out");
    Result r = run(fmt::format("explore {}{}.sr -s {} --search random --evals 2 --jobs 2 -o out", kForms,
                               GetParam().form, strategy));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("code generation refuses"), std::string::npos) << r.output;
    EXPECT_TRUE(validated_by(read(dir_ / "out" / "evaluated.csv"), strategy)) << read(dir_ / "out" / "evaluated.csv");
  }
}

INSTANTIATE_TEST_SUITE_P(ReluPass, ActivationPassCli,
                         ::testing::Values(PassCase{"depthwise_relu_pass",
                                                    {"conv-depthwise-tile", "conv-depthwise-local"}},
                                           PassCase{"depthwise_chw_relu_pass", {"conv-depthwise-kappa"}},
                                           PassCase{"chw_relu_pass", {"conv-chw-tile", "conv-winograd-local"}},
                                           PassCase{"depthwise_bias_pass", {"conv-depthwise-tile"}},
                                           PassCase{"depthwise_chw_rows_joined_leaky_pass", {"conv-depthwise-kappa"}},
                                           PassCase{"chw_rows_joined_relu_pass", {"conv-gemm"}},
                                           PassCase{"depthwise_chw_bias_inner_pass", {"conv-depthwise-local"}},
                                           PassCase{"chw_rows_joined_relu_inner_pass", {"conv-chw-tile-split"}},
                                           PassCase{"chw_bias_pass", {"conv-chw-tile"}},
                                           PassCase{"depthwise_chw_bias_relu_pass", {"conv-depthwise-tile"}}),
                         [](const auto& info) { return std::string(info.param.form); });

// A depthwise layer, its ReLU a definition of its own, then a pointwise layer: the ReLU is
// fused into the depthwise layer (dwo+act), and that into the pointwise one (dwo+act+pwo),
// which conv-dw-pw-private takes; every front point's host program validates.
TEST_F(ExploreCli, AReluBetweenADepthwiseAndAPointwiseLayerIsFusedIntoBoth) {
  std::ofstream(dir_ / "dw_relu_pw.sr") << R"(size C = 4, H = 6, W = 6, M = 8, K = 3
input img : [[[float]C]W]H
input dw  : [[[float]K]K]C
input dwb : [float]C
input pw  : [[float]C]M
input pwb : [float]M
def dwo = map2D(win -> join(map((w, b, cw) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(join(cw), join(w))),
                                zip(dw, dwb, transpose(map(transpose, win))))),
                slide2D(K, K, 1, 1, pad2D(1, 1, 1, 1, 0.0, img)))
def act = map2D(px -> map(v -> max(v, 0.0), px), dwo)
def pwo = map2D(px -> join(map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(px, w)), zip(pw, pwb))), act)
)";
  Result r =
      run("explore dw_relu_pw.sr -s conv-dw-pw-private --fusion only "
          "--search random --pareto --evals 2 --jobs 2 -o out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(r.output, {"fused layer (dwo+act+pwo): ", "conv-dw-pw-private", "network Pareto front"});
  EXPECT_EQ(r.output.find("not offered"), std::string::npos) << r.output;
  EXPECT_TRUE(validated_by(read(dir_ / "out" / "evaluated.csv"), "conv-dw-pw-private"))
      << read(dir_ / "out" / "evaluated.csv");
  expect_every_front_point_matches(*this, "dw_relu_pw", "pwo: matches the expected values (288 values)");
}

// A depthwise layer whose bias is a definition of its own, a pass zipping each pixel with the
// biases, before a pointwise layer (gen27's form): explore stopped with a type error of a
// fused layer it made ("join: expected an array of arrays"; the depthwise layer with the pass
// around it was taken for a depthwise layer whose windows were the pass's pixels). The pass is
// fused into the depthwise layer (bias-pass-into-windows-depthwise), and that into the
// pointwise one (dw+biased+pw), whose points and host program validate.
TEST_F(ExploreCli, ABiasPassBetweenADepthwiseAndAPointwiseLayerIsFusedIntoBoth) {
  std::ofstream(dir_ / "dw_bias_pw.sr") << R"(size C = 4, H = 6, W = 6, M = 8, K = 3
input dw_w  : [[[float]K]K]C
input dw_b  : [float]C
input pw_w  : [[float]C]M
input pw_b  : [float]M
input image : [[[float]C]W]H
def dw = map2D(window -> join(map((w, cw) -> reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(join(w), join(cw))),
                                  zip(dw_w, transpose(map(transpose, window))))),
               slide2D(K, K, 1, 1, pad2D(1, 1, 1, 1, 0.0, image)))
def biased = map2D(px -> map((v, b) -> v + b, zip(px, dw_b)), dw)
def pw = map2D(px -> join(map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(px, w)), zip(pw_w, pw_b))), biased)
)";
  Result r =
      run("explore dw_bias_pw.sr -s conv-dw-pw-private --fusion only --search random --pareto --evals 2 --jobs 2 "
          "-o out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(r.output, {"fused layer (dw+biased+pw): ", "network Pareto front"});
  EXPECT_TRUE(validated_by(read(dir_ / "out" / "evaluated.csv"), "conv-dw-pw-private"))
      << read(dir_ / "out" / "evaluated.csv");
  expect_every_front_point_matches(*this, "dw_bias_pw", "pw: matches the expected values (288 values)");
}

}  // namespace
}  // namespace liftc::explore::test
