// A network's front composed from its layers' fronts, and the liveness of its buffers.

#include "liftc/explore/products/compose.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "liftc/support/diagnostic.hpp"

namespace liftc::explore {

namespace {

// The combinations no other dominates by their medians (no more memory, no more time,
// less of one), of equal ones the first: sorted by memory then time, a combination stays
// when it is faster than every one before it.
std::vector<NetworkPoint> prune(std::vector<NetworkPoint> partial) {
  std::stable_sort(partial.begin(), partial.end(), [](const NetworkPoint& a, const NetworkPoint& b) {
    if (a.objectives.memory != b.objectives.memory) return a.objectives.memory < b.objectives.memory;
    return a.objectives.time_ms < b.objectives.time_ms;
  });
  std::vector<NetworkPoint> kept;
  double best = std::numeric_limits<double>::infinity();
  for (auto& p : partial)
    if (p.objectives.time_ms < best) {
      best = p.objectives.time_ms;
      kept.push_back(std::move(p));
    }
  return kept;
}

}  // namespace

std::vector<NetworkPoint> compose_fronts(const std::vector<LayerFront>& layers) {
  if (layers.empty()) return {};
  std::vector<NetworkPoint> partial = {NetworkPoint{}};
  for (const auto& layer : layers) {
    std::vector<NetworkPoint> next;
    for (const auto& q : partial)
      for (std::size_t k = 0; k < layer.points.size(); ++k) {
        const Objectives& p = layer.points[k];
        if (!std::isfinite(p.time_ms)) continue;
        NetworkPoint n = q;
        n.objectives.time_ms += p.time_ms;
        n.objectives.spread_ms += p.spread_ms;
        n.objectives.memory = std::max(q.objectives.memory, p.memory + layer.resident_bytes);
        n.choice.push_back(k);
        next.push_back(std::move(n));
      }
    partial = prune(std::move(next));
  }
  // Memory ascending is time descending: fastest first.
  std::reverse(partial.begin(), partial.end());
  return partial;
}

std::vector<NetworkPoint> merge_fronts(std::vector<NetworkPoint> points) {
  std::vector<NetworkPoint> kept = prune(std::move(points));
  std::reverse(kept.begin(), kept.end());
  return kept;
}

std::vector<double> resident_bytes(const std::vector<LayerBuffers>& layers, const std::map<std::string, double>& bytes) {
  const std::size_t n = layers.size();
  // Each buffer's first and last step: network inputs from 0, outputs from their layer;
  // to their last reader, or to the end for an output no later layer reads.
  std::map<std::string, std::pair<std::size_t, std::size_t>> live;
  for (std::size_t i = 0; i < n; ++i) live[layers[i].writes] = {i, n - 1};
  std::map<std::string, std::size_t> last_read;
  for (std::size_t i = 0; i < n; ++i)
    for (const auto& r : layers[i].reads) last_read[r] = i;
  for (const auto& [name, at] : last_read) {
    auto it = live.find(name);
    if (it == live.end()) live[name] = {0, at};
    else if (at > it->second.first) it->second.second = at;  // read later: freed after its last reader
  }
  std::vector<double> out(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& own = layers[i].reads;
    for (const auto& [name, span] : live) {
      if (i < span.first || i > span.second || name == layers[i].writes) continue;
      if (std::find(own.begin(), own.end(), name) != own.end()) continue;
      auto b = bytes.find(name);
      LIFTC_ASSERT(b != bytes.end(), "every buffer a layer reads or writes has a size");
      out[i] += b->second;
    }
  }
  return out;
}

}  // namespace liftc::explore
