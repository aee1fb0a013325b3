#pragma once
// Pareto fronts of (time, memory) that tolerate timing noise, and NSGA-II's non-dominated
// sorting and crowding distance.
//
// Memory (the memory plan's global bytes) is exact; a time is a median with a measured
// spread. Point a dominates b when a is no worse in either objective (no more memory, a
// median time no higher) and better in one beyond doubt:
//   a.memory <= b.memory  and  a.time <= b.time  and
//   (a.memory < b.memory  or  a.time < b.time - tol),        tol = a.spread + b.spread.
// So the noise only ever keeps points: two points of equal memory whose times differ by
// less than their spreads both stay on the front (a point is dominated only if it is
// worse beyond the measured spread), and a noisy point never dominates a faster one.

#include <cstddef>
#include <vector>

namespace liftc::explore {

/// The two objectives of one evaluated point (both minimized).
struct Objectives {
  double time_ms = 0;    // median of the timed runs (infinity: failed)
  double spread_ms = 0;  // half the range of the timed runs (the noise of time_ms)
  double memory = 0;     // global memory in bytes
};

/// Whether `a` dominates `b` under the noise rule above.
bool dominates(const Objectives& a, const Objectives& b);

/// Indices of the points no other point dominates (the front), in input order.
std::vector<std::size_t> pareto_front(const std::vector<Objectives>& points);

/// NSGA-II's fronts: fronts[0] is the non-dominated set, fronts[1] the set non-dominated
/// once fronts[0] is removed, and so on; every index appears once.
std::vector<std::vector<std::size_t>> nondominated_sort(const std::vector<Objectives>& points);

/// NSGA-II's crowding distance of each member of one front (same order as `front`);
/// the extremes of each objective get infinity.
std::vector<double> crowding_distance(const std::vector<Objectives>& points, const std::vector<std::size_t>& front);

}  // namespace liftc::explore
