// ir::bind_sizes and ir::size_values: declared values, overrides, and their errors.

#include <gtest/gtest.h>

#include <functional>

#include "liftc/ir/program.hpp"
#include "liftc/typecheck/declared_sizes.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace {

using namespace liftc;
using ir::Prim;
using ir::Type;

// size n = 8, m (no value); input xs : [[float]m]n; def out = split(2, join(xs)).
ir::Program program() {
  ir::Program p;
  p.sizes = {{"n", 8, {}}, {"m", std::nullopt, {}}};
  const arith::Expr n = arith::size_var("n"), m = arith::size_var("m");
  p.inputs = {{"xs", Type::array(Type::array(Type::float_(), m), n), {}}};
  p.defs = {{"out", ir::make_call(Prim::Split, {2}, {ir::make_call(Prim::Join, {}, {ir::make_var("xs")})}), {}}};
  return p;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.message();
  }
  return "<no error>";
}

TEST(BindSizes, DeclaredValuesAndOverridesBecomeConstants) {
  ir::Program bound = ir::bind_sizes(program(), {{"m", 3}});
  EXPECT_EQ(ir::to_string(bound.inputs[0].type), "[[float]3]8");
  EXPECT_EQ((ir::size_values(bound)), (std::map<std::string, std::int64_t>{{"m", 3}, {"n", 8}}));
  typecheck::Checked c = typecheck::typecheck(bound);
  EXPECT_EQ(ir::to_string(c.program.defs[0].body.type()), "[[float]2]12");
  EXPECT_TRUE(c.obligations.empty());
}

TEST(BindSizes, OverridesWinOverDeclaredValues) {
  ir::Program bound = ir::bind_sizes(program(), {{"n", 4}, {"m", 5}});
  EXPECT_EQ(ir::to_string(bound.inputs[0].type), "[[float]5]4");
}

TEST(BindSizes, SizeArgumentsAreSubstituted) {
  ir::Program p = program();
  p.defs[0].body = ir::make_call(Prim::Split, {arith::size_var("m")}, {ir::make_var("xs")});
  ir::Program bound = ir::bind_sizes(p, {{"m", 2}});
  EXPECT_EQ(bound.defs[0].body->sizes[0], arith::Expr(2));
}

TEST(BindSizes, BindingMakesFalseObligationsErrors) {
  ir::Program bound = ir::bind_sizes(program(), {{"m", 3}, {"n", 1}});  // 3 elements, split(2)
  EXPECT_EQ(error_of([&] { typecheck::typecheck(bound); }), "split(2): 2 does not divide the array length 3");
}

TEST(BindSizes, Errors) {
  EXPECT_EQ(error_of([] { ir::bind_sizes(program(), {}); }), "size m has no value: give it with --size m=<value>");
  EXPECT_EQ(error_of([] { ir::bind_sizes(program(), {{"m", 2}, {"q", 1}}); }),
            "q=1: the program declares no size or tuning parameter q (its sizes: n, m; its tuning parameters: none)");
  EXPECT_EQ(error_of([] { ir::bind_sizes(program(), {{"m", 0}}); }), "--size m=0: sizes are at least 1");
  ir::Program p = program();
  p.sizes[0].value = -2;
  EXPECT_EQ(error_of([&] { ir::bind_sizes(p, {{"m", 1}}); }), "size n = -2: sizes are at least 1");
}

TEST(BindSizes, DeclaredRanges) {
  ir::Program p = program();
  p.sizes[1].min = 0;  // size m in 0..4: a tuning parameter that may be 0
  p.sizes[1].max = 4;
  EXPECT_EQ(ir::to_string(ir::bind_sizes(p, {{"m", 0}}).inputs[0].type), "[[float]0]8");
  // A size with a declared range is a tuning parameter: the hint names --params.
  EXPECT_EQ(error_of([&] { ir::bind_sizes(p, {}); }),
            "tuning parameter m (in 0..4) has no value: give it with --params m=<value>");
  EXPECT_EQ(error_of([&] { ir::bind_sizes(p, {{"m", 5}}); }), "--params m=5: m ranges over 0..4");
  EXPECT_EQ(error_of([&] { ir::bind_sizes(p, {{"q", 5}}); }),
            "q=5: the program declares no size or tuning parameter q (its sizes: n; its tuning parameters: m)");
}

}  // namespace

// typecheck::denied_by_declared_sizes: an obligation of a program with declared sizes (not
// bound: the lengths stay symbolic) that those sizes make false, at them in words; one with a
// size without a value is undecided, so not denied. One row a case: the declared n and m (0:
// no value), the definition over join(xs) (n*m values), the denial ("" for none).
TEST(DeclaredSizes, DenyTheObligationsTheyMakeFalse) {
  struct Case {
    std::int64_t n, m;
    Prim prim;
    std::int64_t factor;
    const char* denied;
  };
  for (const Case& c : {Case{8, 3, Prim::Split, 2, ""}, Case{8, 3, Prim::Split, 5, "5 divides 24 (split(5) of an array of length m*n)"},
                        Case{9, 3, Prim::AsVector, 8, "8 divides 27 (asVector(8) of an array of length m*n)"},
                        Case{9, 4, Prim::AsVector, 4, ""}, Case{9, 0, Prim::AsVector, 8, ""}}) {
    SCOPED_TRACE(c.denied);
    ir::Program p = program();
    p.sizes = {{"n", c.n, {}}, {"m", c.m ? std::optional<long long>(c.m) : std::nullopt, {}}};
    p.defs[0].body = ir::make_call(c.prim, {c.factor}, {ir::make_call(Prim::Join, {}, {ir::make_var("xs")})});
    typecheck::Checked checked = typecheck::typecheck(p);
    std::vector<typecheck::Obligation> denied = typecheck::denied_by_declared_sizes(checked);
    std::string text = denied.empty() ? "" : typecheck::at_declared_sizes(denied.front(), checked.program);
    EXPECT_EQ(text, c.denied);
    EXPECT_LE(denied.size(), 1u);
  }
}
