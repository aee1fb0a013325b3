// A network's front composed from its layers' fronts, and the liveness of its buffers.

#include "liftc/explore/products/compose.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

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

namespace {

// Whether a layer of `layers` in [from, to) reads or writes `name`.
bool named_between(const std::vector<LayerBuffers>& layers, std::size_t from, std::size_t to, const std::string& name) {
  for (std::size_t i = from; i < to; ++i)
    if (layers[i].writes == name || std::find(layers[i].reads.begin(), layers[i].reads.end(), name) != layers[i].reads.end())
      return true;
  return false;
}

}  // namespace

std::vector<double> resident_bytes(const std::vector<LayerBuffers>& layers, const std::map<std::string, double>& bytes) {
  const std::size_t n = layers.size();
  std::set<std::string> names;
  for (const auto& l : layers) {
    names.insert(l.writes);
    names.insert(l.reads.begin(), l.reads.end());
  }
  std::vector<double> out(n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (const auto& name : names) {
      if (named_between(layers, i, i + 1, name) || !named_between(layers, 0, i, name) ||
          !named_between(layers, i + 1, n, name))
        continue;
      auto b = bytes.find(name);
      LIFTC_ASSERT(b != bytes.end(), "every buffer a layer reads or writes has a size");
      out[i] += b->second;
    }
  return out;
}

double layer_peak(const LayerSteps& steps, const std::vector<LayerBuffers>& layers, std::size_t j) {
  const std::size_t n = steps.kernels.size(), unnamed = n;
  // Each buffer's first and last kernel of the layer (`unnamed` when none names it).
  std::vector<std::size_t> first(steps.buffers.size(), unnamed), last(steps.buffers.size(), 0);
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t b : steps.kernels[k]) {
      if (first[b] == unnamed) first[b] = k;
      last[b] = k;
    }
  for (std::size_t b = 0; b < steps.buffers.size(); ++b) {
    const LayerSteps::Buffer& buffer = steps.buffers[b];
    if (first[b] == unnamed || !buffer.network) continue;
    if (named_between(layers, 0, j, buffer.name)) first[b] = 0;
    if (named_between(layers, j + 1, layers.size(), buffer.name)) last[b] = n - 1;
  }
  double most = 0;
  for (std::size_t k = 0; k < n; ++k) {
    double held = 0;
    for (std::size_t b = 0; b < steps.buffers.size(); ++b)
      if (first[b] != unnamed && first[b] <= k && k <= last[b]) held += steps.buffers[b].bytes;
    most = std::max(most, held);
  }
  return most;
}

}  // namespace liftc::explore
