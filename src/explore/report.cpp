// The text of an exploration's outcome (report.hpp).

#include "report.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "liftc/explore/products/output.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::explore {

std::string summary_text(const LoopResult& r, const CandidateSpace& space) {
  std::map<std::string, std::size_t> by_status;
  std::size_t served = 0;
  for (const auto& x : r.explored) ++by_status[x.evaluation.status], served += x.served;
  std::string statuses;
  for (const auto& [s, n] : by_status) statuses += fmt::format("{}{} {}", statuses.empty() ? "" : ", ", n, s);
  std::string reasons =
      r.cut_reasons ? fmt::format(" ({} of them the points cut rows were served on, not asked here)", r.cut_reasons) : "";
  std::string dropped = r.stopped ? " (" + stopped_text(r) + ")" : "";
  std::string out =
      fmt::format("{} candidates in {:.1f} s ({}); {} served from the store{}; stopped: {}{}\n", r.explored.size(),
                  r.seconds, statuses.empty() ? "none" : statuses, served, reasons, r.stop, dropped);
  for (const auto& x : r.explored)
    if (!status_valid(x.evaluation.status) && x.evaluation.status != "missing")
      return out + fmt::format("first failure: {} {} [{}]: {}\n", space.alternatives[x.candidate.alternative]->label(),
                               x.evaluation.point, x.evaluation.status, x.evaluation.reason.substr(0, 500));
  return out;
}

std::string front_text(const LoopResult& r, const CandidateSpace& space, const std::vector<std::size_t>& front,
                       bool pareto) {
  std::vector<Evaluation> rows;
  for (std::size_t i : front) rows.push_back(r.explored[i].evaluation);
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.time_ms < b.time_ms; });
  if (rows.empty()) throw Error(fmt::format("no front: {}", no_front_reason(r, space)));
  if (!pareto) return fmt::format("fastest:\n{}", front_table({rows.front()}));
  return fmt::format(
      "Pareto front (time against memory; a point is dominated only beyond the measured spread), {} point(s):\n{}",
      rows.size(), front_table(rows));
}

std::string layers_text(const NetworkExploration& net, std::size_t jobs) {
  std::string out;
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    if (net.layers[i].same_as != i || !net.results[i]) continue;
    const LayerResult& r = *net.results[i];
    const Layer& layer = net.layers[i];
    out += !layer.fused.empty()      ? fmt::format("fused layer ({}): ", layer_title(layer))
           : !layer.group_of.empty() ? fmt::format("group layer ({}): ", layer_title(layer))
                                     : fmt::format("layer {} ({}): ", i + 1, layer.name);
    out += summary_text(r.loop, r.space);
    out += fmt::format("  {} job(s): {:.2f} evaluations/s; per candidate: {}\n", jobs,
                       r.loop.seconds > 0 ? double(r.loop.explored.size()) / r.loop.seconds : 0.0, r.times.text());
    if (!r.search_report.empty()) out += fmt::format("  {}\n", r.search_report);
    std::vector<Evaluation> rows;
    for (std::size_t k : r.front) rows.push_back(r.loop.explored[k].evaluation);
    out += rows.empty() ? fmt::format("  no front: {}\n", no_front_reason(r.loop, r.space)) : front_table(rows);
  }
  return out;
}

}  // namespace liftc::explore
