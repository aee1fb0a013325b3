// The simplifier as a table: one line a case, input built with the operators, expected
// canonical form as printed by to_string (Halide test/correctness/simplify.cpp style).

#include <climits>

#include <gtest/gtest.h>

#include "liftc/arith/expr.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::arith {
namespace {

// Sizes are >= 1, plain variables >= 0, i is an index over n, j over 4, t over 8.
const Expr n = size_var("n"), m = size_var("m"), k = size_var("k");
const Expr x = var("x"), y = var("y"), z = var("z");
const Expr i = var("i", 0, n - 1), j = var("j", 0, 3), t = var("t", 0, 7);
// A size u without a declared range: u - 4 may be negative or zero (issue 11, section 6).
const Expr u = size_var("u");

struct Case {
  int line;
  Expr in;
  std::string expected;
};
#define CASE(in, expected) Case{__LINE__, (in), (expected)}

void check(const std::vector<Case>& cases) {
  for (const auto& c : cases) EXPECT_EQ(to_string(c.in), c.expected) << "case at line " << c.line;
}

TEST(Simplify, ConstantFolding) {
  check({
      CASE(Expr(2) + 3, "5"),
      CASE(Expr(2) * 3, "6"),
      CASE(Expr(7) / 2, "3"),
      CASE(Expr(7) % 2, "1"),
      CASE(Expr(-7) / 2, "-4"),  // floor semantics
      CASE(Expr(-7) % 2, "1"),
      CASE(min(Expr(3), 4), "3"),
      CASE(max(Expr(3), 4), "4"),
      CASE(x + 0, "x"),
      CASE(0 + x, "x"),
      CASE(x * 1, "x"),
      CASE(x * 0, "0"),
      CASE(0 / x, "0"),
      CASE(0 % x, "0"),
      CASE(Expr(INT64_MAX) + 0, "9223372036854775807"),
      CASE(Expr(INT64_MIN) + 0, "(-9223372036854775807 - 1)"),
  });
}

TEST(Simplify, SumsCollectLikeTerms) {
  check({
      CASE(x + x, "2*x"),
      CASE(3 * x + 2 * x, "5*x"),
      CASE(x - x, "0"),
      CASE(x + 1 - x, "1"),
      CASE(y + x, "x + y"),
      CASE(x + y - x, "y"),
      CASE((x + 1) + (y + 2), "x + y + 3"),
      CASE(n - m, "n - m"),
      CASE(m - n, "m - n"),
      CASE(1 - x, "1 - x"),
      CASE(-x, "-x"),
      CASE(-x - y, "-x - y"),
      CASE(x + y - 2 * z, "x + y - 2*z"),
      CASE(n - 1 - i, "n - i - 1"),
      CASE(x - 3, "x - 3"),
      CASE(-2 * x + y, "y - 2*x"),
      CASE(n * m + n + 1, "m*n + n + 1"),
      CASE((n - 3 + 1) / 1, "n - 2"),
  });
}

TEST(Simplify, ProductsDistribute) {
  check({
      CASE(x * y * x, "x*x*y"),
      CASE(2 * x * 3, "6*x"),
      CASE(y * x, "x*y"),
      CASE(2 * (x + y), "2*x + 2*y"),
      CASE((x + y) * 2, "2*x + 2*y"),
      CASE((x + 1) * (x + 1), "x*x + 2*x + 1"),
      CASE((x + 1) * (x - 1), "x*x - 1"),
      CASE((n - m) * k, "k*n - k*m"),
      CASE(-(x - y), "y - x"),
      CASE(x * (y % 4), "x*(y%4)"),
      CASE(2 * min(x, y), "2*min(x, y)"),
  });
}

TEST(Simplify, Division) {
  check({
      CASE(x / 1, "x"),
      CASE(x / x, "1"),
      CASE((8 * i) / 4, "2*i"),
      CASE((6 * x) / 4, "3*x/2"),
      CASE((x * y) / y, "x"),
      CASE((n * m) / (n * k), "m/k"),
      CASE((4 * x + 8) / 4, "x + 2"),
      CASE((x + 4) / 4, "x/4 + 1"),
      CASE((4 * x + 5) / 4, "x + 1"),
      CASE((4 * x - 1) / 4, "x - 1"),
      CASE((4 * x + y) / 4, "x + y/4"),
      CASE((x - 1) / 4, "(x - 1)/4"),  // x - 1 may be negative: no quotient is extracted
      CASE((x * n + y) / n, "x + y/n"),
      CASE(i / n, "0"),
      CASE((4 * i + j) / 4, "i"),
      CASE((i + n) / n, "1"),
      CASE(t / 8, "0"),
      CASE(x / 2 / 2, "x/4"),
      CASE(x / n / m, "x/(m*n)"),
      CASE((x % 4) / 4, "0"),
      CASE((x % n) / n, "0"),
      CASE((n + 1) / (n + 1), "1"),
      CASE(((n + 1) * m) / (n + 1), "m"),
      CASE((n * m + m + 3) / (n + 1), "m + 3/(n + 1)"),
      CASE(n / (n + 1), "0"),
      CASE((n + 1) % m, "(n + 1)%m"),
      CASE(n / (m * k), "n/(k*m)"),
      CASE(x * y / z, "x*y/z"),
      CASE(x / y * z, "z*(x/y)"),
  });
}

// A divisor whose sign is not provable is never assumed positive (issue 11, section 6:
// split(n) of [float](4*(37/(u - 4))) was typed [[float]n]0).
TEST(Simplify, DivisorOfUnknownSign) {
  check({
      CASE((4 * (37 / (u - 4))) / n, "4*(37/(u - 4))/n"),
      CASE((37 / (u - 4)) / n, "37/(n*u - 4*n)"),      // the outer divisor n > 0: nesting is exact
      CASE((37 / n) / (u - 4), "37/n/(u - 4)"),        // not 37/(n*(u - 4)): u - 4 may be < 0
      CASE((37 / (u - 4)) % n, "37/(u - 4)%n"),        // not provably in [0, n)
      CASE((4 * x + 1) / (4 * (u - 4)), "(4*x + 1)/(4*u - 16)"),  // no aligned-group rule
      CASE((4 * x + 1) % (4 * (u - 4)), "(4*x + 1)%(4*u - 16)"),
      CASE(((u - 4) * x + 3) / (u - 4), "x + 3/(u - 4)"),  // exact for any non-zero divisor
      CASE((37 / (u + 4)) / n, "37/(n*u + 4*n)"),       // u + 4 > 0: the rules apply
      CASE((4 * (37 / (u + 4))) / n, "4*(37/(u + 4))/n"),
  });
}

TEST(Simplify, Modulo) {
  check({
      CASE(x % 1, "0"),
      CASE(x % x, "0"),
      CASE((x * y) % y, "0"),
      CASE((8 * x) % 4, "0"),
      CASE((4 * x + 5) % 4, "1"),
      CASE((5 * x + 7) % 4, "(x + 3)%4"),
      CASE((4 * i + j) % 4, "j"),
      CASE(i % n, "i"),
      CASE((i + n) % n, "i"),
      CASE((n * x + y) % n, "y%n"),
      CASE((x % 4) % 4, "x%4"),
      CASE((x % 8) % 4, "x%4"),
      CASE((x % 4) % 8, "x%4"),
      CASE((x % n) % n, "x%n"),
      CASE((x % (2 * n)) % n, "x%n"),
      CASE(t % 8, "t"),
      CASE(t % 4, "t%4"),
      CASE(j % 4, "j"),
      CASE((x - 1) % 4, "(x + 3)%4"),  // coefficients reduce mod 4, keeping the dividend >= 0
  });
}

TEST(Simplify, DivModRecombine) {
  check({
      CASE((x / 4) * 4 + x % 4, "x"),
      CASE(x % 4 + (x / 4) * 4, "x"),
      CASE(x - (x / 4) * 4, "x%4"),
      CASE(x - x % 4, "4*(x/4)"),
      CASE((x / n) * n + x % n, "x"),
      CASE(((x + y) / 4) * 4 + (x + y) % 4, "x + y"),
      CASE(2 * ((x / 4) * 4) + 2 * (x % 4), "2*x"),
      CASE(y * (x / n) * n + y * (x % n), "x*y"),
      CASE((x / 4) * 4, "4*(x/4)"),
      CASE(x + (x / 4) * 4, "x + 4*(x/4)"),
      CASE((x / 4) * 4 + x % 4 + 1, "x + 1"),
      CASE(((4 * i + j) / 4) * 4 + (4 * i + j) % 4, "4*i + j"),
      // A divisor that holds a remainder itself: the recombination used to recurse
      // without end (a stack overflow in `liftc space` on split(N % 17 % 16, x)).
      CASE((n / (n % 17 % 16)) * (n % 17 % 16), "n - n%(n%17%16)"),
      CASE(n - n % (n % 17 % 16), "n - n%(n%17%16)"),
      CASE((x / (y % 5)) * (y % 5) + x % (y % 5), "x"),
      CASE(x - (x / (m / 3)) * (m / 3), "x%(m/3)"),
  });
}

TEST(Simplify, MinMax) {
  check({
      CASE(min(x, x), "x"),
      CASE(min(i, n), "i"),
      CASE(max(i, n), "n"),
      CASE(min(n - 1, i), "i"),
      CASE(min(x, y), "min(x, y)"),
      CASE(min(y, x), "min(x, y)"),
      CASE(max(y, x), "max(x, y)"),
      CASE(max(j, 3), "3"),
      CASE(max(j, 4), "4"),
      CASE(min(j, 2), "min(2, j)"),
      CASE(min(x, 0), "0"),
      CASE(max(x, 0), "x"),
      CASE(min(x + 1, x), "x"),
      CASE(max(n, 1), "n"),
  });
}

TEST(Simplify, Printing) {
  check({
      CASE(-(x / 4), "-(x/4)"),
      CASE(-(x / 4) * y, "-y*(x/4)"),
      CASE(y - x / 4, "y - x/4"),
      CASE(y - 2 * (x / 4), "y - 2*(x/4)"),
      CASE(x / (y + 1), "x/(y + 1)"),
      CASE((x + 1) / y, "(x + 1)/y"),
      CASE((x % 4) / y, "x%4/y"),
      CASE(x / (y % 4 + 1), "x/(y%4 + 1)"),
      CASE(min(x - 1, y), "min(y, x - 1)"),
      CASE(min(x, y) / 2, "min(x, y)/2"),
      CASE(n * m - m * n, "0"),
  });
}

// Commutative forms compare equal with ==, and the order is consistent with it.
TEST(Simplify, CanonicalEquality) {
  const std::vector<std::pair<Expr, Expr>> equal = {
      {x + y, y + x},
      {x * y, y * x},
      {2 * (x + y), 2 * x + 2 * y},
      {min(x, y), min(y, x)},
      {max(x + 1, y), max(y, 1 + x)},
      {(x + 1) * (x + 1), x * x + 2 * x + 1},
      {(x + y) * (x - y), x * x - y * y},
      {n * (m + 1), n + m * n},
      {(x / 4) * 4 + x % 4, x},
  };
  for (const auto& [a, b] : equal) {
    EXPECT_EQ(a, b) << to_string(a) << " vs " << to_string(b);
    EXPECT_FALSE(a < b || b < a) << to_string(a);
  }
  EXPECT_NE(x + y, x * y);
  EXPECT_TRUE((x < y) != (y < x));
}

// User-reachable failures: a clear liftc::Error, never a crash.
TEST(Simplify, Errors) {
  struct ErrorCase {
    int line;
    std::function<Expr()> build;
    std::string message;
  };
  const std::vector<ErrorCase> cases = {
      {__LINE__, [] { return x / 0; }, "division by zero in size expression `x/0`"},
      {__LINE__, [] { return (n + 1) % 0; }, "division by zero in size expression `(n + 1)%0`"},
      {__LINE__, [] { return Expr(5) / 0; }, "division by zero in size expression `5/0`"},
      {__LINE__, [] { return Expr(INT64_MAX) + 1; }, "integer overflow in size expression"},
      {__LINE__, [] { return Expr(INT64_MAX) * 2; }, "integer overflow in size expression"},
      {__LINE__, [] { return Expr(INT64_MAX) * x + Expr(INT64_MAX) * x; }, "integer overflow"},
      {__LINE__, [] { return Expr(INT64_MIN) / -1; }, "integer overflow"},
  };
  for (const auto& c : cases) {
    try {
      Expr e = c.build();
      ADD_FAILURE() << "line " << c.line << ": expected an error, got " << to_string(e);
    } catch (const Error& err) {
      EXPECT_NE(err.message().find(c.message), std::string::npos) << "line " << c.line << ": " << err.message();
    }
  }
}

}  // namespace
}  // namespace liftc::arith
