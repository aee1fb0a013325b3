// Noise-tolerant dominance, the front, NSGA-II's sorting and crowding (Deb et al. 2002).

#include "liftc/explore/search/pareto.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace liftc::explore {

bool dominates(const Objectives& a, const Objectives& b) {
  if (!std::isfinite(a.time_ms)) return false;  // a failed point dominates nothing
  if (!std::isfinite(b.time_ms)) return true;   // every measured point beats a failed one
  double tol = a.spread_ms + b.spread_ms;
  bool no_worse = a.memory <= b.memory && a.time_ms <= b.time_ms;
  bool better = a.memory < b.memory || a.time_ms < b.time_ms - tol;
  return no_worse && better;
}

std::vector<std::size_t> pareto_front(const std::vector<Objectives>& points) {
  std::vector<std::size_t> front;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!std::isfinite(points[i].time_ms)) continue;
    bool dominated = false;
    for (std::size_t j = 0; j < points.size() && !dominated; ++j) dominated = j != i && dominates(points[j], points[i]);
    if (!dominated) front.push_back(i);
  }
  return front;
}

std::vector<std::vector<std::size_t>> nondominated_sort(const std::vector<Objectives>& points) {
  std::size_t n = points.size();
  std::vector<std::vector<std::size_t>> dominated_by(n);  // S_p: the points p dominates
  std::vector<std::size_t> count(n, 0);                   // n_p: how many points dominate p
  std::vector<std::vector<std::size_t>> fronts(1);
  for (std::size_t p = 0; p < n; ++p) {
    for (std::size_t q = 0; q < n; ++q) {
      if (p == q) continue;
      if (dominates(points[p], points[q])) dominated_by[p].push_back(q);
      else if (dominates(points[q], points[p])) ++count[p];
    }
    if (count[p] == 0) fronts[0].push_back(p);
  }
  for (std::size_t f = 0; !fronts[f].empty(); ++f) {
    std::vector<std::size_t> next;
    for (std::size_t p : fronts[f])
      for (std::size_t q : dominated_by[p])
        if (--count[q] == 0) next.push_back(q);
    std::sort(next.begin(), next.end());
    fronts.push_back(std::move(next));
  }
  fronts.pop_back();  // the empty one that ended the loop
  return fronts;
}

std::vector<double> crowding_distance(const std::vector<Objectives>& points, const std::vector<std::size_t>& front) {
  std::size_t n = front.size();
  std::vector<double> distance(n, 0.0);
  const double inf = std::numeric_limits<double>::infinity();
  auto objective = [&](int k, std::size_t i) { return k == 0 ? points[front[i]].time_ms : points[front[i]].memory; };
  for (int k = 0; k < 2; ++k) {
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return objective(k, a) < objective(k, b); });
    if (n == 0) break;
    distance[order.front()] = distance[order.back()] = inf;
    double range = objective(k, order.back()) - objective(k, order.front());
    if (!(range > 0) || !std::isfinite(range)) continue;
    for (std::size_t i = 1; i + 1 < n; ++i)
      distance[order[i]] += (objective(k, order[i + 1]) - objective(k, order[i - 1])) / range;
  }
  return distance;
}

}  // namespace liftc::explore
