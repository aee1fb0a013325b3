#pragma once
// The passes of code generation after lowering, as an ordered list in one place (in the
// style of Halide's Lower.cpp): each one rewrites a kernel's C syntax tree, and each can be
// printed after it ran (`liftc compile --dump-after PASS`).
//
// The whole pipeline of `compile` and `run`, in order:
//   parse       .sr text -> IR (prelude functions expanded)
//   typecheck   types with symbolic sizes
//   bind-sizes  every size bound (--size, --params), types checked again with numbers
//   plan        each definition -> the kernels it needs, their launches and memory
//               (plan_kernels, plan.hpp; decided before anything is lowered)
//   lower       each planned kernel, once -> a C syntax tree; the memory plan, launches
//   hoist       loop-invariant code out of loops (hoist.cpp; off with --no-hoist)
//   vector-stores  copy loops of 2-16 values -> one vstoreN (vector_stores.cpp; off with --no-vector-stores)
// and then printing as OpenCL C.

#include <functional>
#include <string>
#include <vector>

#include "liftc/codegen/c_ast.hpp"
#include "liftc/codegen/module.hpp"

namespace liftc::codegen {

/// A pass over a lowered kernel.
struct KernelPass {
  std::string name;                                    // its name for --dump-after
  std::string what;                                    // one line: what it does
  std::function<bool(const Options&)> enabled;         // whether the options ask for it
  std::function<c::Function(const c::Function&)> run;  // the pass itself
};

/// The kernel passes, in the order generate() runs them after lowering.
const std::vector<KernelPass>& kernel_passes();

/// Every pass name --dump-after accepts, in pipeline order: the program passes (parse,
/// typecheck, bind-sizes), plan, lower, then the kernel passes.
std::vector<std::string> pipeline_pass_names();

/// Prints `f` as OpenCL C (what a dump after a kernel pass shows).
std::string print_kernel(const c::Function& f);

}  // namespace liftc::codegen
