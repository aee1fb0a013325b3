// Issue 11, section 3: a rewrite step keeps the type of the expression it replaces exactly
// (lengths equal symbolically, or at the declared sizes where that does not decide it); a
// step that does not is not applied, and the trace says why.

#include <gtest/gtest.h>

#include "harness.hpp"
#include "liftc/ir/printer.hpp"

namespace liftc::rewrite::test {
namespace {

struct StepCase {
  int line;
  const char* rules;
  const char* program;
  const char* strategy;
  const char* rewritten;  // the rewritten definition, or "" when no step may apply
  const char* trace;      // a substring of the trace (the rejection), or ""
};

// clang-format off
const StepCase kSteps[] = {
    // transpose(x) => x on [[float]M]N would give [[float]N]M.
    {__LINE__, "rule r: transpose(x) => x", "size N, M\ninput a : [[float]M]N\ndef y = transpose(a)", "r",
     "", "[y] r matched at root but its result has type [[float]M]N, not [[float]N]M"},
    // reduce(z, f, x) => map(y -> z, x) would turn [float]1 into [float]M.
    {__LINE__, "rule r: reduce(z, f, x) => map(y -> z, x)",
     "size N, M\ninput a : [[float]M]N\ndef y = map(r -> reduce(0.0, (acc, v) -> acc + v, r), a)", "topdown(r)",
     "", "[y] r matched at 0.0 but its result has type [float]M, not [float]1"},
    // Equal at the declared sizes: M = N = 4 makes both [[float]4]4.
    {__LINE__, "rule r: transpose(x) => x", "size N = 4, M = 4\ninput a : [[float]M]N\ndef y = transpose(a)", "r",
     "a", ""},
    // Not equal at the declared sizes.
    {__LINE__, "rule r: transpose(x) => x", "size N = 4, M = 8\ninput a : [[float]M]N\ndef y = transpose(a)", "r",
     "", "its result has type [[float]M]N, not [[float]N]M"},
    // Equal assuming exact division: n_N*(N/n_N) is N (the divisibility is an obligation).
    {__LINE__, "rule r(n): map(f, x) => join(map(map(f), split(n, x)))",
     "size N\ninput a : [float]N\ndef y = map(v -> v + 1.0, a)", "r",
     "join(map(y -> map(v -> v + 1.0, y), split(n_N, a)))", ""},
    // A reduction to a scalar array of one element stays [float]1.
    {__LINE__, "rule r: reduce(z, f, x) => reduce(z, f, join(split(1, x)))",
     "size N\ninput a : [float]N\ndef y = reduce(0.0, (acc, v) -> acc + v, a)", "r",
     "reduce(0.0, (acc, v) -> acc + v, join(split(1, a)))", ""},
};
// clang-format on

TEST(TypePreservation, StepsKeepTheTypeOfWhatTheyReplace) {
  for (const auto& c : kSteps) {
    RuleSet set = rules_of(c.rules);
    std::string trace;
    RewriteOptions o;
    o.trace = [&](const std::string& l) { trace += l + "\n"; };
    if (*c.rewritten == '\0') {
      EXPECT_THROW(rewrite_program(set, c.strategy, program(c.program), o), Error) << "case at line " << c.line;
    } else {
      ProgramRewrite r = rewrite_program(set, c.strategy, program(c.program), o);
      ASSERT_EQ(r.programs.size(), 1u) << "case at line " << c.line;
      EXPECT_EQ(ir::to_string(r.programs[0].program.defs.back().body), c.rewritten) << "case at line " << c.line;
    }
    EXPECT_NE(trace.find(c.trace), std::string::npos) << "case at line " << c.line << ", trace:\n" << trace;
  }
}

struct TypeCase {
  int line;
  ir::Type a, b;
  SizeValues given;
  bool same;
};

TEST(TypePreservation, SameTypeTable) {
  using ir::Type;
  const arith::Expr n = arith::size_var("N"), m = arith::size_var("M"), k = arith::size_var("k");
  const Type f = Type::float_();
  const std::vector<TypeCase> cases = {
      {__LINE__, Type::array(Type::array(f, m), n), Type::array(Type::array(f, n), m), {}, false},
      {__LINE__, Type::array(Type::array(f, m), n), Type::array(Type::array(f, n), m), {{"N", 4}, {"M", 4}}, true},
      {__LINE__, Type::array(f, n), Type::array(f, k * (n / k)), {}, true},
      {__LINE__, Type::array(f, n), Type::array(f, n + 1), {}, false},
      {__LINE__, Type::array(f, 1), Type::array(f, n), {}, false},
      {__LINE__, Type::array(f, 1), Type::array(f, n), {{"N", 1}}, true},
      {__LINE__, Type::array(f, 4), Type::array(f, 8), {}, false},
      {__LINE__, Type::array(f, n), Type::array(Type::int_(), n), {}, false},
      {__LINE__, Type::tuple({f, Type::array(f, n)}), Type::tuple({f, Type::array(f, m)}), {}, false},
      {__LINE__, Type::vector(ir::ScalarKind::Float, 4), Type::vector(ir::ScalarKind::Float, 4), {}, true},
  };
  for (const auto& c : cases)
    EXPECT_EQ(same_type(c.a, c.b, c.given), c.same)
        << "case at line " << c.line << ": " << ir::to_string(c.a) << " vs " << ir::to_string(c.b);
}

// Issue 11, section 6: the 1D stencil tiled by rules had the type [[float]1](-r_1) and an
// unsatisfiable obligation (-r_1 >= 1) because the simplifier took u_1 - 4 as positive. Its
// type is now the original's, and instances exist and compute the original's values.
TEST(TypePreservation, TiledStencil1DKeepsItsType) {
  ir::Program p = program(example("stencil1d.sr"));
  ProgramRewrite r = rewrite_program(library(), "stencil1d-tiled", p);
  ASSERT_EQ(r.programs.size(), 1u);
  EXPECT_TRUE(same_type(r.programs[0].program.defs[0].body.type(), typecheck::typecheck(p).program.defs[0].body.type()))
      << ir::to_string(r.programs[0].program.defs[0].body.type());
  Equivalence e = check_equivalence(p, "stencil1d-tiled", 3, 11);
  EXPECT_TRUE(e.failure.empty()) << e.failure;
  EXPECT_GE(e.instances, 1);
  EXPECT_EQ(e.infeasible, 0);
}

}  // namespace
}  // namespace liftc::rewrite::test
