#pragma once
// `liftc worker`: one device's worker of the work queue (queue.hpp). It asks its runner for
// the device once (a probe, as explore does), then claims the candidates queued for that
// device kind (name and driver) by any exploration, unpacks each bundle into a folder of
// its own, runs it under the watchdog (a serving liftc-runner, or `--runner CMD` per
// bundle) and writes how the runner ended; its lease is renewed while the runner runs. It
// needs no program, rules or Z3: only the bundles and a runner. SIGINT or SIGTERM stops it
// cleanly: the runner is killed and the candidate it ran goes back to the queue.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "liftc/explore/store/queue.hpp"

namespace liftc::explore {

struct QueueWorkerOptions {
  std::string db;              // the PostgreSQL store (--db URL)
  std::string device;          // the runner's device selector (--device; "" = the first device)
  std::string runner;          // --runner CMD, run per bundle; empty: liftc-runner beside liftc, serving
  double probe_timeout_s = 60; // --timeout: the watchdog of the device probe (a candidate runs under its run's)
  double lease_s = 30;         // --lease: how long a claim holds without a heartbeat (renewed every third of it)
  double idle_s = 0.2;         // the wait between claims while the queue has nothing for it
  std::function<void(const std::string& line)> say;  // what it did, a line each (null: silent)
};

/// Works until SIGINT or SIGTERM (then returns the number of candidates it ran); a
/// liftc::Error, before any claim, when the runner is missing, the database cannot be
/// reached or is no PostgreSQL store, or the runner cannot open the device.
std::size_t run_queue_worker(const QueueWorkerOptions& options);

/// The workers of a store as `liftc worker --list` prints them, one line each (its id,
/// host:pid, device and driver, start, candidates done, and what it does: running a
/// candidate, idle, stopped, or lost: no heartbeat for longer than its lease), then how many
/// work now.
std::string workers_table(const std::vector<WorkerRecord>& workers);

}  // namespace liftc::explore
