// `liftc results DB` (or --db DB, a file or a PostgreSQL URL): list a results store's runs and
// evaluations (all, or those of a run, device, program or shapes), export them as CSV or
// JSON, or print the Pareto front of its validated points.

#include <algorithm>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "commands.hpp"
#include "liftc/explore/products/output.hpp"
#include "liftc/explore/search/pareto.hpp"
#include "liftc/explore/store/store.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/support/file.hpp"

namespace liftc::tool {

namespace {

struct ResultsOptions {
  std::string db;
  std::string csv, json;
  explore::EvaluationFilter filter;  // --run, --device, --program, --shape
  bool force = false;
  bool pareto = false;
};

// Writes `text` to `path` ("-" = stdout), every byte, never over an existing file without
// --force, and never over the store being read.
void export_to(const std::string& path, const std::string& text, bool force, const std::string& db) {
  if (path == "-") {
    fmt::print("{}", text);
    return;
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm"})
    if (fs::exists(db + suffix, ec) && fs::equivalent(path, db + suffix, ec))
      throw Error(fmt::format("{} is the results store {}{}; give another file to export to", path, db, suffix));
  if (fs::exists(path, ec) && !force) throw Error(fmt::format("{} exists; pass --force to overwrite it", path));
  write_file(path, text);
  fmt::print("wrote {}\n", path);
}

// The front of the store's validated points (each key once) under explore's noise rule:
// the front of every run a store holds, with no device (e.g. of stores brought back from
// a GPU machine).
void print_store_front(const std::vector<explore::Evaluation>& rows) {
  std::vector<explore::Evaluation> valid;
  std::set<std::string> keys;
  for (const auto& e : rows)
    if (explore::valid_result(e) && keys.insert(e.key).second) valid.push_back(e);
  std::vector<explore::Objectives> objectives;
  for (const auto& e : valid) objectives.push_back({e.time_ms, e.spread_ms, static_cast<double>(e.memory_bytes)});
  std::vector<explore::Evaluation> front;
  for (std::size_t i : explore::pareto_front(objectives)) front.push_back(valid[i]);
  std::sort(front.begin(), front.end(), [](const auto& a, const auto& b) { return a.time_ms < b.time_ms; });
  if (front.empty()) {
    fmt::print("no validated evaluation: no front\n");
    return;
  }
  fmt::print("Pareto front of {} validated point(s) (time against memory; a point is dominated only beyond the "
             "measured spread), {} point(s):\n{}",
             valid.size(), front.size(), explore::front_table(front));
}

void run_results(const ResultsOptions& o) {
  if (!o.csv.empty() && o.csv != "-" && o.csv == o.json)
    throw Error(fmt::format("--csv and --json both name {}; give two files", o.csv));
  auto store = explore::Store::open_existing(o.db);
  std::vector<explore::Evaluation> rows = store->evaluations(o.filter);
  if (o.pareto) {
    print_store_front(rows);
    return;
  }
  if (!o.csv.empty()) export_to(o.csv, explore::evaluations_csv(rows), o.force, o.db);
  if (!o.json.empty()) export_to(o.json, explore::evaluations_json(rows), o.force, o.db);
  if (!o.csv.empty() || !o.json.empty()) return;
  for (const auto& r : store->runs())
    fmt::print("run {}: {} started {}{}\n", r.id, r.file, r.started, r.finished ? "" : " (not finished: --resume continues it)");
  fmt::print("{:>5} {:>4}  {:<8} {:<9} {:>11} {:>12}  {:<18} {}\n", "id", "run", "machine", "status", "time (ms)",
             "memory (B)", "strategy", "point / reason");
  for (const auto& e : rows) {
    bool valid = explore::status_valid(e.status);
    // (a row of a store from before machines were kept has none)
    fmt::print("{:>5} {:>4}  {:<8} {:<9} {:>11} {:>12}  {:<18} {}{}\n", e.id, e.run, e.machine.empty() ? "-" : e.machine,
               e.status,
               valid ? fmt::format("{:.4f}", e.time_ms) : "-", e.memory_bytes,
               fmt::format("{} #{}", e.strategy, e.alternative), e.point,
               valid ? "" : fmt::format("  [{}]", e.reason.substr(0, 400)));
  }
  fmt::print("{} evaluation(s)\n", rows.size());
}

}  // namespace

void add_results_command(CLI::App& app) {
  auto o = std::make_shared<ResultsOptions>();
  CLI::App* cmd = app.add_subcommand("results", "List a results store of liftc explore, or export it as CSV or JSON");
  auto* file = cmd->add_option("db", o->db, "the results store (a .db file written by liftc explore)");
  auto* url = cmd->add_option("--db", o->db, "the results store: a .db file, or a PostgreSQL URL (postgresql://USER@HOST/DATABASE)");
  file->excludes(url);
  cmd->callback([o, file, url] {
    if (file->count() + url->count() == 0) throw Error("results: give the results store (DB or --db DB)");
    run_results(*o);
  });
  cmd->add_option("--csv", o->csv, "export the evaluations as CSV to FILE (- for stdout)");
  cmd->add_option("--json", o->json, "export the evaluations as JSON to FILE (- for stdout)");
  cmd->add_option("--run", o->filter.run, "only the evaluations of this run");
  cmd->add_option("--device", o->filter.device, "only the evaluations on this device (its name as stored)");
  cmd->add_option("--program", o->filter.program, "only the evaluations of this program (its .sr file, its file name, or its hash)");
  cmd->add_option("--shape", o->filter.shapes, "only the evaluations whose input shapes contain this text (image=28x28x32)");
  cmd->add_flag("--force", o->force, "overwrite an existing export file");
  cmd->add_flag("--pareto", o->pareto, "print the Pareto front of the validated evaluations (of --run, else all)");
}

}  // namespace liftc::tool
