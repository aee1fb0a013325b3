// hoist_invariants on small syntax trees: one case a line, the body before and the kernel
// printed after. (The e2e suites check that hoisted kernels still match the interpreter.)

#include <gtest/gtest.h>

#include "c_tree.hpp"
#include "liftc/codegen/hoist.hpp"
#include "liftc/codegen/printer.hpp"

namespace liftc::codegen {
namespace {

using namespace c;
using namespace test;

// Loop variables i, j with their ranges.
arith::Expr i = arith::var("i", 0, 3);
arith::Expr j = arith::var("j", 0, 1);

Expr fmul(Expr a, Expr b) { return binary("*", std::move(a), std::move(b), kFloat); }
Expr fadd(Expr a, Expr b) { return binary("+", std::move(a), std::move(b), kFloat); }
Expr acc() { return name("acc", kFloat); }
Stmt acc_decl() { return decl("acc", kFloat, AddressSpace::Private, std::nullopt, float_lit(0)); }

// The kernel `k(x, w, y)` around `body`, hoisted and printed.
std::string hoisted(std::vector<Stmt> body) {
  Function f;
  f.name = "k";
  f.params = {Param{"x", kFloat, true, true, AddressSpace::Global}, Param{"w", kFloat, true, true, AddressSpace::Global},
              Param{"y", kFloat, true, false, AddressSpace::Global}};
  f.body = std::move(body);
  return OpenCLPrinter().print(hoist_invariants(f));
}

const char* kHead =
    "kernel void k(global const float* restrict x, global const float* restrict w, global float* restrict y) {\n";

TEST(Hoist, Table) {
  std::vector<Case> cases = {
      {"the invariant terms of an index become one offset",
       {g_decl(), loop("i", 4, {store("y", 8 * g + i, 1, kFloat, ld("x", 8 * g + 16 * i + 1))})},
       "  int g = (int)get_global_id(0);\n"
       "  const int inv_0 = 8*g;\n"
       "  const int inv_1 = 8*g + 1;\n"
       "  for (int i = 0; i < 4; i += 1) {\n"
       "    y[i + inv_0] = x[16*i + inv_1];\n"
       "  }\n}\n"},
      {"a load the inner loop does not change leaves it; its offset climbs out of both loops",
       {g_decl(), acc_decl(),
        loop("i", 4, {loop("j", 2, {assign("acc", fadd(acc(), fmul(ld("x", 58 * g + i + 7), ld("w", 2 * g + j))))})}),
        store("y", g, 1, kFloat, acc())},
       "  int g = (int)get_global_id(0);\n"
       "  float acc = 0.0f;\n"
       "  const int inv_2 = 58*g + 7;\n"
       "  const int inv_1 = 2*g;\n"
       "  for (int i = 0; i < 4; i += 1) {\n"
       "    const float inv_0 = x[i + inv_2];\n"
       "    for (int j = 0; j < 2; j += 1) {\n"
       "      acc = acc + inv_0 * w[inv_1 + j];\n"
       "    }\n"
       "  }\n"
       "  y[g] = acc;\n}\n"},
      {"a sum is split at every level: each loop adds its own term",
       {g_decl(), loop("i", 4, {loop("j", 2, {store("y", 100 * g + 10 * i + j, 1, kFloat, float_lit(1))})})},
       "  int g = (int)get_global_id(0);\n"
       "  const int inv_1 = 100*g;\n"
       "  for (int i = 0; i < 4; i += 1) {\n"
       "    const int inv_0 = 10*i + inv_1;\n"
       "    for (int j = 0; j < 2; j += 1) {\n"
       "      y[inv_0 + j] = 1.0f;\n"
       "    }\n"
       "  }\n}\n"},
      {"a guard that does not depend on the loop is computed once",
       {g_decl(), loop("i", 4, {if_then(binary("<", name("g", kInt), index(5), ir::Type::bool_()),
                                        {store("y", 4 * g + i, 1, kFloat, float_lit(0))})})},
       "  int g = (int)get_global_id(0);\n"
       "  const int inv_0 = g < 5;\n"
       "  const int inv_1 = 4*g;\n"
       "  for (int i = 0; i < 4; i += 1) {\n"
       "    if (inv_0) {\n"
       "      y[i + inv_1] = 0.0f;\n"
       "    }\n"
       "  }\n}\n"},
      {"a load under an if stays (it may be out of bounds where the guard is false); its offset moves",
       {g_decl(), acc_decl(),
        loop("i", 4, {if_then(binary("<", name("i", kInt), index(2), ir::Type::bool_()),
                              {assign("acc", fadd(acc(), ld("x", 3 * g + 5)))})})},
       "  int g = (int)get_global_id(0);\n"
       "  float acc = 0.0f;\n"
       "  const int inv_0 = 3*g + 5;\n"
       "  for (int i = 0; i < 4; i += 1) {\n"
       "    if (i < 2) {\n"
       "      acc = acc + x[inv_0];\n"
       "    }\n"
       "  }\n}\n"},
      {"an invariant ?: moves as a whole (its load stays guarded by its condition)",
       {g_decl(), acc_decl(),
        loop("i", 4, {assign("acc", fadd(acc(), ternary(binary("<", name("g", kInt), index(60), ir::Type::bool_()),
                                                        ld("x", g + 4), float_lit(0))))})},
       "  int g = (int)get_global_id(0);\n"
       "  float acc = 0.0f;\n"
       "  const float inv_0 = (g < 60) ? x[g + 4] : 0.0f;\n"
       "  for (int i = 0; i < 4; i += 1) {\n"
       "    acc = acc + inv_0;\n"
       "  }\n}\n"},
      {"a load in a ?: branch stays when the condition varies; its offset moves",
       {g_decl(), acc_decl(),
        loop("i", 4, {assign("acc", fadd(acc(), ternary(binary("<", name("i", kInt), index(3), ir::Type::bool_()),
                                                        ld("x", g + 4), float_lit(0))))})},
       "  int g = (int)get_global_id(0);\n"
       "  float acc = 0.0f;\n"
       "  const int inv_0 = g + 4;\n"
       "  for (int i = 0; i < 4; i += 1) {\n"
       "    acc = acc + ((i < 3) ? x[inv_0] : 0.0f);\n"
       "  }\n}\n"},
      {"a loop that may not run keeps its loads (a work-item-strided loop)",
       {acc_decl(),
        for_loop("i", work_item(WorkItemFn::LocalId, 0), 64, int_lit(8), {assign("acc", fadd(acc(), ld("x", 7)))})},
       "  float acc = 0.0f;\n"
       "  for (int i = (int)get_local_id(0); i < 64; i += 8) {\n"
       "    acc = acc + x[7];\n"
       "  }\n}\n"},
      {"a load from a buffer the loop stores to stays",
       {g_decl(), loop("i", 4, {store("y", 2 * g + i, 1, kFloat, ld("y", 2 * g))})},
       "  int g = (int)get_global_id(0);\n"
       "  const int inv_0 = 2*g;\n"
       "  for (int i = 0; i < 4; i += 1) {\n"
       "    y[i + inv_0] = y[inv_0];\n"
       "  }\n}\n"},
      {"behind a barrier, a buffer the kernel writes may change: its load stays",
       {g_decl(), store("y", g, 1, kFloat, float_lit(1)), acc_decl(),
        loop("i", 4, {barrier(false, true), assign("acc", fadd(acc(), ld("y", 5 * g + 1)))})},
       "  int g = (int)get_global_id(0);\n"
       "  y[g] = 1.0f;\n"
       "  float acc = 0.0f;\n"
       "  const int inv_0 = 5*g + 1;\n"
       "  for (int i = 0; i < 4; i += 1) {\n"
       "    barrier(CLK_GLOBAL_MEM_FENCE);\n"
       "    acc = acc + y[inv_0];\n"
       "  }\n}\n"},
      {"a vector access keeps an offset that is a multiple of its width",
       {g_decl(), loop("i", 4, {store("y", 8 * g + 4 * i, 4, kFloat, load("x", 8 * g + 4 * i + 32, 4, ir::Type::vector(ir::ScalarKind::Float, 4)))})},
       "  int g = (int)get_global_id(0);\n"
       "  const int inv_0 = 2*g;\n"
       "  const int inv_1 = 2*g + 8;\n"
       "  for (int i = 0; i < 4; i += 1) {\n"
       "    vstore4(vload4(i + inv_1, x), i + inv_0, y);\n"
       "  }\n}\n"},
      {"private arrays keep their index arithmetic (registers once unrolled)",
       {decl("p", kFloat, AddressSpace::Private, arith::Expr(8), nullptr),
        loop("i", 4, {loop("j", 2, {store("p", 2 * i + j, 1, kFloat, load("p", 2 * i + j, 1, kFloat))})})},
       "  float p[8];\n"
       "  for (int i = 0; i < 4; i += 1) {\n"
       "    for (int j = 0; j < 2; j += 1) {\n"
       "      p[2*i + j] = p[2*i + j];\n"
       "    }\n"
       "  }\n}\n"},
      {"names the loop assigns are not invariant",
       {acc_decl(), loop("i", 4, {assign("acc", fadd(acc(), fmul(acc(), float_lit(2))))}), store("y", 0, 1, kFloat, acc())},
       "  float acc = 0.0f;\n"
       "  for (int i = 0; i < 4; i += 1) {\n"
       "    acc = acc + acc * 2.0f;\n"
       "  }\n"
       "  y[0] = acc;\n}\n"},
      {"sibling loops share what they hoist",
       {g_decl(), loop("i", 4, {store("y", 2 * g + i, 1, kFloat, float_lit(0))}),
        loop("j", 2, {store("y", 2 * g + j + 8, 1, kFloat, ld("x", 2 * g + j))})},
       "  int g = (int)get_global_id(0);\n"
       "  const int inv_0 = 2*g;\n"
       "  for (int i = 0; i < 4; i += 1) {\n"
       "    y[i + inv_0] = 0.0f;\n"
       "  }\n"
       "  const int inv_1 = 2*g + 8;\n"
       "  for (int j = 0; j < 2; j += 1) {\n"
       "    y[inv_1 + j] = x[inv_0 + j];\n"
       "  }\n}\n"},
      {"a load is not shared across a store to its buffer",
       {g_decl(), loop("i", 4, {store("y", i, 1, kFloat, ld("x", 3 * g))}), store("x", 3 * g, 1, kFloat, float_lit(2)),
        loop("j", 2, {store("y", j + 4, 1, kFloat, ld("x", 3 * g))})},
       "  int g = (int)get_global_id(0);\n"
       "  const float inv_0 = x[3*g];\n"
       "  for (int i = 0; i < 4; i += 1) {\n"
       "    y[i] = inv_0;\n"
       "  }\n"
       "  x[3*g] = 2.0f;\n"
       "  const float inv_1 = x[3*g];\n"
       "  for (int j = 0; j < 2; j += 1) {\n"
       "    y[j + 4] = inv_1;\n"
       "  }\n}\n"},
      {"the same invariant twice is one local",
       {g_decl(), loop("i", 4, {store("y", i, 1, kFloat, fadd(fmul(ld("x", 9 * g), cast(kFloat, index(i))), ld("x", 9 * g)))})},
       "  int g = (int)get_global_id(0);\n"
       "  const float inv_0 = x[9*g];\n"
       "  for (int i = 0; i < 4; i += 1) {\n"
       "    y[i] = inv_0 * (float)i + inv_0;\n"
       "  }\n}\n"},
  };
  for (const auto& c : cases) EXPECT_EQ(hoisted(c.body), std::string(kHead) + c.expected) << c.what;
}

// A name taken by the kernel is not reused for a hoisted value.
TEST(Hoist, FreshNamesAvoidTheKernelsOwn) {
  std::string text = hoisted({decl("inv_0", kInt, AddressSpace::Private, std::nullopt, work_item(WorkItemFn::GlobalId, 0)),
                              loop("i", 4, {store("y", i + 4 * arith::var("inv_0", 0, 9), 1, kFloat, float_lit(0))})});
  EXPECT_NE(text.find("const int inv_1 = 4*inv_0;"), std::string::npos) << text;
}

}  // namespace
}  // namespace liftc::codegen
