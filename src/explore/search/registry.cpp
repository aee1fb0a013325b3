// The searches by name (registry.hpp).

#include "liftc/explore/search/registry.hpp"

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

constexpr std::array kSearches{
    SearchKind{"random", "distinct sampled points", false, make_random},
    SearchKind{"genetic", "generations of crossover and mutation; NSGA-II with --pareto", true, make_genetic},
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
  return fmt::format("{} (default {})", out, kSearches.front().name);
}

}  // namespace liftc::explore
