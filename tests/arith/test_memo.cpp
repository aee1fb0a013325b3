// The memo of bounds and of the `/` and `%` rules (src/arith/memo.cpp): deep nestings of
// `%` and `/` simplify in polynomial time, and the memo never mixes up variables of one
// name with different ranges.

#include <gtest/gtest.h>

#include <chrono>

#include "liftc/arith/expr.hpp"

namespace liftc::arith {
namespace {

std::string show(const std::optional<Expr>& e) { return e ? to_string(*e) : "none"; }

// N % 30 % 29 % ... with `levels` remainders, as `split(N % 17 % 16 % ... % 11, x)`
// builds it (a level more cost about ten times as much before the memo: seven took 134 s).
Expr nested_mod(const Expr& n, int levels) {
  Expr e = n;
  for (int k = 0; k < levels; ++k) e = e % Expr(30 - k);
  return e;
}

TEST(Memo, DeepNestingsSimplifyQuickly) {
  struct Case {
    int line;
    std::function<Expr(const Expr&)> build;
    std::string lo, hi;
  };
  const std::vector<Case> cases = {
      {__LINE__, [](const Expr& n) { return nested_mod(n, 7); }, "0", "23"},
      {__LINE__, [](const Expr& n) { return nested_mod(n, 16); }, "0", "14"},
      {__LINE__, [](const Expr& n) { return n % 17 % 16 % 15 % 14 % 13 % 12 % 11; }, "0", "10"},
      // (n/2 % 17)/3 <= 5, so ((... % 16)/2 % 15)/3 == 0.
      {__LINE__, [](const Expr& n) { return n / 2 % 17 / 3 % 16 / 2 % 15 / 3 % 14 / 2 % 13 / 3 % 12 + 1; }, "1", "1"},
      {__LINE__, [](const Expr& n) { return n / 2 % 1000 / 3 % 300 / 2 % 140 / 3 % 40 / 2 % 19 / 3 % 6 + 1; }, "1", "6"},
      {__LINE__, [](const Expr& n) { return (n % 17 + n % 16) % 15 % 14 % 13 % 12 % 11 % 10 + 1; }, "1", "10"},
  };
  for (const auto& c : cases) {
    auto start = std::chrono::steady_clock::now();
    Expr n = size_var("N");
    Expr e = c.build(n);
    // What the type checker asks of split(e, x) over [float]N.
    provably_positive(e);
    Expr chunks = n / e;
    provably_divisible(n, e);
    EXPECT_EQ(show(lower_bound(e)), c.lo) << "line " << c.line << ": " << to_string(e);
    EXPECT_EQ(show(upper_bound(e)), c.hi) << "line " << c.line << ": " << to_string(e);
    for (std::int64_t value : {12345, 1000, 999999}) {
      std::optional<std::int64_t> chunk = evaluate(e, {{"N", value}});
      ASSERT_TRUE(chunk) << "line " << c.line;
      if (*chunk > 0) {
        EXPECT_EQ(evaluate(chunks, {{"N", value}}), value / *chunk) << "line " << c.line;
      }
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(seconds, 0.5) << "line " << c.line << ": " << to_string(e);
  }
}

// A variable's bounds come from its range, so one name with two ranges is two questions.
TEST(Memo, VariablesOfOneNameWithDifferentRangesAreNotConfused) {
  struct Case {
    int line;
    Expr e;
    std::string hi;
  };
  const std::vector<Case> cases = {
      {__LINE__, var("i", 0, 3) % 100, "3"},
      {__LINE__, var("i", 0, 7) % 100, "7"},
      {__LINE__, var("i", 0, size_var("n") - 1) % 100, "99"},
      {__LINE__, var("i", 0, 3) / 2, "1"},
      {__LINE__, var("i", 0, 7) / 2, "3"},
  };
  for (int round = 0; round < 2; ++round)  // the second round answers from the memo
    for (const auto& c : cases) EXPECT_EQ(show(upper_bound(c.e)), c.hi) << "line " << c.line << ", round " << round;
  EXPECT_EQ(var("i", 0, 3) % 4, var("i", 0, 3));
  EXPECT_NE(var("i", 0, 7) % 4, var("i", 0, 7));
}

}  // namespace
}  // namespace liftc::arith
