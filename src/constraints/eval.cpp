// Exact evaluation of constraints at a point: arith expressions compiled to postfix code
// over parameter indices, int64 with overflow checks, Euclidean division as in Z3.

#include <algorithm>

#include <fmt/format.h>

#include "internal.hpp"

namespace liftc::constraints::detail {

std::int64_t euclid_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b, r = a % b;
  if (r < 0) q += b > 0 ? -1 : 1;
  return q;
}

std::int64_t euclid_mod(std::int64_t a, std::int64_t b) {
  std::int64_t r = a % b;
  if (r < 0) r += b > 0 ? b : -b;
  return r;
}

namespace {

void emit(const arith::Expr& e, const Space& space, Compiled& out) {
  using Op = Compiled::Op;
  switch (e.kind()) {
    case arith::Kind::Cst: out.code.push_back({Op::Cst, 0, e.value()}); return;
    case arith::Kind::Var: {
      int i = space.index(e.name());
      LIFTC_ASSERT(i >= 0, fmt::format("constraint variable {} is a parameter of the space", e.name()));
      out.code.push_back({Op::Var, i, 0});
      return;
    }
    default: break;
  }
  for (const auto& o : e.operands()) emit(o, space, out);
  int n = static_cast<int>(e.operands().size());
  switch (e.kind()) {
    case arith::Kind::Sum: out.code.push_back({Op::Add, n, 0}); break;
    case arith::Kind::Prod: out.code.push_back({Op::Mul, n, 0}); break;
    case arith::Kind::Div: out.code.push_back({Op::Div, 2, 0}); break;
    case arith::Kind::Mod: out.code.push_back({Op::Mod, 2, 0}); break;
    case arith::Kind::Min: out.code.push_back({Op::Min, 2, 0}); break;
    case arith::Kind::Max: out.code.push_back({Op::Max, 2, 0}); break;
    default: LIFTC_ASSERT(false, "every arith kind is handled");
  }
}

}  // namespace

Compiled compile(const arith::Expr& e, const Space& space) {
  Compiled c;
  emit(e, space, c);
  return c;
}

std::optional<std::int64_t> run(const Compiled& c, const std::int64_t* values) {
  std::int64_t stack[64];
  std::vector<std::int64_t> big;  // deep expressions only
  std::int64_t* s = c.code.size() <= 64 ? stack : (big.resize(c.code.size()), big.data());
  int top = 0;
  using Op = Compiled::Op;
  for (const auto& in : c.code) {
    switch (in.op) {
      case Op::Cst: s[top++] = in.v; break;
      case Op::Var: s[top++] = values[in.n]; break;
      case Op::Add: {
        std::int64_t acc = 0;
        for (int k = top - in.n; k < top; ++k)
          if (__builtin_add_overflow(acc, s[k], &acc)) return std::nullopt;
        top -= in.n;
        s[top++] = acc;
        break;
      }
      case Op::Mul: {
        std::int64_t acc = 1;
        for (int k = top - in.n; k < top; ++k)
          if (__builtin_mul_overflow(acc, s[k], &acc)) return std::nullopt;
        top -= in.n;
        s[top++] = acc;
        break;
      }
      default: {
        std::int64_t b = s[--top], a = s[--top];
        if ((in.op == Op::Div || in.op == Op::Mod) && b == 0) return std::nullopt;
        if (in.op == Op::Div && a == INT64_MIN && b == -1) return std::nullopt;
        std::int64_t r = in.op == Op::Div   ? euclid_div(a, b)
                         : in.op == Op::Mod ? (b == -1 ? 0 : euclid_mod(a, b))
                         : in.op == Op::Min ? std::min(a, b)
                                            : std::max(a, b);
        s[top++] = r;
      }
    }
  }
  return s[0];
}

CompiledConstraint compile(const Constraint& c, const Space& space) {
  CompiledConstraint out{c.kind, compile(c.lhs, space), compile(c.rhs, space), c.values, {}};
  std::sort(out.values.begin(), out.values.end());
  for (const auto& v : c.vars) out.vars.push_back(space.index(v));
  std::sort(out.vars.begin(), out.vars.end());
  return out;
}

bool check(const CompiledConstraint& c, const std::int64_t* values) {
  auto a = run(c.lhs, values);
  if (!a) return false;
  if (c.kind == Constraint::Kind::Member) return std::binary_search(c.values.begin(), c.values.end(), *a);
  auto b = run(c.rhs, values);
  if (!b) return false;
  if (c.kind == Constraint::Kind::LessEqual) return *a <= *b;
  return *a >= 1 && euclid_mod(*b, *a) == 0;
}

}  // namespace liftc::constraints::detail
