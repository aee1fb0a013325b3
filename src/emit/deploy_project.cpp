// A deployed front's project: the fixed library and demo (templates/deploy) over the shared
// host text, and what is generated from the points: their tables (points.cpp, from the
// same plan_tables as the standalone host program), CMakeLists.txt and README.md.

#include "liftc/emit/deploy_project.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "liftc/emit/tables.hpp"
#include "liftc/emit/template.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::emit {

using codegen::HostPlan;
using codegen::HostBuffer;
using codegen::HostRole;

namespace {

// "input image: float (8, 8, 4)" for each buffer of `role`, to compare points by.
std::vector<std::string> interface_of(const HostPlan& plan, HostRole role) {
  std::vector<std::string> out;
  for (const HostBuffer* b : plan.buffers_of(role))
    out.push_back(fmt::format("{} {}: {} ({})", role == HostRole::Input ? "input" : "output", b->name,
                              b->is_float ? "float" : "int", fmt::join(b->shape, ", ")));
  return out;
}

// One point's tables, after a comment naming it, and its row of kPoints.
std::string point_tables(const DeployPoint& p, std::size_t number) {
  return fmt::format("// Point {}: {}\n", number, cpp_comment(p.label)) +
         plan_tables(p.plan, fmt::format("kPlan{}", number)) + "\n";
}

std::string point_row(const DeployPoint& p, std::size_t number) {
  return fmt::format("    {{{:.17g}, {:.17g}, {}LL, {}, &kPlan{}}},\n", p.time_ms, p.spread_ms, p.memory_bytes,
                     cpp_string(p.label), number);
}

std::string points_cpp(const std::vector<DeployPoint>& points) {
  std::string plans, rows;
  for (std::size_t i = 0; i < points.size(); ++i) {
    plans += point_tables(points[i], i + 1);
    rows += point_row(points[i], i + 1);
  }
  return fill("deploy/points.cpp",
              {{"plans", Code{plans}}, {"rows", Code{rows}}, {"count", Code{std::to_string(points.size())}}});
}

bool calls_library(const std::vector<DeployPoint>& points) {
  return std::any_of(points.begin(), points.end(), [](const DeployPoint& p) { return p.plan.calls_library(); });
}

std::string cmake_lists(const std::vector<DeployPoint>& points, const std::string& name) {
  Code clblast{calls_library(points) ? fill("deploy/clblast.cmake", {{"name", name}}) : ""};
  return fill("deploy/CMakeLists.txt", {{"name", name}, {"clblast", clblast}});
}

bool has_allowance(const std::vector<DeployPoint>& points) {
  return std::any_of(points.begin(), points.end(), [](const DeployPoint& p) { return !p.allowance.empty(); });
}

std::string readme(const std::vector<DeployPoint>& points, const std::string& name) {
  std::string rows;
  for (std::size_t i = 0; i < points.size(); ++i) {
    std::size_t kernels = 0;
    for (const auto& s : points[i].plan.stages) kernels += s.kernels.size();
    rows += fmt::format("| {} | {:.4f} | {:.4f} | {} | {} | {} |\n", i + 1, points[i].time_ms, points[i].spread_ms,
                        points[i].memory_bytes, kernels, markdown_text(points[i].label));
  }
  std::vector<std::string> io = interface_of(points.front().plan, HostRole::Input);
  for (const auto& o : interface_of(points.front().plan, HostRole::Output)) io.push_back(o);
  return fill("deploy/README.md",
              {{"name", name},
               {"rows", Code{rows}},
               {"tensors", fmt::format("{}", fmt::join(io, "; "))},
               {"clblast", Code{calls_library(points) ? template_text("deploy/README_clblast.md") : ""}},
               {"allowance", Code{has_allowance(points) ? template_text("deploy/README_allowance.md") : ""}}});
}

}  // namespace

void check_deployable(const std::vector<DeployPoint>& points) {
  if (points.empty()) throw Error("the front has no point to deploy");
  auto inputs = interface_of(points.front().plan, HostRole::Input);
  auto outputs = interface_of(points.front().plan, HostRole::Output);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const DeployPoint& p = points[i];
    if (p.plan.stages.empty() || outputs.empty()) throw Error(fmt::format("front point {} has no kernels or no outputs", i + 1));
    if (!std::isfinite(p.time_ms) || p.time_ms < 0 || p.memory_bytes < 0)
      throw Error(fmt::format("front point {} has no measured time or memory", i + 1));
    if (interface_of(p.plan, HostRole::Input) != inputs || interface_of(p.plan, HostRole::Output) != outputs)
      throw Error(fmt::format("front point {} takes or gives other tensors than point 1 ({} against {}); a deployed "
                              "front's points must stand for each other",
                              i + 1, fmt::join(interface_of(p.plan, HostRole::Input), ", "), fmt::join(inputs, ", ")));
    // An allowance's name becomes a file name: only the point's own outputs are accepted.
    for (const auto& [output, npy] : p.allowance) {
      auto outs = p.plan.buffers_of(HostRole::Output);
      if (std::none_of(outs.begin(), outs.end(), [&](const HostBuffer* b) { return b->name == output; }))
        throw Error(
            fmt::format("front point {} has an allowance for '{}', which is not one of its outputs", i + 1, output));
    }
  }
}

std::vector<std::pair<std::string, std::string>> deploy_project(const std::vector<DeployPoint>& points,
                                                                const std::string& name) {
  check_deployable(points);
  std::vector<std::pair<std::string, std::string>> files{
      {"CMakeLists.txt", cmake_lists(points, name)},
      {"README.md", readme(points, name)},
      {"front.hpp", template_text("deploy/front.hpp")},
      {"front.cpp", template_text("deploy/front.cpp")},
      {"front_data.hpp", template_text("deploy/front_data.hpp")},
      {"points.cpp", points_cpp(points)},
      {"liftc_host.hpp", fill("deploy/liftc_host.hpp", {{"support", Code{host_support_text()}}})},
      {"demo.cpp", template_text("deploy/demo.cpp")}};
  for (std::size_t i = 0; i < points.size(); ++i)
    for (const auto& [output, npy] : points[i].allowance)
      files.emplace_back(fmt::format("allowance/{}/{}.npy", i + 1, output), npy);
  return files;
}

}  // namespace liftc::emit
