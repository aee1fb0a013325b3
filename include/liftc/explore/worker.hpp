#pragma once
// Running a bundle in a child process with a watchdog. Each bundle gets a fresh runner
// process (so a crash or a hang costs that candidate only: the next one starts a new
// runner); a runner still running after the timeout is killed with its process group.

#include <string>

namespace liftc::explore {

/// How a runner process ended.
struct WorkerResult {
  enum class End { Exited, Signaled, TimedOut } end = End::Exited;
  int code = 0;             // exit code, or the signal number
  std::string out;          // what it printed on stdout
  std::string err;          // the last few KiB of stderr
  double seconds = 0;       // wall time
};

/// The lines a runner prints (on stdout or stderr) when it starts waiting for the device
/// lock and when it holds it: the watchdog does not count the time between them.
inline constexpr const char* kLockWaitLine = "liftc-runner: waiting for the device lock";
inline constexpr const char* kLockHeldLine = "liftc-runner: holding the device lock";

/// The local runner: $LIFTC_RUNNER when set, else liftc-runner beside the running liftc.
std::string default_runner();

/// Runs `runner BUNDLE_DIR` (`runner` is one executable path when `shell` is false, else
/// a shell command line to which the bundle folder is appended as one argument) and waits
/// at most `timeout_s` seconds, not counting the time it waits for the device lock. Safe
/// to call from several threads at once.
WorkerResult run_worker(const std::string& runner, bool shell, const std::string& bundle_dir, double timeout_s);

/// "killed by signal 11 (Segmentation fault)", "exited with code 3", "timed out after 10 s".
std::string describe_end(const WorkerResult& r, double timeout_s);

}  // namespace liftc::explore
