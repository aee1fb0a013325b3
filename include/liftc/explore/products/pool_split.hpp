#pragma once
// A convolution and the pooling over non-overlapping windows of its output written in one
// definition (a 2x2 max or average pooling with stride 2), explored as two layers: the
// convolution alone, which every dense strategy takes (register tiles, local memory, omega,
// GEMM, Winograd), and the pooling over it, which explore's convolution-pooling fusion
// (layers.hpp, conv_pool_fusions) fuses back into the one-definition layer as an
// alternative (the strategies conv-pool-tile, conv-pool-kappa and conv-pool-tile-rt), so the
// front shows the trade-off. residual.hpp splits a residual add off its convolution the same
// way.

#include <string>
#include <vector>

#include "liftc/explore/evaluation/evaluate.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/rewrite/load.hpp"

namespace liftc::explore {

/// One definition split into its convolution and the pooling over it.
struct PoolSplit {
  std::string definition;    // the definition (the pooling keeps its name)
  std::string convolution;   // the convolution's new definition, `NAME_conv` (a name the program has not)
  bool normal_form = false;  // split from the definition's normal form (rules' normal-form), not as written: its
                             // values may differ from the definition's by the rounding of another order of additions
  bool convolution_alone = true;  // `convolution` is the convolution alone; false: its values combined element-wise
                                  // with others after it (a residual add, which split_residuals splits off it)
};

/// A program with its convolutions pooled in their own definitions split (split_poolings).
struct PooledProgram {
  ir::Program program;            // each split definition replaced by its convolution and the pooling over it
  std::vector<PoolSplit> splits;  // in definition order; empty: none, `program` as given
};

/// `program` (parsed, its sizes with values) with each definition that pools a convolution's
/// output over non-overlapping windows split in two, in one of two forms:
/// - as written, `map2D(pool, slide2D(p, q, p, q, map2D(g, windows)))` (or over the prelude's
///   `tile2D(p, q, ...)`), p and q at least 2, the convolution `map2D(g, windows)` a 2D map
///   whose function reduces and that reads only inputs and earlier definitions, or what
///   combines its values element-wise with others (a residual add, `map2D(E, zip2D(map2D(g,
///   windows), y))`: anything that holds such a 2D map and reads only those), split off
///   whole, convolution_alone false: split_residuals then splits the convolution off it;
///   windows that overlap (any step: a 3x3 pooling with stride 2) where the function of a
///   window reads nothing but it, and windows of a padding or crop of the convolution's
///   output (`pad2D(0, -1, 0, -1, 0.0, conv)`, floor mode: the crop stays in the pooling);
/// - the convolution's outputs computed inside each pooling window (normal-form's
///   pool-windows-of-conv), `map2D(ww -> F(map2D(g, ww)), slide2D(p, q, p, q, windows))`, the
///   pooling window `ww` read only there;
/// - a channel-first (CHW) convolution pooled plane by plane, `map(pl -> F(pl), X)`, F taking
///   windows (as above; overlapping ones where F reads nothing but its plane) of its plane
///   `pl` or of what it computes of the plane alone (`map(join, pl)`, a crop of it), X
///   reading only inputs and earlier definitions and holding a 2D
///   map whose function reduces (the planes of `map((w, b) -> map2D(g, windows), ...)`, or
///   the channel-last convolution transposed to CHW, normal-form's form of them).
/// The convolution becomes `NAME_conv = map2D(g, windows)` (in the third form X) and the
/// definition `map2D(pool, slide2D(p, q, p, q, NAME_conv))` (in the second form, pool:
/// `pw -> F(pw)`; in the third `map(pl -> F(pl), NAME_conv)`): the same sums, the pooling's
/// reductions in the same order; add_pool_split_references checks it. A program with tuning
/// parameters (one a strategy rewrote) is not split.
/// With `rules`, a definition in neither form as written is split in its normal form
/// (`normal-form`) where that is one of them (a let of the convolution, tile2D's tiles of it
/// under a let; a batch of one image, `transpose(split(1, P))`: a pooling under a view, a
/// transpose, split or join, is split with the view kept on the pooling): the same values up
/// to the rounding of the additions' order where normal-form
/// reorders a sum (the bias as its start), which add_pool_split_references allows such a split.
PooledProgram split_poolings(const ir::Program& program, const rewrite::RuleSet* rules = nullptr);

/// Adds to `network.reference` the interpreter's values of the split-off convolutions (on
/// `network.inputs`) and checks that the split program computes each split definition's value
/// as the program does: a liftc::Error (an internal one) naming the definition otherwise.
void add_pool_split_references(Problem& network, const PooledProgram& split);

/// "pooled into pooled_conv (the convolution) and pooled (its pooling)", each split ("(the
/// convolution and what follows it)" where not convolution_alone).
std::string pool_splits_text(const PooledProgram& split);

}  // namespace liftc::explore
