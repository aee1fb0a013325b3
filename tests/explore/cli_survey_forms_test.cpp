// scripts/survey_forms.py: each (form, strategy) pair sorted into offered (valid points on the
// device), refused (the step that applies nowhere and what it needs) or neither, which fails
// the survey. Run on two of examples/conv/forms and on a program liftc rejects.

#include <filesystem>
#include <fstream>
#include <string>

#include "explore_cli.hpp"

namespace liftc::explore::test {
namespace {

namespace fs = std::filesystem;

class SurveyForms : public ExploreCli {
 protected:
  // The forms named, copied from examples/conv/forms into the test's folder forms/.
  fs::path forms(std::initializer_list<const char*> names) {
    fs::path folder = dir() / "forms";
    fs::create_directories(folder);
    for (const char* name : names)
      fs::copy_file(fs::path(LIFTC_SOURCE_DIR) / "examples/conv/forms" / name, folder / name);
    return folder;
  }

  Result survey(const fs::path& folder, const std::string& strategies) {
    return run_shell(fmt::format("python3 '{}/scripts/survey_forms.py' --liftc '{}' --forms '{}' --jobs 2 {}",
                                 LIFTC_SOURCE_DIR, LIFTC_BINARY, folder.string(), strategies));
  }
};

TEST_F(SurveyForms, SortsEachPairIntoOfferedOrRefusedWithTheStepThatAppliesNowhere) {
  Result r = survey(forms({"depthwise.sr", "k1.sr"}), "conv-depthwise-kappa conv-winograd-gemm");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("2 forms x 2 strategies (conv-depthwise-kappa, conv-winograd-gemm): 1 offered, 3 refused "
                          "with a reason, 0 without a valid point, 0 other"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("| depthwise.sr | conv-depthwise-kappa |"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("| k1.sr | none |"), std::string::npos) << r.output;
  // Winograd needs a 3x3 window (k1's is 1x1) and dense kernels (depthwise's read a channel each).
  EXPECT_NE(r.output.find("| `winograd-gemm-form` | 2 |"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("forms offered none of these strategies: 1\n  k1.sr: first refusal at step `"),
            std::string::npos)
      << r.output;
}

TEST_F(SurveyForms, FailsWhereAPairGetsNeitherAStrategyNorAReason) {
  fs::path folder = forms({"k1.sr"});
  std::ofstream(folder / "broken.sr") << "size N = 4\ninput x : [float]N\ndef y = map(v -> v +, x)\n";
  Result r = survey(folder, "conv-gemm");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("1 offered, 0 refused with a reason, 0 without a valid point, 1 other"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("other: broken.sr with conv-gemm: exit 1: "), std::string::npos) << r.output;
}

TEST_F(SurveyForms, ATagNoStrategyCarriesIsAnError) {
  Result r = survey(forms({"k1.sr"}), "@no-such-tag");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("no strategy of `liftc rules` is tagged no-such-tag"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace liftc::explore::test
