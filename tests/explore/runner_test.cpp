// liftc-runner's protocol: bundles written by write_bundle (and hand-written ones) run in
// a child process; each outcome (ok, wrong values, unwritten outputs, out-of-bounds
// writes, build failure, cut-off, malformed bundle, hang, crash) comes back as JSON or
// as the watchdog's verdict.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>
#include <unistd.h>

#include "liftc/explore/bundle.hpp"
#include "liftc/explore/worker.hpp"
#include "liftc/support/diagnostic.hpp"
#include "add_bundle.hpp"
#include "test_folder.hpp"

namespace liftc::explore {
namespace {

namespace fs = std::filesystem;

using test::add_kernel;
using test::add_plan;
using test::expected_sum;
using test::fresh_test_folder;
using test::kN;

class RunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_test_folder("liftc_runner");
  }
  void TearDown() override { fs::remove_all(dir_); }

  WorkerResult run(const std::string& kernel_body, BundleSettings s = {}, double timeout = 60) {
    write_bundle(dir_.string(), add_kernel(kernel_body), add_plan(), expected_sum(), s);
    return run_worker(LIFTC_RUNNER_PATH, false, dir_.string(), timeout);
  }
  fs::path dir_;
};

TEST_F(RunnerTest, Protocol) {
  for (const auto& c : test::kProtocolCases) {
    WorkerResult w = run(c.body);
    ASSERT_EQ(w.end, WorkerResult::End::Exited) << c.what << ": " << w.err;
    RunnerAnswer a = parse_runner_answer(w.out);
    EXPECT_EQ(a.status, c.status) << c.what << ": " << a.reason;
    EXPECT_NE(a.reason.find(c.reason), std::string::npos) << c.what << ": " << a.reason;
    EXPECT_TRUE(a.device.contains("name")) << c.what;
    if (a.status == "ok") {
      EXPECT_EQ(a.samples_ms.size(), 5u);
      EXPECT_GT(a.median_ms, 0);
      EXPECT_LE(a.min_ms, a.median_ms);
      EXPECT_LE(a.median_ms, a.max_ms);
      EXPECT_FALSE(a.cut);
    }
  }
}

TEST_F(RunnerTest, ACandidateOverTheCutOffAfterItsValidatedRunIsNotRunAgain) {
  BundleSettings s;
  s.runs = 5;
  s.cutoff_ms = 1e-9;
  WorkerResult w = run("if (i < n) out[i] = a[i] + b[i];", s);
  RunnerAnswer a = parse_runner_answer(w.out);
  EXPECT_EQ(a.status, "ok");
  EXPECT_TRUE(a.cut);
  EXPECT_EQ(a.samples_ms.size(), 1u);
  // Its validated run was over the cut-off already: no warm-up or timed run followed.
  auto phase = [&](const char* name) {
    return std::any_of(a.phases_ms.begin(), a.phases_ms.end(), [&](const auto& p) { return p.first == name; });
  };
  EXPECT_TRUE(phase("first_run"));
  EXPECT_FALSE(phase("timed_runs"));
}

TEST_F(RunnerTest, AProbeReportsTheDeviceAndItsLimits) {
  write_probe_bundle(dir_.string(), "");
  WorkerResult w = run_worker(LIFTC_RUNNER_PATH, false, dir_.string(), 60);
  RunnerAnswer a = parse_runner_answer(w.out);
  EXPECT_EQ(a.status, "ok");
  for (const char* key : {"name", "driver", "max_work_group_size", "max_work_item_sizes", "local_mem_bytes",
                          "global_mem_bytes", "max_alloc_bytes", "compute_units"})
    EXPECT_TRUE(a.device.contains(key)) << key;
}

TEST_F(RunnerTest, AMalformedBundleIsARunnerErrorNamingTheLine) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "bundle.txt") << "liftc-bundle 1\nbuffer x f64 4 input\n";
  std::ofstream(dir_ / "kernels.cl") << "";
  WorkerResult w = run_worker(LIFTC_RUNNER_PATH, false, dir_.string(), 60);
  EXPECT_EQ(w.code, 1);
  RunnerAnswer a = parse_runner_answer(w.out);
  EXPECT_EQ(a.status, "runner");
  EXPECT_NE(a.reason.find("bundle.txt:2: expected: buffer NAME f32|i32 COUNT"), std::string::npos) << a.reason;
}

TEST_F(RunnerTest, AnUnknownDeviceIsNamed) {
  write_probe_bundle(dir_.string(), "no-such-device-xyz");
  RunnerAnswer a = parse_runner_answer(run_worker(LIFTC_RUNNER_PATH, false, dir_.string(), 60).out);
  EXPECT_EQ(a.status, "runner");
  EXPECT_NE(a.reason.find("no OpenCL device matches 'no-such-device-xyz'"), std::string::npos);
}

TEST_F(RunnerTest, AHangingKernelIsKilledByTheWatchdog) {
  WorkerResult w = run(test::kHangingBody, {}, 3);
  EXPECT_EQ(w.end, WorkerResult::End::TimedOut);
  EXPECT_LT(w.seconds, 20);
  EXPECT_NE(describe_end(w, 3).find("timed out after 3 s"), std::string::npos);
}

TEST_F(RunnerTest, ACrashingKernelEndsTheRunnerWithASignal) {
  WorkerResult w = run(test::kCrashingBody);
  EXPECT_EQ(w.end, WorkerResult::End::Signaled) << w.out << w.err;
  EXPECT_NE(describe_end(w, 60).find("killed by signal"), std::string::npos);
}

TEST_F(RunnerTest, RunnersSharingALockNeverRunKernelsAtOnce) {
  // Three runners of a slow kernel started together: every interval one of them held the
  // lock (the validated run, then warm-up and timed runs) is disjoint from the others'.
  BundleSettings s;
  s.runs = 3;
  s.lock = (dir_.string() + ".lock");
  write_bundle(dir_.string(),
               add_kernel("float acc = 0.0f; for (int k = 0; k < 20000; ++k) acc += a[(i + k) % n] * 1e-9f;\n"
                          "  if (i < n) out[i] = a[i] + b[i] + acc * 0.0f;"),
               add_plan(), expected_sum(), s);
  const int runners = 3;
  std::vector<WorkerResult> results(runners);
  std::vector<std::thread> threads;
  for (int r = 0; r < runners; ++r)
    threads.emplace_back([&, r] { results[r] = run_worker(LIFTC_RUNNER_PATH, false, dir_.string(), 120); });
  for (auto& t : threads) t.join();
  std::vector<std::pair<double, double>> spans;
  for (const auto& w : results) {
    RunnerAnswer a = parse_runner_answer(w.out);
    EXPECT_EQ(a.status, "ok") << a.reason;
    EXPECT_EQ(a.locked_ms.size(), 2u);
    std::vector<std::string> phases;
    for (const auto& [phase, ms] : a.phases_ms) phases.push_back(phase);
    const std::vector<std::string> expected_phases = {"read_bundle", "platform",   "context",    "build",   "upload",
                                                      "first_run",   "validate", "timed_runs", "canaries"};
    EXPECT_EQ(phases, expected_phases) << w.out;
    spans.insert(spans.end(), a.locked_ms.begin(), a.locked_ms.end());
  }
  std::sort(spans.begin(), spans.end());
  ASSERT_EQ(spans.size(), 2u * runners);
  for (std::size_t i = 0; i < spans.size(); ++i) {
    EXPECT_LE(spans[i].first, spans[i].second);
    if (i > 0) {
      EXPECT_LE(spans[i - 1].second, spans[i].first) << "two runners held the lock at once";
    }
  }
  fs::remove(s.lock);
}

struct SharedCase {
  const char* what;
  float first_input;  // a[0] in the candidate's plan (the shared file holds 0)
  bool linked;        // inputs/a.bin is the shared file itself
};

TEST_F(RunnerTest, SharedInputsAndReferenceAreLinkedWhereTheyHoldTheSameValues) {
  const SharedCase cases[] = {
      {"the same values", 0.0f, true},
      {"other values under the same name", 7.0f, false},
  };
  fs::path shared_dir = dir_.string() + "-shared";
  interp::Tensors inputs;
  runtime::LaunchPlan plan = add_plan();
  for (const char* name : {"a", "b"}) {
    inputs[name].shape = {std::int64_t(kN)};
    for (const auto& buffer : plan.buffers)
      if (buffer.name == name) inputs[name].f32 = std::get<std::vector<float>>(buffer.host);
  }
  interp::Tensors expected = expected_sum();
  SharedFiles shared = write_shared_files(shared_dir.string(), inputs, expected);
  for (const auto& c : cases) {
    runtime::LaunchPlan p = add_plan();
    std::get<std::vector<float>>(p.buffers[0].host)[0] = c.first_input;
    write_bundle(dir_.string(), add_kernel("if (i < n) out[i] = a[i] + b[i];"), p, expected, {}, &shared);
    EXPECT_EQ(fs::equivalent(dir_ / "inputs/a.bin", shared_dir / "inputs/a.bin"), c.linked) << c.what;
    EXPECT_TRUE(fs::equivalent(dir_ / "inputs/b.bin", shared_dir / "inputs/b.bin")) << c.what;
    EXPECT_TRUE(fs::equivalent(dir_ / "expected/out.bin", shared_dir / "expected/out.bin")) << c.what;
    RunnerAnswer a = parse_runner_answer(run_worker(LIFTC_RUNNER_PATH, false, dir_.string(), 60).out);
    // Written, not linked, the other input really is the candidate's: out[0] = 7, not the
    // reference's 0.
    EXPECT_EQ(a.status, c.linked ? "ok" : "wrong") << c.what << ": " << a.reason;
  }
  fs::remove_all(shared_dir);
}

TEST(RunnerAnswer, ParsingErrors) {
  EXPECT_THROW(parse_runner_answer("nothing here\n"), Error);
  EXPECT_THROW(parse_runner_answer("{\"protocol\": 2, \"status\": \"ok\"}\n"), Error);
  RunnerAnswer a = parse_runner_answer("adb: pushing...\n{\"protocol\":1,\"status\":\"ok\",\"samples_ms\":[1,2,3],"
                                       "\"median_ms\":2,\"min_ms\":1,\"max_ms\":3}\n");
  EXPECT_EQ(a.median_ms, 2);
  EXPECT_EQ(a.samples_ms.size(), 3u);
}

struct WatchdogCase {
  const char* what;
  const char* script;  // run by /bin/sh with a 1.5 s timeout (the bundle folder is appended: the last word takes it)
  bool timed_out;
};

TEST(Worker, TheWatchdogDoesNotCountWaitingForTheDeviceLock) {
  const WatchdogCase cases[] = {
      {"2 s waiting for the lock", "echo 'liftc-runner: waiting for the device lock' >&2; sleep 2; "
                                   "echo 'liftc-runner: holding the device lock' >&2; echo done", false},
      {"2 s waiting, told on stdout with CR LF", "printf 'liftc-runner: waiting for the device lock\\r\\n'; sleep 2; "
                                                 "printf 'liftc-runner: holding the device lock\\r\\n'", false},
      {"2 s holding the lock", "echo 'liftc-runner: waiting for the device lock' >&2; "
                               "echo 'liftc-runner: holding the device lock' >&2; sleep 2; true", true},
      {"2 s without a word", "sleep 2; true", true},
  };
  for (const auto& c : cases) {
    WorkerResult w = run_worker(c.script, true, "/tmp", 1.5);
    EXPECT_EQ(w.end == WorkerResult::End::TimedOut, c.timed_out) << c.what << " (" << w.seconds << " s)";
  }
}

TEST(Worker, ShellRunnersGetTheBundleAsOneArgument) {
  WorkerResult w = run_worker("printf '%s|'", true, "/tmp/a dir", 10);
  EXPECT_EQ(w.out, "/tmp/a dir|");
  WorkerResult missing = run_worker("/no/such/runner", false, "/tmp", 10);
  EXPECT_EQ(missing.code, 127);
}

// The plan's build options reach the runner's OpenCL compiler (`options` in bundle.txt):
// the kernel compiles only with the macro they define.
TEST_F(RunnerTest, TheBuildOptionsReachTheCompiler) {
  const std::string kernel = add_kernel("if (i < n) out[i] = (a[i] + b[i]) * SCALE;");
  runtime::LaunchPlan plan = add_plan();
  write_bundle(dir_.string(), kernel, plan, expected_sum(), {});
  EXPECT_EQ(parse_runner_answer(run_worker(LIFTC_RUNNER_PATH, false, dir_.string(), 60).out).status, "build");
  plan.build_options = "-cl-mad-enable -DSCALE=1.0f";
  write_bundle(dir_.string(), kernel, plan, expected_sum(), {});
  RunnerAnswer a = parse_runner_answer(run_worker(LIFTC_RUNNER_PATH, false, dir_.string(), 60).out);
  EXPECT_EQ(a.status, "ok") << a.reason;
}

}  // namespace
}  // namespace liftc::explore
