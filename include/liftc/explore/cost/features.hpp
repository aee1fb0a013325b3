#pragma once
// Features of a candidate, computed without running it: what a cost model sees of an
// alternative at a point. The candidate is generated exactly as the evaluator generates it
// (generate_candidate: the kernel plan, lowered), and the features are read from what that
// gives: each kernel's NDRange, the memory the plan gives it, and its C syntax tree (every
// load, store, operation, loop and barrier, weighted by the trip counts of the loops around
// it), per kernel and summed; never from the OpenCL text. src/explore/cost/README.md lists
// every feature and how it is computed.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "liftc/constraints/target.hpp"
#include "liftc/explore/search/space.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/rewrite/load.hpp"

namespace liftc::explore {
class GenerationMemo;
}

namespace liftc::explore::cost {

/// A candidate's features: one value per name, in a fixed order. The first `common` names
/// are the same for every candidate of every alternative and program under one
/// FeatureContext's strategies (the strategy one-hot, the alternative's number, sums over its
/// kernels); the rest are the alternative's own (each kernel's `k<i>.` features, then its
/// tuning parameters `param.<name>`), fixed for a given alternative.
struct FeatureVector {
  std::vector<std::string> names;
  std::vector<float> values;
  std::size_t common = 0;            // names[0..common) do not depend on the alternative
  std::vector<std::string> kernels;  // the kernel behind `k<i>.`: its OpenCL name (a library step: its routine)
  std::string alternative;           // its label: "conv-chw #1"
  std::string point;                 // its point as explore prints it: "mad=0,unroll=1,local_0=8"

  /// The value of feature `name`, if the vector has it.
  std::optional<float> find(const std::string& name) const;
};

/// The steps of library alternatives, kept by a FeatureContext (features.cpp).
struct LibrarySteps;

/// What features need besides the candidate: its space, the strategies the one-hot encodes
/// and the device's resources.
struct FeatureContext {
  const CandidateSpace* space = nullptr;  // Candidate::alternative indexes its alternatives
  std::vector<std::string> strategies;    // the one-hot columns `strategy.<name>`, in order
  std::int64_t compute_units = 0;         // of the device; 0: unknown (work_groups_per_cu is then 0)
  std::int64_t local_mem_bytes = 0;       // local memory per work-group; 0: unknown (local_share is then 0)
  std::string build_options;              // the user's OpenCL build options, as the evaluator generates with
  /// A library alternative's steps, kept from its first candidate (feature_context makes it;
  /// null: each candidate's are made again). CLBlast's parameters go to its call alone, so its
  /// steps, their NDRanges and its memory are the same at every point, and making its host
  /// plan copies inputs of the program's shapes: 100 ms and more for a VGG layer.
  std::shared_ptr<LibrarySteps> library_steps;
  /// liftc's kernels of a candidate, generated once for its features and its evaluation
  /// (explore's model-guided search: generation_memo.hpp, made for `space` with
  /// `build_options`); null: each candidate's generated here.
  std::shared_ptr<GenerationMemo> generations;
};

/// The strategies the one-hot encodes for `rules`: every named strategy of the rule set (in
/// file order), then the library strategies and `id`. The same columns for every program
/// explored with one rules folder, so that rows of other programs can train one model.
std::vector<std::string> feature_strategies(const rewrite::RuleSet& rules);

/// The context of `space` on `target`: feature_strategies(rules), with any strategy of the
/// space that they lack appended (a rule expression named with -s), and the target's compute
/// units and local memory.
FeatureContext feature_context(const CandidateSpace& space, const rewrite::RuleSet& rules,
                               const constraints::Target& target, std::string build_options = {});

/// Features of one candidate: its alternative (strategy and number) and point, from the kernel
/// plan and generated code, per kernel and summed. Throws liftc::Error on a candidate that
/// cannot be generated.
FeatureVector candidate_features(const Candidate& candidate, const FeatureContext& ctx);

/// What a stored row says of a candidate without its program or kernels, named as
/// candidate_features names them: `strategy.<S>` (1 for `strategy`, else 0) for each of
/// `strategies`, `alternative` (its number), and `param.<name>` for each parameter. The
/// model-guided search trains on other programs' rows with these (search/transfer.hpp),
/// and sees them of a candidate whose kernels could not be generated.
FeatureVector point_features(const std::vector<std::string>& strategies, const std::string& strategy,
                             std::int64_t alternative, const std::vector<std::pair<std::string, std::int64_t>>& params);

/// One candidate named by a user (`liftc features`): a program, a strategy and the number of
/// one of its alternatives, a point as explore prints it ("mad=0,local_0=8,..."), a target.
struct FeatureRequest {
  ir::Program program;
  std::string strategy;
  std::size_t alternative = 1;  // 1-based, as `liftc rewrite --alternative` counts
  std::string point;
  constraints::Target target;
  std::string build_options;
};

/// The features of the candidate `request` names, in the context explore would give it with
/// `rules` (feature_context). A liftc::Error, one line, when the strategy is unknown or does
/// not apply, the alternative does not exist or has no valid point on the target, the point
/// lacks a parameter, names one the alternative does not have or violates a constraint (each
/// violated constraint listed), or the candidate cannot be generated.
FeatureVector requested_features(const FeatureRequest& request, const rewrite::RuleSet& rules);

/// The features as a table for the terminal: one line each, name, value and what it means.
std::string features_table(const FeatureVector& features);

/// The features as a JSON object: `alternative`, `point`, `kernels` (k<i>'s names), `common`,
/// and `features` (name to value, in order).
std::string features_json(const FeatureVector& features);

}  // namespace liftc::explore::cost
