#pragma once
// The search's view (space.hpp) of the constraints stage: one Alternative per rewritten
// program, backed by its constraints::Space and Sampler (Z3-checked domains, exact counts,
// uniform samples, repair to the nearest valid point).

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "liftc/constraints/solve.hpp"
#include "liftc/constraints/space.hpp"
#include "liftc/explore/evaluation/candidate.hpp"
#include "liftc/explore/search/space.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/rewrite/load.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::explore {

/// An Alternative backed by the constraints stage.
class ConstraintAlternative : public CandidateAlternative {
 public:
  /// Takes the space; builds its sampler (counting tables).
  explicit ConstraintAlternative(constraints::Space space);
  std::string label() const override;
  const std::vector<Parameter>& parameters() const override { return params_; }
  double count() const override { return count_; }
  Point sample(std::mt19937_64& rng) override { return sampler_->sample(rng); }
  bool valid(const Point& p) const override { return sampler_->valid(p); }
  std::optional<Point> repair(const Point& p) override { return sampler_->repair(p); }
  bool local_memory_emulated() const override { return space_->local_memory_emulated; }
  /// liftc's kernels at `p` (generate_candidate) and their launch plan.
  Artefacts generate(const Point& p, const interp::Tensors& inputs, const std::string& build_options) const override;
  /// The artefacts of kernels generated at a point (generate_candidate) with `inputs`: what
  /// generate gives, from a generation made before (GenerationMemo).
  static Artefacts artefacts(Generated generated, const interp::Tensors& inputs);
  codegen::HostPlan host_plan(const Point& p, const std::string& build_options) const override;
  /// The point's host project (emit::write_host_project).
  void write_front_files(const Point& p, const std::string& dir, const std::string& program_name,
                         const std::string& build_options) const override;
  const ConstraintAlternative* constraint_space() const override { return this; }
  /// The constraints stage's space (program, parameters, constraints, target).
  const constraints::Space& space() const { return *space_; }
  /// Whether counts and samples are exact and uniform.
  bool uniform() const { return sampler_->uniform(); }
  /// For an alternative computing through constant arrays: the same sums before its
  /// strategy tiles and maps them (magnitude_form.hpp), shared by the alternatives with the
  /// same arrays; null when there is none.
  const ir::Program* magnitude_form() const { return magnitude_form_.get(); }
  void set_magnitude_form(std::shared_ptr<const ir::Program> form) { magnitude_form_ = std::move(form); }

 private:
  std::unique_ptr<constraints::Space> space_;  // the sampler points into it: keep its address
  std::shared_ptr<const ir::Program> magnitude_form_;
  std::unique_ptr<constraints::Sampler> sampler_;
  std::vector<Parameter> params_;
  double count_ = 0;
};

/// Strategies added to the defaults of a network (layers.hpp) explored whole:
/// every convolution of a network rewritten, the other definitions lowered.
inline constexpr const char* kNetworkStrategies[] = {"net-chw-kappa"};

/// The lowerings tried, in order, when no default strategy applies to a program (a
/// definition that is no convolution or stencil: a 1x1 layer written per pixel, a
/// depth-to-space, a reduction of a whole array): its two outer maps, or its outer map,
/// over global work-items, else everything sequential (one work-item).
inline constexpr const char* kFallbackStrategies[] = {"lower-glb2", "lower-glb1", "lower-seq"};

/// The program kFallbackStrategies lower: `program`'s normal form (normal-form of
/// rules/normalize.rules, where `rules` has it, as every convolution strategy starts), so that
/// a computation the normal form moves into its reader is computed there: a fused layer's
/// convolution in each pooling window of the pooling that reads it, not before the pooling's
/// maps over work-items by every work-item (which code generation refuses). `program`
/// itself where `rules` has no normal-form.
ir::Program fallback_form(const ir::Program& program, const rewrite::RuleSet& rules);

/// The first of kFallbackStrategies that applies to fallback_form(program) and changes it;
/// nothing when none does (the program is then taken as written, strategy `id`).
std::optional<std::string> fallback_strategy(const ir::Program& program, const rewrite::RuleSet& rules);

/// The default strategies of explore and space: those of rules/strategies.rules, in file
/// order, and for a network (is_network) kNetworkStrategies (those present).
std::vector<std::string> default_strategies(const rewrite::RuleSet& rules, const ir::Program& program);

/// A strategy the user named that does not apply to a program (a network's layer), and why.
struct NotApplied {
  std::string strategy;
  std::string why;  // the rewriter's message
  SourceLoc loc;    // and where (an unknown strategy: "<strategy>:1:1")
};

/// The most alternatives a program of several definitions explored as one program
/// (--whole-program) may have, over all its strategies: each definition's alternatives
/// combine (their product), and each combination's constraint space keeps its counting
/// tables: examples/networks/vgg_block.sr (two convolutions and a pooling) has 100
/// alternatives under conv-parametric alone, and its default strategies gave no answer in
/// 200 s at 1.6 GB; 16 took 37 s and 220 MB here. `explore --max-program-alternatives N`
/// raises it.
inline constexpr std::size_t kDefaultMaxProgramAlternatives = 32;

/// The candidate space of `program` on `target` (library alternatives, library.hpp,
/// included: `clblast-` strategies named, or by default those that apply): every alternative of every strategy in
/// `strategies` (when `strategies` was not given by the user, those that do not apply are
/// skipped, and when none applies the first of kFallbackStrategies that applies, else the
/// program as written, as strategy `id`;
/// otherwise a strategy that does not apply is a liftc::Error, unless `not_applied` is
/// given: then it is listed there and skipped, and when none applies the fallback is taken
/// as for defaults). Alternatives with no valid point are left out and listed in `skipped`.
/// A program of several definitions whose strategies give more than
/// `max_program_alternatives` alternatives in all is a liftc::Error naming the limit, raised
/// before their constraint spaces are built.
CandidateSpace build_candidate_space(const ir::Program& program, const rewrite::RuleSet& rules,
                                     const std::vector<std::string>& strategies, bool strategies_given,
                                     const constraints::Target& target, std::vector<std::string>* skipped = nullptr,
                                     std::vector<NotApplied>* not_applied = nullptr,
                                     std::size_t max_program_alternatives = kDefaultMaxProgramAlternatives);

/// What build_candidate_space's error adds, in a user's terms, where code generation refused
/// every alternative because a computation stays outside the maps put on work-items: the
/// hint for a definition as written (a pass or a pooling in the convolution's definition).
/// A fused layer explore made of definitions written on their own says instead
/// kFusedLayerRefusalHint (network.cpp), which asks nothing of the user.
inline constexpr std::string_view kAroundConvolutionHint =
    "what the definition computes around its convolution (a pass over its output, a pooling, say) stays outside the "
    "maps the strategies put on work-items; written as a definition of its own, it is a layer that explore fuses back "
    "where a strategy takes the two together";
inline constexpr std::string_view kFusedLayerRefusalHint =
    "what one of the fused definitions computes around the other's convolution (a pass reading more than its own "
    "pixel's values, say) stays outside the maps the strategies put on work-items, so no strategy takes them together "
    "and the fusion is left out";

/// The constraints-stage alternative behind `alt` (a library alternative, library.hpp, is not one).
const ConstraintAlternative& constraint_alternative(const Alternative& alt);

/// Whether `alt` is a constraints-stage alternative (not a library one).
bool is_constraint_alternative(const Alternative& alt);

}  // namespace liftc::explore
