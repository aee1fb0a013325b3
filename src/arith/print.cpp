// Printing in the shared .sr / C syntax, with the fewest parentheses that keep the C
// meaning: `n - m`, `4*i + j`, `n/4*4`, `4*(n/4)`, `(n + 1)%m`, `min(a, b)`.
//
// A Sum prints its positive terms first, then its negative ones with ` - `, each group in
// canonical order, so n + -1*m prints `n - m` and -1*i + n + -1 prints `n - i - 1`.
// Operators follow C precedence and left associativity; unary minus is only written in
// front of a constant or a product whose first factor is not a division (-n/4 would mean
// (-n)/4 in C, so -(n/4) is printed instead).

#include <climits>
#include <ostream>

#include "internal.hpp"

namespace liftc::arith {

namespace {

enum Prec { kAdd = 1, kMul = 2, kUnary = 3, kAtom = 4 };

std::string cst(std::int64_t v) {
  if (v == INT64_MIN) return "(-9223372036854775807 - 1)";  // the literal alone is not an int64 in C
  return std::to_string(v);
}

std::string print(const Expr& e, int need);

// c * atoms, for a canonical term.
std::string print_term(std::int64_t coef, const std::vector<Expr>& atoms) {
  if (atoms.empty()) return cst(coef);
  std::string s;
  std::size_t first = 0;
  if (coef == -1) {
    // -x*y is (-x)*y in C, fine; -(x/4) needs its parentheses.
    s = "-" + print(atoms[0], kUnary);
    first = 1;
  } else if (coef != 1) {
    s = cst(coef);
  }
  for (std::size_t i = first; i < atoms.size(); ++i) {
    if (!s.empty()) s += "*";
    // The leading factor binds left-associatively (n/4*m); later ones need an atom.
    s += print(atoms[i], s.empty() ? kMul : kAtom);
  }
  return s;
}

int prec(const Expr& e) {
  switch (e.kind()) {
    case Kind::Cst:
      return e.value() < 0 ? kUnary : kAtom;
    case Kind::Sum:
      return kAdd;
    case Kind::Prod:
    case Kind::Div:
    case Kind::Mod:
      return kMul;
    default:
      return kAtom;
  }
}

std::string print_sum(const Expr& e) {
  std::vector<detail::Term> pos, neg;
  for (auto& t : detail::terms_of(e)) (t.coef < 0 && t.coef != INT64_MIN ? neg : pos).push_back(std::move(t));
  std::string s;
  for (const auto& t : pos) s += (s.empty() ? "" : " + ") + print_term(t.coef, t.atoms);
  for (const auto& t : neg) {
    if (s.empty())
      s = print_term(t.coef, t.atoms);
    else
      s += " - " + print_term(-t.coef, t.atoms);
  }
  return s;
}

std::string print_raw(const Expr& e) {
  switch (e.kind()) {
    case Kind::Cst:
      return cst(e.value());
    case Kind::Var:
      return e.name();
    case Kind::Sum:
      return print_sum(e);
    case Kind::Prod: {
      auto t = detail::terms_of(e);
      return print_term(t[0].coef, t[0].atoms);
    }
    case Kind::Div:
      return print(e.operands()[0], kMul) + "/" + print(e.operands()[1], kAtom);
    case Kind::Mod:
      return print(e.operands()[0], kMul) + "%" + print(e.operands()[1], kAtom);
    case Kind::Min:
      return "min(" + print(e.operands()[0], 0) + ", " + print(e.operands()[1], 0) + ")";
    case Kind::Max:
      return "max(" + print(e.operands()[0], 0) + ", " + print(e.operands()[1], 0) + ")";
  }
  return "?";
}

// Prints e, parenthesized unless it binds at least as tightly as `need`.
std::string print(const Expr& e, int need) {
  std::string s = print_raw(e);
  return prec(e) >= need ? s : "(" + s + ")";
}

}  // namespace

std::string to_string(const Expr& e) { return print(e, 0); }

std::ostream& operator<<(std::ostream& os, const Expr& e) { return os << to_string(e); }

}  // namespace liftc::arith
