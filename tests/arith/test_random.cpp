// The simplifier against brute force: random expressions over variables with small
// ranges are built twice, as an unsimplified tree evaluated by the tiny evaluator below
// and through the simplifying operators. At every point of the ranges where the tree is in
// the domain (dividends >= 0, divisors > 0) the simplified form must agree, both with
// arith::evaluate (floor semantics) and when its printed text is parsed and evaluated as
// C (truncating division), which checks the printer's parentheses too.

#include <cctype>
#include <cstdlib>
#include <memory>
#include <random>

#include <gtest/gtest.h>

#include "liftc/arith/expr.hpp"

namespace liftc::arith {
namespace {

// ---- the unsimplified reference ----------------------------------------------------------

enum class Op { Cst, Var, Add, Sub, Mul, Div, Mod, Min, Max };

struct Raw {
  Op op;
  std::int64_t value = 0;  // Cst
  int var = 0;             // Var: index into kVars
  std::shared_ptr<Raw> a, b;
};
using RawP = std::shared_ptr<Raw>;

// n in [1, 5]; i in [0, n-1]; j in [0, 3]; x has no declared range (assumed >= 0), and
// is enumerated over [0, 6].
const Expr kN = var("n", 1, 5);
const std::vector<Expr> kVars = {kN, var("i", 0, kN - 1), var("j", 0, 3), var("x")};

using Point = std::map<std::string, std::int64_t>;

// The raw tree, fully parenthesized, for failure messages.
std::string show(const Raw& r) {
  static const char* ops[] = {"", "", " + ", " - ", "*", "/", "%", "min", "max"};
  switch (r.op) {
    case Op::Cst: return std::to_string(r.value);
    case Op::Var: return kVars[r.var].name();
    case Op::Min: case Op::Max:
      return std::string(ops[static_cast<int>(r.op)]) + "(" + show(*r.a) + ", " + show(*r.b) + ")";
    default: return "(" + show(*r.a) + ops[static_cast<int>(r.op)] + show(*r.b) + ")";
  }
}

// Evaluates the raw tree; false when it leaves the domain at this point.
bool eval_raw(const Raw& r, const Point& p, std::int64_t& out) {
  std::int64_t a = 0, b = 0;
  if (r.a && !eval_raw(*r.a, p, a)) return false;
  if (r.b && !eval_raw(*r.b, p, b)) return false;
  switch (r.op) {
    case Op::Cst: out = r.value; return true;
    case Op::Var: out = p.at(kVars[r.var].name()); return true;
    case Op::Add: out = a + b; return true;
    case Op::Sub: out = a - b; return true;
    case Op::Mul: out = a * b; return true;
    case Op::Div: if (a < 0 || b <= 0) return false; out = a / b; return true;
    case Op::Mod: if (a < 0 || b <= 0) return false; out = a % b; return true;
    case Op::Min: out = std::min(a, b); return true;
    case Op::Max: out = std::max(a, b); return true;
  }
  return false;
}

Expr build(const Raw& r) {
  switch (r.op) {
    case Op::Cst: return Expr(r.value);
    case Op::Var: return kVars[r.var];
    case Op::Add: return build(*r.a) + build(*r.b);
    case Op::Sub: return build(*r.a) - build(*r.b);
    case Op::Mul: return build(*r.a) * build(*r.b);
    case Op::Div: return build(*r.a) / build(*r.b);
    case Op::Mod: return build(*r.a) % build(*r.b);
    case Op::Min: return min(build(*r.a), build(*r.b));
    case Op::Max: return max(build(*r.a), build(*r.b));
  }
  return Expr();
}

// Rebuilds a simplified expression node by node through the operators.
Expr rebuild(const Expr& e) {
  if (e.kind() == Kind::Cst || e.kind() == Kind::Var) return e;
  std::vector<Expr> ops;
  for (const auto& o : e.operands()) ops.push_back(rebuild(o));
  switch (e.kind()) {
    case Kind::Sum: { Expr r(0); for (const auto& o : ops) r = r + o; return r; }
    case Kind::Prod: { Expr r(1); for (const auto& o : ops) r = r * o; return r; }
    case Kind::Div: return ops[0] / ops[1];
    case Kind::Mod: return ops[0] % ops[1];
    case Kind::Min: return min(ops[0], ops[1]);
    default: return max(ops[0], ops[1]);
  }
}

// ---- a tiny C expression evaluator for the printed form ---------------------------------

struct CParser {
  const std::string& s;
  const Point& p;
  std::size_t pos = 0;

  void skip() { while (pos < s.size() && s[pos] == ' ') ++pos; }
  bool eat(char c) { skip(); if (pos < s.size() && s[pos] == c) { ++pos; return true; } return false; }

  std::int64_t primary() {
    skip();
    if (eat('-')) return -primary();
    if (eat('(')) { std::int64_t v = sum(); EXPECT_TRUE(eat(')')) << s; return v; }
    std::size_t start = pos;
    if (std::isdigit(static_cast<unsigned char>(s[pos]))) {
      while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) ++pos;
      return std::stoll(s.substr(start, pos - start));
    }
    while (pos < s.size() && (std::isalnum(static_cast<unsigned char>(s[pos])) || s[pos] == '_')) ++pos;
    std::string name = s.substr(start, pos - start);
    if (name == "min" || name == "max") {
      EXPECT_TRUE(eat('(')) << s;
      std::int64_t a = sum();
      EXPECT_TRUE(eat(',')) << s;
      std::int64_t b = sum();
      EXPECT_TRUE(eat(')')) << s;
      return name == "min" ? std::min(a, b) : std::max(a, b);
    }
    return p.at(name);
  }
  std::int64_t product() {  // * / % are left-associative; / and % truncate as in C
    std::int64_t v = primary();
    for (;;) {
      if (eat('*')) v *= primary();
      else if (eat('/')) { std::int64_t d = primary(); if (d == 0) throw std::domain_error("C division by zero"); v /= d; }
      else if (eat('%')) { std::int64_t d = primary(); if (d == 0) throw std::domain_error("C modulo by zero"); v %= d; }
      else return v;
    }
  }
  std::int64_t sum() {
    std::int64_t v = product();
    for (;;) {
      if (eat('+')) v += product();
      else if (eat('-')) v -= product();
      else return v;
    }
  }
};

// ---- random generation --------------------------------------------------------------------

struct Gen {
  std::mt19937 rng;
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  RawP node(Op op, RawP a = nullptr, RawP b = nullptr) { return std::make_shared<Raw>(Raw{op, 0, 0, a, b}); }
  RawP cst(std::int64_t v) { auto r = node(Op::Cst); r->value = v; return r; }
  RawP leaf() {
    if (pick(0, 2) == 0) return cst(pick(0, 5));
    auto r = node(Op::Var);
    r->var = pick(0, static_cast<int>(kVars.size()) - 1);
    return r;
  }
  RawP divisor(int depth) {  // mostly positive by construction
    switch (pick(0, 4)) {
      case 0: return cst(pick(1, 5));
      case 1: return cst(pick(1, 2) * 4);
      case 2: { auto r = node(Op::Var); r->var = 0; return r; }  // n
      case 3: return node(Op::Add, expr(depth - 1), cst(pick(1, 3)));
      default: return node(Op::Mul, cst(pick(1, 4)), divisor(0));
    }
  }
  RawP expr(int depth) {
    if (depth <= 0) return leaf();
    switch (pick(0, 12)) {
      case 0: case 1: return node(Op::Add, expr(depth - 1), expr(depth - 1));
      case 2: return node(Op::Sub, expr(depth - 1), expr(depth - 1));
      case 3: return node(Op::Mul, cst(pick(1, 4)), expr(depth - 1));
      case 4: return node(Op::Mul, expr(depth - 1), expr(depth - 1));
      case 5: case 6: return node(Op::Div, expr(depth - 1), divisor(depth - 1));
      case 7: case 8: return node(Op::Mod, expr(depth - 1), divisor(depth - 1));
      case 9: return node(pick(0, 1) ? Op::Min : Op::Max, expr(depth - 1), expr(depth - 1));
      case 10: {  // (a/b)*b + a%b and a - (a/b)*b: the join(split) shapes
        auto a = expr(depth - 1), b = divisor(0);
        auto whole = node(Op::Mul, node(Op::Div, a, b), b);
        return pick(0, 1) ? node(Op::Add, whole, node(Op::Mod, a, b)) : node(Op::Sub, a, whole);
      }
      case 11: {  // c*a + r, the tiling shape
        std::int64_t c = pick(1, 4);
        return node(Op::Add, node(Op::Mul, cst(c), expr(depth - 1)), expr(depth - 2));
      }
      default: return leaf();
    }
  }
};

std::vector<Point> all_points() {
  std::vector<Point> points;
  for (std::int64_t n = 1; n <= 5; ++n)
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j <= 3; ++j)
        for (std::int64_t x = 0; x <= 6; ++x) points.push_back({{"n", n}, {"i", i}, {"j", j}, {"x", x}});
  return points;
}

TEST(Random, SimplifiedAgreesWithBruteForce) {
  const auto points = all_points();
  // LIFTC_ARITH_SEED=<n> explores other seeds; the default keeps the test reproducible.
  const char* seed = std::getenv("LIFTC_ARITH_SEED");
  Gen gen{std::mt19937(seed ? static_cast<unsigned>(std::stoul(seed)) : 20240611u)};
  int checked = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    RawP raw = gen.expr(gen.pick(1, 4));
    // Keep trees that are in the domain at every point.
    std::vector<std::int64_t> expected;
    bool ok = true;
    for (const auto& p : points) {
      std::int64_t v = 0;
      if (!(ok = eval_raw(*raw, p, v))) break;
      expected.push_back(v);
    }
    if (!ok) continue;
    Expr e = build(*raw);
    std::string text = to_string(e);
    ++checked;
    for (std::size_t k = 0; k < points.size(); ++k) {
      auto got = evaluate(e, points[k]);
      ASSERT_EQ(got, expected[k]) << "input: " << show(*raw) << "\nsimplified: " << text << " at n=" << points[k].at("n")
                                  << " i=" << points[k].at("i") << " j=" << points[k].at("j")
                                  << " x=" << points[k].at("x");
      CParser c{text, points[k]};
      std::int64_t as_c = c.sum();
      ASSERT_EQ(c.pos, text.size()) << "unparsed rest of " << text;
      ASSERT_EQ(as_c, expected[k]) << "input: " << show(*raw) << "\nprinted C: " << text << " at n=" << points[k].at("n")
                                   << " i=" << points[k].at("i") << " j=" << points[k].at("j")
                                   << " x=" << points[k].at("x");
    }
    // Idempotent: rebuilding the simplified form through the operators changes nothing.
    EXPECT_EQ(to_string(rebuild(e)), text);
  }
  RecordProperty("checked_expressions", checked);
  EXPECT_GT(checked, 1000) << "too few random expressions were in the domain";
}

}  // namespace
}  // namespace liftc::arith
