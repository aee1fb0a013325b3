#pragma once
// The work queue beside the results store: `liftc explore --workers` puts each candidate's
// bundle in the database instead of running it, `liftc worker` processes (on any machine
// that reaches the database) claim the bundles of their device kind, run them and write
// back how the runner ended; explore turns that into the candidate's row as it does a local
// runner's answer. Only a PostgreSQL store has a queue (claims are `SELECT ... FOR UPDATE
// SKIP LOCKED`); a SQLite file has the tables but no queue.
//
// A claim is a lease: the worker renews it (heartbeat) while its runner runs. A lease that
// expires (the worker killed, its machine lost) puts the candidate back in the queue; after
// kMaxTries expired leases the candidate ends as lost (a `crash` row), never a loop.
//
// Every worker registers itself (the table `workers`: host, pid, device, heartbeat,
// candidates done), so that `liftc worker --list` shows who works. A run's queue rows and
// the shared files only its candidates used are removed when the run ends (end_run).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace liftc::explore {

/// How many leases of one candidate may expire before it ends as lost (a crash row): a
/// candidate that kills its worker (a driver crash that takes the machine down) is tried
/// on this many workers, no more.
inline constexpr int kMaxTries = 3;

/// The device kind a candidate needs: the device name and driver as a store's rows (and
/// keys) have them. A worker claims only candidates of its own kind.
struct DeviceKind {
  std::string device, driver;
};

/// A candidate's bundle as the queue holds it (bundle_pack.hpp makes and unpacks it).
struct PackedBundle {
  std::string own;  // the bundle's own files (bundle.txt, kernels.cl, ...), packed
  std::vector<std::pair<std::string, std::string>> shared;  // (path in the bundle, content hash): stored once
  std::vector<std::pair<std::string, std::string>> contents;  // (content hash, bytes) of `shared`, for put
};

/// A claimed candidate: what a worker runs.
struct Claim {
  std::int64_t id = 0, run = 0;
  std::string key;
  double timeout_s = 60;  // the run's watchdog limit
  int tries = 0;          // leases so far, this one included
  PackedBundle bundle;    // without contents: read them with Queue::file
};

/// A worker as the table `workers` keeps it.
struct WorkerRecord {
  std::int64_t id = 0;
  std::string host;
  std::int64_t pid = 0;
  std::string device, driver;  // its device kind (what it claims)
  std::string runner;          // its --runner command, or "liftc-runner" (a serving one)
  double lease_s = 30;         // its leases: a heartbeat is due every third of it
  std::string started;         // UTC, ISO 8601
  std::int64_t done = 0;       // candidates it ran to an outcome
  std::optional<std::int64_t> current;  // the candidate it runs now (its queue id), if any
  std::string stopped;         // UTC when it stopped cleanly; empty while it runs (or was killed)
  double silent_s = 0;         // seconds since its last heartbeat, by the server's clock (read only)
  std::int64_t current_run = 0;  // the run of `current` while it is in the queue (read only)
};

/// How a queued candidate ended.
struct QueueOutcome {
  /// How the runner ended, as WorkerResult::End names it ("exited", "signaled",
  /// "timed_out", "flooded"), or "lost": kMaxTries leases expired.
  std::string ended;
  int code = 0;
  double seconds = 0;
  std::string answer;  // the runner's stdout
  std::string err;     // the tail of its stderr
  int tries = 0;
};

/// The queue of a store.
class Queue {
 public:
  /// The queue of the PostgreSQL store at `db` (its tables made as Store::open makes
  /// them). A liftc::Error when `db` is a SQLite file (`what` names the flag or command in
  /// the message), or the database cannot be reached or is of a later format.
  static std::unique_ptr<Queue> open(const std::string& db, const std::string& what);

  virtual ~Queue() = default;

  // The explorer's side.
  /// Queues a candidate of run `run` (key `key`) for a worker of `kind`; its shared files
  /// are stored once (by content). A candidate of the run with the key already in the queue
  /// (a resumed run's, not yet taken) is that one: its id is returned.
  virtual std::int64_t put(std::int64_t run, const std::string& key, const DeviceKind& kind, double timeout_s,
                           const PackedBundle& bundle) = 0;
  /// The outcome of candidate `id` once it has one; expired leases are handled first.
  virtual std::optional<QueueOutcome> outcome(std::int64_t id) = 0;
  /// Removes candidate `id` (its outcome is in the store).
  virtual void take(std::int64_t id) = 0;
  /// Run `run` ended: its queue rows (their outcomes are in the store; one still leased is
  /// dropped, and its worker's outcome is not written) and the shared files no other run's
  /// candidates use are removed.
  virtual void end_run(std::int64_t run) = 0;

  // A worker's side.
  /// Claims the oldest queued candidate of `kind` for `owner`, leased for `lease_s` seconds;
  /// expired leases are handled first. Nothing when none is queued.
  virtual std::optional<Claim> claim(const DeviceKind& kind, const std::string& owner, double lease_s) = 0;
  /// Renews `owner`'s lease of `id`; false when it holds it no more (it expired).
  virtual bool heartbeat(std::int64_t id, const std::string& owner, double lease_s) = 0;
  /// Writes the outcome of `id`; false (nothing written) when `owner` holds its lease no more.
  virtual bool finish(std::int64_t id, const std::string& owner, const QueueOutcome& outcome) = 0;
  /// Puts `id` back in the queue, this lease not counted (a worker stopping).
  virtual void give_back(std::int64_t id, const std::string& owner) = 0;
  /// The bytes of a shared file by its content hash; a liftc::Error when the queue has none.
  virtual std::string file(const std::string& hash) = 0;

  // Who works (the table `workers`).
  /// Registers worker `w` (its host, pid, device kind, runner, lease; started now, nothing
  /// done): its id.
  virtual std::int64_t join(const WorkerRecord& w) = 0;
  /// Worker `worker` is alive (its heartbeat, by the server's clock), running `current`
  /// (none: idle), with `done` candidates done.
  virtual void beat(std::int64_t worker, std::optional<std::int64_t> current, std::int64_t done) = 0;
  /// Worker `worker` stopped cleanly, `done` candidates done.
  virtual void leave(std::int64_t worker, std::int64_t done) = 0;
  /// Every worker that registered, oldest first (with its silent_s and current_run).
  virtual std::vector<WorkerRecord> workers() = 0;

  /// The queue's name in messages (its URL, any password hidden).
  virtual const std::string& name() const = 0;
};

}  // namespace liftc::explore
