// Rule declarations -> checked Rules: patterns from .sr expression syntax trees.

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "liftc/parse/operators.hpp"
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

const char* kind_name(VarKind k) {
  switch (k) {
    case VarKind::Expr: return "an expression";
    case VarKind::Function: return "a function";
    case VarKind::Size: return "a size";
  }
  return "?";
}

// Lowers one side of a rule. On the left it classifies variables; on the right it checks
// that each is bound.
class Lowerer {
 public:
  Lowerer(const syntax::Positions& parsed, Rule& rule, bool left) : parsed_(parsed), rule_(rule), left_(left) {}

  SourceLoc loc(const x3::position_tagged& n) const { return parsed_.loc(n); }
  SourceLoc loc(const ast::Expr& e) const {
    return boost::apply_visitor([this](const auto& n) { return where(n); }, e);
  }

  [[noreturn]] void fail(const SourceLoc& at, const std::string& message) const { throw Error(message, at); }

  // A data operand.
  Pattern data(const ast::Expr& e0) {
    const ast::Expr& e = peel(e0);
    SourceLoc at = loc(e);
    if (auto* n = boost::get<ast::Name>(&e)) return variable(n->text, at);
    if (auto* i = boost::get<ast::IntLit>(&e)) return literal(ir::ScalarKind::Int, 0.0, i->value, at);
    if (auto* f = boost::get<ast::FloatLit>(&e)) return literal(ir::ScalarKind::Float, f->value, 0, at);
    if (auto* t = as<ast::Tuple>(e)) {
      Pattern p = node(PatternKind::Tuple, at);
      for (const auto& c : t->elems) p.args.push_back(data(c));
      return p;
    }
    if (as<ast::Lambda>(e)) fail(at, "a lambda can only be a function operand (of map, reduce, ...)");
    if (auto* l = as<ast::Let>(e)) {
      Pattern p = node(PatternKind::Let, at);
      p.name = l->name.text;
      p.args.push_back(data(l->value));
      scope_.push_back(p.name);
      p.args.push_back(data(l->body));
      scope_.pop_back();
      return p;
    }
    if (auto* b = as<ast::Binary>(e)) {
      Pattern acc = data(b->first);
      for (const auto& op : b->rest) {
        Pattern p = node(PatternKind::Call, loc(op));
        p.prim = parse::binary_operator_prim(op.op);
        p.args = {std::move(acc), data(op.operand)};
        acc = std::move(p);
      }
      return acc;
    }
    if (auto* u = as<ast::Unary>(e)) {
      Pattern p = node(PatternKind::Call, at);
      p.prim = parse::unary_operator_prim(u->op);
      p.args = {data(u->operand)};
      return p;
    }
    if (auto* pf = as<ast::Postfix>(e)) return postfix(*pf, at, 0).value();
    fail(at, "unsupported expression in a rule");
  }

  // A function operand taking `arity` parameters.
  Pattern function(const ast::Expr& e0, int arity) {
    const ast::Expr& e = peel(e0);
    SourceLoc at = loc(e);
    if (auto* l = as<ast::Lambda>(e)) {
      if (arity > 1 && static_cast<int>(l->params.size()) != arity)
        fail(at, fmt::format("this function operand takes {} parameters, the lambda has {}", arity, l->params.size()));
      Pattern p = node(PatternKind::Lambda, at);
      for (const auto& n : l->params) p.params.push_back(n.text);
      for (const auto& n : p.params) scope_.push_back(n);
      p.args.push_back(data(l->body));
      scope_.resize(scope_.size() - p.params.size());
      return p;
    }
    if (auto* n = boost::get<ast::Name>(&e)) {
      if (auto prim = ir::prim_from_name(n->text)) return call(*prim, {}, at, arity);
      if (in_scope(n->text)) fail(at, fmt::format("`{}` is a value, not a function", n->text));
      if (!left_ && !rule_.vars.count(n->text)) fail(at, fmt::format("unbound variable `{}` on the right side", n->text));
      classify(n->text, VarKind::Function, at);
      function_arity_.emplace(n->text, arity);
      Pattern p = node(PatternKind::Var, at);
      p.name = n->text;
      return p;
    }
    if (auto* pf = as<ast::Postfix>(e)) {
      if (auto p = postfix(*pf, at, arity)) return *p;
    }
    fail(at, "expected a function: a lambda, a function variable or a partial application such as `map(f)`");
  }

  // A static size argument: on the left a variable or a constant; on the right an
  // expression over the rule's size variables, its parameters and `length(x)`.
  arith::Expr size(const ast::Expr& e) {
    parse::SizeSyntax how;
    how.leaves_only = left_;
    how.loc = [this](const x3::position_tagged& n) { return loc(n); };
    how.name = [this](const ast::Name& n, const SourceLoc& at) {
      if (left_) {
        if (param(n.text)) fail(at, fmt::format("`{}` is a fresh parameter of the rule; it cannot occur on the left", n.text));
        classify(n.text, VarKind::Size, at);
      } else if (!param(n.text)) {
        auto it = rule_.vars.find(n.text);
        if (it == rule_.vars.end()) fail(at, fmt::format("unbound variable `{}` on the right side", n.text));
        if (it->second != VarKind::Size)
          fail(at, fmt::format("`{}` is {} variable, not a size", n.text, kind_name(it->second)));
      }
      return arith::size_var(n.text);
    };
    // `length(x)`: the length of what expression variable x matched; `length(elem(x))`
    // the length of its elements (`elem` nests).
    how.call = [this](const ast::Postfix& pf, const SourceLoc& at) -> std::optional<arith::Expr> {
      const std::string* f = name_of(pf.primary);
      const std::string* x = nullptr;
      int depth = 0;
      if (f && *f == "length" && pf.ops.size() == 1 && boost::get<ast::Arguments>(&pf.ops[0]) &&
          boost::get<ast::Arguments>(pf.ops[0]).args.size() == 1) {
        const ast::Expr* arg = &peel(boost::get<ast::Arguments>(pf.ops[0]).args[0]);
        while (auto* inner = as<ast::Postfix>(*arg)) {
          const std::string* g = name_of(inner->primary);
          if (!g || *g != "elem" || inner->ops.size() != 1 || !boost::get<ast::Arguments>(&inner->ops[0]) ||
              boost::get<ast::Arguments>(inner->ops[0]).args.size() != 1)
            break;
          arg = &peel(boost::get<ast::Arguments>(inner->ops[0]).args[0]);
          ++depth;
        }
        x = name_of(*arg);
      }
      auto it = x ? rule_.vars.find(*x) : rule_.vars.end();
      if (it == rule_.vars.end() || it->second != VarKind::Expr)
        fail(at, "in a size, only length(x) or length(elem(x)) of an expression variable x can be called");
      std::string key = *x;
      for (int d = 0; d < depth; ++d) key = "elem(" + key + ")";
      return arith::var("length(" + key + ")");
    };
    how.bad_operator = [this](const ast::Operation& op, const SourceLoc&) {
      return Error(fmt::format("`{}` is not a size operator", op.op), loc(op));
    };
    how.not_a_size = [this](const SourceLoc& at) {
      return Error(left_ ? "a size argument on the left must be a variable or a constant"
                         : "expected a size: an integer, a size variable or + - * / % of them",
                   at);
    };
    return parse::read_size(e, how);
  }

 private:
  template <typename T>
  SourceLoc where(const T& n) const {
    if constexpr (std::is_base_of_v<x3::position_tagged, T>) return loc(n);
    else return where(n.get());
  }

  Pattern node(PatternKind k, SourceLoc at) const {
    Pattern p;
    p.kind = k;
    p.loc = std::move(at);
    return p;
  }

  Pattern literal(ir::ScalarKind k, double f, long long i, SourceLoc at) const {
    Pattern p = node(PatternKind::Literal, std::move(at));
    p.literal.kind = k;
    p.literal.f = f;
    p.literal.i = i;
    return p;
  }

  bool in_scope(const std::string& n) const { return std::find(scope_.begin(), scope_.end(), n) != scope_.end(); }

  const RuleParam* param(const std::string& n) const {
    for (const auto& p : rule_.params)
      if (p.name == n) return &p;
    return nullptr;
  }

  void classify(const std::string& name, VarKind k, const SourceLoc& at) {
    auto [it, inserted] = rule_.vars.emplace(name, k);
    if (!inserted && it->second != k)
      fail(at, fmt::format("`{}` is used as {} here but as {} earlier", name, kind_name(k), kind_name(it->second)));
  }

  Pattern variable(const std::string& name, const SourceLoc& at) {
    Pattern p = node(PatternKind::Var, at);
    p.name = name;
    if (in_scope(name)) {
      p.bound = true;
      return p;
    }
    if (left_) {
      if (param(name)) fail(at, fmt::format("`{}` is a fresh parameter of the rule; it cannot occur on the left", name));
      if (ir::prim_from_name(name)) fail(at, fmt::format("`{}` is a primitive; it needs its operands here", name));
      classify(name, VarKind::Expr, at);
      return p;
    }
    auto it = rule_.vars.find(name);
    if (it == rule_.vars.end()) {
      if (param(name)) fail(at, fmt::format("`{}` is a size parameter; it can only be a size argument", name));
      fail(at, fmt::format("unbound variable `{}` on the right side", name));
    }
    if (it->second != VarKind::Expr)
      fail(at, fmt::format("`{}` is {} variable; it cannot be used as a value", name, kind_name(it->second)));
    return p;
  }

  // `name(args)` or `e.i`: a primitive call, an application of a function variable, or a
  // projection. With `arity` > 0 (a function position) a call may be partial.
  std::optional<Pattern> postfix(const ast::Postfix& pf, const SourceLoc& at, int arity) {
    if (pf.ops.empty()) return arity > 0 ? function(pf.primary, arity) : data(pf.primary);
    // Projections apply to whatever precedes them.
    if (auto* proj = boost::get<ast::Projection>(&pf.ops.back())) {
      if (arity > 0) return std::nullopt;
      ast::Postfix inner = pf;
      inner.ops.pop_back();
      Pattern p = node(PatternKind::Get, loc(*proj));
      p.index = static_cast<int>(proj->index);
      p.args.push_back(inner.ops.empty() ? data(inner.primary) : *postfix(inner, at, 0));
      return p;
    }
    if (pf.ops.size() != 1) fail(at, "a call's result cannot be called again");
    const auto& args = boost::get<ast::Arguments>(pf.ops[0]).args;
    const std::string* callee = name_of(pf.primary);
    if (!callee) fail(at, "only primitives and function variables can be called");
    if (auto prim = ir::prim_from_name(*callee)) return call(*prim, args, at, arity);
    if (arity > 0) return std::nullopt;
    return apply(*callee, args, at);
  }

  Pattern apply(const std::string& f, const std::vector<ast::Expr>& args, const SourceLoc& at) {
    if (in_scope(f)) fail(at, fmt::format("`{}` is a value, not a function", f));
    Pattern p = node(PatternKind::Apply, at);
    p.name = f;
    if (left_) {
      classify(f, VarKind::Function, at);
      std::set<std::string> seen;
      for (const auto& a : args) {
        const std::string* n = name_of(a);
        if (!n || !in_scope(*n) || !seen.insert(*n).second)
          fail(loc(a), fmt::format("on the left, function variable `{}` may only be applied to distinct lambda parameters", f));
        p.args.push_back(variable(*n, loc(a)));
      }
      function_arity_.emplace(f, static_cast<int>(args.size()));
      return p;
    }
    auto it = rule_.vars.find(f);
    if (it == rule_.vars.end()) {
      if (f == "striddenIndex") fail(at, "striddenIndex(s) is only an argument of reorder");
      fail(at, fmt::format("unknown primitive or function variable `{}`", f));
    }
    if (it->second != VarKind::Function) fail(at, fmt::format("`{}` is {} variable, not a function", f, kind_name(it->second)));
    for (const auto& a : args) p.args.push_back(data(a));
    return p;
  }

  Pattern call(ir::Prim prim, const std::vector<ast::Expr>& args, const SourceLoc& at, int arity) {
    const ir::PrimSignature& sig = ir::signature(prim);
    Pattern p = node(PatternKind::Call, at);
    p.prim = prim;
    auto given = static_cast<int>(args.size());
    if (given < sig.num_sizes)
      fail(at, fmt::format("{} takes {} size argument{} first, got {} argument{}", sig.name, sig.num_sizes,
                           sig.num_sizes == 1 ? "" : "s", given, given == 1 ? "" : "s"));
    for (int i = 0; i < sig.num_sizes; ++i) {
      if (prim == ir::Prim::Reorder) {
        const auto* pf = as<ast::Postfix>(peel(args[0]));
        const std::string* f = pf ? name_of(pf->primary) : nullptr;
        if (!f || *f != "striddenIndex" || pf->ops.size() != 1 || !boost::get<ast::Arguments>(&pf->ops[0]) ||
            boost::get<ast::Arguments>(pf->ops[0]).args.size() != 1)
          fail(loc(args[0]), "reorder takes striddenIndex(s) first");
        p.sizes.push_back(size(boost::get<ast::Arguments>(pf->ops[0]).args[0]));
      } else {
        p.sizes.push_back(size(args[static_cast<std::size_t>(i)]));
      }
    }
    int operands = given - sig.num_sizes;
    int wanted = sig.variadic ? std::max(operands, 2) : static_cast<int>(sig.operands.size());
    int missing = wanted - operands;
    bool ok = missing == 0 || (arity > 0 && missing == arity && !sig.variadic);
    if (ok && missing > 0)
      for (int i = operands; i < wanted; ++i) ok = ok && sig.operands[static_cast<std::size_t>(i)] == 0;
    if (!ok)
      fail(at, fmt::format("{} takes {}{} operand{}{}, got {}", sig.name, sig.variadic ? "at least " : "", wanted,
                           wanted == 1 ? "" : "s",
                           sig.num_sizes > 0 ? fmt::format(" after {} size argument{}", sig.num_sizes, sig.num_sizes == 1 ? "" : "s") : "",
                           operands));
    for (int i = 0; i < operands; ++i) {
      int fun = sig.variadic ? 0 : sig.operands[static_cast<std::size_t>(i)];
      const ast::Expr& a = args[static_cast<std::size_t>(sig.num_sizes + i)];
      p.args.push_back(fun > 0 ? function(a, fun) : data(a));
    }
    return p;
  }

  const syntax::Positions& parsed_;
  Rule& rule_;
  bool left_;
  std::vector<std::string> scope_;  // names bound by enclosing pattern lambdas and lets
  std::map<std::string, int> function_arity_;
};

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
    if (pred && *pred == "layout" && pf->ops.size() == 1 && boost::get<ast::Arguments>(&pf->ops[0]) &&
        boost::get<ast::Arguments>(pf->ops[0]).args.size() == 1) {
      const ast::Expr& arg = peel(boost::get<ast::Arguments>(pf->ops[0]).args[0]);
      const std::string* f = name_of(arg);
      auto it = f ? rule_.vars.find(*f) : rule_.vars.end();
      if (it == rule_.vars.end() || it->second != VarKind::Function)
        fail(arg, "layout(f) needs a function variable of the left side");
      g.kind = Guard::Kind::FunctionIs;
      g.predicate = "layout";
      g.term = TypeTerm{*f, 0};
      return g;
    }
    static const std::set<std::string> preds = {"scalar", "vector", "array", "tuple", "float", "int"};
    if (!pred || !preds.count(*pred) || pf->ops.size() != 1 || !boost::get<ast::Arguments>(&pf->ops[0]) ||
        boost::get<ast::Arguments>(pf->ops[0]).args.size() != 1)
      fail(e, "expected a condition: scalar(T), vector(T), array(T), tuple(T), float(T), int(T), layout(f) or a size "
              "comparison");
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
      std::string key = t.var;
      for (int d = 0; d < t.elem_depth; ++d) key = "elem(" + key + ")";
      return arith::var("length(" + key + ")");
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
  Lowerer left(parsed, rule, true);
  rule.lhs = left.data(decl.lhs);
  if (rule.lhs.kind != PatternKind::Call)
    throw Error("the left side of a rule must be a primitive call", rule.lhs.loc);
  Lowerer right(parsed, rule, false);
  rule.rhs = right.data(decl.rhs);
  if (decl.guard) GuardLowerer(parsed, rule).conjuncts(*decl.guard, rule.guards);
  return rule;
}

}  // namespace liftc::rewrite::detail
