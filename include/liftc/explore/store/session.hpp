#pragma once
// A run as the store keeps it, beyond its rows: what identifies the program and the rules
// it explored and the target it was constrained by (so `--resume` can continue it and
// refuse another program or other rules, and `--replay` can rebuild its space), and the
// replay of a search against a store's rows instead of a device. The command line only
// chooses the options and prints; a layer-by-layer exploration uses the same pieces.

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "liftc/constraints/target.hpp"
#include "liftc/explore/search/loop.hpp"
#include "liftc/explore/search/space.hpp"
#include "liftc/explore/store/store.hpp"
#include "liftc/rewrite/load.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::explore {

/// The folder a run's bundles are written to, $TMPDIR/liftc-explore-<pid>, removed when the
/// run ends (normally, by an error, or by SIGINT or SIGTERM). A run killed with -9 cannot
/// remove its own: each folder holds a file `owner`, locked while its process lives and
/// naming its store, and making one removes the folders of the same store whose owner is
/// gone (never a folder another liftc is using, of another store, or not liftc's: without
/// an `owner` file). The lock goes with the process however it ends, so a process id used
/// again is no confusion.
class WorkFolder {
 public:
  /// Makes the folder of this process for runs of the store `db`, after removing the
  /// folders of `db` whose process is gone; a liftc::Error when it cannot be made.
  explicit WorkFolder(const std::string& db);
  ~WorkFolder();
  WorkFolder(const WorkFolder&) = delete;
  WorkFolder& operator=(const WorkFolder&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int owner_fd_ = -1;  // `owner`, open and flock'ed
};

/// A hash of the rule files `rules` was loaded from (names and text, in load order): what
/// a strategy means, so --resume can refuse rules that changed.
std::string rules_hash(const rewrite::RuleSet& rules);

/// What a JSON library exception says, without its "[json.exception.out_of_range.403] " tag:
/// "key 'strategies' not found".
std::string json_reason(const nlohmann::json::exception& e);

/// Runs `read` on run `run`'s config of store `db`: a key it lacks or a value of the wrong
/// type is the store's damage (a liftc::Error naming the run), not liftc's.
template <class F>
auto read_stored(const std::string& db, std::int64_t run, F read) -> decltype(read()) {
  try {
    return read();
  } catch (const nlohmann::json::exception& e) {
    throw Error(db + ": run " + std::to_string(run) + " is damaged (its config: " + json_reason(e) + ")");
  }
}

/// A run `--resume` continues: the store's last unfinished one, locked against other
/// processes for as long as the store is open.
struct ResumedRun {
  std::int64_t id = 0;
  std::string started;
  nlohmann::json config;  // every option, the program and rules identity, the target
};

/// The last unfinished run of `store`, locked. A liftc::Error when there is none, when
/// another process explores it now, when it ended meanwhile, or when it was recorded by a
/// liftc that did not keep what identifies its program and rules.
ResumedRun resume_last_run(Store& store);

/// Refuses to resume `run` on a program or rules other than those it started with: the
/// program's hash (text, sizes, input seed) and the rules' (rules_hash) must be the stored ones.
void check_resumed(const ResumedRun& run, const std::string& db, const std::string& file, const std::string& program_hash,
                   const std::string& rules_dir, const std::string& rules_identity);

/// The latest run of `replay` that explored the program of hash `program_hash`, and its
/// target; a liftc::Error when the store has none (`what` names the program in the message).
std::pair<std::int64_t, constraints::Target> replayed_run(const Store& replay, const std::string& program_hash,
                                                          const std::string& what);

/// Evaluates candidates of `space` from `replay`'s rows of program `program_hash` (the
/// latest row of each; one not in the store is a row of status `missing`, counted in
/// `missing`).
EvaluateFn replay_rows(Store& replay, const std::string& program_hash, const CandidateSpace& space,
                       std::size_t& missing);

/// The best valid time `replay` holds for program `program_hash` (infinity: none).
double best_stored_time(const Store& replay, const std::string& program_hash);

/// "within 5% of the store's best (... ms) after N evaluation(s)", or that it was not: how
/// many evaluations a replayed search needed; empty when the store has no valid time.
std::string replay_verdict(const LoopResult& r, double best_stored_ms);

}  // namespace liftc::explore
