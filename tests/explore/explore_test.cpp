// The exploration loop on a real program (the stencil, its stencil-parametric space) with
// the local runner: a hanging and a crashing kernel injected into a run are recorded as
// failures and the run finishes; the same candidates again are served from the store;
// replay against the store gives the same outcomes with no device.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <unistd.h>

#include "liftc/explore/constraint_space.hpp"
#include "liftc/explore/evaluate.hpp"
#include "liftc/explore/explore.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/rewrite/load.hpp"

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
    dir_ = fs::temp_directory_path() / ("liftc_explore_loop_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "work");
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(ExploreLoop, HangAndCrashAreRecordedTheRunFinishesAndReplayAgrees) {
  const std::string file = std::string(LIFTC_SOURCE_DIR) + "/examples/stencil2d.sr";
  rewrite::RuleSet rules = rewrite::load_rules_dir(std::string(LIFTC_SOURCE_DIR) + "/rules");
  ir::Program program = parse::load_program(file);
  EvaluatorOptions eo;
  eo.work_dir = (dir_ / "work").string();
  eo.timeout_s = 4;
  eo.bundle.runs = 2;
  DeviceReport device = probe_device(eo);
  CandidateSpace space = build_candidate_space(program, rules, {"stencil-parametric"}, true, device.target());
  Store store((dir_ / "results.db").string());
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
    first = explore_loop(*search, [&](const Candidate& c, bool& served) { return evaluator.evaluate(c, &served); },
                         budget, nullptr);
  }
  ASSERT_EQ(first.explored.size(), 5u);
  EXPECT_EQ(first.explored[1].evaluation.status, "timeout") << first.explored[1].evaluation.reason;
  EXPECT_NE(first.explored[1].evaluation.reason.find("killed by the watchdog"), std::string::npos);
  EXPECT_EQ(first.explored[2].evaluation.status, "crash") << first.explored[2].evaluation.reason;
  EXPECT_NE(first.explored[2].evaluation.reason.find("signal"), std::string::npos);
  for (std::size_t i : {0u, 3u, 4u}) {
    EXPECT_EQ(first.explored[i].evaluation.status, "ok") << first.explored[i].evaluation.reason;
    EXPECT_GT(first.explored[i].evaluation.memory_bytes, 0);
  }
  EXPECT_EQ(store.evaluations(run).size(), 5u);  // failures are rows too

  // The same candidates again: all served from the store, nothing run.
  Problem again = load_problem(file, 0, store);
  EXPECT_TRUE(again.reference_from_store);
  std::int64_t run2 = store.begin_run(file, "{}");
  Evaluator evaluator(again, space, store, run2, device, eo);
  auto search = make_random_search(space, 5);
  LoopResult second = explore_loop(
      *search, [&](const Candidate& c, bool& served) { return evaluator.evaluate(c, &served); }, budget, nullptr);
  ASSERT_EQ(second.explored.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_TRUE(second.explored[i].served) << i;
    EXPECT_EQ(second.explored[i].evaluation.status, first.explored[i].evaluation.status) << i;
  }
  EXPECT_EQ(store.evaluations(run2).size(), 0u);

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
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(replayed.explored[i].evaluation.status, first.explored[i].evaluation.status) << i;
    if (status_valid(first.explored[i].evaluation.status))
      EXPECT_EQ(replayed.explored[i].evaluation.time_ms, first.explored[i].evaluation.time_ms) << i;
  }
}

}  // namespace
}  // namespace liftc::explore
