// A search replayed over many seeds against a store's rows (replay_benchmark.hpp).

#include "liftc/explore/store/replay_benchmark.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "liftc/explore/store/session.hpp"

namespace liftc::explore {

ReplayBenchmark replay_benchmark(Store& replay, const std::string& program_hash, CandidateSpace& space,
                                 const std::string& search, const MakeSearch& make, std::uint64_t first_seed,
                                 std::size_t seeds, std::size_t budget) {
  ReplayBenchmark b;
  b.search = search;
  b.budget = budget;
  b.recorded_best_ms = best_stored_time(replay, program_hash);
  std::set<std::tuple<std::string, std::int64_t, std::string>> recorded;
  for (const auto& e : replay.evaluations())
    if (e.program == program_hash) recorded.emplace(e.strategy, e.alternative, e.point);
  b.recorded = recorded.size();
  for (std::size_t i = 0; i < seeds; ++i) {
    ReplayedSeed r;
    r.seed = first_seed + i;
    std::unique_ptr<Search> s = make(space, r.seed);
    Budget limit;
    limit.evaluations = budget;
    LoopResult loop = explore_loop(*s, replay_rows(replay, program_hash, space, r.missing), limit, nullptr);
    double best = std::numeric_limits<double>::infinity();
    for (const auto& x : loop.explored) {
      if (valid_result(x.evaluation)) best = std::min(best, x.evaluation.time_ms);
      r.best_ms.push_back(best);
    }
    r.report = s->report();
    b.seeds.push_back(std::move(r));
  }
  return b;
}

std::size_t measurements_within(const ReplayedSeed& seed, double best_ms, double tolerance) {
  for (std::size_t i = 0; i < seed.best_ms.size(); ++i)
    if (seed.best_ms[i] <= best_ms * (1.0 + tolerance)) return i + 1;
  return 0;
}

namespace {

// Every seed's measurements to within `tolerance`, ascending; a seed that never came
// within is budget + 1.
std::vector<std::size_t> sorted_within(const ReplayBenchmark& b, double tolerance) {
  std::vector<std::size_t> n;
  for (const auto& s : b.seeds) {
    std::size_t k = measurements_within(s, b.recorded_best_ms, tolerance);
    n.push_back(k == 0 ? b.budget + 1 : k);
  }
  std::sort(n.begin(), n.end());
  return n;
}

double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::infinity();
  std::sort(v.begin(), v.end());
  std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

}  // namespace

std::size_t median_measurements_within(const ReplayBenchmark& b, double tolerance) {
  std::vector<std::size_t> n = sorted_within(b, tolerance);
  if (n.empty()) return 0;
  std::size_t m = n[(n.size() - 1) / 2];  // the lower median: a whole number of measurements
  return m > b.budget ? 0 : m;
}

std::string format_replay_benchmark(const ReplayBenchmark& b) {
  std::string out = fmt::format(
      "replay of search '{}' over {} seed(s) ({}..{}), up to {} measurements each, against {} recorded point(s) "
      "(best {:.4g} ms)\n",
      b.search, b.seeds.size(), b.seeds.empty() ? 0 : b.seeds.front().seed, b.seeds.empty() ? 0 : b.seeds.back().seed,
      b.budget, b.recorded, b.recorded_best_ms);
  out += fmt::format("  {:>12}  {:>16}  {:>14}  {:>16}\n", "measurements", "median best (ms)", "x recorded best",
                     "seeds at the best");
  std::vector<std::size_t> marks;
  for (std::size_t decade = 1; decade <= b.budget; decade *= 10)
    for (std::size_t m : {std::size_t{1}, std::size_t{2}, std::size_t{5}})
      if (decade * m <= b.budget) marks.push_back(decade * m);
  if (marks.empty() || marks.back() != b.budget) marks.push_back(b.budget);
  for (std::size_t m : marks) {
    std::vector<double> best;
    std::size_t at_best = 0;
    for (const auto& s : b.seeds) {
      double v = s.best_ms.empty() ? std::numeric_limits<double>::infinity() : s.best_ms[std::min(m, s.best_ms.size()) - 1];
      best.push_back(v);
      at_best += v <= b.recorded_best_ms;
    }
    double med = median(best);
    out += fmt::format("  {:>12}  {:>16}  {:>14}  {:>16}\n", m, std::isfinite(med) ? fmt::format("{:.4g}", med) : "-",
                       std::isfinite(med) ? fmt::format("{:.3f}", med / b.recorded_best_ms) : "-",
                       fmt::format("{}/{}", at_best, b.seeds.size()));
  }
  for (double tolerance : {0.05, 0.10}) {
    std::vector<std::size_t> n = sorted_within(b, tolerance);
    std::size_t never = static_cast<std::size_t>(std::count(n.begin(), n.end(), b.budget + 1));
    std::size_t m = median_measurements_within(b, tolerance);
    out += fmt::format("{}: median measurements to within {:.0f}% of the recorded best: {} (fewest {}, most {}; {} of {} "
                       "seed(s) never within {})\n",
                       b.search, tolerance * 100, m == 0 ? fmt::format(">{}", b.budget) : std::to_string(m),
                       n.empty() || n.front() > b.budget ? "-" : std::to_string(n.front()),
                       n.empty() || never > 0 ? "-" : std::to_string(n.back()), never, n.size(), b.budget);
  }
  std::size_t missing = 0;
  for (const auto& s : b.seeds) missing += s.missing;
  out += fmt::format("{}: {} candidate(s) asked that the store does not hold (told to the search as failures)\n", b.search,
                     missing);
  if (!b.seeds.empty() && !b.seeds.front().report.empty())
    out += fmt::format("{} (seed {}): {}\n", b.search, b.seeds.front().seed, b.seeds.front().report);
  return out;
}

}  // namespace liftc::explore
