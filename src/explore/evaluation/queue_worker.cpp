// `liftc worker`'s loop (queue_worker.hpp): probe, claim, unpack, run under the watchdog
// with a heartbeat, write the outcome; SIGINT and SIGTERM waited for on a thread of their
// own, so that stopping gives the lease back.

#include "liftc/explore/evaluation/queue_worker.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "liftc/explore/evaluation/bundle_pack.hpp"
#include "liftc/explore/evaluation/evaluate.hpp"
#include "liftc/explore/evaluation/worker.hpp"
#include "liftc/explore/store/queue.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/support/interrupt_cleanup.hpp"

namespace liftc::explore {

namespace {

namespace fs = std::filesystem;

// The runner this worker starts: checked before anything else (a missing one claims nothing).
void check_runner(const QueueWorkerOptions& o) {
  if (!o.runner.empty()) {
    if (o.runner.find_first_not_of(" \t") == std::string::npos) throw Error("liftc worker: --runner: the command is empty");
    if (runner_executable(o.runner)) return;
    std::string word = o.runner.substr(o.runner.find_first_not_of(" \t"));
    word = word.substr(0, word.find_first_of(" \t"));
    throw Error(fmt::format("liftc worker: --runner '{}': {}", o.runner,
                            word.find('/') != std::string::npos
                                ? fmt::format("{} is not an executable file", word)
                                : fmt::format("no executable '{}' (not a path, not on $PATH)", word)));
  }
  std::string runner = default_runner();
  if (access(runner.c_str(), X_OK) != 0)
    throw Error(fmt::format("liftc worker: the runner {} ($LIFTC_RUNNER) is not an executable file", runner));
}

// A folder of the worker's own under $TMPDIR, removed when it ends.
class TempFolder {
 public:
  TempFolder() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = (fs::path(tmp && *tmp ? tmp : "/tmp") / "liftc-worker-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw Error(fmt::format("liftc worker: cannot make a folder {}: {}", pattern, std::strerror(errno)));
    path_ = pattern;
  }
  ~TempFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// SIGINT and SIGTERM, blocked in every thread of the worker and waited for by one of its
// own: `on_signal` runs there (not in a signal handler: it may talk to the database).
class SignalWaiter {
 public:
  explicit SignalWaiter(std::function<void(int)> on_signal) : on_signal_(std::move(on_signal)) {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
    thread_ = std::thread([this] {
      timespec wait{0, 100'000'000};
      while (!done_) {
        int sig = sigtimedwait(&set_, nullptr, &wait);
        if (sig > 0) on_signal_(sig);
      }
    });
  }
  ~SignalWaiter() {
    done_ = true;
    thread_.join();
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  std::function<void(int)> on_signal_;
  sigset_t set_, old_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// Renews a lease, and the worker's own heartbeat, every third of the lease until stopped.
class Heartbeat {
 public:
  Heartbeat(Queue& queue, std::int64_t id, const std::string& owner, double lease_s, std::int64_t worker,
            std::int64_t done) {
    thread_ = std::thread([this, &queue, id, owner, lease_s, worker, done] {
      auto every = std::chrono::duration<double>(lease_s / 3);
      std::unique_lock<std::mutex> lock(mutex_);
      while (!cv_.wait_for(lock, every, [this] { return stop_; })) {
        lock.unlock();
        try {
          queue.heartbeat(id, owner, lease_s);  // a lease lost meanwhile: finish writes nothing
          queue.beat(worker, id, done);
        } catch (const Error&) {
          // the database unreachable for a moment: the next beat tries again
        }
        lock.lock();
      }
    });
  }
  ~Heartbeat() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

const char* ended_name(WorkerResult::End end) {
  switch (end) {
    case WorkerResult::End::Signaled: return "signaled";
    case WorkerResult::End::TimedOut: return "timed_out";
    case WorkerResult::End::Flooded: return "flooded";
    case WorkerResult::End::Lost: return "lost";
    default: return "exited";
  }
}

std::string host_name() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return host;
}

}  // namespace

std::size_t run_queue_worker(const QueueWorkerOptions& o) {
  auto say = [&](const std::string& line) {
    if (o.say) o.say(line);
  };
  check_runner(o);
  std::shared_ptr<Queue> queue = Queue::open(o.db, "liftc worker --db");
  TempFolder work;
  EvaluatorOptions probe;
  probe.runner = o.runner;
  probe.bundle.device = o.device;
  probe.timeout_s = o.probe_timeout_s;
  probe.work_dir = work.path();
  DeviceReport device = probe_device(probe);
  DeviceKind kind{device.name, device.driver};
  WorkerRecord me;
  me.host = host_name();
  me.pid = getpid();
  me.device = device.name;
  me.driver = device.driver;
  me.runner = o.runner.empty() ? "liftc-runner" : o.runner;
  me.lease_s = o.lease_s;
  std::string owner = fmt::format("{}:{}", me.host, me.pid);
  std::int64_t worker = queue->join(me);
  std::optional<ServeWorker> serving;
  if (o.runner.empty()) serving.emplace(default_runner());
  say(fmt::format("liftc worker {}: device {} (driver {}){}; claiming its candidates from {} (worker {} there)", owner,
                  device.name, device.driver, o.runner.empty() ? "" : fmt::format(", through --runner {}", o.runner),
                  queue->name(), worker));

  std::atomic<bool> stop{false};
  std::atomic<int> stopped_by{0};
  std::mutex held_mutex;
  std::optional<std::int64_t> held;  // the candidate whose lease this worker holds
  std::optional<std::int64_t> given_back;
  SignalWaiter signals([&](int sig) {
    stopped_by = sig;
    stop = true;
    std::lock_guard<std::mutex> lock(held_mutex);
    if (held) {
      try {
        queue->give_back(*held, owner);
        given_back = held;
      } catch (const Error&) {
        // unreachable: its lease expires instead, and it goes back to the queue then
      }
      held.reset();
      kill_registered_groups();  // the runner running it
    }
  });

  std::size_t ran = 0;
  std::string bundle = (fs::path(work.path()) / "bundle").string();
  std::string cache = (fs::path(work.path()) / "files").string();
  // The worker's row: beaten when it claims a candidate and every third of a lease while idle.
  auto beaten = std::chrono::steady_clock::now();
  auto beat = [&](std::optional<std::int64_t> current) {
    try {
      queue->beat(worker, current, static_cast<std::int64_t>(ran));
      beaten = std::chrono::steady_clock::now();
    } catch (const Error&) {
      // the database unreachable for a moment: the next claim says so, or the next beat works
    }
  };
  while (!stop) {
    std::optional<Claim> c;
    {
      std::lock_guard<std::mutex> lock(held_mutex);
      if (stop) break;
      c = queue->claim(kind, owner, o.lease_s);
      if (c) held = c->id;
    }
    if (!c) {
      if (std::chrono::steady_clock::now() - beaten > std::chrono::duration<double>(o.lease_s / 3)) beat(std::nullopt);
      std::this_thread::sleep_for(std::chrono::duration<double>(o.idle_s));
      continue;
    }
    beat(c->id);
    WorkerResult w;
    try {
      unpack_bundle(bundle, c->bundle, cache, [&](const std::string& hash) { return queue->file(hash); });
      retarget_bundle(bundle, o.device);
      if (stop) break;  // stopped while it claimed: given back already, nothing to run
      Heartbeat heartbeat(*queue, c->id, owner, o.lease_s, worker, static_cast<std::int64_t>(ran));
      w = serving ? serving->run(bundle, c->timeout_s) : run_worker(o.runner, true, bundle, c->timeout_s);
    } catch (const Error& e) {
      // A bundle this worker cannot unpack or start: the runner gave no answer.
      w.end = WorkerResult::End::Exited;
      w.code = 127;
      w.err = fmt::format("liftc worker {}: {}\n", owner, e.message());
    }
    std::lock_guard<std::mutex> lock(held_mutex);
    if (stop || !held) break;  // stopped meanwhile: given back, not finished
    bool written = queue->finish(c->id, owner, QueueOutcome{ended_name(w.end), w.code, w.seconds, w.out, w.err, c->tries});
    held.reset();
    ++ran;
    beat(std::nullopt);
    say(fmt::format("candidate {} of run {} (try {}): the runner {}{}", c->id, c->run, c->tries,
                    describe_end(w, c->timeout_s),
                    written ? "" : "; its lease had expired, the outcome was not written"));
  }
  try {
    queue->leave(worker, static_cast<std::int64_t>(ran));
  } catch (const Error&) {
    // unreachable: its row keeps its last heartbeat, and `liftc worker --list` says it is lost
  }
  say(fmt::format("liftc worker {}: stopped by {} after {} candidate(s){}", owner, strsignal(stopped_by.load()), ran,
                  given_back ? fmt::format("; candidate {} given back to the queue", *given_back) : std::string()));
  return ran;
}

std::string workers_table(const std::vector<WorkerRecord>& workers) {
  std::string out = fmt::format("{:>6}  {:<24} {:<40} {:<20} {:>5}  {}\n", "worker", "host:pid", "device (driver)",
                                "started", "done", "state");
  std::size_t working = 0;
  for (const auto& w : workers) {
    std::string state;
    if (!w.stopped.empty()) {
      state = fmt::format("stopped {}", w.stopped);
    } else if (w.silent_s > w.lease_s) {
      state = fmt::format("lost: no heartbeat for {:.0f} s (killed, or its machine lost)", w.silent_s);
    } else {
      ++working;
      state = w.current ? (w.current_run > 0 ? fmt::format("running candidate {} of run {}", *w.current, w.current_run)
                                             : fmt::format("running candidate {}", *w.current))
                        : "idle";
    }
    out += fmt::format("{:>6}  {:<24} {:<40} {:<20} {:>5}  {}{}\n", w.id, fmt::format("{}:{}", w.host, w.pid),
                       fmt::format("{} ({})", w.device, w.driver), w.started, w.done, state,
                       w.runner == "liftc-runner" ? "" : fmt::format(" [--runner {}]", w.runner));
  }
  return out + fmt::format("{} worker(s) working now, of {} registered\n", working, workers.size());
}

}  // namespace liftc::explore
