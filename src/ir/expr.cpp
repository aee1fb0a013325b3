#include "liftc/ir/expr.hpp"

#include <algorithm>
#include <functional>
#include <set>

#include <fmt/format.h>

namespace liftc::ir {

namespace {

Expr make(ExprNode n) { return Expr(std::make_shared<const ExprNode>(std::move(n))); }

ExprNode base(ExprKind k, SourceLoc loc) {
  ExprNode n;
  n.kind = k;
  n.loc = std::move(loc);
  return n;
}

}  // namespace

ExprKind Expr::kind() const { return node_->kind; }
const Type& Expr::type() const { return node_->type; }
const SourceLoc& Expr::loc() const { return node_->loc; }

Expr make_var(const std::string& name, SourceLoc loc) {
  LIFTC_ASSERT(!name.empty(), "variables have names");
  ExprNode n = base(ExprKind::Var, std::move(loc));
  n.name = name;
  return make(std::move(n));
}

Expr make_float(double v, SourceLoc loc) {
  ExprNode n = base(ExprKind::Literal, std::move(loc));
  n.literal.kind = ScalarKind::Float;
  n.literal.f = v;
  return make(std::move(n));
}

Expr make_int(long long v, SourceLoc loc) {
  ExprNode n = base(ExprKind::Literal, std::move(loc));
  n.literal.kind = ScalarKind::Int;
  n.literal.i = v;
  return make(std::move(n));
}

Expr make_lambda(std::vector<std::string> params, Expr body, SourceLoc loc) {
  LIFTC_ASSERT(!params.empty(), "lambdas have at least one parameter");
  LIFTC_ASSERT(body.defined(), "lambdas have a body");
  ExprNode n = base(ExprKind::Lambda, std::move(loc));
  n.params = std::move(params);
  n.args = {std::move(body)};
  return make(std::move(n));
}

Expr make_apply(Expr callee, std::vector<Expr> args, SourceLoc loc) {
  LIFTC_ASSERT(callee.defined() && callee.kind() == ExprKind::Lambda, "only lambdas are applied");
  ExprNode n = base(ExprKind::Apply, std::move(loc));
  n.args.push_back(std::move(callee));
  for (auto& a : args) n.args.push_back(std::move(a));
  return make(std::move(n));
}

Expr make_call(Prim p, std::vector<arith::Expr> sizes, std::vector<Expr> args, SourceLoc loc) {
  const PrimSignature& sig = signature(p);
  LIFTC_ASSERT(static_cast<int>(sizes.size()) == sig.num_sizes,
               fmt::format("{} takes {} size arguments", sig.name, sig.num_sizes));
  if (sig.variadic) {
    LIFTC_ASSERT(args.size() >= 2, fmt::format("{} takes at least two operands", sig.name));
  } else {
    LIFTC_ASSERT(args.size() == sig.operands.size(), fmt::format("{} takes {} operands", sig.name, sig.operands.size()));
    for (std::size_t i = 0; i < args.size(); ++i)
      LIFTC_ASSERT((sig.operands[i] > 0) == (args[i].kind() == ExprKind::Lambda),
                   fmt::format("operand {} of {} must {}be a function", i, sig.name, sig.operands[i] > 0 ? "" : "not "));
  }
  ExprNode n = base(ExprKind::Call, std::move(loc));
  n.prim = p;
  n.sizes = std::move(sizes);
  n.args = std::move(args);
  return make(std::move(n));
}

Expr make_tuple(std::vector<Expr> elems, SourceLoc loc) {
  LIFTC_ASSERT(elems.size() >= 2, "tuples have at least two components");
  ExprNode n = base(ExprKind::Tuple, std::move(loc));
  n.args = std::move(elems);
  return make(std::move(n));
}

Expr make_get(Expr tuple, int index, SourceLoc loc) {
  LIFTC_ASSERT(index >= 0, "tuple components are numbered from 0");
  ExprNode n = base(ExprKind::Get, std::move(loc));
  n.args = {std::move(tuple)};
  n.index = index;
  return make(std::move(n));
}

Expr make_let(const std::string& name, Expr value, Expr body, SourceLoc loc) {
  ExprNode n = base(ExprKind::Let, std::move(loc));
  n.name = name;
  n.args = {std::move(value), std::move(body)};
  return make(std::move(n));
}

Expr with_type(const Expr& e, Type t) {
  ExprNode n = *e;
  n.type = std::move(t);
  return make(std::move(n));
}

Expr with_lambda_types(const Expr& lambda, std::vector<Type> param_types) {
  LIFTC_ASSERT(lambda.kind() == ExprKind::Lambda, "with_lambda_types on a lambda");
  ExprNode n = *lambda;
  n.param_types = std::move(param_types);
  return make(std::move(n));
}

Expr with_args(const Expr& e, std::vector<Expr> args) {
  LIFTC_ASSERT(args.size() == e->args.size(), "with_args keeps the number of children");
  bool same = true;
  for (std::size_t i = 0; i < args.size(); ++i) same = same && same_node(args[i], e->args[i]);
  if (same) return e;
  ExprNode n = *e;
  n.args = std::move(args);
  return make(std::move(n));
}

Expr replace_node(const Expr& e, const Expr& from, const Expr& to) {
  if (same_node(e, from)) return to;
  std::vector<Expr> args;
  bool changed = false;
  for (const auto& a : e->args) {
    args.push_back(replace_node(a, from, to));
    changed = changed || !same_node(args.back(), a);
  }
  return changed ? with_args(e, std::move(args)) : e;
}

Expr map2d_function(const Expr& e) {
  auto call = [](const Expr& x, Prim p) { return x.defined() && x.kind() == ExprKind::Call && x->prim == p; };
  auto lambda1 = [](const Expr& x) { return x.defined() && x.kind() == ExprKind::Lambda && x->params.size() == 1; };
  if (!call(e, Prim::Map) || !lambda1(e->args[0])) return {};
  const Expr& rows = e->args[0];
  const Expr& row_map = rows->args[0];
  if (!call(row_map, Prim::Map) || !lambda1(row_map->args[0])) return {};
  const Expr& row = row_map->args[1];
  if (row.kind() != ExprKind::Var || row->name != rows->params[0]) return {};
  return row_map->args[0];
}

// ---- Binding-aware utilities ---------------------------------------------------------

namespace {

// The names a node binds for its child `i` (lambda params for the body, a let's name for
// its body; none elsewhere).
std::vector<std::string> bound_in_child(const Expr& e, std::size_t i) {
  if (e.kind() == ExprKind::Lambda) return e->params;
  if (e.kind() == ExprKind::Let && i == 1) return {e->name};
  return {};
}

void collect_free(const Expr& e, std::vector<std::string>& bound, std::set<std::string>& out) {
  if (e.kind() == ExprKind::Var) {
    if (std::find(bound.begin(), bound.end(), e->name) == bound.end()) out.insert(e->name);
    return;
  }
  for (std::size_t i = 0; i < e->args.size(); ++i) {
    auto names = bound_in_child(e, i);
    bound.insert(bound.end(), names.begin(), names.end());
    collect_free(e->args[i], bound, out);
    bound.resize(bound.size() - names.size());
  }
}

bool alpha_eq(const Expr& a, const Expr& b, std::vector<std::pair<std::string, std::string>>& renames) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case ExprKind::Var: {
      for (auto it = renames.rbegin(); it != renames.rend(); ++it) {
        if (it->first == a->name || it->second == b->name) return it->first == a->name && it->second == b->name;
      }
      return a->name == b->name;
    }
    case ExprKind::Literal:
      if (a->literal.kind != b->literal.kind) return false;
      return a->literal.kind == ScalarKind::Float ? a->literal.f == b->literal.f : a->literal.i == b->literal.i;
    case ExprKind::Call:
      if (a->prim != b->prim || a->sizes != b->sizes) return false;
      break;
    case ExprKind::Get:
      if (a->index != b->index) return false;
      break;
    case ExprKind::Lambda:
      if (a->params.size() != b->params.size()) return false;
      break;
    default:
      break;
  }
  if (a->args.size() != b->args.size()) return false;
  for (std::size_t i = 0; i < a->args.size(); ++i) {
    auto na = bound_in_child(a, i);
    auto nb = bound_in_child(b, i);
    for (std::size_t k = 0; k < na.size(); ++k) renames.emplace_back(na[k], nb[k]);
    bool eq = alpha_eq(a->args[i], b->args[i], renames);
    renames.resize(renames.size() - na.size());
    if (!eq) return false;
  }
  return true;
}

}  // namespace

bool alpha_equal(const Expr& a, const Expr& b) {
  std::vector<std::pair<std::string, std::string>> renames;
  return alpha_eq(a, b, renames);
}

std::vector<std::string> free_vars(const Expr& e) {
  std::vector<std::string> bound;
  std::set<std::string> out;
  collect_free(e, bound, out);
  return {out.begin(), out.end()};
}

namespace {

// Occurrences of the free variable `name` in `e`: outside lambdas, and inside them.
void count_uses(const Expr& e, const std::string& name, bool in_lambda, int& outside, int& inside) {
  if (e.kind() == ExprKind::Var) {
    if (e->name == name) ++(in_lambda ? inside : outside);
    return;
  }
  for (std::size_t i = 0; i < e->args.size(); ++i) {
    auto names = bound_in_child(e, i);
    if (std::find(names.begin(), names.end(), name) != names.end()) continue;  // shadowed there
    count_uses(e->args[i], name, in_lambda || e.kind() == ExprKind::Lambda, outside, inside);
  }
}

}  // namespace

bool used_once_outside_lambdas(const Expr& e, const std::string& name) {
  int outside = 0, inside = 0;
  count_uses(e, name, false, outside, inside);
  return outside == 1 && inside == 0;
}

std::string fresh_name(const std::string& base_name, const std::vector<std::string>& avoid) {
  auto taken = [&](const std::string& n) { return std::find(avoid.begin(), avoid.end(), n) != avoid.end(); };
  if (!taken(base_name)) return base_name;
  // Strip an existing numeric suffix so renaming x_1 gives x_2, not x_1_1.
  std::string stem = base_name;
  auto us = stem.rfind('_');
  if (us != std::string::npos && us + 1 < stem.size() &&
      std::all_of(stem.begin() + static_cast<long>(us) + 1, stem.end(), ::isdigit))
    stem = stem.substr(0, us);
  for (int i = 1;; ++i) {
    std::string candidate = fmt::format("{}_{}", stem, i);
    if (!taken(candidate)) return candidate;
  }
}

namespace {

using Bindings = std::vector<std::pair<std::string, Expr>>;

Expr subst(const Expr& e, const Bindings& bindings, const std::vector<std::string>& replacement_free) {
  if (bindings.empty()) return e;
  if (e.kind() == ExprKind::Var) {
    for (const auto& [name, value] : bindings)
      if (name == e->name) return value;
    return e;
  }
  if (e.kind() == ExprKind::Lambda || e.kind() == ExprKind::Let) {
    // Binders shadow bindings of the same name; binders that would capture a free
    // variable of a replacement are renamed first.
    std::vector<std::string> binders = e.kind() == ExprKind::Lambda ? e->params : std::vector<std::string>{e->name};
    std::size_t body_index = e.kind() == ExprKind::Lambda ? 0 : 1;
    Bindings inner;
    for (const auto& b : bindings)
      if (std::find(binders.begin(), binders.end(), b.first) == binders.end()) inner.push_back(b);
    std::vector<std::string> avoid = replacement_free;
    auto body_free = free_vars(e->args[body_index]);
    avoid.insert(avoid.end(), body_free.begin(), body_free.end());
    avoid.insert(avoid.end(), binders.begin(), binders.end());
    Bindings renames;
    for (auto& b : binders) {
      if (std::find(replacement_free.begin(), replacement_free.end(), b) != replacement_free.end()) {
        std::string fresh = fresh_name(b, avoid);
        avoid.push_back(fresh);
        renames.emplace_back(b, make_var(fresh));
        b = fresh;
      }
    }
    Expr body = e->args[body_index];
    if (!renames.empty()) body = subst(body, renames, {});
    body = subst(body, inner, replacement_free);
    ExprNode n = *e;
    if (e.kind() == ExprKind::Lambda) {
      n.params = binders;
      n.args = {body};
    } else {
      n.name = binders[0];
      n.args = {subst(e->args[0], bindings, replacement_free), body};
    }
    return Expr(std::make_shared<const ExprNode>(std::move(n)));
  }
  std::vector<Expr> args;
  args.reserve(e->args.size());
  for (const auto& a : e->args) args.push_back(subst(a, bindings, replacement_free));
  return with_args(e, std::move(args));
}

}  // namespace

Expr substitute(const Expr& e, const Bindings& bindings) {
  std::vector<std::string> replacement_free;
  for (const auto& [name, value] : bindings) {
    auto fv = free_vars(value);
    replacement_free.insert(replacement_free.end(), fv.begin(), fv.end());
  }
  return subst(e, bindings, replacement_free);
}

Expr substitute_sizes(const Expr& e, const std::map<std::string, arith::Expr>& bindings) {
  ExprNode n = *e;
  for (auto& s : n.sizes) s = arith::substitute(s, bindings);
  n.type = substitute_sizes(n.type, bindings);
  for (auto& t : n.param_types) t = substitute_sizes(t, bindings);
  for (auto& a : n.args) a = substitute_sizes(a, bindings);
  return Expr(std::make_shared<const ExprNode>(std::move(n)));
}

Expr beta_reduce(const Expr& e) {
  std::vector<Expr> args;
  args.reserve(e->args.size());
  for (const auto& a : e->args) args.push_back(beta_reduce(a));
  Expr r = with_args(e, std::move(args));
  if (r.kind() != ExprKind::Apply) return r;
  const Expr& lambda = r->args[0];
  std::vector<Expr> actuals(r->args.begin() + 1, r->args.end());
  const auto& params = lambda->params;
  Bindings bindings;
  if (params.size() == actuals.size()) {
    for (std::size_t i = 0; i < params.size(); ++i) bindings.emplace_back(params[i], actuals[i]);
  } else if (actuals.size() == 1 && params.size() > 1) {
    // Destructuring a single tuple argument: bind each parameter to a projection.
    for (std::size_t i = 0; i < params.size(); ++i)
      bindings.emplace_back(params[i], make_get(actuals[0], static_cast<int>(i), r.loc()));
  } else {
    return r;  // ill-formed application: left for the type checker to report
  }
  return beta_reduce(substitute(lambda_body(lambda), bindings));
}

arith::Expr SizeDecl::variable() const {
  if (!min) return arith::size_var(name);
  return arith::var(name, arith::Expr(static_cast<std::int64_t>(*min)), arith::Expr(static_cast<std::int64_t>(*max)));
}

namespace {

// The value of a scalar constant: a literal or the negation of one (`-1.0` in a rule file
// is neg(1.0)).
std::optional<double> constant_scalar(const Expr& e) {
  if (e.kind() == ExprKind::Literal)
    return e->literal.kind == ScalarKind::Float ? e->literal.f : static_cast<double>(e->literal.i);
  if (e.kind() == ExprKind::Call && e->prim == Prim::Neg)
    if (auto v = constant_scalar(e->args[0])) return -*v;
  return std::nullopt;
}

}  // namespace

std::optional<std::vector<double>> constant_array_values(const Expr& e) {
  if (e.kind() != ExprKind::Call || e->prim != Prim::Array) return std::nullopt;
  std::vector<double> values;
  for (const auto& element : e->args) {
    if (auto v = constant_scalar(element)) {
      values.push_back(*v);
    } else if (auto row = constant_array_values(element)) {
      values.insert(values.end(), row->begin(), row->end());
    } else {
      return std::nullopt;
    }
  }
  return values;
}

bool only_rearranges(const Expr& e) {
  switch (e.kind()) {
    case ExprKind::Var: return true;
    case ExprKind::Get: return only_rearranges(get_tuple(e));
    case ExprKind::Tuple:
      for (const auto& a : e->args)
        if (!only_rearranges(a)) return false;
      return true;
    case ExprKind::Call:
      if (e->prim == Prim::Map)
        return e->args[0].kind() == ExprKind::Lambda && only_rearranges(lambda_body(e->args[0])) &&
               only_rearranges(e->args[1]);
      if (!is_layout(e->prim)) return false;
      for (std::size_t i = 0; i < e->args.size(); ++i) {
        // pad's value: a constant (or a variable) fills the border without computing.
        if (e->prim == Prim::Pad && i == 0 && e->args[0].kind() == ExprKind::Literal) continue;
        if (!only_rearranges(e->args[i])) return false;  // zip's operands, pad's array, ...
      }
      return true;
    default: return false;
  }
}

Expr producing_map(const Expr& e) {
  if (e.kind() != ExprKind::Call) return {};
  if (is_map(e->prim)) return e;
  if (e->prim != Prim::ToGlobal && e->prim != Prim::ToLocal && e->prim != Prim::ToPrivate) return {};
  const Expr& f = e->args[0];
  if (f.kind() != ExprKind::Lambda || f->params.size() != 1) return {};
  const Expr& body = lambda_body(f);
  if (body.kind() != ExprKind::Call || !is_map(body->prim)) return {};
  const Expr& operand = body->args[1];
  if (operand.kind() != ExprKind::Var || operand->name != f->params[0]) return {};
  return body;
}

bool contains_parallel_maps(const Expr& e) {
  if (e.kind() == ExprKind::Call && (e->prim == Prim::MapWrg || e->prim == Prim::MapLcl || e->prim == Prim::MapGlb))
    return true;
  for (const auto& a : e->args)
    if (contains_parallel_maps(a)) return true;
  return false;
}

int map_dimension(const Expr& map) {
  bool mapped = map->prim == Prim::MapWrg || map->prim == Prim::MapLcl || map->prim == Prim::MapGlb;
  return mapped ? static_cast<int>(map->sizes[0].constant().value_or(0)) : 0;
}

}  // namespace liftc::ir
