// The readers of include/liftc/syntax/read.hpp: what they build (trees with positions) and
// what they say about bad text (one table row a case: reader, text, message, line:col).

#include <ostream>

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "liftc/syntax/limits.hpp"
#include "liftc/syntax/read.hpp"

namespace {

using namespace liftc;
using namespace liftc::syntax;

std::shared_ptr<const SourceFile> text(std::string s) {
  return std::make_shared<const SourceFile>(SourceFile{"<test>", std::move(s)});
}

std::string nested(const std::string& open, const std::string& inner, const std::string& close, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += open;
  s += inner;
  for (int i = 0; i < n; ++i) s += close;
  return s;
}

TEST(Read, ProgramKeepsPositions) {
  auto parsed = read_program(text("size N\n\ninput x : [float]N\ndef y = x"));
  const auto& decls = parsed->tree().decls;
  ASSERT_EQ(decls.size(), 3u);
  const auto& def = boost::get<ast::Def>(decls[2].get());
  EXPECT_EQ(def.name.text, "y");
  SourceLoc at = parsed->loc(def.name);
  EXPECT_EQ(at.line, 4);
  EXPECT_EQ(at.col, 5);
}

TEST(Read, RuleFileSharesTheExpressionGrammar) {
  auto parsed = read_rule_file(text("rule r(n in 2..8) \"split\": map(f, x) => join(map(map(f), split(n, x)))\n"
                                    "strategy s = topdown(r) ; try(r)"));
  const auto& items = parsed->tree().items;
  ASSERT_EQ(items.size(), 2u);
  const auto& rule = boost::get<ast::RuleDecl>(items[0].get());
  EXPECT_EQ(rule.name, "r");
  EXPECT_EQ(rule.description, "split");
  ASSERT_TRUE(rule.params.has_value());
  EXPECT_EQ(rule.params->at(0).name, "n");
  SourceLoc lhs = parsed->loc(boost::get<x3::forward_ast<ast::Binary>>(rule.lhs.get()).get());
  EXPECT_EQ(lhs.line, 1);
  EXPECT_EQ(lhs.col, 28);
  const auto& strategy = boost::get<ast::StrategyDecl>(items[1].get());
  EXPECT_EQ(strategy.name, "s");
  EXPECT_EQ(strategy.body.first.items.size(), 2u);
  EXPECT_EQ(parsed->loc(strategy).line, 2);
}

TEST(Read, StrategyAlone) {
  auto parsed = read_strategy(text("a ; b <+ c | d"));
  EXPECT_EQ(parsed->tree().first.items.size(), 2u);
  EXPECT_EQ(parsed->tree().rest.size(), 2u);
}

enum class Reader { Program, Rules, Strategy };

struct BadText {
  const char* name;
  Reader reader;
  std::string text;
  std::string message;
  int line;
  int col;
};
void PrintTo(const BadText& c, std::ostream* os) { *os << c.name; }

// clang-format off
const BadText kBad[] = {
    {"ProgramEndsEarly",       Reader::Program,  "def x = ",             "expected expression, found end of input", 1, 9},
    {"ProgramStrayToken",      Reader::Program,  "def x = 1 2",          "expected `size`, `input` or `def`",      1, 11},
    {"ProgramOpenComment",     Reader::Program,  "def x = 1 /* no end",  "unterminated comment: `/*` without `*/`", 1, 11},
    {"ProgramTooDeep",         Reader::Program,  "def x = " + nested("(", "1", ")", kMaxNesting + 1),
                                                 "expression nested deeper than 200 levels",                        1, 209},
    {"RuleFileStrayToken",     Reader::Rules,    "rule r: map(f, x) => x =>", "expected `rule` or `strategy`",      1, 24},
    {"RuleFileBadPattern",     Reader::Rules,    "rule r: map(f x) => x",     "expected `)`",                       1, 15},
    {"RuleFileEndsEarly",      Reader::Rules,    "rule r: map(f, x) =>",      "expected expression, found end of input", 1, 21},
    {"StrategyEndsEarly",      Reader::Strategy, "topdown(",                  "expected strategy, found end of input", 1, 9},
    {"StrategyTooDeep",        Reader::Strategy, nested("(", "id", ")", kMaxNesting + 1),
                                                 "nested deeper than 200 levels",                                    1, 201},
};
// clang-format on

class ReadBadText : public testing::TestWithParam<BadText> {};

TEST_P(ReadBadText, FailsWithItsMessage) {
  const BadText& c = GetParam();
  try {
    switch (c.reader) {
      case Reader::Program: read_program(text(c.text)); break;
      case Reader::Rules: read_rule_file(text(c.text)); break;
      case Reader::Strategy: read_strategy(text(c.text)); break;
    }
    ADD_FAILURE() << "read: " << c.text;
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), c.message);
    EXPECT_EQ(e.loc().line, c.line) << e.what();
    EXPECT_EQ(e.loc().col, c.col) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, ReadBadText, testing::ValuesIn(kBad),
                         [](const testing::TestParamInfo<BadText>& info) { return std::string(info.param.name); });

}  // namespace
