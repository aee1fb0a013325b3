// Budgets that keep what rewrite prints readable (issue 11, sections 4 and 5): the printed
// nesting and the IR depth of a definition stay within what the .sr reader accepts, a run
// that would exceed them stops and says why, and long strategies load as n-ary nodes.

#include <functional>

#include <gtest/gtest.h>

#include "harness.hpp"
#include "liftc/ir/printer.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/syntax/limits.hpp"

namespace liftc::rewrite::test {
namespace {

// Whether `text` reads back as a program.
bool reads_back(const std::string& text) {
  try {
    parse::ParseOptions o;
    o.with_prelude = false;
    parse::parse_program(std::make_shared<const SourceFile>(SourceFile{"<test>", text}), o);
    return true;
  } catch (const Error&) {
    return false;
  }
}

// The text without the prelude (quicker to read, and not needed here).
ir::Program bare(const std::string& text) {
  parse::ParseOptions o;
  o.with_prelude = false;
  return parse::parse_program(std::make_shared<const SourceFile>(SourceFile{"<test>", text}), o);
}

// ir::nesting_depth against the parser, for each way of nesting an expression one level:
// wrapped while it measures at most syntax::kMaxNesting, the printed definition reads back
// (the measure never under-estimates); wrapped once more, the parser refuses it (the
// measure is exact), except around size arguments, which it may over-estimate.
TEST(Budget, NestingDepthIsWhatTheParserCounts) {
  struct Case {
    int line;
    const char* wrap;  // one more level around `hole`
    bool exact;
  };
  const Case cases[] = {
      {__LINE__, "map(a -> a, hole)", true},
      {__LINE__, "map(a -> hole, x)", true},
      {__LINE__, "-hole", true},
      {__LINE__, "-(-hole)", true},
      {__LINE__, "1.0 - (hole - 2.0)", true},
      {__LINE__, "(hole, 1.0).0", true},
      {__LINE__, "let q = 1.0 in hole", true},
      {__LINE__, "(a -> hole)(1.0)", true},
      {__LINE__, "hole - -1.0", false},  // flat: the limit is the IR depth, not the nesting
      {__LINE__, "reorder(striddenIndex(2), hole)", false},
      {__LINE__, "split(2*(N/2), hole)", false},
  };
  const std::string head = "size N = 64\ninput x : [float]N\ninput hole : float\ndef y = ";
  for (const auto& c : cases) {
    const ir::Expr wrap = bare(head + c.wrap).defs[0].body;
    ir::Expr fits = bare(head + "hole").defs[0].body;
    int levels = 0;
    for (; levels < 2000; ++levels) {
      ir::Expr next = ir::substitute(wrap, {{"hole", fits}});
      if (ir::nesting_depth(next) > syntax::kMaxNesting) break;
      fits = next;
    }
    EXPECT_GE(levels, 60) << "case at line " << c.line;
    EXPECT_TRUE(reads_back(head + ir::to_string(fits))) << "case at line " << c.line << " after " << levels;
    if (!c.exact || levels == 2000) continue;
    EXPECT_FALSE(reads_back(head + ir::to_string(ir::substitute(wrap, {{"hole", fits}})))) << "case at line " << c.line;
  }
}

struct StopCase {
  int line;
  const char* rules;     // "" for the library
  const char* program;
  const char* strategy;
  StopReason stop;
  int max_depth = Budget{}.max_depth;
};

// clang-format off
const StopCase kStops[] = {
    // The rule: each step doubles the nesting; the type checker used to overflow.
    {__LINE__, "rule r: map(f, x) => map(y -> f(f(y)), x)",
     "size N, M\ninput a : [[float]M]N\ndef y = map(r -> map(v -> v + 1.0, r), a)", "repeat(r)", StopReason::NestingLimit},
    // normalize(reorder-stride[2]) printed a program `liftc check` refused.
    {__LINE__, "", "size N\ninput x : [float]N\ndef y = map(a -> a + 1.0, x)", "normalize(reorder-stride[2])",
     StopReason::NestingLimit},
    // A left-nested sum prints flat but its IR grows one level a step.
    {__LINE__, "rule r: x + y => x + y + 0.0", "size N\ninput x : [float]N\ndef y = map(a -> a + 1.0, x)",
     "normalize(r)", StopReason::DepthLimit, 300},
};
// clang-format on

TEST(Budget, GrowingRewritesStopReadable) {
  for (const auto& c : kStops) {
    RuleSet own = *c.rules ? rules_of(c.rules) : RuleSet{};
    const RuleSet& set = *c.rules ? own : library();
    std::vector<std::string> trace;
    RewriteOptions o;
    o.trace = [&](const std::string& l) { trace.push_back(l); };
    o.budget.max_depth = c.max_depth;
    ProgramRewrite r = rewrite_program(set, c.strategy, program(c.program), o);
    EXPECT_EQ(r.stop, c.stop) << "case at line " << c.line << ": " << to_string(r.stop);
    ASSERT_EQ(r.programs.size(), 1u);
    EXPECT_TRUE(reads_back(ir::to_string(r.programs[0].program))) << "case at line " << c.line;
    ASSERT_FALSE(trace.empty());
    EXPECT_NE(trace.back().find("not applied"), std::string::npos) << trace.back();
  }
}

TEST(Budget, StopReasonsSayWhy) {
  EXPECT_EQ(std::string(to_string(StopReason::NestingLimit)),
            "nesting limit (the printed program would nest deeper than the .sr reader accepts)");
  EXPECT_EQ(std::string(to_string(StopReason::DepthLimit)),
            "depth limit (the IR would be deeper than the .sr reader accepts)");
}

// A strategy of 30,000 `;` terms is one n-ary node (it was a left-nested chain, copied at
// each step of loading), applies in order, and prints back to itself.
TEST(Budget, LongStrategiesAreNary) {
  std::string text = "try(map-fusion)";
  for (int i = 1; i < 30000; ++i) text += " ; try(map-fusion)";
  text += " ; map-to-mapSeq <+ fail <+ id | id";
  Strategy s = parse_strategy(library(), text);
  ASSERT_EQ(s.kind, StrategyKind::AllChoice);
  ASSERT_EQ(s.args.size(), 2u);
  ASSERT_EQ(s.args[0].kind, StrategyKind::LeftChoice);
  ASSERT_EQ(s.args[0].args.size(), 3u);
  ASSERT_EQ(s.args[0].args[0].kind, StrategyKind::Seq);
  EXPECT_EQ(s.args[0].args[0].args.size(), 30001u);
  EXPECT_EQ(to_string(parse_strategy(library(), to_string(s))), to_string(s));
  EXPECT_EQ(to_string(parse_strategy(library(), "(id ; id) ; fail <+ (id | id)")), "((id ; id) ; fail <+ (id | id))");
  ProgramRewrite r =
      rewrite_program(library(), text, program("size N\ninput x : [float]N\ndef y = map(a -> a + 1.0, x)"));
  ASSERT_EQ(r.programs.size(), 2u);
  EXPECT_EQ(ir::to_string(r.programs[0].program.defs[0].body), "mapSeq(a -> a + 1.0, x)");
}

}  // namespace
}  // namespace liftc::rewrite::test
