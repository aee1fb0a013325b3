// min and max: constants fold, provable orderings pick a side, otherwise the operands are
// put in canonical order (both are commutative) so that min(a, b) == min(b, a).

#include <algorithm>

#include "internal.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::arith {

namespace {

// a <= b is provable.
bool provably_le(const Expr& a, const Expr& b) {
  try {
    return provably_nonnegative(b - a);
  } catch (const Error&) {
    return false;  // b - a overflows int64: nothing to prove
  }
}

Expr make_sorted(Kind kind, const Expr& a, const Expr& b) {
  if (b < a) return detail::make_node(kind, {b, a});
  return detail::make_node(kind, {a, b});
}

}  // namespace

Expr min(const Expr& a, const Expr& b) {
  if (auto x = a.constant(), y = b.constant(); x && y) return Expr(std::min(*x, *y));
  if (a == b || provably_le(a, b)) return a;
  if (provably_le(b, a)) return b;
  return make_sorted(Kind::Min, a, b);
}

Expr max(const Expr& a, const Expr& b) {
  if (auto x = a.constant(), y = b.constant(); x && y) return Expr(std::max(*x, *y));
  if (a == b || provably_le(a, b)) return b;
  if (provably_le(b, a)) return a;
  return make_sorted(Kind::Max, a, b);
}

}  // namespace liftc::arith
