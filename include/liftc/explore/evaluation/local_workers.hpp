#pragma once
// `liftc explore --workers N`: N `liftc worker` processes of this liftc started on this
// machine for the exploration's PostgreSQL store (queue.hpp, queue_worker.hpp), with its
// runner and device, and stopped when it ends. A worker outlives no explorer: each gets
// SIGTERM when the explorer ends, however it ends (even kill -9), and gives its candidate
// back to the queue.

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "liftc/explore/evaluation/evaluate.hpp"

namespace liftc::explore {

class LocalWorkers {
 public:
  /// Starts `count` workers of `db` running bundles as `options` says (runner, device,
  /// timeout); each one's stderr goes to `log_dir`/worker-N.log.
  LocalWorkers(std::size_t count, const std::string& db, const EvaluatorOptions& options, const std::string& log_dir);
  /// Stops them: SIGTERM, then SIGKILL to one still running 10 s later.
  ~LocalWorkers();
  LocalWorkers(const LocalWorkers&) = delete;
  LocalWorkers& operator=(const LocalWorkers&) = delete;

  /// A liftc::Error when every worker has ended (none is left to run what is queued),
  /// with the first one's end and the last line it wrote on stderr. Safe from any thread.
  void check();

 private:
  struct Worker {
    int pid = -1;
    std::string log;
    int status = 0;
    bool ended = false;
  };
  std::vector<Worker> workers_;
  std::mutex mutex_;
};

}  // namespace liftc::explore
