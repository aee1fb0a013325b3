// The meaning of every primitive, one small case a line, on IR built with the ir::make_*
// builders (no parser needed). Every case sees the same inputs:
//   xs : [float]n = 0 1 2 3 4 5 6 7        (size n = 8)
//   ys : [float]n = 1 -1 2 -2 3 -3 4 -4
//   m  : [[float]3]2 = [[0 1 2] [3 4 5]]
//   is : [int]6 = -7 -3 0 2 5 9

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace liftc::interp {
namespace {

using namespace testing;
using ir::Prim;

// Binary and unary builtins.
ir::Expr add(ir::Expr a, ir::Expr b) { return call(Prim::Add, {std::move(a), std::move(b)}); }
ir::Expr sub(ir::Expr a, ir::Expr b) { return call(Prim::Sub, {std::move(a), std::move(b)}); }
ir::Expr mul(ir::Expr a, ir::Expr b) { return call(Prim::Mul, {std::move(a), std::move(b)}); }
ir::Expr bin(Prim p, ir::Expr a, ir::Expr b) { return call(p, {std::move(a), std::move(b)}); }
ir::Expr un(Prim p, ir::Expr a) { return call(p, {std::move(a)}); }

// Common functions.
ir::Expr plus() { return lam({"a", "x"}, add(var("a"), var("x"))); }
// The multiply-accumulate of a dot product over a zip: (a, p) -> a + p.0 * p.1.
ir::Expr mac() { return lam({"a", "p"}, add(var("a"), mul(get(var("p"), 0), get(var("p"), 1)))); }
ir::Expr map(ir::Expr f, ir::Expr x) { return call(Prim::Map, {std::move(f), std::move(x)}); }
ir::Expr sum(ir::Expr x) { return call(Prim::Reduce, {flt(0), plus(), std::move(x)}); }
ir::Expr vec4(ir::Expr x) { return call(Prim::AsVector, {4}, {std::move(x)}); }
ir::Expr scal(ir::Expr x) { return call(Prim::AsScalar, {std::move(x)}); }

// The program every case runs: the inputs above and `def out = body`.
ir::Program program(ir::Expr body) {
  ir::Program p;
  p.sizes = {{"n", 8, {}}};
  p.inputs = {{"xs", ir::Type::array(f32(), arith::size_var("n")), {}},
              {"ys", ir::Type::array(f32(), arith::size_var("n")), {}},
              {"m", arr(arr(f32(), 3), 2), {}},
              {"is", arr(i32(), 6), {}}};
  p.defs = {{"out", std::move(body), {}}};
  return p;
}

Tensors inputs() {
  return {{"xs", tensor({8}, iota(8))},
          {"ys", tensor({8}, {1, -1, 2, -2, 3, -3, 4, -4})},
          {"m", tensor({2, 3}, iota(6))},
          {"is", int_tensor({6}, {-7, -3, 0, 2, 5, 9})}};
}

struct Case {
  const char* name;
  ir::Expr body;
  std::vector<std::int64_t> shape;
  std::vector<double> values;  // compared as floats or ints by the output's dtype
};

void check_case(const Case& c) {
  SCOPED_TRACE(c.name);
  Tensors out = evaluate(check(program(c.body)), inputs());
  ASSERT_EQ(out.count("out"), 1u);
  const io::Tensor& t = out.at("out");
  EXPECT_EQ(t.shape, c.shape);
  bool is_float = t.dtype == io::DType::Float32;
  ASSERT_EQ(is_float ? t.f32.size() : t.i32.size(), c.values.size());
  for (std::size_t i = 0; i < c.values.size(); ++i) {
    if (is_float)
      EXPECT_FLOAT_EQ(t.f32[i], static_cast<float>(c.values[i])) << "element " << i;
    else
      EXPECT_EQ(t.i32[i], static_cast<std::int32_t>(c.values[i])) << "element " << i;
  }
}

TEST(InterpPrimitives, Algorithmic) {
  const ir::Expr twice = lam({"x"}, mul(var("x"), flt(2)));
  const std::vector<Case> cases = {
      {"map", map(twice, var("xs")), {8}, {0, 2, 4, 6, 8, 10, 12, 14}},
      {"reduce", sum(var("xs")), {1}, {28}},
      {"reduce with init", call(Prim::Reduce, {flt(100), plus(), var("xs")}), {1}, {128}},
      {"zip", map(lam({"a", "b"}, mul(var("a"), var("b"))), call(Prim::Zip, {var("xs"), var("ys")})), {8},
       {0, -1, 4, -6, 12, -15, 24, -28}},
      {"zip3 and get",
       map(lam({"p"}, add(get(var("p"), 0), mul(get(var("p"), 1), get(var("p"), 2)))),
           call(Prim::Zip, {var("xs"), var("ys"), var("xs")})),
       {8}, {0, 0, 6, -3, 16, -10, 30, -21}},
      {"split", call(Prim::Split, {4}, {var("xs")}), {2, 4}, {0, 1, 2, 3, 4, 5, 6, 7}},
      {"join", call(Prim::Join, {var("m")}), {6}, {0, 1, 2, 3, 4, 5}},
      {"slide(3, 1)", call(Prim::Slide, {3, 1}, {var("xs")}), {6, 3},
       {0, 1, 2, 1, 2, 3, 2, 3, 4, 3, 4, 5, 4, 5, 6, 5, 6, 7}},
      {"slide(4, 2)", call(Prim::Slide, {4, 2}, {var("xs")}), {3, 4}, {0, 1, 2, 3, 2, 3, 4, 5, 4, 5, 6, 7}},
      {"pad", call(Prim::Pad, {2, 1}, {flt(9), var("xs")}), {11}, {9, 9, 0, 1, 2, 3, 4, 5, 6, 7, 9}},
      {"pad crops", call(Prim::Pad, {-2, -1}, {flt(0), var("xs")}), {5}, {2, 3, 4, 5, 6}},
      {"pad fills whole rows", call(Prim::Pad, {1, 0}, {flt(7), var("m")}), {3, 3}, {7, 7, 7, 0, 1, 2, 3, 4, 5}},
      {"pad each row", map(lam({"r"}, call(Prim::Pad, {1, 1}, {flt(0), var("r")})), var("m")), {2, 5},
       {0, 0, 1, 2, 0, 0, 3, 4, 5, 0}},
      {"transpose", call(Prim::Transpose, {var("m")}), {3, 2}, {0, 3, 1, 4, 2, 5}},
      // Lift's ReorderStride(4) test: 0..7 -> 0 4 1 5 2 6 3 7.
      {"reorder(striddenIndex(4))", call(Prim::Reorder, {4}, {var("xs")}), {8}, {0, 4, 1, 5, 2, 6, 3, 7}},
      {"reorder(striddenIndex(2))", call(Prim::Reorder, {2}, {var("xs")}), {8}, {0, 2, 4, 6, 1, 3, 5, 7}},
      {"reorder rows", call(Prim::Reorder, {2}, {call(Prim::Split, {2}, {var("xs")})}), {4, 2},
       {0, 1, 4, 5, 2, 3, 6, 7}},
      {"id", call(Prim::Id, {var("xs")}), {8}, {0, 1, 2, 3, 4, 5, 6, 7}},
      {"nested map", map(lam({"r"}, map(lam({"x"}, add(var("x"), flt(1))), var("r"))), var("m")), {2, 3},
       {1, 2, 3, 4, 5, 6}},
      {"map of reduce", map(lam({"r"}, sum(var("r"))), var("m")), {2, 1}, {3, 12}},
      {"tuples in a map's result",
       map(lam({"p"}, add(get(var("p"), 0), get(var("p"), 1))), map(lam({"x"}, tuple({var("x"), flt(1)})), var("xs"))),
       {8}, {1, 2, 3, 4, 5, 6, 7, 8}},
      {"let", ir::make_let("t", map(lam({"x"}, mul(var("x"), var("x"))), var("xs")), sum(var("t"))), {1}, {140}},
      {"tuple accumulator",
       map(lam({"p"}, add(get(var("p"), 0), get(var("p"), 1))),
           call(Prim::Reduce, {tuple({flt(0), flt(1)}),
                               lam({"acc", "x"}, tuple({add(get(var("acc"), 0), var("x")), mul(get(var("acc"), 1), flt(2))})),
                               var("xs")})),
       {1}, {284}},
      {"apply destructures a tuple",
       map(lam({"x"}, ir::make_apply(lam({"a", "b"}, sub(var("a"), var("b"))), {tuple({var("x"), flt(1)})})), var("xs")),
       {8}, {-1, 0, 1, 2, 3, 4, 5, 6}},
      {"apply to two arguments",
       map(lam({"x"}, ir::make_apply(lam({"a", "b"}, mul(var("a"), var("b"))), {var("x"), var("x")})), var("xs")), {8},
       {0, 1, 4, 9, 16, 25, 36, 49}},
      {"sizeValue", map(lam({"x"}, add(var("x"), un(Prim::ToFloat, call(Prim::SizeValue, {arith::size_var("n")}, {})))),
                        var("xs")),
       {8}, {8, 9, 10, 11, 12, 13, 14, 15}},      // A constant array (negations of literals included, as a rule's right side writes -1.0).
      {"constant array", call(Prim::Array, {call(Prim::Array, {num(1), call(Prim::Neg, {num(2)})}),
                                            call(Prim::Array, {num(3), num(4)})}),
       {2, 2}, {1, -2, 3, 4}},
      // Each row of m times a constant 2 x 3 matrix, against the loop nest written out:
      // out[r][i] = sum_j c[i][j] * m[r][j] with c = {{1, 0, -1}, {2, 1, 0}}.
      {"constant matrix times rows",
       map(lam({"r"}, call(Prim::Join, {map(lam({"c"}, call(Prim::Reduce, {flt(0), mac(), call(Prim::Zip, {var("c"), var("r")})})),
                                            call(Prim::Array, {call(Prim::Array, {flt(1), flt(0), flt(-1)}),
                                                               call(Prim::Array, {flt(2), flt(1), flt(0)})}))})),
           var("m")),
       {2, 2}, {0 * 1 + 2 * -1, 0 * 2 + 1 * 1, 3 * 1 + 5 * -1, 3 * 2 + 4 * 1}},
  };
  for (const Case& c : cases) check_case(c);
}

TEST(InterpPrimitives, OpenCL) {
  const ir::Expr twice = lam({"x"}, mul(var("x"), flt(2)));
  const std::vector<double> doubled = {0, 2, 4, 6, 8, 10, 12, 14};
  const ir::Expr inc_all = lam({"x"}, map(lam({"y"}, add(var("y"), flt(1))), var("x")));
  const std::vector<double> incremented = {1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<Case> cases = {
      {"mapSeq", call(Prim::MapSeq, {twice, var("xs")}), {8}, doubled},
      {"mapGlb", call(Prim::MapGlb, {0}, {twice, var("xs")}), {8}, doubled},
      {"mapWrg", call(Prim::MapWrg, {0}, {twice, var("xs")}), {8}, doubled},
      {"mapLcl", call(Prim::MapLcl, {1}, {twice, var("xs")}), {8}, doubled},
      {"reduceSeq", call(Prim::ReduceSeq, {flt(1), plus(), var("xs")}), {1}, {29}},
      {"toGlobal", call(Prim::ToGlobal, {inc_all, var("xs")}), {8}, incremented},
      {"toLocal", call(Prim::ToLocal, {inc_all, var("xs")}), {8}, incremented},
      {"toPrivate", call(Prim::ToPrivate, {inc_all, var("xs")}), {8}, incremented},
      {"asVector", vec4(var("xs")), {2, 4}, {0, 1, 2, 3, 4, 5, 6, 7}},
      {"asScalar", scal(vec4(var("xs"))), {8}, {0, 1, 2, 3, 4, 5, 6, 7}},
      {"vectorize", scal(map(lam({"v"}, call(Prim::Vectorize, {4}, {twice, var("v")})), vec4(var("xs")))), {8}, doubled},
      {"vectorize a tuple of vectors",
       scal(map(lam({"p"}, call(Prim::Vectorize, {4}, {lam({"a", "b"}, sub(var("a"), var("b"))), var("p")})),
                call(Prim::Zip, {vec4(var("xs")), vec4(var("ys"))}))),
       {8}, {-1, 2, 0, 5, 1, 8, 2, 11}},
      {"dot", map(lam({"v"}, call(Prim::Dot, {var("v"), var("v")})), vec4(var("xs"))), {2}, {14, 126}},
      {"vector op scalar", scal(map(lam({"v"}, add(mul(var("v"), flt(2)), flt(1))), vec4(var("xs")))), {8},
       {1, 3, 5, 7, 9, 11, 13, 15}},
      {"vector op vector", scal(map(lam({"p"}, mul(get(var("p"), 0), get(var("p"), 1))),
                                    call(Prim::Zip, {vec4(var("xs")), vec4(var("ys"))}))),
       {8}, {0, -1, 4, -6, 12, -15, 24, -28}},
      {"pad of vectors splats a scalar", scal(call(Prim::Pad, {1, 0}, {flt(5), vec4(var("xs"))})), {12},
       {5, 5, 5, 5, 0, 1, 2, 3, 4, 5, 6, 7}},
  };
  for (const Case& c : cases) check_case(c);
}

TEST(InterpPrimitives, IntAndBoolArrays) {
  auto over_is = [](ir::Expr body) { return map(lam({"i"}, std::move(body)), var("is")); };
  const std::vector<Case> cases = {
      {"int division truncates", over_is(bin(Prim::Div, var("i"), num(2))), {6}, {-3, -1, 0, 1, 2, 4}},
      {"int remainder truncates", over_is(bin(Prim::Mod, var("i"), num(3))), {6}, {-1, 0, 0, 2, 2, 0}},
      {"abs", over_is(un(Prim::Abs, var("i"))), {6}, {7, 3, 0, 2, 5, 9}},
      {"min/max", over_is(bin(Prim::Max, bin(Prim::Min, var("i"), num(4)), num(-4))), {6}, {-4, -3, 0, 2, 4, 4}},
      {"float()", over_is(mul(un(Prim::ToFloat, var("i")), flt(0.5))), {6}, {-3.5, -1.5, 0, 1, 2.5, 4.5}},
      {"comparison gives bool", map(lam({"x"}, bin(Prim::Lt, var("x"), flt(3))), var("xs")), {8}, {1, 1, 1, 0, 0, 0, 0, 0}},
      {"select", map(lam({"x"}, call(Prim::Select, {bin(Prim::Lt, var("x"), flt(3)), var("x"), un(Prim::Neg, var("x"))})),
                     var("xs")),
       {8}, {0, 1, 2, -3, -4, -5, -6, -7}},
  };
  for (const Case& c : cases) check_case(c);
}

// Scalar definitions: fp32 and int32 builtins with C semantics.
TEST(InterpPrimitives, ScalarBuiltins) {
  const std::vector<Case> cases = {
      {"7 / 2", bin(Prim::Div, num(7), num(2)), {}, {3}},
      {"-7 / 2", bin(Prim::Div, num(-7), num(2)), {}, {-3}},
      {"-7 % 3", bin(Prim::Mod, num(-7), num(3)), {}, {-1}},
      {"7 % -3", bin(Prim::Mod, num(7), num(-3)), {}, {1}},
      {"int overflow wraps", add(num(2147483647), num(1)), {}, {-2147483648.0}},
      {"5 - 7", sub(num(5), num(7)), {}, {-2}},
      {"-(3.0)", un(Prim::Neg, flt(3)), {}, {-3}},
      {"1.5 / 0.5", bin(Prim::Div, flt(1.5), flt(0.5)), {}, {3}},
      {"min(2, -5)", bin(Prim::Min, num(2), num(-5)), {}, {-5}},
      {"max(2.5, 1.0)", bin(Prim::Max, flt(2.5), flt(1)), {}, {2.5}},
      {"exp(0.0)", un(Prim::Exp, flt(0)), {}, {1}},
      {"exp(1.0)", un(Prim::Exp, flt(1)), {}, {2.7182817}},
      {"sqrt(16.0)", un(Prim::Sqrt, flt(16)), {}, {4}},
      {"abs(-2.5)", un(Prim::Abs, flt(-2.5)), {}, {2.5}},
      {"float(3) + 0.5", add(un(Prim::ToFloat, num(3)), flt(0.5)), {}, {3.5}},
      {"0.1 + 0.2 in fp32", add(flt(0.1), flt(0.2)), {}, {0.1f + 0.2f}},
      {"select(1 < 2, 3.0, 4.0)", call(Prim::Select, {bin(Prim::Lt, num(1), num(2)), flt(3), flt(4)}), {}, {3}},
      {"!(1 < 2)", un(Prim::Not, bin(Prim::Lt, num(1), num(2))), {}, {0}},
      {"1 <= 1 && 3 > 4", bin(Prim::And, bin(Prim::Le, num(1), num(1)), bin(Prim::Gt, num(3), num(4))), {}, {0}},
      {"1 >= 1 || 3 > 4", bin(Prim::Or, bin(Prim::Ge, num(1), num(1)), bin(Prim::Gt, num(3), num(4))), {}, {1}},
      {"2.0 == 2.0", bin(Prim::Eq, flt(2), flt(2)), {}, {1}},
      {"2 != 2", bin(Prim::Ne, num(2), num(2)), {}, {0}},
      {"-1.5 < 2.5", bin(Prim::Lt, un(Prim::Neg, flt(1.5)), flt(2.5)), {}, {1}},
      {"-1 > 2", bin(Prim::Gt, un(Prim::Neg, num(1)), num(2)), {}, {0}},
      {"(1 < 2) == (3 > 4)", bin(Prim::Eq, bin(Prim::Lt, num(1), num(2)), bin(Prim::Gt, num(3), num(4))), {}, {0}},
      {"(1 < 2) != (3 > 4)", bin(Prim::Ne, bin(Prim::Lt, num(1), num(2)), bin(Prim::Gt, num(3), num(4))), {}, {1}},
      {"NaN != NaN", bin(Prim::Ne, bin(Prim::Div, flt(0), flt(0)), bin(Prim::Div, flt(0), flt(0))), {}, {1}},
      {"NaN <= 1.0", bin(Prim::Le, bin(Prim::Div, flt(0), flt(0)), flt(1)), {}, {0}},
      {"NaN >= 1.0", bin(Prim::Ge, bin(Prim::Div, flt(0), flt(0)), flt(1)), {}, {0}},
  };
  for (const Case& c : cases) check_case(c);
}

// Later definitions read earlier ones; every definition with a tensor form is an output.
TEST(InterpPrimitives, DefinitionsSeeEarlierDefinitions) {
  ir::Program p = program(map(lam({"x"}, mul(var("x"), var("x"))), var("xs")));
  p.defs.push_back({"total", sum(var("out")), {}});
  p.defs.push_back({"pairs", call(Prim::Zip, {var("out"), var("xs")}), {}});  // tuples: not an output
  Tensors out = evaluate(check(p), inputs());
  EXPECT_EQ(out.size(), 2u);
  EXPECT_EQ(out.at("total").f32, std::vector<float>{140});
}

// Deeply nested maps take elements of elements past a reference's inline prefix.
TEST(InterpPrimitives, DeepNesting) {
  const int depth = 11;
  ir::Expr x = var("xs");
  for (int i = 0; i < depth; ++i) x = call(Prim::Split, {1}, {x});
  ir::Expr f = lam({"y"}, add(var("y"), flt(1)));
  for (int i = 0; i <= depth; ++i) f = lam({"y"}, map(f, var("y")));
  ir::Expr body = ir::make_apply(f, {x});
  for (int i = 0; i < depth; ++i) body = call(Prim::Join, {body});
  check_case({"11 levels", body, {8}, {1, 2, 3, 4, 5, 6, 7, 8}});
}

}  // namespace
}  // namespace liftc::interp
