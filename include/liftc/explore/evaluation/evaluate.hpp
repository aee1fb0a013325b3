#pragma once
// Evaluating one candidate: instantiate the rewritten program at the point, generate the
// kernels and launch plan, check them against the device's limits, write a bundle, run it
// in a watched runner process (a serving runner kept between candidates, or a fresh
// process each), and record the outcome in the store (failures with their reason). A
// candidate whose key is in the store already is served from it when that row still
// holds (see `servable`). `start` splits an evaluation for the parallel loop: generation
// and the bundle on the loop's thread, the runner on a thread of its own.
//
// A key hashes what was run and how it was checked: the kernel source, the launch plan
// (with its build options), the device and driver, the input shapes, the program (its
// text, sizes and input seed: the reference the outputs are compared with), the
// tolerances and the runner (`runner_identity`). A row found under other tolerances, other
// inputs or by another runner has another key, so it is never served for this one.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "liftc/codegen/limits.hpp"
#include "liftc/codegen/module.hpp"
#include "liftc/constraints/target.hpp"
#include "liftc/explore/evaluation/bundle.hpp"
#include "liftc/explore/candidates/constraint_space.hpp"
#include "liftc/explore/search/loop.hpp"
#include "liftc/explore/search/searches.hpp"
#include "liftc/explore/store/queue.hpp"
#include "liftc/explore/store/store.hpp"
#include "liftc/explore/evaluation/worker.hpp"

namespace liftc::explore {

class GenerationMemo;

/// The program being explored: its inputs and its interpreter reference.
struct Problem {
  std::string file;              // the .sr file as given
  std::string program_hash;      // hash of the source text, sizes and input seed
  interp::Tensors inputs;        // random inputs from the seed
  interp::Tensors reference;     // the interpreter's outputs on them
  std::string shapes;            // "image=28x28x32,weights=32x3x3x32,..."
  bool reference_from_store = false;  // the reference was read back, not computed
  double reference_seconds = 0;       // time the interpreter took (0 when from the store)
};

/// Loads `file` at its declared sizes, makes random inputs from `seed` and computes the
/// reference, or reads it from `store` when it was computed before (a stored reference
/// whose outputs are not the program's is a liftc::Error: the store is damaged). With half
/// `storage` the reference is rounded where the buffers are stored (ir::Program::half) and
/// the program hash says so: the store keeps it apart from the float one.
Problem load_problem(const std::string& file, std::uint64_t seed, Store& store,
                     const codegen::StorageChoice& storage = {});

/// "image=28x28x32,weights=32x3x3x32,...": the Problem::shapes of `inputs`.
std::string shapes_text(const interp::Tensors& inputs);

/// The Problem::program_hash of `file` with inputs from `seed` (no reference computed).
std::string problem_hash(const std::string& file, std::uint64_t seed, const codegen::StorageChoice& storage = {});

/// The device a runner reported (a probe bundle's answer).
struct DeviceReport {
  std::string name, driver;
  std::string machine;    // the runner machine's architecture (uname -m: "aarch64", "x86_64")
  nlohmann::json limits;  // the runner's device object
  /// The resource limits of the device, for check_limits.
  codegen::Limits codegen_limits() const;
  /// The device as a constraints target.
  constraints::Target target() const;
};

/// Settings of the evaluations.
struct EvaluatorOptions {
  std::string runner;        // a shell command (`--runner CMD`, a process per candidate); empty: the local liftc-runner
  bool isolate = false;      // the local runner too in a fresh process per candidate (else serving runners, one per job)
  BundleSettings bundle;     // device, runs, tolerance (cutoff_ms is set per candidate)
  double timeout_s = 60;     // watchdog per candidate
  double cutoff_factor = 5;  // stop timing a candidate this much slower than the best
  std::string build_options; // --build-options: OpenCL compiler options for every candidate (after the mad parameter's)
  std::string work_dir;      // where bundles are written (each in candidate-N, removed once recorded)
  /// Called after a bundle is written and before the runner runs it (tests inject kernels).
  std::function<void(const std::string& bundle_dir, std::size_t evaluation)> bundle_hook;
  /// --workers: every bundle is put in this work queue and run by a `liftc worker` of the
  /// device's kind, instead of a runner here; its outcome becomes the row as a local
  /// runner's does. Null: runners here.
  std::shared_ptr<Queue> queue;
  /// Called while a queued candidate waits (about 5 times a second); a liftc::Error from it
  /// ends the exploration (explore's own workers all ended).
  std::function<void()> queue_check;
  /// The model-guided search's candidates generated once for their features and their
  /// evaluation (generation_memo.hpp: made for the space evaluated, with `build_options`).
  /// Null: each candidate generated here.
  std::shared_ptr<GenerationMemo> generations;
  /// Serving runners shared with other Evaluators of the same runner and device (a network's
  /// layers: serving_pool), so that each does not open the device afresh in --jobs new
  /// processes. Null: the Evaluator makes its own (none where a runner is a process per
  /// candidate: --runner, --isolate).
  std::shared_ptr<ServePool> pool;
};

/// The serving runners for Evaluators of `options`: null where each candidate gets a
/// process of its own (a --runner command, --isolate).
std::shared_ptr<ServePool> serving_pool(const EvaluatorOptions& options);

/// Puts the bundle folder `dir` in `queue` as run `run`'s candidate `key` for a worker of
/// `kind`, waits for its outcome (calling `check` while it waits) and gives it as the
/// runner's end (WorkerResult::End::Lost when its workers were lost kMaxTries times); sets
/// `*id` to its queue id.
WorkerResult run_queued(Queue& queue, std::int64_t run, const std::string& key, const DeviceKind& kind,
                        double timeout_s, const std::string& dir, const std::function<void()>& check, std::int64_t* id);

/// Asks the runner which device it runs on (a probe bundle through the same path, written
/// in probe_bundle_dir and left there: ServePool::warm runs it again).
DeviceReport probe_device(const EvaluatorOptions& options);

/// Where probe_device writes its probe bundle: `probe` in the work folder.
std::string probe_bundle_dir(const EvaluatorOptions& options);

/// The executable a `--runner` command starts: its first word as a path, or found on
/// $PATH; nothing when there is no such executable file.
std::optional<std::string> runner_executable(const std::string& command);

/// What identifies the runner of `options` in a key: the command (or "liftc-runner" for
/// the local one) and a hash of its executable's bytes, so results of another runner, or
/// of the same one rebuilt, are not served. A script's own children are not followed.
std::string runner_identity(const EvaluatorOptions& options);

/// Whether a stored row may stand for a new evaluation of its key under a watchdog of
/// `timeout_s`: a valid result (valid_result), or a verdict on the kernels themselves
/// (invalid, build, run, wrong, unwritten, canary), or a timeout under a watchdog at least
/// as patient. A crash and an answer the runner could not give (`runner`) are about that
/// one try, not the kernels: they are tried again, as is anything else.
bool servable(const Evaluation& row, double timeout_s);

/// Instantiates `alt` at `point` and generates its code, to be built with `build_options`
/// besides the point's own (`-cl-mad-enable` of the mad parameter); a liftc::Error when the
/// code generator refuses it.
Generated generate_candidate(const ConstraintAlternative& alt, const Point& point, const std::string& build_options);

/// The same for a space's program (a layer renamed after another of its shape: layers.hpp).
Generated generate_candidate(const constraints::Space& space, const Point& point, const std::string& build_options);

/// Where the evaluations' time went (sums over the candidates that ran).
struct EvaluatorTimes {
  std::size_t generated = 0, ran = 0;  // candidates generated; candidates run
  double generate_s = 0;               // instantiation, type checking, code generation, launch plan
  double bundle_s = 0;                 // writing bundles
  double runner_s = 0;                 // runner processes' wall time (start to end)
  std::vector<std::pair<std::string, double>> phases_s;  // the runners' own phases (platform, build, ...), summed, in their order
  double lock_wait_s = 0;              // runners waiting for the device lock
  std::vector<std::pair<double, double>> locked_ms;  // every interval a runner held the device lock
  std::size_t reused = 0;              // candidates run in a serving runner's context kept from an earlier one
  /// "generation 12.3 ms, bundle 1.2 ms, runner 300 ms (platform 40 ms, build 120 ms, ...)" per candidate.
  std::string text() const;
};

/// Evaluates candidates of one problem on one device, through the store.
class Evaluator {
 public:
  Evaluator(const Problem& problem, const CandidateSpace& space, Store& store, std::int64_t run,
            const DeviceReport& device, EvaluatorOptions options);

  /// Evaluates `c` (or serves it from the store: then `*served` is set).
  Evaluation evaluate(const Candidate& c, bool* served);

  /// Prepares `c` for the parallel loop: generates it and writes its bundle now; the
  /// runner runs in `run`, its row is stored in `record`. A candidate with the kernels of
  /// one still running waits for that one's row and is served from it in `result`.
  Pending start(const Candidate& c);

  /// Where the time went so far.
  const EvaluatorTimes& times() const { return times_; }

  /// What a point of `c`'s alternative was allowed to differ by beyond the tolerance, per
  /// element of each float output by name (magnitude_allowance), or nullptr where it computes
  /// through no constant arrays: the front's host programs compare with the same.
  const interp::Tensors* allowance(const Candidate& c);

  /// Adds to `r` the stored points that cut rows were served on (cut_again) and that `r`
  /// did not explore itself, each once and marked served, counted in `r.cut_reasons`: a
  /// front without them would lack the point that dominates the cut one.
  void add_cut_reasons(LoopResult& r) const;

 private:
  struct Job;
  double cutoff_for(std::int64_t memory_bytes) const;
  /// Per output element, what a point of alternative `index` may differ by beyond the
  /// validation's tolerance: for a program that computes through constant arrays
  /// (Winograd's transforms, whose sums are far larger than the result),
  /// interp::rounding_allowance, each element's own magnitude times magnitude_tolerance
  /// (one number for the whole output let an error of 100 on values near 1 pass beside
  /// values near 1e6); nullptr for the others. Once per alternative (tiling reorders the
  /// same products: the magnitude does not depend on the point), and interpreted once per
  /// set of constant arrays, on the alternative's untiled form
  /// (ConstraintAlternative::magnitude_form) or else the alternative with the fewest
  /// tuning parameters; its files are written once for the bundles to link.
  struct Allowance {
    interp::Tensors tensors;  // by output name
    std::string dir;          // where write_allowance_files put them
  };
  const Allowance* magnitude_allowance(std::size_t index, const ConstraintAlternative& alt, const Point& point);
  Evaluation base_row(const Alternative& alt, const Candidate& c) const;
  /// The stored row that stands for `key` (servable), a cut one only where it would be cut
  /// again (cut_again: a front holds no cut point).
  std::optional<Evaluation> servable_row(const std::string& key);
  /// Whether cut row `cut` would be cut again: by this run's own results, or by a stored
  /// valid point of the run that cut it (what cut it may have been validated while it ran,
  /// so a rerun can ask it later), which then becomes one of this run's results
  /// (cut_reasons_) when it is a candidate of this space.
  bool cut_again(const Evaluation& cut);
  Evaluation serve(const Evaluation& old, const Evaluation& e, bool* served);
  void record(Job& job);
  void validated(std::int64_t memory_bytes, double time_ms);

  const Problem& problem_;
  const CandidateSpace& space_;
  Store& store_;
  std::int64_t run_;
  DeviceReport device_;
  EvaluatorOptions options_;
  std::string runner_;
  bool shell_ = false;
  std::string checked_with_;  // the key's lines on how a result is checked (tolerances, program, runner)
  std::shared_ptr<ServePool> pool_;  // the serving runners (the local runner without isolate); null: a process per candidate
  std::size_t count_ = 0;
  // The front of valid evaluations: memory -> time, each point faster than every one that
  // uses less memory (cutoff_for; written to live_path_ for the runners at work).
  std::map<std::int64_t, double> front_;
  std::string live_path_;
  // The stored points cut rows were served on (cut_again), by key, and a run's ok rows as
  // read when a cut row of it was last asked about (read again for a later cut row).
  std::map<std::string, std::pair<Candidate, Evaluation>> cut_reasons_;
  struct RunPoints {
    std::int64_t last_id = 0;  // of the rows read, ok or not
    std::vector<Evaluation> ok;
  };
  std::map<std::int64_t, RunPoints> run_points_;
  std::optional<SharedFiles> shared_;                   // the inputs and reference, written once
  std::set<std::string> running_;                       // keys of candidates whose runner has not been recorded
  std::map<std::size_t, const Allowance*> magnitude_allowance_;  // by alternative index (magnitude_allowance)
  std::map<std::string, Allowance> magnitude_by_constants_;        // by constant arrays (magnitude_allowance)
  EvaluatorTimes times_;
};

/// What the search is told of a stored evaluation.
Outcome outcome_of(const Evaluation& e);

}  // namespace liftc::explore
