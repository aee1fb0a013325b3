// `liftc explore` on dilated convolutions: the dilation written by padding, splitting in pairs
// and keeping each pair's first value (examples/conv/forms/dilated_pad_split.sr, which
// normal-form reads as dilated.sr's join(slide(1, 2, ...)): pad-split-take-first-element) gets
// the register tile, the GEMM and both local-memory strategies, and the split-K local tiles
// take dilated.sr itself (conv-block-rows-split-dilated). Small sizes, a few evaluations per
// strategy: a CI test on PoCL.

#include <string>

#include <gtest/gtest.h>

#include "explore_cli.hpp"

namespace liftc::explore::test {
namespace {

const std::string kForms = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/forms/";


// Each strategy explored on its own with two evaluations: it is offered (its space has
// alternatives, none refused by code generation), and a point validates against the
// interpreter.
TEST_F(ExploreCli, ADilationByPaddingAndSplittingGetsTheTileGemmAndLocalStrategies) {
  struct Case {
    const char* form;
    const char* strategy;
  };
  for (const Case& c : {Case{"dilated_pad_split.sr", "conv-chw-tile"}, Case{"dilated_pad_split.sr", "conv-gemm"},
                        Case{"dilated_pad_split.sr", "conv-chw-tile-local"},
                        Case{"dilated_pad_split.sr", "conv-chw-tile-split"}, Case{"dilated.sr", "conv-chw-tile-split"}}) {
    SCOPED_TRACE(std::string(c.form) + " " + c.strategy);
    std::string out = std::string(c.strategy) + "-" + std::string(c.form).substr(0, std::string(c.form).size() - 3);
    Result r = run(fmt::format("explore {}{} -s {} --search random --evals 2 --jobs 2 -o {}", kForms, c.form, c.strategy, out));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("space: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("2 candidates in "), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("code generation refuses"), std::string::npos) << r.output;
    EXPECT_TRUE(validated_by(read(dir_ / out / "evaluated.csv"), c.strategy)) << r.output;
  }
}

}  // namespace
}  // namespace liftc::explore::test
