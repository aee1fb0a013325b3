// Inputs the fuzzer found (tests/parse/regressions/): each parses or is a liftc::Error,
// and one that parses prints to text that parses back to an alpha-equal program (the
// fuzzer's oracle, tests/fuzz/fuzz_parse.cpp).

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
      ir::Program p;
      try {
        p = parse::test::parse_text(text.str(), with_prelude);
      } catch (const Error&) {
        continue;
      }
      const std::string printed = ir::to_string(p);
      ir::Program q = parse::test::parse_text(printed, /*with_prelude=*/false);
      ASSERT_EQ(p.defs.size(), q.defs.size()) << entry.path();
      for (std::size_t i = 0; i < p.defs.size(); ++i)
        EXPECT_TRUE(ir::alpha_equal(p.defs[i].body, q.defs[i].body)) << entry.path() << "\n" << printed;
    }
    ++count;
  }
  EXPECT_GT(count, 0);
}

}  // namespace
