// fork/exec of the runner with a watchdog (POSIX): one process per bundle, or a serving runner kept between bundles.

#include "liftc/explore/evaluation/worker.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <future>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "liftc/support/diagnostic.hpp"
#include "liftc/support/interrupt_cleanup.hpp"

namespace liftc::explore {

std::string default_runner() {
  if (const char* env = std::getenv("LIFTC_RUNNER"); env && *env) return env;
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  std::filesystem::path beside = self.parent_path() / "liftc-runner";
  if (!ec && std::filesystem::exists(beside)) return beside.string();
  throw Error("cannot find liftc-runner beside liftc; set $LIFTC_RUNNER to its path or give --runner CMD");
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Runners running now in this process, and the most that ever ran at once (its --jobs).
std::atomic<int> runners_now{0}, runners_peak{0};

// Counts one runner as running while in scope.
class CountedRunner {
 public:
  CountedRunner() {
    int now = ++runners_now, peak = runners_peak.load();
    while (now > peak && !runners_peak.compare_exchange_weak(peak, now)) {
    }
  }
  ~CountedRunner() { --runners_now; }
  CountedRunner(const CountedRunner&) = delete;
  CountedRunner& operator=(const CountedRunner&) = delete;
};

// The watchdog's clock: the time since it started, less the time the runner waited for the
// device lock (between its two marker lines, on either stream): a runner waits there while
// another one is timed. That wait is not counted up to timeout x the most runners run at
// once: each runner ahead of it holds the lock at most one timeout (its own watchdog counts
// that), so a longer wait is a runner that printed the line and hangs, or another process
// holding the lock file, and it is killed.
class Watchdog {
 public:
  Watchdog(double timeout_s, const StopFlag* stop_request) : timeout_s_(timeout_s), stop_(stop_request) {}

  // Reads what stream `i` (0 stdout, 1 stderr) printed, looking for the marker lines.
  void scan(int i, const char* data, std::size_t n) {
    std::string& line = lines_[i];
    line.append(data, n);
    for (std::size_t end; (end = line.find('\n')) != std::string::npos; line.erase(0, end + 1)) {
      std::string_view text(line.data(), end);
      if (!text.empty() && text.back() == '\r') text.remove_suffix(1);  // adb shell may end lines with CR LF
      if (text == kLockWaitLine && !waiting_) waiting_ = true, waiting_since_ = Clock::now();
      if (text == kLockHeldLine && waiting_) {
        paused_ += seconds_since(waiting_since_);
        waiting_ = false;
      }
    }
    if (line.size() > 4096) line.clear();
  }
  // Seconds of waiting for the lock not counted (so far).
  double uncounted_s() const {
    double waited = paused_ + (waiting_ ? seconds_since(waiting_since_) : 0.0);
    return std::min(waited, timeout_s_ * std::max(1, runners_peak.load()));
  }
  // Seconds left before the timeout (<= 0: timed out).
  double left_s() const { return timeout_s_ - (seconds_since(start_) - uncounted_s()); }
  // Whether the caller asked the runner to stop.
  bool stopped() const { return stop_ && stop_->load(); }
  // How long poll may wait: until the timeout, at most 1 s (a lock wait may begin
  // meanwhile), or kStopWithin when the caller may ask it to stop.
  int poll_ms() const {
    double most_ms = stop_ ? double(kStopWithin.count()) : 1000.0;
    return static_cast<int>(std::clamp(left_s() * 1000, 0.0, most_ms));
  }

 private:
  double timeout_s_;
  const StopFlag* stop_;
  Clock::time_point start_ = Clock::now();
  double paused_ = 0;
  bool waiting_ = false;
  Clock::time_point waiting_since_ = start_;
  std::string lines_[2];  // the unfinished last line of each stream
};

// Waits for `pid` to end without reaping it, stops watching its group for SIGINT (the pid
// is still taken), then reaps it; returns its wait status.
int reap(pid_t pid) {
  siginfo_t info;
  while (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
  }
  forget_group_on_interrupt(pid);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// A runner starts with no signal blocked (`liftc worker` blocks SIGINT and SIGTERM in its
// own threads, and a blocked mask survives exec).
void unblock_signals() {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

// Keeps the last few KiB of a runner's stderr.
void append_err(std::string& err, const char* data, std::size_t n) {
  err.append(data, n);
  if (err.size() > 16384) err.erase(0, err.size() - 8192);
}

// The end of a runner process from its wait status.
void set_end(WorkerResult& r, int status) {
  if (WIFSIGNALED(status)) {
    r.end = WorkerResult::End::Signaled;
    r.code = WTERMSIG(status);
  } else {
    r.end = WorkerResult::End::Exited;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
}

// How a watched runner ended: killed by the watchdog, killed for flooding stdout, killed
// because the caller asked it to stop, or as its wait status says.
void finish(WorkerResult& r, bool timed_out, bool flooded, bool stopped, int status) {
  if (timed_out) {
    r.end = WorkerResult::End::TimedOut;
  } else if (flooded || stopped) {
    r.end = flooded ? WorkerResult::End::Flooded : WorkerResult::End::Stopped;
    r.out.clear();  // no answer: what it printed is not to be read as one
  } else {
    set_end(r, status);
  }
}

}  // namespace

WorkerResult run_worker(const std::string& runner, bool shell, const std::string& bundle_dir, double timeout_s,
                        const StopFlag* stop_request) {
  int out_pipe[2], err_pipe[2];
  // Close-on-exec: runners started at once from other threads must not inherit this
  // runner's pipe ends (their reader would then wait for every one of them to exit).
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) throw Error(fmt::format("cannot start the runner: {}", std::strerror(errno)));
  auto start = Clock::now();
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) throw Error(fmt::format("cannot start the runner: {}", std::strerror(errno)));
  if (pid == 0) {
    setpgid(0, 0);  // its own group: the watchdog kills the runner and anything it started
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // and a liftc killed with -9 takes its runner along (the
                                       // forking thread waits for it, so its end is liftc's)
    if (getppid() != parent) _exit(127);  // the parent already died before the line above
    unblock_signals();
    dup2(out_pipe[1], 1);  // dup2's copies are not close-on-exec
    dup2(err_pipe[1], 2);
    if (shell) {
      std::string line = runner + " \"$1\"";
      execl("/bin/sh", "sh", "-c", line.c_str(), "sh", bundle_dir.c_str(), static_cast<char*>(nullptr));
    } else {
      execl(runner.c_str(), runner.c_str(), bundle_dir.c_str(), static_cast<char*>(nullptr));
    }
    std::fprintf(stderr, "cannot run %s: %s\n", runner.c_str(), std::strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);
  kill_group_on_interrupt(pid);  // a liftc interrupted takes the runner and its children along
  CountedRunner counted;
  close(out_pipe[1]);
  close(err_pipe[1]);
  WorkerResult r;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  bool timed_out = false, flooded = false, stopped = false;
  char buffer[4096];
  Watchdog watchdog(timeout_s, stop_request);
  while (open_fds > 0 && !flooded) {
    if (watchdog.left_s() <= 0) {
      timed_out = true;
      break;
    }
    if (watchdog.stopped()) {
      stopped = true;
      break;
    }
    int n = poll(fds, 2, watchdog.poll_ms());
    if (n < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = read(fds[i].fd, buffer, sizeof buffer);
      if (got <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
        continue;
      }
      if (i == 0 && r.out.size() + static_cast<std::size_t>(got) > kMaxRunnerStdout) {
        flooded = true;
        break;
      }
      if (i == 0) r.out.append(buffer, static_cast<std::size_t>(got));
      else append_err(r.err, buffer, static_cast<std::size_t>(got));
      watchdog.scan(i, buffer, static_cast<std::size_t>(got));
    }
  }
  if (timed_out || flooded || stopped) {
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  int status = reap(pid);
  r.seconds = seconds_since(start);
  r.lock_wait_s = watchdog.uncounted_s();
  finish(r, timed_out, flooded, stopped, status);
  return r;
}

// A serving runner process: its pipes and the thread that forked it and waits for it.
struct ServeWorker::Child {
  pid_t pid = -1;
  int in = -1, out = -1, err = -1;  // our ends: its stdin (a socket: a write to a dead child fails, no SIGPIPE), stdout, stderr
  // Forked the child and waits for it to end: PR_SET_PDEATHSIG follows the thread that
  // forked, so that thread must live as long as the child (then a liftc killed with -9 takes
  // it along). It does not reap it: `stop` does, after any kill, so the pid killed is never
  // one the system gave to another process.
  std::thread reaper;
  std::mutex mutex;
  std::condition_variable ended_cv;
  bool ended = false;     // under `mutex`: the child ended (not reaped yet)
  bool answered = false;  // it answered a bundle already (a write that fails then means it died idle)

  bool has_ended() {
    std::lock_guard<std::mutex> lock(mutex);
    return ended;
  }
};

ServeWorker::ServeWorker(std::string runner) : runner_(std::move(runner)) {}

ServeWorker::~ServeWorker() {
  if (child_) stop(false);
}

int ServeWorker::pid() const { return child_ ? child_->pid : 0; }

void ServeWorker::start() {
  int in[2], out[2], err[2];
  // Close-on-exec, as run_worker's: children started from other threads must not hold these.
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0)
    throw Error(fmt::format("cannot start the runner: {}", std::strerror(errno)));
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    int e = errno;
    close(in[0]), close(in[1]);
    throw Error(fmt::format("cannot start the runner: {}", std::strerror(e)));
  }
  auto child = std::make_unique<Child>();
  Child* c = child.get();
  std::promise<pid_t> forked;
  std::future<pid_t> pid_of = forked.get_future();
  // Everything the child needs is ready before it forks (it may not allocate after fork).
  const char* path = runner_.c_str();
  pid_t parent = getpid();
  c->reaper = std::thread([c, forked = std::move(forked), path, parent, in, out, err]() mutable {
    pid_t pid = fork();
    if (pid == 0) {
      setpgid(0, 0);
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(127);
      unblock_signals();
      dup2(in[1], 0);
      dup2(out[1], 1);
      dup2(err[1], 2);
      execl(path, path, "--serve", static_cast<char*>(nullptr));
      std::fprintf(stderr, "cannot run %s: %s\n", path, std::strerror(errno));
      _exit(127);
    }
    if (pid > 0) setpgid(pid, pid);
    int fork_errno = errno;
    forked.set_value(pid < 0 ? -fork_errno : pid);
    if (pid < 0) return;
    siginfo_t info;
    while (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
    }
    std::lock_guard<std::mutex> lock(c->mutex);
    c->ended = true;
    c->ended_cv.notify_all();
  });
  pid_t pid = pid_of.get();
  close(in[1]), close(out[1]), close(err[1]);
  if (pid < 0) {
    c->reaper.join();
    close(in[0]), close(out[0]), close(err[0]);
    throw Error(fmt::format("cannot start the runner: {}", std::strerror(-pid)));
  }
  c->pid = pid;
  kill_group_on_interrupt(pid);
  c->in = in[0];
  c->out = out[0];
  c->err = err[0];
  child_ = std::move(child);
}

int ServeWorker::stop(bool kill_now) {
  Child& c = *child_;
  close(c.in);  // end of its stdin: a serving runner exits
  if (!kill_now) {
    std::unique_lock<std::mutex> lock(c.mutex);
    kill_now = !c.ended_cv.wait_for(lock, std::chrono::seconds(5), [&] { return c.ended; });
  }
  if (kill_now) {
    kill(-c.pid, SIGKILL);
    kill(c.pid, SIGKILL);
  }
  c.reaper.join();
  int status = reap(c.pid);  // it has ended: this only reaps it
  close(c.out);
  close(c.err);
  child_.reset();
  return status;
}

namespace {

// Reads what is in `fd` now, without waiting; false at its end, or after kMaxRunnerStdout
// bytes (a runner that keeps printing would otherwise keep this loop going).
bool drain(int fd, std::string* sink) {
  char buffer[4096];
  pollfd p{fd, POLLIN, 0};
  std::size_t total = 0;
  while (poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR))) {
    ssize_t got = read(fd, buffer, sizeof buffer);
    if (got <= 0) return false;
    if (sink) append_err(*sink, buffer, static_cast<std::size_t>(got));
    total += static_cast<std::size_t>(got);
    if (total > kMaxRunnerStdout) return false;
  }
  return true;
}

// Whether the answer, the last line of `out`, says the runner stopped waiting for its kernels
// and exits (`"stopped":true`).
bool stopped_answer(const std::string& out) {
  std::size_t end = out.find_last_not_of('\n');
  if (end == std::string::npos) return false;
  std::size_t start = out.rfind('\n', end);
  start = start == std::string::npos ? 0 : start + 1;
  nlohmann::json j = nlohmann::json::parse(out.substr(start, end + 1 - start), nullptr, false);
  auto stopped = j.is_object() ? j.find("stopped") : j.end();
  return j.is_object() && stopped != j.end() && stopped->is_boolean() && stopped->get<bool>();
}

// Writes all of `text` to the socket `fd`; false when the reader is gone.
bool send_all(int fd, const std::string& text) {
  for (std::size_t sent = 0; sent < text.size();) {
    ssize_t n = send(fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

WorkerResult ServeWorker::run(const std::string& bundle_dir, double timeout_s, const StopFlag* stop_request) {
  auto began = Clock::now();
  Watchdog watchdog(timeout_s, stop_request);
  if (child_ && child_->has_ended()) stop(true);  // it died between bundles: reaped, not blamed on this one
  if (child_ && !(drain(child_->out, nullptr) && drain(child_->err, nullptr))) stop(true);
  if (!child_) start();
  std::string line = bundle_dir + "\n";
  if (!send_all(child_->in, line) && child_->answered) {
    // It died between bundles just now: this bundle goes to a fresh one.
    stop(true);
    start();
    send_all(child_->in, line);  // a failure shows as the child's end below
  }
  WorkerResult r;
  CountedRunner counted;
  Child& c = *child_;
  pollfd fds[2] = {{c.out, POLLIN, 0}, {c.err, POLLIN, 0}};
  int open_fds = 2;
  bool timed_out = false, answered = false, flooded = false, stopped = false;
  std::string pending;  // stdout not yet looked at as lines
  std::size_t out_bytes = 0;  // stdout read for this bundle
  char buffer[4096];
  while (open_fds > 0 && !answered && !flooded) {
    if (watchdog.left_s() <= 0) {
      timed_out = true;
      break;
    }
    if (watchdog.stopped()) {
      stopped = true;
      break;
    }
    int n = poll(fds, 2, watchdog.poll_ms());
    if (n < 0 && errno != EINTR) break;
    for (int i = 0; i < 2 && !answered; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = read(fds[i].fd, buffer, sizeof buffer);
      if (got <= 0) {
        fds[i].fd = -1;  // closed with the child
        --open_fds;
        continue;
      }
      watchdog.scan(i, buffer, static_cast<std::size_t>(got));
      if (i == 1) {
        append_err(r.err, buffer, static_cast<std::size_t>(got));
        continue;
      }
      // The answer is the first whole line that is a protocol object; lines before it (a
      // driver's chatter) stay in `out` too.
      out_bytes += static_cast<std::size_t>(got);
      if (out_bytes > kMaxRunnerStdout) {
        flooded = true;
        break;
      }
      pending.append(buffer, static_cast<std::size_t>(got));
      for (std::size_t end; !answered && (end = pending.find('\n')) != std::string::npos; pending.erase(0, end + 1)) {
        r.out.append(pending, 0, end + 1);
        answered = pending.compare(0, 12, "{\"protocol\":") == 0;
      }
    }
  }
  if (answered) {
    // Its stderr for this bundle was written before the answer: it is in the pipe now.
    drain(c.err, &r.err);
    c.answered = true;
    // A runner that stopped waiting for its kernels exits after its answer (src/runner/README.md):
    // reaped here, so that the next bundle goes to a fresh one, not to one that is ending.
    if (stopped_answer(r.out)) stop(false);
    r.seconds = seconds_since(began);
    r.lock_wait_s = watchdog.uncounted_s();
    return r;
  }
  r.out += pending;
  int status = stop(timed_out || flooded || stopped);
  r.seconds = seconds_since(began);
  r.lock_wait_s = watchdog.uncounted_s();
  finish(r, timed_out, flooded, stopped, status);
  return r;
}

ServePool::ServePool(std::string runner) : runner_(std::move(runner)) {}

ServePool::~ServePool() {
  for (std::thread& t : warming_) t.join();
}

void ServePool::warm(std::size_t n, const std::string& probe_dir, double timeout_s) {
  std::lock_guard<std::mutex> lock(mutex_);
  most_ = n;
  for (std::size_t i = workers_.size(); i < n; ++i) {
    workers_.push_back(std::make_unique<ServeWorker>(runner_));
    ServeWorker* worker = workers_.back().get();
    // Its answer is not looked at: a runner that failed to open the device is replaced at
    // its first candidate (ServeWorker::run), which then reports why.
    warming_.emplace_back([this, worker, probe_dir, timeout_s] {
      worker->run(probe_dir, timeout_s);
      std::lock_guard<std::mutex> back(mutex_);
      idle_.push_back(worker);
      freed_.notify_one();
    });
  }
}

std::size_t ServePool::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return workers_.size();
}

WorkerResult ServePool::run(const std::string& bundle_dir, double timeout_s, const StopFlag* stop_request) {
  ServeWorker* worker = nullptr;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (most_ > 0 && workers_.size() >= most_) freed_.wait(lock, [this] { return !idle_.empty(); });
    if (idle_.empty()) {
      workers_.push_back(std::make_unique<ServeWorker>(runner_));
      worker = workers_.back().get();
    } else {
      // The one used last that still has its runner (a crash or a timeout ended the others').
      auto live = std::find_if(idle_.rbegin(), idle_.rend(), [](ServeWorker* w) { return w->pid() != 0; });
      auto it = live == idle_.rend() ? idle_.end() - 1 : std::prev(live.base());
      worker = *it;
      idle_.erase(it);
    }
  }
  struct GiveBack {
    ServePool& pool;
    ServeWorker* worker;
    ~GiveBack() {
      std::lock_guard<std::mutex> lock(pool.mutex_);
      pool.idle_.push_back(worker);
      pool.freed_.notify_one();
    }
  } give_back{*this, worker};
  return worker->run(bundle_dir, timeout_s, stop_request);
}

std::string stderr_tail(const std::string& err) {
  std::vector<std::string> lines;
  for (std::size_t end = err.size(); end > 0 && lines.size() < kStderrTailLines;) {
    std::size_t start = err.rfind('\n', end - 1);
    start = start == std::string::npos ? 0 : start + 1;
    std::string line = err.substr(start, end - start);
    end = start > 0 ? start - 1 : 0;
    for (char& c : line)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = c == '\t' || c == '\r' ? ' ' : '?';
    line.erase(0, line.find_first_not_of(' '));
    line.erase(line.find_last_not_of(' ') + 1);
    if (line.empty() || line == kLockWaitLine || line == kLockHeldLine) continue;
    lines.insert(lines.begin(), std::move(line));
  }
  std::string tail = fmt::format("{}", fmt::join(lines, " | "));
  if (tail.size() > kStderrTailBytes) {
    std::size_t from = tail.size() - (kStderrTailBytes - 3);
    while (from < tail.size() && (static_cast<unsigned char>(tail[from]) & 0xC0) == 0x80) ++from;  // not mid-character
    tail = "..." + tail.substr(from);
  }
  return tail;
}

std::string describe_end(const WorkerResult& r, double timeout_s) {
  switch (r.end) {
    case WorkerResult::End::TimedOut:
      return r.lock_wait_s > 0.05 ? fmt::format("timed out after {:g} s (killed by the watchdog; {:.1f} s waiting for the "
                                                "device lock not counted)", timeout_s, r.lock_wait_s)
                                  : fmt::format("timed out after {:g} s (killed by the watchdog)", timeout_s);
    case WorkerResult::End::Flooded:
      return fmt::format("printed more than {} MiB on stdout (killed)", kMaxRunnerStdout >> 20);
    case WorkerResult::End::Signaled: return fmt::format("killed by signal {} ({})", r.code, strsignal(r.code));
    case WorkerResult::End::Stopped:
      return "stopped by its caller (killed)";
    case WorkerResult::End::Lost:
      return fmt::format("lost with its worker {} times (each worker's lease expired: the worker was killed or its "
                         "machine lost)",
                         r.code);
    default: return fmt::format("exited with code {}", r.code);
  }
}

}  // namespace liftc::explore
