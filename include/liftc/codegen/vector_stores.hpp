#pragma once
// Vector stores on the C syntax tree: a pass between lowering (and hoisting) and printing.
//
// A loop of 2, 4, 8 or 16 iterations whose whole body copies one scalar to a global buffer,
// both addresses advancing by one element per iteration, as the output of a register tile
// does (`for (i < 4) conv[i + o] = acc[4*j + i];`), becomes one vector store of a vector
// load (`vstore4(vload4(0, acc + 4*j), 0, conv + o)`): one wide write where the loop made
// 4 narrow ones. The values and the order of writes within the work-item are unchanged.

#include "liftc/codegen/c_ast.hpp"

namespace liftc::codegen {

/// `f` with such copy loops replaced by one vector store each (see above). A store target
/// is global when `f` does not declare it (private and local arrays are declared in the
/// kernel's body; buffers are its parameters).
c::Function vectorize_stores(const c::Function& f);

}  // namespace liftc::codegen
