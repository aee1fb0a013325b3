// The exploration loop on a real program (the stencil, its stencil-parametric space) with
// the local runner (serving runners, or a process per candidate): a hanging and a crashing
// kernel injected into a run are recorded as failures and the run finishes; the same
// candidates again are served from the store (the crash is tried again); replay against
// the store gives the same
// outcomes with no device; all of it with one candidate at a time and with several. Parallel runs propose the same candidates (real
// and made-up evaluations, random and genetic searches) and never time at once.

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gtest/gtest.h>
#include <unistd.h>

#include "liftc/explore/store/sqlite_store.hpp"
#include "liftc/explore/candidates/constraint_space.hpp"
#include "liftc/explore/evaluation/evaluate.hpp"
#include "liftc/explore/search/loop.hpp"
#include "liftc/explore/search/model_search.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/rewrite/load.hpp"
#include "test_folder.hpp"
#include "toy_space.hpp"

namespace liftc::explore {
namespace {

namespace fs = std::filesystem;

// Puts `code` at the start of every kernel body of the bundle in `dir`.
void inject(const std::string& dir, const std::string& code) {
  std::ifstream in(dir + "/kernels.cl");
  std::stringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  for (std::size_t at = text.find("kernel void"); at != std::string::npos; at = text.find("kernel void", at + 1)) {
    std::size_t brace = text.find('{', at);
    text.insert(brace + 1, "\n" + code + "\n");
  }
  std::ofstream(dir + "/kernels.cl", std::ios::trunc) << text;
}

class ExploreLoop : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("LIFTC_RUNNER", LIFTC_RUNNER_PATH, 1);
    dir_ = test::fresh_test_folder("liftc_explore_loop");
    fs::create_directories(dir_ / "work");
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

// The loop with `jobs` candidates at once: a StartFn of the evaluator.
LoopResult run_loop(Search& search, Evaluator& evaluator, const Budget& budget, std::size_t jobs) {
  return explore_loop(search, [&](const Candidate& c) { return evaluator.start(c); }, budget, jobs, nullptr);
}

// Jobs at once, and whether each candidate runs in a fresh runner process (--isolate) or
// in serving runners kept between candidates.
class ExploreJobs : public ExploreLoop, public ::testing::WithParamInterface<std::tuple<std::size_t, bool>> {};

TEST_P(ExploreJobs, HangAndCrashAreRecordedTheRunFinishesAndReplayAgrees) {
  const auto [jobs, isolate] = GetParam();
  const std::string file = std::string(LIFTC_SOURCE_DIR) + "/examples/stencil2d.sr";
  rewrite::RuleSet rules = rewrite::load_rules_dir(std::string(LIFTC_SOURCE_DIR) + "/rules");
  ir::Program program = parse::load_program(file);
  EvaluatorOptions eo;
  eo.work_dir = (dir_ / "work").string();
  eo.timeout_s = 4;
  eo.bundle.runs = 2;
  eo.isolate = isolate;
  // No cut-off: past one, the runner itself stops waiting for the hanging kernel (a cut row:
  // ExploreCli.ASlowCandidateIsStoppedAtTheCutOffAndRecordedAsCut); this is the watchdog's case.
  eo.cutoff_factor = 0;
  DeviceReport device = probe_device(eo);
  CandidateSpace space = build_candidate_space(program, rules, {"stencil-parametric"}, true, device.target());
  SqliteStore store((dir_ / "results.db").string());
  Problem problem = load_problem(file, 0, store);
  EXPECT_FALSE(problem.reference_from_store);
  std::int64_t run = store.begin_run(file, "{}");

  EvaluatorOptions injecting = eo;
  injecting.bundle_hook = [](const std::string& bundle, std::size_t n) {
    if (n == 1) inject(bundle, "{ volatile int spin = 1; while (spin) { } }");
    if (n == 2) inject(bundle, "*((__global volatile int*)16) = 1;");
  };
  Budget budget{5, 0};
  LoopResult first;
  {
    Evaluator evaluator(problem, space, store, run, device, injecting);
    auto search = make_random_search(space, 5);
    first = run_loop(*search, evaluator, budget, jobs);
    EXPECT_EQ(evaluator.times().ran, 5u);
    // One at a time, the last candidate runs in the process of the one before it.
    if (isolate) {
      EXPECT_EQ(evaluator.times().reused, 0u);
    } else if (jobs == 1) {
      EXPECT_GE(evaluator.times().reused, 1u);
    }
  }
  ASSERT_EQ(first.explored.size(), 5u);
  EXPECT_EQ(first.explored[1].evaluation.status, "timeout") << first.explored[1].evaluation.reason;
  EXPECT_NE(first.explored[1].evaluation.reason.find("killed by the watchdog"), std::string::npos);
  EXPECT_EQ(first.explored[2].evaluation.status, "crash") << first.explored[2].evaluation.reason;
  EXPECT_NE(first.explored[2].evaluation.reason.find("signal"), std::string::npos);
  for (std::size_t i : {0u, 3u, 4u}) {
    // ok, or cut (validated, timed once) when the loaded machine made it 5x slower than the best
    EXPECT_TRUE(status_valid(first.explored[i].evaluation.status))
        << first.explored[i].evaluation.status << ": " << first.explored[i].evaluation.reason;
    EXPECT_GT(first.explored[i].evaluation.memory_bytes, 0);
  }
  EXPECT_EQ(store.evaluations(run).size(), 5u);  // failures are rows too

  // The same candidates again: served from the store, but for the crash, which was that
  // try's (the runner died), not the kernels': it is run again, and now validates. The
  // timeout is served: the watchdog is the same.
  Problem again = load_problem(file, 0, store);
  EXPECT_TRUE(again.reference_from_store);
  std::int64_t run2 = store.begin_run(file, "{}");
  Evaluator evaluator(again, space, store, run2, device, eo);
  auto search = make_random_search(space, 5);
  LoopResult second = run_loop(*search, evaluator, budget, jobs);
  ASSERT_EQ(second.explored.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    if (i == 2) continue;
    EXPECT_TRUE(second.explored[i].served) << i;
    EXPECT_EQ(second.explored[i].evaluation.status, first.explored[i].evaluation.status) << i;
  }
  EXPECT_FALSE(second.explored[2].served);
  EXPECT_TRUE(status_valid(second.explored[2].evaluation.status)) << second.explored[2].evaluation.reason;
  EXPECT_EQ(store.evaluations(run2).size(), 1u);

  // Replay: the search against the store's rows, by candidate, with no runner at all.
  auto replay_search = make_random_search(space, 5);
  LoopResult replayed = explore_loop(
      *replay_search,
      [&](const Candidate& c, bool& served) {
        served = true;
        const auto& alt = constraint_alternative(*space.alternatives[c.alternative]);
        auto e = store.find_candidate(problem.program_hash, alt.space().strategy,
                                      std::int64_t(alt.space().alternative), format_point(alt, c.point));
        EXPECT_TRUE(e);
        return e ? *e : Evaluation{};
      },
      budget, nullptr);
  // (A candidate's last row: the crash's retry.)
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(replayed.explored[i].evaluation.status, second.explored[i].evaluation.status) << i;
    if (status_valid(second.explored[i].evaluation.status)) {
      EXPECT_EQ(replayed.explored[i].evaluation.time_ms, second.explored[i].evaluation.time_ms) << i;
    }
  }
  // Every bundle was removed once its row was recorded.
  for (const auto& entry : fs::directory_iterator(dir_ / "work"))
    EXPECT_NE(entry.path().filename().string().rfind("candidate-", 0), 0u) << entry.path();
}

// The time budget ends while two runners hang (from the third bundle on, every kernel
// spins): they are killed then, not at the watchdog's 120 s, and leave no row and no bundle;
// the two candidates that ended before are the run's rows. In fresh runner processes and in
// serving runners.
TEST_F(ExploreLoop, TheTimeBudgetStopsHangingRunnersAndKeepsNoRowOfThem) {
  const std::string file = std::string(LIFTC_SOURCE_DIR) + "/examples/stencil2d.sr";
  rewrite::RuleSet rules = rewrite::load_rules_dir(std::string(LIFTC_SOURCE_DIR) + "/rules");
  ir::Program program = parse::load_program(file);
  for (bool isolate : {true, false}) {
    EvaluatorOptions eo;
    eo.work_dir = (dir_ / "work").string();
    eo.timeout_s = 120;
    eo.bundle.runs = 2;
    eo.isolate = isolate;
    eo.cutoff_factor = 0;  // the watchdog's case, not the cut-off's
    eo.bundle_hook = [](const std::string& bundle, std::size_t n) {
      if (n >= 2) inject(bundle, "{ volatile int spin = 1; while (spin) { } }");
    };
    DeviceReport device = probe_device(eo);
    CandidateSpace space = build_candidate_space(program, rules, {"stencil-parametric"}, true, device.target());
    SqliteStore store((dir_ / fmt::format("results-{}.db", isolate)).string());
    Problem problem = load_problem(file, 0, store);
    std::int64_t run = store.begin_run(file, "{}");
    Evaluator evaluator(problem, space, store, run, device, eo);
    auto search = make_random_search(space, 5);
    auto began = std::chrono::steady_clock::now();
    LoopResult r = run_loop(*search, evaluator, Budget{kUnboundedEvaluations, 10}, 2);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    EXPECT_LT(seconds, 40) << isolate << ": waited for the hanging runners";
    EXPECT_EQ(r.stop, "time budget of 10 s");
    ASSERT_EQ(r.explored.size(), 2u) << isolate;
    for (const auto& x : r.explored) EXPECT_TRUE(status_valid(x.evaluation.status)) << x.evaluation.reason;
    EXPECT_EQ(r.stopped, 2u) << isolate;
    EXPECT_EQ(store.evaluations(run).size(), 2u) << isolate;
    EXPECT_EQ(evaluator.times().ran, 2u) << isolate;
    for (const auto& entry : fs::directory_iterator(dir_ / "work"))
      EXPECT_NE(entry.path().filename().string().rfind("candidate-", 0), 0u) << entry.path();
  }
}

INSTANTIATE_TEST_SUITE_P(Jobs, ExploreJobs,
                         ::testing::Values(std::tuple{std::size_t{1}, false}, std::tuple{std::size_t{3}, false},
                                           std::tuple{std::size_t{3}, true}),
                         [](const auto& info) {
                           return fmt::format("{}{}", std::get<0>(info.param), std::get<1>(info.param) ? "Isolated" : "Served");
                         });

TEST_F(ExploreLoop, ParallelRunsProposeTheSameCandidatesWithTheSameKeysAndNeverTimeAtOnce) {
  const std::string file = std::string(LIFTC_SOURCE_DIR) + "/examples/stencil2d.sr";
  rewrite::RuleSet rules = rewrite::load_rules_dir(std::string(LIFTC_SOURCE_DIR) + "/rules");
  ir::Program program = parse::load_program(file);
  EvaluatorOptions eo;
  eo.work_dir = (dir_ / "work").string();
  eo.bundle.runs = 2;
  DeviceReport device = probe_device(eo);
  CandidateSpace space = build_candidate_space(program, rules, {"stencil-parametric"}, true, device.target());
  const Budget budget{6, 0};
  std::vector<LoopResult> results;
  std::vector<std::set<std::string>> stored_keys;
  std::vector<std::pair<double, double>> locked;
  for (std::size_t jobs : {1, 3}) {
    SqliteStore store((dir_ / fmt::format("jobs{}.db", jobs)).string());
    Problem problem = load_problem(file, 0, store);
    Evaluator evaluator(problem, space, store, store.begin_run(file, "{}"), device, eo);
    auto search = make_random_search(space, 11);
    results.push_back(run_loop(*search, evaluator, budget, jobs));
    std::set<std::string> keys;
    for (const auto& e : store.evaluations()) keys.insert(e.key);
    stored_keys.push_back(keys);
    if (jobs > 1) locked = evaluator.times().locked_ms;
  }
  ASSERT_EQ(results[0].explored.size(), 6u);
  ASSERT_EQ(results[1].explored.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(results[1].explored[i].candidate, results[0].explored[i].candidate) << i;
    EXPECT_EQ(results[1].explored[i].evaluation.key, results[0].explored[i].evaluation.key) << i;
    EXPECT_EQ(results[1].explored[i].evaluation.point, results[0].explored[i].evaluation.point) << i;
  }
  EXPECT_EQ(stored_keys[1], stored_keys[0]);
  // The runners of the parallel run held the device lock one at a time.
  std::sort(locked.begin(), locked.end());
  EXPECT_GE(locked.size(), 2u);
  for (std::size_t i = 1; i < locked.size(); ++i) {
    EXPECT_LE(locked[i - 1].second, locked[i].first) << "two runners timed at once";
  }
}

// A made-up evaluation for the loop alone: the outcome is a function of the candidate, the
// run takes a candidate-dependent time so that runs end out of order.
// `run_ms` of 0: 1-13 ms, by the point. The row gets the seconds the loop timed.
Pending toy_pending(const Candidate& c, std::vector<Candidate>& ended, int run_ms = 0) {
  auto e = std::make_shared<Evaluation>();
  Objectives o = test::toy_cost(c);
  e->status = status::Ok;
  e->time_ms = o.time_ms;
  e->spread_ms = 0;
  e->memory_bytes = static_cast<std::int64_t>(o.memory);
  e->point = fmt::format("{}", fmt::join(c.point, ","));
  Pending p;
  if (run_ms == 0) run_ms = 1 + int(c.point[0] * 7 % 13);
  p.run = [run_ms] { std::this_thread::sleep_for(std::chrono::milliseconds(run_ms)); };
  p.record = [&ended, c, e](double seconds) {
    e->seconds = seconds;
    ended.push_back(c);
    return true;
  };
  p.result = [e](bool& served) {
    served = false;
    return *e;
  };
  return p;
}

struct SearchCase {
  const char* what;
  bool genetic;
  bool pareto;
};

TEST(ParallelLoop, TheCandidatesAskedDoNotDependOnJobs) {
  const SearchCase cases[] = {
      {"random", false, false},
      {"genetic", true, false},
      {"genetic NSGA-II", true, true},
  };
  for (const auto& c : cases) {
    std::vector<std::vector<Candidate>> asked;
    bool out_of_order = false;
    for (std::size_t jobs : {1, 2, 5}) {
      CandidateSpace space = test::toy_candidates();
      GeneticOptions g;
      g.population = 6;
      g.pareto = c.pareto;
      auto search = c.genetic ? make_genetic_search(space, g, 3) : make_random_search(space, 3);
      std::vector<Candidate> ended;
      LoopResult r = explore_loop(*search, [&](const Candidate& x) { return toy_pending(x, ended); }, Budget{30, 0}, jobs,
                                  nullptr);
      std::vector<Candidate> order;
      for (const auto& x : r.explored) order.push_back(x.candidate);
      out_of_order |= ended != order;
      asked.push_back(order);
    }
    ASSERT_EQ(asked[0].size(), 30u) << c.what;
    EXPECT_EQ(asked[1], asked[0]) << c.what;
    EXPECT_EQ(asked[2], asked[0]) << c.what;
    EXPECT_TRUE(out_of_order) << c.what << ": the runs all ended in order; the test shows nothing";
  }
}

// A model search that lags goes on while a slow candidate runs: the first candidate asked
// runs 1 s, the others milliseconds. Once it has run past slow_s the loop's reports make it
// slow, seen slow_lag rounds after its own, so more candidates end before it than the lag
// alone allows; the rows stay in proposal order, and they are those of the sequential loop
// (where the slow candidate is told its 1 s at once).
TEST(ParallelLoop, ASlowCandidateDoesNotHoldTheModelSearchUp) {
  ModelSearchOptions o;
  o.batch = 4;
  o.warmup = 8;
  o.lag = 1;
  o.slow_lag = 4;
  o.slow_s = 0.3;
  std::vector<std::vector<Candidate>> asked;
  std::size_t ended_before_slow = 0;
  for (std::size_t jobs : {1, 4}) {
    CandidateSpace space = test::toy_candidates();
    auto search = make_model_search(space, o, 5);
    std::vector<Candidate> ended;
    std::optional<Candidate> slow;
    auto start = [&](const Candidate& c) {
      if (slow) return toy_pending(c, ended);
      slow = c;
      return toy_pending(c, ended, 1000);
    };
    LoopResult r = explore_loop(*search, start, Budget{30, 0}, jobs, nullptr);
    std::vector<Candidate> order;
    for (const auto& x : r.explored) order.push_back(x.candidate);
    asked.push_back(order);
    ASSERT_TRUE(slow);
    EXPECT_GT(r.explored.front().evaluation.seconds, 0.9);
    if (jobs > 1) ended_before_slow = std::size_t(std::find(ended.begin(), ended.end(), *slow) - ended.begin());
  }
  ASSERT_EQ(asked[0].size(), 30u);
  EXPECT_EQ(asked[1], asked[0]);
  // With the lag alone, round 2 (after the first round's 8 and one round of 4) would wait.
  EXPECT_GT(ended_before_slow, o.warmup + (o.lag + 1) * o.batch);
}

// A toy candidate that runs 20 s unless the loop stops it; stopped, it has no outcome.
Pending stoppable_pending(const Candidate& c, std::vector<Candidate>& ended) {
  Pending p = toy_pending(c, ended, 1);
  auto stop = std::make_shared<std::atomic<bool>>(false);
  p.run = [stop] {
    for (int i = 0; i < 2000 && !*stop; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  };
  p.stop = [stop] { *stop = true; };
  p.record = [stop, record = p.record](double seconds) { return !*stop && record(seconds); };
  return p;
}

// When the time budget ends, the candidates still running are stopped, not waited for. With
// 4 jobs: the first 4 candidates take 10 ms; the 5th needs no run but waits for kernels that
// never come (as a candidate with the kernels of a stopped one does); the rest run 20 s
// unless stopped. The loop ends soon after its 0.5 s with the first 4 as its rows, the rest
// dropped: none is told to the search.
TEST(ParallelLoop, TheTimeBudgetStopsTheCandidatesStillRunningAndDropsThem) {
  CandidateSpace space = test::toy_candidates();
  auto search = make_random_search(space, 3);
  std::vector<Candidate> ended;
  std::vector<Candidate> asked;
  auto start = [&](const Candidate& c) {
    asked.push_back(c);
    if (asked.size() <= 4) return toy_pending(c, ended, 10);
    if (asked.size() > 5) return stoppable_pending(c, ended);
    Pending waiting;
    waiting.ready = [] { return false; };
    waiting.result = [](bool&) -> Evaluation {
      ADD_FAILURE() << "a candidate that was never ready was told";
      return {};
    };
    return waiting;
  };
  auto began = std::chrono::steady_clock::now();
  LoopResult r = explore_loop(*search, start, Budget{kUnboundedEvaluations, 0.5}, 4, nullptr);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  EXPECT_LT(seconds, 5) << "waited for the candidates still running";
  EXPECT_EQ(r.stop, "time budget of 0.5 s");
  ASSERT_EQ(r.explored.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(r.explored[i].candidate, asked[i]);
  ASSERT_GE(asked.size(), 6u);
  EXPECT_EQ(r.stopped, asked.size() - 4);
  EXPECT_EQ(ended.size(), 4u);  // only the first 4 were recorded
}

// Issue 36 item 2: a convolution whose pad value is 1e6 (edges near 1e6, the interior near
// 1), explored as Winograd. Its allowance was 1e-4 times the largest magnitude anywhere
// (`tolerance 0.001 3873.175`), so a kernel 100 off everywhere validated ok; now each
// element's allowance is its own magnitude's, and the interior tiles (no pad in their
// input tile) are held to values near 1.
const char* const kPaddedConvolution = R"(size C = 4, H = 16, W = 16, M = 4, K = 3
input weights : [[[[float]C]K]K]M
input biases  : [float]M
input image   : [[[float]C]W]H
def conv = map2D(window ->
             map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1,
                                  zip(join(join(window)), join(join(w)))),
                 zip(weights, biases)),
             slide2D(K, K, 1, 1, pad2D(1, 1, 1, 1, 1000000.0, image)))
)";

// Makes the bundle's expected values 100 less than the interpreter's: what a kernel whose
// every output is 100 too large is checked against. (expected/ is a hard link to the
// exploration's shared file: replaced, not written through.)
void lower_expected_by_100(const std::string& bundle) {
  for (const auto& entry : fs::directory_iterator(fs::path(bundle) / "expected")) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::vector<float> values(fs::file_size(entry.path()) / 4);
    in.read(reinterpret_cast<char*>(values.data()), std::streamsize(4 * values.size()));
    in.close();
    for (float& v : values) v -= 100.0f;
    fs::remove(entry.path());
    std::ofstream(entry.path(), std::ios::binary)
        .write(reinterpret_cast<const char*>(values.data()), std::streamsize(4 * values.size()));
  }
}

TEST_F(ExploreLoop, AWinogradKernel100OffOnValuesNear1BesideValuesNear1e6IsWrong) {
  const std::string file = (dir_ / "conv_pad.sr").string();
  std::ofstream(file) << kPaddedConvolution;
  rewrite::RuleSet rules = rewrite::load_rules_dir(std::string(LIFTC_SOURCE_DIR) + "/rules");
  ir::Program program = parse::load_program(file);
  EvaluatorOptions eo;
  eo.work_dir = (dir_ / "work").string();
  eo.timeout_s = 120;
  eo.bundle.runs = 1;
  eo.isolate = true;
  DeviceReport device = probe_device(eo);
  CandidateSpace space = build_candidate_space(program, rules, {"conv-winograd"}, true, device.target());
  ASSERT_FALSE(space.alternatives.empty());
  std::mt19937_64 rng(3);
  // The first two alternatives: F(2x2) and F(2x2) computing kappa kernels per work-item.
  std::vector<Candidate> candidates;
  for (std::size_t i = 0; i < space.alternatives.size() && candidates.size() < 2; ++i)
    if (space.alternatives[i]->count() > 0) candidates.push_back({i, space.alternatives[i]->sample(rng)});
  ASSERT_EQ(candidates.size(), 2u);
  for (bool off_by_100 : {false, true}) {
    SqliteStore store((dir_ / fmt::format("results-{}.db", off_by_100)).string());
    Problem problem = load_problem(file, 0, store);
    std::int64_t run = store.begin_run(file, "{}");
    EvaluatorOptions options = eo;
    if (off_by_100) options.bundle_hook = [](const std::string& bundle, std::size_t) { lower_expected_by_100(bundle); };
    Evaluator evaluator(problem, space, store, run, device, options);
    for (const Candidate& c : candidates) {
      bool served = false;
      Evaluation e = evaluator.evaluate(c, &served);
      std::string what = fmt::format("{} {}{}", e.strategy, e.alternative, off_by_100 ? ", 100 off" : "");
      if (off_by_100) {
        EXPECT_EQ(e.status, "wrong") << what << ": " << e.reason;
        EXPECT_NE(e.reason.find("differ from the interpreter"), std::string::npos) << what << ": " << e.reason;
      } else {
        EXPECT_TRUE(status_valid(e.status)) << what << ": " << e.status << ": " << e.reason;
      }
    }
  }
}

}  // namespace
}  // namespace liftc::explore

namespace liftc::explore {
namespace {

// Item 3 of issue 20: the runner is part of a key: another command, or the same script with
// other text, is another runner; the local runner is not a script that runs it.
TEST(RunnerIdentity, TellsRunnersApart) {
  fs::path dir = test::fresh_test_folder("liftc_runner_identity");
  auto script = [&](const char* name, const char* text) {
    std::ofstream(dir / name) << text;
    fs::permissions(dir / name, fs::perms::owner_all);
    return (dir / name).string();
  };
  EvaluatorOptions local;  // the local liftc-runner
  setenv("LIFTC_RUNNER", LIFTC_RUNNER_PATH, 1);
  EvaluatorOptions a, b, a_again, a_args;
  a.runner = script("a.sh", "#!/bin/sh\nexec \"$LIFTC_RUNNER\" \"$1\"\n");
  b.runner = script("b.sh", "#!/bin/sh\nexec \"$LIFTC_RUNNER\" \"$1\"  # another\n");
  a_again.runner = a.runner;
  a_args.runner = a.runner + " --verbose";
  EXPECT_EQ(runner_identity(a), runner_identity(a_again));
  EXPECT_NE(runner_identity(a), runner_identity(b));
  EXPECT_NE(runner_identity(a), runner_identity(a_args));
  EXPECT_NE(runner_identity(a), runner_identity(local));
  EXPECT_EQ(runner_identity(local), runner_identity(local));
  std::string before = runner_identity(a);
  script("a.sh", "#!/bin/sh\nexit 1\n");  // the same command, its script edited
  EXPECT_NE(runner_identity(a), before);
  EXPECT_EQ(runner_executable("sh -c true").value_or(""), runner_executable("sh").value_or("?"));
  EXPECT_FALSE(runner_executable("/no/such/runner"));
  EXPECT_FALSE(runner_executable("   "));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace liftc::explore
