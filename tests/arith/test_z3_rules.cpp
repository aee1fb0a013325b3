// Simplification rules proved with Z3 (STYLE.md habit 9). Each row writes a rule's
// left-hand side once, as a generic lambda, and instantiates it twice: over arith::Expr
// (which simplifies it; the result must print as `expected`, so the rule did fire) and
// over z3 integers (unsimplified). Then ranges ∧ lhs != simplified must be unsat, i.e. the
// rewrite is valid for every value in the variables' ranges. Z3's integer div/mod agree
// with floor division for positive divisors; for a divisor e of unknown sign the z3 side
// is written as floor division (floor_div/floor_mod below).
//
// Z3's nonlinear integer reasoning gives up ("unknown") on a modulo by a symbolic b of a
// multiple of b, e.g. (a*b + c) % b. Those rows (marked fixed_b) are proved for each
// b in [1, 16] instead: linear problems, which Z3 decides.

#include <functional>

#include <gtest/gtest.h>
#include <z3++.h>

#include "../arith_z3.hpp"
#include "liftc/arith/expr.hpp"

namespace liftc::arith {
namespace {

// a >= 0 (no declared range), b >= 1 (a size), c in [0, 3], d in [0, b-1] (an index),
// e >= -3 and e != 0 (a divisor such as u - 4 for a size u, whose sign is unknown).
const Expr A = var("a"), B = size_var("b"), C = var("c", 0, 3), D = var("d", 0, B - 1), E = var("e", -3);

struct Rule {
  int line;
  bool fixed_b;
  std::string expected;
  std::function<Expr(const Expr&, const Expr&, const Expr&, const Expr&, const Expr&)> on_expr;
  std::function<z3::expr(const z3::expr&, const z3::expr&, const z3::expr&, const z3::expr&, const z3::expr&)> on_z3;
};

// A constant of the same kind as `like` (z3::min/max take no plain int).
Expr num(const Expr&, int v) { return Expr(v); }
z3::expr num(const z3::expr& like, int v) { return like.ctx().int_val(v); }

template <class F>
Rule rule(int line, bool fixed_b, std::string expected, F f) {
  return Rule{line, fixed_b, std::move(expected), f, f};
}
#define RULE(expected, ...) \
  rule(__LINE__, false, expected, [](auto a, auto b, auto c, auto d, auto e) { return __VA_ARGS__; })
#define RULE_FIXED_B(expected, ...) \
  rule(__LINE__, true, expected, [](auto a, auto b, auto c, auto d, auto e) { return __VA_ARGS__; })

using liftc::testing::floor_div;
using liftc::testing::floor_mod;
using liftc::testing::to_z3;
// The same spellings over Expr (which has floor semantics already).
Expr floor_div(const Expr& x, const Expr& y) { return x / y; }
[[maybe_unused]] Expr floor_mod(const Expr& x, const Expr& y) { return x % y; }

TEST(Z3, SimplificationRulesAreValid) {
  const std::vector<Rule> rules = {
      RULE("a + c/b", (a * b + c) / b),
      RULE_FIXED_B("c%b", (a * b + c) % b),
      RULE("0", d / b),
      RULE("d", d % b),
      RULE("a", (4 * a + c) / 4),
      RULE("c", (4 * a + c) % 4),
      RULE("a", (a * b) / b),
      RULE_FIXED_B("0", (a * b) % b),
      RULE("a", (a / b) * b + a % b),
      RULE("a%b", a - (a / b) * b),
      RULE("b*(a/b)", a - a % b),
      RULE("a/(4*b)", (a / b) / 4),
      RULE("3*a/(2*b)", (6 * a) / (4 * b)),
      RULE("a%4", (a % 8) % 4),
      RULE_FIXED_B("a%b", (a % (3 * b)) % b),
      RULE("(a + 3)%4", (5 * a + 7) % 4),
      RULE("a + 1", (4 * a + 5) / 4),
      RULE("a/4 + 2", (a + 8) / 4),
      RULE("0", (a % b) / b),
      RULE("d", min(d, b)),
      RULE("b", max(d, b)),
      RULE("3", max(c, num(c, 3))),
      RULE("c", min(c, 3 + a)),
      RULE("b - d - 1", b - 1 - d),
      RULE("4*b*d + 4*c", 4 * (b * d + c)),
      // A lane c < 4 of an aligned group of 4 never carries: vector reads of joined arrays.
      RULE("a/2", (4 * a + c) / 8),
      RULE("c + 4*(a%2)", (4 * a + c) % 8),
      RULE("a/b", (4 * a + c) / (4 * b)),
      RULE_FIXED_B("c + 4*(a%b)", (4 * a + c) % (4 * b)),
      // Divisors of unknown sign: only the rules exact for every non-zero divisor fire.
      RULE("a + c/e", floor_div(a * e + c, e)),
      RULE("4*(37/e)/b", floor_div(4 * floor_div(num(a, 37), e), b)),
      RULE("37/(b*e)", floor_div(floor_div(num(a, 37), e), b)),  // floor(floor(y)/b) = floor(y/b) for b > 0
      RULE("a/b/e", floor_div(floor_div(a, b), e)),
      RULE("(4*a + 1)/(4*e)", floor_div(4 * a + 1, 4 * e)),
  };
  for (const auto& r : rules) {
    Expr simplified = r.on_expr(A, B, C, D, E);
    EXPECT_EQ(to_string(simplified), r.expected) << "rule at line " << r.line;

    for (int fixed = r.fixed_b ? 1 : 0; fixed <= (r.fixed_b ? 16 : 0); ++fixed) {
      z3::context ctx;
      z3::expr a = ctx.int_const("a"), b = ctx.int_const("b"), c = ctx.int_const("c"), d = ctx.int_const("d"),
               e = ctx.int_const("e");
      z3::solver s(ctx);
      z3::params params(ctx);
      params.set("timeout", 60000u);  // milliseconds; "unknown" fails the row (generous: under
                                      // a loaded CI machine 10 s was seen to run out)
      s.set(params);
      s.add(a >= 0 && b >= 1 && c >= 0 && c <= 3 && d >= 0 && d <= b - 1 && e >= -3 && e != 0);
      if (fixed) s.add(b == fixed);
      s.add(r.on_z3(a, b, c, d, e) != to_z3(simplified, ctx));
      EXPECT_EQ(s.check(), z3::unsat) << "rule at line " << r.line << (fixed ? " with b = " + std::to_string(fixed) : "")
                                      << " is not valid (or Z3 gave up): " << to_string(simplified);
    }
  }
}

// The rewrites the simplifier used to make for a divisor of unknown sign, refuted: Z3 finds
// values where left and right differ, which is why those rules now require b > 0.
TEST(Z3, UnguardedRulesAreInvalidForDivisorsOfUnknownSign) {
  struct Refuted {
    int line;
    std::function<z3::expr(const z3::expr&, const z3::expr&, const z3::expr&)> lhs, rhs;
  };
  const std::vector<Refuted> rows = {
      // 4*(37/e)/b -> 0 (0 <= 4*(37/e) < b was "proved" from 37/e >= 0)
      {__LINE__, [](auto a, auto b, auto e) { return floor_div(4 * floor_div(a.ctx().int_val(37), e), b); },
       [](auto a, auto, auto) { return a.ctx().int_val(0); }},
      // (x/b)/e -> x/(b*e): the outer divisor must be positive
      {__LINE__, [](auto a, auto b, auto e) { return floor_div(floor_div(a, b), e); },
       [](auto a, auto b, auto e) { return floor_div(a, b * e); }},
      // (4*a + 1)/(4*e) -> a/e (an aligned group of 4)
      {__LINE__, [](auto a, auto, auto e) { return floor_div(4 * a + 1, 4 * e); },
       [](auto a, auto, auto e) { return floor_div(a, e); }},
  };
  for (const auto& r : rows) {
    z3::context ctx;
    z3::expr a = ctx.int_const("a"), b = ctx.int_const("b"), e = ctx.int_const("e");
    z3::solver s(ctx);
    s.add(a >= 0 && b >= 1 && e >= -3 && e != 0);
    s.add(r.lhs(a, b, e) != r.rhs(a, b, e));
    EXPECT_EQ(s.check(), z3::sat) << "row at line " << r.line << " should have a counterexample";
  }
}

}  // namespace
}  // namespace liftc::arith
