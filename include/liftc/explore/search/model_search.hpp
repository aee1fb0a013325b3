#pragma once
// The model-guided search (Ansor, MetaSchedule): each round it proposes many candidates
// cheaply (the genetic operators on the best points measured so far, and random draws),
// ranks them with a cost model trained on the run's measurements (cost/model.hpp), and
// hands out the best-ranked few plus a share of random ones, so that the model keeps
// learning where it is wrong. Before it has enough measurements it draws as the genetic
// search's generation 0 does (a point of every alternative, then random draws).
//
// It is an ask/tell Search like random and genetic: with the same seed and the same
// outcomes it proposes the same candidates (XGBoost on one thread with a set seed, and
// retrained on a schedule of rows, not of time), so --resume and --replay work unchanged.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "liftc/explore/cost/model.hpp"
#include "liftc/explore/search/searches.hpp"

namespace liftc::explore {

/// A candidate's features by name: a name one candidate has and another lacks is missing
/// (NaN) in the other's row.
struct NamedFeatures {
  std::vector<std::string> names;
  std::vector<float> values;  // one a name
};

/// What the model sees of a candidate, computed without running it.
using Featurizer = std::function<NamedFeatures(const Candidate&)>;

/// For each tuning parameter of a candidate's alternative, the kernels (indices in launch
/// order) it reaches (cost::kernel_dependencies); empty when not known.
using KernelReach = std::function<std::vector<std::vector<std::size_t>>(const Candidate&)>;

/// The features every candidate has without its kernels: its strategy and alternative (as
/// numbers, in the space's order) and each tuning parameter's value, log2-scaled
/// (sign(v)·log2(1+|v|)), named by the parameter (parameters of one name in several
/// alternatives share a column: `local_0` is a work-group size in each).
Featurizer parameter_features(const CandidateSpace& space);

/// Memoizes `features` per candidate (a copy shares the memo): code features cost a
/// generation, and a candidate is featurized when proposed, again when measured, and in every
/// seed of a replay benchmark.
Featurizer caching(Featurizer features);

/// Rows of other programs, shapes or devices (a tuning database) the model is trained on
/// before the run's first measurement and with its own rows after: each row's features by
/// name and its time relative to the best of its group, a program on a device (1 for the
/// best; infinity for a failure), groups in row order.
struct TransferRows {
  std::vector<NamedFeatures> features;
  std::vector<double> relative_time;  // one a row
  std::vector<unsigned> groups;       // sizes, summing to the rows
};

/// Settings of the model-guided search.
struct ModelSearchOptions {
  std::size_t batch = 8;        // candidates handed out a round (the registry: at least --jobs); the next round waits for them
  std::size_t warmup = 24;      // outcomes before the model ranks (until then: draws as generation 0)
  std::size_t pool = 256;       // candidates proposed and scored a round
  double epsilon = 0.25;        // share of a round drawn at random instead of ranked
  double retrain_growth = 0.2;  // retrained once the rows grew by this share (and a batch) since the last training
  std::size_t lag = 0;          // rounds whose outcomes a new round goes without (rounds.hpp; the registry: kModelLag)
  std::size_t slow_lag = 0;     // the same for a candidate that ran longer than slow_s (rounds.hpp; the registry)
  double slow_s = std::numeric_limits<double>::infinity();
  cost::ModelOptions model;
  Featurizer features;          // empty: parameter_features(space)
  // Two stages, when both are given and the shortlist is smaller than the pool: the pool is
  // ranked first by a second model on these cheaper features (what a point says alone), and
  // only the best `shortlist` get `features` (code features cost a generation each).
  Featurizer shortlist_features;
  std::size_t shortlist = 0;
  std::vector<Candidate> seeds; // valid points the first round starts with (warm_start.hpp)
  TransferRows transfer;        // trained on before the first measurement (warm_start.hpp: transfer_rows)
  // Points composed of each kernel's fastest parameters (ModelSearch::composed): where an
  // alternative's candidates run several kernels and their times per kernel are told
  // (Outcome::kernel_ms), which parameters reach which kernel. Empty: none composed.
  KernelReach kernel_reach;
  // Of the features' time, the seconds of generations the evaluator then used for its
  // bundles (GenerationMemo): its own work, done once for both, not the model's. Empty: none.
  std::function<double()> reused_by_evaluator;
};

/// The outcomes of one strategy's candidates so far: how many, and the fastest validated.
struct StrategyRecord {
  std::size_t outcomes = 0;
  double best_ms = std::numeric_limits<double>::infinity();
};

/// Outcomes of a strategy before its draws are weighed by its promise.
inline constexpr std::size_t kStrategyJudgedAfter = 2;
/// The least share of a draw a strategy keeps, however slow: the model still sees it.
inline constexpr double kLeastPromise = 0.05;

/// What share of a random draw each strategy of the model-guided search gets (for
/// `draw_alternative`): a strategy with fewer than kStrategyJudgedAfter outcomes is not
/// named (a whole share); then (the fastest validated time of all / its own)², at least
/// kLeastPromise (also a strategy with no validated candidate). So the quarter of each round
/// drawn at random, and the draws among the proposals, go mostly to the strategies within a
/// small factor of the best: with every strategy offered, a slow one (conv-naive at ten
/// times the best) no longer takes a share of the device's time equal to the fastest's.
std::map<std::string, double> strategy_promise(const std::map<std::string, StrategyRecord>& strategies);

/// What the search's model cost, for the report at the end of a run.
struct ModelSearchStats {
  std::size_t trainings = 0;
  std::size_t rows = 0;        // rows of the last training
  std::size_t scored = 0;      // candidates scored, over all rounds
  double train_seconds = 0;    // training
  std::size_t transfer_rows = 0;  // rows of a tuning database trained on
  double feature_seconds = 0;  // the features of proposals and measured candidates
  double reused_seconds = 0;   // of feature_seconds, generations the evaluator then used (its own work)
  double score_seconds = 0;    // scoring the proposals
  double propose_seconds = 0;  // proposing (mutation, crossover, repair, draws)
  std::size_t composed = 0;    // points composed of each kernel's fastest parameters
  double reach_seconds = 0;    // finding which kernels each parameter reaches (generations)
  double loop_seconds = 0;     // from the first ask to the last tell
};

/// The model-guided search over `space`.
std::unique_ptr<Search> make_model_search(CandidateSpace& space, const ModelSearchOptions& options, std::uint64_t seed);

/// The model's share of the loop's wall time: training, features (less the generations the
/// evaluator then used) and scoring over the time from the first ask to the last tell (0
/// before any).
double model_share(const ModelSearchStats& s);

/// "model: [trained on N row(s) of a tuning database before the first measurement; ]12
/// training(s) (up to 340 rows), training 0.41 s, features 0.30 s, scoring 0.12 s of 2048
/// candidates: 4.9% of the loop's 17.2 s; proposing 0.20 s"; with generations the evaluator
/// reused, "features 0.30 s (0.10 s of it kernels the evaluator then used)".
std::string format_model_stats(const ModelSearchStats& s);

}  // namespace liftc::explore
