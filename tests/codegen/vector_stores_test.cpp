// vectorize_stores on small syntax trees: one case a line, the body before and the kernel
// printed after. (The e2e suites run every generated kernel, vector stores included,
// against the interpreter.)

#include <gtest/gtest.h>

#include "c_tree.hpp"
#include "liftc/codegen/printer.hpp"
#include "liftc/codegen/vector_stores.hpp"

namespace liftc::codegen {
namespace {

using namespace c;
using namespace test;

// Loop variables i, j with their ranges.
arith::Expr i = arith::var("i", 0, 15);
arith::Expr j = arith::var("j", 0, 1);

Stmt acc_decl() { return decl("acc", kFloat, AddressSpace::Private, arith::Expr(8), nullptr); }

// The kernel `k(x, y)` around `body`, with its copy loops vectorized, printed.
std::string vectorized(std::vector<Stmt> body) {
  Function f;
  f.name = "k";
  f.params = {Param{"x", kFloat, true, true, AddressSpace::Global}, Param{"y", kFloat, true, false, AddressSpace::Global}};
  f.body = std::move(body);
  return OpenCLPrinter().print(vectorize_stores(f));
}

const char* kHead = "kernel void k(global const float* restrict x, global float* restrict y) {\n";

TEST(VectorStores, Table) {
  std::vector<Case> cases = {
      {"a private accumulator row copied to the output: one vector store of a vector load",
       {g_decl(), acc_decl(), loop("j", 2, {loop("i", 4, {store("y", 256 * g + 64 * j + i, 1, kFloat, ld("acc", 4 * j + i))})})},
       "  int g = (int)get_global_id(0);\n"
       "  float acc[8];\n"
       "  for (int j = 0; j < 2; j += 1) {\n"
       "    vstore4(vload4(j, acc), 64*g + 16*j, y);\n"
       "  }\n}\n"},
      {"an offset not a multiple of the width: the pointer form",
       {g_decl(), loop("i", 8, {store("y", 3 * g + i, 1, kFloat, ld("x", g + i + 1))})},
       "  int g = (int)get_global_id(0);\n"
       "  vstore8(vload8(0, x + g + 1), 0, y + 3*g);\n}\n"},
      {"a stride of two in the output stays a loop",
       {g_decl(), loop("i", 4, {store("y", 8 * g + 2 * i, 1, kFloat, ld("x", 4 * g + i))})},
       "  int g = (int)get_global_id(0);\n"
       "  for (int i = 0; i < 4; i += 1) {\n"
       "    y[8*g + 2*i] = x[4*g + i];\n"
       "  }\n}\n"},
      {"three iterations (no vector of 3) stay a loop",
       {g_decl(), loop("i", 3, {store("y", 3 * g + i, 1, kFloat, ld("x", 3 * g + i))})},
       "  int g = (int)get_global_id(0);\n"
       "  for (int i = 0; i < 3; i += 1) {\n"
       "    y[3*g + i] = x[3*g + i];\n"
       "  }\n}\n"},
      {"a copy into a private array stays a loop (only global stores are vectorized)",
       {g_decl(), acc_decl(), loop("i", 4, {store("acc", i, 1, kFloat, ld("x", 4 * g + i))})},
       "  int g = (int)get_global_id(0);\n"
       "  float acc[8];\n"
       "  for (int i = 0; i < 4; i += 1) {\n"
       "    acc[i] = x[4*g + i];\n"
       "  }\n}\n"},
      {"a computed value (not a copy) stays a loop",
       {g_decl(), loop("i", 4, {store("y", 4 * g + i, 1, kFloat, binary("*", ld("x", 4 * g + i), float_lit(2), kFloat))})},
       "  int g = (int)get_global_id(0);\n"
       "  for (int i = 0; i < 4; i += 1) {\n"
       "    y[4*g + i] = x[4*g + i] * 2.0f;\n"
       "  }\n}\n"},
  };
  for (const auto& c : cases) EXPECT_EQ(vectorized(c.body), std::string(kHead) + c.expected) << c.what;
}

}  // namespace
}  // namespace liftc::codegen
