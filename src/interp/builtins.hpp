#pragma once
// Scalar builtins on fp32 / int32 / bool values, element-wise on vectors with scalars
// broadcast (OpenCL C semantics: int division and remainder truncate toward zero; int
// overflow wraps around; comparisons give bool).

#include "liftc/ir/prim.hpp"
#include "value.hpp"

namespace liftc::interp::detail {

/// Whether `p` is a scalar builtin (Add .. ToFloat, and Dot).
bool is_builtin(ir::Prim p);

/// Applies builtin `p` to its evaluated operands (`n` of them, all scalars or vectors).
/// Integer division or remainder by zero is a liftc::Error.
Value apply_builtin(ir::Prim p, const Value* args, int n);

}  // namespace liftc::interp::detail
