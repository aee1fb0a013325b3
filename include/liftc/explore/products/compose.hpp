#pragma once
// A network's front from its layers' fronts. The layers run one after the other, so a
// network point (one front point chosen per layer) takes the sum of their times (and of
// their spreads), and its memory is the network's peak footprint as its host program holds
// it: each device buffer from the first kernel whose arguments name it to the last (a
// network input is uploaded at its first reader's kernel, a definition made at its layer's
// first kernel that names it, and each freed, an output read back, after the last kernel
// that names it). While one of layer i's kernels runs, the device holds the layer's own
// buffers alive at that kernel (`layer_peak`: its inputs, output and intermediates, those
// an earlier layer named alive from the layer's start, those a later layer names to its
// end) plus the buffers alive across the layer without being its own (`resident_bytes`:
// named by an earlier layer and by a later one). The most of those over the layers is the
// point's memory, and it is what the point's host program prints (`device memory: N bytes
// at most`, codegen::HostPlan::peak_bytes).
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

/// One layer as composition sees it: its front points (time, spread, and as memory the
/// layer_peak of its own buffers) and the bytes alive across it that are not its own.
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
/// a network input (named in `bytes`, written by no layer) or a layer's output that an
/// earlier layer and a later one both read or write.
std::vector<double> resident_bytes(const std::vector<LayerBuffers>& layers, const std::map<std::string, double>& bytes);

/// One layer point's kernels as its host program runs them: its global buffers, and per
/// kernel, in order, those its arguments name.
struct LayerSteps {
  struct Buffer {
    std::string name;
    double bytes = 0;
    bool network = false;  // a network input or definition (else the layer's own intermediate)
  };
  std::vector<Buffer> buffers;
  std::vector<std::vector<std::size_t>> kernels;  // per kernel: indices into `buffers`
};

/// The most bytes of layer `j`'s own buffers (`steps`, at its point) alive at once while one
/// of its kernels runs, in the network of `layers`: a buffer from the first of its kernels
/// naming it to the last, except that a network buffer an earlier layer reads or writes is
/// alive from the layer's start, and one a later layer does to the layer's end.
double layer_peak(const LayerSteps& steps, const std::vector<LayerBuffers>& layers, std::size_t j);

}  // namespace liftc::explore
