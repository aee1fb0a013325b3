#pragma once
// A network's front from its layers' fronts. The layers run one after the other, so a
// network point (one front point chosen per layer) takes the sum of their times (and of
// their spreads), and its memory is the network's peak footprint: while layer i runs, its
// own buffers (its memory objective: inputs, output, intermediates) plus the buffers that
// are alive across it without being its own (an input a later layer reads, an earlier
// layer's output read later); a buffer is freed once no later layer reads it, and a
// definition no later layer reads is a network output, alive to the end.
//
// Composition goes layer by layer and prunes as it goes: a partial combination that
// another dominates by the medians (no more memory, no more time, less of one) is dropped,
// which is exact, since adding the same layer point to both keeps the order of their
// times and of their peaks. The network front is therefore by median times, not by the
// noise rule of pareto.hpp: summed spreads would keep nearly every combination (at small
// sizes a layer's spread is of the order of its differences); each point's spread is still
// reported, the sum of its layers'. Of combinations with equal objectives the first is kept.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "liftc/explore/search/pareto.hpp"

namespace liftc::explore {

/// One layer as composition sees it: its front points (time, spread, its own memory) and
/// the bytes alive across it that are not its own.
struct LayerFront {
  std::vector<Objectives> points;
  double resident_bytes = 0;
};

/// One point of a network's front.
struct NetworkPoint {
  Objectives objectives;            // summed time and spread; peak memory
  std::vector<std::size_t> choice;  // per layer, the index into its LayerFront::points
  std::size_t variant = 0;          // of a network's variants (layers.hpp): which layers `choice` is for
};

/// The network's front, fastest first.
std::vector<NetworkPoint> compose_fronts(const std::vector<LayerFront>& layers);

/// The points of several fronts (a network's variants' fronts, each point's `variant`
/// set) as one front: those no other dominates by their medians, fastest first.
std::vector<NetworkPoint> merge_fronts(std::vector<NetworkPoint> points);

/// The buffers one layer touches.
struct LayerBuffers {
  std::vector<std::string> reads;  // network inputs and earlier layers' outputs
  std::string writes;              // its definition
};

/// For each layer, the bytes of the buffers alive while it runs that it does not touch:
/// network inputs (named in `bytes`, written by no layer) from the start to their last
/// reader, a layer's output from that layer to its last reader (to the end when none).
std::vector<double> resident_bytes(const std::vector<LayerBuffers>& layers, const std::map<std::string, double>& bytes);

}  // namespace liftc::explore
