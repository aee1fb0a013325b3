// Symbolic bounds and the provability queries built on them.
//
// A bound is found by eliminating variables: while `e` mentions a variable v with a
// range, and `e` is monotone in v (increasing or decreasing, found structurally by
// mono()), v is replaced by the end of its range that makes `e` larger (upper bound) or
// smaller (lower bound). Ranges may be symbolic (i in [0, n-1]); variables whose range
// mentions other variables are eliminated first, so n - i - 1 has lower bound
// n - (n-1) - 1 = 0 rather than losing the link between i and n. When no variable can be
// eliminated, an atom that occurs once and linearly (c * (x % y)) is replaced by its own
// structural bound (x % y in [0, y-1]); failing that, the bound of a sum is the sum of its
// terms' bounds.
//
// Assumptions: a variable without a declared minimum is >= 0; a variable without a
// declared maximum is unbounded above (an upper bound keeps it symbolically, so the upper
// bound of n - i is n). A division or modulo is bounded only when its divisor is
// provably >= 0 (so > 0 where defined): `37/(u - 4)` for a size u has no bound, since
// u - 4 may be negative. The result of lower_bound is therefore a constant; upper_bound may mention
// variables without a maximum. Queries that would nest deeper than kMaxDepth (a bound
// builds expressions whose simplification asks for more bounds) give up, answering
// "unknown": that guarantees termination.
//
// Bounds are memoized (memo.cpp), as are the `/` and `%` rules that ask for them.

#include <map>
#include <set>

#include "internal.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::arith {

namespace {

enum class Dir { Lo, Hi };
enum class Mono { None, Inc, Dec, Unknown };

Dir flip(Dir d) { return d == Dir::Lo ? Dir::Hi : Dir::Lo; }
Mono flip(Mono m) { return m == Mono::Inc ? Mono::Dec : (m == Mono::Dec ? Mono::Inc : m); }

Mono combine(Mono a, Mono b) {
  if (a == Mono::None) return b;
  if (b == Mono::None || a == b) return a;
  return Mono::Unknown;
}

constexpr int kMaxDepth = 6;     // nested bound queries
constexpr int kMaxSteps = 64;    // eliminations in one query (guards cyclic ranges)
thread_local int g_depth = 0;

struct DepthGuard {
  DepthGuard() { ++g_depth; }
  ~DepthGuard() { --g_depth; }
  bool exhausted() const { return g_depth > kMaxDepth; }
};

// How e changes when variable v grows, all else fixed.
Mono mono(const Expr& e, const std::string& v) {
  switch (e.kind()) {
    case Kind::Cst:
      return Mono::None;
    case Kind::Var:
      return e.name() == v ? Mono::Inc : Mono::None;
    case Kind::Sum:
    case Kind::Min:
    case Kind::Max: {
      Mono r = Mono::None;
      for (const auto& o : e.operands()) r = combine(r, mono(o, v));
      return r;
    }
    case Kind::Prod: {
      Mono r = Mono::None;
      std::int64_t coef = 1;
      int dependent = 0;
      for (const auto& o : e.operands()) {
        if (o.kind() == Kind::Cst) {
          coef = o.value();
        } else if (Mono m = mono(o, v); m != Mono::None) {
          r = combine(r, m);
          ++dependent;
        }
      }
      if (r == Mono::None || r == Mono::Unknown) return r;
      // The product moves with its factors when the other factors are non-negative (and,
      // with several dependent factors, those too).
      for (const auto& o : e.operands()) {
        if (o.kind() == Kind::Cst || (dependent == 1 && mono(o, v) != Mono::None)) continue;
        if (!provably_nonnegative(o)) return Mono::Unknown;
      }
      return coef < 0 ? flip(r) : r;
    }
    case Kind::Div: {
      // floor(x/y) for y > 0 grows with x; for x >= 0 too, it shrinks as y grows. A
      // divisor whose sign is not provable (n - 4) gives no direction.
      Mono mx = mono(e.operands()[0], v), my = mono(e.operands()[1], v);
      if (mx == Mono::None && my == Mono::None) return Mono::None;
      if (!provably_nonnegative(e.operands()[1])) return Mono::Unknown;
      if (my != Mono::None && !provably_nonnegative(e.operands()[0])) return Mono::Unknown;
      return combine(mx, flip(my));
    }
    case Kind::Mod: {
      bool depends = mono(e.operands()[0], v) != Mono::None || mono(e.operands()[1], v) != Mono::None;
      return depends ? Mono::Unknown : Mono::None;
    }
  }
  return Mono::Unknown;
}

void collect_vars(const Expr& e, std::map<std::string, Expr>& out) {
  if (e.kind() == Kind::Var) out.emplace(e.name(), e);
  for (const auto& o : e.operands()) collect_vars(o, out);
}

// Variables of e in the order they should be eliminated, paired with "inner": whether no
// other variable's range mentions them. Inner variables go first: eliminating them first
// keeps the correlation with the outer ones (i in [0, n-1] before n).
std::vector<std::pair<Expr, bool>> elimination_order(const Expr& e) {
  std::map<std::string, Expr> vars;
  collect_vars(e, vars);
  std::set<std::string> outer;
  for (const auto& [name, v] : vars) {
    for (const auto& end : {v.var_min(), v.var_max()})
      if (end)
        for (const auto& w : free_vars(*end))
          if (w != name) outer.insert(w);
  }
  std::vector<std::pair<Expr, bool>> order;
  for (const auto& [name, v] : vars)
    if (!outer.count(name)) order.emplace_back(v, true);
  for (const auto& [name, v] : vars)
    if (outer.count(name)) order.emplace_back(v, false);
  return order;
}

std::optional<Expr> range_end(const Expr& v, Dir d) {
  if (d == Dir::Lo) return v.var_min() ? *v.var_min() : Expr(0);  // default: >= 0
  return v.var_max();
}

int occurrences(const Expr& e, const Expr& atom) {
  if (e == atom) return 1;
  int n = 0;
  for (const auto& o : e.operands()) n += occurrences(o, atom);
  return n;
}

std::optional<Expr> bound(const Expr& e, Dir d);

// Structural bounds of one Div/Mod/Min/Max node from its operands' bounds: every element
// is a valid bound; several are given where no one of them is best in general (x % y is
// at most y - 1 and at most x), and the caller picks the one that eliminates most.
std::vector<Expr> atom_bounds(const Expr& a, Dir d) {
  const Expr& x = a.operands()[0];
  const Expr& y = a.operands()[1];
  std::vector<Expr> out;
  switch (a.kind()) {
    case Kind::Div: {
      // floor(x/y) for x >= 0, y > 0: at least lo(x)/hi(y) (0 without hi(y)), at most
      // hi(x)/lo(y) (hi(x)/1 without a positive lo(y)). Nothing when y's sign is unknown.
      if (!provably_nonnegative(y)) break;
      auto bx = bound(x, d);
      if (!bx || !provably_nonnegative(*bx)) break;
      auto by = bound(y, flip(d));
      bool usable = by && provably_positive(*by);
      if (d == Dir::Lo) out.push_back(usable ? *bx / *by : Expr(0));
      else out.push_back(*bx / (usable ? *by : Expr(1)));
      break;
    }
    case Kind::Mod:
      // x % y has the sign of y (floor semantics): [0, y - 1] only for y > 0.
      if (!provably_nonnegative(y)) break;
      if (d == Dir::Lo) {
        out.push_back(Expr(0));
      } else {
        if (auto by = bound(y, Dir::Hi)) out.push_back(*by - 1);
        if (provably_nonnegative(x))
          if (auto bx = bound(x, Dir::Hi)) out.push_back(*bx);
      }
      break;
    case Kind::Min:
    case Kind::Max: {
      auto bx = bound(x, d), by = bound(y, d);
      // Either side bounds min from above and max from below; the other way round both
      // sides are needed.
      bool either = (a.kind() == Kind::Min) == (d == Dir::Hi);
      if (either) {
        if (bx) out.push_back(*bx);
        if (by) out.push_back(*by);
      } else if (bx && by) {
        out.push_back(a.kind() == Kind::Min ? min(*bx, *by) : max(*bx, *by));
      }
      break;
    }
    default:
      break;
  }
  return out;
}

// One elimination step: a variable, else a linearly occurring atom. nullopt when stuck.
std::optional<Expr> eliminate_one(const Expr& e, Dir d) {
  // Inner variables with a constant range end first (j in [0, 3] before i in [0, n-1] in
  // i*j, which keeps the bound tight), then the others in elimination order.
  std::vector<std::pair<Expr, Expr>> candidates;  // variable, the end to substitute
  std::vector<bool> inner;
  for (const auto& [v, is_inner] : elimination_order(e)) {
    Mono m = mono(e, v.name());
    if (m == Mono::None || m == Mono::Unknown) continue;
    if (auto end = range_end(v, m == Mono::Inc ? d : flip(d))) {
      candidates.emplace_back(v, *end);
      inner.push_back(is_inner);
    }
  }
  // An outer variable (n, while i in [0, n-1] is still in e) is never substituted: that
  // would also rewrite i's range, pinning i to [0, lo(n)-1] instead of widening it.
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t k = 0; k < candidates.size(); ++k)
      if (inner[k] && (pass == 1 || candidates[k].second.kind() == Kind::Cst))
        return substitute(e, {{candidates[k].first.name(), candidates[k].second}});
  // An atom occurring once, linearly: replace it by the structural bound that leaves the
  // fewest variables (a constant if possible).
  std::vector<detail::Term> terms = detail::terms_of(e);
  for (const auto& t : terms) {
    if (t.atoms.size() != 1 || t.atoms[0].kind() == Kind::Var || occurrences(e, t.atoms[0]) != 1) continue;
    std::optional<Expr> best;
    std::size_t best_vars = 0;
    for (const auto& b : atom_bounds(t.atoms[0], t.coef > 0 ? d : flip(d))) {
      if (b == t.atoms[0]) continue;
      Expr next = e - detail::term_expr(t) + Expr(t.coef) * b;
      std::size_t nv = free_vars(next).size();
      if (!best || nv < best_vars) best = next, best_vars = nv;
    }
    if (best) return best;
  }
  return std::nullopt;
}

// Last resort once nothing can be eliminated from e as a whole: bound each term of a sum
// separately, or each factor of a product of non-negative factors.
std::optional<Expr> bound_by_parts(const Expr& e, Dir d) {
  std::vector<detail::Term> terms = detail::terms_of(e);
  if (terms.size() > 1) {
    Expr sum(0);
    for (const auto& t : terms) {
      auto b = bound(detail::term_expr(t), d);
      if (!b) return std::nullopt;
      sum = sum + *b;
    }
    return sum;
  }
  if (terms.size() != 1 || terms[0].atoms.size() < 2) return std::nullopt;
  const auto& t = terms[0];
  Dir fd = t.coef > 0 ? d : flip(d);
  Expr prod(t.coef);
  for (const auto& a : t.atoms) {
    if (!provably_nonnegative(a)) return std::nullopt;
    auto b = bound(a, fd);
    if (!b) return std::nullopt;
    if (fd == Dir::Lo && !provably_nonnegative(*b)) b = Expr(0);
    prod = prod * *b;
  }
  return prod;
}

// Whether a bound may be returned: it mentions only variables that have no end of range
// in that direction (a lower bound is a constant, since every variable has a minimum).
bool fully_eliminated(const Expr& b, Dir d) {
  if (d == Dir::Lo) return b.kind() == Kind::Cst;
  std::map<std::string, Expr> vars;
  collect_vars(b, vars);
  for (const auto& [name, v] : vars)
    if (v.var_max()) return false;
  return true;
}

std::optional<Expr> derive_bound(const Expr& e, Dir d);

std::optional<Expr> bound(const Expr& e, Dir d) {
  DepthGuard guard;
  if (guard.exhausted()) {
    detail::gave_up_at_depth_limit();
    return std::nullopt;
  }
  auto tag = d == Dir::Lo ? detail::Memoized::LowerBound : detail::Memoized::UpperBound;
  return detail::remember(tag, e, Expr(0), [&] { return derive_bound(e, d); });
}

// bound() without the memo.
std::optional<Expr> derive_bound(const Expr& e, Dir d) {
  try {
    Expr cur = e;
    for (int step = 0; step < kMaxSteps && cur.kind() != Kind::Cst; ++step) {
      auto next = eliminate_one(cur, d);
      if (!next || *next == cur) break;
      cur = *next;
    }
    if (fully_eliminated(cur, d)) return cur;
    auto parts = bound_by_parts(cur, d);
    if (parts && fully_eliminated(*parts, d)) return parts;
    return std::nullopt;
  } catch (const Error&) {
    return std::nullopt;  // an intermediate constant overflowed int64: no bound
  }
}

}  // namespace

std::optional<Expr> lower_bound(const Expr& e) { return bound(e, Dir::Lo); }
std::optional<Expr> upper_bound(const Expr& e) { return bound(e, Dir::Hi); }

bool provably_nonnegative(const Expr& e) {
  if (auto c = e.constant()) return *c >= 0;
  auto lb = lower_bound(e);
  return lb && lb->value() >= 0;
}

bool provably_positive(const Expr& e) {
  if (auto c = e.constant()) return *c > 0;
  auto lb = lower_bound(e);
  return lb && lb->value() > 0;
}

bool provably_less(const Expr& a, const Expr& b) {
  try {
    return provably_nonnegative(b - a - 1);
  } catch (const Error&) {
    return false;  // b - a - 1 overflows int64
  }
}

bool provably_divisible(const Expr& a, const Expr& b) {
  if (b.constant() == 0) return false;
  try {
    return (a % b).constant() == 0;
  } catch (const Error&) {
    return false;
  }
}

namespace detail {

int query_depth() { return g_depth; }

bool provably_in_range(const Expr& a, const Expr& b) { return provably_nonnegative(a) && provably_less(a, b); }

}  // namespace detail

}  // namespace liftc::arith
