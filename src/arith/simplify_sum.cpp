// Sums and products: the polynomial normal form.
//
// Policy: products are fully distributed over sums, so a canonical expression is a sum
// of terms `c * a1 * ... * ak` over atoms (Var, Div, Mod, Min, Max). Like terms (same atom
// multiset) are collected, zero terms dropped, and terms ordered by term_less: higher
// degree first, then the atoms' structural order, the constant last. Two polynomials that
// are equal as polynomials over their atoms are therefore structurally equal.
//
// One rule looks inside atoms: x - (x/y)*y == x%y (for floor division, any x and y != 0),
// used in whichever direction removes Div/Mod nodes or terms. It makes
// (a/b)*b + a%b -> a, the index expression of join(split(b, x)), and a - a%b -> (a/b)*b.

#include <algorithm>

#include "internal.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::arith {

namespace detail {

namespace {

int compare_atoms(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (int c = compare(a[i], b[i]); c != 0) return c;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

// Canonical order of the terms of a Sum: higher degree first (the constant, of degree 0,
// comes last, so `n + 1` prints naturally), then by the atoms' structural order.
bool term_less(const Term& a, const Term& b) {
  if (a.atoms.size() != b.atoms.size()) return a.atoms.size() > b.atoms.size();
  return compare_atoms(a.atoms, b.atoms) < 0;
}

// Sorts and merges like terms, dropping those whose coefficient becomes 0.
std::vector<Term> collect(std::vector<Term> terms) {
  std::sort(terms.begin(), terms.end(), term_less);
  std::vector<Term> out;
  for (auto& t : terms) {
    if (!out.empty() && compare_atoms(out.back().atoms, t.atoms) == 0)
      out.back().coef = checked_add(out.back().coef, t.coef);
    else
      out.push_back(std::move(t));
    if (out.back().coef == 0) out.pop_back();
  }
  return out;
}

Expr build(const std::vector<Term>& terms) {
  if (terms.empty()) return Expr(0);
  if (terms.size() == 1) return term_expr(terms[0]);
  std::vector<Expr> ops;
  ops.reserve(terms.size());
  for (const auto& t : terms) ops.push_back(term_expr(t));
  return make_node(Kind::Sum, std::move(ops));
}

int divmod_cost(const std::vector<Term>& terms) {
  int n = 0;
  for (const auto& t : terms)
    for (const auto& a : t.atoms) n += count_divmod(a);
  return n;
}

// The rule x - (x/y)*y == x%y. For each term r*(x/y)*y the sum may be rewritten as
// rest + r*x - r*(x%y), and for each term r*(x%y) as rest + r*x - r*y*(x/y). A rewrite is
// kept when it strictly lowers (Div/Mod count, term count): that gives
// (a/b)*b + a%b -> a, a - (a/b)*b -> a%b and a - a%b -> (a/b)*b, and guarantees termination.
std::optional<std::vector<Term>> recombine_divmod(const std::vector<Term>& terms) {
  const int cost = divmod_cost(terms);
  for (std::size_t k = 0; k < terms.size(); ++k) {
    const Term& t = terms[k];
    for (std::size_t i = 0; i < t.atoms.size(); ++i) {
      const Expr& atom = t.atoms[i];
      if (atom.kind() != Kind::Div && atom.kind() != Kind::Mod) continue;
      const Expr& x = atom.operands()[0];
      const Expr& y = atom.operands()[1];
      Term rest{t.coef, t.atoms};
      rest.atoms.erase(rest.atoms.begin() + static_cast<std::ptrdiff_t>(i));
      std::optional<Term> r = rest;  // the multiplier of x
      if (atom.kind() == Kind::Div) {
        std::vector<Term> ty = terms_of(y);
        if (ty.size() != 1) continue;  // r*y*(x/y) with a sum y is not a single term
        r = divide_term(rest, ty[0]);
        if (!r) continue;
      }
      try {
        std::vector<Term> cand;
        for (std::size_t j = 0; j < terms.size(); ++j)
          if (j != k) cand.push_back(terms[j]);
        for (const auto& xt : terms_of(x)) cand.push_back(mul_terms(*r, xt));
        // The other half of x == y*(x/y) + x%y, subtracted. y*(x/y) is multiplied out here,
        // not by operator*: that would go through make_sum, whose recombination turns
        // (x/y)*y back into x - x%y and asks for this product again, without end when y holds
        // a division or remainder itself ((N/(N%17%16))*(N%17%16) overflowed the stack).
        std::vector<Term> other;
        if (atom.kind() == Kind::Div) {
          other = terms_of(x % y);
        } else {
          for (const auto& yt : terms_of(y))
            for (const auto& qt : terms_of(x / y)) other.push_back(mul_terms(yt, qt));
        }
        for (const auto& ot : other) {
          Term p = mul_terms(*r, ot);
          p.coef = checked_mul(p.coef, -1);
          cand.push_back(std::move(p));
        }
        cand = collect(std::move(cand));
        int c = divmod_cost(cand);
        if (c < cost || (c == cost && cand.size() < terms.size())) return cand;
      } catch (const Error&) {
        // The candidate overflows int64: keep the sum as it is.
      }
    }
  }
  return std::nullopt;
}

}  // namespace

bool is_atom(const Expr& e) {
  Kind k = e.kind();
  return k == Kind::Var || k == Kind::Div || k == Kind::Mod || k == Kind::Min || k == Kind::Max;
}

std::vector<Term> terms_of(const Expr& e) {
  switch (e.kind()) {
    case Kind::Cst:
      if (e.value() == 0) return {};
      return {Term{e.value(), {}}};
    case Kind::Sum: {
      std::vector<Term> out;
      for (const auto& t : e.operands()) {
        auto ts = terms_of(t);
        LIFTC_ASSERT(ts.size() == 1, "a Sum's operands are single terms");
        out.push_back(std::move(ts[0]));
      }
      return out;
    }
    case Kind::Prod: {
      const auto& ops = e.operands();
      Term t{1, {}};
      std::size_t i = 0;
      if (ops[0].kind() == Kind::Cst) t.coef = ops[i++].value();
      t.atoms.assign(ops.begin() + static_cast<std::ptrdiff_t>(i), ops.end());
      return {t};
    }
    default:
      return {Term{1, {e}}};
  }
}

Expr term_expr(const Term& t) {
  if (t.atoms.empty() || t.coef == 0) return Expr(t.coef);
  if (t.coef == 1 && t.atoms.size() == 1) return t.atoms[0];
  std::vector<Expr> ops;
  if (t.coef != 1) ops.emplace_back(t.coef);
  ops.insert(ops.end(), t.atoms.begin(), t.atoms.end());
  return make_node(Kind::Prod, std::move(ops));
}

Term mul_terms(const Term& a, const Term& b) {
  Term t{checked_mul(a.coef, b.coef), {}};
  t.atoms.reserve(a.atoms.size() + b.atoms.size());
  std::merge(a.atoms.begin(), a.atoms.end(), b.atoms.begin(), b.atoms.end(), std::back_inserter(t.atoms),
             [](const Expr& x, const Expr& y) { return compare(x, y) < 0; });
  return t;
}

std::optional<Term> divide_term(const Term& t, const Term& d) {
  if (d.coef == 0 || t.coef % d.coef != 0) return std::nullopt;
  Term q{t.coef / d.coef, {}};
  // Both atom lists are sorted: walk them together, dropping each atom of d once.
  std::size_t j = 0;
  for (const auto& a : t.atoms) {
    if (j < d.atoms.size() && compare(a, d.atoms[j]) == 0)
      ++j;
    else
      q.atoms.push_back(a);
  }
  if (j != d.atoms.size()) return std::nullopt;
  return q;
}

Expr make_sum(std::vector<Term> terms) {
  terms = collect(std::move(terms));
  if (auto better = recombine_divmod(terms)) return make_sum(std::move(*better));
  return build(terms);
}

int count_divmod(const Expr& e) {
  int n = (e.kind() == Kind::Div || e.kind() == Kind::Mod) ? 1 : 0;
  for (const auto& o : e.operands()) n += count_divmod(o);
  return n;
}

}  // namespace detail

using detail::Term;

Expr operator+(const Expr& a, const Expr& b) {
  if (auto x = a.constant(), y = b.constant(); x && y) return Expr(detail::checked_add(*x, *y));
  if (b.constant() == 0) return a;
  if (a.constant() == 0) return b;
  std::vector<Term> terms = detail::terms_of(a);
  for (auto& t : detail::terms_of(b)) terms.push_back(std::move(t));
  return detail::make_sum(std::move(terms));
}

Expr operator-(const Expr& a) { return Expr(-1) * a; }

Expr operator-(const Expr& a, const Expr& b) { return a + (-b); }

Expr operator*(const Expr& a, const Expr& b) {
  if (auto x = a.constant(), y = b.constant(); x && y) return Expr(detail::checked_mul(*x, *y));
  if (a.constant() == 1) return b;
  if (b.constant() == 1) return a;
  // Distribute: (sum of terms) * (sum of terms) is the sum of the pairwise products.
  std::vector<Term> terms;
  for (const auto& x : detail::terms_of(a))
    for (const auto& y : detail::terms_of(b)) terms.push_back(detail::mul_terms(x, y));
  return detail::make_sum(std::move(terms));
}

}  // namespace liftc::arith
