// Elaboration of size expressions (static arguments of primitives, array lengths) into
// arith::Expr, and of types.

#include <fmt/format.h>

#include "elaborator.hpp"
#include "liftc/parse/size_syntax.hpp"

namespace liftc::parse {

arith::Expr Elaborator::size(const Thunk& t, const std::string& what) {
  if (t.expr == nullptr) throw Error(fmt::format("{} must be a size expression", what), loc(t));
  PreludeCallScope scope(prelude_call_, call_site_of(t));
  return size(*t.expr, t.env, t.syntax, what);
}

arith::Expr Elaborator::size(const ast::Expr& expr, const EnvPtr& env, const Syntax* syntax, const std::string& what) {
  SizeSyntax how;
  how.loc = [&](const x3::position_tagged& node) { return loc(node, syntax); };
  how.not_a_size = [&](const SourceLoc& here) { return Error(fmt::format("{} must be a size expression", what), here); };
  how.bad_operator = [&](const ast::Operation&, const SourceLoc& here) { return how.not_a_size(here); };
  // A size variable of the program, or a function parameter whose argument is a size.
  how.name = [&](const ast::Name& n, const SourceLoc& here) -> arith::Expr {
    for (const Env* frame = env.get(); frame != nullptr; frame = frame->parent.get()) {
      if (frame->name != n.text) continue;
      if (frame->binding.kind != Binding::Kind::Argument) throw how.not_a_size(here);
      DepthGuard guard(*this, [&] { return here; });
      return size(frame->binding.argument, what);
    }
    auto it = globals_.find(n.text);
    if (it != globals_.end() && it->second.kind == Global::Kind::Size) return it->second.size;
    if (it == globals_.end() && !ir::prim_from_name(n.text) && !prelude_functions_.count(n.text))
      unknown_name(n.text, here, env);
    throw how.not_a_size(here);
  };
  // min(a, b) and max(a, b).
  how.call = [&](const ast::Postfix& post, const SourceLoc& here) -> std::optional<arith::Expr> {
    auto* callee = boost::get<ast::Name>(&peel(post.primary).get());
    if (callee == nullptr || (callee->text != "min" && callee->text != "max") || post.ops.size() != 1)
      return std::nullopt;
    auto* args = boost::get<ast::Arguments>(&post.ops.front().get());
    if (args == nullptr || args->args.size() != 2) return std::nullopt;
    DepthGuard guard(*this, [&] { return here; });
    arith::Expr a = size(args->args[0], env, syntax, what);
    arith::Expr b = size(args->args[1], env, syntax, what);
    return callee->text == "min" ? arith::min(a, b) : arith::max(a, b);
  };
  return read_size(expr, how);
}

const ast::Arguments* stridden_index_arguments(const ast::Expr& e) {
  auto* p = boost::get<x3::forward_ast<ast::Postfix>>(&peel(e).get());
  if (p == nullptr || p->get().ops.size() != 1) return nullptr;
  auto* callee = boost::get<ast::Name>(&peel(p->get().primary).get());
  if (callee == nullptr || callee->text != "striddenIndex") return nullptr;
  return boost::get<ast::Arguments>(&p->get().ops.front().get());
}

arith::Expr Elaborator::index_function(const Thunk& t) {
  const std::string expected = "the first argument of reorder must be an index function, striddenIndex(s)";
  if (t.expr == nullptr) throw Error(expected, loc(t));
  const ast::Expr& e = peel(*t.expr);
  if (auto* n = boost::get<ast::Name>(&e.get())) {
    for (const Env* frame = t.env.get(); frame != nullptr; frame = frame->parent.get()) {
      if (frame->name != n->text) continue;
      if (frame->binding.kind != Binding::Kind::Argument) break;
      DepthGuard guard(*this, [&] { return loc(t); });
      return index_function(frame->binding.argument);
    }
    throw Error(expected, loc(t));
  }
  const ast::Arguments* args = stridden_index_arguments(e);
  if (args == nullptr) throw Error(expected, loc(t));
  if (args->args.size() != 1)
    throw Error(fmt::format("striddenIndex takes 1 argument, got {}", args->args.size()), loc(t));
  return size(Thunk{&args->args.front(), t.env, t.syntax, {}}, "the stride of striddenIndex");
}

ir::Type Elaborator::elab_type(const ast::Type& t, const Syntax& syntax) {
  const auto& v = t.get();
  if (auto* n = boost::get<ast::Name>(&v)) {
    static const std::pair<const char*, ir::ScalarKind> scalars[] = {
        {"float", ir::ScalarKind::Float}, {"int", ir::ScalarKind::Int}, {"bool", ir::ScalarKind::Bool}};
    for (const auto& [spelling, kind] : scalars) {
      std::string s = spelling;
      if (n->text == s) return ir::Type::scalar(kind);
      if (kind == ir::ScalarKind::Bool || n->text.rfind(s, 0) != 0) continue;
      for (int width : {2, 3, 4, 8, 16})
        if (n->text == s + std::to_string(width)) return ir::Type::vector(kind, width);
    }
    throw Error(fmt::format("unknown type `{}` (types: float, int, bool, float2..float16, int2..int16, "
                            "tuples (T, U), arrays [T]n)",
                            n->text),
                syntax.loc(*n));
  }
  if (auto* a = boost::get<x3::forward_ast<ast::ArrayType>>(&v)) {
    ir::Type elem = elab_type(a->get().elem, syntax);
    return ir::Type::array(elem, size(a->get().length, nullptr, &syntax, "an array length"));
  }
  const auto& tuple = boost::get<x3::forward_ast<ast::TupleType>>(v).get();
  if (tuple.elems.size() == 1) return elab_type(tuple.elems.front(), syntax);
  std::vector<ir::Type> elems;
  for (const auto& el : tuple.elems) elems.push_back(elab_type(el, syntax));
  return ir::Type::tuple(std::move(elems));
}

}  // namespace liftc::parse
