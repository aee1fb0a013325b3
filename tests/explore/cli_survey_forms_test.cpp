// scripts/survey_forms.py: each (form, strategy) pair sorted into offered (valid points on the
// device), refused (the step that applies nowhere and what it needs) or neither, which fails
// the survey. Run on two of examples/conv/forms and on a program liftc rejects.

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_folder.hpp"

namespace {

namespace fs = std::filesystem;

struct Ran {
  int code = -1;
  std::string output;
};

Ran survey(const fs::path& forms, const std::string& strategies) {
  std::string command = fmt::format("python3 '{}/scripts/survey_forms.py' --liftc '{}' --forms '{}' --jobs 2 {} 2>&1",
                                    LIFTC_SOURCE_DIR, LIFTC_BINARY, forms.string(), strategies);
  Ran r;
  std::FILE* p = popen(command.c_str(), "r");
  if (!p) return r;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, p)) r.output.append(buffer, n);
  int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

fs::path forms_folder(std::initializer_list<const char*> names) {
  fs::path dir = liftc::explore::test::fresh_test_folder("survey_forms");
  for (const char* name : names) fs::copy_file(fs::path(LIFTC_SOURCE_DIR) / "examples/conv/forms" / name, dir / name);
  return dir;
}

TEST(SurveyForms, SortsEachPairIntoOfferedOrRefusedWithTheStepThatAppliesNowhere) {
  fs::path dir = forms_folder({"depthwise.sr", "k1.sr"});
  Ran r = survey(dir, "conv-depthwise-kappa conv-winograd-gemm");
  ASSERT_EQ(r.code, 0) << r.output;
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

TEST(SurveyForms, FailsWhereAPairGetsNeitherAStrategyNorAReason) {
  fs::path dir = forms_folder({"k1.sr"});
  std::ofstream(dir / "broken.sr") << "size N = 4\ninput x : [float]N\ndef y = map(v -> v +, x)\n";
  Ran r = survey(dir, "conv-gemm");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("1 offered, 0 refused with a reason, 0 without a valid point, 1 other"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("other: broken.sr with conv-gemm: exit 1: "), std::string::npos) << r.output;
}

TEST(SurveyForms, ATagNoStrategyCarriesIsAnError) {
  Ran r = survey(forms_folder({"k1.sr"}), "@no-such-tag");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("no strategy of `liftc rules` is tagged no-such-tag"), std::string::npos) << r.output;
}

}  // namespace
