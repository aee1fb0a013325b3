#pragma once
// Builders of small C syntax trees for the tests of the passes between lowering and
// printing (hoist_test.cpp, vector_stores_test.cpp): a work-item `g`, counted loops, float
// loads, and the table row a case is written as.

#include <string>
#include <vector>

#include "liftc/codegen/c_ast.hpp"

namespace liftc::codegen::test {

inline const ir::Type kFloat = ir::Type::float_();
inline const ir::Type kInt = ir::Type::int_();

/// Work-item `g` in [0, 63], and its declaration `int g = get_global_id(0)`.
inline const arith::Expr g = arith::var("g", 0, 63);
inline c::Stmt g_decl() {
  return c::decl("g", kInt, AddressSpace::Private, std::nullopt, c::work_item(c::WorkItemFn::GlobalId, 0));
}
/// `for (int v = 0; v < n; v += 1) body`.
inline c::Stmt loop(const char* v, std::int64_t n, std::vector<c::Stmt> body) {
  return c::for_loop(v, c::int_lit(0), n, c::int_lit(1), std::move(body));
}
/// `buf[at]`, a float.
inline c::Expr ld(const char* buf, arith::Expr at) { return c::load(buf, std::move(at), 1, kFloat); }

/// One case of a pass's table: the body before, the printed kernel after its first line.
struct Case {
  const char* what;
  std::vector<c::Stmt> body;
  const char* expected;
};

}  // namespace liftc::codegen::test
