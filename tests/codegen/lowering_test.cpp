// Small programs built with the IR builders: generated, run on OpenCL, compared with the
// interpreter; and the shape of the code they generate.

#include <set>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "liftc/codegen/printer.hpp"
#include "run_helpers.hpp"

namespace liftc::codegen {
namespace {

using namespace ir;
using testing::run_and_compare;

Expr var(const char* n) { return make_var(n); }
Expr lam(std::vector<std::string> ps, Expr body) { return make_lambda(std::move(ps), std::move(body)); }
Expr call(Prim p, std::vector<arith::Expr> sizes, std::vector<Expr> args) { return make_call(p, std::move(sizes), std::move(args)); }
Expr add(Expr a, Expr b) { return call(Prim::Add, {}, {std::move(a), std::move(b)}); }
Expr mul(Expr a, Expr b) { return call(Prim::Mul, {}, {std::move(a), std::move(b)}); }
Type floats(std::int64_t n) { return Type::array(Type::float_(), n); }

// Options that show the code as lowering makes it, before hoist.cpp moves invariants.
Options lowering_only() {
  Options o;
  o.hoist = false;
  return o;
}

Program program(std::vector<InputDecl> inputs, std::vector<Definition> defs) {
  Program p;
  p.inputs = std::move(inputs);
  p.defs = std::move(defs);
  return p;
}

TEST(Lowering, VectorAddWithMapGlbHasNoLoop) {
  Program p = program({{"a", floats(64), {}}, {"b", floats(64), {}}},
                      {{"y", call(Prim::MapGlb, {0}, {lam({"x", "z"}, add(var("x"), var("z"))), call(Prim::Zip, {}, {var("a"), var("b")})}), {}}});
  Module m = run_and_compare(p);
  ASSERT_EQ(m.kernels.size(), 1u);
  EXPECT_EQ(m.kernels[0].source,
            "kernel void y_kernel(global const float* restrict a, global const float* restrict b, global float* restrict y) {\n"
            "  int g_0 = (int)get_global_id(0);\n"
            "  y[g_0] = a[g_0] + b[g_0];\n"
            "}\n");
  EXPECT_EQ(m.kernels[0].launch.global[0], arith::Expr(64));
}

TEST(Lowering, ConstantArrayIsDeclaredOncePerKernel) {
  // The same constant array used twice: one `constant` array in the kernel, read by both.
  auto constants = [] {
    return call(Prim::Array, {}, {make_float(1.0), call(Prim::Neg, {}, {make_float(2.0)}), make_float(0.5), make_float(3.0)});
  };
  Expr f = lam({"x", "k", "l"}, add(mul(var("x"), var("k")), var("l")));
  Program p = program({{"a", floats(4), {}}},
                      {{"y", call(Prim::MapGlb, {0}, {f, call(Prim::Zip, {}, {var("a"), constants(), constants()})}), {}}});
  Module m = run_and_compare(p);
  const std::string& src = m.kernels[0].source;
  auto decl = src.find("constant float constants_0[4] = {1.0f, -2.0f, 0.5f, 3.0f};");
  EXPECT_NE(decl, std::string::npos) << src;
  EXPECT_EQ(src.find("constant float", decl + 1), std::string::npos) << src;
  EXPECT_NE(src.find("a[g_1] * constants_0[g_1] + constants_0[g_1]"), std::string::npos) << src;
}

TEST(Lowering, RowSumsWithReduceSeq) {
  Type mat = Type::array(floats(16), 8);
  Expr sum = call(Prim::ReduceSeq, {}, {make_float(0.0), lam({"acc", "v"}, add(var("acc"), var("v"))), var("row")});
  Program p = program({{"m", mat, {}}}, {{"s", call(Prim::MapGlb, {0}, {lam({"row"}, sum), var("m")}), {}}});
  Module m = run_and_compare(p);
  EXPECT_NE(m.kernels[0].source.find("for (int i_2 = 0; i_2 < 16; i_2 += 1)"), std::string::npos) << m.kernels[0].source;
}

// Two kernels of one module, each with a global scratch buffer (a sequential map's values
// that a reduction then reads): the second's scratch is another buffer, not the first's under
// the same name (found with matvec-parametric on examples/networks/se_block.sr explored
// whole: both fully connected layers' partial sums were `gtmp_2`, the host made one buffer of
// the second's size, and the first layer wrote past it).
TEST(Lowering, EachKernelsGlobalScratchIsABufferOfItsOwn) {
  auto row_sums = [](const char* input) {
    Expr doubled = call(Prim::MapSeq, {}, {lam({"x"}, mul(var("x"), make_float(2.0))), var("row")});
    Expr sum = call(Prim::ReduceSeq, {}, {make_float(0.0), lam({"acc", "v"}, add(var("acc"), var("v"))), doubled});
    return call(Prim::MapGlb, {0}, {lam({"row"}, sum), var(input)});
  };
  Program p = program({{"wide", Type::array(floats(16), 8), {}}, {"narrow", Type::array(floats(2), 8), {}}},
                      {{"s", row_sums("wide"), {}}, {"t", row_sums("narrow"), {}}});
  Module m = run_and_compare(p);
  ASSERT_EQ(m.kernels.size(), 2u);
  std::set<std::string> names;
  for (const auto& b : m.memory.buffers) {
    if (b.space == AddressSpace::Global) EXPECT_TRUE(names.insert(b.name).second) << "two global buffers named " << b.name;
  }
  EXPECT_EQ(names.size(), 6u);  // wide, narrow, s, t and the two scratch buffers
}

TEST(Lowering, SplitJoinAroundMapsWritesThroughViews) {
  // join(mapGlb(chunk -> mapSeq(v -> v * 2, chunk), split(4, x))): no copy, direct writes.
  Expr inner = call(Prim::MapSeq, {}, {lam({"v"}, mul(var("v"), make_float(2.0))), var("chunk")});
  Expr body = call(Prim::Join, {}, {call(Prim::MapGlb, {0}, {lam({"chunk"}, inner), call(Prim::Split, {4}, {var("x")})})});
  Program p = program({{"x", floats(64), {}}}, {{"y", body, {}}});
  Module m = run_and_compare(p, lowering_only());
  EXPECT_NE(m.kernels[0].source.find("y[4*g_0 + i_1] = x[4*g_0 + i_1] * 2.0f;"), std::string::npos) << m.kernels[0].source;
  // Hoisted (the default): the offset 4*g_0 is computed once, before the loop.
  Module h = run_and_compare(p);
  EXPECT_NE(h.kernels[0].source.find("const int inv_0 = 4*g_0;\n  for (int i_1 = 0; i_1 < 4; i_1 += 1) {\n    y[i_1 + "
                                     "inv_0] = x[i_1 + inv_0] * 2.0f;"),
            std::string::npos)
      << h.kernels[0].source;
}

TEST(Lowering, ParallelMapOverAJoinDividesOnceNotInItsLoops) {
  // mapGlb(px -> reduceSeq(+, px), join(x)) over the pixels of a 6x7 image of 5 channels:
  // the pixel's row and column are computed once, the channel loop indexes with them.
  Expr sum = call(Prim::ReduceSeq, {}, {make_float(0.0), lam({"acc", "v"}, add(var("acc"), var("v"))), var("px")});
  Expr body = call(Prim::MapGlb, {0}, {lam({"px"}, sum), call(Prim::Join, {}, {var("x")})});
  Program p = program({{"x", Type::array(Type::array(floats(5), 7), 6), {}}}, {{"s", body, {}}});
  Module m = run_and_compare(p);
  const std::string& src = m.kernels[0].source;
  auto loop = src.find("for (");
  ASSERT_NE(loop, std::string::npos) << src;
  EXPECT_NE(src.find("int row_1 = g_0/7;"), std::string::npos) << src;
  EXPECT_NE(src.find("int col_2 = g_0%7;"), std::string::npos) << src;
  EXPECT_EQ(src.find('/', loop), std::string::npos) << src;
  EXPECT_EQ(src.find('%', loop), std::string::npos) << src;
}

TEST(Lowering, LayoutOnlyDefinitionIsAParallelCopy) {
  Program p = program({{"x", Type::array(floats(8), 4), {}}},
                      {{"t", call(Prim::Transpose, {}, {var("x")}), {}},
                       {"padded", call(Prim::Pad, {1, 2}, {make_float(0.0), var("t")}), {}}});
  Module m = run_and_compare(p);
  ASSERT_EQ(m.kernels.size(), 2u);
  EXPECT_EQ(m.kernels[1].launch.dims, 2);
  EXPECT_EQ(m.kernels[1].launch.global[1], arith::Expr(11));  // rows
  EXPECT_EQ(m.kernels[1].launch.global[0], arith::Expr(4));   // columns, on dimension 0
}

TEST(Lowering, UnrolledReduceHasConstantIndices) {
  Expr sum = call(Prim::ReduceSeq, {}, {make_float(0.0), lam({"acc", "v"}, add(var("acc"), var("v"))), var("row")});
  Program p = program({{"m", Type::array(floats(4), 8), {}}}, {{"s", call(Prim::MapGlb, {0}, {lam({"row"}, sum), var("m")}), {}}});
  Options o;
  o.unroll_reduce = true;
  Module m = run_and_compare(p, o);
  EXPECT_NE(m.kernels[0].source.find("acc_1 = acc_1 + m[4*g_0 + 3];"), std::string::npos) << m.kernels[0].source;
  EXPECT_EQ(m.kernels[0].source.find("for"), std::string::npos);
}

// reorder-stride's result: the mapped loop visits the elements with a stride and writes
// through the inverse reorder into the output.
TEST(Lowering, MapBetweenReordersWritesThroughTheInverse) {
  Expr body = call(Prim::Reorder, {16}, {call(Prim::MapGlb, {0}, {lam({"v"}, mul(var("v"), make_float(3.0))),
                                                                 call(Prim::Reorder, {4}, {var("x")})})});
  Module m = run_and_compare(program({{"x", floats(64), {}}}, {{"y", body, {}}}));
  EXPECT_EQ(m.kernels[0].source.find("tmp"), std::string::npos) << m.kernels[0].source;
}

// A map whose function is a reorder passes its destination on like split, join and
// transpose (every invertible layout primitive, ir::is_invertible_layout): the rows are
// written through the inverse reorder, with no temporary and no copy kernel.
TEST(Lowering, MapOfReorderWritesThroughTheInverse) {
  Expr rows = call(Prim::MapGlb, {0}, {lam({"row"}, call(Prim::MapSeq, {}, {lam({"v"}, mul(var("v"), make_float(3.0))), var("row")})),
                                       call(Prim::Split, {8}, {var("x")})});
  Expr body = call(Prim::Join, {}, {call(Prim::Map, {}, {lam({"r"}, call(Prim::Reorder, {2}, {var("r")})), rows})});
  Module m = run_and_compare(program({{"x", floats(64), {}}}, {{"y", body, {}}}));
  ASSERT_EQ(m.kernels.size(), 1u);
  EXPECT_EQ(m.kernels[0].source.find("tmp"), std::string::npos) << m.kernels[0].source;
}

// Built with -cl-mad-enable (the `mad` tuning parameter), a reduction of products still
// matches the interpreter within the default tolerances; the options travel with the module.
TEST(Lowering, MadBuildStillMatchesTheInterpreter) {
  Expr dot = call(Prim::ReduceSeq, {}, {make_float(0.0),
                                       lam({"acc", "v"}, add(var("acc"), mul(var("v"), var("v")))), var("row")});
  Program p = program({{"m", Type::array(floats(256), 8), {}}},
                      {{"s", call(Prim::MapGlb, {0}, {lam({"row"}, dot), var("m")}), {}}});
  Options o;
  o.mad = true;
  o.build_options = "-cl-denorms-are-zero";
  Module m = run_and_compare(p, o);
  EXPECT_EQ(m.build_options, "-cl-mad-enable -cl-denorms-are-zero");
  EXPECT_EQ(generate(testing::checked(p)).build_options, "");
}

// Vector reads: one vload where the lanes are consecutive in memory, the lanes gathered
// where they are not (the column of a transposed matrix).
TEST(Lowering, VectorReadsLoadConsecutiveLanesAndGatherTheRest) {
  auto dots = [](Expr rows) {
    Expr vec = call(Prim::AsVector, {2}, {var("r")});
    Expr body = call(Prim::ReduceSeq, {}, {make_float(0.0),
                                          lam({"acc", "v"}, add(var("acc"), call(Prim::Dot, {}, {var("v"), var("v")}))),
                                          vec});
    return call(Prim::MapGlb, {0}, {lam({"r"}, body), std::move(rows)});
  };
  Type mat = Type::array(floats(8), 6);
  Module rows = run_and_compare(program({{"m", mat, {}}}, {{"s", dots(var("m")), {}}}), lowering_only());
  EXPECT_NE(rows.kernels[0].source.find("vload2(4*g_0 + i_2, m)"), std::string::npos) << rows.kernels[0].source;
  Module cols =
      run_and_compare(program({{"m", mat, {}}}, {{"s", dots(call(Prim::Transpose, {}, {var("m")})), {}}}), lowering_only());
  EXPECT_NE(cols.kernels[0].source.find("(float2)(m[g_0 + 16*i_2], m[g_0 + 16*i_2 + 8])"), std::string::npos)
      << cols.kernels[0].source;
}

// A dot product of 8 or 16 lanes is a sum over lanes: each operand is loaded once (one
// vloadN into a variable), not once per lane.
TEST(Lowering, WideDotProductsLoadEachOperandOnce) {
  for (int w : {8, 16}) {
    Expr vec = call(Prim::AsVector, {w}, {var("r")});
    Expr body = call(Prim::ReduceSeq, {}, {make_float(0.0),
                                          lam({"acc", "v"}, add(var("acc"), call(Prim::Dot, {}, {var("v"), var("v")}))),
                                          vec});
    Module m = run_and_compare(
        program({{"m", Type::array(floats(64), 6), {}}}, {{"s", call(Prim::MapGlb, {0}, {lam({"r"}, body), var("m")}), {}}}));
    const std::string& src = m.kernels[0].source;
    std::string vload = fmt::format("vload{}(", w);
    std::size_t loads = 0;
    for (std::size_t at = src.find(vload); at != std::string::npos; at = src.find(vload, at + 1)) ++loads;
    EXPECT_EQ(loads, 2u) << src;  // one per operand
    EXPECT_EQ(src.find("m["), std::string::npos) << src;  // no lane read on its own
  }
}

}  // namespace
}  // namespace liftc::codegen
