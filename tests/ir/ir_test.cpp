// The IR stage on its own, built with its make functions (no parser): one case a line where
// the facts are a table.

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "liftc/ir/expr.hpp"
#include "liftc/ir/prim.hpp"
#include "liftc/ir/printer.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::ir {
namespace {

Expr var(const char* n) { return make_var(n); }
Expr lam(std::vector<std::string> ps, Expr body) { return make_lambda(std::move(ps), std::move(body)); }
Expr call(Prim p, std::vector<arith::Expr> sizes, std::vector<Expr> args) { return make_call(p, std::move(sizes), std::move(args)); }
Expr add(Expr a, Expr b) { return call(Prim::Add, {}, {std::move(a), std::move(b)}); }
Expr mul(Expr a, Expr b) { return call(Prim::Mul, {}, {std::move(a), std::move(b)}); }

TEST(Prims, EveryPrimitiveHasOneNameThatLooksItUp) {
  std::set<std::string> names;
  for (const PrimSignature& s : all_signatures()) {
    SCOPED_TRACE(std::string(s.name));
    EXPECT_TRUE(names.insert(std::string(s.name)).second) << "two primitives are spelled " << s.name;
    if (!operator_spelling(s.prim).empty()) continue;  // `+` is Add: operators are not looked up by name
    auto found = prim_from_name(s.name);
    ASSERT_TRUE(found.has_value());
    EXPECT_EQ(*found, s.prim);
    EXPECT_EQ(&signature(s.prim), &s);
  }
  EXPECT_FALSE(prim_from_name("no-such-primitive").has_value());
}

// LIFTC_PRIMS makes both the enum and the signature table: one row per enumerator, in the
// enum's order, so signature(p) is the row at p's index.
TEST(Prims, TheTableHasOneRowPerEnumeratorInItsOrder) {
  ASSERT_EQ(all_signatures().size(), static_cast<std::size_t>(kPrimCount));
  for (int i = 0; i < kPrimCount; ++i) {
    const PrimSignature& s = all_signatures()[static_cast<std::size_t>(i)];
    SCOPED_TRACE(std::string(s.name));
    EXPECT_EQ(static_cast<int>(s.prim), i);
    EXPECT_EQ(&signature(s.prim), &s);
  }
  // Rows spot-checked against the signatures the table held before it was generated.
  struct Case {
    Prim p;
    const char* name;
    int sizes;
    std::vector<int> operands;
    bool variadic, index_function;
  };
  const Case cases[] = {
      {Prim::Map, "map", 0, {1, 0}, false, false},
      {Prim::Reduce, "reduce", 0, {0, 2, 0}, false, false},
      {Prim::Zip, "zip", 0, {0, 0}, true, false},
      {Prim::Slide, "slide", 2, {0}, false, false},
      {Prim::Reorder, "reorder", 1, {0}, false, true},
      {Prim::Array, "array", 0, {0, 0}, true, false},
      {Prim::MapGlb, "mapGlb", 1, {1, 0}, false, false},
      {Prim::Vectorize, "vectorize", 1, {1, 0}, false, false},
      {Prim::Select, "select", 0, {0, 0, 0}, false, false},
      {Prim::ToFloat, "float", 0, {0}, false, false},
      {Prim::SizeValue, "sizeValue", 1, {}, false, false},
  };
  for (const Case& c : cases) {
    const PrimSignature& s = signature(c.p);
    SCOPED_TRACE(c.name);
    EXPECT_EQ(s.name, c.name);
    EXPECT_EQ(s.num_sizes, c.sizes);
    EXPECT_EQ(s.operands, c.operands);
    EXPECT_EQ(s.variadic, c.variadic);
    EXPECT_EQ(s.index_function, c.index_function);
  }
}

// The operator table read both ways: each operator's spelling and operand count give its
// primitive back (`-` is Sub with 2 operands, Neg with 1).
TEST(Prims, OperatorsReadBothWays) {
  int operators = 0;
  for (const PrimSignature& s : all_signatures()) {
    std::string_view op = operator_spelling(s.prim);
    if (op.empty()) continue;
    ++operators;
    EXPECT_EQ(operator_prim(op, static_cast<int>(s.operands.size())), s.prim) << op;
  }
  EXPECT_EQ(operators, 15);
  EXPECT_EQ(operator_prim("-", 2), Prim::Sub);
  EXPECT_EQ(operator_prim("-", 1), Prim::Neg);
}

TEST(Prims, Families) {
  struct Case {
    Prim p;
    bool map, layout, reduce, opencl;
  };
  const Case cases[] = {
      {Prim::Map, true, false, false, false},    {Prim::MapGlb, true, false, false, true},
      {Prim::MapSeq, true, false, false, true},  {Prim::Split, false, true, false, false},
      {Prim::Join, false, true, false, false},   {Prim::Reorder, false, true, false, false},
      {Prim::Reduce, false, false, true, false}, {Prim::ReduceSeq, false, false, true, true},
      {Prim::Add, false, false, false, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(signature(c.p).name));
    EXPECT_EQ(is_map(c.p), c.map);
    EXPECT_EQ(is_layout(c.p), c.layout);
    EXPECT_EQ(is_reduce(c.p), c.reduce);
    EXPECT_EQ(is_opencl(c.p), c.opencl);
  }
}

TEST(Printer, PrintsTheLanguagesSyntax) {
  struct Case {
    Expr e;
    const char* printed;
  };
  const Case cases[] = {
      {add(var("a"), mul(var("b"), var("c"))), "a + b * c"},
      {mul(add(var("a"), var("b")), var("c")), "(a + b) * c"},
      {call(Prim::Map, {}, {lam({"x"}, mul(var("x"), make_float(2.0))), var("xs")}), "map(x -> x * 2.0, xs)"},
      {call(Prim::Split, {4}, {var("xs")}), "split(4, xs)"},
      {make_get(var("p"), 1), "p.1"},
      {make_let("y", var("x"), add(var("y"), var("y"))), "let y = x in y + y"},
  };
  for (const Case& c : cases) EXPECT_EQ(to_string(c.e), c.printed);
}

TEST(Expressions, AlphaEquivalenceIgnoresBoundNamesOnly) {
  Expr f = lam({"x"}, add(var("x"), var("k")));
  EXPECT_TRUE(alpha_equal(f, lam({"y"}, add(var("y"), var("k")))));
  EXPECT_FALSE(alpha_equal(f, lam({"y"}, add(var("y"), var("j")))));  // a free name differs
  EXPECT_FALSE(alpha_equal(f, lam({"k"}, add(var("k"), var("k")))));  // capture
}

TEST(Expressions, FreeVariablesAndCaptureAvoidingSubstitution) {
  Expr e = add(var("a"), call(Prim::Map, {}, {lam({"x"}, add(var("x"), var("b"))), var("xs")}));
  std::vector<std::string> free = free_vars(e);
  EXPECT_EQ(std::set<std::string>(free.begin(), free.end()), (std::set<std::string>{"a", "b", "xs"}));
  // b := x must not be captured by the lambda's x.
  Expr s = substitute(e, {{"b", var("x")}});
  std::vector<std::string> after = free_vars(s);
  EXPECT_EQ(std::set<std::string>(after.begin(), after.end()), (std::set<std::string>{"a", "x", "xs"}));
  EXPECT_EQ(fresh_name("x", {"x", "x_1"}), "x_2");
}

TEST(Expressions, BetaReductionAndProducingMaps) {
  Expr applied = make_apply(lam({"x"}, mul(var("x"), var("x"))), {var("a")});
  EXPECT_EQ(to_string(beta_reduce(applied)), "a * a");
  Expr produced = call(Prim::MapGlb, {1}, {lam({"x"}, var("x")), var("xs")});
  EXPECT_EQ(map_dimension(produced), 1);
  EXPECT_TRUE(contains_parallel_maps(add(var("a"), call(Prim::ReduceSeq, {}, {make_float(0.0), lam({"acc", "v"}, var("acc")), produced}))));
  EXPECT_FALSE(contains_parallel_maps(call(Prim::MapSeq, {}, {lam({"x"}, var("x")), var("xs")})));
  EXPECT_TRUE(only_rearranges(call(Prim::Join, {}, {call(Prim::Split, {4}, {var("xs")})})));
  EXPECT_FALSE(only_rearranges(call(Prim::Map, {}, {lam({"x"}, mul(var("x"), var("x"))), var("xs")})));
}

TEST(Programs, BindSizesGivesEverySizeAValueOrNamesTheOneWithout) {
  Program p;
  p.sizes = {{"N", std::nullopt, {}}, {"M", 8, {}}};
  p.inputs = {{"xs", Type::array(Type::float_(), arith::size_var("N")), {}}};
  Program bound = bind_sizes(p, {{"N", 16}});
  EXPECT_EQ(size_values(bound), (std::map<std::string, std::int64_t>{{"M", 8}, {"N", 16}}));
  EXPECT_EQ(to_string(bound.inputs[0].type), "[float]16");
  try {
    bind_sizes(p, {});
    FAIL() << "N has no value";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("N"), std::string::npos) << e.message();
  }
  EXPECT_THROW(bind_sizes(p, {{"N", 1}, {"Q", 2}}), Error);  // Q is not declared
}

}  // namespace
}  // namespace liftc::ir
