// liftc-runner's protocol: bundles written by write_bundle (and hand-written ones) run in
// a child process; each outcome (ok, wrong values, unwritten outputs, out-of-bounds
// writes, build failure, cut-off, malformed bundle, hang, crash) comes back as JSON or
// as the watchdog's verdict.

#include <sys/stat.h>
#include <sys/utsname.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "liftc/explore/evaluation/bundle.hpp"
#include "liftc/explore/evaluation/worker.hpp"
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
  // Its validated run was over the cut-off already (or, seen running, stopped waited for:
  // below): no warm-up or timed run followed.
  auto phase = [&](const char* name) {
    return std::any_of(a.phases_ms.begin(), a.phases_ms.end(), [&](const auto& p) { return p.first == name; });
  };
  EXPECT_TRUE(phase("first_run"));
  EXPECT_FALSE(phase("timed_runs"));
}

// A runner that stopped waiting for a hanging kernel's validated run once it passed a
// cut-off of 300 ms: exited well before the watchdog, its answer cut with that one sample.
void expect_stopped_at_300_ms(const WorkerResult& w) {
  ASSERT_EQ(w.end, WorkerResult::End::Exited) << w.out << w.err;
  EXPECT_EQ(w.code, 0);
  EXPECT_LT(w.seconds, 15) << "waited for the watchdog";
  RunnerAnswer a = parse_runner_answer(w.out);
  EXPECT_EQ(a.status, "ok");
  EXPECT_TRUE(a.cut);
  EXPECT_TRUE(a.stopped);
  ASSERT_EQ(a.samples_ms.size(), 1u);
  EXPECT_GT(a.samples_ms[0], 300);
  EXPECT_NE(a.reason.find("stopped waiting for the validated run after "), std::string::npos) << a.reason;
  EXPECT_NE(a.reason.find(" ms of its kernels (not validated)"), std::string::npos) << a.reason;
}

// A kernel that runs past a cut-off of a microsecond but ends well within the runner's
// grace after it (kStopGraceMs, 100 ms; this kernel takes a few milliseconds on PoCL): its
// validated run is waited for and checked, and the answer is cut, not stopped, so a serving
// runner would go on in its context.
TEST_F(RunnerTest, ARunThatEndsWithinTheGraceAfterTheCutOffIsWaitedFor) {
  BundleSettings s;
  s.runs = 5;
  s.cutoff_ms = 1e-3;
  WorkerResult w = run("volatile int k = 0; while (k < 20000) k++; if (i < n) out[i] = a[i] + b[i];", s);
  ASSERT_EQ(w.end, WorkerResult::End::Exited) << w.out << w.err;
  RunnerAnswer a = parse_runner_answer(w.out);
  EXPECT_EQ(a.status, "ok") << w.out;
  EXPECT_TRUE(a.cut) << w.out;
  EXPECT_FALSE(a.stopped) << w.out;
  ASSERT_EQ(a.samples_ms.size(), 1u) << w.out;
  EXPECT_GT(a.samples_ms[0], 1e-3);
  EXPECT_EQ(a.reason.find("stopped waiting"), std::string::npos) << a.reason;
}

// A kernel that never ends, with a cut-off of 300 ms and the watchdog's 60 s: the runner
// stops waiting once the kernel ran longer than the cut-off (counted from when PoCL reports
// it running, after compiling it) and exits at once, its answer cut with one sample over the
// cut-off, not validated. Process exit with the kernel running does not hang on PoCL.
TEST_F(RunnerTest, AKernelStillRunningPastTheCutOffIsNotWaitedFor) {
  BundleSettings s;
  s.cutoff_ms = 300;
  WorkerResult w = run(test::kHangingBody, s, 60);
  expect_stopped_at_300_ms(w);
  EXPECT_LT(parse_runner_answer(w.out).samples_ms.at(0), 2000);
  // Without a cut-off the same kernel runs until the watchdog kills it (AHangingKernelIsKilledByTheWatchdog).
}

// The same kernel with no cut-off in its bundle, but a live cut-off file (as explore names
// one: src/runner/live_cutoff.hpp) that the explorer writes only after the runner started:
// a point of no more memory at 60 ms, so 5 x 60 = 300 ms. The runner stops waiting soon
// after, not at the watchdog's 60 s. A point that uses more memory than the candidate's
// would not have stopped it (the second run, killed by a 3 s watchdog).
TEST_F(RunnerTest, AKernelStillRunningIsStoppedByAPointValidatedWhileItRuns) {
  fs::path live = dir_.parent_path() / (dir_.filename().string() + "-validated-points");
  fs::remove(live);
  for (std::int64_t point_memory : {100, 1000}) {
    BundleSettings s;
    s.live_path = live.string();
    s.live_factor = 5;
    s.live_memory = 500;
    std::thread explorer([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      std::ofstream(live.string() + ".new") << point_memory << " 60\n";
      fs::rename(live.string() + ".new", live);
    });
    WorkerResult w = run(test::kHangingBody, s, point_memory == 100 ? 60 : 3);
    explorer.join();
    fs::remove(live);
    if (point_memory == 1000) {
      EXPECT_EQ(w.end, WorkerResult::End::TimedOut) << w.out << w.err;
      continue;
    }
    expect_stopped_at_300_ms(w);
  }
}

TEST_F(RunnerTest, AProbeReportsTheDeviceAndItsLimitsAndTheMachine) {
  write_probe_bundle(dir_.string(), "");
  WorkerResult w = run_worker(LIFTC_RUNNER_PATH, false, dir_.string(), 60);
  RunnerAnswer a = parse_runner_answer(w.out);
  EXPECT_EQ(a.status, "ok");
  struct utsname u {};
  ASSERT_EQ(uname(&u), 0);
  EXPECT_EQ(a.machine, u.machine);  // where the runner ran, as uname -m names it
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
  EXPECT_NE(a.reason.find("bundle.txt:2: expected: buffer NAME f32|i32|f16 COUNT"), std::string::npos) << a.reason;
}

// A value written as the rest of a line cannot start another line of bundle.txt.
TEST_F(RunnerTest, AValueWithALineBreakIsRefusedNotWrittenIntoTheBundle) {
  try {
    write_probe_bundle(dir_.string(), "gpu\nkernel k 1 1 1 1 0 0 0");
    ADD_FAILURE() << "written";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "the device selector contains a line break or a NUL, which a bundle cannot hold");
  }
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

// Replaces `from` by `to` in the bundle.txt of `dir`.
void edit_bundle(const fs::path& dir, const std::string& from, const std::string& to) {
  std::ifstream in(dir / "bundle.txt");
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  std::size_t at = s.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  s.replace(at, from.size(), to);
  fs::remove(dir / "bundle.txt");
  std::ofstream(dir / "bundle.txt") << s;
}

struct MalformedCase {
  const char* what;
  std::function<void(const fs::path&)> spoil;  // applied to a well-formed bundle of the add kernel
  const char* status;
  const char* reason;  // part of the reason
};

// Issue 20: each of these aborted or crashed the runner (one-shot and served, where the
// server died at the first); now each is answered, and a serving runner goes on.
TEST_F(RunnerTest, MalformedBundlesAreAnsweredAndAServingRunnerGoesOn) {
  auto replace = [](std::string from, std::string to) {
    return [=](const fs::path& dir) { edit_bundle(dir, from, to); };
  };
  const MalformedCase cases[] = {
      {"device index 99999999999999999999", replace("device \n", "device 99999999999999999999\n"), "runner",
       "no OpenCL device matches '99999999999999999999'"},
      {"buffer count 10^12", replace("buffer out f32 64 output", "buffer out f32 1000000000000 output"), "runner",
       "bundle.txt:10: a buffer's element count must be a whole number from 1 to 274877906944, not '1000000000000'"},
      {"buffer count -1", replace("buffer out f32 64 output", "buffer out f32 -1 output"), "runner",
       "bundle.txt:10: a buffer's element count must be a whole number from 1 to 274877906944, not '-1'"},
      {"canary 10^11", replace("canary 256", "canary 100000000000"), "runner",
       "bundle.txt:7: canary must be a whole number from 0 to 1048576, not '100000000000'"},
      {"no header line", replace("liftc-bundle 1\n", ""), "runner", "bundle.txt:1: expected 'liftc-bundle 1' first"},
      // The library lines of issue 21 (read before CLBlast is needed, so with or without it).
      {"a library size of 2^32",
       replace("buffer out f32 64 output\n", "buffer out f32 64 output\nlibrary clblast-gemm 8 8 4294967296\n"), "runner",
       "a library size must be a whole number from 0 to 4294967295, not '4294967296'"},
      {"a library param of -1",
       replace("buffer out f32 64 output\n", "buffer out f32 64 output\nlibrary clblast-gemm 8 8 1\n"
                                             "arg buffer 0\narg buffer 1\narg buffer 2\nparam Xgemm MWG -1\n"),
       "runner", "a param value must be a whole number from 0 to 4294967295, not '-1'"},
      // Issue 36: a call whose sizes reach past its buffers (CLBlast read past the image, the
      // runner segfaulted and --serve died), and parameters CLBlast cannot run (WGD = 0
      // segfaulted, KWID = 0 never ended), are refused as the bundle is read.
      {"a library call past its image",
       replace("buffer out f32 64 output\n", "buffer out f32 64 output\nlibrary clblast-convgemm 1 16 16 3 3 1 1 1 1 1 1 1 1\n"
                                             "arg buffer 0\narg buffer 1\narg buffer 2\n"),
       "runner", "bundle.txt:11: library clblast-convgemm: its image needs 256 elements, the buffer has 64"},
      {"a library call with WGD 0",
       replace("buffer out f32 64 output\n", "buffer out f32 64 output\nlibrary clblast-convgemm 1 8 8 1 1 0 0 1 1 1 1 1 1\n"
                                             "arg buffer 0\narg buffer 1\narg buffer 2\nparam Xconvgemm WGD 0\n"),
       "runner", "bundle.txt:11: library clblast-convgemm: Xconvgemm.WGD = 0 is not one of 8, 16, 32, 64"},
      {"a library call with KWID 0",
       replace("buffer out f32 64 output\n", "buffer out f32 64 output\nlibrary clblast-convgemm 1 8 8 1 1 0 0 1 1 1 1 1 1\n"
                                             "arg buffer 0\narg buffer 1\narg buffer 2\nparam Xconvgemm KWID 0\n"),
       "runner", "bundle.txt:11: library clblast-convgemm: Xconvgemm.KWID = 0 is not one of 2, 8"},
      {"bundle.txt is /dev/zero",
       [](const fs::path& dir) {
         fs::remove(dir / "bundle.txt");
         fs::create_symlink("/dev/zero", dir / "bundle.txt");
       },
       "runner", "bundle.txt is not a regular file"},
      {"kernels.cl is /dev/zero",
       [](const fs::path& dir) {
         fs::remove(dir / "kernels.cl");
         fs::create_symlink("/dev/zero", dir / "kernels.cl");
       },
       "runner", "kernels.cl is not a regular file"},
      {"an input of the wrong size", [](const fs::path& dir) { fs::resize_file(dir / "inputs/a.bin", 12); }, "runner",
       "inputs/a.bin has 12 bytes, expected 256"},
      {"an input that is a FIFO",
       [](const fs::path& dir) {
         fs::remove(dir / "inputs/a.bin");
         mkfifo((dir / "inputs/a.bin").c_str(), 0600);
       },
       "runner", "inputs/a.bin is not a regular file"},
      {"a buffer larger than the device allocates",
       replace("buffer out f32 64 output", "buffer out f32 100000000000 output"), "run",
       "buffer 'out' needs 400000000512 bytes with its canaries, more than the device allocates at once"},
      {"more local memory than the device has", replace("arg int 64", "arg local 2147483647"), "run",
       "argument 3 of add asks for 2147483647 bytes of local memory; the device has"},
      // What the device refuses to launch names the compiled kernel's own work-group limit
      // (on a GPU its registers may hold it below the device's).
      {"a work-group larger than the kernel allows", replace("kernel add 1 64 1 1 0 0 0", "kernel add 1 65536 1 1 65536 0 0"),
       "run", "(work-groups of 65536 (65536) work-items; compiled for this device the kernel reports a limit of "},
  };
  ServeWorker served(LIFTC_RUNNER_PATH);
  int pid = 0;
  for (const auto& c : cases) {
    fs::path dir = dir_ / fmt::format("case-{}", &c - cases);
    write_bundle(dir.string(), test::add_kernel("if (i < n) out[i] = a[i] + b[i];"), add_plan(), expected_sum(), {});
    c.spoil(dir);
    WorkerResult w = run_worker(LIFTC_RUNNER_PATH, false, dir.string(), 60);
    ASSERT_EQ(w.end, WorkerResult::End::Exited) << c.what << ": " << w.err;
    EXPECT_EQ(w.code, std::string(c.status) == "runner" ? 1 : 0) << c.what;
    RunnerAnswer a = parse_runner_answer(w.out);
    EXPECT_EQ(a.status, c.status) << c.what << ": " << a.reason;
    EXPECT_NE(a.reason.find(c.reason), std::string::npos) << c.what << ": " << a.reason;
    WorkerResult s = served.run(dir.string(), 60);
    ASSERT_EQ(s.end, WorkerResult::End::Exited) << c.what << ": " << s.err;
    RunnerAnswer b = parse_runner_answer(s.out);
    EXPECT_EQ(b.status, c.status) << c.what << ": " << b.reason;
    EXPECT_NE(b.reason.find(c.reason), std::string::npos) << c.what << ": " << b.reason;
    if (pid == 0) pid = served.pid();
    EXPECT_EQ(served.pid(), pid) << c.what << ": the serving runner was replaced";
  }
  fs::path good = dir_ / "good";
  write_bundle(good.string(), test::add_kernel("if (i < n) out[i] = a[i] + b[i];"), add_plan(), expected_sum(), {});
  RunnerAnswer a = parse_runner_answer(served.run(good.string(), 60).out);
  EXPECT_EQ(a.status, "ok") << a.reason;
  EXPECT_EQ(a.pid, pid);
}

struct AllowanceCase {
  const char* what;
  const char* body;                                  // the kernel's line
  std::function<void(const fs::path&)> spoil;         // changes allowance/out.bin
  const char* status;
  const char* reason;  // part of the reason ("" when ok)
};

// Issue 36 item 2: an output's allowance is per element. Elements 0-31 may differ by 200,
// elements 32-63 by the tolerance alone: 100 more on the first half is ok, on the second
// wrong; an allowance file of the wrong size or with a NaN or negative value is status
// runner, one line.
TEST_F(RunnerTest, AnAllowanceIsPerElement) {
  interp::Tensors allowance;
  allowance["out"].shape = {std::int64_t(kN)};
  for (std::size_t i = 0; i < kN; ++i) allowance["out"].f32.push_back(i < kN / 2 ? 200.0f : 0.0f);
  auto set = [](std::size_t at, float v) {
    return [=](const fs::path& dir) {
      std::fstream f(dir / "allowance/out.bin", std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(std::streamoff(4 * at));
      f.write(reinterpret_cast<const char*>(&v), 4);
    };
  };
  auto nothing = [](const fs::path&) {};
  const AllowanceCase cases[] = {
      {"right values", "if (i < n) out[i] = a[i] + b[i];", nothing, "ok", ""},
      {"100 more where 200 is allowed", "if (i < n) out[i] = a[i] + b[i] + (i < n / 2 ? 100.0f : 0.0f);", nothing, "ok", ""},
      {"100 more everywhere", "if (i < n) out[i] = a[i] + b[i] + 100.0f;", nothing, "wrong",
       "32 of 64 values of 'out' differ from the interpreter, first at [32]: got 148 expected 48"},
      {"a short allowance", "if (i < n) out[i] = a[i] + b[i];",
       [](const fs::path& dir) { fs::resize_file(dir / "allowance/out.bin", 12); }, "runner",
       "allowance/out.bin has 12 bytes, expected 256"},
      {"a missing allowance", "if (i < n) out[i] = a[i] + b[i];",
       [](const fs::path& dir) { fs::remove(dir / "allowance/out.bin"); }, "runner",
       "cannot read allowance/out.bin: No such file or directory"},
      {"a NaN allowance", "if (i < n) out[i] = a[i] + b[i];", set(5, std::nanf("")), "runner",
       "allowance/out.bin: element [5] is nan, not a finite number >= 0"},
      {"a negative allowance", "if (i < n) out[i] = a[i] + b[i];", set(7, -1.0f), "runner",
       "allowance/out.bin: element [7] is -1, not a finite number >= 0"},
  };
  for (const auto& c : cases) {
    fs::path dir = dir_ / fmt::format("case-{}", &c - cases);
    BundleSettings s;
    s.allowance = &allowance;
    write_bundle(dir.string(), add_kernel(c.body), add_plan(), expected_sum(), s);
    c.spoil(dir);
    WorkerResult w = run_worker(LIFTC_RUNNER_PATH, false, dir.string(), 60);
    ASSERT_EQ(w.end, WorkerResult::End::Exited) << c.what << ": " << w.err;
    RunnerAnswer a = parse_runner_answer(w.out);
    EXPECT_EQ(a.status, c.status) << c.what << ": " << a.reason;
    EXPECT_NE(a.reason.find(c.reason), std::string::npos) << c.what << ": " << a.reason;
  }
}

// A host that cannot hold a buffer the device would take (issue 20: std::bad_alloc aborted
// the runner) is status run, in a one-shot and in a serving runner, which goes on. The
// runner's address space is limited (ulimit -v) to the buffer's size, so the small bundle
// runs and the large one cannot; where even the small one cannot run under that limit
// (a runtime reserving more address space than PoCL), the test is skipped.
TEST_F(RunnerTest, AHostOutOfMemoryIsStatusRunNotAnAbort) {
  fs::path probe = dir_ / "probe";
  write_probe_bundle(probe.string(), "");
  RunnerAnswer device = parse_runner_answer(run_worker(LIFTC_RUNNER_PATH, false, probe.string(), 60).out);
  ASSERT_EQ(device.status, "ok") << device.reason;
  std::int64_t max_alloc = device.device["max_alloc_bytes"].get<std::int64_t>();
  std::int64_t limit = std::min<std::int64_t>(max_alloc, std::int64_t(2) << 30);
  fs::path script = dir_ / "limited.sh";
  std::ofstream(script) << fmt::format("#!/bin/sh\nulimit -v {}\nexec '{}' \"$@\"\n", limit / 1024, LIFTC_RUNNER_PATH);
  fs::permissions(script, fs::perms::owner_all);
  fs::path small = dir_ / "small", large = dir_ / "large";
  for (const fs::path& dir : {small, large})
    write_bundle(dir.string(), test::add_kernel("if (i < n) out[i] = a[i] + b[i];"), add_plan(), expected_sum(), {});
  // A scratch buffer of the limit less 1 MiB (no input file to write).
  edit_bundle(large, "buffer out f32 64 output\n", fmt::format("buffer out f32 64 output\nbuffer big f32 {} scratch\n",
                                                                 (limit - (1 << 20)) / 4));
  RunnerAnswer first = parse_runner_answer(run_worker(script.string(), false, small.string(), 60).out);
  if (first.status != "ok") GTEST_SKIP() << "the runner cannot run a small bundle in " << limit << " bytes: " << first.reason;
  WorkerResult w = run_worker(script.string(), false, large.string(), 60);
  ASSERT_EQ(w.end, WorkerResult::End::Exited) << w.err;
  RunnerAnswer a = parse_runner_answer(w.out);
  EXPECT_EQ(a.status, "run") << a.reason;
  EXPECT_EQ(a.reason, "the runner ran out of host memory for this bundle's buffers");
  ServeWorker served(script.string());
  for (const fs::path& dir : {large, small}) {
    WorkerResult s = served.run(dir.string(), 60);
    ASSERT_EQ(s.end, WorkerResult::End::Exited) << dir << ": " << s.err;
    EXPECT_EQ(parse_runner_answer(s.out).status, dir == large ? "run" : "ok") << dir;
  }
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
      // Issue 20: the line, then a hang. The wait is not counted up to timeout x the most
      // runners run at once (1 here): killed after 1.5 + 1.5 s.
      {"waiting for the lock for ever", "echo 'liftc-runner: waiting for the device lock' >&2; sleep 30; true", true},
  };
  for (const auto& c : cases) {
    WorkerResult w = run_worker(c.script, true, "/tmp", 1.5);
    EXPECT_EQ(w.end == WorkerResult::End::TimedOut, c.timed_out) << c.what << " (" << w.seconds << " s)";
    EXPECT_LT(w.seconds, 10) << c.what;
  }
}

TEST(Worker, AWaitForTheLockIsNotCountedOnlyUpToTimeoutTimesTheRunnersAtOnce) {
  WorkerResult w = run_worker("echo 'liftc-runner: waiting for the device lock' >&2; sleep 30; true", true, "/tmp", 1);
  EXPECT_EQ(w.end, WorkerResult::End::TimedOut);
  EXPECT_GT(w.seconds, 1.9);
  EXPECT_LT(w.seconds, 6);
  EXPECT_NEAR(w.lock_wait_s, 1.0, 0.05);
  EXPECT_EQ(describe_end(w, 1), "timed out after 1 s (killed by the watchdog; 1.0 s waiting for the device lock not counted)");
}

// Issue 20: a runner printing without end took liftc's memory; now it is killed after 1 MiB
// and holds no answer, whatever it printed.
TEST(Worker, ARunnerFloodingItsStdoutIsKilled) {
  for (const char* script : {"yes", "yes '{\"protocol\":1,\"machine\":\"x86_64\",\"status\":\"ok\",\"samples_ms\":[1]}'",
                             "head -c 2000000 /dev/zero; true"}) {
    WorkerResult w = run_worker(script, true, "/tmp", 60);
    EXPECT_EQ(w.end, WorkerResult::End::Flooded) << script;
    EXPECT_EQ(w.out, "") << script;
    EXPECT_LT(w.seconds, 30) << script;
    EXPECT_EQ(describe_end(w, 60), "printed more than 1 MiB on stdout (killed)") << script;
    EXPECT_THROW(parse_runner_answer(w.out), Error) << script;
  }
  // Just under the limit is read whole.
  WorkerResult w = run_worker("head -c 1048576 /dev/zero | tr '\\0' x; true", true, "/tmp", 60);
  EXPECT_EQ(w.end, WorkerResult::End::Exited);
  EXPECT_EQ(w.out.size(), kMaxRunnerStdout);
}

TEST(Worker, ShellRunnersGetTheBundleAsOneArgument) {
  WorkerResult w = run_worker("printf '%s|'", true, "/tmp/a dir", 10);
  EXPECT_EQ(w.out, "/tmp/a dir|");
  WorkerResult missing = run_worker("/no/such/runner", false, "/tmp", 10);
  EXPECT_EQ(missing.code, 127);
}

// A sample is the run's span on the device's clock, from its first kernel's start to its
// last kernel's end, so the gaps between a candidate's kernels count (a deployed program pays
// them). Three launches of a kernel: on PoCL each launch after the first starts microseconds
// after its predecessor's end (2.2 µs a run against 0.8 µs of kernels on the 2-core machine),
// so the median sample is well above the kernels' medians summed, which it was about before.
TEST_F(RunnerTest, ASampleIsTheRunsSpanGapsBetweenItsKernelsIncluded) {
  runtime::LaunchPlan plan = add_plan();
  plan.kernels = {plan.kernels[0], plan.kernels[0], plan.kernels[0]};  // out = a + b, three times
  BundleSettings s;
  s.runs = 9;
  write_bundle(dir_.string(), add_kernel("if (i < n) out[i] = a[i] + b[i];"), plan, expected_sum(), s);
  WorkerResult w = run_worker(LIFTC_RUNNER_PATH, false, dir_.string(), 60);
  RunnerAnswer a = parse_runner_answer(w.out);
  ASSERT_EQ(a.status, "ok") << a.reason;
  ASSERT_EQ(a.samples_ms.size(), 9u);
  const nlohmann::json medians = nlohmann::json::parse(w.out).at("kernel_median_ms");
  ASSERT_EQ(medians.size(), 3u);
  double kernels = medians[0].get<double>() + medians[1].get<double>() + medians[2].get<double>();
  EXPECT_GT(a.median_ms, 1.1 * kernels) << "the median sample against the kernels' medians summed";
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
