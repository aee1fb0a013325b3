// Target profiles: the four built-in ones load; malformed profiles are errors at line:col.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include <sys/stat.h>
#include <unistd.h>

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
  EXPECT_EQ(mali.private_mem_bytes, 256);  // 64 32-bit registers (Arm's Bifrost guide)
  for (const auto& t : targets) {
    EXPECT_FALSE(t.sources.empty()) << t.name;
    EXPECT_GT(t.private_mem_bytes, 0) << t.name;
  }
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
      // No device has a limit of 0 (it used to be read as 1).
      {"max_work_item_sizes = 0 0 0", "bad.target:2:23: error: max_work_item_sizes must be at least 1, got `0`"},
      {"max_work_item_sizes = 8  0 8", "bad.target:2:26: error: max_work_item_sizes must be at least 1, got `0`"},
      {"max_work_group_size = 0", "bad.target:2:23: error: max_work_group_size must be at least 1, got `0`"},
      {"global_mem_bytes = 0", "bad.target:2:20: error: global_mem_bytes must be at least 1, got `0`"},
      {"max_alloc_bytes = 0", "bad.target:2:19: error: max_alloc_bytes must be at least 1, got `0`"},
      {"private_mem_bytes = 0", "bad.target:2:21: error: private_mem_bytes must be at least 1, got `0`"},
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
    // One "error:", which the driver prints: the message itself has none.
    EXPECT_EQ(std::string(e.what()), "error: " + (dir / "bad.target").string() + ": the profile does not give `description`");
  }
}

// A FIFO, a folder or a device named *.target is refused at once (a FIFO used to hang
// `liftc devices` and every --target, waiting for a writer).
TEST(Targets, ProfilesThatAreNotRegularFilesAreErrors) {
  auto dir = std::filesystem::temp_directory_path() / ("liftc_target_fifo_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(std::string(LIFTC_SOURCE_DIR) + "/rules/targets/mali-g72.target", dir / "mali-g72.target");
  ASSERT_EQ(::mkfifo((dir / "pipe.target").c_str(), 0600), 0);
  struct Case {
    std::function<void()> call;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[&] { load_targets(dir.string()); }, (dir / "pipe.target").string() + " is a pipe, not a target profile (give a regular file)"},
      {[&] { find_target("mali-g72", dir.string()); }, (dir / "pipe.target").string() + " is a pipe, not a target profile"},
      {[&] { load_target_file("/dev/zero"); }, "/dev/zero is a character device, not a target profile"},
      {[&] { load_target_file(dir.string()); }, dir.string() + " is a directory, not a target profile"},
  };
  for (const auto& c : cases) {
    try {
      c.call();
      ADD_FAILURE() << c.message;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace liftc::constraints
