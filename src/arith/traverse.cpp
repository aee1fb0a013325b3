// Walking expressions: transform (the one rebuilding traversal), substitute on top of it,
// evaluate with concrete values, and free_vars.

#include <set>

#include "internal.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::arith {

namespace {

// Rebuilds a node of `kind` from new operands through the simplifying constructors.
Expr rebuild(Kind kind, const std::vector<Expr>& ops) {
  switch (kind) {
    case Kind::Sum: {
      std::vector<detail::Term> terms;
      for (const auto& o : ops)
        for (auto& t : detail::terms_of(o)) terms.push_back(std::move(t));
      return detail::make_sum(std::move(terms));
    }
    case Kind::Prod: {
      Expr r(1);
      for (const auto& o : ops) r = r * o;
      return r;
    }
    case Kind::Div: return ops[0] / ops[1];
    case Kind::Mod: return ops[0] % ops[1];
    case Kind::Min: return min(ops[0], ops[1]);
    case Kind::Max: return max(ops[0], ops[1]);
    default: break;
  }
  LIFTC_ASSERT(false, "only operator nodes have operands to rebuild");
  return Expr();
}

std::optional<std::int64_t> eval(const Expr& e, const std::map<std::string, std::int64_t>& values) {
  switch (e.kind()) {
    case Kind::Cst:
      return e.value();
    case Kind::Var: {
      auto it = values.find(e.name());
      if (it == values.end()) return std::nullopt;
      return it->second;
    }
    default:
      break;
  }
  std::vector<std::int64_t> v;
  for (const auto& o : e.operands()) {
    auto x = eval(o, values);
    if (!x) return std::nullopt;
    v.push_back(*x);
  }
  std::int64_t r = 0;
  switch (e.kind()) {
    case Kind::Sum:
      for (auto x : v) r = detail::checked_add(r, x);
      return r;
    case Kind::Prod:
      r = 1;
      for (auto x : v) r = detail::checked_mul(r, x);
      return r;
    case Kind::Div:
      if (v[1] == 0) return std::nullopt;
      return floor_div(v[0], v[1]);
    case Kind::Mod:
      if (v[1] == 0) return std::nullopt;
      return floor_mod(v[0], v[1]);
    case Kind::Min:
      return std::min(v[0], v[1]);
    case Kind::Max:
      return std::max(v[0], v[1]);
    default:
      return std::nullopt;
  }
}

void collect_names(const Expr& e, std::set<std::string>& out) {
  if (e.kind() == Kind::Var) out.insert(e.name());
  for (const auto& o : e.operands()) collect_names(o, out);
}

}  // namespace

Expr transform(const Expr& e, const std::function<std::optional<Expr>(const Expr&)>& f) {
  Expr cur = e;
  if (!e.operands().empty()) {
    std::vector<Expr> ops;
    bool changed = false;
    for (const auto& o : e.operands()) {
      ops.push_back(transform(o, f));
      changed = changed || ops.back().node() != o.node();
    }
    if (changed) cur = rebuild(e.kind(), ops);  // unchanged operands: keep the same node
  }
  if (auto r = f(cur)) return *r;
  return cur;
}

Expr substitute(const Expr& e, const std::map<std::string, Expr>& bindings) {
  if (bindings.empty()) return e;
  return transform(e, [&](const Expr& x) -> std::optional<Expr> {
    if (x.kind() != Kind::Var) return std::nullopt;
    if (auto it = bindings.find(x.name()); it != bindings.end()) return it->second;
    // A variable that stays keeps a range consistent with the substitution
    // (i in [0, n-1] with n := 8 becomes i in [0, 7]).
    std::optional<Expr> lo = x.var_min(), hi = x.var_max();
    if (lo) lo = substitute(*lo, bindings);
    if (hi) hi = substitute(*hi, bindings);
    bool same = (!lo || lo->node() == x.var_min()->node()) && (!hi || hi->node() == x.var_max()->node());
    if (same) return std::nullopt;
    return var(x.name(), lo, hi);
  });
}

std::optional<std::int64_t> evaluate(const Expr& e, const std::map<std::string, std::int64_t>& values) {
  try {
    return eval(e, values);
  } catch (const Error&) {
    return std::nullopt;  // int64 overflow
  }
}

std::vector<std::string> free_vars(const Expr& e) {
  std::set<std::string> names;
  collect_names(e, names);
  return {names.begin(), names.end()};
}

}  // namespace liftc::arith
