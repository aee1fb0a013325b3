#pragma once
// A grouped convolution (G groups, each of M/G kernels over its own C/G of the image's
// channels) explored as an alternative of its own: G dense convolutions, one per group,
// each over its group's channels of the image (a view: each pixel's channels cropped to the
// group's) with its group's kernels and biases (views: the weights and biases cropped to
// the group), and their outputs concatenated per pixel under the convolution's name. Each
// group is a dense convolution, so every dense strategy (register tiles, local memory,
// GEMM, Winograd, ...) applies to it; the grouped convolution whole keeps the strategies
// that take its groups on a dimension of their own (conv-chw-kappa, conv-gpu, conv-naive).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "liftc/constraints/space.hpp"
#include "liftc/explore/evaluation/evaluate.hpp"
#include "liftc/explore/products/layers.hpp"
#include "liftc/rewrite/load.hpp"

namespace liftc::explore {

/// One grouped convolution split by group.
struct GroupSplit {
  std::string definition;          // the grouped convolution's definition (the concatenation keeps its name)
  std::int64_t groups = 0;         // G
  std::int64_t channels = 0;       // C/G: each group's channels of the image
  std::vector<std::string> parts;  // the groups' definitions, `conv_g0`, `conv_g1`, ... (names the program has not)
  std::vector<std::string> readers;  // the later definitions that read the grouped convolution
  // An epilogue split (GroupedProgram::epilogues): the grouped convolution whose groups its
  // parts take in, `definition` being its one reader; empty for a grouped convolution's own split.
  std::string fused;
};

/// A program with its grouped convolutions split (split_groups).
struct GroupedProgram {
  ir::Program program;             // each grouped convolution replaced by its groups and their concatenation
  std::vector<GroupSplit> splits;  // in definition order; empty: no grouped convolution, `program` as given
  // `program` with each concatenation that later definitions read substituted into them (a
  // view: each reads the groups' outputs where it read the grouped convolution's) and its
  // definition removed: no pass and no buffer for it. No definitions: no split is read.
  ir::Program read_through;
  // The grouped convolutions (in grouped.sr's form: not written per group, whose layout puts
  // the groups' outputs back in an order of its own) whose one reader is element-wise over
  // each of their values (a residual add, an activation: maps, zips and scalars only, every
  // other value it reads of the convolution's type, its output too) with that reader split
  // by group too: part g is
  // the reader over group g's dense convolution and the other values' pixels cropped to group
  // g's channels (views), so the reader is each group's epilogue; the reader's definition is
  // its parts' concatenation per pixel, and the convolution has no definition (no buffer).
  // No definitions: no such reader.
  ir::Program epilogues;
  std::vector<GroupSplit> epilogue_splits;  // the readers split (GroupSplit::fused: the convolution each takes in)
};

/// `program` (parsed, its sizes with values) with each grouped convolution split: a
/// definition that, as a program of its own after `normal-form` of `rules`, is a 2D map
/// over slide2D's windows of one image whose function joins a map over the groups'
/// `(kernels, biases, window channels)`, each group's window channels `split(C/G, ...)` of
/// the window's pixels (examples/conv/forms/grouped.sr's form), or a 2D map over pixels of
/// the groups' windows, `map2D(pix -> map(F, zip(KW, KB, pix)), windows)`, under a layout
/// (grouped_per_group.sr's: group g's windows are then the g-th of each pixel's, a view, and
/// the concatenation is split back into the groups' for the layout). Each becomes G
/// definitions, group g's the dense convolution `map2D(window -> map((w, b) -> R, zip(KW_g,
/// KB_g)), windows of the image cropped to channels g*C/G .. (g+1)*C/G - 1)` (R: the sum of a
/// (kernel, bias) pair as written; KW_g, KB_g: the kernels and biases cropped to group g,
/// `join(pad(-g, g + 1 - G, 0.0, KW))`), then the definition itself, each pixel the
/// concatenation of the groups' pixels. The interpreter's values are the same (each sum
/// adds the same products in the same order), but for a bias the definition adds after
/// its sums, which the normal form adds first: add_group_references checks them equal up
/// to that rounding. The groups
/// are stored as `program` stores the grouped convolution (ir::Program::half: its name there,
/// theirs too), an epilogue split's parts as it stores their reader.
GroupedProgram split_groups(const ir::Program& program, const rewrite::RuleSet& rules);

/// The variants of a network (or one-definition program) that run the split program's
/// definitions: its layers found in `layers` (those as written, split_layers) or appended,
/// the groups and their concatenation with Layer::group_of set, and where a later definition
/// reads a split grouped convolution a second variant, `read_through`'s, whose readers take
/// the concatenation in (Layer::fused: the grouped convolution's name). Layers of one shape
/// are explored once, as split_layers finds them, and so are the groups of one split: each
/// group after the first takes the first as same_as (its code from group_space). Where
/// `split` has epilogues, a variant of their layers too: each part with Layer::group_of the
/// reader's name and Layer::fused the grouped convolution's ("conv+block_g0"), their
/// concatenation with Layer::group_of its own name. None when `split` has no splits.
std::vector<NetworkVariant> add_group_split_layers(const GroupedProgram& split, std::vector<Layer>& layers);

/// The space of group layer `layer` where another group of the same split grouped
/// convolution was explored in its stead (add_group_split_layers makes the groups of a
/// split one shape: the same program but for the channels, kernels and biases each crops):
/// `layer`'s program rewritten by `explored`'s strategy, its alternative of the same number,
/// on the same target. Its parameters are `explored`'s, in the same order (the kernels' own
/// work-group sizes named after `layer`'s kernels), so that `explored`'s points are its
/// points; a liftc::Error (an internal one) where the rewrite gives another structure.
constraints::Space group_space(const constraints::Space& explored, const Layer& layer, const rewrite::RuleSet& rules);

/// Adds to `network.reference` the interpreter's values of the groups' definitions (on
/// `network.inputs`), and of the epilogues' parts, and checks that their concatenation is
/// each grouped convolution's (each reader's) value as the program computes it (the groups'
/// up to the rounding of a bias added first: split_groups): a
/// liftc::Error naming the definition otherwise. An epilogue split of a convolution stored as
/// halves is checked on floats (its parts add to the convolution's sums unrounded), its parts'
/// references then the epilogues' values with their halves.
void add_group_references(Problem& network, const GroupedProgram& split);

/// "conv into 2 groups (conv_g0, conv_g1) of 2 channels": what split_groups did, for messages.
std::string group_splits_text(const GroupedProgram& split);

}  // namespace liftc::explore
