// The pattern mode of the elaborator: a rule's side -> parse::Pattern (see pattern.hpp).
// Calls are checked against the primitives' signatures and their operands elaborated in the
// mode the signature asks for (data, a function of k parameters, a size; reorder's index
// function), as in a program; a name the pattern does not bind is a pattern variable. A
// pattern expands nothing, so its recursion is bounded by the reader's nesting limit.

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "elaborator.hpp"
#include "liftc/parse/size_syntax.hpp"

namespace liftc::parse {

namespace {

template <typename T>
const T* as(const ast::Expr& e) {
  if (auto* f = boost::get<x3::forward_ast<T>>(&e.get())) return &f->get();
  return nullptr;
}

const std::string* name_of(const ast::Expr& e) {
  if (auto* n = boost::get<ast::Name>(&peel(e).get())) return &n->text;
  return nullptr;
}

// The one argument of `e` when it is written `callee(argument)`, else null.
const ast::Expr* sole_argument(const ast::Expr& e, const char* callee) {
  auto* p = as<ast::Postfix>(peel(e));
  const std::string* f = p ? name_of(p->primary) : nullptr;
  if (!f || *f != callee || p->ops.size() != 1) return nullptr;
  auto* args = boost::get<ast::Arguments>(&p->ops.front().get());
  if (!args || args->args.size() != 1) return nullptr;
  return &args->args.front();
}

// Whether a pattern mentions a name bound by an enclosing pattern lambda or let.
bool mentions_bound(const Pattern& p) {
  if (p.kind == PatternKind::Var && p.bound) return true;
  return std::any_of(p.args.begin(), p.args.end(), mentions_bound);
}

const char* kind_name(VarKind k) {
  switch (k) {
    case VarKind::Expr: return "an expression";
    case VarKind::Function: return "a function";
    case VarKind::Size: return "a size";
  }
  return "?";
}

Pattern node(PatternKind k, SourceLoc at) {
  Pattern p;
  p.kind = k;
  p.loc = std::move(at);
  return p;
}

Pattern literal(ir::ScalarKind k, double f, long long i, SourceLoc at) {
  Pattern p = node(PatternKind::Literal, std::move(at));
  p.literal.kind = k;
  p.literal.f = f;
  p.literal.i = i;
  return p;
}

bool bound(const EnvPtr& env, const std::string& name) {
  for (const Env* frame = env.get(); frame != nullptr; frame = frame->parent.get())
    if (frame->name == name) return true;
  return false;
}

// `env` with a pattern's own binder: it keeps its name as written.
EnvPtr bind_local(const EnvPtr& env, const std::string& name) { return push(env, name, local(name)); }

}  // namespace

std::string length_variable(const std::string& x, int elem_depth) {
  std::string key = x;
  for (int d = 0; d < elem_depth; ++d) key = "elem(" + key + ")";
  return "length(" + key + ")";
}

Pattern elaborate_pattern(const ast::Expr& e, const syntax::Positions& text, const PatternMode& mode) {
  return Elaborator().run_pattern(e, text, mode);
}

Pattern Elaborator::run_pattern(const ast::Expr& e, const syntax::Positions& text, const PatternMode& mode) {
  pattern_text_ = &text;
  pattern_mode_ = &mode;
  return pattern_data(e, nullptr);
}

Pattern Elaborator::pattern_data(const ast::Expr& expr, const EnvPtr& env) {
  const ast::Expr& e = peel(expr);
  const SourceLoc at = loc(e, pattern_text_);
  const auto& v = e.get();
  if (auto* n = boost::get<ast::Name>(&v)) return pattern_variable(n->text, at, env);
  if (auto* i = boost::get<ast::IntLit>(&v)) return literal(ir::ScalarKind::Int, 0.0, i->value, at);
  if (auto* f = boost::get<ast::FloatLit>(&v)) return literal(ir::ScalarKind::Float, f->value, 0, at);
  if (auto* t = as<ast::Tuple>(e)) {
    Pattern p = node(PatternKind::Tuple, at);
    for (const auto& c : t->elems) p.args.push_back(pattern_data(c, env));
    return p;
  }
  if (as<ast::Lambda>(e)) throw Error("a lambda can only be a function operand (of map, reduce, ...)", at);
  if (auto* l = as<ast::Let>(e)) {
    Pattern p = node(PatternKind::Let, at);
    p.name = l->name.text;
    p.args.push_back(pattern_data(l->value, env));
    p.args.push_back(pattern_data(l->body, bind_local(env, p.name)));
    return p;
  }
  if (auto* b = as<ast::Binary>(e)) {
    Pattern acc = pattern_data(b->first, env);
    for (const auto& op : b->rest) {
      Pattern p = node(PatternKind::Call, loc(op, pattern_text_));
      p.prim = ir::operator_prim(op.op, 2);
      p.args = {std::move(acc), pattern_data(op.operand, env)};
      acc = std::move(p);
    }
    return acc;
  }
  if (auto* u = as<ast::Unary>(e)) {
    // Unlike a program, `-2` is neg(2), not a negative literal (rules/README.md).
    Pattern p = node(PatternKind::Call, at);
    p.prim = ir::operator_prim(u->op, 1);
    p.args = {pattern_data(u->operand, env)};
    return p;
  }
  return pattern_postfix(*as<ast::Postfix>(e), at, 0, env).value();
}

Pattern Elaborator::pattern_function(const ast::Expr& expr, int arity, const EnvPtr& env) {
  const ast::Expr& e = peel(expr);
  const SourceLoc at = loc(e, pattern_text_);
  if (auto* l = as<ast::Lambda>(e)) {
    if (arity > 1 && static_cast<int>(l->params.size()) != arity)
      throw Error(fmt::format("this function operand takes {} parameters, the lambda has {}", arity, l->params.size()),
                  at);
    check_distinct_parameters(*l, pattern_text_);
    Pattern p = node(PatternKind::Lambda, at);
    EnvPtr inner = env;
    for (const auto& n : l->params) {
      p.params.push_back(n.text);
      inner = bind_local(inner, n.text);
    }
    p.args.push_back(pattern_data(l->body, inner));
    return p;
  }
  if (auto* n = boost::get<ast::Name>(&e.get())) {
    if (auto prim = ir::prim_from_name(n->text)) return pattern_call(*prim, {}, at, arity, env);
    if (bound(env, n->text)) throw Error(fmt::format("`{}` is a value, not a function", n->text), at);
    if (!pattern_mode_->binds && !pattern_mode_->vars.count(n->text))
      throw Error(fmt::format("unbound variable `{}` on the right side", n->text), at);
    pattern_var_kind(n->text, VarKind::Function, at);
    Pattern p = node(PatternKind::Var, at);
    p.name = n->text;
    return p;
  }
  if (auto* pf = as<ast::Postfix>(e))
    if (auto p = pattern_postfix(*pf, at, arity, env)) return *p;
  throw Error("expected a function: a lambda, a function variable or a partial application such as `map(f)`", at);
}

Pattern Elaborator::pattern_variable(const std::string& name, const SourceLoc& at, const EnvPtr& env) {
  Pattern p = node(PatternKind::Var, at);
  p.name = name;
  if (bound(env, name)) {
    p.bound = true;
    return p;
  }
  const PatternMode& mode = *pattern_mode_;
  const bool fresh = std::find(mode.fresh.begin(), mode.fresh.end(), name) != mode.fresh.end();
  if (mode.binds) {
    if (fresh) throw Error(fmt::format("`{}` is a fresh parameter of the rule; it cannot occur on the left", name), at);
    if (ir::prim_from_name(name)) throw Error(fmt::format("`{}` is a primitive; it needs its operands here", name), at);
    pattern_var_kind(name, VarKind::Expr, at);
    return p;
  }
  auto it = mode.vars.find(name);
  if (it == mode.vars.end()) {
    if (fresh) throw Error(fmt::format("`{}` is a size parameter; it can only be a size argument", name), at);
    throw Error(fmt::format("unbound variable `{}` on the right side", name), at);
  }
  if (it->second != VarKind::Expr)
    throw Error(fmt::format("`{}` is {} variable; it cannot be used as a value", name, kind_name(it->second)), at);
  return p;
}

void Elaborator::pattern_var_kind(const std::string& name, VarKind kind, const SourceLoc& at) {
  auto [it, inserted] = pattern_mode_->vars.emplace(name, kind);
  if (!inserted && it->second != kind)
    throw Error(fmt::format("`{}` is used as {} here but as {} earlier", name, kind_name(kind), kind_name(it->second)),
                at);
}

std::optional<Pattern> Elaborator::pattern_postfix(const ast::Postfix& pf, const SourceLoc& at, int arity,
                                                   const EnvPtr& env) {
  if (pf.ops.empty()) return arity > 0 ? pattern_function(pf.primary, arity, env) : pattern_data(pf.primary, env);
  // Projections apply to whatever precedes them.
  if (auto* proj = boost::get<ast::Projection>(&pf.ops.back().get())) {
    if (arity > 0) return std::nullopt;
    ast::Postfix inner = pf;
    inner.ops.pop_back();
    Pattern p = node(PatternKind::Get, loc(*proj, pattern_text_));
    p.index = static_cast<int>(proj->index);
    p.args.push_back(inner.ops.empty() ? pattern_data(inner.primary, env) : *pattern_postfix(inner, at, 0, env));
    return p;
  }
  if (pf.ops.size() != 1) throw Error("a call's result cannot be called again", at);
  const auto& args = boost::get<ast::Arguments>(pf.ops[0].get()).args;
  const std::string* callee = name_of(pf.primary);
  if (!callee) throw Error("only primitives and function variables can be called", at);
  if (auto prim = ir::prim_from_name(*callee)) return pattern_call(*prim, args, at, arity, env);
  if (arity > 0) return std::nullopt;
  return pattern_apply(*callee, args, at, env);
}

Pattern Elaborator::pattern_apply(const std::string& f, const std::vector<ast::Expr>& args, const SourceLoc& at,
                                  const EnvPtr& env) {
  if (bound(env, f)) throw Error(fmt::format("`{}` is a value, not a function", f), at);
  Pattern p = node(PatternKind::Apply, at);
  p.name = f;
  const PatternMode& mode = *pattern_mode_;
  if (mode.binds) {
    // A higher-order pattern: g applied to distinct bound names matches any expression over
    // them; g applied to one expression over bound names (`g(s + b)`) matches any expression
    // in which they occur only inside matches of it (an abstraction, src/rewrite/match.cpp).
    pattern_var_kind(f, VarKind::Function, at);
    const auto misapplied = [&f](const SourceLoc& here) {
      return Error(fmt::format("on the left, function variable `{}` may only be applied to distinct lambda "
                               "parameters or to one expression over them",
                               f),
                   here);
    };
    if (args.size() == 1 && !name_of(args[0])) {
      Pattern over = pattern_data(args[0], env);
      if (!mentions_bound(over)) throw misapplied(loc(args[0], pattern_text_));
      p.args.push_back(std::move(over));
      return p;
    }
    std::set<std::string> seen;
    for (const auto& a : args) {
      const SourceLoc here = loc(a, pattern_text_);
      const std::string* n = name_of(a);
      if (!n || !bound(env, *n) || !seen.insert(*n).second) throw misapplied(here);
      p.args.push_back(pattern_variable(*n, here, env));
    }
    return p;
  }
  auto it = mode.vars.find(f);
  if (it == mode.vars.end()) {
    if (f == "striddenIndex") throw Error("striddenIndex(s) is only an argument of reorder", at);
    throw Error(fmt::format("unknown primitive or function variable `{}`", f), at);
  }
  if (it->second != VarKind::Function)
    throw Error(fmt::format("`{}` is {} variable, not a function", f, kind_name(it->second)), at);
  for (const auto& a : args) p.args.push_back(pattern_data(a, env));
  return p;
}

Pattern Elaborator::pattern_call(ir::Prim prim, const std::vector<ast::Expr>& args, const SourceLoc& at, int arity,
                                 const EnvPtr& env) {
  const ir::PrimSignature& sig = ir::signature(prim);
  Pattern p = node(PatternKind::Call, at);
  p.prim = prim;
  const auto given = static_cast<int>(args.size());
  if (given < sig.num_sizes)
    throw Error(fmt::format("{} takes {} size argument{} first, got {} argument{}", sig.name, sig.num_sizes,
                            sig.num_sizes == 1 ? "" : "s", given, given == 1 ? "" : "s"),
                at);
  for (int i = 0; i < sig.num_sizes; ++i) {
    const ast::Expr& a = args[static_cast<std::size_t>(i)];
    if (!sig.index_function) {
      p.sizes.push_back(pattern_size(a));
      continue;
    }
    const ast::Arguments* index = stridden_index_arguments(a);
    if (!index || index->args.size() != 1)
      throw Error(fmt::format("{} takes striddenIndex(s) first", sig.name), loc(a, pattern_text_));
    p.sizes.push_back(pattern_size(index->args.front()));
  }
  // A partial application is allowed in a function position of the same arity, when the
  // operands it lacks are data.
  const int operands = given - sig.num_sizes;
  const int wanted = sig.variadic ? std::max(operands, 2) : static_cast<int>(sig.operands.size());
  const int missing = wanted - operands;
  bool ok = missing == 0 || (arity > 0 && missing == arity && !sig.variadic);
  if (ok && missing > 0)
    for (int i = operands; i < wanted; ++i) ok = ok && sig.operands[static_cast<std::size_t>(i)] == 0;
  if (!ok)
    throw Error(fmt::format("{} takes {}{} operand{}{}, got {}", sig.name, sig.variadic ? "at least " : "", wanted,
                            wanted == 1 ? "" : "s",
                            sig.num_sizes > 0 ? fmt::format(" after {} size argument{}", sig.num_sizes,
                                                            sig.num_sizes == 1 ? "" : "s")
                                              : "",
                            operands),
                at);
  for (int i = 0; i < operands; ++i) {
    const int function = sig.variadic ? 0 : sig.operands[static_cast<std::size_t>(i)];
    const ast::Expr& a = args[static_cast<std::size_t>(sig.num_sizes + i)];
    p.args.push_back(function > 0 ? pattern_function(a, function, env) : pattern_data(a, env));
  }
  return p;
}

arith::Expr Elaborator::pattern_size(const ast::Expr& e) {
  const PatternMode& mode = *pattern_mode_;
  auto fresh = [&](const std::string& n) { return std::find(mode.fresh.begin(), mode.fresh.end(), n) != mode.fresh.end(); };
  SizeSyntax how;
  how.leaves_only = mode.binds;
  how.loc = [this](const x3::position_tagged& n) { return loc(n, pattern_text_); };
  how.name = [&](const ast::Name& n, const SourceLoc& at) {
    if (mode.binds) {
      if (fresh(n.text))
        throw Error(fmt::format("`{}` is a fresh parameter of the rule; it cannot occur on the left", n.text), at);
      pattern_var_kind(n.text, VarKind::Size, at);
    } else if (!fresh(n.text)) {
      auto it = mode.vars.find(n.text);
      if (it == mode.vars.end()) throw Error(fmt::format("unbound variable `{}` on the right side", n.text), at);
      if (it->second != VarKind::Size)
        throw Error(fmt::format("`{}` is {} variable, not a size", n.text, kind_name(it->second)), at);
    }
    return arith::size_var(n.text);
  };
  // `length(x)`: the length of what expression variable x matched; `length(elem(x))` the
  // length of its elements (`elem` nests).
  how.call = [&](const ast::Postfix& pf, const SourceLoc& at) -> std::optional<arith::Expr> {
    const std::string* f = name_of(pf.primary);
    const std::string* x = nullptr;
    int depth = 0;
    if (f && *f == "length" && pf.ops.size() == 1 && boost::get<ast::Arguments>(&pf.ops[0].get()) &&
        boost::get<ast::Arguments>(pf.ops[0].get()).args.size() == 1) {
      const ast::Expr* arg = &boost::get<ast::Arguments>(pf.ops[0].get()).args[0];
      for (const ast::Expr* inner; (inner = sole_argument(*arg, "elem")) != nullptr; ++depth) arg = inner;
      x = name_of(*arg);
    }
    auto it = x ? mode.vars.find(*x) : mode.vars.end();
    if (it == mode.vars.end() || it->second != VarKind::Expr)
      throw Error("in a size, only length(x) or length(elem(x)) of an expression variable x can be called", at);
    return arith::var(length_variable(*x, depth));
  };
  how.bad_operator = [this](const ast::Operation& op, const SourceLoc&) {
    return Error(fmt::format("`{}` is not a size operator", op.op), loc(op, pattern_text_));
  };
  how.not_a_size = [&](const SourceLoc& at) {
    return Error(mode.binds ? "a size argument on the left must be a variable or a constant"
                            : "expected a size: an integer, a size variable or + - * / % of them",
                 at);
  };
  return read_size(e, how);
}

}  // namespace liftc::parse
