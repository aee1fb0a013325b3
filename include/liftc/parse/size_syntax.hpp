#pragma once
// Size expressions (`N / 4 + 1`) -> arith::Expr: the one walk over integers, + - * / % and
// negation, shared by the elaborator (size arguments, array lengths) and the rule loader
// (a rule's size arguments and its guards). Each user is a SizeSyntax: what its names and
// calls mean, which operators it accepts, and the messages for what it does not.

#include <functional>
#include <optional>
#include <string_view>

#include "liftc/arith/expr.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/syntax/ast.hpp"

namespace liftc::parse {

/// One kind of size expression.
struct SizeSyntax {
  /// The binary operators accepted, of `+-*/%`.
  std::string_view operators = "+-*/%";
  /// Whether unary minus is accepted.
  bool negation = true;
  /// Only a name or an integer: anything else is `not_a_size` at the whole expression.
  bool leaves_only = false;
  /// The position of a node.
  std::function<SourceLoc(const boost::spirit::x3::position_tagged&)> loc;
  /// The size a name denotes (or a liftc::Error).
  std::function<arith::Expr(const syntax::ast::Name&, const SourceLoc&)> name;
  /// The size a call denotes (`min(a, b)`, `length(x)`); empty or nullopt: not a size.
  std::function<std::optional<arith::Expr>(const syntax::ast::Postfix&, const SourceLoc&)> call;
  /// The error for an operator it does not accept, given the position of the whole chain.
  std::function<Error(const syntax::ast::Operation&, const SourceLoc&)> bad_operator;
  /// The error for an expression that is no size, at its position.
  std::function<Error(const SourceLoc&)> not_a_size;
};

/// `e` as a size expression of kind `how`. Arithmetic errors (division by zero, overflow)
/// get the position of their operator.
arith::Expr read_size(const syntax::ast::Expr& e, const SizeSyntax& how);

}  // namespace liftc::parse
