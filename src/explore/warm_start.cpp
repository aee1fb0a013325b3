// The fastest stored points of a program as seeds of the genetic search.

#include "liftc/explore/warm_start.hpp"

#include <algorithm>
#include <charconv>
#include <set>

#include "liftc/explore/library.hpp"

namespace liftc::explore {

namespace {

// `text` ("kappa=2,v=4") as a point of `alt`, its values in the order of its parameters;
// nullopt when a name is not the alternative's or a value is not a whole number.
std::optional<Point> read_point(const Alternative& alt, const std::string& text) {
  const auto& params = alt.parameters();
  Point p(params.size());
  std::vector<bool> given(params.size(), false);
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = std::min(text.find(',', at), text.size());
    std::string item = text.substr(at, end - at);
    at = end + 1;
    std::size_t eq = item.find('=');
    if (eq == std::string::npos) return std::nullopt;
    std::string name = item.substr(0, eq);
    auto it = std::find_if(params.begin(), params.end(), [&](const Parameter& q) { return q.name == name; });
    if (it == params.end()) return std::nullopt;
    auto i = static_cast<std::size_t>(it - params.begin());
    std::int64_t v = 0;
    const char* first = item.data() + eq + 1;
    const char* last = item.data() + item.size();
    auto [ptr, ec] = std::from_chars(first, last, v);
    if (ec != std::errc() || ptr != last || given[i]) return std::nullopt;
    p[i] = v;
    given[i] = true;
  }
  if (std::find(given.begin(), given.end(), false) != given.end()) return std::nullopt;
  return p;
}

}  // namespace

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
    for (std::size_t a = 0; a < space.alternatives.size(); ++a) {
      const Alternative& alt = *space.alternatives[a];
      if (alt.strategy() != e.strategy || alternative_number(alt) != e.alternative) continue;
      auto p = read_point(alt, e.point);
      if (!p || !alt.valid(*p)) break;
      Candidate c{a, *p};
      if (taken.insert(c).second) seeds.push_back(std::move(c));
      break;
    }
  }
  return seeds;
}

}  // namespace liftc::explore
