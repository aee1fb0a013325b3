// equal_assuming_exact_division: equality when every division may be taken as exact.
//
// Each side is rewritten into a fraction num/den of division-free polynomials, reading
// x/y as x * y^-1 (exact when y divides x, which split and asVector record as constraints
// for later checking). Two fractions are equal when num_a * den_b == num_b * den_a as
// canonical polynomials. Mod, min and max stay opaque atoms (their operands are normalized
// to one division num/den first). So (n/m)*m == n,
// (n/4)*4 == n, n/2/2 == n/4, but n%4 is not assumed to be 0.

#include "internal.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::arith {

namespace {

struct Frac {
  Expr num;
  Expr den;
};

Frac rational(const Expr& e);

// An operand of an opaque atom, as one canonical division num/den (so that (n/8)*2 and
// n/4 both become n/4 inside a modulo).
Expr normalized(const Expr& e) {
  Frac f = rational(e);
  return f.num / f.den;
}

Frac rational(const Expr& e) {
  switch (e.kind()) {
    case Kind::Cst:
    case Kind::Var:
      return {e, Expr(1)};
    case Kind::Sum: {
      Frac acc{Expr(0), Expr(1)};
      for (const auto& o : e.operands()) {
        Frac f = rational(o);
        if (f.den == acc.den)
          acc.num = acc.num + f.num;
        else
          acc = {acc.num * f.den + f.num * acc.den, acc.den * f.den};
      }
      return acc;
    }
    case Kind::Prod: {
      Frac acc{Expr(1), Expr(1)};
      for (const auto& o : e.operands()) {
        Frac f = rational(o);
        acc = {acc.num * f.num, acc.den * f.den};
      }
      return acc;
    }
    case Kind::Div: {
      Frac x = rational(e.operands()[0]), y = rational(e.operands()[1]);
      return {x.num * y.den, x.den * y.num};
    }
    case Kind::Mod:
      return {normalized(e.operands()[0]) % normalized(e.operands()[1]), Expr(1)};
    case Kind::Min:
      return {min(normalized(e.operands()[0]), normalized(e.operands()[1])), Expr(1)};
    case Kind::Max:
      return {max(normalized(e.operands()[0]), normalized(e.operands()[1])), Expr(1)};
  }
  return {e, Expr(1)};
}

}  // namespace

Expr exact_division_form(const Expr& e) {
  try {
    return normalized(e);
  } catch (const Error&) {
    return e;  // a cross product overflowed int64
  }
}

bool equal_assuming_exact_division(const Expr& a, const Expr& b) {
  if (a == b) return true;
  try {
    Frac x = rational(a), y = rational(b);
    return x.num * y.den == y.num * x.den;
  } catch (const Error&) {
    return false;  // a cross product overflowed int64: not provably equal
  }
}

bool equal_assuming_exact_division(const Expr& a, const Expr& b, const std::map<std::string, Expr>& values) {
  if (equal_assuming_exact_division(a, b)) return true;
  if (values.empty()) return false;
  try {
    return equal_assuming_exact_division(substitute(a, values), substitute(b, values));
  } catch (const Error&) {
    return false;  // a division by zero or an overflow at these values: not equal
  }
}

}  // namespace liftc::arith
