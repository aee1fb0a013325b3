#pragma once
// Where the magnitude of a computation through constant arrays (Winograd's transforms) is
// cheapest to interpret: the validation's tolerance for such a program grows with the
// largest value of its computation on absolute values (interp::evaluate_magnitude), which
// the alternatives sharing its constant arrays compute alike. The rules after the step
// that brings the arrays in only regroup and map the same sums (tiles, local copies,
// register arrays), and those are what make the interpreter slow.

#include <map>
#include <string>

#include "liftc/ir/program.hpp"
#include "liftc/rewrite/engine.hpp"
#include "liftc/rewrite/load.hpp"

namespace liftc::explore {

/// The constant arrays of a program's definitions (their values, in order), as text: what
/// tells Winograd F(2x2) from F(4x4) apart; empty for a program without any.
std::string constant_arrays_of(const ir::Program& p);

/// For the named strategy whose body is a sequence (or a fallback whose first branch is
/// one): `program` rewritten by the shortest prefix of that sequence that leaves constant
/// arrays, one program per set of arrays (constant_arrays_of) among its alternatives, each
/// without tuning parameters (one that has some is left out: the magnitude is interpreted
/// at the program's own sizes). Empty when no prefix does (a strategy without constant
/// arrays, or one that is no sequence).
std::map<std::string, ir::Program> magnitude_forms(const rewrite::RuleSet& rules, const std::string& strategy,
                                                   const ir::Program& program);

}  // namespace liftc::explore
