#pragma once
// Deciding, counting, sampling and repairing the points of a Space.
//
// The parameters are drawn in the space's dependency order from their explicit domains
// (one-variable constraints already pruned into them). Counting is exact by dynamic
// programming over that order (a table per parameter, keyed by the values of the earlier
// parameters that later constraints still mention); sampling draws each value weighted by
// its number of valid completions, so samples are uniform over the valid points; repair
// finds a valid point at the least L1 distance by the same tables. When the tables would
// exceed a budget (entries, or constraint evaluations), the count is Knuth's estimate
// (marked as such) and samples come from a descent that Z3 keeps feasible (valid, but not
// uniform; Sampler::uniform() says so). Z3 decides feasibility and names the conflicting
// constraints (an unsat core).
//
// Z3 runs under a resource limit (its `rlimit`, a count of its own steps), so what it
// answers does not depend on the machine's load; a wall-clock net far above it only stops
// the parts of Z3 that count few steps a second. When Z3 gives up, that is said as such
// ("Z3 gave up ..."), never as "no valid point".

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "liftc/constraints/space.hpp"

namespace liftc::constraints {

/// A number of points (spaces can be larger than 2^64).
using Count = unsigned __int128;

/// Decimal text of a count.
std::string to_string(Count c);

/// Z3's resource limit (rlimit) for one question about a partial point (a few seconds on
/// the networks' spaces); the question that decides a parameter's value is asked once
/// more with four times as much before liftc reports that Z3 gave up.
inline constexpr std::uint64_t kZ3Effort = 2'000'000;
/// Z3's resource limit for deciding a whole space (check_feasibility).
inline constexpr std::uint64_t kZ3FeasibilityEffort = 10'000'000;
/// Wall-clock nets over those limits (a question, a whole space), far above what the limits
/// normally take: Z3's nonlinear integer reasoning can count few steps a second, and only
/// there may an answer depend on the machine's load (it says so: "its time net of 20 s").
inline constexpr unsigned kZ3QuestionNetMs = 20'000;
inline constexpr unsigned kZ3FeasibilityNetMs = 60'000;

/// Z3's verdict on a space.
struct Feasibility {
  bool decided = true;                 // false: Z3 gave up (its resource limit)
  bool feasible = true;
  std::vector<std::size_t> conflict;   // infeasible: indices of constraints that cannot hold together
};

/// Asks Z3 whether any point satisfies every constraint; names a conflict when none does.
/// `effort`: Z3's resource limit (deterministic, unlike a timeout).
Feasibility check_feasibility(const Space& space, std::uint64_t effort = kZ3FeasibilityEffort);

/// Whether Z3 accepts `p` (every constraint, exact integers).
bool z3_accepts(const Space& space, const Assignment& p);

/// Counts the valid points by enumerating Z3's models (each blocked after it is found), up
/// to `limit`; for small spaces and tests.
std::uint64_t z3_count(const Space& space, std::uint64_t limit);

/// The budgets of a Sampler (the defaults are what `liftc space` and `explore` use).
struct SamplerBudget {
  std::size_t max_states = 4'000'000;      // entries of the counting tables, over all parameters
  std::uint64_t max_checks = 50'000'000;   // constraint evaluations spent on counting exactly
  std::uint64_t search_checks = 2'000'000; // past the tables: constraint evaluations a random search for a
                                           // point may spend before a descent that Z3 guides takes over
  std::uint64_t z3_effort = kZ3Effort;     // Z3's resource limit per question (4x on a retry)
};

/// Counting, sampling and repair of one space.
class Sampler {
 public:
  explicit Sampler(const Space& space, SamplerBudget budget = {});
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  /// Whether the count is exact and the samples uniform.
  bool uniform() const;
  /// The number of valid points (exact when uniform(), else an estimate).
  Count count() const;
  /// "1234 (exact)" or "about 1.2e+09 (estimate, 400 probes)".
  std::string count_text() const;
  /// A valid point; a liftc::Error when there is none, or when Z3 gave up looking for
  /// one (the error says which, and on which parameter).
  Assignment sample(std::mt19937_64& rng);
  /// A valid point at the least L1 distance from `p` (when uniform(); else a valid point
  /// near `p`, found by a Z3-guided descent); nullopt when the space is empty; a
  /// liftc::Error when Z3 gave up. Each level's allowed values that a repair lists are
  /// kept for the next one (not safe to call from two threads at once).
  std::optional<Assignment> repair(const Assignment& p);
  /// Whether `p` is valid (every constraint; exact int64 arithmetic).
  bool valid(const Assignment& p) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace liftc::constraints
