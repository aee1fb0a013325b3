#pragma once
// Exploring a network layer by layer (layers.hpp): each layer of a new shape gets its own
// candidate space, Evaluator (its own reference, its own rows in the store, under the
// same run) and search, with the whole budget; a layer of a shape seen before takes that
// layer's results. The network's front is composed from the layers' fronts
// (compose.hpp), and each of its points can be generated as one Module: every layer's
// kernels at its chosen point, in order, which a host program runs and validates.

#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "liftc/codegen/module.hpp"
#include "liftc/explore/products/compose.hpp"
#include "liftc/explore/candidates/constraint_space.hpp"
#include "liftc/explore/evaluation/evaluate.hpp"
#include "liftc/explore/search/loop.hpp"
#include "liftc/explore/products/layers.hpp"

namespace liftc::explore {

/// What exploring one layer found (shared by the layers of its shape).
struct LayerResult {
  CandidateSpace space;
  Problem problem;
  LoopResult loop;
  std::vector<std::size_t> front;  // indices into loop.explored, fastest first
  double space_seconds = 0;        // rewriting and building the space
  std::vector<std::string> skipped;  // alternatives without a valid point
  std::vector<NotApplied> not_applied;  // strategies named that do not apply to the layer
  EvaluatorTimes times;
  std::string search_report;  // the search's own line (Search::report: the model's trainings and share), or empty
};

/// How the layers are explored.
struct NetworkOptions {
  std::vector<std::string> strategies;  // per layer (default_strategies when not given)
  bool strategies_given = false;        // named: each must apply to some layer (network_spaces)
  std::vector<std::string> given;       // -s as typed, tags unexpanded (check_named_strategies_apply)
  Budget budget;                        // per layer of a new shape
  std::size_t jobs = 1;
  EvaluatorOptions evaluator;           // work_dir: each layer explores in a folder of its own under it
  // A layer's search, given its space, its problem (program hash, shapes) and its label; with
  // the memo of generations its search and its evaluator share (null: none).
  struct LayerSearch {
    std::unique_ptr<Search> search;
    std::shared_ptr<GenerationMemo> generations;
  };
  std::function<LayerSearch(CandidateSpace&, const Problem&, const std::string&)> make_search;
  std::FILE* progress = nullptr;        // the progress line, naming the layer in hand
  std::function<void(const std::string&)> report;  // a line per layer (its space, its outcome); may be empty
};

/// A network explored. Its layers are the definitions as written, then the fused layers
/// (add_fused_layers); each variant runs some of them in order. A fused layer whose space
/// could not be built has no result, and the variants that run it are dropped.
struct NetworkExploration {
  std::vector<Layer> layers;
  std::vector<std::shared_ptr<LayerResult>> results;  // per layer; layers of one shape share one
  std::vector<NetworkVariant> variants;               // empty: one, every layer in order (explore_network)
  std::vector<std::vector<double>> resident;          // per variant, per its layer: bytes alive across it (compose.hpp)
  std::vector<std::vector<std::vector<double>>> layer_peaks;  // per variant, per its layer, per its front point: layer_peak
  std::vector<NetworkPoint> front;                    // choice[j]: index into the front of the variant's j-th layer
  const rewrite::RuleSet* rules = nullptr;  // network_spaces's: a group explored as another is rewritten again (groups.hpp)
};

/// The layers (indices into net.layers) that network point `point` runs, in order.
const std::vector<std::size_t>& point_layers(const NetworkExploration& net, const NetworkPoint& point);

/// "conv2 into block, ...": the fusions of `point`'s variant ("" for none).
std::string fusions_text(const NetworkExploration& net, const NetworkPoint& point);

/// "layer 2/5 (shrunk)": how progress lines and reports name layer `i`.
std::string layer_label(const NetworkExploration& net, std::size_t i);

/// The candidate space of every layer of a new shape (reported through `options.report`).
/// Strategies named in `options` are offered to the layers they apply to; a layer none of
/// them applies to is lowered by the fallback (kFallbackStrategies), with a note; a named
/// strategy that applies to no layer (a `clblast-` one never does) is a liftc::Error,
/// before anything runs (check_named_strategies_apply: one named by a tag need not apply).
/// `variants` are the network's (add_fused_layers; empty: the layers as written, in order).
/// A fused layer's space that cannot be built is reported and its variants dropped.
NetworkExploration network_spaces(std::vector<Layer> layers, std::vector<NetworkVariant> variants,
                                  const rewrite::RuleSet& rules, const constraints::Target& target,
                                  const NetworkOptions& options);

/// Explores every layer of a new shape of `net` that a variant runs (each with its
/// layer_problem of `network`: load_problem of the network's file) on `device` under store
/// run `run`, and composes the network's front: each variant's front, merged (a fused
/// variant's points have no buffer for what was fused, so they save its bytes).
void explore_network(NetworkExploration& net, const Problem& network, Store& store, std::int64_t run,
                     const DeviceReport& device, const NetworkOptions& options);

/// The evaluated row the `layer`-th layer of network point `point` (point_layers) chose.
const Explored& chosen(const NetworkExploration& net, const NetworkPoint& point, std::size_t layer);

/// Layer `i`'s code at `x` (a point of its result: its own, or the first layer's of its
/// shape), under its own names: what network_module appends for it.
codegen::Module layer_module(const NetworkExploration& net, std::size_t i, const Explored& x,
                             const std::string& build_options);

/// What layer `i`'s output may differ by beyond the tolerance at `x`, per element
/// (interp::rounding_allowance on the network's values of what it reads), where its code
/// computes through constant arrays (Winograd's transforms), as its exploration validated
/// it; nullopt for the others. Under the layer's own names, as layer_module's.
std::optional<interp::Tensors> layer_allowance(const NetworkExploration& net, const Problem& network, std::size_t i,
                                               const Explored& x);

/// Generates every layer's code at the network point `point` and merges them into one
/// Module: the layers' kernels in order (each with its own FP_CONTRACT pragma), their
/// global buffers once each (a layer's output is the next one's input), every definition
/// an output. Built with `build_options`, after -cl-mad-enable when a layer's mad is on
/// (OpenCL takes build options per program: the other layers may then contract too).
codegen::Module network_module(const NetworkExploration& net, const NetworkPoint& point, const std::string& build_options);

/// The network's front as rows like a single program's (strategy `network`, alternative
/// its rank, point: each layer's strategy, alternative and point), fastest first.
std::vector<Evaluation> network_rows(const NetworkExploration& net, const Problem& network, std::int64_t run);

/// Writes what `liftc explore -o DIR` writes for a network: front/<rank>/ a host program
/// running every layer at that point (network_module), pareto.csv and pareto.json (the
/// network's front; the JSON lists each layer's row), evaluated.csv (every layer's rows),
/// and the network's values for the host programs: inputs/<input>.npy and
/// expected/<definition>.npy (the interpreter's, every layer's). Every file whole or a
/// liftc::Error. A point with a layer through constant arrays also has front/<rank>/allowance/
/// (layer_allowance, by output), which its host program reads with --allowance; returns how
/// many points have one.
std::size_t write_network_outputs(const std::string& dir, const NetworkExploration& net, const Problem& network,
                                  std::int64_t run, const std::string& program_name, const std::string& build_options);

}  // namespace liftc::explore
