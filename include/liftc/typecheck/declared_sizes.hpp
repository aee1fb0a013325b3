#pragma once
// A checked program's obligations at its declared sizes (`size C = 3`): those the sizes deny,
// so that the program has no valid point whatever its tuning parameters (a rewrite's
// alternative whose vector width does not divide a window: `asVector(8)` of `9*C` values).

#include <string>
#include <vector>

#include "liftc/typecheck/typecheck.hpp"

namespace liftc::typecheck {

/// The obligations of `checked` that its program's declared sizes deny: every size in one
/// has a value (`size C = 3`) and it is false there (`8 divides 9*C`: 8 does not divide 27).
/// One with a tuning parameter or a size without a value is undecided, so not denied.
std::vector<Obligation> denied_by_declared_sizes(const Checked& checked);

/// `o` at the declared sizes of `program`, in words: `8 divides 27 (asVector(8) of an array
/// of length 9*C)`.
std::string at_declared_sizes(const Obligation& o, const ir::Program& program);

}  // namespace liftc::typecheck
