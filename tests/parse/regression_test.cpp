// Inputs the fuzzer found (tests/parse/regressions/): each parses or is a liftc::Error.

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace {

using namespace liftc;

TEST(Regressions, ReplayWithoutCrash) {
  namespace fs = std::filesystem;
  int count = 0;
  for (const auto& entry : fs::directory_iterator(LIFTC_REGRESSIONS_DIR)) {
    if (!entry.is_regular_file() || entry.path().filename() == "README.md") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    for (bool with_prelude : {true, false}) {
      try {
        ir::Program p = parse::test::parse_text(text.str(), with_prelude);
        (void)ir::to_string(p);
      } catch (const Error&) {
      }
    }
    ++count;
  }
  EXPECT_GT(count, 0);
}

}  // namespace
