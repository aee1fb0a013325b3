#include "liftc/explore/products/split_references.hpp"

#include <cmath>

#include <fmt/format.h>

#include "liftc/interp/interp.hpp"
#include "liftc/runtime/validate.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace liftc::explore {

namespace {

// Whether `got` is `want`, bit for bit, or each value within the interpreter's tolerance of
// a reassociated sum where `up_to_rounding`; stored as halves (`half`), one half ulp more: two
// float sums that differ by that tolerance may round to adjacent halves.
bool same_values(const std::vector<float>& want, const std::vector<float>& got, bool up_to_rounding, bool half) {
  if (!up_to_rounding || want.size() != got.size()) return want == got;
  double rtol = interp::magnitude_tolerance + (half ? runtime::Tolerance::kHalfRtol : 0.0);
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!(std::fabs(double(want[i]) - got[i]) <= rtol * (1.0 + std::fabs(double(want[i]))))) return false;
  return true;
}

}  // namespace

void add_split_references(Problem& network, const ir::Program& split, const std::vector<SplitDefinition>& definitions) {
  if (definitions.empty()) return;
  interp::Tensors values = interp::evaluate(typecheck::typecheck(ir::bind_sizes(split, {})).program, network.inputs);
  for (const auto& d : definitions) {
    auto whole = network.reference.find(d.definition);
    auto parts = values.find(d.definition);
    if (whole == network.reference.end() || parts == values.end() || whole->second.shape != parts->second.shape ||
        !same_values(whole->second.f32, parts->second.f32, d.up_to_rounding, split.half.count(d.definition) > 0))
      throw Error(fmt::format("{}: {} does not compute its value (an internal error: explore it with --whole-program)",
                              network.file, d.described));
    for (const auto& p : d.parts) network.reference[p] = values.at(p);
  }
}

SplitDefinition convolution_split(const std::string& definition, const std::string& convolution, bool normal_form,
                                  const std::string& over) {
  return {definition, fmt::format("'{}' split into its convolution '{}' and {}", definition, convolution, over),
          {convolution}, normal_form};
}

}  // namespace liftc::explore
