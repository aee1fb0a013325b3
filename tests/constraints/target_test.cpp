// Target profiles: the four built-in ones load; malformed profiles are errors at line:col.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "liftc/constraints/target.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::constraints {
namespace {

TEST(Targets, BuiltInProfilesLoad) {
  auto targets = load_targets(std::string(LIFTC_SOURCE_DIR) + "/rules/targets");
  std::vector<std::string> names;
  for (const auto& t : targets) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"adreno-640", "adreno-650", "mali-g72", "mali-g76"}));
  Target mali = find_target("mali-g72", std::string(LIFTC_SOURCE_DIR) + "/rules/targets");
  EXPECT_EQ(mali.max_work_group_size, 384);
  EXPECT_TRUE(mali.local_mem_global);
  EXPECT_FALSE(targets[0].local_mem_global);
  for (const auto& t : targets) EXPECT_FALSE(t.sources.empty()) << t.name;
}

TEST(Targets, UnknownNameListsTheKnownOnes) {
  try {
    find_target("mali-g99", std::string(LIFTC_SOURCE_DIR) + "/rules/targets");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("unknown target `mali-g99`"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("adreno-640, adreno-650, mali-g72, mali-g76"), std::string::npos) << e.message();
  }
}

// Error category: profile text (after a valid first line) and the message.
TEST(Targets, MalformedProfilesAreErrors) {
  struct Case {
    const char* line;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"max_work_group_size = many", "bad.target:2:23: error: expected a non-negative integer, got `many`"},
      {"max_work_item_sizes = 1 2", "bad.target:2:23: error: max_work_item_sizes takes three integers"},
      {"local_mem_type = shared", "bad.target:2:18: error: local_mem_type is `local` or `global`, not `shared`"},
      {"colour = red", "bad.target:2:1: error: unknown key `colour`"},
      {"just words", "bad.target:2:1: error: expected `key = value`"},
      {"name = again", "bad.target:2:1: error: `name` given twice (first at line 1)"},
  };
  auto dir = std::filesystem::temp_directory_path() / "liftc_target_test";
  std::filesystem::create_directories(dir);
  for (const auto& c : cases) {
    auto path = dir / "bad.target";
    std::ofstream(path) << "name = x\n" << c.line << "\n";
    try {
      load_target_file(path.string());
      ADD_FAILURE() << c.line;
    } catch (const Error& e) {
      std::string what = e.what();
      EXPECT_NE(what.find(c.message), std::string::npos) << what;
    }
  }
  std::ofstream(dir / "bad.target") << "name = x\n";
  try {
    load_target_file((dir / "bad.target").string());
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the profile does not give `description`"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace liftc::constraints
