// Type rules on IR built with the ir::make_* builders (no parser needed): one line a case,
// the expression and the type it must print as; then errors, obligations, lambda types.

#include <gtest/gtest.h>

#include <functional>

#include "liftc/typecheck/typecheck.hpp"

namespace {

using namespace liftc;
using ir::Expr;
using ir::Prim;
using ir::Type;

Expr v(const std::string& name) { return ir::make_var(name); }
Expr flt(double x) { return ir::make_float(x); }
Expr lam(std::vector<std::string> params, Expr body) { return ir::make_lambda(std::move(params), std::move(body)); }
Expr call(Prim p, std::vector<arith::Expr> sizes, std::vector<Expr> args) {
  return ir::make_call(p, std::move(sizes), std::move(args));
}
Expr call(Prim p, std::vector<Expr> args) { return ir::make_call(p, {}, std::move(args)); }
Expr get(Expr t, int i) { return ir::make_get(std::move(t), i); }
Expr tuple(std::vector<Expr> elems) { return ir::make_tuple(std::move(elems)); }

const arith::Expr n = arith::size_var("n");
const arith::Expr m = arith::size_var("m");
const arith::Expr k = arith::size_var("k");
const arith::Expr s = arith::size_var("s");

// The context every case is checked in.
typecheck::TypeEnv context() {
  Type f = Type::float_();
  return {
      {"xs", Type::array(f, n)},
      {"ys", Type::array(f, n)},
      {"zs", Type::array(f, m)},
      {"is", Type::array(Type::int_(), n)},
      {"grid", Type::array(Type::array(f, m), n)},
      {"cube", Type::array(Type::array(Type::array(f, k), m), n)},
      {"v4", Type::vector(ir::ScalarKind::Float, 4)},
      {"f", f},
      {"i", Type::int_()},
      {"b", Type::bool_()},
      {"t", Type::tuple({f, Type::int_()})},
      {"vs", Type::array(Type::vector(ir::ScalarKind::Float, 4), n)},
      {"c12", Type::array(f, 12)},
  };
}

std::string type_of(const Expr& e, std::vector<typecheck::Obligation>* obligations = nullptr) {
  return ir::to_string(typecheck::typecheck_expr(e, context(), obligations).type());
}

struct TypeCase {
  const char* what;
  std::function<Expr()> build;
  const char* expected;
};

TEST(IrRules, TypesTable) {
  auto sum = [] { return lam({"acc", "y"}, call(Prim::Add, {v("acc"), v("y")})); };
  const std::vector<TypeCase> table = {
      {"map(x -> x * f, xs)", [] { return call(Prim::Map, {lam({"x"}, call(Prim::Mul, {v("x"), v("f")})), v("xs")}); }, "[float]n"},
      {"mapSeq(x -> float(x), is)", [] { return call(Prim::MapSeq, {lam({"x"}, call(Prim::ToFloat, {v("x")})), v("is")}); }, "[float]n"},
      {"mapGlb(0, r -> r, grid)", [] { return call(Prim::MapGlb, {0}, {lam({"r"}, v("r")), v("grid")}); }, "[[float]m]n"},
      {"mapWrg(1, mapLcl(0, id)) grid", [] { return call(Prim::MapWrg, {1}, {lam({"r"}, call(Prim::MapLcl, {0}, {lam({"x"}, call(Prim::Id, {v("x")})), v("r")})), v("grid")}); }, "[[float]m]n"},
      {"reduce(0.0, +, xs)", [&] { return call(Prim::Reduce, {flt(0), sum(), v("xs")}); }, "[float]1"},
      {"reduceSeq(0.0, +, xs)", [&] { return call(Prim::ReduceSeq, {flt(0), sum(), v("xs")}); }, "[float]1"},
      {"zip(xs, ys)", [] { return call(Prim::Zip, {v("xs"), v("ys")}); }, "[(float, float)]n"},
      {"zip(xs, ys, is)", [] { return call(Prim::Zip, {v("xs"), v("ys"), v("is")}); }, "[(float, float, int)]n"},
      {"split(4, xs)", [] { return call(Prim::Split, {4}, {v("xs")}); }, "[[float]4](n/4)"},
      {"join(grid)", [] { return call(Prim::Join, {v("grid")}); }, "[float](m*n)"},
      {"slide(1, 1, xs)", [] { return call(Prim::Slide, {1, 1}, {v("xs")}); }, "[[float]1]n"},
      {"slide(3, 1, c12)", [] { return call(Prim::Slide, {3, 1}, {v("c12")}); }, "[[float]3]10"},
      {"slide(4, 2, c12)", [] { return call(Prim::Slide, {4, 2}, {v("c12")}); }, "[[float]4]5"},
      {"pad(1, 2, 0.0, c12)", [] { return call(Prim::Pad, {1, 2}, {flt(0), v("c12")}); }, "[float]15"},
      {"pad(-1, -1, 0.0, c12)", [] { return call(Prim::Pad, {-1, -1}, {flt(0), v("c12")}); }, "[float]10"},
      {"pad(1, 1, 0.0, grid) rows", [] { return call(Prim::Pad, {1, 1}, {flt(0), v("grid")}); }, "[[float]m](n + 2)"},
      {"transpose(grid)", [] { return call(Prim::Transpose, {v("grid")}); }, "[[float]n]m"},
      {"reorder(striddenIndex(s), xs)", [] { return call(Prim::Reorder, {s}, {v("xs")}); }, "[float]n"},
      {"id(t)", [] { return call(Prim::Id, {v("t")}); }, "(float, int)"},
      {"toLocal(mapLcl(0, id), xs)", [] { return call(Prim::ToLocal, {lam({"a"}, call(Prim::MapLcl, {0}, {lam({"x"}, call(Prim::Id, {v("x")})), v("a")})), v("xs")}); }, "[float]n"},
      {"toPrivate(x -> x.0, t)", [] { return call(Prim::ToPrivate, {lam({"p"}, get(v("p"), 0)), v("t")}); }, "float"},
      {"asVector(4, xs)", [] { return call(Prim::AsVector, {4}, {v("xs")}); }, "[float4](n/4)"},
      {"asScalar(vs)", [] { return call(Prim::AsScalar, {v("vs")}); }, "[float](4*n)"},
      {"vectorize(4, x -> x * 2.0, v4)", [] { return call(Prim::Vectorize, {4}, {lam({"x"}, call(Prim::Mul, {v("x"), flt(2)})), v("v4")}); }, "float4"},
      {"dot(v4, v4)", [] { return call(Prim::Dot, {v("v4"), v("v4")}); }, "float"},
      {"v4 * f", [] { return call(Prim::Mul, {v("v4"), v("f")}); }, "float4"},
      {"i % 3", [] { return call(Prim::Mod, {v("i"), ir::make_int(3)}); }, "int"},
      {"f < 1.0", [] { return call(Prim::Lt, {v("f"), flt(1)}); }, "bool"},
      {"!b && b", [] { return call(Prim::And, {call(Prim::Not, {v("b")}), v("b")}); }, "bool"},
      {"select(b, v4, v4)", [] { return call(Prim::Select, {v("b"), v("v4"), v("v4")}); }, "float4"},
      {"max(f, 0.0)", [] { return call(Prim::Max, {v("f"), flt(0)}); }, "float"},
      {"sqrt(exp(v4))", [] { return call(Prim::Sqrt, {call(Prim::Exp, {v("v4")})}); }, "float4"},
      {"abs(-i)", [] { return call(Prim::Abs, {call(Prim::Neg, {v("i")})}); }, "int"},
      {"sizeValue(n)", [] { return call(Prim::SizeValue, {n}, {}); }, "int"},
      {"(f, i).1", [] { return get(tuple({v("f"), v("i")}), 1); }, "int"},
      {"let y = f in (y, y)", [] { return ir::make_let("y", v("f"), tuple({v("y"), v("y")})); }, "(float, float)"},
      {"((a, c) -> a)(t)", [] { return ir::make_apply(lam({"a", "c"}, v("a")), {v("t")}); }, "float"},
      {"((a, c) -> c)(f, i)", [] { return ir::make_apply(lam({"a", "c"}, v("c")), {v("f"), v("i")}); }, "int"},
  };
  for (const auto& c : table) {
    SCOPED_TRACE(c.what);
    EXPECT_EQ(type_of(c.build()), c.expected);
  }
}

struct ErrorCase {
  const char* what;
  std::function<Expr()> build;
  const char* message;  // a substring of the error's message
};

TEST(IrRules, ErrorsTable) {
  const std::vector<ErrorCase> table = {
      {"map over a float", [] { return call(Prim::Map, {lam({"x"}, v("x")), v("f")}); }, "map: expected an array, got float"},
      {"zip of different lengths", [] { return call(Prim::Zip, {v("xs"), v("zs")}); }, "zip: arrays must have the same length, got [float]n and [float]m"},
      {"reduce returning a vector", [] { return call(Prim::Reduce, {flt(0), lam({"a", "y"}, v("v4")), v("xs")}); }, "reduce: the reducing function must return the accumulator type float, got float4"},
      {"split(5) of 12", [] { return call(Prim::Split, {5}, {v("c12")}); }, "split(5): 5 does not divide the array length 12"},
      {"split(0)", [] { return call(Prim::Split, {0}, {v("xs")}); }, "split(0): the chunk size must be at least 1"},
      {"slide(3, 2) of 12", [] { return call(Prim::Slide, {3, 2}, {v("c12")}); }, "slide(3, 2): the step 2 does not divide 9"},
      {"slide(13, 1) of 12", [] { return call(Prim::Slide, {13, 1}, {v("c12")}); }, "larger than the array length 12"},
      {"asVector of 2D", [] { return call(Prim::AsVector, {4}, {call(Prim::Split, {4}, {v("c12")})}); }, "asVector(4): expected an array of int or float scalars, got [[float]4]3"},
      {"asVector(5) of 12", [] { return call(Prim::AsVector, {4}, {call(Prim::Pad, {0, 1}, {flt(0), v("c12")})}); }, "asVector(4): 4 does not divide the array length 13"},
      {"asScalar of floats", [] { return call(Prim::AsScalar, {v("xs")}); }, "asScalar: expected an array of vectors, got [float]n"},
      {"join of 1D", [] { return call(Prim::Join, {v("xs")}); }, "join: expected an array of arrays, got [float]n"},
      {"transpose of 1D", [] { return call(Prim::Transpose, {v("xs")}); }, "transpose: expected an array of arrays"},
      {"pad with int value", [] { return call(Prim::Pad, {1, 1}, {ir::make_int(0), v("xs")}); }, "pad(1, 1): the padding value must have type float, got int"},
      {"pad cropping everything", [] { return call(Prim::Pad, {-6, -6}, {flt(0), v("c12")}); }, "pad(-6, -6): the result length 0 is not positive"},
      {"int + float", [] { return call(Prim::Add, {v("i"), v("f")}); }, "operator +: the operands must have the same element type, got int and float"},
      {"bool * bool", [] { return call(Prim::Mul, {v("b"), v("b")}); }, "operator *: expected numbers"},
      {"vector comparison", [] { return call(Prim::Lt, {v("v4"), v("v4")}); }, "operator <: expected two int or float scalars"},
      {"select on float", [] { return call(Prim::Select, {v("f"), v("f"), v("f")}); }, "select: the condition must be bool, got float"},
      {"exp of int", [] { return call(Prim::Exp, {v("i")}); }, "exp: expected float or a float vector, got int"},
      {"projection of a float", [] { return get(v("f"), 0); }, "projection .0: expected a tuple, got float"},
      {"projection out of range", [] { return get(v("t"), 2); }, "projection .2: the tuple (float, int) has only 2 components"},
      {"unknown name", [] { return v("nope"); }, "unknown name 'nope'"},
      {"map with 2 params over floats", [] { return call(Prim::Map, {lam({"a", "c"}, v("a")), v("xs")}); }, "map: the function (a, c) -> ... takes 2 parameters, so its argument must be a tuple of 2 components, got float"},
      {"mapLcl(3)", [] { return call(Prim::MapLcl, {3}, {lam({"x"}, v("x")), v("xs")}); }, "mapLcl(3): the dimension must be 0, 1 or 2, got 3"},
      {"vectorize of a float", [] { return call(Prim::Vectorize, {4}, {lam({"x"}, v("x")), v("f")}); }, "vectorize(4): expected a vector of 4 lanes"},
      {"dot of different widths", [] { return call(Prim::Dot, {v("v4"), v("f")}); }, "dot: expected two float vectors of the same width, got float4 and float"},
  };
  for (const auto& c : table) {
    SCOPED_TRACE(c.what);
    try {
      type_of(c.build());
      ADD_FAILURE() << "expected an error containing: " << c.message;
    } catch (const Error& e) {
      EXPECT_NE(e.message().find(c.message), std::string::npos) << "got: " << e.message();
    }
  }
}

using Kind = typecheck::Obligation::Kind;

std::vector<typecheck::Obligation> obligations_of(const Expr& e) {
  std::vector<typecheck::Obligation> obs;
  type_of(e, &obs);
  return obs;
}

TEST(IrRules, SymbolicSplitRecordsDivisibility) {
  auto obs = obligations_of(call(Prim::Split, {s}, {v("xs")}));
  ASSERT_EQ(obs.size(), 1u);  // s >= 1 follows from s being a size
  EXPECT_EQ(obs[0].kind, Kind::Divides);
  EXPECT_EQ(obs[0].value, n);
  EXPECT_EQ(obs[0].divisor, s);
}

TEST(IrRules, SymbolicSlideRecordsFitAndStrictness) {
  auto obs = obligations_of(call(Prim::Slide, {3, s}, {v("xs")}));
  ASSERT_EQ(obs.size(), 2u);
  EXPECT_EQ(obs[0].kind, Kind::NonNegative);
  EXPECT_EQ(obs[0].value, n - 3);
  EXPECT_EQ(obs[1].kind, Kind::Divides);
  EXPECT_EQ(obs[1].value, n - 3);
  EXPECT_EQ(obs[1].divisor, s);
}

TEST(IrRules, SymbolicAsVectorRecordsDivisibility) {
  auto obs = obligations_of(call(Prim::AsVector, {4}, {v("xs")}));
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_EQ(obs[0].kind, Kind::Divides);
  EXPECT_EQ(obs[0].value, n);
  EXPECT_EQ(obs[0].divisor, arith::Expr(4));
}

TEST(IrRules, ConcreteTrueObligationsAreNotRecorded) {
  EXPECT_TRUE(obligations_of(call(Prim::Split, {4}, {v("c12")})).empty());
  EXPECT_TRUE(obligations_of(call(Prim::Slide, {3, 3}, {v("c12")})).empty());
}

TEST(IrRules, RepeatedObligationsAreRecordedOnce) {
  auto split = [] { return call(Prim::Split, {s}, {v("xs")}); };
  EXPECT_EQ(obligations_of(call(Prim::Zip, {split(), split()})).size(), 1u);
}

TEST(IrRules, LambdasGetParameterTypesAndResultType) {
  Expr e = call(Prim::Map, {lam({"a", "c"}, v("c")), call(Prim::Zip, {v("xs"), v("is")})});
  Expr typed = typecheck::typecheck_expr(e, context());
  const Expr& f = typed->args[0];
  ASSERT_EQ(f->param_types.size(), 2u);
  EXPECT_EQ(ir::to_string(f->param_types[0]), "float");
  EXPECT_EQ(ir::to_string(f->param_types[1]), "int");
  EXPECT_EQ(ir::to_string(f.type()), "int");
  EXPECT_EQ(ir::to_string(ir::lambda_body(f).type()), "int");
  EXPECT_EQ(ir::to_string(typed->args[1].type()), "[(float, int)]n");
}

TEST(IrRules, ErrorsCarryTheNodePosition) {
  auto file = std::make_shared<SourceFile>(SourceFile{"t.sr", "def out = zip(xs, zs)\n"});
  Expr e = ir::make_call(Prim::Zip, {}, {v("xs"), v("zs")}, SourceLoc{file, 1, 11});
  try {
    type_of(e);
    FAIL() << "expected an error";
  } catch (const Error& err) {
    EXPECT_EQ(err.loc().line, 1);
    EXPECT_EQ(err.loc().col, 11);
  }
}

TEST(IrRules, ProgramDefinitionsSeeEarlierOnes) {
  ir::Program p;
  p.sizes = {{"n", std::nullopt, {}}};
  p.inputs = {{"xs", Type::array(Type::float_(), n), {}}};
  p.defs = {{"halves", call(Prim::Split, {2}, {v("xs")}), {}}, {"back", call(Prim::Join, {v("halves")}), {}}};
  typecheck::Checked c = typecheck::typecheck(p);
  EXPECT_EQ(ir::to_string(c.program.defs[0].body.type()), "[[float]2](n/2)");
  // (n/2)*2 is n under the recorded obligation 2 | n: types compare assuming exact division.
  EXPECT_EQ(c.program.defs[1].body.type(), Type::array(Type::float_(), n));
  ASSERT_EQ(c.obligations.size(), 1u);
}

}  // namespace

namespace {

// Issue 11, section 4: a rewrite once built maps nested 2^13 deep and the checker
// overflowed the stack. Deep IR is an error now; the 3,000 levels the reader builds check.
TEST(IrRules, DeepExpressionsAreAnErrorNotACrash) {
  auto nested_maps = [](int levels) {
    Expr e = v("xs");
    for (int l = 0; l < levels; ++l) e = call(Prim::Map, {lam({"x"}, call(Prim::Neg, {v("x")})), e});
    return e;
  };
  EXPECT_EQ(type_of(nested_maps(2990)), "[float]n");  // about as deep as the reader allows
  try {
    type_of(nested_maps(50000));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("the expression is nested deeper than 4000 levels"), std::string::npos) << e.message();
  }
}

}  // namespace
