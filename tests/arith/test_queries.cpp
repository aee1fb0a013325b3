// equal_assuming_exact_division (symbolic, and at size values), substitute, evaluate, free_vars and transform.

#include <gtest/gtest.h>

#include "liftc/arith/expr.hpp"

namespace liftc::arith {
namespace {

const Expr n = size_var("n"), m = size_var("m");
const Expr x = var("x"), y = var("y");
const Expr i = var("i", 0, n - 1);

TEST(Queries, EqualAssumingExactDivision) {
  struct Case {
    int line;
    Expr a, b;
    bool equal;
  };
  const std::vector<Case> cases = {
      {__LINE__, (n / m) * m, n, true},
      {__LINE__, (n / 4) * 4, n, true},
      {__LINE__, n / 2 / 2, n / 4, true},
      {__LINE__, (n - 3 + 1) / 1, n - 2, true},
      {__LINE__, (n / m) * (m / 2), n / 2, true},
      {__LINE__, n / 4 + n / 4, n / 2, true},
      {__LINE__, (n + m) / 2, n / 2 + m / 2, true},
      {__LINE__, (n / 4) % 3, ((n / 8) * 2) % 3, true},  // mod stays opaque, operands normalized
      {__LINE__, n / 4, n / 2, false},
      {__LINE__, (n / m) * m, m, false},
      {__LINE__, n % 4, Expr(0), false},  // divisibility is not assumed for %
      {__LINE__, n + 1, n, false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(equal_assuming_exact_division(c.a, c.b), c.equal) << "line " << c.line;
    EXPECT_EQ(equal_assuming_exact_division(c.b, c.a), c.equal) << "line " << c.line << " (swapped)";
  }
}

TEST(Queries, EqualAssumingExactDivisionAtValues) {
  const Expr w = size_var("W"), k = size_var("K");
  struct Case {
    int line;
    Expr a, b;
    std::map<std::string, Expr> values;
    bool equal;
  };
  const std::vector<Case> cases = {
      {__LINE__, w + 3 - k, w, {{"K", Expr(3)}}, true},
      {__LINE__, w + 3 - k, w, {{"K", Expr(4)}}, false},
      {__LINE__, w + 3 - k, w, {}, false},
      {__LINE__, (n / m) * m, n, {}, true},  // symbolically equal: the values are not needed
      {__LINE__, n / m, n, {{"m", Expr(1)}}, true},
      {__LINE__, n / m, n, {{"m", Expr(0)}}, false},  // a division by zero at the values
  };
  for (const auto& c : cases) {
    EXPECT_EQ(equal_assuming_exact_division(c.a, c.b, c.values), c.equal) << "line " << c.line;
    EXPECT_EQ(equal_assuming_exact_division(c.b, c.a, c.values), c.equal) << "line " << c.line << " (swapped)";
  }
}

// Every division taken as exact: a grouped convolution's group count NI/(NI/G) is G, and
// its output channels NI/(NI/G)*(NO/G) are NO; where the divisions are already exact or
// there are none, the form is the simplifier's own.
TEST(Queries, ExactDivisionForm) {
  const Expr ni = size_var("NI"), no = size_var("NO"), g = size_var("G");
  struct Case {
    int line;
    Expr in;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {__LINE__, ni / (ni / g), "G"},
      {__LINE__, ni / (ni / g) * (no / g), "NO"},
      {__LINE__, g * (no / g), "NO"},
      {__LINE__, 3 * (no / 3) - 3, "NO - 3"},
      {__LINE__, (n / m) * m, "n"},
      {__LINE__, n / 2 / 2, "n/4"},
      {__LINE__, n / 4, "n/4"},
      {__LINE__, (n * m) / ((n * m) / m), "m"},  // m divides n*m: the simplifier's own form already
      {__LINE__, n + m, "m + n"},
      {__LINE__, n % 4, "n%4"},  // a remainder stays one
  };
  for (const auto& c : cases) EXPECT_EQ(to_string(exact_division_form(c.in)), c.expected) << "line " << c.line;
  // The simplifier alone divides by a quotient only where the divisor provably divides: NI/(NI/G) stays.
  EXPECT_EQ(to_string((n * m) / ((n * m) / m)), "m");
  EXPECT_EQ(to_string(ni / (ni / g)), "NI/(NI/G)");
}

TEST(Queries, Substitute) {
  struct Case {
    int line;
    Expr in;
    std::map<std::string, Expr> bindings;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {__LINE__, n + m, {{"n", Expr(3)}}, "m + 3"},
      {__LINE__, n / m, {{"n", 4 * m}}, "4"},
      {__LINE__, (x / 4) * 4 + y, {{"y", x % 4}}, "x"},
      {__LINE__, i % n, {{"n", Expr(8)}}, "i"},  // i's range follows: [0, 7]
      {__LINE__, i % 8, {{"n", Expr(8)}}, "i"},
      {__LINE__, x * y, {{"x", y}, {"y", x}}, "x*y"},  // simultaneous, not sequential
      {__LINE__, x + 1, {}, "x + 1"},
  };
  for (const auto& c : cases) EXPECT_EQ(to_string(substitute(c.in, c.bindings)), c.expected) << "line " << c.line;
}

TEST(Queries, Evaluate) {
  std::map<std::string, std::int64_t> at = {{"n", 10}, {"m", 3}, {"x", 7}};
  EXPECT_EQ(evaluate(n * m + x, at), 37);
  EXPECT_EQ(evaluate(n / m, at), 3);
  EXPECT_EQ(evaluate(n % m, at), 1);
  EXPECT_EQ(evaluate(min(n, x) - max(m, x), at), 0);
  EXPECT_EQ(evaluate(x - n, at), -3);
  EXPECT_EQ(evaluate((x - n) / m, at), -1);  // floor, not truncation
  EXPECT_EQ(evaluate((x - n) % m, at), 0);
  EXPECT_EQ(evaluate(n + y, at), std::nullopt);  // y unbound
  EXPECT_EQ(evaluate(n / y, {{"n", 1}, {"y", 0}}), std::nullopt);  // division by zero
  EXPECT_EQ(evaluate(x * x, {{"x", std::int64_t{1} << 40}}), std::nullopt);  // overflow
}

TEST(Queries, FreeVarsAndTransform) {
  EXPECT_EQ(free_vars(n * x + i / m + 1), (std::vector<std::string>{"i", "m", "n", "x"}));
  EXPECT_EQ(free_vars(Expr(3)), std::vector<std::string>{});
  // Doubling every constant, rebuilt through the simplifier.
  Expr doubled = transform(x + 3 + n / 2, [](const Expr& e) -> std::optional<Expr> {
    if (auto c = e.constant()) return Expr(2 * *c);
    return std::nullopt;
  });
  EXPECT_EQ(to_string(doubled), "x + n/4 + 6");
  // A transform that changes nothing returns the same node.
  Expr e = x * y + n % 3;
  EXPECT_EQ(transform(e, [](const Expr&) { return std::nullopt; }).node(), e.node());
}

}  // namespace
}  // namespace liftc::arith
