#pragma once
// The exploration loop every search shares: ask a candidate, evaluate it (on a device, or
// from a store when replaying), tell the outcome; until the budget (evaluations or time)
// is spent or the search has nothing left. A progress line goes to stderr. With several
// jobs, candidates run at once on threads of their own while the loop's thread proposes
// and prepares the next ones; the search is told each outcome as it is ready, the rows
// are kept in proposal order. When the time budget ends, the candidates still running are
// stopped and dropped, not waited for.

#include <cstdio>
#include <functional>
#include <cstddef>
#include <string>
#include <vector>

#include "liftc/explore/search/searches.hpp"
#include "liftc/explore/store/store.hpp"

namespace liftc::explore {

/// When to stop.
struct Budget {
  std::size_t evaluations = 100;  // distinct candidates (served from the store or not)
  double seconds = 0;             // wall time; 0 = no limit
};

/// The most evaluations --evals takes: a budget of that many is none (--time alone).
inline constexpr std::size_t kUnboundedEvaluations = 10'000'000;

/// "100 evaluations", "120 s" (no bound on the evaluations) or "100 evaluations or 120 s".
std::string budget_text(const Budget& b);

/// One evaluated candidate of a run.
struct Explored {
  Candidate candidate;
  Evaluation evaluation;
  bool served = false;  // from the store, not run again
};

/// Evaluates one candidate; sets `served` when the answer came from a store.
using EvaluateFn = std::function<Evaluation(const Candidate&, bool& served)>;

/// A candidate on its way through the parallel loop, as `StartFn` prepared it (on the
/// loop's thread, in proposal order).
struct Pending {
  std::function<void()> run;     // on a thread of its own; empty: nothing to run
  // On the loop's thread, when the time budget ends while `run` runs: asks `run` to return
  // soon. Empty: `run` cannot be stopped, and the loop waits for it.
  std::function<void()> stop;
  // On the loop's thread as soon as `run` returned (completion order), with the seconds it
  // ran as the loop timed them (what the search is told: Outcome::seconds); may be empty.
  // False when `stop` ended `run` before it had an outcome: the loop drops the candidate
  // (no row; the search is not told).
  std::function<bool(double seconds)> record;
  // On the loop's thread once `run` returned and `ready` says so, at most once: what the
  // search is told.
  std::function<Evaluation(bool& served)> result;
  // Empty: ready once `run` returned (or at once, with no `run`). A candidate whose kernels
  // run for an earlier candidate is ready once that one is recorded.
  std::function<bool()> ready;
};

/// Prepares one candidate for the parallel loop.
using StartFn = std::function<Pending(const Candidate&)>;

/// What the loop did.
struct LoopResult {
  std::vector<Explored> explored;  // in evaluation order
  std::string stop;                // "budget of 200 evaluations", "time budget", "the search ended"
  double seconds = 0;
  std::size_t cut_reasons = 0;     // of `explored`, stored points added after the loop (Evaluator::add_cut_reasons)
  std::size_t stopped = 0;         // candidates stopped and dropped as the time budget ended (not in `explored`)
};

/// "3 candidate(s) still running then were stopped and dropped": `r.stopped` in words.
std::string stopped_text(const LoopResult& r);

/// Indices into `explored` of the noise-tolerant Pareto front of the valid points (of
/// points that generate the same kernels, the first stands for all).
std::vector<std::size_t> front_of(const std::vector<Explored>& explored);

/// Why `r` has no front (front_of is empty), as one line: the candidates' statuses (and
/// how many were served from the store) and the first failure's reason, or that every
/// validated candidate was cut (timed once), or that none was evaluated.
std::string no_front_reason(const LoopResult& r, const CandidateSpace& space);

/// Runs `search` until `budget` is spent; prints progress to `progress` (null: silent),
/// after `label` when it has one (`explore layer 2/5 (shrunk): ...`).
LoopResult explore_loop(Search& search, const EvaluateFn& evaluate, const Budget& budget, std::FILE* progress,
                        const std::string& label = {});

/// The same with at most `jobs` candidates running at once and at most 8 rounds of `jobs`
/// not yet told (the search is asked nothing while it is `waiting()`). When the time budget
/// ends, the loop asks no more, stops the candidates still running (Pending::stop), and
/// drops those and the ones waiting for them.
LoopResult explore_loop(Search& search, const StartFn& start, const Budget& budget, std::size_t jobs, std::FILE* progress,
                        const std::string& label = {});

}  // namespace liftc::explore
