#pragma once
// The .sr abstract syntax tree, as Spirit X3 parses it (src/syntax/grammar_def.hpp).
//
// Every node derives from x3::position_tagged: the parser's annotation handler records
// where each node starts and ends (syntax::Positions::loc turns that into a SourceLoc).
// The tree mirrors the concrete syntax (one Binary per precedence level, parentheses
// kept as one-element Tuples); src/parse's elaborator gives a program meaning, and
// src/rewrite's loader a rule's patterns (rule_ast.hpp reuses these expressions).

#include <optional>
#include <string>
#include <vector>

#include <boost/spirit/home/x3/support/ast/position_tagged.hpp>
#include <boost/spirit/home/x3/support/ast/variant.hpp>

namespace liftc::syntax::ast {

namespace x3 = boost::spirit::x3;

/// An identifier: a variable, size, input, definition or primitive name.
struct Name : x3::position_tagged {
  std::string text;
};

/// An integer literal `12`.
struct IntLit : x3::position_tagged {
  long long value = 0;
};

/// A float literal `1.0`, `.5`, `1e-3`, `2.5f`.
struct FloatLit : x3::position_tagged {
  double value = 0.0;
};

struct Tuple;
struct Lambda;
struct Let;
struct Binary;
struct Unary;
struct Postfix;

/// Any expression.
struct Expr : x3::variant<Name, IntLit, FloatLit, x3::forward_ast<Tuple>, x3::forward_ast<Lambda>,
                          x3::forward_ast<Let>, x3::forward_ast<Binary>, x3::forward_ast<Unary>,
                          x3::forward_ast<Postfix>> {
  using base_type::base_type;
  using base_type::operator=;
};

/// `(a, b, ...)`; with one element, a parenthesised expression.
struct Tuple : x3::position_tagged {
  std::vector<Expr> elems;
};

/// `x -> body` or `(x, y) -> body`.
struct Lambda : x3::position_tagged {
  std::vector<Name> params;
  Expr body;
};

/// `let name = value in body`.
struct Let : x3::position_tagged {
  Name name;
  Expr value;
  Expr body;
};

/// One `op operand` step of a left-associative chain; tagged at the operator.
struct Operation : x3::position_tagged {
  std::string op;
  Expr operand;
};

/// `first op1 operand1 op2 operand2 ...` at one precedence level (left-associative).
struct Binary : x3::position_tagged {
  Expr first;
  std::vector<Operation> rest;
};

/// `-operand` or `!operand`.
struct Unary : x3::position_tagged {
  std::string op;
  Expr operand;
};

/// `.i`: tuple projection.
struct Projection : x3::position_tagged {
  unsigned index = 0;
};

/// `(a, b, ...)` after an expression: a call.
struct Arguments : x3::position_tagged {
  std::vector<Expr> args;
};

/// A postfix step: projection or call.
struct PostfixOp : x3::variant<Projection, Arguments> {
  using base_type::base_type;
  using base_type::operator=;
};

/// `primary op op ...`, e.g. `f(x)(y).0`.
struct Postfix : x3::position_tagged {
  Expr primary;
  std::vector<PostfixOp> ops;
};

struct ArrayType;
struct TupleType;

/// A type: a named scalar or vector (`float`, `int4`), an array or a tuple.
struct Type : x3::variant<Name, x3::forward_ast<ArrayType>, x3::forward_ast<TupleType>> {
  using base_type::base_type;
  using base_type::operator=;
};

/// `[elem]length`; the length is an int literal, a size name or `(size expression)`.
struct ArrayType : x3::position_tagged {
  Type elem;
  Expr length;
};

/// `(T1, T2, ...)`; with one element, a parenthesised type.
struct TupleType : x3::position_tagged {
  std::vector<Type> elems;
};

/// `in 0..64` after a size name: the values it may take (a tuning parameter's range).
struct SizeRange : x3::position_tagged {
  long long lo = 0;
  long long hi = 0;
};

/// `N`, `N = 64` or `r in 0..64` inside a size declaration.
struct SizeItem : x3::position_tagged {
  Name name;
  std::optional<long long> value;
  std::optional<SizeRange> range;
};

/// `size N = 64, M`.
struct SizeDecl : x3::position_tagged {
  std::vector<SizeItem> items;
};

/// `input name : type`.
struct InputDecl : x3::position_tagged {
  Name name;
  Type type;
};

/// `def name = body` (a value: an output) or `def name(p, ...) = body` (a function: a macro).
struct Def : x3::position_tagged {
  Name name;
  std::optional<std::vector<Name>> params;
  Expr body;
};

/// One top-level declaration.
struct Decl : x3::variant<SizeDecl, InputDecl, Def> {
  using base_type::base_type;
  using base_type::operator=;
};

/// A whole source file.
struct Program {
  std::vector<Decl> decls;
};

}  // namespace liftc::syntax::ast
