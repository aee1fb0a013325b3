#pragma once
// Loop-invariant code motion on the C syntax tree: the pass between lowering and printing.
//
// A pure expression that a loop computes with the same value in every iteration (index
// arithmetic, a guard's condition, a load from a buffer the loop does not write) becomes a
// `const` local before the loop, and the loop uses its name; loops are treated innermost
// first, so a value climbs out of every loop it does not depend on. A sum of which only
// some terms are invariant (`58*g_0 + 3364*i + j`) keeps the variant terms and gets the
// invariant ones as one precomputed offset. The printer stays a printer.

#include "liftc/codegen/c_ast.hpp"

namespace liftc::codegen {

/// `f` with loop-invariant expressions hoisted out of their loops (see above). Loads and
/// integer divisions move only where they would have run anyway: out of a loop that
/// provably runs at least once, and not from under an `if`, a `?:` branch or the right side
/// of `&&`/`||`. Index arithmetic of private arrays stays (it folds away when their loops
/// are unrolled, which is what keeps them in registers).
c::Function hoist_invariants(const c::Function& f);

}  // namespace liftc::codegen
