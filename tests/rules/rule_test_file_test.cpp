// The syntax of tests/rules/*.sr files: RUN lines read as tests/rules/README.md says, bad
// ones rejected with their message, and the FileCheck-like matching of check lines.

#include <gtest/gtest.h>

#include "liftc/support/diagnostic.hpp"
#include "rule_test_file.hpp"

namespace liftc::rewrite::test {
namespace {

TEST(RuleTestFile, ReadsRunLines) {
  RuleTestFile f = parse_rule_test("t.sr",
                                   "// RUN: rewrite --rule split-join\n"
                                   "  //RUN:  rewrite examples/matmul.sr --strategy 'topdown(a) ; b' --trials 2 --seed 7 "
                                   "--allow-infeasible --params N=4,n_N=2 --check-prefix MM\n"
                                   "// RUN: rewrite %s --strategy conv-gemm\n"
                                   "// MM: join\n"
                                   "size N\n");
  ASSERT_EQ(f.runs.size(), 3u);
  EXPECT_EQ(f.runs[0].line, 1);
  EXPECT_EQ(f.runs[0].strategy, "topdown(split-join)");
  EXPECT_EQ(f.runs[0].covers, "split-join");
  EXPECT_TRUE(f.runs[0].by_rule);
  EXPECT_EQ(f.runs[0].input, "");
  EXPECT_EQ(f.runs[0].trials, 4);
  EXPECT_FALSE(f.runs[0].seed);
  EXPECT_EQ(f.runs[0].prefix, "CHECK");
  EXPECT_EQ(f.runs[1].input, "examples/matmul.sr");
  EXPECT_EQ(f.runs[1].strategy, "topdown(a) ; b");
  EXPECT_EQ(f.runs[1].covers, "");
  EXPECT_EQ(f.runs[1].trials, 2);
  EXPECT_EQ(f.runs[1].seed, 7u);
  EXPECT_TRUE(f.runs[1].allow_infeasible);
  EXPECT_EQ(f.runs[1].params, (std::map<std::string, long long>{{"N", 4}, {"n_N", 2}}));
  EXPECT_EQ(f.runs[1].prefix, "MM");
  EXPECT_EQ(f.runs[2].input, "");
  EXPECT_EQ(f.runs[2].covers, "conv-gemm");
  EXPECT_FALSE(f.runs[2].by_rule);
  ASSERT_EQ(f.checks.size(), 1u);
  EXPECT_EQ(f.checks[0].prefix, "MM");
  EXPECT_EQ(f.checks[0].line, 4);
}

TEST(RuleTestFile, ReadsCheckLinesOfTheRunsPrefixesOnly) {
  RuleTestFile f = parse_rule_test("t.sr",
                                   "// RUN: rewrite --rule r\n"
                                   "// CHECK:   a b  \n"
                                   "// CHECK-NEXT: c\n"
                                   "// CHECK-NOT: d\n"
                                   "// OTHER: e\n"
                                   "// CHECKS: f\n"
                                   "def x = 1 // CHECK: not at the start of the line\n");
  ASSERT_EQ(f.checks.size(), 3u);
  EXPECT_EQ(f.checks[0].pattern, "a b");
  EXPECT_EQ(f.checks[0].kind, CheckLine::Kind::Plain);
  EXPECT_EQ(f.checks[1].kind, CheckLine::Kind::Next);
  EXPECT_EQ(f.checks[2].kind, CheckLine::Kind::Not);
  EXPECT_EQ(f.checks[2].line, 4);
}

struct BadFile {
  const char* text;
  const char* message;
};

// clang-format off
const BadFile kBad[] = {
    {"size N\n", "t.sr:1: no `// RUN: rewrite ...` line"},
    {"// RUN: liftc rewrite --rule r\n", "t.sr:1: a RUN line is `rewrite [FILE] (--rule NAME | --strategy S) [options]`"},
    {"// RUN:\n", "t.sr:1: a RUN line is `rewrite [FILE] (--rule NAME | --strategy S) [options]`"},
    {"\n// RUN: rewrite\n", "t.sr:2: give one of --rule NAME and --strategy S"},
    {"// RUN: rewrite --rule r --strategy s\n", "t.sr:1: give one of --rule NAME and --strategy S"},
    {"// RUN: rewrite --rule r --rule s\n", "t.sr:1: --rule given twice"},
    {"// RUN: rewrite --rule\n", "t.sr:1: --rule needs a value"},
    {"// RUN: rewrite --strategy ''\n", "t.sr:1: --strategy needs a value"},
    {"// RUN: rewrite --rule 'topdown(r)'\n", "t.sr:1: --rule takes a rule's name, not `topdown(r)`"},
    {"// RUN: rewrite --strategy 'a ; b\n", "t.sr:1: a quote ' without its closing one"},
    {"// RUN: rewrite a.sr b.sr --rule r\n", "t.sr:1: a second program `b.sr` (one FILE a RUN line)"},
    {"// RUN: rewrite --rule r --trials 0\n", "t.sr:1: --trials takes an integer in 1..100, not `0`"},
    {"// RUN: rewrite --rule r --trials 2x\n", "t.sr:1: --trials takes an integer in 1..100, not `2x`"},
    {"// RUN: rewrite --rule r --seed -1\n", "t.sr:1: --seed takes an unsigned integer, not `-1`"},
    {"// RUN: rewrite --rule r --params N\n", "t.sr:1: --params takes NAME=VALUE,..., not `N`"},
    {"// RUN: rewrite --rule r --params N=0\n", "t.sr:1: --params N takes an integer in 1..1048576, not `0`"},
    {"// RUN: rewrite --rule r --params N=2,N=3\n", "t.sr:1: --params gives N twice"},
    {"// RUN: rewrite --rule r --check-prefix lower\n", "t.sr:1: --check-prefix takes capitals, digits and _, not `lower`"},
    {"// RUN: rewrite --rule r --check-prefix A\n// CHECK: x\n", "t.sr:1: no check line has the prefix A"},
    {"// RUN: rewrite --rule r --max-steps 3\n", "t.sr:1: unknown option --max-steps"},
    {"// RUN: rewrite --rule r\n// CHECK-NOT:\n", "t.sr:2: an empty check pattern"},
};
// clang-format on

TEST(RuleTestFile, RejectsBadLinesWithTheirMessage) {
  for (const auto& c : kBad) {
    try {
      parse_rule_test("t.sr", c.text);
      ADD_FAILURE() << "accepted: " << c.text;
    } catch (const Error& e) {
      EXPECT_EQ(e.message(), c.message) << c.text;
    }
  }
}

struct CheckCase {
  const char* checks;  // check lines (after a RUN line)
  const char* output;
  const char* message;  // "" when the output passes
};

// clang-format off
const CheckCase kChecks[] = {
    {"// CHECK: b\n// CHECK: d\n", "a b c\nd\n", ""},
    {"// CHECK: d\n// CHECK: b\n", "a b c\nd\n", "t.sr:3: CHECK: `b` not found after the previous match"},
    {"// CHECK: z\n", "a\n", "t.sr:2: CHECK: `z` not found"},
    {"// CHECK: a\n// CHECK-NEXT: c\n", "a\nb\nc\n", "t.sr:3: CHECK-NEXT: `c` is not on the line after the previous match (it is 2 lines on)"},
    {"// CHECK: a\n// CHECK-NEXT: b\n", "a\nb\nc\n", ""},
    {"// CHECK: a\n// CHECK-NEXT: x\n", "a x\n", "t.sr:3: CHECK-NEXT: `x` is not on the line after the previous match (it is 0 lines on)"},
    {"// CHECK-NEXT: a\n", "a\n", "t.sr:2: CHECK-NEXT: a NEXT check with no match before it"},
    {"// CHECK: a\n// CHECK-NOT: b\n// CHECK: c\n", "a\nc b\n", ""},
    {"// CHECK: a\n// CHECK-NOT: b\n// CHECK: c\n", "a\nb\nc\n", "t.sr:3: CHECK-NOT: `b` occurs at output line 2"},
    {"// CHECK-NOT: b\n", "a\nb\n", "t.sr:2: CHECK-NOT: `b` occurs at output line 2"},
    {"// CHECK: b\n// CHECK-NOT: b\n", "a\nb\n", ""},
};
// clang-format on

TEST(RuleTestFile, ChecksTheOutputInOrder) {
  for (const auto& c : kChecks) {
    RuleTestFile f = parse_rule_test("t.sr", std::string("// RUN: rewrite --rule r\n") + c.checks);
    EXPECT_EQ(file_check(f, "CHECK", c.output), c.message) << c.checks;
  }
}

TEST(RuleTestFile, SeedIsFnv1a) {
  EXPECT_EQ(seed_of(""), 14695981039346656037ull);
  EXPECT_EQ(seed_of("a"), 0xaf63dc4c8601ec8cull);
}

}  // namespace
}  // namespace liftc::rewrite::test
