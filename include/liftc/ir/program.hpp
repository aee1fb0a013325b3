#pragma once
// Whole-program utilities.

#include <map>
#include <string>
#include <vector>

#include "liftc/ir/expr.hpp"

namespace liftc::ir {

/// Gives every size its value: declared values, overridden by `overrides`. A size with no
/// value in either is a liftc::Error naming it; an override of an undeclared size too.
/// The result's size declarations all have values and every length in every type and
/// size argument is a constant (re-run type checking to refresh node types).
Program bind_sizes(const Program& p, const std::map<std::string, long long>& overrides);

/// The values of the sizes of a program whose sizes are all bound.
std::map<std::string, std::int64_t> size_values(const Program& p);

/// The names `p` declares: its sizes, inputs and definitions (what a new definition's name
/// must avoid: fresh_name).
std::vector<std::string> declared_names(const Program& p);

}  // namespace liftc::ir
