// `liftc explore` and `liftc results` with `--db postgresql://...` against a throwaway server
// (postgres_server.hpp): a seeded exploration stores the same rows as on SQLite; a killed
// exploration resumes against the same database; an unreachable server, a refused password
// and a store of a later format are one clear error each that writes nothing; `liftc
// results --db URL` filters by device, program and shapes as on SQLite.

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <regex>
#include <thread>

#include <nlohmann/json.hpp>

#include "explore_cli.hpp"
#include "postgres_server.hpp"

namespace liftc::explore::test {
namespace {

namespace fs = std::filesystem;

const std::string kConv = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/conv_small.sr";

class PostgresCli : public WithPostgresServer<ExploreCli> {
 protected:
  void SetUp() override {
    ExploreCli::SetUp();
    ASSERT_EQ(error_, "") << "no PostgreSQL server for the test";
    server_->create_database("cli");
  }
  void TearDown() override {
    if (server_ && error_.empty()) server_->admin("DROP DATABASE IF EXISTS cli WITH (FORCE)");
    ExploreCli::TearDown();
  }
  static std::string url() { return server_->url("cli"); }
  static int pg_rows(const std::string& where = "TRUE") {
    if (server_->value("cli", "SELECT to_regclass('evaluations')").empty()) return -1;  // no store yet
    std::string n = server_->value("cli", "SELECT count(*) FROM evaluations WHERE " + where);
    return n.empty() ? -1 : std::stoi(n);
  }
  // The rows `liftc results --db DB --json -` exports.
  nlohmann::json exported(const std::string& db) {
    Result r = run(fmt::format("results --db '{}' --json -", db));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return nlohmann::json::parse(r.output, nullptr, false);
  }

};


// What a seeded exploration decides, not what it measured: the candidate, its outcome
// (ok and cut are both validated: which one depends on the times), its key and memory.
std::vector<std::string> decided(const nlohmann::json& rows) {
  std::vector<std::string> out;
  for (const auto& e : rows) {
    std::string status = e["status"];
    bool valid = status == "ok" || status == "cut";
    out.push_back(fmt::format("{} {} {} {} #{} {} {} {} {} {} {} {}", e["run"].dump(), e["key"].get<std::string>(),
                              e["file"].get<std::string>(), e["strategy"].get<std::string>(), e["alternative"].dump(),
                              e["point"].dump(), valid ? "valid" : status, e["memory_bytes"].dump(),
                              e["device"].get<std::string>(), e["driver"].get<std::string>(),
                              e["shapes"].get<std::string>(), e["machine"].dump()));
  }
  return out;
}

TEST_F(PostgresCli, ASeededExplorationStoresTheSameRowsAsOnSqlite) {
  std::string common = fmt::format("explore '{}' -s conv-chw-tile --search random --seed 5 --evals 6 -j 1 -q", kConv);
  Result lite = run(common + " --db r.db");
  ASSERT_EQ(lite.exit_code, 0) << lite.output;
  Result pg = run(fmt::format("{} --db '{}'", common, url()));
  ASSERT_EQ(pg.exit_code, 0) << pg.output;
  EXPECT_NE(pg.output.find("results store: " + url()), std::string::npos) << pg.output;
  nlohmann::json a = exported("r.db"), b = exported(url());
  ASSERT_TRUE(a.is_array() && b.is_array());
  EXPECT_EQ(b.size(), 6u);
  EXPECT_EQ(decided(b), decided(a));
  // A front of the same validated points (times are measured: which of them are on it may
  // differ; the same stored rows give the same front: PostgresStoreTest.BothBackends...).
  auto validated = [&](const std::string& db) {
    Result r = run(fmt::format("results --db '{}' --pareto", db));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    std::smatch m;
    EXPECT_TRUE(std::regex_search(r.output, m, std::regex(R"(Pareto front of (\d+) validated point)"))) << r.output;
    return m.empty() ? -1 : std::stoi(m[1]);
  };
  EXPECT_GT(validated(url()), 0);
  EXPECT_EQ(validated(url()), validated("r.db"));
  EXPECT_EQ(server_->value("cli", "SELECT count(*) FROM run_ends"), "1");
}

TEST_F(PostgresCli, AKilledExplorationResumesAgainstTheSameDatabase) {
  constexpr int evals = 12;
  pid_t pid = start(fmt::format("explore '{}' -s stencil-parametric --evals {} -j 1 -q --db '{}'", kStencil, evals, url()),
                    "first.log");
  auto begin = std::chrono::steady_clock::now();
  while (pg_rows() < 3 && std::chrono::steady_clock::now() - begin < std::chrono::seconds(120))
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the exploration ended before it was killed: " << read(dir() / "first.log");
  int before = pg_rows();
  ASSERT_GE(before, 3);
  ASSERT_LT(before, evals);
  EXPECT_EQ(server_->value("cli", "SELECT count(*) FROM run_ends"), "0");
  Result r = run(fmt::format("explore --resume --db '{}'", url()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(fmt::format("resuming run 1 of {}", url())), std::string::npos) << r.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.output, m, std::regex(R"((\d+) served from the store)"))) << r.output;
  // Everything stored is served, nothing run again: one row a point (more are served where
  // the model search proposes a point whose kernels are those of one measured earlier).
  EXPECT_GE(std::stoi(m[1]), before) << r.output;
  EXPECT_EQ(pg_rows("run = 1"), evals);
  EXPECT_EQ(server_->value("cli", "SELECT count(DISTINCT (strategy, alternative, point)) FROM evaluations WHERE run = 1"),
            std::to_string(evals));
  EXPECT_EQ(server_->value("cli", "SELECT count(*) FROM runs"), "1");
  EXPECT_EQ(server_->value("cli", "SELECT count(*) FROM run_ends"), "1");
  expect(fmt::format("explore --resume --db '{}'", url()), 1, "every run in " + url() + " has finished");
}

TEST_F(PostgresCli, BadDatabasesAreOneClearErrorAndWriteNothing) {
  std::string socket = server_->dir() + "/.s.PGSQL.5432";
  const struct {
    std::string db;
    std::string message;
  } cases[] = {
      {"postgresql://liftc@/cli?host=/nonexistent-liftc-folder",
       "error: cannot open the results store postgresql://liftc@/cli?host=/nonexistent-liftc-folder: connection to "
       "server on socket \"/nonexistent-liftc-folder/.s.PGSQL.5432\" failed: No such file or directory Is the server "
       "running locally and accepting connections on that socket?\n"},
      {fmt::format("postgresql://locked:wrong-password@/cli?host={}", server_->dir()),
       fmt::format("error: cannot open the results store postgresql://locked:***@/cli?host={}: connection to server "
                   "on socket \"{}\" failed: FATAL: password authentication failed for user \"locked\"\n",
                   server_->dir(), socket)},
      {"mysql://team@db.lab/tuning",
       "error: --db mysql://...: liftc keeps results in a SQLite file (give its path) or in PostgreSQL "
       "(postgresql://USER@HOST/DATABASE or postgres://...)\n"},
  };
  for (const auto& c : cases) {
    for (const std::string& args : {fmt::format("explore '{}' --evals 1 -q --db '{}'", kStencil, c.db),
                                    fmt::format("results --db '{}'", c.db)}) {
      Result r = run(args);
      EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.output;
      EXPECT_NE(r.output.find(c.message), std::string::npos) << args << "\n" << r.output;
      EXPECT_EQ(r.output.find("wrong-password"), std::string::npos) << r.output;
    }
  }
  EXPECT_EQ(server_->value("cli", "SELECT to_regclass('liftc_schema')"), "");
  // The right password opens it.
  server_->sql("cli", "GRANT CREATE ON SCHEMA public TO locked");
  Result right = run(fmt::format("results --db 'postgresql://locked:{}@/cli?host={}'", PostgresServer::kLockedPassword,
                                 server_->dir()));
  EXPECT_EQ(right.exit_code, 1) << right.output;
  EXPECT_NE(right.output.find("(its database has no table liftc_schema)"), std::string::npos) << right.output;
}

// A URL's password is `***` in every line explore prints: the store's name, and the hint an
// interrupted run leaves (`--resume --db ...`); the work folder's owner file keeps a hash.
TEST_F(PostgresCli, APasswordInTheUrlIsNeverPrinted) {
  server_->sql("cli", "GRANT CREATE ON SCHEMA public TO locked");
  std::string with_password =
      fmt::format("postgresql://locked:{}@/cli?host={}", PostgresServer::kLockedPassword, server_->dir());
  std::string shown = fmt::format("postgresql://locked:***@/cli?host={}", server_->dir());
  pid_t pid = start(fmt::format("explore '{}' -s stencil-parametric --evals 40 -j 1 --db '{}'", kStencil, with_password),
                    "first.log");
  auto begin = std::chrono::steady_clock::now();
  while (pg_rows() < 1 && std::chrono::steady_clock::now() - begin < std::chrono::seconds(120))
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_GE(pg_rows(), 1) << read(dir() / "first.log");
  kill(pid, SIGINT);
  EXPECT_TRUE(ended_by(pid, SIGINT)) << read(dir() / "first.log");
  std::string log = read(dir() / "first.log");
  EXPECT_NE(log.find("results store: " + shown + "\n"), std::string::npos) << log;
  EXPECT_NE(log.find("`liftc explore --resume --db " + shown + " --jobs 1` continues run 1"), std::string::npos) << log;
  EXPECT_EQ(log.find(PostgresServer::kLockedPassword), std::string::npos) << log;
}

// --train-db on PostgreSQL: a team's database of another program trains a model-guided
// exploration into a local store, and its password is never printed.
TEST_F(PostgresCli, ATuningDatabaseOnPostgresTrainsTheModelSearch) {
  server_->sql("cli", "GRANT CREATE ON SCHEMA public TO locked");
  std::string with_password =
      fmt::format("postgresql://locked:{}@/cli?host={}", PostgresServer::kLockedPassword, server_->dir());
  std::string shown = fmt::format("postgresql://locked:***@/cli?host={}", server_->dir());
  Result first = run(fmt::format("explore '{}' -s stencil-parametric --evals 6 -j 1 -q --db '{}'", kStencil, with_password));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  Result r = run(fmt::format("explore '{}' --search model --evals 4 -j 1 -q --db r.db --train-db '{}'", kMatmul,
                             with_password));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("tuning database " + shown + ": 6 row(s) of 1 other program(s) or device(s) train the model "
                          "before the first measurement; 0 best point(s) of the nearest shapes start its first round\n"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("model: trained on 6 row(s) of a tuning database before the first measurement; "),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find(PostgresServer::kLockedPassword), std::string::npos) << r.output;

  // The run's stored options name the tuning database without its password, so a --resume
  // asks for it again (the run made unfinished by hand).
  sql(dir() / "r.db", "PRAGMA wal_checkpoint(TRUNCATE); DELETE FROM run_ends");
  for (const char* file : {"r.db", "r.db-wal"}) {
    if (fs::exists(dir() / file)) {
      EXPECT_EQ(read(dir() / file).find(PostgresServer::kLockedPassword), std::string::npos) << file;
    }
  }
  expect("explore --resume --db r.db", 1,
         fmt::format("error: --resume: run 1 of r.db trains its model on the tuning database {}, whose password is "
                     "not stored; give its databases again with --train-db\n",
                     shown));
  expect(fmt::format("explore --resume --db r.db --train-db '{}'", url()), 1,
         fmt::format("error: --resume: run 1 of r.db trained its model on {}, not {}\n", shown, url()));
  Result resumed = run(fmt::format("explore --resume --db r.db --train-db '{}'", with_password));
  EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("resuming run 1 of r.db"), std::string::npos) << resumed.output;
  EXPECT_EQ(resumed.output.find(PostgresServer::kLockedPassword), std::string::npos) << resumed.output;
}

TEST_F(PostgresCli, AStoreOfALaterFormatIsRefusedAndKeepsItsRows) {
  Result first = run(fmt::format("explore '{}' -s stencil-parametric --evals 2 -j 1 -q --db '{}'", kStencil, url()));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  server_->sql("cli", "UPDATE liftc_schema SET version = 4");
  std::string message = fmt::format("error: {} is a results store of format 4, later than this liftc's (3, liftc ", url());
  expect(fmt::format("explore '{}' --evals 2 -q --db '{}'", kStencil, url()), 1, message);
  expect(fmt::format("results --db '{}'", url()), 1, message);
  EXPECT_EQ(pg_rows(), 2);
  EXPECT_EQ(server_->value("cli", "SELECT count(*) FROM runs"), "1");
}

TEST_F(PostgresCli, ResultsFilterByDeviceProgramAndShapeOnBothBackends) {
  for (const std::string& db : {std::string("r.db"), url()}) {
    for (const std::string& program : {kStencil, kMatmul}) {
      Result r = run(fmt::format("explore '{}' --evals 2 -j 1 -q --db '{}'", program, db));
      ASSERT_EQ(r.exit_code, 0) << r.output;
    }
  }
  std::string device = server_->value("cli", "SELECT device FROM evaluations LIMIT 1");
  std::string stencil_shapes = server_->value("cli", "SELECT shapes FROM evaluations ORDER BY id LIMIT 1");
  ASSERT_FALSE(device.empty());
  ASSERT_FALSE(stencil_shapes.empty());
  const struct {
    std::string filter;
    int rows;
  } cases[] = {
      {"", 4},
      {fmt::format("--device '{}'", device), 4},
      {"--device 'no such device'", 0},
      {"--program stencil2d.sr", 2},
      {fmt::format("--program '{}'", kMatmul), 2},
      {"--program 'x'\"'\"' OR '\"'\"'1'\"'\"'='\"'\"'1'", 0},
      {fmt::format("--shape '{}'", stencil_shapes), 2},
      {fmt::format("--device '{}' --program matmul.sr --shape '{}'", device, stencil_shapes), 0},
      {"--run 2 --program matmul.sr", 2},
  };
  for (const std::string& db : {std::string("r.db"), url()})
    for (const auto& c : cases) {
      Result r = run(fmt::format("results --db '{}' {}", db, c.filter));
      EXPECT_EQ(r.exit_code, 0) << r.output;
      EXPECT_NE(r.output.find(fmt::format("\n{} evaluation(s)\n", c.rows)), std::string::npos)
          << db << " " << c.filter << "\n" << r.output;
    }
}

}  // namespace
}  // namespace liftc::explore::test
