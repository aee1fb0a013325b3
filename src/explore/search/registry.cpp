// The searches by name (registry.hpp).

#include "liftc/explore/search/registry.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include <fmt/format.h>

#include "liftc/support/diagnostic.hpp"

namespace liftc::explore {

namespace {

std::unique_ptr<Search> make_random(CandidateSpace& space, const SearchSettings& s) {
  return make_random_search(space, s.seed);
}

std::unique_ptr<Search> make_genetic(CandidateSpace& space, const SearchSettings& s) {
  return make_genetic_search(space, s.genetic, s.seed);
}

// The model-guided search's first round is --population candidates (its warm-up before the
// model ranks), started with --warm-start's seeds; each next round is at least --jobs
// candidates, so that every job has one; XGBoost's seed is the search's. With
// kModelLagFromJobs jobs or more, a round goes without the outcomes of the last kModelLag
// rounds (rounds.hpp): on the H200 with 16 jobs a round took about 1.4 s and a CLBlast
// candidate (its kernel built from source) 4-10 s, and every round that held one waited for
// it with 15 jobs idle: 31 s of a 120 s exploration of VGG-16's layer 3 (docs/results.md).
// Fewer jobs (this 2-core machine, CI, a replay without --jobs) keep rounds in step.
// With the lag, a candidate that runs longer than kSlowSeconds is seen kSlowLag rounds after
// its own, not waited for before (rounds.hpp): on the H200 a round of 16 took about 0.5 s
// and a candidate 0.2-0.5 s, so 2 s is four rounds' worth, and 32 rounds hold a build of 15 s.
std::unique_ptr<Search> make_model(CandidateSpace& space, const SearchSettings& s) {
  constexpr std::size_t kModelLagFromJobs = 4, kModelLag = 6, kSlowLag = 32;
  constexpr double kSlowSeconds = 2;
  ModelSearchOptions o;
  o.warmup = s.genetic.population;
  o.batch = std::max(o.batch, s.jobs);
  if (s.jobs >= kModelLagFromJobs) {
    o.lag = kModelLag;
    o.slow_lag = kSlowLag;
    o.slow_s = kSlowSeconds;
  }
  o.shortlist_features = s.shortlist_features;
  o.shortlist = s.shortlist;
  o.seeds = s.genetic.seeds;
  o.features = s.features;
  o.transfer = s.transfer;
  o.reused_by_evaluator = s.reused_by_evaluator;
  o.kernel_reach = s.kernel_reach;
  o.model.seed = s.seed;
  return make_model_search(space, o, s.seed);
}

constexpr std::array kSearches{
    SearchKind{"random", "distinct sampled points", false, make_random},
    SearchKind{"genetic", "generations of crossover and mutation; NSGA-II with --pareto", true, make_genetic},
    SearchKind{"model", "a cost model (XGBoost's ranking trees) trained on the run's measurements chooses what to measure",
               true, make_model},
};

bool any(const SearchKind&) { return true; }

}  // namespace

std::span<const SearchKind> search_kinds() { return kSearches; }

std::string search_names(bool (*pred)(const SearchKind&), bool quoted) {
  std::vector<std::string> names;
  for (const SearchKind& k : kSearches)
    if (pred(k)) names.push_back(quoted ? fmt::format("'{}'", k.name) : std::string(k.name));
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

const SearchKind& search_kind(std::string_view name) {
  for (const SearchKind& k : kSearches)
    if (k.name == name) return k;
  throw Error(fmt::format("--search {}: expected {}", name, search_names(any, true)));
}

std::string search_help() {
  std::string out;
  for (const SearchKind& k : kSearches) out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", k.name, k.summary);
  return fmt::format("{} (default {})", out, kDefaultSearch);
}

}  // namespace liftc::explore
