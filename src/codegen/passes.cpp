#include "liftc/codegen/passes.hpp"

#include "liftc/codegen/hoist.hpp"
#include "liftc/codegen/printer.hpp"
#include "liftc/codegen/vector_stores.hpp"

namespace liftc::codegen {

const std::vector<KernelPass>& kernel_passes() {
  static const std::vector<KernelPass> passes = {
      {"hoist", "loop-invariant expressions, guards and loads out of their loops",
       [](const Options& o) { return o.hoist; }, hoist_invariants},
      {"vector-stores", "a loop copying 2, 4, 8 or 16 consecutive values into a global buffer becomes one vstoreN",
       [](const Options& o) { return o.vector_stores; }, vectorize_stores},
  };
  return passes;
}

std::vector<std::string> pipeline_pass_names() {
  std::vector<std::string> names = {"parse", "typecheck", "bind-sizes", "plan", "lower"};
  for (const auto& p : kernel_passes()) names.push_back(p.name);
  return names;
}

std::string print_kernel(const c::Function& f) { return OpenCLPrinter().print(f); }

}  // namespace liftc::codegen
