#pragma once
// Deciding, counting, sampling and repairing the points of a Space.
//
// The parameters are drawn in the space's dependency order from their explicit domains
// (one-variable constraints already pruned into them). Counting is exact by dynamic
// programming over that order (a table per parameter, keyed by the values of the earlier
// parameters that later constraints still mention); sampling draws each value weighted by
// its number of valid completions, so samples are uniform over the valid points; repair
// finds a valid point at the least L1 distance by the same tables. When the tables would
// exceed a budget, the count is Knuth's estimate (marked as such) and samples come from a
// descent that Z3 keeps feasible (valid, but not uniform; Sampler::uniform() says so).
// Z3 decides feasibility and names the conflicting constraints (an unsat core).

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

/// Z3's verdict on a space.
struct Feasibility {
  bool decided = true;                 // false: Z3 gave up (timeout)
  bool feasible = true;
  std::vector<std::size_t> conflict;   // infeasible: indices of constraints that cannot hold together
};

/// Asks Z3 whether any point satisfies every constraint; names a conflict when none does.
Feasibility check_feasibility(const Space& space, unsigned timeout_ms = 20000);

/// Whether Z3 accepts `p` (every constraint, exact integers).
bool z3_accepts(const Space& space, const Point& p);

/// Counts the valid points by enumerating Z3's models (each blocked after it is found), up
/// to `limit`; for small spaces and tests.
std::uint64_t z3_count(const Space& space, std::uint64_t limit);

/// Counting, sampling and repair of one space.
class Sampler {
 public:
  /// `max_states`: the budget of the counting tables (entries over all parameters).
  explicit Sampler(const Space& space, std::size_t max_states = 4'000'000);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  /// Whether the count is exact and the samples uniform.
  bool uniform() const;
  /// The number of valid points (exact when uniform(), else an estimate).
  Count count() const;
  /// "1234 (exact)" or "about 1.2e+09 (estimate, 400 probes)".
  std::string count_text() const;
  /// A valid point; a liftc::Error when there is none.
  Point sample(std::mt19937_64& rng);
  /// A valid point at the least L1 distance from `p` (when uniform(); else a valid point
  /// near `p`, found by a Z3-guided descent); nullopt when the space is empty.
  std::optional<Point> repair(const Point& p);
  /// Whether `p` is valid (every constraint; exact int64 arithmetic).
  bool valid(const Point& p) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace liftc::constraints
