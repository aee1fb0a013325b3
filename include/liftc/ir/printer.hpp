#pragma once
// Prints IR back in .sr syntax. The output parses back to an alpha-equal program
// (tested), so rewritten programs can be saved and run.

#include <string>

#include "liftc/ir/expr.hpp"

namespace liftc::ir {

/// One expression, on one line.
std::string to_string(const Expr& e);
/// A whole program: sizes, inputs, definitions (no function definitions: they are expanded).
std::string to_string(const Program& p);
/// One size declaration without `size`: `N = 64`, `r_1 in 0..64`.
std::string to_string(const SizeDecl& s);

/// Where an expression's text stands: how deeply the parser is nested there (the body of a
/// definition is at 1) and the precedence its place requires (lower binds looser; an
/// expression of lower precedence is printed in parentheses, one level deeper).
struct PrintContext {
  int nesting = 1;
  int precedence = 0;
};

/// The context of child `i` (an index into e->args) of `e` printed in `at`.
PrintContext child_context(const Expr& e, std::size_t i, PrintContext at = {});

/// The deepest nesting the parser reaches reading to_string(e) printed in `at` (its
/// depth_guard levels: every parenthesis, argument list, lambda or let body and unary
/// operator), so a rewriter can keep what it prints readable; exact except for size
/// arguments, whose nesting is over-estimated by their expression's depth.
int nesting_depth(const Expr& e, PrintContext at = {});

}  // namespace liftc::ir
