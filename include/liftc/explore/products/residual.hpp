#pragma once
// A convolution whose own definition then combines each output value with another value of
// its shape (a ResNet skip connection's add, and a ReLU or anything element-wise after it)
// explored as two layers: the convolution alone, which every dense strategy takes (register
// tiles, local memory, omega, GEMM, Winograd), and a one-to-one layer over it, which the
// one-to-one fusion (layers.hpp) fuses back into the convolution's epilogue as an
// alternative, so the front shows the trade-off.

#include <string>
#include <vector>

#include "liftc/explore/evaluation/evaluate.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/rewrite/load.hpp"

namespace liftc::explore {

/// One definition split into its convolution and the element-wise layer over it.
struct ResidualSplit {
  std::string definition;   // the definition (the element-wise layer keeps its name)
  std::string convolution;  // the convolution's new definition, `NAME_conv` (a name the program has not)
  std::string other;        // what the element-wise layer combines the convolution's output with (its free variables
                            // but the convolution, comma-separated)
  bool normal_form = false;  // split from the definition's normal form (rules' normal-form), not as written: its
                             // values may differ from the definition's by the rounding of another order of additions
};

/// A program with its convolutions that add a residual split (split_residuals).
struct ResidualProgram {
  ir::Program program;                // each split definition replaced by its convolution and the layer over it
  std::vector<ResidualSplit> splits;  // in definition order; empty: none, `program` as given
};

/// `program` (parsed, its sizes with values) with each definition that computes a 2D map
/// whose function reduces (a convolution) and then combines its output, value by value, with
/// another value (an input or an earlier definition) split in two, in one of two forms:
/// - the convolution a closed part of the definition, `E(map2D(g, windows), y)`, E
///   element-wise (the form explore's one-to-one fusion makes of `conv` and `out`);
/// - the windows zipped with the other value, `map2D(p -> E(G(p.0), p.1), zip2D(windows, y))`
///   (or `(s, t) -> E(G(s), t)`), G the reduction over a window (and what follows it before
///   the combination: the bias, an activation), E element-wise.
/// The convolution becomes `NAME_conv = map2D(g, windows)` (or `map2D(s -> G(s), windows)`)
/// and the definition E over it. The element-wise layer has as many values as the convolution
/// (a residual add needs as many output channels as input channels). Each adds the same
/// values in the same order: add_residual_references checks it. A program with tuning
/// parameters (one a strategy rewrote) is not split.
/// With `rules`, a definition in neither form as written is split in its normal form
/// (`normal-form`) where that is one of them: the other image zipped first
/// (`zip2D(image, windows)`), or its values in the sums' start (`reduce(b + r, ...)`, which
/// normal-form adds after the sums instead: the same values up to the rounding of the
/// additions' order, which add_residual_references allows such a split).
ResidualProgram split_residuals(const ir::Program& program, const rewrite::RuleSet* rules = nullptr);

/// Adds to `network.reference` the interpreter's values of the split-off convolutions (on
/// `network.inputs`) and checks that the split program computes each split definition's value
/// as the program does: a liftc::Error (an internal one) naming the definition otherwise.
void add_residual_references(Problem& network, const ResidualProgram& split);

/// "out into out_conv (the convolution) and out (its values combined with image)", each split.
std::string residual_splits_text(const ResidualProgram& split);

}  // namespace liftc::explore
