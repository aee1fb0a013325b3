// A run's identity in the store, resuming it, and replaying a search against its rows.

#include "liftc/explore/store/session.hpp"
#include "liftc/explore/candidates/library.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "liftc/explore/candidates/constraint_space.hpp"
#include "liftc/explore/store/stored_target.hpp"
#include "liftc/support/file.hpp"
#include "liftc/support/interrupt_cleanup.hpp"

namespace liftc::explore {

namespace {

constexpr const char* kWorkPrefix = "liftc-explore-";

// The store as work folders name it: a hash of its URL (which may hold a password, and the
// owner file lies in the temporary folder), or its path absolute, without . or .. or links.
std::string store_identity(const std::string& db) {
  if (is_database_url(db)) return "url " + hash_text(db);
  std::error_code ec;
  std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(db, ec), ec);
  return ec ? std::filesystem::absolute(db, ec).lexically_normal().string() : p.string();
}

// Removes `folder` when it is a work folder of the store `identity` whose process is gone:
// a folder (not a link) of this user, named liftc-explore-<digits>, whose `owner` file is not
// locked and names the store.
void remove_if_abandoned(const std::filesystem::path& folder, const std::string& identity) {
  std::string name = folder.filename().string();
  if (name.rfind(kWorkPrefix, 0) != 0 || name.size() == std::strlen(kWorkPrefix) ||
      name.find_first_not_of("0123456789", std::strlen(kWorkPrefix)) != std::string::npos)
    return;
  struct stat st {};
  if (::lstat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid()) return;
  int fd = ::open((folder / "owner").c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;  // not liftc's, or one being made
  bool abandoned = false;
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
    // Locked here: its process is gone (or has not locked it yet, and then it names no store).
    char buffer[4096];
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    abandoned = n > 0 && std::string(buffer, static_cast<std::size_t>(n)) == identity + "\n";
  }
  if (abandoned) {
    std::error_code ec;
    std::filesystem::remove_all(folder, ec);
  }
  ::close(fd);
}

}  // namespace

WorkFolder::WorkFolder(const std::string& db) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path tmp = fs::temp_directory_path(ec);
  if (ec) throw Error(fmt::format("no temporary folder for the candidates' bundles: {}", ec.message()));
  fs::path path = tmp / fmt::format("{}{}", kWorkPrefix, ::getpid());
  path_ = path.string();
  fs::remove_all(path, ec);  // left by a process killed with -9 that had this process id
  fs::create_directories(path, ec);
  if (ec) throw Error(fmt::format("cannot create the work folder {}: {}", path_, ec.message()));
  remove_on_interrupt(path_);
  std::string identity = store_identity(db);
  // Locked before it names the store: a folder that names one is its live owner's.
  owner_fd_ = ::open((path / "owner").c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  std::string line = identity + "\n";
  if (owner_fd_ < 0 || ::flock(owner_fd_, LOCK_EX) != 0 ||
      ::write(owner_fd_, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
    std::string why = std::strerror(errno);
    if (owner_fd_ >= 0) ::close(owner_fd_);
    forget_on_interrupt(path_);
    fs::remove_all(path, ec);
    throw Error(fmt::format("cannot create the work folder {}: {}", path_, why));
  }
  for (fs::directory_iterator it(tmp, ec), end; !ec && it != end; it.increment(ec))
    if (it->path() != path) remove_if_abandoned(it->path(), identity);
}

WorkFolder::~WorkFolder() {
  forget_on_interrupt(path_);
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  if (owner_fd_ >= 0) ::close(owner_fd_);
  owner_fd_ = -1;
}

std::string json_reason(const nlohmann::json::exception& e) {
  std::string_view what = e.what();
  if (what.starts_with("[json.exception.")) {
    if (auto end = what.find("] "); end != std::string_view::npos) what.remove_prefix(end + 2);
  }
  return std::string(what);
}

namespace fs = std::filesystem;
using nlohmann::json;

std::string rules_hash(const rewrite::RuleSet& rules) {
  std::string text;
  for (const auto& file : rules.files)
    text += fmt::format("{}\n{}\n", fs::path(file).filename().string(),
                        read_regular_file(file, "rule file", std::uint64_t(64) << 20));
  return hash_text(text);
}

ResumedRun resume_last_run(Store& store) {
  const std::string& db = store.path();
  auto unfinished = [&]() -> std::optional<RunRecord> {
    auto runs = store.runs();
    auto last = std::find_if(runs.rbegin(), runs.rend(), [](const auto& r) { return !r.finished; });
    if (last == runs.rend()) return std::nullopt;
    return *last;
  };
  std::optional<RunRecord> last = unfinished();
  if (!last) throw Error(fmt::format("--resume: every run in {} has finished; nothing to resume", db));
  if (!store.try_lock_run(last->id))
    throw Error(fmt::format("--resume: run {} of {} is being explored by another liftc process right now; wait for "
                            "it to end, or stop it, then resume",
                            last->id, db));
  // It may have ended between the listing and the lock.
  std::optional<RunRecord> now = unfinished();
  if (!now || now->id != last->id) throw Error(fmt::format("--resume: run {} of {} has just finished", last->id, db));
  json config = store.run_config(*last);
  if (!config.contains("rules"))
    throw Error(fmt::format("--resume: run {} of {} was started by an earlier liftc, which did not record what "
                            "identifies its program and rules; start a new run (its results stay in the store)",
                            last->id, db));
  return {last->id, last->started, std::move(config)};
}

void check_resumed(const ResumedRun& run, const std::string& db, const std::string& file, const std::string& program_hash,
                   const std::string& rules_dir, const std::string& rules_identity) {
  read_stored(db, run.id, [&] {
    if (run.config.at("program").get<std::string>() != program_hash)
      throw Error(fmt::format("--resume: {} has changed since run {} of {} started (its text, sizes or input seed "
                              "differ); start a new run",
                              file, run.id, db));
    if (run.config.at("rules").get<std::string>() != rules_identity)
      throw Error(fmt::format("--resume: the rules in {} are not those run {} of {} started with (a rule file was "
                              "added, removed or changed); resume with --rules naming the run's rules, or start a "
                              "new run",
                              rules_dir, run.id, db));
  });
}

std::pair<std::int64_t, constraints::Target> replayed_run(const Store& replay, const std::string& program_hash,
                                                          const std::string& what) {
  std::optional<json> recorded;
  std::int64_t recorded_run = 0;
  for (const auto& r : replay.runs()) {
    json c = replay.run_config(r);
    if (c.contains("program") && c["program"].is_string() && c["program"].get<std::string>() == program_hash) {
      recorded = c;
      recorded_run = r.id;
    }
  }
  if (!recorded) throw Error(fmt::format("--replay {}: no run of {} in that store", replay.path(), what));
  return {recorded_run,
          read_stored(replay.path(), recorded_run, [&] { return target_from_json(recorded->at("target_profile")); })};
}

EvaluateFn replay_rows(Store& replay, const std::string& program_hash, const CandidateSpace& space,
                       std::size_t& missing) {
  return [&replay, program_hash, &space, &missing](const Candidate& c, bool& served) {
    const Alternative& alt = *space.alternatives[c.alternative];
    std::string point = format_point(alt, c.point);
    served = true;
    if (auto e = replay.find_candidate(program_hash, alt.strategy(), alternative_number(alt), point)) return *e;
    ++missing;
    Evaluation e;
    e.strategy = alt.strategy();
    e.alternative = alternative_number(alt);
    e.point = point;
    e.status = "missing";
    e.reason = "not in the replayed store";
    return e;
  };
}

double best_stored_time(const Store& replay, const std::string& program_hash) {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& e : replay.evaluations())
    if (e.program == program_hash && valid_result(e)) best = std::min(best, e.time_ms);
  return best;
}

std::string replay_verdict(const LoopResult& r, double best_stored_ms) {
  if (!std::isfinite(best_stored_ms)) return "";
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < r.explored.size(); ++i) {
    const auto& e = r.explored[i].evaluation;
    if (valid_result(e)) best = std::min(best, e.time_ms);
    if (best <= 1.05 * best_stored_ms)
      return fmt::format("within 5% of the store's best ({:.4g} ms) after {} evaluation(s)", best_stored_ms, i + 1);
  }
  if (r.explored.empty()) return "";
  return fmt::format("not within 5% of the store's best ({:.4g} ms) after {} evaluation(s); best found {:.4g} ms",
                     best_stored_ms, r.explored.size(), best);
}

}  // namespace liftc::explore
