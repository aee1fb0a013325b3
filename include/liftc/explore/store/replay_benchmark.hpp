#pragma once
// A search benchmark without a device (Kernel Tuner's simulation mode): a search is run
// against a store's recorded rows over many seeds, each candidate it asks answered by the
// store, and what it found is summed up as the best time against the number of
// measurements and the measurements it needed to come within 5% and 10% of the store's best.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "liftc/explore/search/loop.hpp"
#include "liftc/explore/search/searches.hpp"
#include "liftc/explore/store/store.hpp"

namespace liftc::explore {

/// One seed's replay: the best valid time after each measurement (infinity before the first).
struct ReplayedSeed {
  std::uint64_t seed = 0;
  std::vector<double> best_ms;  // best_ms[i]: after i + 1 measurements
  std::size_t missing = 0;      // candidates asked that the store does not hold
  std::string report;           // the search's own line (Search::report)
};

/// A search replayed over seeds.
struct ReplayBenchmark {
  std::string search;
  double recorded_best_ms = 0;  // the store's best valid time of the program
  std::size_t recorded = 0;     // the store's distinct candidates of the program
  std::size_t budget = 0;       // measurements a seed may ask
  std::vector<ReplayedSeed> seeds;
};

/// Makes the search of one seed over `space`.
using MakeSearch = std::function<std::unique_ptr<Search>(CandidateSpace& space, std::uint64_t seed)>;

/// Replays `make`'s search with seeds first_seed, first_seed + 1, ... (`seeds` of them) on
/// `space` against `replay`'s rows of program `program_hash` (replay_rows: the latest row of
/// each candidate; one the store lacks is a failure, counted), each for `budget` measurements.
ReplayBenchmark replay_benchmark(Store& replay, const std::string& program_hash, CandidateSpace& space,
                                 const std::string& search, const MakeSearch& make, std::uint64_t first_seed,
                                 std::size_t seeds, std::size_t budget);

/// The number of measurements after which `seed` was within `tolerance` (0.05: 5%) of
/// `best_ms`; 0 when it never was.
std::size_t measurements_within(const ReplayedSeed& seed, double best_ms, double tolerance);

/// The median over seeds of measurements_within (a seed that never came within counts as
/// more than the budget); 0 when more than half of them never did.
std::size_t median_measurements_within(const ReplayBenchmark& b, double tolerance);

/// The benchmark as text: a table of the median best over seeds (and its ratio to the
/// recorded best) after 1, 2, 5, 10, 20, 50, ... measurements, then one line a tolerance
/// (`model: within 5% of the recorded best after a median of 23 measurements (20 seeds;
/// every seed within 61)`), the rows missing from the store, and the first seed's report.
std::string format_replay_benchmark(const ReplayBenchmark& b);

}  // namespace liftc::explore
