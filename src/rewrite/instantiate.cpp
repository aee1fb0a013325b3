// Building a rule's right side from a match: capture-avoiding, eta-expanding partial
// applications, beta-reducing applications of function variables.

#include <algorithm>
#include <cctype>

#include "liftc/rewrite/match.hpp"

namespace liftc::rewrite {

namespace {

class Builder {
 public:
  Builder(const Match& m, std::map<std::string, arith::Expr> sizes, SourceLoc loc)
      : m_(m), sizes_(std::move(sizes)), loc_(std::move(loc)) {
    // Binders the right side introduces must not capture the free variables of what the
    // match bound.
    for (const auto* group : {&m.exprs, &m.functions})
      for (const auto& [name, e] : *group) {
        auto fv = ir::free_vars(e);
        avoid_.insert(avoid_.end(), fv.begin(), fv.end());
      }
  }

  ir::Expr data(const Pattern& p) {
    switch (p.kind) {
      case PatternKind::Var:
        if (p.bound) return ir::make_var(renamed(p.name), loc_);
        return m_.exprs.at(p.name);
      case PatternKind::Apply: {
        std::vector<ir::Expr> args;
        for (const auto& a : p.args) args.push_back(data(a));
        return ir::make_apply(m_.functions.at(p.name), std::move(args), loc_);
      }
      case PatternKind::Call: {
        const auto& sig = ir::signature(p.prim);
        std::vector<ir::Expr> args;
        for (std::size_t i = 0; i < p.args.size(); ++i) {
          int fun = sig.variadic ? 0 : sig.operands[i];
          args.push_back(fun > 0 ? function(p.args[i], fun) : data(p.args[i]));
        }
        return ir::make_call(p.prim, sizes(p.sizes), std::move(args), loc_);
      }
      case PatternKind::Tuple: {
        std::vector<ir::Expr> elems;
        for (const auto& a : p.args) elems.push_back(data(a));
        return ir::make_tuple(std::move(elems), loc_);
      }
      case PatternKind::Get: return ir::make_get(data(p.args[0]), p.index, loc_);
      case PatternKind::Literal:
        return p.literal.kind == ir::ScalarKind::Float ? ir::make_float(p.literal.f, loc_) : ir::make_int(p.literal.i, loc_);
      case PatternKind::Let: {
        ir::Expr value = data(p.args[0]);
        std::string name = bind(p.name);
        ir::Expr body = data(p.args[1]);
        unbind();
        return ir::make_let(name, value, body, loc_);
      }
      case PatternKind::Lambda: break;
    }
    LIFTC_ASSERT(false, "lambdas only occur in function positions (checked when the rule was loaded)");
    return {};
  }

 private:
  ir::Expr function(const Pattern& p, int arity) {
    if (p.kind == PatternKind::Var) return m_.functions.at(p.name);
    if (p.kind == PatternKind::Lambda) {
      std::vector<std::string> params;
      for (const auto& n : p.params) params.push_back(bind(n));
      ir::Expr body = data(p.args[0]);
      for (std::size_t i = 0; i < p.params.size(); ++i) unbind();
      return ir::make_lambda(params, body, loc_);
    }
    LIFTC_ASSERT(p.kind == PatternKind::Call, "function positions hold variables, lambdas or partial calls");
    // Eta-expand: the missing trailing data operands become the lambda's parameters.
    const auto& sig = ir::signature(p.prim);
    std::vector<ir::Expr> args;
    for (std::size_t i = 0; i < p.args.size(); ++i) {
      int fun = sig.operands[i];
      args.push_back(fun > 0 ? function(p.args[i], fun) : data(p.args[i]));
    }
    std::vector<std::string> params;
    for (int i = 0; i < arity; ++i) {
      params.push_back(fresh("y"));
      args.push_back(ir::make_var(params.back(), loc_));
    }
    return ir::make_lambda(params, ir::make_call(p.prim, sizes(p.sizes), std::move(args), loc_), loc_);
  }

  std::vector<arith::Expr> sizes(const std::vector<arith::Expr>& ps) const {
    std::vector<arith::Expr> out;
    for (const auto& s : ps) out.push_back(arith::substitute(s, sizes_));
    return out;
  }

  std::string fresh(const std::string& base) {
    std::string n = ir::fresh_name(base, avoid_);
    avoid_.push_back(n);
    return n;
  }

  std::string bind(const std::string& pattern_name) {
    std::string n = fresh(pattern_name);
    renames_.emplace_back(pattern_name, n);
    return n;
  }
  void unbind() { renames_.pop_back(); }

  std::string renamed(const std::string& pattern_name) const {
    for (auto it = renames_.rbegin(); it != renames_.rend(); ++it)
      if (it->first == pattern_name) return it->second;
    LIFTC_ASSERT(false, "bound pattern variables are in scope (checked when the rule was loaded)");
    return {};
  }

  const Match& m_;
  std::map<std::string, arith::Expr> sizes_;
  SourceLoc loc_;
  std::vector<std::string> avoid_;
  std::vector<std::pair<std::string, std::string>> renames_;
};

// The expression variable the left side reaches by following the last data operand of
// each call from the root (`x` in map(f, x), slide(k, s, x), map(f, slide(k, s, x))), and
// how many joins it passed: through `join(x)` a rule acts on the arrays x joins (the
// channels, in `zip(join(join(window)), join(join(w)))`).
std::pair<const Pattern*, int> acted_on(const Pattern& p) {
  if (p.kind == PatternKind::Var) return {p.bound ? nullptr : &p, 0};
  if (p.kind != PatternKind::Call) return {nullptr, 0};
  const auto& sig = ir::signature(p.prim);
  for (std::size_t i = p.args.size(); i-- > 0;)
    if (sig.variadic || sig.operands[i] == 0) {
      auto [x, joins] = acted_on(p.args[i]);
      return {x, joins + (p.prim == ir::Prim::Join ? 1 : 0)};
    }
  return {nullptr, 0};
}

// Fresh tuning parameters are named `base_k` (FreshNames); they are not program sizes.
bool is_fresh_parameter(const std::string& name) {
  auto u = name.rfind('_');
  return u != std::string::npos && u + 1 < name.size() &&
         std::all_of(name.begin() + static_cast<long>(u) + 1, name.end(), [](char c) { return std::isdigit(c); });
}

}  // namespace

std::string tuning_param_name(const Rule& rule, const RuleParam& p, const Match& m) {
  auto [x, joins] = acted_on(rule.lhs);
  if (!x) return p.name;
  auto it = m.exprs.find(x->name);
  if (it == m.exprs.end() || !it->second.type().defined() || !it->second.type().is_array()) return p.name;
  ir::Type reached = it->second.type();
  for (int j = 0; j < joins && reached.elem().is_array(); ++j) reached = reached.elem();
  std::vector<std::string> sizes;
  for (const auto& v : arith::free_vars(reached.length()))
    if (!is_fresh_parameter(v) && v.find('(') == std::string::npos) sizes.push_back(v);
  if (sizes.empty()) return p.name;
  bool letters = std::all_of(sizes.begin(), sizes.end(), [](const std::string& v) { return v.size() == 1; });
  std::string place;
  for (const auto& v : sizes) place += (place.empty() || letters ? "" : "_") + v;
  return p.name + "_" + place;
}

namespace {

// `(a, b).i` as its element i, everywhere in `e`: what beta-reducing a function variable
// applied to a tuple built on the right side leaves (`map(p -> g(p), zip(x, y)) =>
// map((u, v) -> g((u, v)), zip(x, y))`, g reading `p.0` and `p.1`). The language has no
// side effects, so the other elements are dropped.
ir::Expr fold_tuple_projections(const ir::Expr& e) {
  std::vector<ir::Expr> args;
  args.reserve(e->args.size());
  for (const auto& a : e->args) args.push_back(fold_tuple_projections(a));
  ir::Expr r = ir::with_args(e, std::move(args));
  if (r.kind() != ir::ExprKind::Get) return r;
  const ir::Expr& tuple = ir::get_tuple(r);
  if (tuple.kind() != ir::ExprKind::Tuple || r->index < 0 || r->index >= static_cast<int>(tuple->args.size())) return r;
  return tuple->args[static_cast<std::size_t>(r->index)];
}

}  // namespace

ir::Expr instantiate(const Rule& rule, const Match& m, const std::map<std::string, arith::Expr>& params) {
  std::map<std::string, arith::Expr> sizes = matched_sizes(m);
  for (const auto& [k, v] : params) sizes[k] = v;
  SourceLoc loc;
  for (const auto* group : {&m.exprs, &m.functions})
    for (const auto& [name, e] : *group)
      if (!loc.known() && e.loc().known()) loc = e.loc();
  Builder b(m, std::move(sizes), loc);
  return fold_tuple_projections(ir::beta_reduce(b.data(rule.rhs)));
}

}  // namespace liftc::rewrite
