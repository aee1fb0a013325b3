// `liftc explore` on channel-first convolutions whose rows' one-element results are joined
// (a generality check's forms, issue 38): depthwise, map(row -> join(map(win -> reduce(..),
// row)), slide2D(..)) per channel (its CHW output, or brought back to HWC, or each plane's rows
// joined after a 2D map, or with dilated windows, or without biases), and dense, written kernel
// by kernel (with biases, or without: a map over the kernels alone). normal-form moves the
// joins out of the map over the channels (kernels) and then into each pixel before the
// transposes back (rows-joined-out-of-planes, -pairs, rows-joined-after-out-of-planes,
// rows-joined-out-of-kernels, joined-rows-into-pixels; zero-bias-depthwise-channel-first,
// kernels-outermost-no-bias): the fast strategies of their kind take them (before, only
// conv-chw, conv-lower and stencil-parametric did, and for a dense one without biases
// conv-naive, conv-gpu, conv-gpu-k0 and conv-chw-kappa too), and their points validate. Small
// sizes, two evaluations per strategy: a CI test on PoCL.

#include <filesystem>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "explore_cli.hpp"

namespace liftc::explore::test {
namespace {

const std::string kForms = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/forms/";

TEST_P(FormStrategiesCli, TakesItsKindsStrategiesAndValidates) {
  for (const char* strategy : GetParam().strategies) {
    SCOPED_TRACE(strategy);
    std::filesystem::remove_all(dir_ / "out");
    Result r = run(fmt::format("explore {}{}.sr -s {} --search random --evals 2 --jobs 2 -o out", kForms, GetParam().form,
                               strategy));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("code generation refuses"), std::string::npos) << r.output;
    EXPECT_TRUE(validated_by(read(dir_ / "out" / "evaluated.csv"), strategy)) << read(dir_ / "out" / "evaluated.csv");
  }
}

INSTANTIATE_TEST_SUITE_P(
    ChwRows, FormStrategiesCli,
    ::testing::Values(FormCase{"depthwise_chw_rows_joined", {"conv-depthwise-kappa", "conv-depthwise-local"}},
                      FormCase{"depthwise_chw_rows_joined_hwc_out", {"conv-depthwise-tile"}},
                      FormCase{"depthwise_chw_join_after", {"conv-depthwise-local"}},
                      FormCase{"depthwise_chw_dilated_rows_joined", {"conv-depthwise-tile"}},
                      FormCase{"depthwise_chw_no_bias", {"conv-depthwise-kappa"}},
                      FormCase{"chw_kernels_outermost_rows_joined", {"conv-chw-tile-local", "conv-winograd-local"}},
                      FormCase{"chw_kernels_outermost_no_bias", {"conv-chw-tile-split"}}),
    [](const auto& info) { return std::string(info.param.form); });

}  // namespace
}  // namespace liftc::explore::test
