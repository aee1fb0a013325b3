// `liftc explore --workers` and `liftc worker` against a throwaway PostgreSQL server
// (postgres_server.hpp) on the OpenCL device (PoCL in CI): three workers give the rows of
// the same seeded run without them; a worker killed mid-candidate loses nothing and
// duplicates nothing; a candidate that kills every worker is a crash row after kMaxTries;
// two explorations share the workers; a killed exploration with workers resumes; bad input
// is one clear error each.

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <regex>
#include <thread>

#include <nlohmann/json.hpp>

#include "explore_cli.hpp"
#include "liftc/explore/store/queue.hpp"
#include "postgres_server.hpp"

namespace liftc::explore::test {
namespace {

namespace fs = std::filesystem;

const std::string kConv = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/conv_small.sr";

class WorkersCli : public WithPostgresServer<ExploreCli> {
 protected:
  void SetUp() override {
    ExploreCli::SetUp();
    ASSERT_EQ(error_, "") << "no PostgreSQL server for the test";
    server_->create_database("w");
  }
  void TearDown() override {
    for (pid_t pid : workers_) stop(pid, SIGKILL);
    if (server_ && error_.empty()) server_->admin("DROP DATABASE IF EXISTS w WITH (FORCE)");
    ExploreCli::TearDown();
  }
  static std::string url() { return server_->url("w"); }
  static std::string value(const std::string& query) { return server_->value("w", query); }
  // What `query` counts; -1 before the store's tables exist.
  static int count(const std::string& query) {
    try {
      std::string n = value(query);
      return n.empty() ? -1 : std::stoi(n);
    } catch (const pqxx::sql_error&) {
      return -1;
    }
  }

  // Starts `liftc worker --db URL ARGS` in the background (its output in `log`).
  pid_t worker(const std::string& args, const std::string& log) {
    pid_t pid = start(fmt::format("worker --db '{}' --lease 2 {}", url(), args), log);
    workers_.push_back(pid);
    return pid;
  }
  // Ends `pid` with `sig` and reaps it; its wait status.
  int stop(pid_t pid, int sig) {
    auto it = std::find(workers_.begin(), workers_.end(), pid);
    if (it != workers_.end()) workers_.erase(it);
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
  }
  // Waits (at most two minutes) until `query` counts at least `n`.
  static bool wait_for(const std::string& query, int n) {
    auto begin = std::chrono::steady_clock::now();
    while (count(query) < n) {
      if (std::chrono::steady_clock::now() - begin > std::chrono::minutes(2)) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  }
  // Writes an executable script `name` in the test's folder.
  std::string script(const std::string& name, const std::string& text) {
    fs::path p = dir() / name;
    std::ofstream(p) << "#!/bin/sh\n" << text;
    chmod(p.c_str(), 0755);
    return p.string();
  }
  // The rows `liftc results --db DB --json -` exports.
  nlohmann::json exported(const std::string& db) {
    Result r = run(fmt::format("results --db '{}' --json -", db));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return nlohmann::json::parse(r.output, nullptr, false);
  }

  std::vector<pid_t> workers_;
};


// What a seeded exploration decides, in order of the candidates (rows are stored in the
// order they end): each candidate, its key, whether it validated (ok and cut both: which
// one depends on the times), its memory, device and machine.
std::vector<std::string> decided(const nlohmann::json& rows) {
  std::vector<std::string> out;
  for (const auto& e : rows) {
    std::string status = e["status"];
    bool valid = status == "ok" || status == "cut";
    out.push_back(fmt::format("{} #{} {} {} {} {} {} {} {}", e["strategy"].get<std::string>(), e["alternative"].dump(),
                              e["point"].dump(), e["key"].get<std::string>(), valid ? "valid" : status,
                              e["memory_bytes"].dump(), e["device"].get<std::string>(), e["driver"].get<std::string>(),
                              e["machine"].dump()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Item 4a: three workers started by explore give the rows of the same seeded run without them.
TEST_F(WorkersCli, ThreeWorkersGiveTheRowsOfTheSameRunWithoutThem) {
  std::string common = fmt::format("explore '{}' -s conv-chw-tile --search random --seed 5 --evals 6 -q", kConv);
  Result alone = run(common + " -j 1 --db r.db");
  ASSERT_EQ(alone.exit_code, 0) << alone.output;
  Result pooled = run(fmt::format("{} --workers 3 --db '{}'", common, url()));
  ASSERT_EQ(pooled.exit_code, 0) << pooled.output;
  EXPECT_NE(pooled.output.find("workers: 3 local liftc worker process(es), candidates queued in " + url()),
            std::string::npos)
      << pooled.output;
  nlohmann::json a = exported("r.db"), b = exported(url());
  ASSERT_TRUE(a.is_array() && b.is_array());
  EXPECT_EQ(b.size(), 6u);
  EXPECT_EQ(decided(b), decided(a));
  // Every outcome taken into the store, and the run's shared files gone with it.
  for (const char* table : {"queue", "queue_files", "queue_run_files"})
    EXPECT_EQ(value(fmt::format("SELECT count(*) FROM {}", table)), "0") << table;
  // Its three workers registered, ran the 6 candidates between them and stopped.
  EXPECT_EQ(value("SELECT count(*) FROM workers WHERE stopped IS NOT NULL"), "3");
  EXPECT_EQ(value("SELECT sum(done) FROM workers"), "6");
}

// Item 4b: a worker killed (SIGKILL) while its runner runs loses its lease; the candidate
// runs on another worker: every candidate ends with exactly one row.
TEST_F(WorkersCli, AWorkerKilledMidCandidateLosesNothingAndDuplicatesNothing) {
  constexpr int evals = 6;
  std::string slow = script("slow_runner.sh", "sleep 3\nexec \"$LIFTC_RUNNER_BIN\" \"$1\"\n");
  pid_t first = worker(fmt::format("--runner '{}'", slow), "first.log");
  pid_t explore = start(fmt::format("explore '{}' -s stencil-parametric --evals {} --workers external -j 2 -q --db '{}'",
                                    kStencil, evals, url()),
                        "explore.log");
  ASSERT_TRUE(wait_for("SELECT count(*) FROM queue WHERE state = 'leased'", 1)) << read(dir() / "explore.log");
  std::string leased = value("SELECT id FROM queue WHERE state = 'leased'");
  int status = stop(first, SIGKILL);
  ASSERT_TRUE(WIFSIGNALED(status)) << read(dir() / "first.log");
  worker("", "second.log");
  worker("", "third.log");
  int explored = 0;
  waitpid(explore, &explored, 0);
  ASSERT_TRUE(WIFEXITED(explored) && WEXITSTATUS(explored) == 0) << read(dir() / "explore.log");
  EXPECT_EQ(count("SELECT count(*) FROM evaluations WHERE run = 1"), evals);
  EXPECT_EQ(count("SELECT count(DISTINCT (strategy, alternative, point)) FROM evaluations WHERE run = 1"), evals);
  EXPECT_EQ(count("SELECT count(*) FROM evaluations WHERE status IN ('crash', 'runner', 'timeout')"), 0);
  EXPECT_EQ(value("SELECT count(*) FROM queue"), "0");
  std::string others = read(dir() / "second.log") + read(dir() / "third.log");
  EXPECT_NE(others.find(fmt::format("candidate {} of run 1 (try 2)", leased)), std::string::npos) << others;
}

// Item 4c: a candidate whose runner kills its worker every time is a crash row after
// kMaxTries workers, not a loop.
TEST_F(WorkersCli, ACandidateThatKillsEveryWorkerIsACrashRowAfterThreeTries) {
  // The probe runs; a candidate's bundle kills the liftc worker above the runner.
  std::string killer = script("killer_runner.sh",
                              "grep -q '^kernel ' \"$1/bundle.txt\" || exec \"$LIFTC_RUNNER_BIN\" \"$1\"\n"
                              "p=$PPID\n"
                              "while [ \"$(cat /proc/$p/comm)\" != liftc ]; do p=$(cut -d' ' -f4 /proc/$p/stat); done\n"
                              "kill -9 $p\nsleep 30\n");
  for (int i = 1; i <= kMaxTries; ++i) worker(fmt::format("--runner '{}'", killer), fmt::format("w{}.log", i));
  Result r = run(fmt::format("explore '{}' -s stencil-parametric --evals 1 --workers external -j 1 -q --db '{}'",
                             kStencil, url()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("no front"), std::string::npos) << r.output;
  EXPECT_EQ(value("SELECT count(*) FROM evaluations"), "1");
  EXPECT_EQ(value("SELECT status FROM evaluations"), "crash");
  EXPECT_EQ(value("SELECT reason FROM evaluations"),
            "the runner was lost with its worker 3 times (each worker's lease expired: the worker was killed or its "
            "machine lost)");
  for (pid_t pid : std::vector<pid_t>(workers_)) {
    int status = stop(pid, 0);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  }
}

// Item 4d: two explorations at once share one pool of workers (claims are by device kind).
// The random search, whose candidates all generate distinct code: each of the 10 runs on a
// worker (the model search may serve a proposal from an earlier row of the same code).
TEST_F(WorkersCli, TwoExplorationsShareTheWorkers) {
  pid_t a = worker("", "a.log");
  pid_t b = worker("", "b.log");
  pid_t stencil = start(fmt::format("explore '{}' -s stencil-parametric --search random --evals 5 --workers external "
                                    "-j 2 -q --db '{}'",
                                    kStencil, url()),
                        "stencil.log");
  pid_t matmul = start(
      fmt::format("explore '{}' --search random --evals 5 --workers external -j 2 -q --db '{}'", kMatmul, url()),
      "matmul.log");
  for (auto [pid, log] : {std::pair(stencil, "stencil.log"), std::pair(matmul, "matmul.log")}) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << read(dir() / log);
  }
  EXPECT_EQ(count("SELECT count(*) FROM runs"), 2);
  EXPECT_EQ(count("SELECT count(*) FROM run_ends"), 2);
  EXPECT_EQ(count("SELECT count(*) FROM evaluations WHERE run = 1"), 5);
  EXPECT_EQ(count("SELECT count(*) FROM evaluations WHERE run = 2"), 5);
  std::string logs = read(dir() / "a.log") + read(dir() / "b.log");
  for (const char* run : {" of run 1 ", " of run 2 "}) EXPECT_NE(logs.find(run), std::string::npos) << logs;
  // `liftc worker --list` shows both at work (idle now), with the 10 candidates between them.
  Result listed = run(fmt::format("worker --list --db '{}'", url()));
  ASSERT_EQ(listed.exit_code, 0) << listed.output;
  EXPECT_NE(listed.output.find("2 worker(s) working now, of 2 registered\n"), std::string::npos) << listed.output;
  for (pid_t pid : {a, b})
    EXPECT_TRUE(std::regex_search(listed.output, std::regex(fmt::format(":{} +\\S.* +[0-9]+  idle\n", pid))))
        << listed.output;
  EXPECT_EQ(value("SELECT sum(done) FROM workers"), "10");
  // SIGTERM stops a worker cleanly.
  for (pid_t pid : {a, b}) {
    int status = stop(pid, SIGTERM);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_NE(read(dir() / "a.log").find("stopped by Terminated after"), std::string::npos) << read(dir() / "a.log");
  listed = run(fmt::format("worker --list --db '{}'", url()));
  EXPECT_NE(listed.output.find("0 worker(s) working now, of 2 registered\n"), std::string::npos) << listed.output;
  EXPECT_NE(listed.output.find("  stopped 20"), std::string::npos) << listed.output;
}

// Item 4e: explore with its workers killed (kill -9) and resumed against the same database
// continues the run; its workers stopped with it and gave their candidates back.
TEST_F(WorkersCli, AKilledExplorationWithWorkersResumes) {
  constexpr int evals = 10;
  pid_t pid = start(fmt::format("explore '{}' -s stencil-parametric --evals {} --workers 2 -q --db '{}'", kStencil, evals,
                                url()),
                    "first.log");
  ASSERT_TRUE(wait_for("SELECT count(*) FROM evaluations", 3)) << read(dir() / "first.log");
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the exploration ended before it was killed: " << read(dir() / "first.log");
  int before = count("SELECT count(*) FROM evaluations");
  ASSERT_LT(before, evals);
  // Its workers end with it (SIGTERM from the system) and give back what they held.
  auto begin = std::chrono::steady_clock::now();
  while (count("SELECT count(*) FROM queue WHERE state = 'leased'") > 0 &&
         std::chrono::steady_clock::now() - begin < std::chrono::seconds(20))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(count("SELECT count(*) FROM queue WHERE state = 'leased'"), 0);
  Result r = run(fmt::format("explore --resume --db '{}' --workers 2", url()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(fmt::format("resuming run 1 of {}", url())), std::string::npos) << r.output;
  EXPECT_EQ(count("SELECT count(*) FROM evaluations WHERE run = 1"), evals);
  EXPECT_EQ(count("SELECT count(DISTINCT (strategy, alternative, point)) FROM evaluations WHERE run = 1"), evals);
  EXPECT_EQ(value("SELECT count(*) FROM runs"), "1");
  EXPECT_EQ(value("SELECT count(*) FROM run_ends"), "1");
}

// Item 4f: bad input is one clear error each, before anything is claimed or written.
TEST_F(WorkersCli, BadInputIsOneClearError) {
  std::string unreachable = "postgresql://liftc@/w?host=/nonexistent-liftc-folder";
  const struct {
    std::string args;
    std::string message;
  } cases[] = {
      {fmt::format("worker --db '{}' --runner /nonexistent/runner", url()),
       "error: liftc worker: --runner '/nonexistent/runner': /nonexistent/runner is not an executable file\n"},
      {fmt::format("worker --db '{}' --runner no-such-liftc-runner", url()),
       "error: liftc worker: --runner 'no-such-liftc-runner': no executable 'no-such-liftc-runner' (not a path, not on "
       "$PATH)\n"},
      {fmt::format("worker --db '{}'", unreachable),
       "error: cannot open the results store postgresql://liftc@/w?host=/nonexistent-liftc-folder: connection to "
       "server on socket \"/nonexistent-liftc-folder/.s.PGSQL.5432\" failed: No such file or directory"},
      {"worker --db r.db",
       "error: liftc worker --db: the work queue needs a PostgreSQL store (--db postgresql://USER@HOST/DATABASE), "
       "which workers on other processes and machines reach; r.db is a SQLite file\n"},
      {"worker", "error: --db is required\n"},
      {"worker --list --db r.db",
       "error: liftc worker --list --db: the work queue needs a PostgreSQL store (--db postgresql://USER@HOST/DATABASE), "
       "which workers on other processes and machines reach; r.db is a SQLite file\n"},
      {fmt::format("explore '{}' --evals 2 --workers 2 --db r.db", kStencil),
       "error: --workers 2: the work queue needs a PostgreSQL store (--db postgresql://USER@HOST/DATABASE), which "
       "workers on other processes and machines reach; r.db is a SQLite file\n"},
      {fmt::format("explore '{}' --evals 2 --workers many --db '{}'", kStencil, url()),
       "error: --workers many: expected a number of workers from 1 to 1024, or 'external'\n"},
      {fmt::format("explore '{}' --evals 2 --workers 2 --replay r.db", kStencil),
       "error: --workers runs candidates on workers; --replay runs none (it reads a store's results)\n"},
  };
  // A queued candidate that no bad worker may claim.
  Queue::open(url(), "test")->put(1, "k", DeviceKind{"any", "any"}, 60, PackedBundle{"liftc-pack 1\n", {}, {}});
  for (const auto& c : cases) {
    Result r = run(c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
  }
  EXPECT_FALSE(fs::exists(dir() / "r.db"));
  EXPECT_EQ(value("SELECT state FROM queue"), "queued");
  EXPECT_EQ(value("SELECT count(*) FROM runs"), "0");
}

}  // namespace
}  // namespace liftc::explore::test
