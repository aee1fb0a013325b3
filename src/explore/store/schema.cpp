// The store's formats and the steps between them, the tables every store has, and the SQL
// dialects of its backends.

#include "schema.hpp"

#include <fmt/format.h>

#include "liftc/explore/store/store.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::explore::schema {

const Dialect kSqlite{"SQLite", "INTEGER PRIMARY KEY", "INTEGER", "REAL", "BLOB", "instr({0}, {1}) > 0"};
const Dialect kPostgres{"PostgreSQL",       "BIGSERIAL PRIMARY KEY", "BIGINT", "DOUBLE PRECISION", "BYTEA",
                        "strpos({0}, {1}) > 0"};

const std::vector<TableColumns> kTables = {
    {"runs", {"id", "started", "file", "config", "liftc_version"}},
    {"run_ends", {"run", "finished"}},
    {"evaluations",
     {"id", "run", "key", "program", "file", "strategy", "alternative", "point", "status", "reason", "time_ms",
      "spread_ms", "samples_ms", "memory_bytes", "device", "driver", "shapes", "liftc_version", "created"}},
    {"refs", {"key", "what", "meta", "data", "created"}},
};

const std::vector<AddedColumn> kAddedEvaluationColumns = {
    {"timeout_s", "REAL"},  // the watchdog's limit
    {"machine", "TEXT"},    // the runner machine's architecture
    {"seconds", "REAL"},    // how long its runner took (a search that lags goes on without a slow one)
};

namespace {

// One format: what it holds and the statements that make it from the format before it
// ({id}, {integer}, {real} and {bytes} are the dialect's types).
struct Step {
  int format;
  const char* what;
  const char* statements;
};

const Step kSteps[] = {
    {1, "runs, run_ends, evaluations (with timeout_s and machine) and refs", R"sql(
CREATE TABLE IF NOT EXISTS runs(
  id {id}, started TEXT NOT NULL, file TEXT NOT NULL, config TEXT NOT NULL, liftc_version TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS run_ends(run {integer} NOT NULL, finished TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS evaluations(
  id {id}, run {integer} NOT NULL, key TEXT NOT NULL, program TEXT NOT NULL, file TEXT NOT NULL,
  strategy TEXT NOT NULL, alternative {integer} NOT NULL, point TEXT NOT NULL, status TEXT NOT NULL, reason TEXT NOT NULL,
  time_ms {real}, spread_ms {real}, samples_ms TEXT NOT NULL, memory_bytes {integer} NOT NULL, device TEXT NOT NULL,
  driver TEXT NOT NULL, shapes TEXT NOT NULL, liftc_version TEXT NOT NULL, created TEXT NOT NULL, timeout_s {real},
  machine TEXT);
CREATE INDEX IF NOT EXISTS evaluations_key ON evaluations(key);
CREATE INDEX IF NOT EXISTS evaluations_candidate ON evaluations(program, strategy, alternative, point);
CREATE TABLE IF NOT EXISTS refs(key TEXT PRIMARY KEY, what TEXT NOT NULL, meta TEXT NOT NULL, data {bytes} NOT NULL,
  created TEXT NOT NULL);
)sql"},
    {2, "the work queue: queue (a candidate's bundle, its state, lease and outcome) and queue_files (a run's shared "
        "bundle files, once)", R"sql(
CREATE TABLE IF NOT EXISTS queue(
  id {id}, run {integer} NOT NULL, key TEXT NOT NULL, device TEXT NOT NULL, driver TEXT NOT NULL,
  timeout_s {real} NOT NULL, bundle {bytes} NOT NULL, files TEXT NOT NULL, state TEXT NOT NULL, owner TEXT,
  lease_until {real}, heartbeat {real}, tries {integer} NOT NULL, ended TEXT, exit_code {integer}, seconds {real},
  answer TEXT, stderr TEXT, queued TEXT NOT NULL, finished TEXT);
CREATE INDEX IF NOT EXISTS queue_claim ON queue(state, device, driver);
CREATE INDEX IF NOT EXISTS queue_candidate ON queue(run, key);
CREATE TABLE IF NOT EXISTS queue_files(hash TEXT PRIMARY KEY, data {bytes} NOT NULL, created TEXT NOT NULL);
)sql"},
    {3, "the workers (each liftc worker: its host, pid, device, heartbeat, candidates done) and queue_run_files (the "
        "shared files each run's candidates use, removed with the run's queue rows when it ends)", R"sql(
CREATE TABLE IF NOT EXISTS workers(
  id {id}, host TEXT NOT NULL, pid {integer} NOT NULL, device TEXT NOT NULL, driver TEXT NOT NULL, runner TEXT NOT NULL,
  lease_s {real} NOT NULL, started TEXT NOT NULL, heartbeat {real} NOT NULL, done {integer} NOT NULL,
  current {integer}, stopped TEXT);
CREATE TABLE IF NOT EXISTS queue_run_files(run {integer} NOT NULL, hash TEXT NOT NULL, PRIMARY KEY(run, hash));
)sql"},
};

static_assert(sizeof kSteps / sizeof kSteps[0] == kStoreFormat, "one step for every format up to kStoreFormat");

}  // namespace

std::vector<std::string> migration(int from, const Dialect& dialect) {
  std::vector<std::string> out;
  for (const Step& step : kSteps)
    if (step.format > from)
      out.push_back(fmt::format(fmt::runtime(step.statements), fmt::arg("id", dialect.row_id),
                                fmt::arg("integer", dialect.integer), fmt::arg("real", dialect.real),
                                fmt::arg("bytes", dialect.bytes)));
  return out;
}

void check_format(int format, const std::string& store) {
  if (format > kStoreFormat)
    throw Error(fmt::format("{} is a results store of format {}, later than this liftc's ({}, liftc {}): open it with "
                            "the liftc that wrote it, or a later one",
                            store, format, kStoreFormat, kLiftcVersion));
  if (format < 0) throw Error(fmt::format("{} is not a liftc results store (its format is {})", store, format));
}

}  // namespace liftc::explore::schema
