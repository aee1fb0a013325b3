#pragma once
// arith::Expr as a Z3 integer, for the tests that prove facts about arith's expressions
// with Z3 (tests/arith/test_z3_rules.cpp, tests/ir/index_map_z3_test.cpp). arith's `/` and
// `%` are floor division (src/arith/README.md); Z3's are Euclidean, so they are written
// here as floor division for any non-zero divisor.

#include <z3++.h>

#include "liftc/arith/expr.hpp"

namespace liftc::testing {

/// Floor division in Z3 for any non-zero divisor (z3's div is Euclidean).
inline z3::expr floor_div(const z3::expr& x, const z3::expr& y) { return z3::ite(y > 0, x / y, (-x) / (-y)); }
/// The remainder of floor_div: x - y * floor_div(x, y), of the divisor's sign.
inline z3::expr floor_mod(const z3::expr& x, const z3::expr& y) { return x - y * floor_div(x, y); }

/// `e` as a Z3 integer; a variable becomes the integer constant of its name.
inline z3::expr to_z3(const arith::Expr& e, z3::context& ctx) {
  const auto& ops = e.operands();
  switch (e.kind()) {
    case arith::Kind::Cst: return ctx.int_val(e.value());
    case arith::Kind::Var: return ctx.int_const(e.name().c_str());
    case arith::Kind::Sum: {
      z3::expr r = ctx.int_val(0);
      for (const auto& o : ops) r = r + to_z3(o, ctx);
      return r;
    }
    case arith::Kind::Prod: {
      z3::expr r = ctx.int_val(1);
      for (const auto& o : ops) r = r * to_z3(o, ctx);
      return r;
    }
    case arith::Kind::Div: return floor_div(to_z3(ops[0], ctx), to_z3(ops[1], ctx));
    case arith::Kind::Mod: return floor_mod(to_z3(ops[0], ctx), to_z3(ops[1], ctx));
    case arith::Kind::Min: return z3::min(to_z3(ops[0], ctx), to_z3(ops[1], ctx));
    case arith::Kind::Max: return z3::max(to_z3(ops[0], ctx), to_z3(ops[1], ctx));
  }
  return ctx.int_val(0);
}

}  // namespace liftc::testing
