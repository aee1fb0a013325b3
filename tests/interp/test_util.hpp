#pragma once
// Helpers for the interpreter tests: IR builders with short names, the
// bind-sizes-then-check pipeline, and tensor makers.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "liftc/interp/interp.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace liftc::interp::testing {

inline ir::Expr var(const std::string& n) { return ir::make_var(n); }
inline ir::Expr flt(double v) { return ir::make_float(v); }
inline ir::Expr num(long long v) { return ir::make_int(v); }
inline ir::Expr lam(std::vector<std::string> ps, ir::Expr body) { return ir::make_lambda(std::move(ps), std::move(body)); }
inline ir::Expr call(ir::Prim p, std::vector<arith::Expr> sizes, std::vector<ir::Expr> args) {
  return ir::make_call(p, std::move(sizes), std::move(args));
}
inline ir::Expr call(ir::Prim p, std::vector<ir::Expr> args) { return ir::make_call(p, {}, std::move(args)); }
inline ir::Expr get(ir::Expr t, int i) { return ir::make_get(std::move(t), i); }
inline ir::Expr tuple(std::vector<ir::Expr> es) { return ir::make_tuple(std::move(es)); }

inline ir::Type f32() { return ir::Type::float_(); }
inline ir::Type i32() { return ir::Type::int_(); }
inline ir::Type arr(ir::Type elem, std::int64_t n) { return ir::Type::array(std::move(elem), arith::Expr(n)); }

/// Binds sizes (declared values plus `sizes`) and type checks, as `liftc eval` does.
inline ir::Program check(const ir::Program& p, const std::map<std::string, long long>& sizes = {}) {
  typecheck::typecheck(p);  // symbolic errors first
  return typecheck::typecheck(ir::bind_sizes(p, sizes)).program;
}

/// A float tensor of `shape` holding `values`.
inline io::Tensor tensor(std::vector<std::int64_t> shape, std::vector<float> values) {
  io::Tensor t;
  t.shape = std::move(shape);
  t.f32 = std::move(values);
  return t;
}

/// An int tensor of `shape` holding `values`.
inline io::Tensor int_tensor(std::vector<std::int64_t> shape, std::vector<std::int32_t> values) {
  io::Tensor t;
  t.dtype = io::DType::Int32;
  t.shape = std::move(shape);
  t.i32 = std::move(values);
  return t;
}

/// 0, 1, ..., n-1 as floats.
inline std::vector<float> iota(int n) {
  std::vector<float> v;
  for (int i = 0; i < n; ++i) v.push_back(static_cast<float>(i));
  return v;
}

}  // namespace liftc::interp::testing
