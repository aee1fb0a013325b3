// Bounds and provability, one line a case. "none" means no bound could be derived.

#include <gtest/gtest.h>

#include "liftc/arith/expr.hpp"

namespace liftc::arith {
namespace {

const Expr n = size_var("n"), m = size_var("m");
const Expr x = var("x"), y = var("y");
const Expr i = var("i", 0, n - 1), j = var("j", 0, 3), t = var("t", 0, 7), w = var("w", -5, 5);

std::string show(const std::optional<Expr>& e) { return e ? to_string(*e) : "none"; }

TEST(Bounds, LowerAndUpper) {
  struct Case {
    int line;
    Expr e;
    std::string lo, hi;
  };
  const std::vector<Case> cases = {
      {__LINE__, i, "0", "n - 1"},
      {__LINE__, n, "1", "n"},                  // no declared max: n bounds itself
      {__LINE__, x, "0", "x"},                  // no declared range: x >= 0
      {__LINE__, j, "0", "3"},
      {__LINE__, 4 * i + j, "0", "4*n - 1"},
      {__LINE__, n - i, "1", "n"},
      {__LINE__, n - 1 - i, "0", "n - 1"},
      {__LINE__, j - 3, "-3", "0"},
      {__LINE__, i * j, "0", "3*n - 3"},
      {__LINE__, t / 2, "0", "3"},
      {__LINE__, t % 4, "0", "3"},
      {__LINE__, i % 4, "0", "3"},
      {__LINE__, x % n, "0", "n - 1"},
      {__LINE__, n / 4, "0", "n/4"},
      {__LINE__, (t + 1) / (j + 1), "0", "8"},
      {__LINE__, x - y, "none", "x"},
      {__LINE__, n * m, "1", "m*n"},
      {__LINE__, min(i, j), "0", "3"},
      {__LINE__, max(t, j), "0", "7"},
      {__LINE__, max(i, j), "0", "max(3, n - 1)"},
      {__LINE__, 2 * w - 1, "-11", "9"},
      {__LINE__, w * w, "none", "none"},  // w may be negative: the product is not monotone
      // n - 4 may be negative or zero: a quotient or remainder by it has no bound but
      // itself (n has no maximum), not 0 from below nor -13 from above.
      {__LINE__, 37 / (n - 4), "none", "37/(n - 4)"},
      {__LINE__, 4 * (37 / (n - 4)), "none", "4*(37/(n - 4))"},
      {__LINE__, x % (n - 4), "none", "x%(n - 4)"},
      {__LINE__, 37 / (n + 4), "none", "7"},   // n + 4 > 0: bounded above
  };
  for (const auto& c : cases) {
    EXPECT_EQ(show(lower_bound(c.e)), c.lo) << "line " << c.line << ": " << to_string(c.e);
    EXPECT_EQ(show(upper_bound(c.e)), c.hi) << "line " << c.line << ": " << to_string(c.e);
  }
}

TEST(Bounds, Provably) {
  struct Case {
    int line;
    bool got, expected;
  };
  const std::vector<Case> cases = {
      {__LINE__, provably_nonnegative(n - 1), true},
      {__LINE__, provably_nonnegative(i), true},
      {__LINE__, provably_nonnegative(n - 1 - i), true},
      {__LINE__, provably_nonnegative(j - 3), false},
      {__LINE__, provably_nonnegative(3 - j), true},
      {__LINE__, provably_nonnegative(w), false},
      {__LINE__, provably_nonnegative(37 / (n - 4)), false},
      {__LINE__, provably_less(4 * (37 / (n - 4)), n), false},
      {__LINE__, provably_positive(n), true},
      {__LINE__, provably_positive(x), false},
      {__LINE__, provably_positive(x + 1), true},
      {__LINE__, provably_positive(n - 1), false},
      {__LINE__, provably_less(i, n), true},
      {__LINE__, provably_less(i, n - 1), false},
      {__LINE__, provably_less(j, 4), true},
      {__LINE__, provably_less(j, 3), false},
      {__LINE__, provably_less(4 * i + j, 4 * n), true},
      {__LINE__, provably_less(x % n, n), true},
      {__LINE__, provably_less(x, x + 1), true},
      {__LINE__, provably_less(x, y), false},
      {__LINE__, provably_less(n * i + n - 1, n * n), true},
      {__LINE__, provably_divisible(4 * n, 4), true},
      {__LINE__, provably_divisible(Expr(12), 4), true},
      {__LINE__, provably_divisible(n, 4), false},
      {__LINE__, provably_divisible(n * m, m), true},
      {__LINE__, provably_divisible(n, 0), false},
  };
  for (const auto& c : cases) EXPECT_EQ(c.got, c.expected) << "case at line " << c.line;
}

}  // namespace
}  // namespace liftc::arith
