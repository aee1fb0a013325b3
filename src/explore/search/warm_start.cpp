// The fastest stored points of a program as seeds of the genetic search.

#include "liftc/explore/search/warm_start.hpp"

#include <algorithm>
#include <set>

#include "liftc/explore/candidates/library.hpp"
#include "liftc/explore/products/output.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::explore {

std::optional<Candidate> stored_candidate(const CandidateSpace& space, const Evaluation& row) {
  for (std::size_t a = 0; a < space.alternatives.size(); ++a) {
    const Alternative& alt = *space.alternatives[a];
    if (alt.strategy() != row.strategy || alternative_number(alt) != row.alternative) continue;
    Point p;
    try {
      p = parse_point(alt, row.point, "a stored row");
    } catch (const Error&) {
      return std::nullopt;  // its parameters are not the alternative's any more
    }
    if (!alt.valid(p)) return std::nullopt;
    return Candidate{a, std::move(p)};
  }
  return std::nullopt;
}

std::vector<Candidate> stored_seeds(const Store& store, const std::string& program_hash, const std::string& device,
                                    std::int64_t run, const CandidateSpace& space, std::size_t count) {
  std::vector<Evaluation> rows;
  for (auto& e : store.evaluations())
    if (e.run < run && e.program == program_hash && e.device == device && valid_result(e)) rows.push_back(std::move(e));
  std::stable_sort(rows.begin(), rows.end(), [](const Evaluation& a, const Evaluation& b) { return a.time_ms < b.time_ms; });
  std::vector<Candidate> seeds;
  std::set<Candidate> taken;
  for (const auto& e : rows) {
    if (seeds.size() >= count) break;
    std::optional<Candidate> c = stored_candidate(space, e);
    if (c && taken.insert(*c).second) seeds.push_back(std::move(*c));
  }
  return seeds;
}

}  // namespace liftc::explore
