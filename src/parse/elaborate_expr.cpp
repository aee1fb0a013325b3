// Elaboration of expressions: names, operators, calls, partial application, lambdas,
// macro expansion of function definitions. See elaborator.hpp for the model.

#include <algorithm>

#include <fmt/format.h>

#include "elaborator.hpp"

namespace liftc::parse {

namespace {

// Keeps IR binder names open (for capture avoidance) for the duration of a scope.
class OpenBinders {
 public:
  explicit OpenBinders(std::vector<std::string>& open) : open_(open), size_(open.size()) {}
  ~OpenBinders() { open_.resize(size_); }
  void add(const std::string& name) { open_.push_back(name); }
  OpenBinders(const OpenBinders&) = delete;
  OpenBinders& operator=(const OpenBinders&) = delete;

 private:
  std::vector<std::string>& open_;
  std::size_t size_;
};

Binding argument(Thunk t) {
  Binding b;
  b.kind = Binding::Kind::Argument;
  b.argument = std::move(t);
  return b;
}

std::string plural(int n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

}  // namespace

// ---- Positions, names, budgets -------------------------------------------------------

SourceLoc Elaborator::loc(const x3::position_tagged& node, const syntax::Positions* syntax) const {
  if (syntax == prelude_ && prelude_call_.known()) return prelude_call_;
  return syntax->loc(node);
}

SourceLoc Elaborator::loc(const ast::Expr& e, const syntax::Positions* syntax) const {
  return loc(tagged(e), syntax);
}

SourceLoc Elaborator::loc(const Thunk& t) const {
  if (t.expr == nullptr) return t.ready.defined() ? t.ready.loc() : SourceLoc{};
  return loc(*t.expr, t.syntax);
}

void Elaborator::check_distinct_parameters(const ast::Lambda& lambda, const syntax::Positions* syntax) const {
  for (auto p = lambda.params.begin(); p != lambda.params.end(); ++p)
    for (auto q = lambda.params.begin(); q != p; ++q)
      if (q->text == p->text) throw Error(fmt::format("parameter `{}` appears twice", p->text), loc(*p, syntax));
}

std::string Elaborator::binder_name(const std::string& name) const {
  // ir::fresh_name only ever picks `name` or `<stem>_<k>`, where the stem is `name` less a
  // numeric suffix; so only globals that start with the text before the last '_' can
  // collide. Passing just those keeps a binder O(log globals), not O(globals): a program
  // of 30,000 definitions would otherwise elaborate in quadratic time.
  std::string prefix = name.substr(0, std::min(name.size(), name.rfind('_')));
  std::vector<std::string> avoid = open_binders_;
  for (auto it = globals_.lower_bound(prefix); it != globals_.end() && it->first.starts_with(prefix); ++it)
    if (it->second.kind == Global::Kind::Input || it->second.kind == Global::Kind::Value) avoid.push_back(it->first);
  return ir::fresh_name(name, avoid);
}

ir::Expr Elaborator::count(ir::Expr e) {
  if (++nodes_ > kMaxNodes)
    throw Error(fmt::format("the program is too large after expanding its function definitions (more than {} IR "
                            "nodes)",
                            kMaxNodes),
                e.loc());
  int depth = 1;
  for (const auto& child : e->args) {
    auto it = ir_depth_.find(child.get());
    depth = std::max(depth, 1 + (it == ir_depth_.end() ? 1 : it->second));
  }
  if (depth > kMaxIrDepth)
    throw Error(fmt::format("the expression is nested deeper than {} levels after expanding its function definitions",
                            kMaxIrDepth),
                e.loc());
  ir_depth_[e.get()] = depth;
  return e;
}

// ---- Expressions ---------------------------------------------------------------------

Value Elaborator::elab(const Thunk& t) {
  if (t.expr == nullptr) return Value{t.ready, std::nullopt};
  PreludeCallScope scope(prelude_call_, call_site_of(t));
  return elab(*t.expr, t.env, t.syntax);
}

Value Elaborator::elab(const ast::Expr& expr, const EnvPtr& env, const Syntax* syntax) {
  DepthGuard guard(*this, [&] { return loc(expr, syntax); });
  const ast::Expr& e = peel(expr);
  const SourceLoc here = loc(e, syntax);
  const auto& v = e.get();
  if (auto* n = boost::get<ast::Name>(&v)) return elab_name(*n, env, syntax);
  if (auto* i = boost::get<ast::IntLit>(&v)) return Value{count(ir::make_int(i->value, here)), std::nullopt};
  if (auto* f = boost::get<ast::FloatLit>(&v)) return Value{count(ir::make_float(f->value, here)), std::nullopt};
  if (auto* t = boost::get<x3::forward_ast<ast::Tuple>>(&v)) {
    std::vector<ir::Expr> elems;
    for (const auto& el : t->get().elems) elems.push_back(data(Thunk{&el, env, syntax, {}}, "a tuple component"));
    return Value{count(ir::make_tuple(std::move(elems), here)), std::nullopt};
  }
  if (auto* l = boost::get<x3::forward_ast<ast::Lambda>>(&v)) {
    Closure c;
    c.kind = Closure::Kind::Lambda;
    c.lambda = &l->get();
    c.env = env;
    c.syntax = syntax;
    c.loc = here;
    c.text = "this lambda";
    return Value{{}, std::move(c)};
  }
  if (auto* l = boost::get<x3::forward_ast<ast::Let>>(&v)) return elab_let(l->get(), env, syntax);
  if (auto* b = boost::get<x3::forward_ast<ast::Binary>>(&v)) return elab_binary(b->get(), env, syntax);
  if (auto* p = boost::get<x3::forward_ast<ast::Postfix>>(&v)) return elab_postfix(p->get(), env, syntax);
  const auto& u = boost::get<x3::forward_ast<ast::Unary>>(v).get();
  if (u.op == "-") {
    // `-2` and `-1.5` are negative literals; `-(1.5)` and `-x` are negations.
    if (auto* lit = literal_operand(u.operand)) {
      if (auto* i = boost::get<ast::IntLit>(&lit->get()))
        return Value{count(ir::make_int(-i->value, here)), std::nullopt};
      return Value{count(ir::make_float(-boost::get<ast::FloatLit>(lit->get()).value, here)), std::nullopt};
    }
  }
  ir::Expr operand = data(Thunk{&u.operand, env, syntax, {}}, fmt::format("the operand of `{}`", u.op));
  return Value{count(ir::make_call(ir::operator_prim(u.op, 1), {}, {operand}, here)),
               std::nullopt};
}

Value Elaborator::elab_name(const ast::Name& n, const EnvPtr& env, const Syntax* syntax) {
  const SourceLoc here = loc(n, syntax);
  for (const Env* frame = env.get(); frame != nullptr; frame = frame->parent.get()) {
    if (frame->name != n.text) continue;
    switch (frame->binding.kind) {
      case Binding::Kind::Local:
        return Value{count(ir::make_var(frame->binding.ir_name, here)), std::nullopt};
      case Binding::Kind::Argument:
        return elab(frame->binding.argument);
      case Binding::Kind::Function:
        return Value{{}, frame->binding.function};
    }
  }
  // Prelude bodies see the prelude's functions; the program's names shadow them.
  const FunctionDef* prelude_function = nullptr;
  if (auto it = prelude_functions_.find(n.text); it != prelude_functions_.end()) prelude_function = it->second;
  auto global = globals_.find(n.text);
  if (prelude_function != nullptr && (syntax == prelude_ || global == globals_.end())) {
    Closure c;
    c.kind = Closure::Kind::Function;
    c.function = prelude_function;
    c.loc = here;
    c.text = n.text;
    return Value{{}, std::move(c)};
  }
  if (auto it = global; it != globals_.end()) {
    switch (it->second.kind) {
      case Global::Kind::Size:
        return Value{count(ir::make_call(ir::Prim::SizeValue, {it->second.size}, {}, here)), std::nullopt};
      case Global::Kind::Input:
      case Global::Kind::Value:
        return Value{count(ir::make_var(n.text, here)), std::nullopt};
      case Global::Kind::Function: {
        Closure c;
        c.kind = Closure::Kind::Function;
        c.function = it->second.function;
        c.loc = here;
        c.text = n.text;
        return Value{{}, std::move(c)};
      }
    }
  }
  if (auto p = ir::prim_from_name(n.text)) {
    Closure c;
    c.kind = Closure::Kind::Prim;
    c.prim = *p;
    c.loc = here;
    c.text = n.text;
    return Value{{}, std::move(c)};
  }
  if (n.text == "striddenIndex")
    throw Error("striddenIndex(s) is an index function: it may only be the first argument of reorder", here);
  unknown_name(n.text, here, env);
}

namespace {

// The size expression of a size value (`N`, `sizeValue(N/4)`) or of an int literal.
std::optional<arith::Expr> as_size(const ir::Expr& e) {
  if (e.kind() == ir::ExprKind::Call && e->prim == ir::Prim::SizeValue) return e->sizes[0];
  if (e.kind() == ir::ExprKind::Literal && e->literal.kind == ir::ScalarKind::Int)
    return arith::Expr(static_cast<std::int64_t>(e->literal.i));
  return std::nullopt;
}

// `a op b` as one size value where it is size arithmetic: + - * of size values and int
// literals, at least one a size value (`N * N`, `K * K + 1`). Its value is then exact (64
// bits, as every size expression) rather than int arithmetic that wraps at 32 bits, so
// float(N * N) is right for N = 65536. `/` and `%` stay int operations: they truncate
// toward zero on ints, and size division is defined on non-negative operands only.
std::optional<arith::Expr> size_arithmetic(const std::string& op, const ir::Expr& a, const ir::Expr& b) {
  if (op != "+" && op != "-" && op != "*") return std::nullopt;
  auto is_size_value = [](const ir::Expr& e) { return e.kind() == ir::ExprKind::Call && e->prim == ir::Prim::SizeValue; };
  if (!is_size_value(a) && !is_size_value(b)) return std::nullopt;
  std::optional<arith::Expr> x = as_size(a), y = as_size(b);
  if (!x || !y) return std::nullopt;
  return op == "+" ? *x + *y : op == "-" ? *x - *y : *x * *y;
}

}  // namespace

Value Elaborator::elab_binary(const ast::Binary& b, const EnvPtr& env, const Syntax* syntax) {
  ir::Expr acc = data(Thunk{&b.first, env, syntax, {}}, fmt::format("the left operand of `{}`", b.rest.front().op));
  for (const auto& op : b.rest) {
    ir::Expr rhs = data(Thunk{&op.operand, env, syntax, {}}, fmt::format("the right operand of `{}`", op.op));
    std::optional<arith::Expr> size;
    try {
      size = size_arithmetic(op.op, acc, rhs);
    } catch (const Error& e) {
      if (e.loc().known()) throw;
      throw Error(e.message(), loc(op, syntax));  // an overflow of constant sizes
    }
    if (size) {
      SourceLoc at = acc.loc().known() ? acc.loc() : loc(op, syntax);
      acc = count(ir::make_call(ir::Prim::SizeValue, {*size}, {}, at));
    } else {
      acc = count(ir::make_call(ir::operator_prim(op.op, 2), {}, {acc, rhs}, loc(op, syntax)));
    }
  }
  return Value{acc, std::nullopt};
}

Value Elaborator::elab_let(const ast::Let& l, const EnvPtr& env, const Syntax* syntax) {
  Value value = elab(l.value, env, syntax);
  if (value.function) {
    // A let-bound function is inlined at its uses, like a function definition.
    Binding b;
    b.kind = Binding::Kind::Function;
    b.function = *value.function;
    return elab(l.body, push(env, l.name.text, std::move(b)), syntax);
  }
  OpenBinders open(open_binders_);
  std::string name = binder_name(l.name.text);
  open.add(name);
  ir::Expr body = data(Thunk{&l.body, push(env, l.name.text, local(name)), syntax, {}}, "the body of a let");
  return Value{count(ir::make_let(name, value.data, body, loc(l, syntax))), std::nullopt};
}

Value Elaborator::elab_postfix(const ast::Postfix& p, const EnvPtr& env, const Syntax* syntax) {
  Value current = elab(p.primary, env, syntax);
  SourceLoc at = loc(p.primary, syntax);
  for (const auto& op : p.ops) {
    if (auto* proj = boost::get<ast::Projection>(&op.get())) {
      if (proj->index > 1000) throw Error(fmt::format("tuple index {} is too large", proj->index), loc(*proj, syntax));
      ir::Expr tuple = data(current, at, "the operand of a projection");
      current = Value{count(ir::make_get(tuple, static_cast<int>(proj->index), loc(*proj, syntax))), std::nullopt};
      continue;
    }
    const auto& args = boost::get<ast::Arguments>(op.get());
    if (!current.function) throw Error("this expression is data, not a function: it cannot be applied", at);
    std::vector<Thunk> thunks;
    for (const auto& a : args.args) thunks.push_back(Thunk{&a, env, syntax, {}});
    current = apply(*current.function, thunks, at);
  }
  return current;
}

// ---- Application ---------------------------------------------------------------------

int Elaborator::missing_arguments(const Closure& f) const {
  const int given = static_cast<int>(f.given.size());
  switch (f.kind) {
    case Closure::Kind::Lambda:
      return static_cast<int>(f.lambda->params.size()) - given;
    case Closure::Kind::Function:
      return static_cast<int>(f.function->params.size()) - given;
    case Closure::Kind::Prim: {
      const auto& sig = ir::signature(f.prim);
      if (sig.variadic) return given >= 2 ? 0 : 2 - given;
      return sig.num_sizes + static_cast<int>(sig.operands.size()) - given;
    }
  }
  return 0;
}

Value Elaborator::apply(const Closure& f, const std::vector<Thunk>& args, const SourceLoc& loc) {
  std::vector<Thunk> all = f.given;
  all.insert(all.end(), args.begin(), args.end());
  switch (f.kind) {
    case Closure::Kind::Prim:
      return apply_prim(f, all, loc);
    case Closure::Kind::Lambda:
      return apply_lambda(f, all, loc);
    case Closure::Kind::Function:
      return expand(f, all, loc);
  }
  return {};
}

Value Elaborator::apply_prim(const Closure& f, const std::vector<Thunk>& all, const SourceLoc& loc) {
  const auto& sig = ir::signature(f.prim);
  const int n = static_cast<int>(all.size());
  const int operands = sig.variadic ? std::max(n, 2) : static_cast<int>(sig.operands.size());
  const int total = sig.num_sizes + operands;
  if (sig.variadic && n < 2) throw Error(fmt::format("{} takes at least 2 arguments, got {}", sig.name, n), loc);
  if (n > total)
    throw Error(fmt::format("{} takes {} ({}{}), but {} {} given", sig.name, plural(total, "argument"),
                            sig.num_sizes > 0 ? plural(sig.num_sizes, "size argument") + ", then " : "",
                            plural(operands, "operand"), n, n == 1 ? "is" : "are"),
                loc);
  if (n < sig.num_sizes)
    throw Error(fmt::format("{} needs its {} first; only {} given", sig.name, plural(sig.num_sizes, "size argument"),
                            n),
                loc);
  if (n < total) {  // partial application: a function of the missing operands
    Closure partial = f;
    partial.given = all;
    partial.loc = loc;
    return Value{{}, std::move(partial)};
  }
  std::vector<arith::Expr> sizes;
  for (int i = 0; i < sig.num_sizes; ++i) {
    const Thunk& t = all[static_cast<std::size_t>(i)];
    sizes.push_back(sig.index_function ? index_function(t)
                                       : size(t, fmt::format("size argument {} of {}", i + 1, sig.name)));
  }
  std::vector<ir::Expr> args;
  for (int j = 0; j < operands; ++j) {
    const Thunk& t = all[static_cast<std::size_t>(sig.num_sizes + j)];
    int code = sig.variadic ? 0 : sig.operands[static_cast<std::size_t>(j)];
    std::string what = fmt::format("argument {} of {}", sig.num_sizes + j + 1, sig.name);
    args.push_back(code == 0 ? data(t, what) : function(t, code, what));
  }
  return Value{count(ir::make_call(f.prim, std::move(sizes), std::move(args), loc)), std::nullopt};
}

Value Elaborator::apply_lambda(const Closure& f, const std::vector<Thunk>& all, const SourceLoc& loc) {
  const auto& params = f.lambda->params;
  const std::size_t n = params.size();
  const bool destructure = all.size() == 1 && n > 1;
  if (all.size() > n)
    throw Error(fmt::format("this lambda takes {}, but {} are given", plural(static_cast<int>(n), "parameter"),
                            all.size()),
                loc);
  if (all.size() < n && !destructure) {
    Closure partial = f;
    partial.given = all;
    return Value{{}, std::move(partial)};
  }
  std::vector<Value> values;
  bool all_data = true;
  for (const auto& t : all) {
    values.push_back(elab(t));
    all_data = all_data && !values.back().function;
  }
  if (all_data) {  // an IR application, as written
    Closure bare = f;
    bare.given.clear();
    std::vector<ir::Expr> actuals;
    for (auto& v : values) actuals.push_back(v.data);
    return Value{count(ir::make_apply(lambda_from_ast(bare), std::move(actuals), loc)), std::nullopt};
  }
  if (destructure) throw Error("a lambda applied to one argument destructures a tuple: the argument must be data", loc);
  // Some argument is a function: inline the body with the parameters bound to the arguments.
  EnvPtr env = f.env;
  for (std::size_t i = 0; i < n; ++i) env = push(env, params[i].text, argument(all[i]));
  return elab(f.lambda->body, env, f.syntax);
}

Value Elaborator::expand(const Closure& f, const std::vector<Thunk>& all, const SourceLoc& loc) {
  const FunctionDef& def = *f.function;
  const std::size_t n = def.params.size();
  if (all.size() > n)
    throw Error(fmt::format("{} takes {}, but {} are given", def.name, plural(static_cast<int>(n), "argument"),
                            all.size()),
                loc);
  if (all.size() < n) {
    Closure partial = f;
    partial.given = all;
    partial.loc = loc;
    return Value{{}, std::move(partial)};
  }
  EnvPtr env;  // a definition's body sees its parameters and the globals only
  for (std::size_t i = 0; i < n; ++i) env = push(env, def.params[i], argument(all[i]));
  PreludeCallScope scope(prelude_call_, def.from_prelude && !prelude_call_.known() ? loc : prelude_call_);
  DepthGuard guard(*this, [&] { return loc; });
  return elab(def.def->body, env, def.syntax);
}

// ---- Modes: data and functions -------------------------------------------------------

ir::Expr Elaborator::data(const Value& v, const SourceLoc& where, const std::string& what) {
  if (!v.function) return v.data;
  int missing = missing_arguments(*v.function);
  std::string needs = v.function->kind == Closure::Kind::Lambda
                          ? ""
                          : fmt::format(" (`{}` needs {})", v.function->text, plural(missing, "more argument"));
  throw Error(fmt::format("{} must be data, not a function{}", what, needs), where);
}

ir::Expr Elaborator::data(const Thunk& t, const std::string& what) { return data(elab(t), loc(t), what); }

ir::Expr Elaborator::function(const Thunk& t, int arity, const std::string& what) {
  Value v = elab(t);
  if (!v.function)
    throw Error(fmt::format("{} must be a function of {}, not data", what, plural(arity, "parameter")), loc(t));
  return to_lambda(*v.function, arity, what);
}

ir::Expr Elaborator::lambda_from_ast(const Closure& f) {
  OpenBinders open(open_binders_);
  EnvPtr env = f.env;
  std::vector<std::string> names;
  check_distinct_parameters(*f.lambda, f.syntax);
  for (const auto& p : f.lambda->params) {
    std::string name = binder_name(p.text);
    open.add(name);
    names.push_back(name);
    env = push(env, p.text, local(name));
  }
  ir::Expr body = data(Thunk{&f.lambda->body, env, f.syntax, {}}, "the body of a lambda");
  return count(ir::make_lambda(std::move(names), body, f.loc));
}

ir::Expr Elaborator::to_lambda(const Closure& f, int arity, const std::string& what) {
  if (f.kind == Closure::Kind::Lambda && f.given.empty()) {
    int n = static_cast<int>(f.lambda->params.size());
    if (n != arity && !(arity == 1 && n > 1))
      throw Error(fmt::format("{} must be a function of {}; this lambda takes {}", what, plural(arity, "parameter"),
                              plural(n, "parameter")),
                  f.loc);
    return lambda_from_ast(f);
  }
  if (f.kind == Closure::Kind::Prim) {
    const auto& sig = ir::signature(f.prim);
    if (static_cast<int>(f.given.size()) < sig.num_sizes)
      throw Error(fmt::format("{}: {} needs its {} here", what, sig.name, plural(sig.num_sizes, "size argument")),
                  f.loc);
  }
  int missing = missing_arguments(f);
  if (f.kind == Closure::Kind::Prim && ir::signature(f.prim).variadic && f.given.empty() && arity >= 2)
    missing = arity;
  if (missing != arity && !(arity == 1 && missing > 1))
    throw Error(fmt::format("{} must be a function of {}; `{}` needs {}", what, plural(arity, "parameter"), f.text,
                            plural(missing, "more argument")),
                f.loc);
  OpenBinders open(open_binders_);
  std::vector<std::string> names;
  std::vector<Thunk> params;
  for (int i = 0; i < missing; ++i) {
    std::string name = binder_name("x");
    open.add(name);
    names.push_back(name);
    params.push_back(Thunk{nullptr, nullptr, nullptr, count(ir::make_var(name, f.loc))});
  }
  ir::Expr body = data(apply(f, params, f.loc), f.loc, what);
  return count(ir::make_lambda(std::move(names), body, f.loc));
}

}  // namespace liftc::parse
