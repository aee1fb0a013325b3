// `liftc explore` and `liftc results` as a user meets them: bad flags as clear errors,
// kill -9 during an exploration then --resume (one job and several), results listing and export, the -o folder
// (front kernels and host programs, tables) and its protection, genetic search, matmul.

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "explore_cli.hpp"

namespace {

namespace fs = std::filesystem;
using liftc::explore::test::ExploreCli;
using liftc::explore::test::kMatmul;
using liftc::explore::test::kStencil;
using liftc::explore::test::Result;

struct ErrorCase {
  const char* args;
  const char* message;
};

TEST_F(ExploreCli, Errors) {
  std::ofstream(dir_ / "a-file") << "x";
  std::string sr = kStencil;
  const ErrorCase cases[] = {
      {"--search annealing", "--search annealing: expected 'random', 'genetic' or 'model'"},
      {"--evals 0", "--evals 0: expected a whole number from 1 to 10000000"},
      {"--evals ten", "--evals ten: expected a whole number from 1 to"},
      {"--time -5", "--time -5: expected a number of seconds greater than 0"},
      {"--time soon", "--time soon: expected a number of seconds greater than 0"},
      {"--timeout 0", "--timeout 0: expected a number of seconds greater than 0"},
      {"--jobs 0", "--jobs 0: expected a whole number from 1 to 1024"},
      {"--jobs -2", "--jobs -2: expected a whole number from 1 to 1024"},
      {"--jobs many", "--jobs many: expected a whole number from 1 to 1024"},
      {"-j 1.5", "--jobs 1.5: expected a whole number from 1 to 1024"},
      {"--selection best", "--selection best: expected 'tournament' or 'roulette'"},
      {"--runner /no/such/runner.sh", "--runner '/no/such/runner.sh': /no/such/runner.sh is not an executable file"},
      {"--runner 'nosuchcommand_xyz --flag'", "no executable 'nosuchcommand_xyz' (not a path, not on $PATH)"},
      {"--runner false", "the runner 'false' exited with code 1 and gave no usable answer"},
      {"-o a-file", "-o a-file: exists and is not a folder"},
      {"-o a-file/sub", "-o a-file/sub: cannot create the folder"},
      {"-o /proc/liftc-explore-out", "-o /proc/liftc-explore-out: cannot create the folder"},
      {"--resume", "--resume: no results store at liftc-results.db"},
      {"--resume --replay x.db", "--resume and --replay exclude each other"},
      {"--replay missing.db", "no results store at missing.db"},
      {"-s no-such-strategy --evals 1", "no-such-strategy"},
      {"--build-options \"$(printf 'a\\tb')\"", "--build-options: the build options contain a control character (byte 0x09"},
      {"--atol inf", "error: --atol: expects a finite number >= 0, got 'inf'"},
      {"--rtol 1e400", "error: --rtol: expects a finite number >= 0, got '1e400'"},
      {"--rtol -1", "error: --rtol: expects a finite number >= 0, got '-1'"},
      {"--search random --warm-start", "--warm-start seeds the genetic or model search's first generation: give it with --search genetic or model"},
  };
  for (const auto& c : cases) expect(fmt::format("explore {} {}", sr, c.args), 1, c.message);
  expect("explore", 1, "explore: give the .sr program to explore");
  expect("results missing.db", 1, "no results store at missing.db");
}

// The N of explore's "warm start: N point(s)" line; -1 when it printed none.
int warm_start_points(const std::string& output) {
  std::smatch m;
  if (!std::regex_search(output, m, std::regex(R"(warm start: (\d+) point\(s\))"))) return -1;
  return std::stoi(m[1]);
}

// The fastest point explore printed (the first row of its table under "#    time (ms)").
std::string fastest_printed(const std::string& output) {
  std::size_t header = output.find("#    time (ms)");
  if (header == std::string::npos) return "";
  std::size_t start = output.find('\n', header) + 1;
  return output.substr(start, output.find('\n', start) - start);
}

// Its time in ms (the second column of that row; infinity when there is none).
double fastest_time(const std::string& output) {
  std::istringstream row(fastest_printed(output));
  std::string rank;
  double ms = std::numeric_limits<double>::infinity();
  row >> rank >> ms;
  return ms;
}

// --warm-start: a second genetic exploration of the same program into the same store starts
// from the first's fastest validated points, served from the store (not run again): with 5
// evaluations and another seed it still has the first run's fastest point, at its stored
// time, so its fastest is no slower (its one candidate of its own may be faster: timing).
TEST_F(ExploreCli, AWarmStartBeginsFromTheFastestPointsOfEarlierRuns) {
  std::string conv = (fs::path(LIFTC_SOURCE_DIR) / "examples" / "conv" / "conv_small.sr").string();
  std::string common = fmt::format("explore '{}' -s conv-chw-tile --search genetic -q -j 1 --db r.db", conv);
  Result first = run(common + " --evals 12");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  Result second = run(common + " --evals 5 --seed 7 --warm-start");
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_EQ(warm_start_points(second.output), 4) << "a population's worth: " << second.output;
  EXPECT_NE(second.output.find("warm start: 4 point(s) of earlier runs of this program on "), std::string::npos)
      << second.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(second.output, m, std::regex(R"((\d+) served from the store)"))) << second.output;
  EXPECT_EQ(m[1], "4") << second.output;
  EXPECT_FALSE(fastest_printed(first.output).empty()) << first.output;
  EXPECT_LE(fastest_time(second.output), fastest_time(first.output)) << first.output << second.output;
  // The same run without --warm-start starts from its own random points.
  Result cold = run(common + " --evals 5 --seed 7");
  ASSERT_EQ(cold.exit_code, 0) << cold.output;
  EXPECT_EQ(cold.output.find("warm start:"), std::string::npos) << cold.output;
  EXPECT_NE(fastest_printed(cold.output), fastest_printed(first.output)) << cold.output;
}

// A size without a value: explore says what works (a value in the program: it has no
// --size), before the device is asked or a store made.
TEST_F(ExploreCli, SizesWithoutValuesAreDeclaredInTheProgram) {
  const struct {
    const char* sizes;
    const char* message;
  } cases[] = {
      {"size N = 8, M",
       "prog.sr:2:13: error: size M has no value: explore runs the program, so declare its value in the program (size M "
       "= <value>); explore has no --size\n"},
      {"size N, M",
       "prog.sr:2:6: error: sizes N, M have no value: explore runs the program, so declare their values in the program "
       "(size N = <value>, ...); explore has no --size\n"},
  };
  for (const auto& c : cases) {
    std::ofstream(dir_ / "prog.sr") << "// a sum of rows\n"
                                    << c.sizes << "\ninput a : [[float]N]M\ndef s = map(r -> reduce(0.0, (x, y) -> x + y, r), a)\n";
    Result r = run("explore prog.sr --evals 1 -q --db r.db");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.message << "\n" << r.output;
    EXPECT_EQ(r.output.find("device:"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "r.db"));
  }
}

// An input of tuples (a folded batch norm's (scale, shift) per channel, a generality check's
// form): explore refuses it at its declaration, before any space is built or the device asked,
// with how to write it (before, it failed after building every space, in the .npy writer's
// words).
TEST_F(ExploreCli, AnInputOfTuplesIsRefusedAtItsDeclaration) {
  std::ofstream(dir_ / "prog.sr") << "size M = 4\ninput x : [float]M\ninput st : [(float, float)]M\n"
                                     "def y = map((v, p) -> v * p.0 + p.1, zip(x, st))\n";
  Result r = run("explore prog.sr --evals 1 -q --db r.db");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(
      r.output.find("prog.sr:3:7: error: input st of type [(float, float)]M holds tuples: liftc runs "
                    "programs on tensors (.npy files), which hold arrays of scalars or vectors; declare one input "
                    "per component of the tuple and zip them where the program reads them\n"),
      std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("device:"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "r.db"));
}

// A strategy whose every alternative code generation refuses (here a computation over each
// pixel's channels after the convolution, in the same definition: conv-chw-tile-local's
// work-groups go to it) says why, not only that no point is valid.
TEST_F(ExploreCli, AStrategyCodeGenerationRefusesSaysWhy) {
  std::ofstream(dir_ / "prog.sr")
      << "size C = 2, H = 4, W = 4, M = 2, K = 3\ninput weights : [[[[float]C]K]K]M\ninput biases : [float]M\n"
         "input image : [[[float]C]W]H\n"
         "def out = map2D(px -> map(v -> reduce(v, (a, e) -> max(a, e), px), px), map2D(win -> join(map((w, b) -> "
         "reduce(b, (acc, p) -> acc + p.0 * p.1, zip(join(join(win)), join(join(w)))), zip(weights, biases))), "
         "slide2D(K, K, 1, 1, pad2D(1, 1, 1, 1, 0.0, image))))\n";
  Result r = run("explore prog.sr -s conv-chw-tile-local --evals 1 -q --db r.db");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("error: the strategies given have no valid point (conv-chw-tile-local #1: code generation "
                          "refuses this program: mapLcl(0) is not inside a mapWrg"),
            std::string::npos)
      << r.output;
}

// A strategy none of whose alternatives has a valid point, code generation refusing none, names
// the constraints that cannot hold together (as liftc space lists them), and says "on this
// target" only where the target's limits are among them: the omega partial sums of a
// convolution of one channel split the channels into chunks of 2 or more.
TEST_F(ExploreCli, AStrategyWithoutAValidPointNamesTheConstraintsThatCannotHoldTogether) {
  Result r = run(fmt::format(
      "explore {}/examples/superres/conv_plane.sr -s conv-chw-omega-kappa --evals 1 -q --db r.db", LIFTC_SOURCE_DIR));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("error: the strategies given have no valid point: conv-chw-omega-kappa #1's constraints "
                          "cannot hold together: omega in 2..64 (rule reduce-channel-chunks-kappa declares omega in "
                          "2..64); omega divides 1 (split(omega) of an array of length 1)"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("on this target"), std::string::npos) << r.output;
}

// The note on a strategy over emulated local memory compares its share with the other
// strategies' only when others are offered (explore's note, and space's per alternative).
TEST_F(ExploreCli, SpaceComparesTheEmulatedLocalShareOnlyWithStrategiesOffered) {
  std::ofstream(dir_ / "conv.sr") << R"(size C = 2, H = 4, W = 4, M = 2, K = 3
input weights : [[[[float]C]K]K]M
input biases  : [float]M
input image   : [[[float]C]W]H
def conv = map2D(win -> map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(join(join(win)), join(join(w)))),
                            zip(weights, biases)),
                 slide2D(K, K, 1, 1, pad2D(1, 1, 1, 1, 0.0, image)))
)";
  const std::string local = "note: its kernels use local memory, which mali-g72 emulates in global memory: no faster "
                            "there than reading global memory";
  const struct {
    const char* strategies;
    std::string note;
  } cases[] = {
      {"-s conv-local", local + "\n"},
      {"-s conv-local -s conv-chw-tile", local + "; explore draws it 0.25 times as often as other strategies\n"},
  };
  for (const auto& c : cases) {
    Result r = run(fmt::format("space conv.sr {} --samples 0 --target mali-g72", c.strategies));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(c.note), std::string::npos) << c.note << "\n" << r.output;
  }
}

// The processes whose parent is `parent` (from /proc), and whether a process is gone
// (no such process, or a zombie nobody reaps).
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::ifstream in(entry.path() / "stat");
    std::string stat;
    if (!std::getline(in, stat)) continue;
    std::istringstream rest(stat.substr(stat.rfind(')') + 1));
    char state;
    pid_t ppid = 0;
    if (rest >> state >> ppid && ppid == parent) out.push_back(std::stoi(entry.path().filename().string()));
  }
  return out;
}

bool gone(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string stat;
  if (!std::getline(in, stat)) return true;
  std::istringstream rest(stat.substr(stat.rfind(')') + 1));
  char state = '?';
  rest >> state;
  return state == 'Z' || state == 'X';
}

// kill -9 in the middle of a run with `jobs` runners, then --resume: at most `jobs`
// candidates are lost (the bundles left in the killed run's work folder are those of the
// candidates that were running: a bundle is removed once its row is stored); the runners
// die with liftc; everything stored is served, not run again, and the run ends with
// exactly `evals` rows (less those served from earlier runs). `flags` are more arguments of the killed run (--isolate, ...),
// which --resume must read back from the store; the killed run is run `run` of the store
// (the earlier ones made by the caller).
void kill_nine_then_resume(ExploreCli& t, int jobs, int evals, std::vector<std::string> flags = {}, int run = 1) {
  fs::path db = t.dir() / "results.db";
  const std::string this_run = fmt::format("run = {}", run);
  pid_t pid = fork();
  if (pid == 0) {
    fs::current_path(t.dir());
    setenv("TMPDIR", t.dir().c_str(), 1);  // the work folder, left behind by kill -9
    std::vector<std::string> args = {LIFTC_BINARY, "explore", kStencil, "-s", "stencil-parametric", "--evals",
                                     std::to_string(evals), "--runs", "2", "--jobs", std::to_string(jobs), "--db",
                                     db.string(), "-q"};
    args.insert(args.end(), flags.begin(), flags.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(LIFTC_BINARY, argv.data());
    _exit(127);
  }
  // Wait until three candidates are stored, then kill -9 in the middle of the next ones
  // (at once: with a warm PoCL kernel cache and a serving runner, a stencil candidate takes
  // ~40 ms here).
  auto start = std::chrono::steady_clock::now();
  while (ExploreCli::rows(db, this_run.c_str()) < 3 && std::chrono::steady_clock::now() - start < std::chrono::seconds(120))
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::vector<pid_t> runners = children_of(pid);
  EXPECT_LE(runners.size(), std::size_t(jobs));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the exploration ended before it was killed";
  for (pid_t runner : runners) {
    auto killed = std::chrono::steady_clock::now();
    while (!gone(runner) && std::chrono::steady_clock::now() - killed < std::chrono::seconds(10))
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_TRUE(gone(runner)) << "runner " << runner << " outlived the liftc killed with -9";
  }
  int before = ExploreCli::rows(db, this_run.c_str());
  ASSERT_GE(before, 3);
  ASSERT_LT(before, evals);
  fs::path work = t.dir() / fmt::format("liftc-explore-{}", pid);
  ASSERT_TRUE(fs::is_directory(work)) << work;
  int lost = 0;
  for (const auto& entry : fs::directory_iterator(work))
    lost += entry.path().filename().string().rfind("candidate-", 0) == 0;
  EXPECT_LE(lost, jobs) << "more candidates were running than --jobs";

  setenv("TMPDIR", t.dir().c_str(), 1);  // where the killed run's work folder is
  Result r = t.run(fmt::format("explore --resume --db '{}' --jobs {}", db.string(), jobs));
  unsetenv("TMPDIR");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The killed run's work folder is removed by the run that resumes it (item 19 of issue 36).
  EXPECT_FALSE(fs::exists(work)) << work;
  EXPECT_NE(r.output.find(fmt::format("resuming run {}", run)), std::string::npos) << r.output;
  // The resumed run proposes what the killed one did, served, and stays within the budget
  // (with earlier runs in the store, a warm start's seeds among them, some candidates are
  // served from their rows).
  int seeds = std::max(warm_start_points(r.output), 0), served = -1;
  std::smatch m;
  if (std::find(flags.begin(), flags.end(), "--warm-start") != flags.end()) {
    EXPECT_GE(seeds, 1) << r.output;
  }
  if (std::regex_search(r.output, m, std::regex(R"((\d+) served from the store)"))) served = std::stoi(m[1]);
  EXPECT_GE(served, before + seeds) << r.output;
  if (run == 1) {
    // Nothing stored is run again: one row a point. (More are served than the killed run
    // stored where the search proposes a point whose kernels are those of a point measured
    // earlier in the run, as the model search does: its row is served from that one.)
    EXPECT_EQ(ExploreCli::rows(db, this_run.c_str()), evals);
    EXPECT_EQ(ExploreCli::rows(db, fmt::format("{0} AND id IN (SELECT min(id) FROM evaluations WHERE {0} GROUP BY "
                                               "strategy, alternative, point)",
                                               this_run)
                                       .c_str()),
              evals);
  } else {
    EXPECT_LE(ExploreCli::rows(db, this_run.c_str()), evals);
  }
  t.expect(fmt::format("explore --resume --db '{}'", db.string()), 1, "every run in");
}

TEST_F(ExploreCli, KillNineThenResumeLosesAtMostOneCandidate) { kill_nine_then_resume(*this, 1, 12); }

TEST_F(ExploreCli, KillNineThenResumeWithThreeJobsLosesAtMostThreeCandidates) { kill_nine_then_resume(*this, 3, 20); }

TEST_F(ExploreCli, KillNineThenResumeIsolatedWithThreeJobs) { kill_nine_then_resume(*this, 3, 20, {"--isolate"}); }

// A warm-started run, resumed: the killed run's candidates are proposed again and served, and
// the run stays within its budget. (The seeds come from earlier runs only, not from the
// resumed run's own rows: WarmStart.TheFastestValidatedRows...; seeded from its own rows, a
// resumed run of conv-chw-tile-local went 11 rows over a budget of 30. This stencil's small
// space does not show that.)
TEST_F(ExploreCli, KillNineThenResumeOfAWarmStartedRun) {
  Result earlier = run(fmt::format("explore {} -s stencil-parametric --search genetic --evals 8 --runs 2 -q --db results.db",
                                   kStencil));
  ASSERT_EQ(earlier.exit_code, 0) << earlier.output;
  kill_nine_then_resume(*this, 1, 16, {"--search", "genetic", "--warm-start"}, 2);
}

// A slow candidate costs about the cut-off, not the watchdog's --timeout: through a runner
// that makes every candidate after the first (the bundles with a cut-off) a kernel that never
// ends, each is answered once it ran past the cut-off and recorded as cut, with the runner's
// reason, never a timeout; the exploration ends long before one --timeout.
TEST_F(ExploreCli, ASlowCandidateIsStoppedAtTheCutOffAndRecordedAsCut) {
  std::ofstream(dir_ / "slow_runner.sh") << fmt::format(
      R"(#!/bin/sh
if grep -q '^cutoff_ms [1-9]\|^cutoff_ms 0\.[0-9]*[1-9]' "$1/bundle.txt"; then
  perl -0777 -pi -e 's/((?:__)?kernel\s+void\s+\w+\s*\([^)]*\)\s*\{{)/$1 volatile int spin_ = 1; while (spin_) {{ }}/' "$1/kernels.cl"
fi
exec '{}' "$1"
)",
      LIFTC_RUNNER_PATH);
  fs::permissions(dir_ / "slow_runner.sh", fs::perms::owner_all);
  auto begin = std::chrono::steady_clock::now();
  Result r = run(fmt::format("explore {} -s stencil-parametric --search random --evals 4 --runs 2 -j 1 --timeout 300 "
                             "--runner ./slow_runner.sh --db slow.db -q",
                             kStencil));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_LT(seconds, 250) << "a slow candidate waited for the watchdog";
  // A candidate that uses less memory than every valid one has no cut-off: it runs in full.
  int stopped = ExploreCli::rows(dir_ / "slow.db", "status = 'cut' AND reason LIKE 'stopped waiting for the validated "
                                                   "run after % ms of its kernels (not validated): over 5x the best "
                                                   "point using no more memory'");
  EXPECT_GE(stopped, 1) << r.output;
  EXPECT_EQ(ExploreCli::rows(dir_ / "slow.db", "status = 'ok'") + stopped, 4) << r.output;
}

// Every bundle names explore's live cut-off file (its memory and the factor 5), and the file
// the runners read is the front of the points validated so far: each line a valid row's
// memory and time, memory rising and time falling line by line (a runner then stops once
// any of them is 5x faster than its candidate with no more memory: live_cutoff.hpp).
TEST_F(ExploreCli, EveryBundleNamesTheFrontOfValidatedPointsForItsLiveCutOff) {
  std::ofstream(dir_ / "spy_runner.sh") << fmt::format(
      R"(#!/bin/sh
line=$(grep '^live_cutoff ' "$1/bundle.txt")
echo "bundle $line" >> live.log
file=$(echo "$line" | cut -d' ' -f4-)
[ -f "$file" ] && sed 's/^/point /' "$file" >> live.log
exec '{}' "$1"
)",
      LIFTC_RUNNER_PATH);
  fs::permissions(dir_ / "spy_runner.sh", fs::perms::owner_all);
  Result r = run(fmt::format("explore {} -s stencil-parametric --search random --evals 6 --runs 2 -j 1 "
                             "--runner ./spy_runner.sh --db spy.db -q",
                             kStencil));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::string log = read(dir_ / "live.log");
  std::ptrdiff_t bundles = 0;
  for (std::size_t at = log.find("bundle live_cutoff 5 "); at != std::string::npos; at = log.find("bundle live_cutoff 5 ", at + 1))
    ++bundles;
  EXPECT_EQ(bundles, 6) << log;
  std::set<std::pair<std::string, std::string>> valid;
  for (const auto& row : ExploreCli::query(dir_ / "spy.db", "SELECT memory_bytes, time_ms FROM evaluations "
                                                            "WHERE status IN ('ok', 'cut')"))
    valid.insert({row[0], fmt::format("{:.9g}", std::stod(row[1]))});
  std::istringstream lines(log);
  std::string word, memory, time;
  int points = 0;
  double last_memory = -1, last_time = 0;
  while (lines >> word) {
    if (word == "bundle") {
      std::getline(lines, word);
      last_memory = -1;
      continue;
    }
    ASSERT_EQ(word, "point") << log;
    lines >> memory >> time;
    ++points;
    EXPECT_TRUE(valid.count({memory, time})) << memory << " " << time << " is no valid row\n" << log;
    if (last_memory >= 0) {
      EXPECT_GT(std::stod(memory), last_memory) << log;
      EXPECT_LT(std::stod(time), last_time) << log;
    }
    last_memory = std::stod(memory), last_time = std::stod(time);
  }
  EXPECT_GE(points, 1) << "no bundle after the first valid row saw the file\n" << log;
}

// A run started with another search (an older liftc's default, random) is resumed with that
// search: the run's options in the store name it, and the default does not replace it (no
// model report, the killed run's candidates all served).
TEST_F(ExploreCli, AnOlderRunResumesWithTheSearchItWasStartedWith) {
  kill_nine_then_resume(*this, 1, 12, {"--search", "random"});
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open_v2((dir_ / "results.db").c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(h, "SELECT config FROM runs", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  std::string config = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(h);
  EXPECT_NE(config.find("\"search\":\"random\""), std::string::npos) << config;
}

// The default search (the model-guided one) on a space of 12 points, fewer than its first
// round and one more round (6 + 8): it measures every point once and ends, and --replay
// replays it on the store.
TEST_F(ExploreCli, TheDefaultSearchOnASpaceSmallerThanARoundMeasuresItAllAndEnds) {
  std::string pool = (fs::path(LIFTC_SOURCE_DIR) / "examples" / "maxpool_floor.sr").string();
  std::string args = fmt::format("'{}' -s conv-lower -s conv-tiled --evals 30 --runs 1 -j 1 -q", pool);
  Result r = run(fmt::format("explore {} --db tiny.db", args));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("model: "), std::string::npos) << "not the model search: " << r.output;
  EXPECT_EQ(ExploreCli::rows(dir_ / "tiny.db"), 12) << r.output;
  EXPECT_EQ(ExploreCli::rows(dir_ / "tiny.db", "status = 'ok' OR status = 'cut'"), 12) << r.output;
  Result replayed = run(fmt::format("explore {} --replay tiny.db", args));
  ASSERT_EQ(replayed.exit_code, 0) << replayed.output;
  EXPECT_NE(replayed.output.find("replayed 12 candidate(s) from tiny.db; 0 not in the store"), std::string::npos)
      << replayed.output;
}

// The model search generates each candidate it measures once, for its features and its
// bundle (GenerationMemo): a random draw by the evaluator, its features from that generation
// once it is told; a shortlisted proposal for its features, its bundle from that one. The
// line after the model's says so: every measured candidate's generation made by one and
// reused by the other, none dropped.
TEST_F(ExploreCli, TheModelSearchGeneratesEachMeasuredCandidateOnce) {
  std::string conv = (fs::path(LIFTC_SOURCE_DIR) / "examples" / "conv" / "conv_small.sr").string();
  Result r = run(fmt::format(
      "explore '{}' -s conv-chw -s conv-chw-tile --population 8 --evals 24 --runs 1 -j 1 -q --db once.db", conv));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.output, m,
                                std::regex(R"(generations: the features made (\d+) \([0-9.]+ s\), the evaluator (\d+) )"
                                           R"(\([0-9.]+ s\); the evaluator reused (\d+) of the features' \([0-9.]+ s )"
                                           R"(saved\), the features (\d+) of the evaluator's \([0-9.]+ s saved\); 0 )"
                                           R"(dropped before both used them)")))
      << r.output;
  int features_made = std::stoi(m[1]), evaluator_made = std::stoi(m[2]);
  int evaluator_reused = std::stoi(m[3]), features_reused = std::stoi(m[4]);
  EXPECT_EQ(evaluator_reused + features_reused, 24) << r.output;  // each of the 24 generated once, used twice
  EXPECT_EQ(features_reused, evaluator_made) << r.output;          // the random draws, the first round's 8 among them
  EXPECT_GE(features_reused, 8) << r.output;
  EXPECT_GE(evaluator_reused, 1) << r.output;                       // the shortlisted proposals asked
  EXPECT_GE(features_made, evaluator_reused) << r.output;           // and those not asked
  EXPECT_EQ(ExploreCli::rows(dir_ / "once.db"), 24) << r.output;
}

// The build options are part of each evaluation's key: the stored candidates are served on
// --resume only if it builds with the killed run's options, read back from the store.
TEST_F(ExploreCli, KillNineThenResumeKeepsTheBuildOptions) {
  kill_nine_then_resume(*this, 1, 12, {"--build-options=-cl-fast-relaxed-math"});
}

// One text column of a store's evaluations, sorted (rows are in completion order with --jobs).
std::vector<std::string> column(const fs::path& db, const char* name) {
  std::vector<std::string> out;
  sqlite3* h = nullptr;
  sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(h, fmt::format("SELECT {} FROM evaluations ORDER BY 1", name).c_str(), -1, &s, nullptr) == SQLITE_OK)
    while (sqlite3_step(s) == SQLITE_ROW) out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)));
  sqlite3_finalize(s);
  sqlite3_close(h);
  return out;
}

// (N run, M in a kept runner context) of the line explore prints at the end.
std::pair<int, int> runs_and_reused(const std::string& output) {
  std::smatch m;
  if (!std::regex_search(output, m, std::regex(R"(\((\d+) run, (\d+) in a kept runner context)"))) return {-1, -1};
  return {std::stoi(m[1]), std::stoi(m[2])};
}

// Without --isolate, one job's candidates all run in one runner process, which opened the
// device for the probe's bundle while the space was made (ServePool::warm); with it, each in
// a fresh one (the same candidates and outcomes either way).
TEST_F(ExploreCli, IsolateRunsEveryCandidateInAFreshRunner) {
  for (bool isolate : {false, true}) {
    Result r = run(fmt::format("explore {} -s stencil-parametric --evals 4 --runs 2 --jobs 1 --db {}.db -q{}", kStencil,
                               isolate ? "isolated" : "served", isolate ? " --isolate" : ""));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("4 candidates in"), std::string::npos) << r.output;
    auto [ran, reused] = runs_and_reused(r.output);
    EXPECT_GE(ran, 1) << r.output;
    EXPECT_EQ(reused, isolate ? 0 : ran) << r.output;
  }
  EXPECT_EQ(column(dir_ / "isolated.db", "key"), column(dir_ / "served.db", "key"));
  EXPECT_EQ(column(dir_ / "isolated.db", "status IN ('ok', 'cut')"), column(dir_ / "served.db", "status IN ('ok', 'cut')"));
}

// Random search: its candidates do not depend on outcomes, so two real runs can be compared
// (the genetic search's independence of --jobs, given the same outcomes, is
// ParallelLoop.TheCandidatesAskedDoNotDependOnJobs).
TEST_F(ExploreCli, JobsChangeNeitherTheCandidatesNorTheKeys) {
  for (const char* search : {"random"}) {
    std::vector<std::vector<std::string>> points, keys;
    for (int jobs : {1, 3}) {
      std::string db = fmt::format("{}-{}.db", std::string(search).substr(0, 6), jobs);
      Result r = run(fmt::format("explore {} -s stencil-parametric --search {} --evals 6 --runs 2 --jobs {} --db {} -q",
                                 kStencil, search, jobs, db));
      ASSERT_EQ(r.exit_code, 0) << r.output;
      EXPECT_NE(r.output.find(fmt::format("{} job(s): ", jobs)), std::string::npos) << r.output;
      points.push_back(column(dir_ / db, "strategy || ' ' || alternative || ' ' || point"));
      keys.push_back(column(dir_ / db, "key"));
    }
    EXPECT_EQ(points[0].size(), 6u) << search;
    EXPECT_EQ(points[1], points[0]) << search;
    EXPECT_EQ(keys[1], keys[0]) << search;
  }
}

// --storage half: every candidate stores its buffers as halves and validates on the device
// against the interpreter rounded at the same points; the memory objective is half the float
// run's, and the store keeps the two runs' references and results apart.
TEST_F(ExploreCli, HalfStorageHalvesTheMemoryObjectiveAndValidates) {
  const std::string conv = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/conv_small.sr";
  const std::string args = fmt::format("explore {} -s conv-naive --evals 3 --runs 1 --jobs 1 --pareto --db r.db -q", conv);
  Result f32 = run(args + " -o f32");
  ASSERT_EQ(f32.exit_code, 0) << f32.output;
  Result f16 = run(args + " -o f16 --storage half");
  ASSERT_EQ(f16.exit_code, 0) << f16.output;
  for (const Result* r : {&f32, &f16}) {
    EXPECT_NE(r->output.find("3 candidates in "), std::string::npos) << r->output;
    EXPECT_NE(r->output.find("; 0 served from the store"), std::string::npos) << r->output;
    EXPECT_EQ(r->output.find("wrong"), std::string::npos) << r->output;
    EXPECT_EQ(r->output.find("failed"), std::string::npos) << r->output;
  }
  EXPECT_NE(read(dir_ / "f32/pareto.csv").find(",2640,"), std::string::npos) << read(dir_ / "f32/pareto.csv");
  EXPECT_NE(read(dir_ / "f16/pareto.csv").find(",1320,"), std::string::npos) << read(dir_ / "f16/pareto.csv");
  std::string kernels = read(dir_ / "f16/front/1/kernels.cl");
  EXPECT_NE(kernels.find("vstore_half("), std::string::npos) << kernels;
  EXPECT_NE(read(dir_ / "f16/front/1/main.cpp").find("(stored as halves)"), std::string::npos);
  expect(args + " --storage half=nothing", 1,
         "error: --storage half=nothing: the program has no input or definition 'nothing' holding scalars or vectors");
}

TEST_F(ExploreCli, ParetoOutputsResultsAndNoOverwrite) {
  Result r = run(fmt::format("explore {} -s stencil-parametric --evals 4 --runs 2 --pareto -o out -q", kStencil));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Pareto front"), std::string::npos) << r.output;
  for (const char* f : {"out/pareto.csv", "out/pareto.json", "out/evaluated.csv", "out/results.db",
                        "out/front/1/kernels.cl", "out/front/1/main.cpp", "out/front/1/CMakeLists.txt"})
    EXPECT_TRUE(fs::exists(dir_ / f)) << f;
  std::string evaluated = read(dir_ / "out/evaluated.csv");
  EXPECT_EQ(std::count(evaluated.begin(), evaluated.end(), '\n'), 5) << evaluated;  // header + 4 rows
  EXPECT_NE(read(dir_ / "out/pareto.json").find("\"strategy\": \"stencil-parametric\""), std::string::npos);
  // A second run into the same folder refuses to overwrite, --force allows it.
  expect(fmt::format("explore {} -s stencil-parametric --evals 1 -o out", kStencil), 1, "pass --force to overwrite");
  Result forced = run(fmt::format("explore {} -s stencil-parametric --evals 4 --runs 2 --pareto -o out --force -q", kStencil));
  EXPECT_EQ(forced.exit_code, 0) << forced.output;
  EXPECT_NE(forced.output.find("4 served from the store"), std::string::npos) << forced.output;

  Result list = run("results out/results.db");
  EXPECT_EQ(list.exit_code, 0) << list.output;
  EXPECT_NE(list.output.find("4 evaluation(s)"), std::string::npos) << list.output;
  expect("results out/results.db --csv out.csv", 0, "wrote out.csv");
  EXPECT_EQ(read(dir_ / "out.csv").substr(0, 20), "id,run,status,time_m");
  expect("results out/results.db --csv out.csv", 1, "out.csv exists; pass --force to overwrite it");
  // The store's front is the exploration's: as many points as pareto.csv has rows.
  Result front = run("results out/results.db --pareto");
  EXPECT_EQ(front.exit_code, 0) << front.output;
  std::string pareto_csv = read(dir_ / "out/pareto.csv");
  auto front_points = std::count(pareto_csv.begin(), pareto_csv.end(), '\n') - 1;
  EXPECT_NE(front.output.find(fmt::format("{} point(s):", front_points)), std::string::npos) << front.output << pareto_csv;
  EXPECT_NE(front.output.find("of 4 validated point(s)"), std::string::npos) << front.output;
  Result json = run("results out/results.db --json -");
  EXPECT_EQ(json.exit_code, 0);
  EXPECT_EQ(json.output.substr(0, 1), "[");
  EXPECT_NE(json.output.find("\"memory_bytes\""), std::string::npos);

  // Replay against that store: the same candidates (same seed), no device needed.
  Result replay = run(fmt::format("explore {} -s stencil-parametric --evals 4 --replay out/results.db -q", kStencil));
  EXPECT_EQ(replay.exit_code, 0) << replay.output;
  EXPECT_NE(replay.output.find("0 not in the store"), std::string::npos) << replay.output;
  EXPECT_NE(replay.output.find("within 5% of the store's best"), std::string::npos) << replay.output;
}

// --build-options reach every candidate's build (a bad option fails each one, recorded with
// the options named) and the front's host programs; they are stored with the run (--resume reads them back).
TEST_F(ExploreCli, BuildOptionsReachEveryCandidateAndTheFront) {
  Result r = run(fmt::format("explore {} -s stencil-parametric --evals 3 --runs 2 --pareto --build-options "
                             "-cl-fast-relaxed-math -o out -q",
                             kStencil));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(read(dir_ / "out/front/1/main.cpp").find("-cl-fast-relaxed-math"), std::string::npos);
  Result list = run("results out/results.db --json -");
  std::size_t rows = 0;
  for (std::size_t at = 0; (at = list.output.find("\"status\"", at)) != std::string::npos; ++at) ++rows;
  EXPECT_EQ(rows, 3u) << list.output;
  EXPECT_EQ(list.output.find("\"build\""), std::string::npos) << list.output;          // none failed its build

  Result bad = run(fmt::format("explore {} -s stencil-parametric --evals 2 --runs 2 --build-options -cl-no-such-option "
                               "--db bad.db -q",
                               kStencil));
  // The run finishes, its candidates failures, and no front is an error (exit 1).
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_NE(bad.output.find("no front: no candidate validated (2 build)"), std::string::npos) << bad.output;
  Result failures = run("results bad.db --json -");
  EXPECT_NE(failures.output.find("with options '-cl-no-such-option'"), std::string::npos) << failures.output;
  EXPECT_EQ(failures.output.find("\"ok\""), std::string::npos) << failures.output;
}

TEST_F(ExploreCli, GeneticSearchOnTheStencil) {
  Result r = run(fmt::format("explore {} -s stencil-parametric --search genetic --population 4 --evals 8 --runs 2 --pareto -q",
                             kStencil));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("8 candidates"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Pareto front"), std::string::npos) << r.output;
}

TEST_F(ExploreCli, ATimeBudgetEndsTheRun) {
  Result r = run(fmt::format("explore {} -s stencil-parametric --evals 1000 --time 2 --runs 2 -q", kStencil));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("stopped: time budget of 2 s"), std::string::npos) << r.output;
}

// A candidate still running when the time budget ends is stopped then, not waited for until
// the watchdog's 60 s: a runner script that hangs on every candidate (not on the device
// probe, whose kernels.cl is empty). No candidate ended, so the run says so and fails, naming
// the ones stopped.
TEST_F(ExploreCli, ATimeBudgetStopsTheCandidatesStillRunning) {
  std::ofstream(dir_ / "hang.sh")
      << "#!/bin/sh\n[ -s \"$1/kernels.cl\" ] && sleep 100\nexec \"$LIFTC_RUNNER_BIN\" \"$1\"\n";
  fs::permissions(dir_ / "hang.sh", fs::perms::owner_all);
  auto began = std::chrono::steady_clock::now();
  Result r = run(
      fmt::format("explore {} -s stencil-parametric --time 3 --timeout 60 --jobs 2 --runner ./hang.sh -q", kStencil));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_LT(seconds, 30) << r.output;
  EXPECT_NE(r.output.find("no front: no candidate was evaluated (stopped: time budget of 3 s; 2 candidate(s) still "
                          "running then were stopped and dropped)"),
            std::string::npos)
      << r.output;
}

// --time alone is the budget: the evaluations' default of 100 no longer ends the run first
// (the README's `--time 120` on a VGG-16 layer ended after 100 candidates, 27 s on an H200).
// The progress line counts the candidates without a bound, and the run stops on the clock
// (here about 130 candidates in 4 s on PoCL).
TEST_F(ExploreCli, ATimeBudgetAloneIsNotEndedByTheEvaluationsDefault) {
  Result r = run(fmt::format("explore {} -s stencil-parametric --time 6 --runs 1", kStencil));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("explore: 1 evaluated, "), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("/100 evaluated"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("budget of 100 evaluations"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("stopped: time budget of 6 s"), std::string::npos) << r.output;
}

TEST_F(ExploreCli, MatmulThroughARunnerScript) {
  // --runner with a script: the local default path, through a shell command.
  std::ofstream(dir_ / "runner.sh") << "#!/bin/sh\necho 'runner script: running' \"$1\"\nexec \"$LIFTC_RUNNER_BIN\" \"$1\"\n";
  fs::permissions(dir_ / "runner.sh", fs::perms::owner_all);
  Result r = run(fmt::format("explore {} -s matmul-parametric --evals 3 --runs 2 --runner ./runner.sh -q", kMatmul));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("through --runner ./runner.sh"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("fastest:"), std::string::npos) << r.output;
}

// scripts/build.sh builds the targets it is given, else every target: scripts/demo.sh asks
// for liftc and liftc-runner only, what the demo runs (issue 36: it built every test binary
// first, 8.5 minutes on a fresh 2-core machine), scripts/test.sh for all. A stand-in cmake on
// the PATH logs what it is asked.
TEST_F(ExploreCli, BuildShBuildsOnlyTheTargetsItIsGiven) {
  fs::create_directories(dir_ / "bin");
  std::ofstream(dir_ / "bin/cmake") << "#!/bin/sh\necho \"cmake $*\" >> \"$CMAKE_LOG\"\n";
  fs::permissions(dir_ / "bin/cmake", fs::perms::owner_all);
  const std::string build = fmt::format("PATH=\"$PWD/bin:$PATH\" CMAKE_LOG=\"$PWD/cmake.log\" LIFTC_JOBS=2 bash '{}/scripts/build.sh'",
                                        LIFTC_SOURCE_DIR);
  Result named = run_shell(build + " liftc liftc-runner");
  ASSERT_EQ(named.exit_code, 0) << named.output;
  EXPECT_NE(read(dir_ / "cmake.log").find(fmt::format("cmake --build {}/build -j 2 --target liftc --target liftc-runner\n",
                                                      LIFTC_SOURCE_DIR)),
            std::string::npos)
      << read(dir_ / "cmake.log");
  fs::remove(dir_ / "cmake.log");
  Result all = run_shell(build);
  ASSERT_EQ(all.exit_code, 0) << all.output;
  EXPECT_NE(read(dir_ / "cmake.log").find(fmt::format("cmake --build {}/build -j 2\n", LIFTC_SOURCE_DIR)), std::string::npos)
      << read(dir_ / "cmake.log");
  std::ifstream demo(std::string(LIFTC_SOURCE_DIR) + "/scripts/demo.sh");
  std::string text((std::istreambuf_iterator<char>(demo)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("bash \"$root/scripts/build.sh\" liftc liftc-runner\n"), std::string::npos);
}

// scripts/bench_conv_shape.sh with this build's liftc, small budgets and no references,
// then `flags` (the strategies, ...).
std::string shape_benchmark(const std::string& flags) {
  return fmt::format("bash '{}/scripts/bench_conv_shape.sh' --liftc '{}' --evals 4 --check-evals 0 --runs 2 --no-refs {}",
                     LIFTC_SOURCE_DIR, LIFTC_BINARY, flags);
}

// scripts/bench_conv_shape.sh on this machine's OpenCL device, without references or cuDNN:
// two shapes explored with --explore-gpus, one `liftc worker` per "GPU" (the CPU's OpenCL
// ignores CUDA_VISIBLE_DEVICES: two workers on it) against a throwaway PostgreSQL server the
// script starts and removes; each exploration, one after the other, runs on both workers,
// every exploration before the first timing, then each best point timed and validated
// again, a row each. Bad flags of --explore-gpus are refused.
TEST_F(ExploreCli, TheShapeBenchmarkExploresOnAWorkerPerGpuThenTimesEachShape) {
  const std::string bench = shape_benchmark("--strategies 'conv-chw-tile conv-gemm'");
  Result r = run_shell(fmt::format("{} 4 6 6 4 3 1 1 2 6 6 2 1 1 0 --explore-gpus '0 1' -o out", bench));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::smatch server;
  ASSERT_TRUE(std::regex_search(r.output, server, std::regex("== a throwaway PostgreSQL server in (\\S+) ")))
      << r.output;
  EXPECT_FALSE(fs::exists(server[1].str())) << "the server's folder outlived the command";
  for (const char* gpu : {"0", "1"}) {
    EXPECT_NE(r.output.find(fmt::format("[gpu {}] liftc worker ", gpu)), std::string::npos) << r.output;
    std::string log = read(dir_ / "out" / fmt::format("worker-gpu{}.log", gpu));
    EXPECT_NE(log.find("claiming its candidates from postgresql://liftc@/postgres?host=" + server[1].str()),
              std::string::npos)
        << log;
    EXPECT_NE(log.find("stopped by Terminated after"), std::string::npos) << log;
  }
  // Both explorations ran on the workers: 4 candidates each, none here.
  std::string logs = read(dir_ / "out" / "worker-gpu0.log") + read(dir_ / "out" / "worker-gpu1.log");
  for (const char* run : {" of run 1 (try 1)", " of run 2 (try 1)"})
    EXPECT_NE(logs.find(run), std::string::npos) << logs;
  for (const char* shape : {"4x6x6x4-k3s1p1", "2x6x6x2-k1s1p0"}) {
    std::string rows = read(dir_ / "out" / fmt::format("layer{}-genetic.json", shape));  // liftc results --json
    std::ptrdiff_t count = 0;
    for (std::size_t at = rows.find("\"status\": "); at != std::string::npos; at = rows.find("\"status\": ", at + 1)) ++count;
    EXPECT_EQ(count, 4) << shape << "\n" << rows;
  }
  std::size_t first_timing = r.output.find("== 4x6x6x4-k3s1p1: output 6x6x4");
  ASSERT_NE(first_timing, std::string::npos) << r.output;
  EXPECT_LT(r.output.find("== 2x6x6x2-k1s1p0: exploring"), first_timing) << r.output;
  std::string table = read(dir_ / "out" / "table.md");
  EXPECT_NE(table.find("| 4 6 6 4 3 1 1 | 6x6x4 | "), std::string::npos) << table;
  EXPECT_NE(table.find("| 2 6 6 2 1 1 0 | 6x6x2 | "), std::string::npos) << table;
  for (const auto& [flags, message] : std::vector<std::pair<std::string, std::string>>{
           {"--explore-gpus '0 x'", "--explore-gpus takes CUDA device numbers, got 'x'"},
           {"--db postgresql://u@h/d", "--db and --pg-bin are the store of --explore-gpus' workers; give --explore-gpus"},
           {"--explore-gpus 0 --db results.db",
            "--db takes a PostgreSQL URL (postgresql://USER@HOST/DATABASE), got 'results.db'"},
           {"--explore-gpus 0 --db-dir stores",
            "--db-dir with --explore-gpus warm-starts from --db's store: give --db URL (a throwaway server keeps no rows)"},
           {"--explore-gpus 0 --pg-bin /nonexistent",
            "--pg-bin /nonexistent: neither a folder with initdb and pg_ctl nor an archive of scripts/pack_postgres.sh "
            "(.tar.gz)"}}) {
    Result bad = run_shell(fmt::format("{} 4 6 6 4 3 1 1 {}", bench, flags));
    EXPECT_EQ(bad.exit_code, 1) << flags << "\n" << bad.output;
    EXPECT_NE(bad.output.find(message), std::string::npos) << flags << "\n" << bad.output;
  }
}

// scripts/bench_workers.sh on this machine's OpenCL device: the program explored once with
// one worker and once with two (PoCL ignores CUDA_VISIBLE_DEVICES: both on the CPU), each
// time in a throwaway PostgreSQL server of its own that is gone afterwards; a table row per
// count whose candidates are the rows that count's exploration stored. Bad flags are refused.
TEST_F(ExploreCli, TheWorkersBenchmarkExploresOncePerWorkerCount) {
  const std::string bench = fmt::format("bash '{}/scripts/bench_workers.sh' --liftc '{}' '{}/examples/conv/conv_small.sr'",
                                        LIFTC_SOURCE_DIR, LIFTC_BINARY, LIFTC_SOURCE_DIR);
  Result r = run_shell(bench + " --gpus '0 1' --time 2 -s conv-chw --search random --work out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* count : {"1", "2"}) {
    std::smatch server;
    ASSERT_TRUE(std::regex_search(
        r.output, server, std::regex(fmt::format("== {} worker\\(s\\) on GPU\\(s\\) [0-9 ]+: a throwaway PostgreSQL server in (\\S+)", count))))
        << r.output;
    EXPECT_FALSE(fs::exists(server[1].str())) << "the server's folder outlived the command";
    std::string rows = read(dir_ / "out" / fmt::format("workers-{}", count) / "rows.json");
    std::ptrdiff_t stored = 0;
    for (std::size_t at = rows.find("\"status\": "); at != std::string::npos; at = rows.find("\"status\": ", at + 1)) ++stored;
    EXPECT_GT(stored, 0) << rows;
    // The row: workers, candidates (= the rows stored), wall s, evals/s, ratios.
    EXPECT_TRUE(std::regex_search(r.output, std::regex(fmt::format("\n +{} +{} +[0-9.]+ +[0-9.]+ +[0-9.]+ ", count, stored))))
        << r.output;
  }
  EXPECT_TRUE(fs::exists(dir_ / "out" / "workers-2" / "worker-gpu1.log"));
  for (const auto& [flags, message] : std::vector<std::pair<std::string, std::string>>{
           {"--gpus 'x'", "--gpus takes a whole number of at least 0, got 'x'"},
           {"--gpus '0 1' --counts 3", "--counts 3: more workers than the 2 GPU(s) of --gpus (one worker per GPU)"},
           {"--time 0", "--time takes a whole number of at least 1, got '0'"},
           {"--pg-bin /nonexistent",
            "--pg-bin /nonexistent: neither a folder with initdb and pg_ctl nor an archive of scripts/pack_postgres.sh "
            "(.tar.gz)"}}) {
    Result bad = run_shell(fmt::format("{} {}", bench, flags));
    EXPECT_EQ(bad.exit_code, 1) << flags << "\n" << bad.output;
    EXPECT_NE(bad.output.find(message), std::string::npos) << flags << "\n" << bad.output;
  }
}

// scripts/bench_search_device.sh --train-db: the search model-db is the model search trained
// first on a tuning database's rows (here one shape's store, for another shape), and it is a
// row of the table beside model (--table-only makes it again without a database); model-db
// without a database, or a database that is not there, is refused.
TEST_F(ExploreCli, TheDeviceSearchBenchmarkTrainsModelDbOnATuningDatabase) {
  const std::string bench = fmt::format("bash '{}/scripts/bench_search_device.sh' --liftc '{}' -s conv-chw --time 2",
                                        LIFTC_SOURCE_DIR, LIFTC_BINARY);
  Result r = run_shell(fmt::format("{} --search model --work first '{}/examples/conv/conv_small.sr'", bench,
                                   LIFTC_SOURCE_DIR));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_TRUE(fs::exists(dir_ / "first" / "conv_small-model.db")) << r.output;
  r = run_shell(fmt::format("{} --search model --search model-db --train-db first/conv_small-model.db --work second "
                            "'{}/examples/conv/conv_c1_m8.sr'",
                            bench, LIFTC_SOURCE_DIR));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* search : {"model", "model-db"})
    EXPECT_TRUE(std::regex_search(r.output, std::regex(fmt::format("\nconv_c1_m8 +{} +[0-9]+ ", search)))) << r.output;
  std::string log = read(dir_ / "second" / "conv_c1_m8-model-db.log");
  EXPECT_NE(log.find("tuning database first/conv_small-model.db: "), std::string::npos) << log;
  EXPECT_EQ(read(dir_ / "second" / "conv_c1_m8-model.log").find("tuning database"), std::string::npos);
  // The table of those stores again, without exploring: it needs no tuning database.
  Result table = run_shell(fmt::format("{} --table-only --search model --search model-db --work second "
                                       "'{}/examples/conv/conv_c1_m8.sr'",
                                       bench, LIFTC_SOURCE_DIR));
  ASSERT_EQ(table.exit_code, 0) << table.output;
  EXPECT_TRUE(std::regex_search(table.output, std::regex("\nconv_c1_m8 +model-db +[0-9]+ "))) << table.output;
  for (const auto& [flags, message] : std::vector<std::pair<std::string, std::string>>{
           {"--search model-db", "--search model-db needs --train-db DB"},
           {"--search model-db --train-db nowhere.db", "no tuning database nowhere.db"}}) {
    Result bad = run_shell(fmt::format("{} {} '{}/examples/conv/conv_small.sr'", bench, flags, LIFTC_SOURCE_DIR));
    EXPECT_EQ(bad.exit_code, 2) << flags << "\n" << bad.output;
    EXPECT_NE(bad.output.find("bench_search_device.sh: " + message), std::string::npos) << flags << "\n" << bad.output;
  }
}

// bench_conv_shape.sh --time-for TAG=S: that shape's exploration stops at S seconds, the
// other's budget stays --time's (here its evaluations end it first); a tag that names no
// shape, and a budget that is not a count of seconds (or one past six digits, which bash
// arithmetic would overflow), are refused. Every number is read in base 10, leading zeros
// or not: the shape 04 06 06 04 is 4x6x6x4 in its tag and its table row alike, 010 is ten
// and 08 eight (not octal, nor an error), and one past nine digits is refused.
TEST_F(ExploreCli, TheShapeBenchmarkGivesAShapeItsOwnTimeBudget) {
  const std::string bench = shape_benchmark("--strategies conv-chw-tile --evals 400 --time 600 04 06 06 04 1 1 0 2 6 6 2 1 1 0");
  Result r = run_shell(bench + " --time-for 4x6x6x4-k1s1p0=03 -o out");  // decimal: 08 would be an octal error
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(read(dir_ / "out" / "table.md").find("| 4 6 6 4 1 1 0 | 6x6x4 | "), std::string::npos);
  Result decimal = run_shell(shape_benchmark("--evals 08 --runs 09 --check-size 08 --check-evals 010 --jobs 02 "
                                             "--explore-gpus '00 01' 010 6 6 08 1 1 0 --time-for 1x1x1x1-k1s1p1=3"));
  EXPECT_EQ(decimal.exit_code, 1) << decimal.output;
  EXPECT_NE(decimal.output.find("--time-for 1x1x1x1-k1s1p1=3: no shape 1x1x1x1-k1s1p1; the shapes are 10x6x6x8-k1s1p0\n"),
            std::string::npos)
      << decimal.output;
  for (const auto& [flags, message] : std::vector<std::pair<std::string, std::string>>{
           {"--evals 0x8 4 6 6 4 1 1 0", "--evals: not a count: '0x8'"},
           {"--runs 1234567890 4 6 6 4 1 1 0", "--runs: not a count: '1234567890'"},
           {"--jobs -1 4 6 6 4 1 1 0", "--jobs: not a count: '-1'"},
           {"4 6 6 4 1 1 0000000000", "a shape's sizes are non-negative integers of at most 9 digits, got '0000000000'"}}) {
    Result refused = run_shell(shape_benchmark(flags));
    EXPECT_EQ(refused.exit_code, 1) << refused.output;
    EXPECT_NE(refused.output.find("bench_conv_shape.sh: error: " + message), std::string::npos) << refused.output;
  }
  std::string timed = read(dir_ / "out" / "explore-4x6x6x4-k1s1p0.txt");
  EXPECT_NE(timed.find("stopped: time budget of 3 s"), std::string::npos) << timed;
  std::string counted = read(dir_ / "out" / "explore-2x6x6x2-k1s1p0.txt");
  EXPECT_NE(counted.find("stopped: budget of 400 evaluations"), std::string::npos) << counted;
  Result unknown = run_shell(bench + " --time-for 4x6x6x4-k3s1p1=3");
  EXPECT_EQ(unknown.exit_code, 1) << unknown.output;
  EXPECT_NE(unknown.output.find("--time-for 4x6x6x4-k3s1p1=3: no shape 4x6x6x4-k3s1p1; the shapes are 4x6x6x4-k1s1p0 "
                                "2x6x6x2-k1s1p0"),
            std::string::npos)
      << unknown.output;
  for (const char* bad : {"4x6x6x4-k1s1p0=0", "4x6x6x4-k1s1p0=99999999999999999999", "'4x6x6x4-k1s1p0 x=3'"}) {
    Result refused = run_shell(fmt::format("{} --time-for {}", bench, bad));
    EXPECT_EQ(refused.exit_code, 1) << refused.output;
    EXPECT_NE(refused.output.find("--time-for takes TAG=SECONDS (seconds from 1 to 999999), got '"), std::string::npos)
        << refused.output;
  }
}

// bench_conv_shape.sh --db-dir: the shape's results store is kept there, and the next
// command's exploration starts from the points the first stored (liftc explore --warm-start).
TEST_F(ExploreCli, TheShapeBenchmarkKeepsItsStoresAndWarmStartsFromThem) {
  const std::string bench = shape_benchmark("--strategies conv-chw-tile --db-dir stores 4 6 6 4 3 1 1");
  Result first = run_shell(bench + " -o out1");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_TRUE(fs::exists(dir_ / "stores" / "layer4x6x6x4-k3s1p1-genetic.db"));
  EXPECT_NE(read(dir_ / "out1" / "explore-4x6x6x4-k3s1p1.txt").find("warm start: 0 point(s)"), std::string::npos);
  Result second = run_shell(bench + " -o out2");
  ASSERT_EQ(second.exit_code, 0) << second.output;
  std::string log = read(dir_ / "out2" / "explore-4x6x6x4-k3s1p1.txt");
  EXPECT_GE(warm_start_points(log), 1) << log;
  EXPECT_NE(read(dir_ / "out2" / "table.md").find("| 4 6 6 4 3 1 1 | 6x6x4 | "), std::string::npos);
  Result random = run_shell(bench + " --search random");
  EXPECT_EQ(random.exit_code, 1) << random.output;
  EXPECT_NE(random.output.find("--db-dir starts genetic explorations from the stores' points; it takes --search genetic"),
            std::string::npos)
      << random.output;
}

// A stand-in adb in DIR whose "phone" is this machine (DIR/phone, the runner linked there):
// `shell` runs its command here, `push` copies and logs to $ADB_LOG, and `push --sync`
// copies only the files newer than the phone's, as adb does. `adb_explore` runs explore's
// three candidates of kStencil (then `flags`) through scripts/adb_runner.sh with it.
void make_stand_in_adb(const fs::path& dir) {
  fs::create_directories(dir / "phone");
  fs::create_symlink(LIFTC_RUNNER_PATH, dir / "phone/liftc-runner");
  std::ofstream(dir / "adb") << "#!/bin/sh\n"
                                 "cmd=\"$1\"; shift\n"
                                 "case \"$cmd\" in\n"
                                 "  shell) exec sh -c \"$*\" ;;\n"
                                 "  push) echo \"push $*\" >> \"$ADB_LOG\"; newer=\"\"; [ \"$1\" = --sync ] && newer=-u && shift\n"
                                 "        if [ -d \"$1\" ]; then mkdir -p \"$2\" && cp -R $newer \"$1\"/. \"$2\"/; else cp \"$1\" \"$2\"; fi ;;\n"
                                 "esac\n";
  fs::permissions(dir / "adb", fs::perms::owner_all);
}

Result adb_explore(ExploreCli& cli, const fs::path& dir, const std::string& flags) {
  setenv("ADB", (dir / "adb").c_str(), 1);
  setenv("ADB_LOG", (dir / "adb.log").c_str(), 1);
  setenv("LIFTC_PHONE_DIR", (dir / "phone").c_str(), 1);
  Result r = cli.run(fmt::format("explore {} -s stencil-parametric --evals 3 --runs 2 --runner '{}/scripts/adb_runner.sh' -q {}",
                                             kStencil, LIFTC_SOURCE_DIR, flags));
  unsetenv("ADB");
  unsetenv("LIFTC_PHONE_DIR");
  return r;
}

// All three of an exploration's candidates validated: ok, or cut (timed once) when a loaded
// machine made one 5x slower than the best.
bool all_three_valid(const std::string& output) {
  bool all_valid = false;
  for (const char* counts : {"(3 ok)", "(1 cut, 2 ok)", "(2 cut, 1 ok)", "(3 cut)"})
    all_valid = all_valid || output.find(counts) != std::string::npos;
  return all_valid;
}

// The phone's shared-KEY folders (scripts/lib/shared_key.sh), by name.
std::vector<std::string> phone_shared_folders(const fs::path& phone) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(phone))
    if (entry.path().filename().string().rfind("shared", 0) == 0) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST_F(ExploreCli, AdbRunnerScriptThroughAStandInAdb) {
  // scripts/adb_runner.sh with a stand-in adb whose "phone" is this machine: the shared
  // inputs and reference go to the phone's shared-KEY/ (adb push --sync), each bundle links
  // them there instead of pushing its own copies, and parallel runners take turns.
  make_stand_in_adb(dir_);
  Result r = adb_explore(*this, dir_, "--jobs 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("3 candidates in"), std::string::npos) << r.output;
  EXPECT_TRUE(all_three_valid(r.output)) << r.output;
  std::string log = read(dir_ / "adb.log");
  EXPECT_NE(log.find("push --sync "), std::string::npos) << log;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);)  // per bundle: its bundle.txt and kernels only
    if (line.rfind("push --sync ", 0) != 0) {
      EXPECT_TRUE(line.find("/bundle.phone.txt ") != std::string::npos || line.find("/kernels.cl ") != std::string::npos)
          << line;
    }
  std::vector<std::string> shared = phone_shared_folders(dir_ / "phone");
  ASSERT_EQ(shared.size(), 1u);
  EXPECT_TRUE(std::regex_match(shared[0], std::regex("shared-[0-9a-f]{16}"))) << shared[0];
  EXPECT_TRUE(fs::exists(dir_ / "phone" / shared[0] / "inputs/grid.bin"));
  EXPECT_TRUE(fs::exists(dir_ / "phone/device.lock"));
  for (const auto& entry : fs::directory_iterator(dir_ / "phone"))  // the bundles on the phone were removed
    EXPECT_EQ(entry.path().filename().string().rfind("candidate-", 0), std::string::npos) << entry.path();
}

// Two explorations of one program with other input values (--input-seed) on one phone, the
// first's inputs on the phone newer than the second's on the host (as when the two run at
// once): each validates against its own inputs and expected outputs, in a folder of its own
// (shared-KEY, KEY a hash of the contents), and a third with the first's values uses the
// first's folder. (One shared/ refreshed newest-wins by push --sync gave the second the
// first's inputs beside its own expected outputs: its correct kernels were all `wrong`.)
TEST_F(ExploreCli, AdbRunnerScriptGivesEachExplorationsInputsTheirOwnPhoneFolder) {
  make_stand_in_adb(dir_);
  Result first = adb_explore(*this, dir_, "--input-seed 1 --db first.db");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_TRUE(all_three_valid(first.output)) << first.output;
  auto later = fs::file_time_type::clock::now() + std::chrono::hours(1);
  for (const auto& entry : fs::recursive_directory_iterator(dir_ / "phone"))
    if (entry.is_regular_file() && entry.path().parent_path().filename() == "inputs") fs::last_write_time(entry.path(), later);
  Result second = adb_explore(*this, dir_, "--input-seed 2 --db second.db");
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_TRUE(all_three_valid(second.output)) << second.output;
  EXPECT_EQ(phone_shared_folders(dir_ / "phone").size(), 2u);
  Result third = adb_explore(*this, dir_, "--input-seed 1 --db third.db");
  ASSERT_EQ(third.exit_code, 0) << third.output;
  EXPECT_TRUE(all_three_valid(third.output)) << third.output;
  EXPECT_EQ(phone_shared_folders(dir_ / "phone").size(), 2u);
}

}  // namespace
