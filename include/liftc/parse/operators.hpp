#pragma once
// What the .sr operators mean: the one table from an operator's spelling to its primitive,
// read by the elaborator (programs) and by the rule loader (rule patterns).

#include <string_view>

#include "liftc/ir/prim.hpp"

namespace liftc::parse {

/// The primitive a binary operator (`+`, `<=`, `&&`, ...) of the grammar denotes.
ir::Prim binary_operator_prim(std::string_view op);

/// The primitive a unary operator (`-`, `!`) of the grammar denotes.
ir::Prim unary_operator_prim(std::string_view op);

}  // namespace liftc::parse
