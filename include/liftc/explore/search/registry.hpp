#pragma once
// The searches by name: one table from which `liftc explore --search NAME` is checked,
// its help text written and the search made. A new search is a row here (and its factory).

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "liftc/explore/search/model_search.hpp"
#include "liftc/explore/search/searches.hpp"

namespace liftc::explore {

/// What a search may be made from; each takes what it needs.
struct SearchSettings {
  std::uint64_t seed = 1;
  GeneticOptions genetic;  // population, selection, pareto, warm-start seeds
  Featurizer features;     // what the model-guided search's model sees; empty: parameter_features
  std::size_t jobs = 1;    // evaluations at once: the model-guided search's rounds are at least as large
  Featurizer shortlist_features;  // the model-guided search's first stage (ModelSearchOptions); empty: one stage
  std::size_t shortlist = 0;       // proposals of a round the model itself scores, after the first stage
  TransferRows transfer;   // a tuning database's rows the model is trained on first (transfer.hpp)
  std::function<double()> reused_by_evaluator;  // ModelSearchOptions::reused_by_evaluator
  KernelReach kernel_reach;                     // ModelSearchOptions::kernel_reach
};

/// One search the command line offers.
struct SearchKind {
  std::string_view name;     // --search NAME
  std::string_view summary;  // what it does, in --search's help
  bool population = false;   // works in generations or rounds: takes --population, --warm-start (genetic: --selection)
  std::unique_ptr<Search> (*make)(CandidateSpace& space, const SearchSettings& settings);
};

/// The search `liftc explore` runs without --search: the model-guided one, which beat the
/// genetic search on the H200 (docs/results.md). A run keeps the search it was started with
/// (stored with its options), so --resume of an older run goes on with random or genetic.
inline constexpr std::string_view kDefaultSearch = "model";

/// Every search.
std::span<const SearchKind> search_kinds();

/// The search named `name`; an Error (`--search NAME: expected 'random', 'genetic' or 'model'`) when none is.
const SearchKind& search_kind(std::string_view name);

/// The names of the searches for which `pred` holds, quoted or not, joined as a sentence:
/// `'random' or 'genetic'`.
std::string search_names(bool (*pred)(const SearchKind&), bool quoted);

/// --search's help: each search's name and summary, and the default.
std::string search_help();

}  // namespace liftc::explore
