// `liftc results DB`: list a results store's runs and evaluations, or export them as CSV
// or JSON.

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "commands.hpp"
#include "liftc/explore/output.hpp"
#include "liftc/explore/store.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::tool {

namespace {

struct ResultsOptions {
  std::string db;
  std::string csv, json;
  std::int64_t run = -1;
  bool force = false;
};

// Writes `text` to `path` ("-" = stdout), never over an existing file without --force.
void export_to(const std::string& path, const std::string& text, bool force) {
  if (path == "-") {
    fmt::print("{}", text);
    return;
  }
  if (std::filesystem::exists(path) && !force) throw Error(fmt::format("{} exists; pass --force to overwrite it", path));
  std::ofstream out(path, std::ios::trunc);
  out << text;
  if (!out) throw Error(fmt::format("cannot write {}", path));
  fmt::print("wrote {}\n", path);
}

void run_results(const ResultsOptions& o) {
  auto store = explore::Store::open_existing(o.db);
  std::vector<explore::Evaluation> rows = store->evaluations(o.run);
  if (!o.csv.empty()) export_to(o.csv, explore::evaluations_csv(rows), o.force);
  if (!o.json.empty()) export_to(o.json, explore::evaluations_json(rows), o.force);
  if (!o.csv.empty() || !o.json.empty()) return;
  for (const auto& r : store->runs())
    fmt::print("run {}: {} started {}{}\n", r.id, r.file, r.started, r.finished ? "" : " (not finished: --resume continues it)");
  fmt::print("{:>5} {:>4}  {:<9} {:>11} {:>12}  {:<18} {}\n", "id", "run", "status", "time (ms)", "memory (B)", "strategy",
             "point / reason");
  for (const auto& e : rows) {
    bool valid = explore::status_valid(e.status);
    fmt::print("{:>5} {:>4}  {:<9} {:>11} {:>12}  {:<18} {}{}\n", e.id, e.run, e.status,
               valid ? fmt::format("{:.4f}", e.time_ms) : "-", e.memory_bytes,
               fmt::format("{} #{}", e.strategy, e.alternative), e.point,
               valid ? "" : fmt::format("  [{}]", e.reason.substr(0, 160)));
  }
  fmt::print("{} evaluation(s)\n", rows.size());
}

}  // namespace

void add_results_command(CLI::App& app) {
  auto o = std::make_shared<ResultsOptions>();
  CLI::App* cmd = app.add_subcommand("results", "List a results store of liftc explore, or export it as CSV or JSON");
  cmd->add_option("db", o->db, "the results store (a .db file written by liftc explore)")->required();
  cmd->add_option("--csv", o->csv, "export the evaluations as CSV to FILE (- for stdout)");
  cmd->add_option("--json", o->json, "export the evaluations as JSON to FILE (- for stdout)");
  cmd->add_option("--run", o->run, "only the evaluations of this run");
  cmd->add_flag("--force", o->force, "overwrite an existing export file");
  cmd->callback([o] { run_results(*o); });
}

}  // namespace liftc::tool
