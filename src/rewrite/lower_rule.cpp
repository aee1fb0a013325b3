// Rule declarations -> checked Rules: parameters, the two sides (elaborated by the pattern
// mode of the elaborator, parse::elaborate_pattern) and the guard.

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "liftc/parse/pattern.hpp"
#include "liftc/parse/size_syntax.hpp"
#include "liftc/syntax/peel.hpp"
#include "lower.hpp"

namespace liftc::rewrite::detail {

namespace {

namespace x3 = boost::spirit::x3;

using syntax::peel;

template <typename T>
const T* as(const ast::Expr& e) {
  if (auto* f = boost::get<x3::forward_ast<T>>(&e)) return &f->get();
  return nullptr;
}

const std::string* name_of(const ast::Expr& e) {
  if (auto* n = boost::get<ast::Name>(&peel(e))) return &n->text;
  return nullptr;
}

// ---- Guards ---------------------------------------------------------------------------

class GuardLowerer {
 public:
  GuardLowerer(const syntax::Positions& parsed, const Rule& rule) : parsed_(parsed), rule_(rule) {}

  void conjuncts(const ast::Expr& e0, std::vector<Guard>& out) {
    const ast::Expr& e = peel(e0);
    if (auto* b = as<ast::Binary>(e); b && b->rest.front().op == "&&") {
      conjuncts(b->first, out);
      for (const auto& op : b->rest) {
        if (op.op != "&&") fail(e, "a guard is a conjunction (&&) of conditions");
        conjuncts(op.operand, out);
      }
      return;
    }
    out.push_back(condition(e));
  }

 private:
  [[noreturn]] void fail(const ast::Expr& e, const std::string& m) const {
    throw Error(m, boost::apply_visitor([this](const auto& n) { return where(n); }, e));
  }
  template <typename T>
  SourceLoc where(const T& n) const {
    if constexpr (std::is_base_of_v<x3::position_tagged, T>) return parsed_.loc(n);
    else return where(n.get());
  }

  Guard condition(const ast::Expr& e) {
    Guard g;
    g.loc = boost::apply_visitor([this](const auto& n) { return where(n); }, e);
    if (auto* u = as<ast::Unary>(e); u && u->op == "!") {
      g = condition(peel(u->operand));
      g.negated = !g.negated;
      return g;
    }
    if (auto* b = as<ast::Binary>(e)) {
      static const std::set<std::string> cmp = {"==", "!=", "<", "<=", ">", ">="};
      if (b->rest.size() != 1 || !cmp.count(b->rest[0].op)) fail(e, "expected a comparison of sizes");
      g.kind = Guard::Kind::Compare;
      g.op = b->rest[0].op;
      g.lhs = size(b->first);
      g.rhs = size(b->rest[0].operand);
      return g;
    }
    auto* pf = as<ast::Postfix>(e);
    const std::string* pred = pf ? name_of(pf->primary) : nullptr;
    if (pred && (*pred == "layout" || *pred == "once") && pf->ops.size() == 1 &&
        boost::get<ast::Arguments>(&pf->ops[0]) && boost::get<ast::Arguments>(pf->ops[0]).args.size() == 1) {
      const ast::Expr& arg = peel(boost::get<ast::Arguments>(pf->ops[0]).args[0]);
      const std::string* f = name_of(arg);
      auto it = f ? rule_.vars.find(*f) : rule_.vars.end();
      if (*pred == "layout" &&
          (it == rule_.vars.end() || (it->second != VarKind::Function && it->second != VarKind::Expr)))
        fail(arg, "layout(f) needs a function or expression variable of the left side");
      if (*pred == "once" && (it == rule_.vars.end() || it->second != VarKind::Function))
        fail(arg, "once(g) needs a function variable of the left side");
      g.kind = Guard::Kind::FunctionIs;
      g.predicate = *pred;
      g.term = TypeTerm{*f, 0};
      return g;
    }
    static const std::set<std::string> preds = {"scalar", "vector", "array", "tuple", "float", "int"};
    if (!pred || !preds.count(*pred) || pf->ops.size() != 1 || !boost::get<ast::Arguments>(&pf->ops[0]) ||
        boost::get<ast::Arguments>(pf->ops[0]).args.size() != 1)
      fail(e, "expected a condition: scalar(T), vector(T), array(T), tuple(T), float(T), int(T), layout(f), once(g) or a "
              "size comparison");
    g.kind = Guard::Kind::TypeIs;
    g.predicate = *pred;
    g.term = type_term(boost::get<ast::Arguments>(pf->ops[0]).args[0]);
    return g;
  }

  TypeTerm type_term(const ast::Expr& e0) {
    const ast::Expr& e = peel(e0);
    if (const std::string* n = name_of(e)) {
      auto it = rule_.vars.find(*n);
      if (it == rule_.vars.end() || it->second != VarKind::Expr)
        fail(e, fmt::format("`{}` is not an expression variable of the left side", *n));
      return TypeTerm{*n, 0};
    }
    if (auto* pf = as<ast::Postfix>(e)) {
      const std::string* f = name_of(pf->primary);
      if (f && *f == "elem" && pf->ops.size() == 1 && boost::get<ast::Arguments>(&pf->ops[0]) &&
          boost::get<ast::Arguments>(pf->ops[0]).args.size() == 1) {
        TypeTerm t = type_term(boost::get<ast::Arguments>(pf->ops[0]).args[0]);
        ++t.elem_depth;
        return t;
      }
    }
    fail(e, "expected a type: an expression variable or elem(T)");
  }

  // A size in a comparison: over the left side's size variables and `length(T)`.
  arith::Expr size(const ast::Expr& e) {
    parse::SizeSyntax how;
    how.operators = "+-*";
    how.negation = false;
    how.loc = [this](const x3::position_tagged& n) { return parsed_.loc(n); };
    how.name = [this](const ast::Name& n, const SourceLoc& at) {
      auto it = rule_.vars.find(n.text);
      if (it == rule_.vars.end() || it->second != VarKind::Size)
        throw Error(fmt::format("`{}` is not a size variable of the left side", n.text), at);
      return arith::size_var(n.text);
    };
    how.call = [this](const ast::Postfix& pf, const SourceLoc&) -> std::optional<arith::Expr> {
      const std::string* f = name_of(pf.primary);
      if (!f || *f != "length" || pf.ops.size() != 1 || !boost::get<ast::Arguments>(&pf.ops[0]) ||
          boost::get<ast::Arguments>(pf.ops[0]).args.size() != 1)
        return std::nullopt;
      TypeTerm t = type_term(boost::get<ast::Arguments>(pf.ops[0]).args[0]);
      return arith::var(parse::length_variable(t.var, t.elem_depth));
    };
    how.bad_operator = [](const ast::Operation& op, const SourceLoc& whole) {
      return Error(fmt::format("`{}` is not allowed in a guard's size", op.op), whole);
    };
    how.not_a_size = [](const SourceLoc& at) {
      return Error("expected a size: an integer, a size variable, length(T), or + - * of them", at);
    };
    return parse::read_size(e, how);
  }

  const syntax::Positions& parsed_;
  const Rule& rule_;
};

RuleParam lower_param(const ast::Param& p, const syntax::Positions& parsed) {
  RuleParam r;
  r.name = p.name;
  r.kind = p.choose ? RuleParam::Kind::Choice : RuleParam::Kind::Tuning;
  r.loc = parsed.loc(p);
  if (p.domain) {
    if (auto* range = boost::get<ast::Range>(&*p.domain)) {
      if (range->lo > range->hi) throw Error(fmt::format("empty range {}..{}", range->lo, range->hi), parsed.loc(*range));
      r.min = range->lo;
      r.max = range->hi;
      if (p.choose)
        for (long long v = range->lo; v <= range->hi; ++v) r.values.push_back(v);
    } else {
      const auto& set = boost::get<ast::ValueSet>(*p.domain);
      for (long long v : set.values) r.values.push_back(v);
      r.min = *std::min_element(r.values.begin(), r.values.end());
      r.max = *std::max_element(r.values.begin(), r.values.end());
    }
  } else if (p.choose) {
    throw Error(fmt::format("choice parameter `{}` needs its values: `choose {} in {{...}}`", p.name, p.name), r.loc);
  }
  if (r.min && *r.min < 0) throw Error(fmt::format("parameter `{}` may not be negative", p.name), r.loc);
  return r;
}

}  // namespace

Rule lower_rule(const ast::RuleDecl& decl, const syntax::Positions& parsed) {
  Rule rule;
  rule.name = decl.name;
  rule.description = decl.description.value_or("");
  rule.loc = parsed.loc(decl);
  if (decl.params)
    for (const auto& p : *decl.params) {
      RuleParam r = lower_param(p, parsed);
      for (const auto& q : rule.params)
        if (q.name == r.name) throw Error(fmt::format("duplicate parameter `{}`", r.name), r.loc);
      rule.params.push_back(std::move(r));
    }
  std::vector<std::string> fresh;
  for (const auto& p : rule.params) fresh.push_back(p.name);
  rule.lhs = parse::elaborate_pattern(decl.lhs, parsed, parse::PatternMode{true, rule.vars, fresh});
  if (rule.lhs.kind != PatternKind::Call && rule.lhs.kind != PatternKind::Let)
    throw Error("the left side of a rule must be a primitive call or a let", rule.lhs.loc);
  rule.rhs = parse::elaborate_pattern(decl.rhs, parsed, parse::PatternMode{false, rule.vars, fresh});
  if (decl.guard) GuardLowerer(parsed, rule).conjuncts(*decl.guard, rule.guards);
  return rule;
}

}  // namespace liftc::rewrite::detail
