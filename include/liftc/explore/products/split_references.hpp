#pragma once
// The references of definitions explore split into parts (split_groups, split_residuals): the
// split program is interpreted once, each split definition's value checked against the
// reference of the definition as written, and each part's value made a reference of its own.

#include <string>
#include <vector>

#include "liftc/explore/evaluation/evaluate.hpp"
#include "liftc/ir/program.hpp"

namespace liftc::explore {

/// A definition of the program that `split` splits.
struct SplitDefinition {
  std::string definition;          // its name, kept in the split program
  std::string described;           // for the error: "the grouped convolution 'c' split into its 2 groups"
  std::vector<std::string> parts;  // the split program's new definitions whose values become references
  bool up_to_rounding = false;     // its value may differ by rounding (the split adds in another order): each value
                                   // within interp::magnitude_tolerance * (1 + |value|), not bit for bit
};

/// A definition split into its convolution `convolution` and the layer over it (`over`: "the
/// layer over it", "the pooling over it"), from its normal form where `normal_form` says so
/// (then up to rounding): split_residuals' and split_poolings' splits.
SplitDefinition convolution_split(const std::string& definition, const std::string& convolution, bool normal_form,
                                  const std::string& over);

/// Interprets `split` on `network`'s inputs; each of `definitions` must compute the value
/// `network.reference` holds for it (bit for bit, or up to rounding where it says so; else a liftc::Error: an internal error, explore with
/// --whole-program), and each part's value is added to `network.reference`.
void add_split_references(Problem& network, const ir::Program& split, const std::vector<SplitDefinition>& definitions);

}  // namespace liftc::explore
