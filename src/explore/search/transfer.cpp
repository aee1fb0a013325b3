// A tuning database that transfers (transfer.hpp).

#include "liftc/explore/search/transfer.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "liftc/explore/candidates/library.hpp"
#include "liftc/explore/cost/features.hpp"
#include "liftc/explore/products/output.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::explore {

namespace {

using Group = std::pair<std::string, std::string>;  // program, device

std::vector<std::string> split(const std::string& text, char by) {
  std::vector<std::string> parts;
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t end = text.find(by, at);
    if (end == std::string::npos) end = text.size();
    parts.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return parts;
}

bool whole_number(const std::string& text, std::int64_t& value) {
  auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), value);
  return err == std::errc() && end == text.data() + text.size() && !text.empty();
}

// A stored point's parameters ("kappa=2,v=4"); nullopt when one is not name=whole number.
std::optional<std::vector<std::pair<std::string, std::int64_t>>> stored_parameters(const std::string& point) {
  std::vector<std::pair<std::string, std::int64_t>> out;
  if (point.empty()) return out;
  for (const std::string& p : split(point, ',')) {
    std::size_t eq = p.find('=');
    std::int64_t v = 0;
    if (eq == std::string::npos || eq == 0 || !whole_number(p.substr(eq + 1), v)) return std::nullopt;
    out.emplace_back(p.substr(0, eq), v);
  }
  return out;
}

// The rows of `dbs` by (program, device), the target's own left out, each group's rows in
// the stores' order.
std::map<Group, std::vector<Evaluation>> other_groups(const std::vector<const Store*>& dbs,
                                                      const TransferTarget& target) {
  std::map<Group, std::vector<Evaluation>> groups;
  for (const Store* db : dbs)
    for (auto& e : db->evaluations()) {
      if (e.run >= target.before_run) continue;
      if (e.program == target.program_hash && e.device == target.device) continue;
      groups[{e.program, e.device}].push_back(std::move(e));
    }
  return groups;
}

double best_time(const std::vector<Evaluation>& rows) {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& e : rows)
    if (valid_result(e) && e.time_ms > 0) best = std::min(best, e.time_ms);
  return best;
}

}  // namespace

TransferRows transfer_rows(const std::vector<const Store*>& dbs, const TransferTarget& target, std::size_t limit) {
  auto groups = other_groups(dbs, target);
  std::size_t total = 0;
  for (const auto& [g, rows] : groups) total += rows.size();
  std::size_t stride = limit > 0 && total > limit ? (total + limit - 1) / limit : 1;
  TransferRows out;
  for (const auto& [g, rows] : groups) {
    double best = best_time(rows);
    std::set<double> times;
    for (const auto& e : rows)
      if (valid_result(e) && e.time_ms > 0) times.insert(e.time_ms);
    if (!std::isfinite(best) || times.size() < 2) continue;
    unsigned size = 0;
    for (std::size_t i = 0; i < rows.size(); i += stride) {
      const Evaluation& e = rows[i];
      auto params = stored_parameters(e.point);
      if (!params) continue;
      cost::FeatureVector f = cost::point_features(target.strategies, e.strategy, e.alternative, *params);
      out.features.push_back({std::move(f.names), std::move(f.values)});
      out.relative_time.push_back(valid_result(e) && e.time_ms > 0 ? e.time_ms / best
                                                                     : std::numeric_limits<double>::infinity());
      ++size;
    }
    if (size > 0) out.groups.push_back(size);
  }
  return out;
}

double shapes_distance(const std::string& a, const std::string& b) {
  auto parse = [](const std::string& text) {
    std::map<std::string, std::vector<double>> inputs;
    if (text.empty()) return inputs;
    for (const std::string& part : split(text, ',')) {
      std::size_t eq = part.find('=');
      if (eq == std::string::npos) continue;
      std::vector<double> dims;
      for (const std::string& d : split(part.substr(eq + 1), 'x')) {
        std::int64_t v = 0;
        dims.push_back(whole_number(d, v) && v > 0 ? double(v) : 1.0);
      }
      inputs[part.substr(0, eq)] = std::move(dims);
    }
    return inputs;
  };
  auto x = parse(a), y = parse(b);
  double d = 0;
  for (const auto& [name, dims] : x) {
    auto it = y.find(name);
    if (it == y.end() || it->second.size() != dims.size()) {
      d += 10;
      continue;
    }
    for (std::size_t i = 0; i < dims.size(); ++i) d += std::fabs(std::log(dims[i] / it->second[i]));
  }
  for (const auto& [name, dims] : y)
    if (!x.count(name)) d += 10;
  return d;
}

std::vector<Candidate> nearest_shape_seeds(const std::vector<const Store*>& dbs, const TransferTarget& target,
                                           const CandidateSpace& space, std::size_t count, std::size_t per_group) {
  auto groups = other_groups(dbs, target);
  // Nearest first: the target's device before others, then by shapes.
  std::vector<std::tuple<bool, double, const std::vector<Evaluation>*>> order;
  for (const auto& [g, rows] : groups) {
    if (rows.empty()) continue;
    order.emplace_back(g.second != target.device, shapes_distance(rows.front().shapes, target.shapes), &rows);
  }
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
  });
  std::vector<Candidate> seeds;
  std::set<Candidate> taken;
  for (const auto& [other_device, distance, rows_of] : order) {
    std::vector<const Evaluation*> rows;
    for (const auto& e : *rows_of)
      if (valid_result(e)) rows.push_back(&e);
    std::stable_sort(rows.begin(), rows.end(), [](const Evaluation* a, const Evaluation* b) { return a->time_ms < b->time_ms; });
    std::size_t from_group = 0;
    for (const Evaluation* e : rows) {
      if (seeds.size() >= count || from_group >= per_group) break;
      for (std::size_t a = 0; a < space.alternatives.size(); ++a) {
        Alternative& alt = *space.alternatives[a];  // repair may cache what it counts
        if (alt.strategy() != e->strategy || alternative_number(alt) != e->alternative) continue;
        Point p;
        try {
          p = parse_point(alt, e->point, "a stored row");
        } catch (const Error&) {
          break;  // other parameters: it does not fit this space
        }
        // Another shape's sizes divide differently: a point that is not valid here becomes
        // the nearest valid one (a tile of 32 columns divides a 224-wide row, not a 56-wide
        // one: there it becomes 28).
        if (!alt.valid(p)) {
          std::optional<Point> near = alt.repair(p);
          if (!near) break;
          p = std::move(*near);
        }
        Candidate c{a, std::move(p)};
        if (taken.insert(c).second) {
          seeds.push_back(std::move(c));
          ++from_group;
        }
        break;
      }
    }
  }
  return seeds;
}

}  // namespace liftc::explore
