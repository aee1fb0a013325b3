#pragma once
// Small AST queries shared by the elaborator (src/parse) and the rule loader (src/rewrite).

#include <type_traits>

#include "liftc/syntax/ast.hpp"

namespace liftc::syntax {

namespace x3 = boost::spirit::x3;

/// The position-tagged node an expression holds.
inline const x3::position_tagged& tagged(const ast::Expr& e) {
  return boost::apply_visitor(
      [](const auto& node) -> const x3::position_tagged& {
        using T = std::decay_t<decltype(node)>;
        if constexpr (std::is_base_of_v<x3::position_tagged, T>)
          return node;
        else
          return node.get();
      },
      e.get());
}

/// `e` without a precedence level that has no operators and a postfix without steps, and
/// (when `parentheses`) without parentheses around one expression. Iterative: nesting is deep.
inline const ast::Expr& unwrap(const ast::Expr& e, bool parentheses) {
  const ast::Expr* cur = &e;
  for (;;) {
    const auto& v = cur->get();
    if (auto* b = boost::get<x3::forward_ast<ast::Binary>>(&v); b && b->get().rest.empty()) {
      cur = &b->get().first;
    } else if (auto* p = boost::get<x3::forward_ast<ast::Postfix>>(&v); p && p->get().ops.empty()) {
      cur = &p->get().primary;
    } else if (auto* t = boost::get<x3::forward_ast<ast::Tuple>>(&v); parentheses && t && t->get().elems.size() == 1) {
      cur = &t->get().elems.front();
    } else {
      return *cur;
    }
  }
}

/// `e` without the wrappers that mean nothing: a precedence level without operators, a
/// postfix without steps, parentheses around one expression.
inline const ast::Expr& peel(const ast::Expr& e) { return unwrap(e, true); }

/// The literal a unary minus applies to directly (`-2`, `-1.5`, not `-(1.5)`), or null.
inline const ast::Expr* literal_operand(const ast::Expr& operand) {
  const ast::Expr& e = unwrap(operand, false);
  if (boost::get<ast::IntLit>(&e.get()) || boost::get<ast::FloatLit>(&e.get())) return &e;
  return nullptr;
}

}  // namespace liftc::syntax
