#pragma once
// An index that varies along a loop, as one of the index types of index_map.hpp.
//
// AffineIndex is c + a*t for the iteration t in [0, n), with a >= 0 (the layout maps only
// shift and scale by positive sizes). Sums, differences and products with sizes stay of that
// form. A quotient or remainder by a size m does too when the quotient is the same for every
// iteration (the index stays in one row of m); otherwise the result has exact = false and
// its c and a mean nothing. The interpreter pushes a loop's index through the maps of the
// views it reads (src/interp/view.cpp strided()): an exact result says where every
// iteration's element lies (base + t * stride), so a reduction reads words, not views.
//
// T is std::int64_t in the interpreter; tests/ir instantiates it at Z3 integers (with B a Z3
// boolean) to prove the rules below for every c, a, n and t.

namespace liftc::ir {

/// The index c + a*t for t in [0, n); see the top of this file.
template <class T, class B = bool>
struct AffineIndex {
  T c;      // the index at t = 0
  T a;      // its step per iteration, >= 0
  T n;      // the trip count, >= 1
  B exact;  // false once an operation's result is not c + a*t

  /// The index at the last iteration, t = n - 1.
  T last() const { return c + a * (n - 1); }
};

/// Iteration-wise sum (both along the same loop).
template <class T, class B>
AffineIndex<T, B> operator+(const AffineIndex<T, B>& x, const AffineIndex<T, B>& y) {
  return {x.c + y.c, x.a + y.a, x.n, x.exact && y.exact};
}

/// The index shifted down by a size.
template <class T, class B, class S>
AffineIndex<T, B> operator-(const AffineIndex<T, B>& x, const S& k) {
  return {x.c - k, x.a, x.n, x.exact};
}

/// The index scaled by a positive size.
template <class T, class B, class S>
AffineIndex<T, B> operator*(const AffineIndex<T, B>& x, const S& k) {
  return {x.c * k, x.a * k, x.n, x.exact};
}
/// The index scaled by a positive size.
template <class T, class B, class S>
AffineIndex<T, B> operator*(const S& k, const AffineIndex<T, B>& x) {
  return x * k;
}

/// The quotient by a positive size m: exact when the first and last iterations (hence all,
/// as c + a*t is monotone) have the same quotient, which is then constant.
template <class T, class B, class S>
AffineIndex<T, B> operator/(const AffineIndex<T, B>& x, const S& m) {
  T q = x.c / m;
  return {q, x.a * 0, x.n, x.exact && q == x.last() / m};
}

/// The remainder by a positive size m: c - q*m + a*t when the quotient q is constant.
template <class T, class B, class S>
AffineIndex<T, B> operator%(const AffineIndex<T, B>& x, const S& m) {
  T q = x.c / m;
  return {x.c - q * m, x.a, x.n, x.exact && q == x.last() / m};
}

/// Whether k <= the index at every iteration (a >= 0: at the first).
template <class T, class B, class S>
B operator<=(const S& k, const AffineIndex<T, B>& x) {
  return x.exact && k <= x.c;
}

/// Whether the index < k at every iteration (a >= 0: at the last).
template <class T, class B, class S>
B operator<(const AffineIndex<T, B>& x, const S& k) {
  return x.exact && x.last() < k;
}

}  // namespace liftc::ir
