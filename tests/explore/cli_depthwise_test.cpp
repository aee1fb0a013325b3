// `liftc explore` with conv-depthwise-local (rules/depthwise_local.rules): a depthwise
// convolution in work-groups of tau windows of a row x gamma channels, each block's input tile
// with its halo copied into local memory, then a sigma x kappa register tile per work-item
// from there. The HWC form, the channel-first one, MobileNet's stride-2 form with ReLU6 and
// MobileNetV2's block (its depthwise layer: ReLU6, each pixel's values joined). Small sizes,
// a few evaluations per strategy: a CI test on PoCL.

#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "explore_cli.hpp"

namespace liftc::explore::test {
namespace {

const std::string kForms = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/forms/";

// Each form explored with two evaluations: the strategy is offered (its space has
// alternatives, none refused by code generation), and a point validates against the
// interpreter.
TEST_F(ExploreCli, DepthwiseLocalTilesValidateOnTheDepthwiseForms) {
  for (const char* form : {"depthwise.sr", "depthwise_chw.sr", "depthwise_stride2.sr"}) {
    SCOPED_TRACE(form);
    std::string out = std::string(form).substr(0, std::string(form).size() - 3);
    Result r = run(fmt::format("explore {}{} -s conv-depthwise-local --search random --evals 2 --jobs 2 -o {}", kForms, form, out));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("space: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("2 candidates in "), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("code generation refuses"), std::string::npos) << r.output;
    EXPECT_TRUE(validated_by(read(dir_ / out / "evaluated.csv"), "conv-depthwise-local")) << r.output;
  }
}

// MobileNetV2's block (examples/networks/mobilenet_v2_block.sr) explored layer by layer: its
// depthwise layer (ReLU6 after each sum, each pixel's E values joined) takes
// conv-depthwise-local, the other layers the fallback, and a point of it validates.
TEST_F(ExploreCli, MobileNetV2DepthwiseLayerTakesLocalTilesAndValidates) {
  const std::string path = std::string(LIFTC_SOURCE_DIR) + "/examples/networks/mobilenet_v2_block.sr";
  Result r = run(fmt::format("explore {} -s conv-depthwise-local --fusion off --search random --evals 2 --jobs 2 -o out", path));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::size_t at = r.output.find("layer 2/4 (depthwise): ");
  ASSERT_NE(at, std::string::npos) << r.output;
  std::string line = r.output.substr(at, r.output.find('\n', at) - at);
  EXPECT_NE(line.find("of 1 strategy (conv-depthwise-local)"), std::string::npos) << line;
  EXPECT_EQ(r.output.find("code generation refuses"), std::string::npos) << r.output;
  EXPECT_TRUE(layer_validated_by(read(dir_ / "out" / "evaluated.csv"), "depthwise", "conv-depthwise-local"))
      << r.output;
}

}  // namespace
}  // namespace liftc::explore::test
