// What an exploration of a network leaves in its -o folder.

#include <filesystem>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "liftc/codegen/host_plan.hpp"
#include "liftc/codegen/module.hpp"
#include "liftc/emit/host_program.hpp"
#include "liftc/explore/products/network.hpp"
#include "liftc/explore/products/output.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/support/file.hpp"

namespace liftc::explore {

namespace fs = std::filesystem;

namespace {

void create_folder(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(fmt::format("cannot create the folder {}: {}", dir.string(), ec.message()));
}

// "conv-chw #1 (kappa=4,local_0=2)".
std::string choice_text(const Evaluation& e) {
  return fmt::format("{} #{} ({})", e.strategy, e.alternative, e.point.empty() ? "no parameters" : e.point);
}

}  // namespace

std::vector<Evaluation> network_rows(const NetworkExploration& net, const Problem& network, std::int64_t run) {
  std::vector<Evaluation> rows;
  for (std::size_t rank = 0; rank < net.front.size(); ++rank) {
    const NetworkPoint& p = net.front[rank];
    Evaluation e;
    e.id = static_cast<std::int64_t>(rank + 1);
    e.run = run;
    e.file = network.file;
    e.program = network.program_hash;
    e.strategy = "network";
    e.alternative = e.id;
    e.status = status::Ok;
    e.time_ms = p.objectives.time_ms;
    e.spread_ms = p.objectives.spread_ms;
    e.memory_bytes = static_cast<std::int64_t>(p.objectives.memory);
    e.shapes = network.shapes;
    e.version = kLiftcVersion;  // composed by this liftc, now
    e.created = utc_now();
    std::vector<std::string> layers;
    const std::vector<std::size_t>& run_layers = point_layers(net, p);
    for (std::size_t j = 0; j < run_layers.size(); ++j) {
      const Evaluation& chosen_row = chosen(net, p, j).evaluation;
      if (chosen_row.status == status::Cut) e.status = status::Cut;  // a layer timed once
      e.device = chosen_row.device;
      e.driver = chosen_row.driver;
      e.machine = chosen_row.machine;
      layers.push_back(fmt::format("{}: {}", layer_title(net.layers[run_layers[j]]), choice_text(chosen_row)));
    }
    e.point = fmt::format("{}", fmt::join(layers, "; "));
    e.reason = "composed: the layers' times summed, the peak memory with each buffer held from the first kernel that "
               "uses it to the last";
    if (std::string fused = fusions_text(net, p); !fused.empty()) e.reason += "; fused: " + fused;
    rows.push_back(std::move(e));
  }
  return rows;
}

namespace {

// The network front's host programs (front/<rank>/), its inputs and expected outputs, and
// the three tables, into `dir_text`; returns how many points have an allowance/ folder.
std::size_t write_network_front(const std::string& dir_text, const NetworkExploration& net, const Problem& network,
                                std::int64_t run, const std::string& program_name, const std::string& build_options) {
  fs::path dir(dir_text);
  create_folder(dir / "front");
  write_inputs_and_expected(dir_text, network);

  std::vector<Evaluation> front = network_rows(net, network, run);
  nlohmann::json points = nlohmann::json::array();
  // Per layer and alternative (the magnitude does not depend on the point: layer_allowance).
  std::map<std::pair<std::size_t, std::size_t>, std::optional<interp::Tensors>> allowances;
  std::size_t allowed = 0;
  for (std::size_t rank = 0; rank < net.front.size(); ++rank) {
    codegen::Module m = network_module(net, net.front[rank], build_options);
    fs::path project = dir / "front" / std::to_string(rank + 1);
    create_folder(project);
    const NetworkPoint& point = net.front[rank];
    LIFTC_ASSERT(static_cast<double>(codegen::host_plan(m).peak_bytes()) == point.objectives.memory,
                 "a network point's memory is the peak its host program holds");
    emit::write_host_project(m, project.string(), program_name);
    const std::vector<std::size_t>& run_layers = point_layers(net, point);
    std::vector<Evaluation> chosen_rows;
    interp::Tensors allowance;  // of the layers through constant arrays, by output
    for (std::size_t j = 0; j < run_layers.size(); ++j) {
      const Explored& x = chosen(net, point, j);
      chosen_rows.push_back(x.evaluation);
      auto [at, fresh] = allowances.try_emplace({run_layers[j], x.candidate.alternative});
      if (fresh) at->second = layer_allowance(net, network, run_layers[j], x);
      if (at->second) allowance.insert(at->second->begin(), at->second->end());
    }
    if (!allowance.empty()) {
      write_front_allowance(project.string(), allowance);
      ++allowed;
    }
    nlohmann::json layers = nlohmann::json::parse(evaluations_json(chosen_rows));
    for (std::size_t j = 0; j < run_layers.size(); ++j) {
      const Layer& layer = net.layers[run_layers[j]];
      layers[j]["layer"] = layer_title(layer);
      layers[j]["explored_as"] = layer_title(net.layers[layer.same_as]);
      layers[j]["fused"] = layer.fused;
      layers[j]["peak_bytes"] = net.layer_peaks[point.variant][j][point.choice[j]];
      layers[j]["resident_bytes"] = net.resident[point.variant][j];
    }
    nlohmann::json fused = nlohmann::json::array();
    for (const Fusion& f : net.variants[point.variant].fusions)
      fused.push_back({{"producer", f.producer}, {"consumer", f.consumer}});
    const Evaluation& e = front[rank];
    // The bytes of every buffer the host program makes over the run (a fused point has no
    // buffer for what it fused). memory_bytes is the peak, each buffer held from the first
    // kernel that uses it to the last (each layer's peak_bytes plus its resident_bytes, at
    // most), which a one-to-one fusion does not lower: the consumer's output is the size of
    // the producer's, so the fused layer holds as much as the producer did.
    double buffers = 0;
    for (const codegen::Buffer& b : m.memory.buffers) buffers += static_cast<double>(codegen::evaluate(b.bytes, m));
    points.push_back({{"rank", rank + 1}, {"status", e.status}, {"time_ms", e.time_ms}, {"spread_ms", e.spread_ms},
                      {"memory_bytes", e.memory_bytes}, {"buffer_bytes", buffers}, {"fused", fused},
                      {"layers", layers}});
  }
  // Every layer's rows, each with its layer (a layer of the shape of an earlier one has
  // none: it took that layer's, pareto.json's explored_as says which).
  std::vector<Evaluation> rows;
  std::vector<std::string> row_layers;
  for (std::size_t i = 0; i < net.layers.size(); ++i)
    if (net.layers[i].same_as == i && net.results[i])
      for (const auto& x : net.results[i]->loop.explored) {
        rows.push_back(x.evaluation);
        row_layers.push_back(layer_title(net.layers[i]));
      }
  write_file((dir / "pareto.csv").string(), evaluations_csv(front));
  write_file((dir / "pareto.json").string(),
             points.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  write_file((dir / "evaluated.csv").string(), evaluations_csv(rows, row_layers));
  return allowed;
}

}  // namespace

std::size_t write_network_outputs(const std::string& dir_text, const NetworkExploration& net, const Problem& network,
                                  std::int64_t run, const std::string& program_name, const std::string& build_options) {
  std::size_t allowed = 0;
  replace_outputs(dir_text, output_names(),
                  [&] { allowed = write_network_front(dir_text, net, network, run, program_name, build_options); });
  return allowed;
}

}  // namespace liftc::explore
