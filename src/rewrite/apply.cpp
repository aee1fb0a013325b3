// Applying one rule at one node: match, guards, fresh parameters, instantiation, and the
// type check of each result.

#include <algorithm>

#include <fmt/format.h>

#include "liftc/rewrite/match.hpp"

namespace liftc::rewrite {

namespace {

ir::Type type_of(const TypeTerm& t, const Match& m) {
  auto it = m.exprs.find(t.var);
  if (it == m.exprs.end()) return {};
  ir::Type ty = it->second.type();
  for (int i = 0; i < t.elem_depth && ty.is_array(); ++i) ty = ty.elem();
  return ty;
}

bool type_is(const std::string& pred, const ir::Type& t) {
  if (!t.defined()) return false;
  if (pred == "scalar") return t.is_scalar();
  if (pred == "vector") return t.is_vector();
  if (pred == "array") return t.is_array();
  if (pred == "tuple") return t.is_tuple();
  if (pred == "float" || pred == "int") {
    ir::ScalarKind k = pred == "float" ? ir::ScalarKind::Float : ir::ScalarKind::Int;
    return (t.is_scalar() || t.is_vector()) && t.scalar_kind() == k;
  }
  return false;
}

bool compare(const std::string& op, const arith::Expr& a, const arith::Expr& b) {
  if (op == "==") return a == b;
  if (op == "!=") return arith::provably_less(a, b) || arith::provably_less(b, a);
  if (op == "<") return arith::provably_less(a, b);
  if (op == ">") return arith::provably_less(b, a);
  if (op == "<=") return arith::provably_nonnegative(b - a);
  if (op == ">=") return arith::provably_nonnegative(a - b);
  return false;
}

bool holds(const Guard& g, const Match& m, const SizeValues& given) {
  if (g.kind == Guard::Kind::TypeIs) return type_is(g.predicate, type_of(g.term, m)) != g.negated;
  if (g.kind == Guard::Kind::FunctionIs && g.predicate == "once") {
    // once(g): g's one parameter occurs once in its body, outside its body's lambdas.
    auto f = m.functions.find(g.term.var);
    bool once = f != m.functions.end() && f->second.kind() == ir::ExprKind::Lambda && f->second->params.size() == 1 &&
                ir::used_once_outside_lambdas(ir::lambda_body(f->second), f->second->params[0]);
    return once != g.negated;
  }
  if (g.kind == Guard::Kind::FunctionIs) {
    // layout(f): the function's body only rearranges; layout(x): the expression does.
    bool layout = false;
    if (auto f = m.functions.find(g.term.var); f != m.functions.end())
      layout = f->second.kind() == ir::ExprKind::Lambda && ir::only_rearranges(ir::lambda_body(f->second));
    else if (auto x = m.exprs.find(g.term.var); x != m.exprs.end())
      layout = ir::only_rearranges(x->second);
    return layout != g.negated;
  }
  std::map<std::string, arith::Expr> values = matched_sizes(m);
  arith::Expr a = arith::substitute(g.lhs, values);
  arith::Expr b = arith::substitute(g.rhs, values);
  bool result = compare(g.op, a, b);
  // What the ranges cannot decide is decided at the program's declared sizes, as a result's
  // type is (same_type): `k == 1` holds for a slide of K when the program says K = 1.
  if (!result && !given.empty()) {
    try {
      result = compare(g.op, arith::substitute(a, given), arith::substitute(b, given));
    } catch (const Error&) {
      result = false;  // a division by zero or an overflow at the given sizes: not decided
    }
  }
  return result != g.negated;
}

}  // namespace

bool guards_hold(const Rule& rule, const Match& m, const SizeValues& given) {
  return std::all_of(rule.guards.begin(), rule.guards.end(), [&](const Guard& g) { return holds(g, m, given); });
}

void FreshNames::reserve(const std::string& name) {
  if (std::find(taken_.begin(), taken_.end(), name) == taken_.end()) taken_.push_back(name);
}

std::string FreshNames::make(const std::string& base) {
  for (int i = 1;; ++i) {
    std::string candidate = fmt::format("{}_{}", base, i);
    if (std::find(taken_.begin(), taken_.end(), candidate) == taken_.end()) {
      taken_.push_back(candidate);
      return candidate;
    }
  }
}

bool same_type(const ir::Type& a, const ir::Type& b, const SizeValues& given) {
  if (a.defined() != b.defined()) return false;
  if (!a.defined()) return true;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case ir::TypeKind::Scalar: return a.scalar_kind() == b.scalar_kind();
    case ir::TypeKind::Vector: return a.scalar_kind() == b.scalar_kind() && a.width() == b.width();
    case ir::TypeKind::Tuple:
      if (a.elems().size() != b.elems().size()) return false;
      for (std::size_t i = 0; i < a.elems().size(); ++i)
        if (!same_type(a.elems()[i], b.elems()[i], given)) return false;
      return true;
    case ir::TypeKind::Array:
      return same_type(a.elem(), b.elem(), given) && arith::equal_assuming_exact_division(a.length(), b.length(), given);
  }
  return false;
}

std::vector<Application> apply_rule(const Rule& rule, const ir::Expr& e, const typecheck::TypeEnv& env,
                                    FreshNames& names, const RejectLog& reject,
                                    const std::vector<std::int64_t>& fixed_values, const SizeValues& given) {
  std::optional<Match> m = match_pattern(rule.lhs, e);
  if (!m) return {};
  if (!guards_hold(rule, *m, given)) {
    if (reject) reject("its guard does not hold");
    return {};
  }
  // Tuning parameters: one fresh variable each, shared by the alternatives of this match.
  std::map<std::string, arith::Expr> fixed;
  std::vector<TuningParam> fresh;
  for (std::size_t i = 0; i < rule.params.size() && i < fixed_values.size(); ++i)
    fixed[rule.params[i].name] = arith::Expr(fixed_values[i]);
  for (const auto& p : rule.params) {
    if (p.kind != RuleParam::Kind::Tuning || fixed.count(p.name)) continue;
    TuningParam t{names.make(tuning_param_name(rule, p, *m)), rule.name, p.name, p.min, p.max, p.values};
    fixed[p.name] = arith::var(t.name, arith::Expr(static_cast<std::int64_t>(p.min.value_or(1))),
                               p.max ? std::optional<arith::Expr>(arith::Expr(static_cast<std::int64_t>(*p.max)))
                                     : std::nullopt);
    fresh.push_back(std::move(t));
  }
  // Choice parameters: the cartesian product of their values.
  std::vector<std::map<std::string, arith::Expr>> choices = {fixed};
  for (const auto& p : rule.params) {
    if (p.kind != RuleParam::Kind::Choice || fixed.count(p.name)) continue;
    std::vector<std::map<std::string, arith::Expr>> next;
    for (const auto& c : choices)
      for (auto v : p.values) {
        auto c2 = c;
        c2[p.name] = arith::Expr(static_cast<std::int64_t>(v));
        next.push_back(std::move(c2));
      }
    choices = std::move(next);
  }
  std::vector<Application> out;
  for (const auto& c : choices) {
    ir::Expr r = instantiate(rule, *m, c);
    try {
      ir::Expr typed = typecheck::typecheck_expr(r, env, nullptr, given);
      if (!same_type(e.type(), typed.type(), given)) {
        if (reject)
          reject(fmt::format("its result has type {}, not {} (the type of the expression it would replace); not "
                             "applied",
                             ir::to_string(typed.type()), ir::to_string(e.type())));
        continue;
      }
      out.push_back({typed, fresh});
    } catch (const Error& err) {
      if (reject) reject("its result does not type check: " + err.message());
    }
  }
  return out;
}

}  // namespace liftc::rewrite
