#pragma once
// The results store, append-only (rows are inserted, never changed or deleted). Every
// evaluation is one row, failures included with their reason, keyed by a hash of what was
// run (kernel source, launch plan, device, driver, input shapes) and stamped with the liftc
// version and the time. A candidate whose key is already there is served from the store; a
// run's configuration is stored so `--resume` can continue it; interpreter references are
// stored so each is computed once per program, shape and seed.
// Tables: runs, run_ends, evaluations, refs (see src/explore/README.md for the columns).
// `Store` is the interface the rest of liftc uses; its backends are a SQLite file
// (sqlite_store.hpp, the embedded default: `--db FILE`) and a PostgreSQL database
// (postgres_store.hpp: `--db postgresql://...`), chosen by Store::open from the name.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "liftc/interp/interp.hpp"
#include "liftc/support/version.hpp"

namespace liftc::explore {

/// The liftc version recorded with every run and row: the build's (liftc::build_version(),
/// `git describe` at configure time).
inline const char* const kLiftcVersion = build_version();

/// The format (schema version) of the stores this liftc writes. A SQLite store keeps it as
/// `PRAGMA user_version` (a store from before it was kept has 0 there, which is format 1), a
/// PostgreSQL store in its table liftc_schema. A store of a later format is refused, never
/// read or written; schema.cpp lists the formats and the steps from one to the next (format 2
/// added the work queue's tables, format 3 its workers and each run's shared files: queue.hpp).
inline constexpr int kStoreFormat = 3;

/// How an evaluation ended.
namespace status {
inline constexpr const char* Ok = "ok";            // validated and timed
inline constexpr const char* Cut = "cut";          // validated, timed once: slower than 5x the best
inline constexpr const char* Invalid = "invalid";  // refused before running (code generation, limits)
inline constexpr const char* Build = "build";      // the OpenCL compiler refused the kernels
inline constexpr const char* Run = "run";          // an OpenCL call failed while running
inline constexpr const char* Wrong = "wrong";      // outputs differ from the interpreter's
inline constexpr const char* Unwritten = "unwritten";  // output elements never written
inline constexpr const char* Canary = "canary";    // an out-of-bounds write hit a canary
inline constexpr const char* Timeout = "timeout";  // the watchdog killed the runner
inline constexpr const char* Crash = "crash";      // the runner died (signal or exit code)
inline constexpr const char* Runner = "runner";    // the runner's answer was not understood
}  // namespace status

/// Whether a status means the candidate computed the right values (ok or cut).
bool status_valid(const std::string& s);

/// One row of the evaluations table.
struct Evaluation {
  std::int64_t id = 0;        // row id (assigned by the store)
  std::int64_t run = 0;       // the run that evaluated it
  std::string key;            // hash of what was run
  std::string program;        // hash of the .sr text, sizes and seed (the replay key with `candidate`)
  std::string file;           // the .sr file as given
  std::string strategy;       // rewrite strategy
  std::int64_t alternative = 0;  // 1-based alternative of the strategy
  std::string point;          // "kappa=2,v=4,local_0=8"
  std::string status;         // see `status`
  std::string reason;         // why it failed; empty when ok
  double time_ms = 0;         // median of the timed runs (sum of all kernels); NaN when none
  double spread_ms = 0;       // half the range of the timed runs; NaN when none
  std::vector<double> samples_ms;  // every timed run
  // Each kernel's median time (ms), in launch order, as this run's runner answered it; not
  // stored (empty for a row read from a store). The model search composes points of the
  // kernels' best parameters from it (model_search.hpp).
  std::vector<double> kernel_ms;
  std::int64_t memory_bytes = 0;   // global memory of the memory plan
  std::string device;         // device name
  std::string driver;         // driver version
  std::string shapes;         // input shapes, "image=28x28x32,weights=..."
  double timeout_s = 0;       // the watchdog's limit it ran under; NaN: not run, or a store from before it was kept
  std::string machine;        // the runner machine's architecture (uname -m: "aarch64"); empty in a store from before it was kept
  // How long its runner took, as the explore loop timed it; NaN: not run, or a store from before it was kept.
  double seconds = 0;
  std::string version;        // liftc version
  std::string created;        // UTC time, ISO 8601
};

/// Whether `e` is a validated evaluation with a usable result: ok or cut, a time that is
/// finite and >= 0 and a memory >= 0. Only such rows are served as valid, told to a search
/// as successes or put on a front (a damaged or hand-made row with status ok and no time
/// is not).
bool valid_result(const Evaluation& e);

/// One exploration run's record.
struct RunRecord {
  std::int64_t id = 0;
  std::string started;   // UTC time
  std::string file;      // the .sr file
  std::string config;    // the options as JSON (what --resume reads back)
  bool finished = false;
};

/// Which evaluations `Store::evaluations` returns: every one, or only those of a run, a
/// device, a program or input shapes (each given one must match).
struct EvaluationFilter {
  std::int64_t run = -1;  // the run's id; < 0: every run
  std::string device;     // the device name exactly as stored; empty: any
  std::string program;    // the .sr file as given, its file name ("conv.sr"), or the program hash; empty: any
  std::string shapes;     // text the input shapes contain ("image=28x28x32"); empty: any
};

/// An open results store: the interface every backend implements and every user of a store
/// (explore, `liftc results`, deploy) sees.
class Store {
 public:
  /// Opens (creating when missing) the store named `db` for writing: a PostgreSQL URL
  /// (postgresql://... or postgres://...) or else the path of a SQLite file. A liftc::Error
  /// when it is not a store, is of a later format (kStoreFormat), is damaged, or cannot be
  /// reached or written.
  static std::unique_ptr<Store> open(const std::string& db);
  /// Opens an existing store named `db` read-only; a liftc::Error when it is missing, not a
  /// store or of a later format.
  static std::unique_ptr<Store> open_existing(const std::string& db);

  virtual ~Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  /// Records the start of a run and locks it (see try_lock_run); returns its id.
  virtual std::int64_t begin_run(const std::string& file, const std::string& config_json) = 0;
  /// Locks run `id` for as long as this Store is open, so that no other process explores it
  /// at once; a lock the system drops when the process ends, even by kill -9. False when
  /// another open store, in any process, holds it.
  virtual bool try_lock_run(std::int64_t id) = 0;
  /// Records that run `id` finished.
  virtual void end_run(std::int64_t id) = 0;
  /// Every run, oldest first.
  virtual std::vector<RunRecord> runs() const = 0;
  /// The config of `run` as a JSON object; a liftc::Error when it is damaged (not JSON, or
  /// not an object).
  nlohmann::json run_config(const RunRecord& run) const;

  /// Appends one evaluation, stamped with this liftc's version and the time; `e`'s id,
  /// version and created are set to the stored row's (what pareto.json and evaluated.csv of
  /// this run then write). Returns its id.
  virtual std::int64_t add(Evaluation& e) = 0;
  /// The same for a row the caller does not keep.
  std::int64_t add(Evaluation&& e) { return add(e); }
  /// The first evaluation with `key`, if any.
  virtual std::optional<Evaluation> find(const std::string& key) const = 0;
  /// Every evaluation with `key`, oldest first.
  virtual std::vector<Evaluation> find_all(const std::string& key) const = 0;
  /// The latest evaluation of `candidate` ("strategy #alt: point") of `program`, for replay
  /// (a candidate tried again after a crash has the outcome of its last try).
  virtual std::optional<Evaluation> find_candidate(const std::string& program, const std::string& strategy,
                                                   std::int64_t alternative, const std::string& point) const = 0;
  /// The evaluations `filter` keeps, in insertion order.
  virtual std::vector<Evaluation> evaluations(const EvaluationFilter& filter) const = 0;
  /// Every evaluation (of run `run` when >= 0), in insertion order.
  std::vector<Evaluation> evaluations(std::int64_t run = -1) const {
    EvaluationFilter filter;
    filter.run = run;
    return evaluations(filter);
  }

  /// The stored interpreter reference under `key`, if any.
  virtual std::optional<interp::Tensors> reference(const std::string& key) const = 0;
  /// The keys of every stored reference, in order (of their text).
  virtual std::vector<std::string> reference_keys() const = 0;
  /// Stores a reference (kept if one is already there under `key`).
  virtual void put_reference(const std::string& key, const std::string& what, const interp::Tensors& outputs) = 0;

  /// The store's name in messages: its file, or its URL with any password hidden.
  const std::string& path() const { return path_; }

 protected:
  explicit Store(std::string path) : path_(std::move(path)) {}

 private:
  std::string path_;
};

/// Whether `db` names a PostgreSQL database (postgresql://... or postgres://...) rather than
/// a SQLite file.
bool is_database_url(const std::string& db);

/// `db` as messages show it: a URL with its password as `***` (hide_password), a path as given.
std::string shown_store_name(const std::string& db);

/// Each of `dbs` as shown_store_name shows it.
std::vector<std::string> shown_store_names(const std::vector<std::string>& dbs);

/// Whether `shown` (a shown_store_name) had a password, now `***`: it cannot be opened as it is.
bool password_hidden(const std::string& shown);

/// A 128-bit hash of `text` as 32 hex digits (two FNV-1a 64 lanes; not cryptographic, it
/// only tells runs apart).
std::string hash_text(const std::string& text);

/// The current UTC time, ISO 8601 ("2026-11-23T16:17:14Z").
std::string utc_now();

}  // namespace liftc::explore
