// The serving runner (`liftc-runner --serve`) and ServeWorker: bundles through one kept
// process answer as the one-shot runner does, from the same process with the context kept;
// a crash or a hang ends that process with the watchdog's verdict and the next bundle runs
// in a fresh one; the worker's protocol (a line in, a line out, stderr per bundle, the lock
// lines pausing the watchdog) against a stand-in script; the pool never shares a worker.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "liftc/explore/evaluation/bundle.hpp"
#include "liftc/explore/evaluation/worker.hpp"
#include "add_bundle.hpp"
#include "test_folder.hpp"

namespace liftc::explore {
namespace {

namespace fs = std::filesystem;

class Serve : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::fresh_test_folder("liftc_serve");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A bundle of the add kernel with `body`, in its own folder `name`.
  std::string bundle(const std::string& name, const std::string& body, BundleSettings s = {}) {
    std::string dir = (dir_ / name).string();
    write_bundle(dir, test::add_kernel(body), test::add_plan(), test::expected_sum(), s);
    return dir;
  }
  fs::path dir_;
};

// A reason with the temporary file names of a build log (PoCL: tempfile_q5E14b.cl) made equal.
std::string same_temp_names(const std::string& reason) {
  return std::regex_replace(reason, std::regex("tempfile_[A-Za-z0-9]+"), "tempfile_X");
}

std::vector<std::string> phase_names(const RunnerAnswer& a) {
  std::vector<std::string> out;
  for (const auto& [phase, ms] : a.phases_ms) out.push_back(phase);
  return out;
}

TEST_F(Serve, BundlesThroughOneProcessAnswerAsTheOneShotRunnerWithTheContextKept) {
  ServeWorker worker(LIFTC_RUNNER_PATH);
  EXPECT_EQ(worker.pid(), 0);  // started by the first run
  int pid = 0;
  bool first = true;
  for (const auto& c : test::kProtocolCases) {
    std::string dir = bundle(c.what, c.body);
    WorkerResult one_shot = run_worker(LIFTC_RUNNER_PATH, false, dir, 60);
    WorkerResult served = worker.run(dir, 60);
    ASSERT_EQ(served.end, WorkerResult::End::Exited) << c.what << ": " << served.err;
    EXPECT_EQ(served.code, 0) << c.what;
    EXPECT_EQ(std::count(served.out.begin(), served.out.end(), '\n'), 1) << c.what << ": one line\n" << served.out;
    RunnerAnswer a = parse_runner_answer(one_shot.out), s = parse_runner_answer(served.out);
    EXPECT_EQ(s.status, c.status) << c.what << ": " << s.reason;
    EXPECT_EQ(s.status, a.status) << c.what;
    EXPECT_EQ(same_temp_names(s.reason), same_temp_names(a.reason)) << c.what;
    EXPECT_EQ(s.device, a.device) << c.what;
    EXPECT_EQ(s.samples_ms.size(), a.samples_ms.size()) << c.what;
    EXPECT_EQ(s.cut, a.cut) << c.what;
    EXPECT_EQ(phase_names(s), phase_names(a)) << c.what;
    // The one-shot answer is as before: no pid, no reused_context.
    EXPECT_EQ(one_shot.out.find("\"pid\""), std::string::npos) << one_shot.out;
    EXPECT_EQ(a.pid, 0);
    // One process, its context opened once.
    if (first) pid = worker.pid();
    EXPECT_EQ(s.pid, pid) << c.what;
    EXPECT_EQ(worker.pid(), pid) << c.what;
    EXPECT_EQ(s.reused_context, !first) << c.what;
    first = false;
  }
  EXPECT_NE(pid, 0);
  // A bundle that asks for the device by another selection opens it again, in the same process.
  BundleSettings by_index;
  by_index.device = "0";
  RunnerAnswer again = parse_runner_answer(worker.run(bundle("by-index", "if (i < n) out[i] = a[i] + b[i];", by_index), 60).out);
  EXPECT_EQ(again.status, "ok") << again.reason;
  EXPECT_EQ(again.pid, pid);
  EXPECT_FALSE(again.reused_context);
  RunnerAnswer kept = parse_runner_answer(worker.run(bundle("by-index-2", "if (i < n) out[i] = a[i] + b[i];", by_index), 60).out);
  EXPECT_TRUE(kept.reused_context);
  // A malformed bundle is the runner status, and the process goes on.
  fs::create_directories(dir_ / "malformed");
  std::ofstream(dir_ / "malformed/bundle.txt") << "liftc-bundle 1\nbuffer x f64 4 input\n";
  WorkerResult bad = worker.run((dir_ / "malformed").string(), 60);
  EXPECT_EQ(bad.end, WorkerResult::End::Exited);
  EXPECT_EQ(parse_runner_answer(bad.out).status, "runner");
  EXPECT_EQ(worker.pid(), pid);
}

struct EndCase {
  const char* what;
  const char* body;
  WorkerResult::End end;
  const char* described;  // part of describe_end
};

// (b) and (c): a crash or a hang ends the serving process with the verdict run_worker gives;
// the next bundle runs, in a new process.
TEST_F(Serve, ACrashOrAHangEndsTheProcessAndTheNextBundleRunsInANewOne) {
  const EndCase cases[] = {
      {"crash", test::kCrashingBody, WorkerResult::End::Signaled, "killed by signal"},
      {"hang", test::kHangingBody, WorkerResult::End::TimedOut, "timed out after 3 s"},
  };
  ServeWorker worker(LIFTC_RUNNER_PATH);
  const std::string ok_body = "if (i < n) out[i] = a[i] + b[i];";
  for (const auto& c : cases) {
    RunnerAnswer before = parse_runner_answer(worker.run(bundle(fmt::format("{}-before", c.what), ok_body), 60).out);
    ASSERT_EQ(before.status, "ok") << c.what << ": " << before.reason;
    WorkerResult w = worker.run(bundle(c.what, c.body), 3);
    EXPECT_EQ(w.end, c.end) << c.what << ": " << w.out << w.err;
    EXPECT_NE(describe_end(w, 3).find(c.described), std::string::npos) << c.what << ": " << describe_end(w, 3);
    EXPECT_LT(w.seconds, 20) << c.what;
    EXPECT_EQ(worker.pid(), 0) << c.what << ": the process was not ended";
    WorkerResult next = worker.run(bundle(fmt::format("{}-after", c.what), ok_body), 60);
    ASSERT_EQ(next.end, WorkerResult::End::Exited) << c.what << ": " << next.err;
    RunnerAnswer after = parse_runner_answer(next.out);
    EXPECT_EQ(after.status, "ok") << c.what << ": " << after.reason;
    EXPECT_NE(after.pid, before.pid) << c.what;
    EXPECT_FALSE(after.reused_context) << c.what;
    EXPECT_EQ(after.pid, worker.pid()) << c.what;
  }
}

// A runner whose caller asks it to stop (explore's time budget ended) is killed at once, not
// at the watchdog's 60 s, and has no answer; a serving worker's next bundle runs in a new
// process. A stop request never made changes nothing.
TEST_F(Serve, ARunnerAskedToStopIsKilledAtOnceAndTheNextBundleRunsInANewProcess) {
  ServeWorker worker(LIFTC_RUNNER_PATH);
  const std::string ok_body = "if (i < n) out[i] = a[i] + b[i];";
  StopFlag never{false};
  RunnerAnswer before = parse_runner_answer(worker.run(bundle("before", ok_body), 60, &never).out);
  ASSERT_EQ(before.status, "ok") << before.reason;
  for (bool serving : {false, true}) {
    StopFlag stop{false};
    std::thread caller([&stop] {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      stop = true;
    });
    std::string hang = bundle(serving ? "hang-served" : "hang", test::kHangingBody);
    WorkerResult w = serving ? worker.run(hang, 60, &stop) : run_worker(LIFTC_RUNNER_PATH, false, hang, 60, &stop);
    caller.join();
    EXPECT_EQ(w.end, WorkerResult::End::Stopped) << serving << ": " << w.out << w.err;
    EXPECT_TRUE(w.out.empty()) << serving;
    EXPECT_LT(w.seconds, 10) << serving;
    EXPECT_EQ(describe_end(w, 60), "stopped by its caller (killed)");
  }
  EXPECT_EQ(worker.pid(), 0) << "the stopped runner was not ended";
  RunnerAnswer after = parse_runner_answer(worker.run(bundle("after", ok_body), 60, &never).out);
  EXPECT_EQ(after.status, "ok") << after.reason;
  EXPECT_NE(after.pid, before.pid);
}

// A serving runner that stops waiting for a kernel past the cut-off answers, then exits; the
// worker reaps it, and the next bundle runs in a fresh process (not in the ending one, which
// would read the bundle and die with it).
TEST_F(Serve, AKernelPastTheCutOffIsAnsweredCutAndTheNextBundleRunsInANewProcess) {
  ServeWorker worker(LIFTC_RUNNER_PATH);
  const std::string ok_body = "if (i < n) out[i] = a[i] + b[i];";
  RunnerAnswer before = parse_runner_answer(worker.run(bundle("before", ok_body), 60).out);
  ASSERT_EQ(before.status, "ok") << before.reason;
  BundleSettings s;
  s.cutoff_ms = 300;
  WorkerResult w = worker.run(bundle("slow", test::kHangingBody, s), 60);
  ASSERT_EQ(w.end, WorkerResult::End::Exited) << w.out << w.err;
  EXPECT_LT(w.seconds, 15) << "waited for the watchdog";
  RunnerAnswer slow = parse_runner_answer(w.out);
  EXPECT_EQ(slow.status, "ok");
  EXPECT_TRUE(slow.cut && slow.stopped) << w.out;
  EXPECT_EQ(slow.pid, before.pid);
  EXPECT_EQ(worker.pid(), 0) << "the runner that stopped waiting was not reaped";
  WorkerResult next = worker.run(bundle("after", ok_body), 60);
  ASSERT_EQ(next.end, WorkerResult::End::Exited) << next.err;
  RunnerAnswer after = parse_runner_answer(next.out);
  EXPECT_EQ(after.status, "ok") << after.reason;
  EXPECT_NE(after.pid, before.pid);
  EXPECT_FALSE(after.reused_context);
}

TEST_F(Serve, TheRawProtocolALineInALineOutEndOfInputExitsZero) {
  std::string dir = bundle("raw", "if (i < n) out[i] = a[i] + b[i];");
  // Two bundles, an empty line between them (skipped), then the end of stdin.
  std::string command = fmt::format("f() {{ printf '%s\\n\\n%s\\n' \"$1\" \"$1\" | '{}' --serve; }}; f", LIFTC_RUNNER_PATH);
  WorkerResult w = run_worker(command, true, dir, 60);
  EXPECT_EQ(w.end, WorkerResult::End::Exited);
  EXPECT_EQ(w.code, 0) << w.err;
  ASSERT_EQ(std::count(w.out.begin(), w.out.end(), '\n'), 2) << w.out;
  RunnerAnswer second = parse_runner_answer(w.out);  // the last line
  RunnerAnswer first = parse_runner_answer(w.out.substr(0, w.out.find('\n') + 1));
  EXPECT_EQ(first.status, "ok");
  EXPECT_FALSE(first.reused_context);
  EXPECT_TRUE(second.reused_context);
  EXPECT_EQ(first.pid, second.pid);
  EXPECT_GT(first.pid, 0);
}

// A stand-in serving runner: answers every line, and does what the folder's name says first.
const char* kScript = R"(#!/bin/sh
[ "$1" = --serve ] || exit 2
while read -r dir; do
  case "$dir" in *chatter*) echo "driver: hello" ;; esac
  echo "stderr of $dir" >&2
  case "$dir" in
    *exit3*) exit 3 ;;
    *lockwait*) echo 'liftc-runner: waiting for the device lock' >&2; sleep 2
                echo 'liftc-runner: holding the device lock' >&2 ;;
    *slow*) sleep 2 ;;
    *lockhang*) echo 'liftc-runner: waiting for the device lock' >&2; sleep 30 ;;
    *flood*) yes ;;
  esac
  echo "{\"protocol\":1,\"machine\":\"$(uname -m)\",\"status\":\"ok\",\"pid\":$$}"
  case "$dir" in *yesafter*) yes ;; esac
done
)";

struct ScriptCase {
  const char* bundle;
  WorkerResult::End end;
  int code;
  const char* err;      // all of its stderr ("" to skip the check)
  const char* out;      // all of its stdout before the answer line
  bool same_process;    // ran in the process of the case before
};

TEST_F(Serve, TheWorkersProtocolAgainstAStandInRunner) {
  fs::path script = dir_ / "serve.sh";
  std::ofstream(script) << kScript;
  fs::permissions(script, fs::perms::owner_all);
  const ScriptCase cases[] = {
      {"a", WorkerResult::End::Exited, 0, "stderr of a\n", "", false},
      {"b-chatter", WorkerResult::End::Exited, 0, "stderr of b-chatter\n", "driver: hello\n", true},
      {"c-lockwait", WorkerResult::End::Exited, 0, "", "", true},  // 2 s waiting for the lock: not counted
      {"d-slow", WorkerResult::End::TimedOut, 0, "stderr of d-slow\n", "", true},
      {"e", WorkerResult::End::Exited, 0, "stderr of e\n", "", false},
      {"f-exit3", WorkerResult::End::Exited, 3, "stderr of f-exit3\n", "", true},
      {"g", WorkerResult::End::Exited, 0, "stderr of g\n", "", false},
      // Issue 20: stdout without end (liftc ran out of memory) is killed after 1 MiB.
      {"h-flood", WorkerResult::End::Flooded, 0, "stderr of h-flood\n", "", true},
      {"i", WorkerResult::End::Exited, 0, "stderr of i\n", "", false},
      // The lock line, then a hang: the wait counts after timeout x the runners at once.
      {"j-lockhang", WorkerResult::End::TimedOut, 0, "", "", true},
      {"k", WorkerResult::End::Exited, 0, "stderr of k\n", "", false},
  };
  ServeWorker worker(script.string());
  int last_pid = 0;
  for (const auto& c : cases) {
    int pid_before = worker.pid();
    WorkerResult w = worker.run(c.bundle, 1.5);
    EXPECT_EQ(w.end, c.end) << c.bundle << " (" << w.seconds << " s)";
    EXPECT_LT(w.seconds, 10) << c.bundle;
    EXPECT_EQ(w.code, c.code) << c.bundle;
    if (*c.err) {
      EXPECT_EQ(w.err, c.err) << c.bundle;
    }
    if (c.end == WorkerResult::End::Exited && c.code == 0) {
      std::string answer = w.out.substr(w.out.find('{'));
      EXPECT_EQ(w.out.substr(0, w.out.find('{')), c.out) << c.bundle;
      int pid = std::stoi(answer.substr(answer.find("\"pid\":") + 6));
      EXPECT_EQ(pid, worker.pid()) << c.bundle;
      EXPECT_EQ(pid == last_pid, c.same_process) << c.bundle;
      last_pid = pid;
    } else {
      EXPECT_EQ(pid_before == last_pid && pid_before != 0, c.same_process) << c.bundle;
      EXPECT_EQ(worker.pid(), 0) << c.bundle;
    }
  }
}

// A runner that prints without end after it answered: the next bundle does not wait for
// the flood to end. Either the reading between bundles stops after 1 MiB and the bundle
// goes to a fresh runner, or the flood reaches that bundle and is its verdict; the bundle
// after it runs in a fresh runner either way.
TEST_F(Serve, ARunnerFloodingBetweenBundlesIsReplaced) {
  fs::path script = dir_ / "serve.sh";
  std::ofstream(script) << kScript;
  fs::permissions(script, fs::perms::owner_all);
  ServeWorker worker(script.string());
  ASSERT_EQ(worker.run("a-yesafter", 10).end, WorkerResult::End::Exited);
  int flooding = worker.pid();
  WorkerResult next = worker.run("b", 10);
  EXPECT_LT(next.seconds, 10);
  if (next.end == WorkerResult::End::Exited) {
    EXPECT_NE(worker.pid(), flooding);
  } else {
    EXPECT_EQ(next.end, WorkerResult::End::Flooded);
    WorkerResult after = worker.run("c", 10);
    EXPECT_EQ(after.end, WorkerResult::End::Exited);
    EXPECT_NE(worker.pid(), flooding);
  }
}

TEST_F(Serve, APoolNeverGivesOneWorkerToTwoThreadsAtOnce) {
  // Four threads, twice, through a pool of stand-ins that take 0.3 s a bundle: every answer
  // is its own bundle's (two threads on one worker would read each other's), at most four
  // workers, and the processes of the first round serve the second.
  fs::path script = dir_ / "serve.sh";
  std::ofstream(script) << "#!/bin/sh\nwhile read -r dir; do sleep 0.3; "
                           "echo \"{\\\"protocol\\\":1,\\\"machine\\\":\\\"$(uname -m)\\\",\\\"status\\\":\\\"runner\\\","
                           "\\\"reason\\\":\\\"$dir\\\",\\\"pid\\\":$$}\"; done\n";
  fs::permissions(script, fs::perms::owner_all);
  ServePool pool(script.string());
  std::set<std::int64_t> pids;
  for (int round = 0; round < 2; ++round) {
    std::vector<RunnerAnswer> answers(4);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] { answers[t] = parse_runner_answer(pool.run(fmt::format("bundle-{}-{}", round, t), 10).out); });
    for (auto& t : threads) t.join();
    for (int t = 0; t < 4; ++t) {
      EXPECT_EQ(answers[t].reason, fmt::format("bundle-{}-{}", round, t));
      pids.insert(answers[t].pid);
    }
  }
  EXPECT_LE(pool.size(), 4u);
  EXPECT_EQ(pids.size(), pool.size()) << "a worker's process was replaced";
}

}  // namespace
}  // namespace liftc::explore
