// fork/exec of the runner with a watchdog (POSIX).

#include "liftc/explore/worker.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <string_view>

#include <fmt/format.h>

#include "liftc/support/diagnostic.hpp"

namespace liftc::explore {

std::string default_runner() {
  if (const char* env = std::getenv("LIFTC_RUNNER"); env && *env) return env;
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  std::filesystem::path beside = self.parent_path() / "liftc-runner";
  if (!ec && std::filesystem::exists(beside)) return beside.string();
  throw Error("cannot find liftc-runner beside liftc; set $LIFTC_RUNNER to its path or give --runner CMD");
}

WorkerResult run_worker(const std::string& runner, bool shell, const std::string& bundle_dir, double timeout_s) {
  int out_pipe[2], err_pipe[2];
  // Close-on-exec: runners started at once from other threads must not inherit this
  // runner's pipe ends (their reader would then wait for every one of them to exit).
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) throw Error(fmt::format("cannot start the runner: {}", std::strerror(errno)));
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) throw Error(fmt::format("cannot start the runner: {}", std::strerror(errno)));
  if (pid == 0) {
    setpgid(0, 0);  // its own group: the watchdog kills the runner and anything it started
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // and a liftc killed with -9 takes its runner along (the
                                       // forking thread waits for it, so its end is liftc's)
    if (getppid() == 1) _exit(127);    // the parent already died before the line above
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
  close(out_pipe[1]);
  close(err_pipe[1]);
  WorkerResult r;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  bool timed_out = false;
  char buffer[4096];
  // Time spent waiting for the device lock (between the runner's two marker lines) is not
  // counted: a runner waits there while another one is timed, or hangs.
  auto now = [] { return std::chrono::steady_clock::now(); };
  double paused = 0;
  bool waiting = false;
  auto waiting_since = now();
  std::string lines[2];  // the unfinished last line of each stream
  auto scan = [&](std::string& line, const char* data, std::size_t n) {
    line.append(data, n);
    for (std::size_t end; (end = line.find('\n')) != std::string::npos; line.erase(0, end + 1)) {
      std::string_view text(line.data(), end);
      if (!text.empty() && text.back() == '\r') text.remove_suffix(1);  // adb shell may end lines with CR LF
      if (text == kLockWaitLine && !waiting) waiting = true, waiting_since = now();
      if (text == kLockHeldLine && waiting) {
        paused += std::chrono::duration<double>(now() - waiting_since).count();
        waiting = false;
      }
    }
    if (line.size() > 4096) line.clear();
  };
  while (open_fds > 0) {
    double elapsed = std::chrono::duration<double>(now() - start).count() - paused;
    if (waiting) elapsed -= std::chrono::duration<double>(now() - waiting_since).count();
    int wait_ms = static_cast<int>(std::max(0.0, (timeout_s - elapsed) * 1000));
    if (elapsed >= timeout_s) {
      timed_out = true;
      break;
    }
    int n = poll(fds, 2, std::min(wait_ms, 1000));
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
      std::string& sink = i == 0 ? r.out : r.err;
      sink.append(buffer, static_cast<std::size_t>(got));
      scan(lines[i], buffer, static_cast<std::size_t>(got));
      if (i == 1 && sink.size() > 16384) sink.erase(0, sink.size() - 8192);
    }
  }
  if (timed_out) {
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (timed_out) {
    r.end = WorkerResult::End::TimedOut;
  } else if (WIFSIGNALED(status)) {
    r.end = WorkerResult::End::Signaled;
    r.code = WTERMSIG(status);
  } else {
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  return r;
}

std::string describe_end(const WorkerResult& r, double timeout_s) {
  switch (r.end) {
    case WorkerResult::End::TimedOut: return fmt::format("timed out after {:g} s (killed by the watchdog)", timeout_s);
    case WorkerResult::End::Signaled: return fmt::format("killed by signal {} ({})", r.code, strsignal(r.code));
    default: return fmt::format("exited with code {}", r.code);
  }
}

}  // namespace liftc::explore
