// The walk over size expressions shared by programs and rule files (see size_syntax.hpp).

#include "liftc/parse/size_syntax.hpp"

#include "liftc/syntax/peel.hpp"

namespace liftc::parse {

namespace {

namespace ast = syntax::ast;
namespace x3 = boost::spirit::x3;

// Applies an arith operation; its errors (division by zero, overflow) get a position.
template <typename F>
arith::Expr at(const SourceLoc& where, F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    if (e.loc().known()) throw;
    throw Error(e.message(), where);
  }
}

}  // namespace

arith::Expr read_size(const ast::Expr& expr, const SizeSyntax& how) {
  const ast::Expr& e = syntax::peel(expr);
  const SourceLoc here = how.loc(syntax::tagged(e));
  const auto& v = e.get();
  if (auto* i = boost::get<ast::IntLit>(&v)) return arith::Expr(static_cast<std::int64_t>(i->value));
  if (auto* n = boost::get<ast::Name>(&v)) return how.name(*n, here);
  if (how.leaves_only) throw how.not_a_size(here);
  if (auto* b = boost::get<x3::forward_ast<ast::Binary>>(&v)) {
    arith::Expr acc = read_size(b->get().first, how);
    for (const auto& op : b->get().rest) {
      if (op.op.size() != 1 || how.operators.find(op.op[0]) == std::string_view::npos) throw how.bad_operator(op, here);
      arith::Expr rhs = read_size(op.operand, how);
      acc = at(how.loc(op), [&] {
        switch (op.op[0]) {
          case '+': return acc + rhs;
          case '-': return acc - rhs;
          case '*': return acc * rhs;
          case '/': return acc / rhs;
          default: return acc % rhs;
        }
      });
    }
    return acc;
  }
  if (auto* u = boost::get<x3::forward_ast<ast::Unary>>(&v); u && u->get().op == "-" && how.negation) {
    arith::Expr operand = read_size(u->get().operand, how);
    return at(here, [&] { return -operand; });
  }
  if (auto* p = boost::get<x3::forward_ast<ast::Postfix>>(&v); p && how.call)
    if (auto size = how.call(p->get(), here)) return *size;
  throw how.not_a_size(here);
}

}  // namespace liftc::parse
