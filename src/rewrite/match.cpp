// Matching a left side against a typed IR expression (binding-aware; see match.hpp).

#include <algorithm>
#include <optional>

#include "liftc/rewrite/match.hpp"

namespace liftc::rewrite {

namespace {

class Matcher {
 public:
  Match m;

  bool data(const Pattern& p, const ir::Expr& e) {
    switch (p.kind) {
      case PatternKind::Var:
        if (p.bound) return e.kind() == ir::ExprKind::Var && e->name == actual(p.name);
        return bind(m.exprs, p.name, e);
      case PatternKind::Apply: return higher_order(p, e);
      case PatternKind::Call: {
        if (e.kind() != ir::ExprKind::Call || e->prim != p.prim || e->args.size() != p.args.size()) return false;
        if (!sizes(p.sizes, e->sizes)) return false;
        const auto& sig = ir::signature(p.prim);
        for (std::size_t i = 0; i < p.args.size(); ++i) {
          int fun = sig.variadic ? 0 : sig.operands[i];
          if (!(fun > 0 ? function(p.args[i], e->args[i], fun) : data(p.args[i], e->args[i]))) return false;
        }
        return true;
      }
      case PatternKind::Tuple:
        if (e.kind() != ir::ExprKind::Tuple || e->args.size() != p.args.size()) return false;
        for (std::size_t i = 0; i < p.args.size(); ++i)
          if (!data(p.args[i], e->args[i])) return false;
        return true;
      case PatternKind::Get:
        return e.kind() == ir::ExprKind::Get && e->index == p.index && data(p.args[0], ir::get_tuple(e));
      case PatternKind::Literal:
        if (e.kind() != ir::ExprKind::Literal || e->literal.kind != p.literal.kind) return false;
        return p.literal.kind == ir::ScalarKind::Float ? e->literal.f == p.literal.f : e->literal.i == p.literal.i;
      case PatternKind::Let: {
        if (e.kind() != ir::ExprKind::Let || !data(p.args[0], ir::let_value(e))) return false;
        bound_.emplace_back(p.name, e->name);
        bool ok = data(p.args[1], ir::let_body(e));
        bound_.pop_back();
        return ok;
      }
      case PatternKind::Lambda: return false;
    }
    return false;
  }

 private:
  // A function operand: a function variable, a lambda, or an eta-expanded partial call.
  bool function(const Pattern& p, const ir::Expr& e, int arity) {
    if (e.kind() != ir::ExprKind::Lambda) return false;
    if (p.kind == PatternKind::Var) return bind(m.functions, p.name, e);
    if (p.kind == PatternKind::Lambda) {
      if (p.params.size() != e->params.size()) return false;
      for (std::size_t i = 0; i < p.params.size(); ++i) bound_.emplace_back(p.params[i], e->params[i]);
      bool ok = data(p.args[0], ir::lambda_body(e));
      bound_.resize(bound_.size() - p.params.size());
      return ok;
    }
    // Partial application `prim(sizes, a, ...)`: e is `(q1..qk) -> prim(sizes, a', ..., q1..qk)`.
    const ir::Expr& body = ir::lambda_body(e);
    std::size_t k = e->params.size();
    if (p.kind != PatternKind::Call || static_cast<int>(k) != arity || body.kind() != ir::ExprKind::Call ||
        body->prim != p.prim || body->args.size() != p.args.size() + k)
      return false;
    for (std::size_t i = 0; i < k; ++i) {
      const ir::Expr& a = body->args[p.args.size() + i];
      if (a.kind() != ir::ExprKind::Var || a->name != e->params[i]) return false;
    }
    std::vector<ir::Expr> leading(body->args.begin(), body->args.begin() + static_cast<long>(p.args.size()));
    for (const auto& a : leading) {
      auto fv = ir::free_vars(a);
      for (const auto& q : e->params)
        if (std::find(fv.begin(), fv.end(), q) != fv.end()) return false;
    }
    if (!sizes(p.sizes, body->sizes)) return false;
    const auto& sig = ir::signature(p.prim);
    for (std::size_t i = 0; i < p.args.size(); ++i) {
      int fun = sig.operands[i];
      if (!(fun > 0 ? function(p.args[i], leading[i], fun) : data(p.args[i], leading[i]))) return false;
    }
    return true;
  }

  // `g(e1, ...)` on the left: g becomes the lambda `(e1', ...) -> e`.
  bool higher_order(const Pattern& p, const ir::Expr& e) {
    if (p.args.size() == 1 && !(p.args[0].kind == PatternKind::Var && p.args[0].bound)) return abstraction(p, e);
    std::vector<std::string> params;
    for (const auto& a : p.args) params.push_back(actual(a.name));
    for (std::size_t i = 0; i < params.size(); ++i)
      for (std::size_t j = i + 1; j < params.size(); ++j)
        if (params[i] == params[j]) return false;
    auto fv = ir::free_vars(e);
    for (const auto& [pattern_name, name] : bound_)
      if (std::find(params.begin(), params.end(), name) == params.end() &&
          std::find(fv.begin(), fv.end(), name) != fv.end())
        return false;
    ir::Expr lambda = ir::make_lambda(params, e, e.loc());
    auto it = m.functions.find(p.name);
    if (it != m.functions.end()) return ir::alpha_equal(it->second, lambda);
    m.functions.emplace(p.name, lambda);
    return true;
  }

  // `g(t)` on the left, t an expression over enclosing pattern lambdas' parameters (`s + b`):
  // the first subexpression of e, pre-order, that t matches binds t's variables; it and every
  // subexpression alpha-equal to it become g's parameter, and g is `y -> e` with them replaced.
  // The lambdas' parameters may occur in e only inside those (they would escape g), and a
  // subexpression is taken only where e binds none of its free names (a capture).
  bool abstraction(const Pattern& p, const ir::Expr& e) {
    std::optional<ir::Expr> instance;
    find_instance(p.args[0], e, {}, instance);
    if (!instance) return false;
    std::vector<std::string> avoid = names_in(e);
    for (const auto& b : bound_) avoid.push_back(b.second);
    const std::string y = ir::fresh_name("y", avoid);
    const std::vector<std::string> captured = ir::free_vars(*instance);
    ir::Expr body = replace_instances(e, *instance, captured, ir::make_var(y, e.loc()), {});
    auto fv = ir::free_vars(body);
    for (const auto& b : bound_)
      if (std::find(fv.begin(), fv.end(), b.second) != fv.end()) return false;
    ir::Expr lambda = ir::make_lambda({y}, body, e.loc());
    auto it = m.functions.find(p.name);
    if (it != m.functions.end()) return ir::alpha_equal(it->second, lambda);
    m.functions.emplace(p.name, lambda);
    return true;
  }

  // Pre-order: the first subexpression of e that t matches with none of its free names bound
  // inside the expression abstracted over (`inner`); its bindings are kept.
  void find_instance(const Pattern& t, const ir::Expr& e, const std::vector<std::string>& inner,
                     std::optional<ir::Expr>& found) {
    if (found) return;
    const bool same_head = t.kind != PatternKind::Call || (e.kind() == ir::ExprKind::Call && e->prim == t.prim);
    if (same_head && !captures(inner, e)) {
      Matcher trial = *this;
      if (trial.data(t, e)) {
        *this = std::move(trial);
        found = e;
        return;
      }
    }
    for_children(e, inner, [&](const ir::Expr& child, const std::vector<std::string>& names) {
      find_instance(t, child, names, found);
    });
  }

  // e with every subexpression alpha-equal to `instance` that no binder inside e captures
  // (one of `free`, the instance's free names) replaced by `y`.
  static ir::Expr replace_instances(const ir::Expr& e, const ir::Expr& instance, const std::vector<std::string>& free,
                                    const ir::Expr& y, const std::vector<std::string>& inner) {
    const bool shadowed =
        std::any_of(free.begin(), free.end(), [&](const std::string& n) { return contains(inner, n); });
    if (shadowed) return e;
    if (ir::alpha_equal(e, instance)) return y;
    std::vector<ir::Expr> args;
    for_children(e, inner, [&](const ir::Expr& child, const std::vector<std::string>& names) {
      args.push_back(replace_instances(child, instance, free, y, names));
    });
    return ir::with_args(e, std::move(args));
  }

  // Calls visit(child, names bound around it inside the expression walked) for each child of
  // e in order: a lambda binds its parameters in its body, a let its name in its body.
  template <typename Visit>
  static void for_children(const ir::Expr& e, const std::vector<std::string>& inner, Visit&& visit) {
    for (std::size_t i = 0; i < e->args.size(); ++i) {
      std::vector<std::string> names = inner;
      if (e.kind() == ir::ExprKind::Lambda) names.insert(names.end(), e->params.begin(), e->params.end());
      if (e.kind() == ir::ExprKind::Let && i == 1) names.push_back(e->name);
      visit(e->args[i], names);
    }
  }

  static bool contains(const std::vector<std::string>& names, const std::string& n) {
    return std::find(names.begin(), names.end(), n) != names.end();
  }

  // Whether a binder inside the expression walked (`inner`) binds a free name of e.
  static bool captures(const std::vector<std::string>& inner, const ir::Expr& e) {
    if (inner.empty()) return false;
    auto fv = ir::free_vars(e);
    return std::any_of(fv.begin(), fv.end(), [&](const std::string& n) { return contains(inner, n); });
  }

  // Every name e uses or binds (a fresh parameter avoids them all).
  static std::vector<std::string> names_in(const ir::Expr& e) {
    std::vector<std::string> out;
    if (e.kind() == ir::ExprKind::Var || e.kind() == ir::ExprKind::Let) out.push_back(e->name);
    if (e.kind() == ir::ExprKind::Lambda) out.insert(out.end(), e->params.begin(), e->params.end());
    for (const auto& a : e->args) {
      auto inner = names_in(a);
      out.insert(out.end(), inner.begin(), inner.end());
    }
    return out;
  }

  bool sizes(const std::vector<arith::Expr>& ps, const std::vector<arith::Expr>& es) {
    if (ps.size() != es.size()) return false;
    for (std::size_t i = 0; i < ps.size(); ++i) {
      if (ps[i].kind() == arith::Kind::Var) {
        auto [it, inserted] = m.sizes.emplace(ps[i].name(), es[i]);
        if (!inserted && it->second != es[i]) return false;
      } else if (ps[i] != es[i]) {
        return false;
      }
    }
    return true;
  }

  // Binds a rule variable; a second occurrence must be alpha-equal. The expression may not
  // mention variables bound by the enclosing pattern lambdas (they would escape).
  bool bind(std::map<std::string, ir::Expr>& where, const std::string& name, const ir::Expr& e) {
    if (!bound_.empty()) {
      auto fv = ir::free_vars(e);
      for (const auto& b : bound_)
        if (std::find(fv.begin(), fv.end(), b.second) != fv.end()) return false;
    }
    auto [it, inserted] = where.emplace(name, e);
    return inserted || ir::alpha_equal(it->second, e);
  }

  std::string actual(const std::string& pattern_name) const {
    for (auto it = bound_.rbegin(); it != bound_.rend(); ++it)
      if (it->first == pattern_name) return it->second;
    LIFTC_ASSERT(false, "bound pattern variables are in scope (checked when the rule was loaded)");
    return {};
  }

  std::vector<std::pair<std::string, std::string>> bound_;  // pattern binder -> the IR's name
};

}  // namespace

std::optional<Match> match_pattern(const Pattern& lhs, const ir::Expr& e) {
  Matcher matcher;
  if (!matcher.data(lhs, e)) return std::nullopt;
  return std::move(matcher.m);
}

std::map<std::string, arith::Expr> matched_sizes(const Match& m) {
  std::map<std::string, arith::Expr> sizes = m.sizes;
  for (const auto& [name, e] : m.exprs) {
    int depth = 0;
    for (ir::Type t = e.type(); t.defined() && t.is_array(); t = t.elem())
      sizes.emplace(parse::length_variable(name, depth++), t.length());
  }
  return sizes;
}

}  // namespace liftc::rewrite
