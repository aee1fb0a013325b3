#pragma once
// Running a bundle in a child process with a watchdog: a fresh runner process per bundle
// (`run_worker`), or a persistent `liftc-runner --serve` child that keeps its OpenCL
// context from one bundle to the next (`ServeWorker`, `ServePool`). Either way a crash, a
// hang or a flood of output costs that candidate only: the next one runs in a new runner;
// a runner still running after the timeout, or past kMaxRunnerStdout of output, is killed
// with its process group, and so is every running runner's group when liftc gets SIGINT
// or SIGTERM.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace liftc::explore {

/// How a runner process ended.
struct WorkerResult {
  /// Flooded: it printed more than kMaxRunnerStdout on stdout for one bundle and was
  /// killed (`out` is then empty, so it holds no answer; `code` is 0). Lost: a queued
  /// candidate whose workers' leases expired kMaxTries times (queue.hpp; `code` is the
  /// number of leases). Stopped: killed because its caller asked (a stop request: the
  /// exploration's time budget ended); it has no result.
  enum class End { Exited, Signaled, TimedOut, Flooded, Lost, Stopped } end = End::Exited;
  int code = 0;             // exit code, the signal number, or the leases of a lost one
  std::string out;          // what it printed on stdout
  std::string err;          // the last few KiB of stderr
  double seconds = 0;       // wall time
  double lock_wait_s = 0;   // of which the watchdog did not count: waiting for the device lock
};

/// The most a runner may print on stdout for one bundle (an answer is a few KiB).
inline constexpr std::size_t kMaxRunnerStdout = std::size_t(1) << 20;

/// The lines a runner prints (on stdout or stderr) when it starts waiting for the device
/// lock and when it holds it: the watchdog does not count the time between them, up to
/// timeout x the most runners this process has run at once (each runner ahead in the
/// queue holds the lock for at most one timeout before its own watchdog kills it), so a
/// runner that prints the first line and hangs is still killed.
inline constexpr const char* kLockWaitLine = "liftc-runner: waiting for the device lock";
inline constexpr const char* kLockHeldLine = "liftc-runner: holding the device lock";

/// The local runner: $LIFTC_RUNNER when set, else liftc-runner beside the running liftc.
std::string default_runner();

/// Set from another thread, a stop request ends a running runner within kStopWithin: it is
/// killed, and the result is End::Stopped.
using StopFlag = std::atomic<bool>;
inline constexpr std::chrono::milliseconds kStopWithin{100};

/// Runs `runner BUNDLE_DIR` (`runner` is one executable path when `shell` is false, else
/// a shell command line to which the bundle folder is appended as one argument) and waits
/// at most `timeout_s` seconds, not counting the time it waits for the device lock, or
/// until `stop_request` (may be null) is set. Safe to call from several threads at once.
WorkerResult run_worker(const std::string& runner, bool shell, const std::string& bundle_dir, double timeout_s,
                        const StopFlag* stop_request = nullptr);

/// A persistent `RUNNER --serve` child (RUNNER: one executable path) that runs bundle after
/// bundle, keeping the OpenCL platform, device, context and queue open between them. It is
/// started by the first `run`; a run that crashes it or times out ends it (the result says
/// so as `run_worker`'s would) and the next run starts a fresh one. One thread at a time.
class ServeWorker {
 public:
  explicit ServeWorker(std::string runner);
  /// Ends the child: its stdin closes (a serving runner then exits), SIGKILL after 5 s.
  ~ServeWorker();
  ServeWorker(const ServeWorker&) = delete;
  ServeWorker& operator=(const ServeWorker&) = delete;

  /// Sends `bundle_dir` and waits for the answer line with `run_worker`'s watchdog (at most
  /// `timeout_s` seconds not counting the wait for the device lock). An answered bundle is
  /// End::Exited with code 0 and the answer line in `out` (after any other lines the runner
  /// printed for it); `err` holds what it printed on stderr for this bundle only. A set
  /// `stop_request` ends the child as a timeout does.
  WorkerResult run(const std::string& bundle_dir, double timeout_s, const StopFlag* stop_request = nullptr);

  /// The process id of the running child (0 when there is none).
  int pid() const;

 private:
  struct Child;
  void start();
  int stop(bool kill_now);  // ends the child, returns its wait status

  std::string runner_;
  std::unique_ptr<Child> child_;
};

/// ServeWorkers shared by threads that run bundles at once: a run takes a worker no other
/// thread is using (of those whose runner is alive, the one used last), or makes a new one
/// when all are busy, so N threads at once never need more than N workers. Safe to call
/// from several threads at once.
class ServePool {
 public:
  explicit ServePool(std::string runner);
  /// Waits for the runners still opening the device for warm().
  ~ServePool();
  ServePool(const ServePool&) = delete;
  ServePool& operator=(const ServePool&) = delete;

  WorkerResult run(const std::string& bundle_dir, double timeout_s, const StopFlag* stop_request = nullptr);
  /// Starts `n` workers now, each running the probe bundle in `probe_dir` on a thread of its
  /// own, so that their runners open the device while the caller does other work (a serving
  /// runner keeps what a bundle opened for the next). From then on the pool holds at most `n`
  /// workers: a run that finds none idle while `n` exist waits for one.
  void warm(std::size_t n, const std::string& probe_dir, double timeout_s);
  /// The workers made so far.
  std::size_t size() const;
  /// The runner each worker starts.
  const std::string& runner() const { return runner_; }

 private:
  std::string runner_;
  mutable std::mutex mutex_;
  std::condition_variable freed_;  // a worker went back to idle_
  std::vector<std::unique_ptr<ServeWorker>> workers_;
  std::vector<ServeWorker*> idle_;
  std::size_t most_ = 0;  // at most this many workers (warm); 0: no limit
  std::vector<std::thread> warming_;
};

/// "killed by signal 11 (Segmentation fault)", "exited with code 3", "timed out after 10 s
/// (killed by the watchdog)", "printed more than 1 MiB on stdout (killed)", "lost with
/// its worker 3 times (...)".
std::string describe_end(const WorkerResult& r, double timeout_s);

/// The last lines a runner printed on stderr, as one line for a row's reason: at most
/// kStderrTailLines non-blank lines and kStderrTailBytes bytes (the end kept), the lock
/// lines left out, lines joined by " | ", control characters shown as '?'; "" when none.
/// (A runner the driver aborts, as PoCL without `ld` on PATH, says why only there.)
std::string stderr_tail(const std::string& err);
inline constexpr std::size_t kStderrTailLines = 3;
inline constexpr std::size_t kStderrTailBytes = 300;

}  // namespace liftc::explore
