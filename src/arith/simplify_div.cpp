// Floor division and modulo.
//
// Domain: a / b and a % b are meant for a >= 0 and b > 0 (array lengths, tile sizes,
// indices), but a divisor's sign is never assumed: the rules that hold only for b > 0
// (marked [b > 0]) fire when b is provably >= 0 (so > 0 wherever the division is
// defined); `37/(u - 4)` for a size u may divide by a negative number and is left alone. Constants fold
// with floor semantics (the remainder has the sign of the divisor), which agrees with C
// on that domain. A rule that leaves a quotient or remainder behind (q + r/b, r % b)
// fires only when r is a constant or provably non-negative, so the result stays in the
// domain and prints as C with the same value.
//
// Rules for a / b, in order:
//   c1 / c2 -> fold;  a / 1 -> a;  0 / b -> 0
//   (g*a) / (g*b) -> a / b          g the common content (gcd of the coefficients and the
//                                   atoms shared by every term; atoms must be >= 0)
//   (x / y) / b -> x / (y*b)        [b > 0] (floor(floor(r)/b) = floor(r/b) for any real r)
//   a / b -> 0                      when 0 <= a < b is provable
//   (g*q + r) / b -> q / (b/g)      [b > 0] g > 1 divides b's coefficient, 0 <= r < g provable (a
//                                   vector lane r within an aligned group of g: Lift's rule)
//   (q*b + r) / b -> q + r / b      q collects the terms that b divides; r >= 0 (or both constant)
// Rules for a % b:
//   c1 % c2 -> fold;  a % 1 -> 0;  0 % b -> 0;  b % b -> 0
//   (x % c) % b -> x % b            when b divides c
//   a % b -> a                      when 0 <= a < b is provable
//   (g*q + r) % b -> g*(q % (b/g)) + r   [b > 0] g, r as for /
//   (q*b + r) % b -> r % b          for a constant b every coefficient is reduced mod b;
//                                   r >= 0 (or both constant)

#include <numeric>

#include <fmt/format.h>

#include "internal.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::arith {

using detail::Term;

namespace {

[[noreturn]] void zero_divisor(const Expr& a, const char* op) {
  std::string lhs = a.kind() == Kind::Sum ? "(" + to_string(a) + ")" : to_string(a);
  throw Error(fmt::format("division by zero in size expression `{}{}0`", lhs, op));
}

// The content shared by every term: the gcd of the coefficients (positive) and the
// multiset of atoms that all terms contain.
Term content(const std::vector<Term>& terms) {
  Term g{0, terms.front().atoms};
  for (const auto& t : terms) {
    g.coef = std::gcd(g.coef, t.coef);  // std::gcd is non-negative
    std::vector<Expr> common;
    std::size_t j = 0;
    for (const auto& a : g.atoms) {
      while (j < t.atoms.size() && detail::compare(t.atoms[j], a) < 0) ++j;
      if (j < t.atoms.size() && detail::compare(t.atoms[j], a) == 0) {
        common.push_back(a);
        ++j;
      }
    }
    g.atoms = std::move(common);
  }
  return g;
}

std::vector<Term> divide_all(const std::vector<Term>& terms, const Term& g) {
  std::vector<Term> out;
  for (const auto& t : terms) {
    auto q = detail::divide_term(t, g);
    LIFTC_ASSERT(q.has_value(), "the content divides every term");
    out.push_back(std::move(*q));
  }
  return out;
}

// a = q*b + r: q collects the parts of a that b divides. With reduce_coefficients (used by
// %, constant b only) every coefficient is also reduced modulo b, e.g. 5*i -> 1*i mod 4.
// nullopt when nothing was extracted.
struct Split {
  Expr quotient;
  Expr rem;
};
std::optional<Split> split_multiples(const Expr& a, const Expr& b, bool reduce_coefficients) {
  std::vector<Term> tb = detail::terms_of(b);
  std::vector<Term> quotient, rem;
  if (tb.size() == 1) {
    const bool constant = tb[0].atoms.empty();
    for (const auto& t : detail::terms_of(a)) {
      if (auto q = detail::divide_term(t, tb[0])) {
        quotient.push_back(std::move(*q));
      } else if (constant && reduce_coefficients) {
        Term q{floor_div(t.coef, tb[0].coef), t.atoms};
        if (q.coef != 0) quotient.push_back(std::move(q));
        rem.push_back(Term{floor_mod(t.coef, tb[0].coef), t.atoms});
      } else {
        rem.push_back(t);
      }
    }
    if (quotient.empty()) return std::nullopt;
    return Split{detail::make_sum(std::move(quotient)), detail::make_sum(std::move(rem))};
  }
  // A sum divisor: divide by its leading term, then take the exact remainder a - q*b.
  for (const auto& t : detail::terms_of(a))
    if (auto q = detail::divide_term(t, tb[0])) quotient.push_back(std::move(*q));
  if (quotient.empty()) return std::nullopt;
  Expr q = detail::make_sum(std::move(quotient));
  return Split{q, a - q * b};
}

// a = g*q + r with g > 1 dividing the coefficient of the one-term divisor b and
// 0 <= r < g provable: the largest such g. Then a / b == q / (b/g) and
// a % b == g*(q % (b/g)) + r, since r never carries into the next multiple of g.
struct Aligned {
  std::int64_t g;
  Expr q, r;
};
std::optional<Aligned> split_aligned(const Expr& a, const Expr& b) {
  std::vector<Term> tb = detail::terms_of(b);
  if (tb.size() != 1 || tb[0].coef <= 1 || a.kind() != Kind::Sum) return std::nullopt;
  for (std::int64_t g = tb[0].coef; g > 1; --g) {
    if (tb[0].coef % g != 0) continue;
    std::vector<Term> q, r;
    for (const auto& t : detail::terms_of(a)) {
      if (t.coef % g == 0) q.push_back(Term{t.coef / g, t.atoms});
      else r.push_back(t);
    }
    if (q.empty() || r.empty()) continue;
    Expr rem = detail::make_sum(std::move(r));
    if (provably_nonnegative(rem) && provably_less(rem, Expr(g))) return Aligned{g, detail::make_sum(std::move(q)), rem};
  }
  return std::nullopt;
}

// Whether a divisor is positive: provably >= 0, so > 0 wherever the division is defined.
bool positive_divisor(const Expr& b) { return provably_nonnegative(b); }

// Whether r / b or r % b may be left behind: r >= 0 keeps it in the domain; a negative
// constant is fine only when b is a constant too, so that the result folds.
bool rem_ok(const Expr& r, const Expr& b) {
  return (r.kind() == Kind::Cst && b.kind() == Kind::Cst) || provably_nonnegative(r);
}

// The rules of a / b past the constant cases (memoized: they ask for bounds).
Expr divide(const Expr& a, const Expr& b) {
  std::vector<Term> ta = detail::terms_of(a), tb = detail::terms_of(b);
  std::vector<Term> all = ta;
  all.insert(all.end(), tb.begin(), tb.end());
  Term g = content(all);
  if (g.coef > 1 || !g.atoms.empty()) {
    // An atom that divides the (non-zero) divisor and is >= 0 is > 0, so cancelling it is
    // exact for floor division.
    bool positive = true;
    for (const auto& atom : g.atoms) positive = positive && provably_nonnegative(atom);
    if (!positive) g.atoms.clear();
    if (g.coef > 1 || !g.atoms.empty())
      return detail::make_sum(divide_all(ta, g)) / detail::make_sum(divide_all(tb, g));
  }

  // Nesting and aligned groups hold for a positive (outer) divisor only; one whose sign is
  // not known (n - 4 for a size n) may be negative, where floor division behaves otherwise.
  if (a.kind() == Kind::Div && positive_divisor(b)) return a.operands()[0] / (a.operands()[1] * b);
  if (detail::provably_in_range(a, b)) return Expr(0);
  if (auto s = split_aligned(a, b); s && positive_divisor(b) && provably_nonnegative(s->q))
    return s->q / (b / Expr(s->g));
  if (auto s = split_multiples(a, b, false); s && rem_ok(s->rem, b)) return s->quotient + s->rem / b;
  return detail::make_node(Kind::Div, {a, b});
}

// The rules of a % b past the constant cases (memoized: they ask for bounds).
Expr modulo(const Expr& a, const Expr& b) {
  if (a.kind() == Kind::Mod && provably_divisible(a.operands()[1], b)) return a.operands()[0] % b;
  if (detail::provably_in_range(a, b)) return a;
  if (auto s = split_aligned(a, b); s && positive_divisor(b) && provably_nonnegative(s->q))
    return Expr(s->g) * (s->q % (b / Expr(s->g))) + s->r;
  if (auto s = split_multiples(a, b, true); s && rem_ok(s->rem, b)) return s->rem % b;
  return detail::make_node(Kind::Mod, {a, b});
}

}  // namespace

Expr operator/(const Expr& a, const Expr& b) {
  if (b.constant() == 0) zero_divisor(a, "/");
  if (auto x = a.constant(), y = b.constant(); x && y) return Expr(floor_div(*x, *y));
  if (b.constant() == 1) return a;
  if (a.constant() == 0) return a;
  return *detail::remember(detail::Memoized::Div, a, b, [&] { return std::optional<Expr>(divide(a, b)); });
}

Expr operator%(const Expr& a, const Expr& b) {
  if (b.constant() == 0) zero_divisor(a, "%");
  if (auto x = a.constant(), y = b.constant(); x && y) return Expr(floor_mod(*x, *y));
  if (b.constant() == 1 || b.constant() == -1 || a.constant() == 0 || a == b) return Expr(0);
  return *detail::remember(detail::Memoized::Mod, a, b, [&] { return std::optional<Expr>(modulo(a, b)); });
}

}  // namespace liftc::arith
