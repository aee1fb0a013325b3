// An exploration's front as points to deploy: read from its -o folder, or regenerated from
// a run of its results store.

#include "liftc/explore/products/deploy_front.hpp"
#include "liftc/explore/candidates/library.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "liftc/explore/candidates/constraint_space.hpp"
#include "liftc/explore/evaluation/evaluate.hpp"
#include "liftc/explore/search/loop.hpp"
#include "liftc/explore/products/layers.hpp"
#include "liftc/explore/store/session.hpp"
#include "liftc/explore/products/output.hpp"
#include "liftc/explore/store/store.hpp"
#include "liftc/explore/store/stored_target.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/rewrite/load.hpp"
#include "liftc/runtime/library_call.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/support/file.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace liftc::explore {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::uint64_t kMaxFile = std::uint64_t(256) << 20;

// "conv-gpu #2: kappa=4,v=2" of a row as pareto.json holds it (parameters in name order),
// so a point read from a folder and one generated from its store have the same label.
// A network's row (pareto.json of a network, one row per layer under "layers") is labelled
// by its layers' choices: "conv1: conv-chw #1: ...; pooled: lower-glb2 #1: ...".
// A layer's row is a single program's (no layers of its own: a folder edited to nest them,
// however deep, is refused here, not followed).
std::string label_of(const json& row, const std::string& where) {
  if (row.contains("layers")) {
    std::string label;
    for (const json& layer : row.at("layers")) {
      if (layer.contains("layers")) throw Error(fmt::format("{}: a layer's row holds layers of its own", where));
      label += fmt::format("{}{}: {}", label.empty() ? "" : "; ", layer.at("layer").get<std::string>(),
                           label_of(layer, where));
    }
    return label;
  }
  std::string point;
  for (const auto& [name, value] : row.at("point").items())
    point += fmt::format("{}{}={}", point.empty() ? "" : ",", name, value.is_string() ? value.get<std::string>() : value.dump());
  return fmt::format("{} #{}: {}", row.at("strategy").get<std::string>(), row.at("alternative").get<std::int64_t>(),
                     point.empty() ? "(no parameters)" : point);
}

// A plan's library calls stay inside their buffers and give CLBlast parameters of its
// tuner's domains (liftc/runtime/library_call.hpp, the table liftc-runner checks a bundle
// against): an edited or damaged plan (WGD = 0 crashes CLBlast, KWID = 0 never ends, sizes
// past the image read past it) is refused here, not in the deployed library.
void check_library_calls(const codegen::HostPlan& plan, const std::string& where) {
  for (const auto& stage : plan.stages)
    for (const auto& k : stage.kernels) {
      if (!k.library) continue;
      std::vector<std::uint64_t> sizes, elements;
      for (std::int64_t v : k.library->sizes) sizes.push_back(v < 0 ? UINT64_MAX : static_cast<std::uint64_t>(v));
      for (const auto& a : k.args)
        elements.push_back(a.buffer >= 0 ? static_cast<std::uint64_t>(plan.buffers[static_cast<std::size_t>(a.buffer)].elements) : 0);
      std::vector<library_call::Setting> settings;
      for (const auto& [kernel, name, value] : k.library->parameters) settings.push_back({kernel, name, value});
      for (const std::string& why : {library_call::check_sizes(k.library->routine, sizes, elements),
                                     library_call::check_parameters(k.library->routine, settings)})
        if (!why.empty()) throw Error(fmt::format("{}: library call {}: {}", where, k.library->routine, why));
    }
}

// A point's memory is what a budget is checked against: it must be what its plan holds. A
// single program's point allocates every buffer of its plan; a `network`'s point holds its
// plan's peak, each buffer from the first kernel that uses it to the last (HostPlan::peak_bytes,
// what its host program prints as `device memory`). A CLBlast call adds its own workspace,
// which the runner measured: then at least that.
void check_memory(const emit::DeployPoint& p, bool network, const std::string& where, const std::string& plan_path) {
  std::int64_t held = network ? p.plan.peak_bytes() : p.plan.global_bytes();
  bool library = p.plan.calls_library();
  if (p.memory_bytes == held || (library && p.memory_bytes > held)) return;
  throw Error(fmt::format("{}: its memory_bytes {} is not what its plan {} {} ({}{} bytes)", where, p.memory_bytes,
                          plan_path, network ? "holds at its peak" : "allocates", library ? "at least " : "", held));
}

}  // namespace

std::vector<emit::DeployPoint> read_front_folder(const std::string& dir_text) {
  fs::path dir(dir_text);
  std::error_code ec;
  if (!fs::exists(dir, ec)) throw Error(fmt::format("{}: no such folder", dir_text));
  if (!fs::is_directory(dir, ec)) throw Error(fmt::format("{} is not a folder (give the folder of liftc explore -o)", dir_text));
  fs::path pareto = dir / "pareto.json";
  if (!fs::exists(pareto, ec))
    throw Error(fmt::format("{} is not an exploration's output: it has no pareto.json (write one with liftc explore "
                            "F.sr --pareto -o {})",
                            dir_text, dir_text));
  json rows = json::parse(read_regular_file(pareto.string(), "pareto.json", kMaxFile), nullptr, false);
  if (rows.is_discarded() || !rows.is_array())
    throw Error(fmt::format("{}: not a JSON array of front points", pareto.string()));
  if (rows.empty()) throw Error(fmt::format("{}: the front has no point (no candidate validated)", pareto.string()));
  std::vector<emit::DeployPoint> points;
  for (std::size_t rank = 1; rank <= rows.size(); ++rank) {
    const json& row = rows[rank - 1];
    std::string where = fmt::format("{} (point {})", pareto.string(), rank);
    emit::DeployPoint p;
    try {
      if (!row.at("time_ms").is_number() || !row.at("memory_bytes").is_number_integer())
        throw Error(fmt::format("{}: no measured time or memory", where));
      p.time_ms = row.at("time_ms").get<double>();
      p.spread_ms = row.at("spread_ms").is_number() ? row.at("spread_ms").get<double>() : 0.0;
      p.memory_bytes = row.at("memory_bytes").get<std::int64_t>();
      p.label = label_of(row, where);
    } catch (const json::exception& e) {
      throw Error(fmt::format("{}: malformed ({})", where, e.what()));
    }
    fs::path plan = dir / "front" / std::to_string(rank) / "plan.json";
    if (!fs::exists(plan, ec))
      throw Error(fmt::format("{} is missing (an exploration by an earlier liftc, which kept no plans: explore again, "
                              "or deploy from its store with --db STORE --run N)",
                              plan.string()));
    p.plan = codegen::read_plan_json(read_regular_file(plan.string(), "plan.json", kMaxFile), plan.string());
    check_library_calls(p.plan, plan.string());
    check_memory(p, row.contains("layers"), where, plan.string());
    // A point through constant arrays (Winograd's) has front/<rank>/allowance/<output>.npy:
    // what each element may differ by, as explore validated it; its outputs' are deployed.
    for (const codegen::HostBuffer* b : p.plan.buffers_of(codegen::HostRole::Output)) {
      fs::path allowed = dir / "front" / std::to_string(rank) / "allowance" / (b->name + ".npy");
      if (b->is_float && fs::exists(allowed, ec))
        p.allowance[b->name] = read_regular_file(allowed.string(), "an allowance", kMaxFile);
    }
    points.push_back(std::move(p));
  }
  return points;
}

std::vector<emit::DeployPoint> regenerate_front(const std::string& db, std::int64_t run) {
  auto store = Store::open_existing(db);
  std::error_code ec;
  std::optional<RunRecord> record;
  for (const auto& r : store->runs())
    if (r.id == run) record = r;
  if (!record) throw Error(fmt::format("{}: no run {} (liftc results {} lists the runs)", db, run, db));
  json config = store->run_config(*record);
  if (!config.contains("rules") || !config.contains("target_profile"))
    throw Error(fmt::format("{}: run {} was recorded by an earlier liftc, which kept too little to generate its code "
                            "again (its rules and target)",
                            db, run));
  // A network explored layer by layer has rows of every layer under one run: its front is
  // composed, which only its -o folder keeps.
  if (!config.value("whole_program", false) && config.contains("file") && config.at("file").is_string() &&
      fs::exists(config.at("file").get<std::string>(), ec) &&
      explored_by_layer(parse::load_program(config.at("file").get<std::string>())))
    throw Error(fmt::format("{}: run {} explored the network {} layer by layer: deploy its front from the folder its "
                            "exploration wrote (liftc explore {} --pareto -o DIR, then liftc deploy DIR)",
                            db, run, config.at("file").get<std::string>(), config.at("file").get<std::string>()));
  std::vector<Explored> rows;
  for (auto& e : store->evaluations(run)) rows.push_back({Candidate{}, std::move(e), false});
  // So is a program whose grouped convolution was also explored split by group: its layers'
  // rows are each under a program hash of its own (layer_problem), not the run's.
  if (config.contains("program") && config.at("program").is_string() &&
      std::any_of(rows.begin(), rows.end(), [&](const Explored& x) {
        return x.evaluation.program != config.at("program").get<std::string>();
      }))
    throw Error(fmt::format("{}: run {} explored {} layer by layer: deploy its front from the folder its exploration "
                            "wrote (liftc explore {} --pareto -o DIR, then liftc deploy DIR)",
                            db, run, config.value("file", "its program"), config.value("file", "F.sr")));
  std::vector<std::size_t> front = front_of(rows);
  if (front.empty()) throw Error(fmt::format("{}: run {} has no validated point: no front", db, run));
  std::sort(front.begin(), front.end(),
            [&](std::size_t a, std::size_t b) { return rows[a].evaluation.time_ms < rows[b].evaluation.time_ms; });

  std::string file, rules_dir, build_options;
  codegen::StorageChoice storage;  // the run's --storage
  std::uint64_t input_seed = 0;
  constraints::Target target;
  try {
    file = config.at("file").get<std::string>();
    rules_dir = config.at("rules_dir").get<std::string>();
    build_options = config.value("build_options", "");
    storage = codegen::parse_storage(config.value("storage", "float"));  // runs before --storage stored none
    input_seed = std::stoull(config.at("input_seed").get<std::string>());
    target = target_from_json(config.at("target_profile"));
    if (problem_hash(file, input_seed, storage) != config.at("program").get<std::string>())
      throw Error(fmt::format("{} has changed since run {} of {} explored it (its text or sizes differ): its points "
                              "cannot be generated again",
                              file, run, db));
  } catch (const json::exception& e) {
    throw Error(fmt::format("{}: run {} is damaged (its config: {})", db, run, json_reason(e)));
  } catch (const std::logic_error& e) {  // stoull
    throw Error(fmt::format("{}: run {} is damaged (its input seed)", db, run));
  }
  std::vector<std::string> strategies;
  for (std::size_t i : front)
    if (std::find(strategies.begin(), strategies.end(), rows[i].evaluation.strategy) == strategies.end())
      strategies.push_back(rows[i].evaluation.strategy);
  // The program as written is strategy `id` when no strategy applied (build_candidate_space).
  bool as_written = strategies == std::vector<std::string>{"id"};
  rewrite::RuleSet rules = rewrite::load_rules_dir(rules_dir);
  ir::Program program = parse::load_program(file);
  program.half = codegen::half_buffers(typecheck::typecheck(program).program, storage);
  CandidateSpace space =
      build_candidate_space(program, rules, as_written ? std::vector<std::string>{} : strategies, !as_written, target);

  std::vector<emit::DeployPoint> points;
  for (std::size_t i : front) {
    const Evaluation& e = rows[i].evaluation;
    std::string where = fmt::format("{}: run {}, evaluation {}", db, run, e.id);
    emit::DeployPoint p;
    p.label = label_of(json::parse(evaluations_json({e})).at(0), where);
    p.time_ms = e.time_ms;
    p.spread_ms = e.spread_ms;
    p.memory_bytes = e.memory_bytes;
    if (is_library_strategy(e.strategy)) {
      const CandidateAlternative* library = nullptr;
      for (const auto& a : space.alternatives)
        if (a->label() == fmt::format("{} #{}", e.strategy, e.alternative)) library = &candidate_of(*a);
      if (!library)
        throw Error(fmt::format("{}: {} #{} is not offered now (liftc was built without CLBlast, or the rules changed)",
                                where, e.strategy, e.alternative));
      p.plan = library->host_plan(parse_point(*library, e.point, where), build_options);
      check_library_calls(p.plan, where);
      // The row's memory adds CLBlast's own workspace, which the runner measured, to the plan's.
      if (p.plan.global_bytes() > e.memory_bytes)
        throw Error(fmt::format("{}: its plan generated again uses {} bytes, more than the {} measured (liftc or the "
                                "rules changed since the run)",
                                where, p.plan.global_bytes(), e.memory_bytes));
      points.push_back(std::move(p));
      continue;
    }
    const ConstraintAlternative* alt = nullptr;
    for (const auto& a : space.alternatives) {
      if (!is_constraint_alternative(*a)) continue;
      const ConstraintAlternative& c = constraint_alternative(*a);
      if (c.space().strategy == e.strategy && static_cast<std::int64_t>(c.space().alternative) == e.alternative) alt = &c;
    }
    if (!alt) throw Error(fmt::format("{}: {} #{} is not an alternative of the rules now", where, e.strategy, e.alternative));
    Generated g = generate_candidate(*alt, parse_point(*alt, e.point, where), build_options);
    if (g.memory_bytes != e.memory_bytes)
      throw Error(fmt::format("{}: its code generated again uses {} bytes, not the {} measured (liftc or the rules "
                              "changed since the run)",
                              where, g.memory_bytes, e.memory_bytes));
    p.plan = codegen::host_plan(g.module);
    points.push_back(std::move(p));
  }
  return points;
}

}  // namespace liftc::explore
