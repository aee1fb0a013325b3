// explore's own `liftc worker` processes (local_workers.hpp): fork/exec of this liftc.

#include "liftc/explore/evaluation/local_workers.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "liftc/support/diagnostic.hpp"

namespace liftc::explore {

namespace fs = std::filesystem;

namespace {

// The last non-blank line of the file at `path` ("" when none).
std::string last_line(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  return last;
}

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) return fmt::format("was killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  return fmt::format("exited with code {}", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

}  // namespace

LocalWorkers::LocalWorkers(std::size_t count, const std::string& db, const EvaluatorOptions& options,
                           const std::string& log_dir) {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error(fmt::format("--workers: cannot find this liftc's executable to start workers: {}", ec.message()));
  // The store's URL through the environment, not the command line: a password in it is not
  // shown to every user of the machine by ps.
  std::vector<std::string> args = {self.string(), "worker", "--device", options.bundle.device, "--timeout",
                                   fmt::format("{}", options.timeout_s), "--quiet"};
  if (!options.runner.empty()) args.insert(args.end(), {"--runner", options.runner});
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env = {"LIFTC_WORKER_DB=" + db};
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "LIFTC_WORKER_DB=", 16) != 0) env.emplace_back(*e);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t parent = getpid();
  for (std::size_t i = 0; i < count; ++i) {
    Worker w;
    w.log = (fs::path(log_dir) / fmt::format("worker-{}.log", i + 1)).string();
    int log = open(w.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log < 0) throw Error(fmt::format("--workers: cannot write {}: {}", w.log, std::strerror(errno)));
    pid_t pid = fork();
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGTERM);  // the explorer gone, however: the worker stops and gives its candidate back
      if (getppid() != parent) _exit(127);
      int null = open("/dev/null", O_RDWR);
      dup2(null, 0);
      dup2(null, 1);
      dup2(log, 2);
      execve(argv[0], argv.data(), envp.data());
      std::fprintf(stderr, "cannot run %s: %s\n", argv[0], std::strerror(errno));
      _exit(127);
    }
    close(log);
    if (pid < 0) throw Error(fmt::format("--workers: cannot start a worker: {}", std::strerror(errno)));
    w.pid = pid;
    workers_.push_back(std::move(w));
  }
}

LocalWorkers::~LocalWorkers() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (Worker& w : workers_)
    if (!w.ended) kill(w.pid, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (Worker& w : workers_) {
    while (!w.ended) {
      if (waitpid(w.pid, &w.status, WNOHANG) == w.pid) {
        w.ended = true;
        break;
      }
      if (std::chrono::steady_clock::now() > deadline) kill(w.pid, SIGKILL);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
}

void LocalWorkers::check() {
  std::lock_guard<std::mutex> lock(mutex_);
  bool all = true;
  for (Worker& w : workers_) {
    if (!w.ended && waitpid(w.pid, &w.status, WNOHANG) == w.pid) w.ended = true;
    all = all && w.ended;
  }
  if (!all || workers_.empty()) return;
  const Worker& first = workers_.front();
  std::string said = last_line(first.log);
  throw Error(fmt::format("--workers: every worker of this exploration ended, none is left to run its candidates "
                          "(worker 1 {}{})",
                          describe_status(first.status), said.empty() ? "" : ": " + said));
}

}  // namespace liftc::explore
