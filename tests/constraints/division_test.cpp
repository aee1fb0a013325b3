// One integer division (src/arith/README.md): arith's constant folding and evaluation, the
// constraint stage's evaluator and its Z3 encoding all divide with floor division, for
// negative dividends and divisors too. One row a case: a, b, floor(a/b), a - b*floor(a/b).

#include <gtest/gtest.h>

#include "liftc/arith/division.hpp"
#include "liftc/arith/expr.hpp"
#include "liftc/constraints/solve.hpp"

namespace liftc::constraints {
namespace {

struct Row {
  std::int64_t a, b, quotient, remainder;
};

const Row kRows[] = {
    {7, 2, 3, 1},    {-7, 2, -4, 1},  {7, -2, -4, -1}, {-7, -2, 3, -1}, {6, -3, -2, 0},
    {-6, 3, -2, 0},  {-1, 3, -1, 2},  {1, -3, -1, -2}, {0, -2, 0, 0},   {-7, 1, -7, 0},
    {5, -1, -5, 0},  {-5, -1, 5, 0},
};

std::vector<std::int64_t> range(std::int64_t lo, std::int64_t hi) {
  std::vector<std::int64_t> v;
  for (std::int64_t x = lo; x <= hi; ++x) v.push_back(x);
  return v;
}

// x, y and the quotient q and remainder r, tied by q <= x/y <= q and r <= x%y <= r.
Space division_space() {
  arith::Expr x = arith::var("x", -8, 8), y = arith::var("y", -3, 3), q = arith::var("q", -8, 8),
              r = arith::var("r", -8, 8);
  Space s;
  s.params = {{"q", Source::Rule, "", "-8..8", range(-8, 8)}, {"r", Source::Rule, "", "-8..8", range(-8, 8)},
              {"x", Source::Rule, "", "-8..8", range(-8, 8)}, {"y", Source::Rule, "", "{-3, -2, -1, 1, 2, 3}",
                                                                 {-3, -2, -1, 1, 2, 3}}};
  auto le = [](arith::Expr lhs, arith::Expr rhs, std::vector<std::string> vars) {
    Constraint c;
    c.kind = Constraint::Kind::LessEqual;
    c.lhs = std::move(lhs);
    c.rhs = std::move(rhs);
    c.vars = std::move(vars);
    return c;
  };
  s.constraints = {le(q, x / y, {"q", "x", "y"}), le(x / y, q, {"q", "x", "y"}), le(r, x % y, {"r", "x", "y"}),
                   le(x % y, r, {"r", "x", "y"})};
  return s;
}

TEST(Division, IsFloorDivisionInArithTheEvaluatorAndZ3) {
  const Space space = division_space();
  for (const Row& row : kRows) {
    std::string at = std::to_string(row.a) + " / " + std::to_string(row.b);
    // arith: the int64 functions, constant folding and evaluation of a symbolic x / y.
    EXPECT_EQ(arith::floor_div(row.a, row.b), row.quotient) << at;
    EXPECT_EQ(arith::floor_mod(row.a, row.b), row.remainder) << at;
    EXPECT_EQ(arith::Expr(row.a) / arith::Expr(row.b), arith::Expr(row.quotient)) << at;
    EXPECT_EQ(arith::Expr(row.a) % arith::Expr(row.b), arith::Expr(row.remainder)) << at;
    std::map<std::string, std::int64_t> values{{"x", row.a}, {"y", row.b}};
    EXPECT_EQ(arith::evaluate(arith::var("x", -8, 8) / arith::var("y", -3, 3), values), row.quotient) << at;
    EXPECT_EQ(arith::evaluate(arith::var("x", -8, 8) % arith::var("y", -3, 3), values), row.remainder) << at;

    // The constraint evaluator and Z3 accept exactly the point with floor's q and r.
    const std::pair<std::int64_t, std::int64_t> offsets[] = {{0, 0}, {-1, 0}, {1, 0}, {0, -1}, {0, 1}};
    for (auto [dq, dr] : offsets) {
      Assignment p{row.quotient + dq, row.remainder + dr, row.a, row.b};
      bool expected = dq == 0 && dr == 0;
      EXPECT_EQ(violated(space, p).empty(), expected) << at << " with q, r off by " << dq << ", " << dr;
      EXPECT_EQ(z3_accepts(space, p), expected) << at << " with q, r off by " << dq << ", " << dr << " (Z3)";
    }
  }
}

}  // namespace
}  // namespace liftc::constraints
