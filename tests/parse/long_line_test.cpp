// Issue 36, item 15: the diagnostic of a very long line shows an excerpt around the
// column (a 5 MB one-line program gave a 6 MB message), and an unknown long name is shown
// by its start.

#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>

#include "test_util.hpp"

namespace {

using namespace liftc;
using parse::test::parse_text;

// The error parsing `text` gives, or "<no error>".
Error error_of(const std::string& text) {
  try {
    parse_text(text);
  } catch (const Error& e) {
    return e;
  }
  return Error("<no error>");
}

// One line of a megabyte: the diagnostic shows 120 characters of it around the column,
// with "..." where it is cut, and the caret still under the column.
TEST(LongLines, TheDiagnosticShowsAnExcerptAroundTheColumn) {
  const std::string head = "def out = xs";
  const std::string filler(1'000'000, ' ');
  const std::string text = "size N = 4\ninput xs : [float]N\n" + head + filler + "$" + filler + "\n";
  Error e = error_of(text);
  const int col = static_cast<int>(head.size() + filler.size()) + 1;
  ASSERT_EQ(e.loc().col, col) << e.message();
  const std::string expected =
      fmt::format("t.sr:3:{}: error: {}\n  ...{}${}...\n  {}^", col, e.message(), std::string(60, ' '),
                  std::string(59, ' '), std::string(3 + 60, ' '));
  EXPECT_EQ(std::string(e.what()), expected);
}

// An unknown name of a megabyte is shown by its first 60 characters, and finding a name
// like it does not compare the whole of it with each candidate.
TEST(LongLines, AnUnknownLongNameIsShownByItsStart) {
  Error e = error_of("size N = 4\ninput xs : [float]N\ndef out = xs + " + std::string(1'000'000, 'a') + "\n");
  EXPECT_EQ(e.message(), "unknown name `" + std::string(60, 'a') + "...`");
  EXPECT_LT(std::string(e.what()).size(), 400u);
}

TEST(LongLines, ExcerptsAtTheStartAndTheEndOfTheLineAndShortLinesWhole) {
  auto file = [](std::string text) { return std::make_shared<SourceFile>(SourceFile{"f.sr", std::move(text)}); };
  const std::string digits = [] {
    std::string s;
    for (int i = 0; i < 300; ++i) s += static_cast<char>('0' + i % 10);
    return s;
  }();
  struct Case {
    int col;
    std::string shown, caret;
  };
  const Case cases[] = {
      {1, digits.substr(0, 120) + "...", ""},
      {100, "..." + digits.substr(39, 120) + "...", std::string(3 + 60, ' ')},
      {300, "..." + digits.substr(180), std::string(3 + 119, ' ')},
      {301, "..." + digits.substr(180), std::string(3 + 120, ' ')},  // just past the end
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.col);
    EXPECT_EQ(format_diagnostic(SourceLoc{file(digits), 1, c.col}, "m"),
              fmt::format("f.sr:1:{}: error: m\n  {}\n  {}^", c.col, c.shown, c.caret));
  }
  EXPECT_EQ(format_diagnostic(SourceLoc{file("a\tb c\n"), 1, 4}, "m"), "f.sr:1:4: error: m\n  a\tb c\n   \t ^");
  // A cut never splits a UTF-8 character: an excerpt that would start inside one (at byte
  // 101, the second of the two of U+00E9) starts after it.
  const std::string accented = std::string(100, 'x') + "\xC3\xA9" + std::string(200, 'y');
  EXPECT_EQ(format_diagnostic(SourceLoc{file(accented), 1, 162}, "m"),
            fmt::format("f.sr:1:162: error: m\n  ...{}...\n  {}^", std::string(119, 'y'), std::string(3 + 59, ' ')));
}

}  // namespace
