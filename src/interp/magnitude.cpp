// The magnitude of a computation: the program evaluated on absolute values.
//
// For a program whose arithmetic is + and * (a convolution, its Winograd form), rounding
// errors are bounded by the same computation on absolute values (the running-error bound
// |computed - exact| <= u * n * P, u = 2^-24, n the additions on a product's path): P is
// what a tolerance for a rewrite that changes the arithmetic (Winograd's transforms, whose
// intermediate sums can be far larger than the result) scales with.

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <functional>

#include "liftc/interp/interp.hpp"
#include "liftc/interp/magnitude.hpp"

namespace liftc::interp {

namespace {

// `e` with every constant array's entries (literals or negated literals) made absolute;
// types kept (a typed program stays typed).
ir::Expr absolute_constants(const ir::Expr& e) {
  bool constant_array = e.kind() == ir::ExprKind::Call && e->prim == ir::Prim::Array;
  std::vector<ir::Expr> args;
  for (const ir::Expr& x : e->args) {
    const ir::Expr& literal = x.kind() == ir::ExprKind::Call && x->prim == ir::Prim::Neg ? x->args[0] : x;
    if (!constant_array || literal.kind() != ir::ExprKind::Literal) {
      args.push_back(absolute_constants(x));
    } else if (literal->literal.kind == ir::ScalarKind::Float) {
      args.push_back(ir::with_type(ir::make_float(std::fabs(literal->literal.f), x.loc()), x.type()));
    } else {
      args.push_back(ir::with_type(ir::make_int(std::llabs(literal->literal.i), x.loc()), x.type()));
    }
  }
  return ir::with_args(e, std::move(args));
}

}  // namespace

bool has_constant_arrays(const ir::Program& p) {
  std::function<bool(const ir::Expr&)> any = [&](const ir::Expr& e) {
    if (e.kind() == ir::ExprKind::Call && e->prim == ir::Prim::Array) return true;
    for (const ir::Expr& a : e->args)
      if (any(a)) return true;
    return false;
  };
  for (const auto& d : p.defs)
    if (any(d.body)) return true;
  return false;
}

Tensors evaluate_magnitude(const ir::Program& checked, const Tensors& inputs) {
  Tensors absolute = inputs;
  for (auto& [name, t] : absolute)
    for (float& v : t.f32) v = std::fabs(v);
  ir::Program p = checked;
  for (auto& d : p.defs) d.body = absolute_constants(d.body);
  return evaluate(p, absolute);
}

Tensors rounding_allowance(const ir::Program& checked, const Tensors& inputs) {
  Tensors allowance = evaluate_magnitude(checked, inputs);
  for (auto it = allowance.begin(); it != allowance.end();) {
    if (it->second.dtype != io::DType::Float32) {
      it = allowance.erase(it);  // an int output is compared exactly
      continue;
    }
    for (float& v : it->second.f32) {
      double a = magnitude_tolerance * std::fabs(v);  // a magnitude beyond float allows any value
      v = std::isfinite(a) && a < FLT_MAX ? static_cast<float>(a) : FLT_MAX;
    }
    ++it;
  }
  return allowance;
}

}  // namespace liftc::interp
