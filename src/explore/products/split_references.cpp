#include "liftc/explore/products/split_references.hpp"

#include <fmt/format.h>

#include "liftc/interp/interp.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace liftc::explore {

void add_split_references(Problem& network, const ir::Program& split, const std::vector<SplitDefinition>& definitions) {
  if (definitions.empty()) return;
  interp::Tensors values = interp::evaluate(typecheck::typecheck(ir::bind_sizes(split, {})).program, network.inputs);
  for (const auto& d : definitions) {
    auto whole = network.reference.find(d.definition);
    auto parts = values.find(d.definition);
    if (whole == network.reference.end() || parts == values.end() || whole->second.shape != parts->second.shape ||
        whole->second.f32 != parts->second.f32)
      throw Error(fmt::format("{}: {} does not compute its value (an internal error: explore it with --whole-program)",
                              network.file, d.described));
    for (const auto& p : d.parts) network.reference[p] = values.at(p);
  }
}

}  // namespace liftc::explore
