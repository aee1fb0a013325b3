#pragma once
// A deployed front: the points of a Pareto front (time against memory), each a host plan,
// as one self-contained CMake project — a library that holds every point's kernels and
// launch plans and chooses among them at run time by a memory budget and a latency target
// (DySR's point: an app's budget changes while it runs), and a `demo` executable. The
// library and demo are fixed text over the shared host text; what differs from front to
// front (kernels, launches, buffers, measured times and memory) is generated from the
// points. A point may hold several stages (a network: a kernel choice per layer). The fixed
// text is templates/deploy/*; the shared host text templates/host_support.hpp.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "liftc/codegen/host_plan.hpp"

namespace liftc::emit {

/// One point of a front to deploy.
struct DeployPoint {
  std::string label;              // where it came from: "conv-gpu #2: kappa=4,v=2"
  double time_ms = 0;             // measured median of one run (all kernels)
  double spread_ms = 0;           // half the range of the timed runs
  std::int64_t memory_bytes = 0;  // the front's memory objective (the plan's global bytes)
  codegen::HostPlan plan;
  /// Per output (its name), the .npy of what each element may differ by beyond the demo's
  /// tolerance: a point through constant arrays (Winograd's transforms) as liftc explore
  /// validated it (front/<rank>/allowance/<output>.npy). Empty for any other point, and for
  /// a front regenerated from a store (no exploration's inputs to compute it on).
  std::map<std::string, std::string> allowance;
};

/// Checks that `points` can stand for each other: at least one, every one with the inputs
/// and outputs of the first (names, element types, shapes, in order), memory >= 0 and a
/// finite time >= 0; a liftc::Error naming the first point that differs.
void check_deployable(const std::vector<DeployPoint>& points);

/// The files of the deployed project (relative path, contents): CMakeLists.txt, front.hpp,
/// front.cpp, front_data.hpp, points.cpp, liftc_host.hpp, demo.cpp, README.md, and each
/// point's allowance as allowance/<point>/<output>.npy (the demo's --allowance allowance).
/// `name` names the library (lib<cmake_name(name)>_front) and the README's title. Every
/// label goes into points.cpp as a comment's text and a string literal, into README.md as
/// Markdown text (template.hpp escapes each).
std::vector<std::pair<std::string, std::string>> deploy_project(const std::vector<DeployPoint>& points,
                                                                const std::string& name);

}  // namespace liftc::emit
