// The pattern mode of the elaborator (parse::elaborate_pattern): names a pattern does not
// bind become pattern variables of the kind their position asks for, names it binds (lambda
// parameters, lets) do not; calls are checked against the primitives' signatures, with
// errors at file:line:col.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "liftc/parse/pattern.hpp"
#include "liftc/syntax/read.hpp"

namespace {

using namespace liftc;
using parse::Pattern;
using parse::PatternKind;
using parse::PatternVars;
using parse::VarKind;

// A rule `rule r(fresh...): lhs => rhs` elaborated in pattern mode: the left side binds,
// the right side uses what it bound.
struct Elaborated {
  Pattern lhs, rhs;
  PatternVars vars;
};

Elaborated elaborate(const std::string& lhs, const std::string& rhs, const std::vector<std::string>& fresh = {}) {
  std::string params = fresh.empty() ? "" : fmt::format("({})", fmt::join(fresh, ", "));
  auto file = std::make_shared<SourceFile>(SourceFile{"p.rules", fmt::format("rule r{}: {} => {}", params, lhs, rhs)});
  auto parsed = syntax::read_rule_file(file);
  const auto& decl = boost::get<syntax::ast::RuleDecl>(parsed->tree().items.at(0).get());
  Elaborated out;
  out.lhs = parse::elaborate_pattern(decl.lhs, *parsed, parse::PatternMode{true, out.vars, fresh});
  out.rhs = parse::elaborate_pattern(decl.rhs, *parsed, parse::PatternMode{false, out.vars, fresh});
  return out;
}

std::string kinds(const PatternVars& vars) {
  std::vector<std::string> out;
  for (const auto& [name, kind] : vars)
    out.push_back(fmt::format("{}:{}", name, kind == VarKind::Expr ? "expr" : kind == VarKind::Function ? "function" : "size"));
  return fmt::format("{}", fmt::join(out, " "));
}

// The lambda parameter `y` stays bound; the unbound `g` and `x` become pattern variables.
TEST(Pattern, UnboundNamesBecomeVariablesBoundOnesDoNot) {
  Elaborated e = elaborate("map(y -> g(y), x)", "map(y -> g(y), x)");
  EXPECT_EQ(kinds(e.vars), "g:function x:expr");
  ASSERT_EQ(e.lhs.kind, PatternKind::Call);
  EXPECT_EQ(e.lhs.prim, ir::Prim::Map);
  ASSERT_EQ(e.lhs.args.size(), 2u);
  const Pattern& lambda = e.lhs.args[0];
  ASSERT_EQ(lambda.kind, PatternKind::Lambda);
  EXPECT_EQ(lambda.params, std::vector<std::string>{"y"});
  const Pattern& applied = lambda.args.at(0);
  ASSERT_EQ(applied.kind, PatternKind::Apply);
  EXPECT_EQ(applied.name, "g");
  ASSERT_EQ(applied.args.size(), 1u);
  EXPECT_EQ(applied.args[0].kind, PatternKind::Var);
  EXPECT_EQ(applied.args[0].name, "y");
  EXPECT_TRUE(applied.args[0].bound);
  const Pattern& x = e.lhs.args[1];
  EXPECT_EQ(x.kind, PatternKind::Var);
  EXPECT_EQ(x.name, "x");
  EXPECT_FALSE(x.bound);
  EXPECT_EQ(x.loc.line, 1);
  EXPECT_EQ(x.loc.col, 24);
}

struct KindCase {
  const char* lhs;
  const char* vars;  // the pattern variables of the left side and their kinds
};

// One line a case: a left side and the variables it binds; lambda parameters and let names are none.
const KindCase kKinds[] = {
    {"map(f, x)", "f:function x:expr"},
    {"split(n, join(x))", "n:size x:expr"},
    {"reduce(z, (a, b) -> a + b, x)", "x:expr z:expr"},
    {"reorder(striddenIndex(s), x)", "s:size x:expr"},
    {"map(f, let t = x in (t, t.0))", "f:function x:expr"},
    {"join(map(split(n), x))", "n:size x:expr"},
    {"zip(x, y, -z)", "x:expr y:expr z:expr"},
};

TEST(Pattern, VariablesTakeTheKindOfTheirPosition) {
  for (const auto& c : kKinds) EXPECT_EQ(kinds(elaborate(c.lhs, "x").vars), c.vars) << c.lhs;
}

// `-2` in a pattern is neg(2), not a negative literal as in a program (rules/README.md).
TEST(Pattern, MinusALiteralIsANegation) {
  Elaborated e = elaborate("add(x, -2)", "x - 2");
  const Pattern& minus_two = e.lhs.args.at(1);
  ASSERT_EQ(minus_two.kind, PatternKind::Call);
  EXPECT_EQ(minus_two.prim, ir::Prim::Neg);
  ASSERT_EQ(minus_two.args.size(), 1u);
  EXPECT_EQ(minus_two.args[0].kind, PatternKind::Literal);
  EXPECT_EQ(minus_two.args[0].literal.i, 2);
  EXPECT_EQ(e.rhs.kind, PatternKind::Call);
  EXPECT_EQ(e.rhs.prim, ir::Prim::Sub);
}

struct ErrorCase {
  const char* lhs;
  const char* rhs;
  const char* message;  // exactly
  int line, col;
};

// One line a case: a rule whose pattern must not elaborate, the message and where it points.
const ErrorCase kErrors[] = {
    {"map(f, x)", "mop(f, x)", "unknown primitive or function variable `mop`", 1, 22},
    {"split(x, y, z)", "x", "split takes 1 operand after 1 size argument, got 2", 1, 9},
    {"map(f, x, x)", "x", "map takes 2 operands, got 3", 1, 9},
    {"reorder(4, x)", "x", "reorder takes striddenIndex(s) first", 1, 17},
    {"map((a, a) -> a, x)", "x", "parameter `a` appears twice", 1, 17},
    {"join(map)", "x", "`map` is a primitive; it needs its operands here", 1, 14},
    {"map(f, split(n, f))", "x", "`f` is used as an expression here but as a function earlier", 1, 25},
    {"map(f, x)", "map(f, f)", "`f` is a function variable; it cannot be used as a value", 1, 29},
    {"map(f, x)", "map(y -> y(x), x)", "`y` is a value, not a function", 1, 31},
    {"map(f, x)", "split(n, x)", "unbound variable `n` on the right side", 1, 28},
    {"map(x -> g(x, x), y)", "y",
     "on the left, function variable `g` may only be applied to distinct lambda parameters or to one expression over them",
     1, 23},
    {"map(x -> g(y + 1.0), y)", "y",
     "on the left, function variable `g` may only be applied to distinct lambda parameters or to one expression over them",
     1, 20},
};

TEST(Pattern, ErrorsSayWhatAndWhere) {
  for (const auto& c : kErrors) {
    try {
      elaborate(c.lhs, c.rhs);
      ADD_FAILURE() << "elaborated: " << c.lhs << " => " << c.rhs;
    } catch (const Error& e) {
      EXPECT_EQ(e.message(), c.message) << c.lhs << " => " << c.rhs;
      ASSERT_TRUE(e.loc().known()) << c.message;
      EXPECT_EQ(fmt::format("{}:{}:{}", e.loc().file->path, e.loc().line, e.loc().col),
                fmt::format("p.rules:{}:{}", c.line, c.col))
          << c.message;
    }
  }
}

}  // namespace
