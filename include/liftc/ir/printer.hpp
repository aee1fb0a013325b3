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

}  // namespace liftc::ir
