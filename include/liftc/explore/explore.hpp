#pragma once
// The exploration loop every search shares: ask a candidate, evaluate it (on a device, or
// from a store when replaying), tell the outcome; until the budget (evaluations or time)
// is spent or the search has nothing left. A progress line goes to stderr.

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "liftc/explore/search.hpp"
#include "liftc/explore/store.hpp"

namespace liftc::explore {

/// When to stop.
struct Budget {
  std::size_t evaluations = 100;  // distinct candidates (served from the store or not)
  double seconds = 0;             // wall time; 0 = no limit
};

/// One evaluated candidate of a run.
struct Explored {
  Candidate candidate;
  Evaluation evaluation;
  bool served = false;  // from the store, not run again
};

/// Evaluates one candidate; sets `served` when the answer came from a store.
using EvaluateFn = std::function<Evaluation(const Candidate&, bool& served)>;

/// What the loop did.
struct LoopResult {
  std::vector<Explored> explored;  // in evaluation order
  std::string stop;                // "budget of 200 evaluations", "time budget", "the search ended"
  double seconds = 0;
};

/// Indices into `explored` of the noise-tolerant Pareto front of the valid points (of
/// points that generate the same kernels, the first stands for all).
std::vector<std::size_t> front_of(const std::vector<Explored>& explored);

/// Runs `search` until `budget` is spent; prints progress to `progress` (null: silent).
LoopResult explore_loop(Search& search, const EvaluateFn& evaluate, const Budget& budget, std::FILE* progress);

}  // namespace liftc::explore
