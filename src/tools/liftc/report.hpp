#pragma once
// Printing a generated module's kernels, launch sizes and memory plan.

#include "liftc/codegen/module.hpp"

namespace liftc::tool {

/// One line per kernel (NDRange) and the memory footprint, with bound sizes evaluated.
void print_module_summary(const codegen::Module& module);

}  // namespace liftc::tool
