#pragma once
// A network is a program of several value definitions (layers) that compute, each
// reading program inputs and earlier definitions. `liftc explore` explores it layer by layer: each layer
// is a program of its own (the sizes, the values it reads as inputs, its one definition),
// with its own space, its own reference (the network interpreter's value of the
// definition, from the network interpreter's values of what it reads) and its own rows in
// the store. With `--storage half` a layer stores what it reads and its definition as the
// network does (ir::Program::half): its inputs, weights and output as halves, the arithmetic
// in float. Layers of the same shape (the same body up to the names of what it reads and
// of its bound variables, at the same size values, reading values of the same types, each
// stored alike) are explored once; the others take that exploration's points, their code generated from
// the same rewritten program with their own names.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "liftc/explore/evaluation/evaluate.hpp"
#include "liftc/ir/expr.hpp"
#include "liftc/rewrite/load.hpp"

namespace liftc::explore {

/// One definition of a network as a program of its own.
struct Layer {
  std::string name;                // the definition
  ir::Program program;             // the network's sizes; inputs: what it reads, in first-use order; its definition;
                                   // half: those of them the network stores as halves
  std::vector<std::string> reads;  // the names of those inputs (network inputs and earlier definitions)
  std::size_t same_as = 0;         // the first layer of its shape (its own index when it is the first)
  std::vector<std::string> fused;  // the definitions inlined into it (fuse), in order; none for a layer as written
  std::string group_of;            // a part of a grouped convolution split by group (groups.hpp): that convolution's name
};

/// Whether `layer` is a definition as written (not fused, not a part of a split grouped convolution).
bool written_layer(const Layer& layer);

/// "conv2+block": a layer's definition after those fused into it.
std::string layer_title(const Layer& layer);

/// The layers of `network` (a parsed program), in definition order; a liftc::Error when
/// it does not type check.
std::vector<Layer> split_layers(const ir::Program& network);

/// How a fused producer's values reach its consumer.
enum class FusionKind {
  OneToOne,            // each value where the consumer's element-wise function reads it (an epilogue)
  DepthwisePointwise,  // each pixel's depthwise values computed where the pointwise layer reads that pixel
  ConvPool,            // each pooling window's convolution outputs computed where the pooling reads them
  Layout,              // a definition that only rearranges read through by its one reader (a view, no copy)
};

/// A definition inlined into the one definition that reads it.
struct Fusion {
  std::string producer;
  std::string consumer;
  FusionKind kind = FusionKind::OneToOne;
  ir::Expr producer_form;  // DepthwisePointwise: the producer's body in normal form, a 2D map over windows (or it
                           // transposed back to CHW)
  ir::Expr consumer_form;  // DepthwisePointwise: the consumer's body rewritten by the rules'
                           // pointwise-pixels-outermost where, as written, it reads the producer's pixels inside a
                           // function (a map over its kernels outside the pixels, which would compute the depthwise
                           // values once per kernel) or in no 2D map; undefined: the body as written
};

/// The fusions of `network` (typed or not) where the consumer is one-to-one over the
/// producer: it reads the producer once, no other definition reads it, the consumer only
/// maps, zips, joins, splits, transposes and computes scalars (a bias, an activation, ReLU6,
/// an add of another value of the same shape, the add made channel-first, a pixel shuffle:
/// no reduction, no window, no padding, no reorder), and it has as many scalars as the
/// producer. In definition order of the consumers.
std::vector<Fusion> one_to_one_fusions(const ir::Program& network);

/// The fusions of `network` (typed or not) of a definition that only rearranges other
/// definitions' values (ir::only_rearranges, it reads earlier definitions and no input): a
/// permutation of one (it has as many values: a channel shuffle, a transpose, a pixel
/// shuffle), or a concatenation of two or more (U-Net's upsampled features and its skip) into
/// the one definition that reads it, once: its reader reads through it (a view), so it is no
/// layer, no copy kernel and no buffer of its own. In definition order of the producers.
std::vector<Fusion> layout_fusions(const ir::Program& network);

/// The fusions of `network` (typed or not) of a depthwise convolution into the pointwise
/// (1x1, stride 1) layer that reads it (MobileNet's DW+PW): the consumer reads the producer
/// once, as a 2D map over its pixels whose function reduces (a sum over the pixel's
/// channels), and no other definition reads it; the producer, as a layer of its own, is a
/// depthwise convolution: after `normal-form` of `rules`, a 2D map over windows that
/// `depthwise-channel-groups-form` rewrites (each channel convolved with its own kernel), or
/// that map transposed back to CHW (a channel-first depthwise layer, whose pixels the
/// consumer reads as `map(transpose, transpose(producer))`; written with its rows joined, its
/// normal form joins each pixel's results after that map, which the fusion reads as the join
/// in the window's function).
/// Each pixel's depthwise values are then computed once, where the pointwise function
/// reads that pixel (`fuse`). In definition order of the consumers.
std::vector<Fusion> depthwise_pointwise_fusions(const ir::Program& network, const rewrite::RuleSet& rules);

/// The fusions of `network` (typed or not) of a convolution into the pooling that reads it
/// (a 2x2 max pooling with stride 2, or any function of non-overlapping P x Q windows, P
/// and Q at least 2): the consumer is a 2D map over `slide2D(p, q, p, q, producer)`, the
/// only place any definition reads the producer; the producer, substituted there, is a
/// convolution whose outputs `normal-form` of `rules` then computes inside each pooling
/// window (`pool-windows-of-conv`), which `conv-pool-form` keeps in a work-item's private
/// memory. Overlapping windows (stride below the window) are not fused: each convolution
/// output would be computed for every window that holds it. In definition order of the
/// consumers.
std::vector<Fusion> conv_pool_fusions(const ir::Program& network, const rewrite::RuleSet& rules);

/// `network` with `f.producer`'s body substituted for its name in `f.consumer`, and the
/// producer's definition removed. A depthwise-pointwise fusion substitutes per pixel: the
/// consumer's 2D map over the producer's pixels, `map2D(px -> B, producer)`, becomes the
/// producer's 2D map over its windows with each window's depthwise values let-bound,
/// `map2D(win -> let px = G(win) in B, windows)` (G: the producer's function of a window in
/// normal form), so that no pixel is computed twice and the intermediate is no buffer. When
/// `network` stores the producer as halves, G's channel values end in roundHalf: the fused
/// layer rounds them as the network's stores do, so its pointwise sums read the same values
/// (without it they differed beyond the half tolerance: MobileNetV2 at 14x14, 576 channels,
/// 4% of the outputs on an H200). A convolution-pooling fusion substitutes the body as a one-to-one fusion does;
/// normal-form's pool-windows-of-conv then computes each pooling window's outputs where the pooling reads them.
ir::Program fuse(const ir::Program& network, const Fusion& f);

/// One way to run a network: its layers in order (indices into the network's layers) and
/// the fusions that made them.
struct NetworkVariant {
  std::vector<std::size_t> layers;
  std::vector<Fusion> fusions;
};

/// The fusions of `network` `add_fused_layers` makes variants of: one_to_one_fusions, then
/// (with `rules`) depthwise_pointwise_fusions and conv_pool_fusions, one producer per
/// consumer.
std::vector<Fusion> layer_fusions(const ir::Program& network, const rewrite::RuleSet* rules);

/// The variants of `network` whose layers `layers` are (split_layers): the network as
/// written (variant 0, `layers` in order), and where layer_fusions finds some (depthwise
/// into pointwise and convolution into pooling only with `rules`), each fusion alone and (for two or more) all of them,
/// applied until none is left. The fused layers (Layer::fused) are appended to `layers`,
/// each once; a fused layer of the shape of another fused layer takes it as same_as.
std::vector<NetworkVariant> add_fused_layers(const ir::Program& network, std::vector<Layer>& layers,
                                             const rewrite::RuleSet* rules = nullptr);

/// The variant that runs `program`'s definitions (a program of the network's inputs whose
/// definitions are some of the network's and new ones: split_groups's), each layer found in
/// `layers` by its name, fused definitions and `tag` (which sets what marks a new layer), or
/// appended with `tag` applied (a new layer of the shape of another takes it as same_as).
NetworkVariant add_variant_layers(const ir::Program& program, std::vector<Layer>& layers,
                                  const std::function<void(Layer&)>& tag);

/// Whether `program` is a network: two or more of its definitions compute (reduce, do
/// arithmetic); a definition that only rearranges an earlier one (stencil2d.sr's
/// `map(join, sums)`) does not make one.
bool is_network(const ir::Program& program);

/// Whether explore searches `program` layer by layer (and `liftc space` shows it so) unless
/// --whole-program says otherwise: a network no strategy has rewritten. A network a strategy
/// rewrote whole (net-chw-kappa) has tuning parameters, sizes with a range and no value,
/// that its layers share: it is one program's space.
bool explored_by_layer(const ir::Program& program);

/// `rewritten`, a program rewritten from `from`'s layer program, with `to`'s names: its
/// inputs and its definition renamed, and those stored as halves (`from` and `to` of the
/// same shape).
ir::Program rename_layer(const ir::Program& rewritten, const Layer& from, const Layer& to);

/// The problem of one layer: the network's values of what it reads as inputs, the
/// network's value of its definition as reference; its hash is the network's and the
/// layer's name (so its store rows are its own; the network's hash includes its storage, so
/// a half run's layer rows are apart from a float run's), its file `FILE:NAME`.
Problem layer_problem(const Problem& network, const Layer& layer);

}  // namespace liftc::explore
