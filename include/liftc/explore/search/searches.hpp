#pragma once
// Search strategies as small ask/tell objects (Kernel Tuner, Optuna): the exploration loop
// asks for a candidate, evaluates it, and tells the search the outcome; random, genetic and
// replayed searches share that one loop (explore.hpp). With the same seed and the same
// outcomes, a search proposes the same sequence of candidates.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "liftc/explore/search/pareto.hpp"
#include "liftc/explore/search/space.hpp"

namespace liftc::explore {

/// What an evaluation told the search.
struct Outcome {
  bool ok = false;        // built, ran and validated
  Objectives objectives;  // time (infinity when !ok), spread, memory
  // Each kernel's median time in launch order, where the runner gave them (empty: not known).
  std::vector<double> kernel_ms;
  // How long its evaluation ran, as the loop timed it (Evaluation::seconds; 0: served at
  // once, or a row from before it was stored). A search that lags (rounds.hpp) goes on
  // without the outcomes of slow candidates.
  double seconds = 0;
};

/// A search strategy.
class Search {
 public:
  virtual ~Search() = default;
  /// The next candidate to evaluate; nullopt when the search has nothing left to propose.
  virtual std::optional<Candidate> ask() = 0;
  /// The outcome of a candidate ask() returned.
  virtual void tell(const Candidate& c, const Outcome& o) = 0;
  /// True when the next ask() would depend on outcomes not told yet (a genetic search's
  /// next generation): a parallel loop then waits for them, so the candidates proposed do
  /// not depend on how many evaluations run at once.
  virtual bool waiting() const { return false; }
  /// `c`, asked and not told yet, has been evaluating for `seconds` so far: the loop says so
  /// while the search is waiting(), and its outcome's `seconds` is then at least as much. A
  /// search may stop waiting for a candidate it now knows to be slow (rounds.hpp).
  virtual void running(const Candidate& c, double seconds) {}
  /// A line on what the search itself cost, printed at the end of a run (the model-guided
  /// search's training and scoring time); empty when there is nothing to say.
  virtual std::string report() const { return {}; }
};

/// Random search: distinct valid points; each strategy is drawn equally often and, within
/// it, each alternative with valid points equally often (draw_alternative), so a strategy or
/// alternative with a small space is explored as much as one with millions of points.
/// It ends when `max_attempts` draws in a row found no new point (the space is exhausted).
std::unique_ptr<Search> make_random_search(CandidateSpace& space, std::uint64_t seed, int max_attempts = 1000);

/// Parent selection of the genetic search.
enum class Selection { Tournament, Roulette };

/// Settings of the genetic search.
struct GeneticOptions {
  std::size_t population = 24;   // individuals per generation
  std::size_t elites = 2;        // best individuals carried over unchanged (single objective)
  Selection selection = Selection::Tournament;
  std::size_t tournament = 3;    // contestants per tournament
  double crossover_rate = 0.9;   // chance a child mixes two parents (else it copies one)
  double mutation_rate = 0.2;    // chance each parameter of a child is mutated
  bool pareto = false;           // NSGA-II on (time, memory) instead of time alone
  double niche_share = 0.25;     // share of children bred within one alternative (below)
  std::vector<Candidate> seeds;  // valid points generation 0 starts with (warm_start.hpp)
};

/// Genetic search: generation 0 is the `seeds` (valid points, earlier runs' fastest), a
/// sampled point of every alternative with valid points, then distinct sampled points
/// (draw_alternative) up to `population`; each next one is
/// elites + children (selection, one-point crossover in the dependency order, mutation to a
/// nearby value, invalid children repaired through the space). With `pareto`, survivors
/// are chosen by NSGA-II (non-dominated rank, then crowding distance) from parents and
/// children together. A child already evaluated is mutated again rather than re-asked.
/// Niches: the three fastest points of every alternative evaluated so far stay parents, and a
/// `niche_share` of each generation's children is bred within one alternative (in turn
/// among those with a valid point; both parents of it), so that an alternative whose first
/// random points were slow is still searched near its best instead of dying out once
/// another alternative leads (a strategy with a large space of mostly poor points, whose
/// good region is small). 0 breeds every child from the whole population. Each generation
/// also holds a fresh point of one alternative without a validated point yet (in turn), so
/// that one whose first points failed is tried again.
/// One generation can be asked at once; it is `waiting()` for the outcomes before the next.
std::unique_ptr<Search> make_genetic_search(CandidateSpace& space, const GeneticOptions& options, std::uint64_t seed);

/// The fitness the genetic search ranks by when not `pareto`: time, failures last.
double fitness(const Outcome& o);

/// Tournament selection: the fittest (lowest `fitness`) of `k` members drawn at random.
std::size_t select_tournament(const std::vector<double>& fitness, std::size_t k, std::mt19937_64& rng);

/// Roulette selection: a member drawn with probability proportional to 1/fitness
/// (failures, with infinite fitness, are never drawn unless all failed).
std::size_t select_roulette(const std::vector<double>& fitness, std::mt19937_64& rng);

/// One-point crossover in the dependency order: the first `cut` values from `a`, the rest
/// from `b` (parameters that depend on earlier ones stay after them), repaired when the
/// child is invalid. nullopt when repair finds no valid point.
std::optional<Point> crossover(Alternative& alt, const Point& a, const Point& b, std::size_t cut);

/// Mutation: each parameter with probability `rate` moves to a neighbouring value of its
/// domain (or, one time in four, to any value); the result is repaired when invalid.
std::optional<Point> mutate(Alternative& alt, const Point& p, double rate, std::mt19937_64& rng);

/// The points one step from `p`: each parameter in turn moved to the next value of its domain
/// below and above, the others kept; a step that breaks a constraint is repaired (and dropped
/// when that finds no valid point, or only `p`). Distinct, in parameter order. Where a good
/// point is known, these are the smallest steps from it, which a mutation (each parameter
/// moved with some probability) proposes rarely.
std::vector<Point> neighbours(Alternative& alt, const Point& p);

/// Draws a strategy uniformly, then one of its alternatives uniformly (alternatives without
/// valid points are never drawn); a strategy over emulated local memory gets
/// kEmulatedLocalShare of a share, and a strategy named in `strategy_weights` that weight of
/// a share (the model-guided search's promise of each strategy: `strategy_promise`).
std::size_t draw_alternative(const CandidateSpace& space, std::mt19937_64& rng,
                             const std::map<std::string, double>& strategy_weights = {});

/// What explore's `note:` line says of the strategies of `space` whose alternatives use
/// local memory that `target` (its name) emulates in global memory: drawn
/// kEmulatedLocalShare times as often as the others, or, when every strategy offered does,
/// only that they are no faster there; empty when none does.
std::string emulated_local_note(const CandidateSpace& space, const std::string& target);

}  // namespace liftc::explore
