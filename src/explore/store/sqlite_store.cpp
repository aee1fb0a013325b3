// The SQLite backend of the results store (append-only), and the checks of what it reads back.

#include "liftc/explore/store/sqlite_store.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "liftc/support/diagnostic.hpp"
#include "queries.hpp"
#include "schema.hpp"
#include "stored_rows.hpp"

namespace liftc::explore {

namespace fs = std::filesystem;

namespace {

// Where the run locks start in the store file: far beyond the bytes SQLite locks (around
// 1 GiB), one byte per run id.
constexpr off_t kRunLockBase = off_t(1) << 40;
constexpr std::int64_t kMaxLockedRun = std::int64_t(1) << 40;

}  // namespace

// One SQLite connection and the store file it is of.
struct SqliteStore::Connection {
  sqlite3* db = nullptr;
  std::string path;
  std::set<std::string> added;  // the kAddedEvaluationColumns the evaluations table has
  int lock_fd = -1;          // holds the run locks; closed after SQLite (see try_lock_run)
  mutable int last_failure = SQLITE_OK;  // SQLite's code of the last failure()

  ~Connection() {
    sqlite3_close(db);
    if (lock_fd >= 0) ::close(lock_fd);
  }

  // The Error for SQLite's last failure: a damaged file, a file that is no database, or
  // anything else (a full disk, an I/O error) with SQLite's words.
  Error failure() const {
    const char* message = sqlite3_errmsg(db);
    last_failure = sqlite3_errcode(db);
    switch (last_failure) {
      case SQLITE_CORRUPT: return Error(fmt::format("{} is damaged ({})", path, message));
      case SQLITE_NOTADB: return Error(fmt::format("{} is not a liftc results store ({})", path, message));
      default: {
        // The system's reason too where SQLite kept it: "disk I/O error" alone does not say
        // "File too large" (a write cut short by a file-size limit leaves no errno).
        int error = sqlite3_system_errno(db);
        std::string why = error != 0 ? std::strerror(error)
                          : sqlite3_extended_errcode(db) == SQLITE_IOERR_WRITE
                              ? "a write was cut short: is the disk full, or the file over a size limit (ulimit -f)?"
                              : "";
        return Error(fmt::format("results store {}: {}{}", path, message, why.empty() ? "" : " (" + why + ")"));
      }
    }
  }
  void exec(const std::string& sql) {
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) throw failure();
  }
  // The SELECT list of an evaluation row: NULL for an added column this store lacks.
  std::string evaluation_columns() const {
    std::set<std::string> absent;
    for (const auto& c : schema::kAddedEvaluationColumns)
      if (!added.count(c.name)) absent.insert(c.name);
    return stored::evaluation_select_list(absent);
  }
  void open(const std::string& name, int flags) {
    sqlite3_close(db);
    db = nullptr;
    if (sqlite3_open_v2(name.c_str(), &db, flags, nullptr) != SQLITE_OK)
      throw Error(fmt::format("cannot open the results store {}: {}", path, db ? sqlite3_errmsg(db) : "out of memory"));
    sqlite3_busy_timeout(db, 5000);
  }
  void check_schema();
  int user_version();
  void check_format() { schema::check_format(user_version(), path); }
};

namespace {

using Connection = SqliteStore::Connection;

// A prepared statement that finalizes itself.
class Statement {
 public:
  Statement(const Connection& c, const std::string& sql) : c_(c) {
    if (sqlite3_prepare_v2(c.db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) throw c.failure();
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, const std::string& s) {
    sqlite3_bind_text(stmt_, i, s.c_str(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  Statement& bind(int i, double v) {
    sqlite3_bind_double(stmt_, i, v);  // NaN is stored as NULL
    return *this;
  }
  Statement& bind_blob(int i, const std::string& bytes) {
    sqlite3_bind_blob(stmt_, i, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
    return *this;
  }
  // Binds `values` from parameter 1 on.
  Statement& bind(const std::vector<queries::Value>& values) {
    for (std::size_t i = 0; i < values.size(); ++i)
      std::visit([&](const auto& v) { bind(static_cast<int>(i + 1), v); }, values[i]);
    return *this;
  }
  // Steps once; true while a row is available.
  bool step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw c_.failure();
  }
  std::string text(int col) const {
    auto p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col))) : std::string();
  }
  std::string blob(int col) const {
    auto p = static_cast<const char*>(sqlite3_column_blob(stmt_, col));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col))) : std::string();
  }
  // The column's value when it holds an integer (a column SQLite keeps as one).
  std::optional<std::int64_t> integer(int col) const {
    if (sqlite3_column_type(stmt_, col) != SQLITE_INTEGER) return std::nullopt;
    return sqlite3_column_int64(stmt_, col);
  }
  // The column's value when it holds a number; NaN when it is NULL (no time); nothing for
  // text or bytes.
  std::optional<double> real(int col) const {
    switch (sqlite3_column_type(stmt_, col)) {
      case SQLITE_INTEGER:
      case SQLITE_FLOAT: return sqlite3_column_double(stmt_, col);
      case SQLITE_NULL: return std::numeric_limits<double>::quiet_NaN();
      default: return std::nullopt;
    }
  }

 private:
  const Connection& c_;
  sqlite3_stmt* stmt_ = nullptr;
};

// The evaluations of `c` that `where` (with `values`) keeps, in `order`.
std::vector<Evaluation> select_evaluations(const Connection& c, const std::string& where,
                                           const std::vector<queries::Value>& values, const std::string& order) {
  Statement s(c, queries::select_evaluations(c.evaluation_columns(), where, order));
  s.bind(values);
  std::vector<Evaluation> out;
  while (s.step()) out.push_back(stored::read_evaluation(s, c.path));
  return out;
}

// A URI that opens `path` read-only as immutable: SQLite then takes no locks and needs no
// -shm file beside it.
std::string immutable_uri(const std::string& path) {
  std::string out = "file:";
  for (unsigned char c : fs::absolute(path).string()) {
    if (std::isalnum(c) || std::strchr("/-_.~", c)) out += static_cast<char>(c);
    else out += fmt::format("%{:02X}", c);
  }
  return out + "?immutable=1";
}

// Refuses a path that is a symbolic link to nothing or one that loops (never followed, never removed).
void check_link(const std::string& path) {
  std::error_code ec;
  if (!fs::is_symlink(fs::symlink_status(path, ec))) return;
  fs::file_status target = fs::status(path, ec);
  if (ec == std::errc::too_many_symbolic_link_levels)
    throw Error(fmt::format("results store {}: a symbolic link that loops (it leads back to itself); give the "
                            "store's own path",
                            path));
  if (ec || !fs::exists(target))
    throw Error(fmt::format("results store {}: a symbolic link to {}, which does not exist; give the store's own "
                            "path, or make the link point at one",
                            path, fs::read_symlink(path, ec).string()));
}

}  // namespace

void SqliteStore::Connection::check_schema() {
  for (const auto& t : schema::kTables) {
    Statement s(*this, fmt::format("PRAGMA table_info({})", t.table));
    std::set<std::string> have;
    while (s.step()) have.insert(s.text(1));
    auto not_a_store = [&](const std::string& why) {
      return Error(fmt::format("{} is not a liftc results store ({})", path, why));
    };
    if (have.empty()) throw not_a_store(fmt::format("it has no table {}", t.table));
    for (const char* c : t.columns)
      if (!have.count(c)) throw not_a_store(fmt::format("its table {} has no column {}", t.table, c));
    if (std::string(t.table) == "evaluations")
      for (const auto& c : schema::kAddedEvaluationColumns)
        if (have.count(c.name)) added.insert(c.name);
  }
}

int SqliteStore::Connection::user_version() {
  Statement s(*this, "PRAGMA user_version");
  return s.step() ? static_cast<int>(s.integer(0).value_or(0)) : 0;
}

SqliteStore::SqliteStore(const std::string& path) : SqliteStore(path, false) {}

SqliteStore::SqliteStore(const std::string& path, bool read_only) : Store(path), c_(std::make_unique<Connection>()) {
  c_->path = path;
  if (read_only) open_read_only();
  else open_for_writing();
}

void SqliteStore::open_read_only() {
  const std::string& path = c_->path;
  c_->open(path, SQLITE_OPEN_READONLY);
  try {
    c_->check_format();
    c_->check_schema();
  } catch (const Error&) {
    // A WAL store in a folder this process cannot write: SQLite cannot make the -shm file
    // it reads through. With no -wal file beside it, the store file holds every row, and
    // since nobody can write there either, it can be read as immutable.
    int code = c_->last_failure;
    std::error_code ec;
    if (code != SQLITE_READONLY && code != SQLITE_CANTOPEN) throw;
    // With a -wal file beside it (a run going on, or one killed), rows may be in the -wal
    // file, which SQLite reads only through the -shm file it cannot make here.
    if (fs::exists(path + "-wal", ec))
      throw Error(fmt::format("results store {0}: some of its rows may be in {0}-wal, which SQLite reads through a "
                              "{0}-shm file it cannot make in this folder (this user may not write there); read a "
                              "copy of {0} and {0}-wal in a folder you can write",
                              path));
    c_->open(immutable_uri(path), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
    c_->check_format();
    c_->check_schema();
  }
}

void SqliteStore::open_for_writing() {
  const std::string& path = c_->path;
  std::error_code ec;
  // Whatever is at the path (a symbolic link to nothing too) is the user's: it is never
  // removed below, and a link to nothing is refused rather than followed.
  bool existed = fs::exists(fs::symlink_status(path, ec));
  check_link(path);
  try {
    c_->open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    int format = c_->user_version();
    schema::check_format(format, path);  // before anything is written to a store of a later format
    // WAL: a row is durable once add() returns, and a kill -9 cannot corrupt the file.
    c_->exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
    // A store from before the format was kept (0) holds the tables already: each step
    // creates only what is missing.
    for (const std::string& step : schema::migration(format, schema::kSqlite)) c_->exec(step);
    c_->check_schema();
    // The columns added later, and the format: a new store, one from before the format was
    // kept (format 1) or one of an earlier format, brought to this one, says so. In one
    // transaction: each statement alone rewrote the schema's pages into the WAL (a new
    // store's WAL was 120 KB before its first row).
    std::string changes;
    for (const auto& c : schema::kAddedEvaluationColumns)
      if (c_->added.insert(c.name).second)
        changes += fmt::format("ALTER TABLE evaluations ADD COLUMN {} {};", c.name, c.type);
    if (format < kStoreFormat) changes += fmt::format("PRAGMA user_version = {};", kStoreFormat);
    if (!changes.empty()) c_->exec("BEGIN IMMEDIATE;" + changes + "COMMIT;");
  } catch (const Error&) {
    if (!existed) {
      // What this call created (an empty or half-made file) is no store: leave nothing.
      sqlite3_close(c_->db);
      c_->db = nullptr;
      for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(path + suffix, ec);
    }
    throw;
  }
}

SqliteStore::~SqliteStore() = default;

std::unique_ptr<SqliteStore> SqliteStore::open_existing(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw Error(fmt::format("no results store at {}", path));
  return std::unique_ptr<SqliteStore>(new SqliteStore(path, true));
}

std::int64_t SqliteStore::begin_run(const std::string& file, const std::string& config_json) {
  // The run is locked before its row is visible to other processes (a --resume elsewhere
  // cannot take it in between).
  c_->exec("BEGIN IMMEDIATE");
  try {
    std::int64_t id = 0;
    {
      Statement s(*c_, queries::kInsertRun);
      s.bind(1, utc_now()).bind(2, file).bind(3, config_json).bind(4, std::string(kLiftcVersion));
      while (s.step()) id = s.integer(0).value_or(0);
    }
    if (!try_lock_run(id)) throw Error(fmt::format("{}: run {} is locked by another process", path(), id));
    c_->exec("COMMIT");
    return id;
  } catch (...) {
    sqlite3_exec(c_->db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

bool SqliteStore::try_lock_run(std::int64_t id) {
  if (id < 0 || id > kMaxLockedRun) throw Error(fmt::format("{}: run {} cannot be locked (no such run id)", path(), id));
  if (c_->lock_fd < 0) {
    c_->lock_fd = ::open(path().c_str(), O_RDWR | O_CLOEXEC);
    if (c_->lock_fd < 0) throw Error(fmt::format("cannot lock run {} of {}: {}", id, path(), std::strerror(errno)));
  }
  // An open-file-description lock: owned by this descriptor, so two stores of one process
  // exclude each other too, and dropped when the process ends however it ends.
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  lock.l_start = kRunLockBase + static_cast<off_t>(id);
  lock.l_len = 1;
  if (::fcntl(c_->lock_fd, F_OFD_SETLK, &lock) == 0) return true;
  if (errno == EAGAIN || errno == EACCES) return false;
  throw Error(fmt::format("cannot lock run {} of {}: {}", id, path(), std::strerror(errno)));
}

void SqliteStore::end_run(std::int64_t id) {
  Statement s(*c_, queries::kInsertRunEnd);
  s.bind(1, id).bind(2, utc_now()).step();
}

std::vector<RunRecord> SqliteStore::runs() const {
  Statement s(*c_, queries::kSelectRuns);
  std::vector<RunRecord> out;
  while (s.step()) out.push_back({s.integer(0).value_or(0), s.text(1), s.text(2), s.text(3), s.integer(4).value_or(0) != 0});
  return out;
}

std::int64_t SqliteStore::add(Evaluation& e) {
  e.version = kLiftcVersion;
  e.created = utc_now();
  Statement s(*c_, stored::insert_evaluation_statement());
  stored::bind_evaluation(e, [&](int i, const auto& value) { s.bind(i, value); });
  while (s.step()) e.id = s.integer(0).value_or(0);
  return e.id;
}

std::optional<Evaluation> SqliteStore::find(const std::string& key) const {
  auto rows = select_evaluations(*c_, queries::kByKey, {key}, "ORDER BY id LIMIT 1");
  if (rows.empty()) return std::nullopt;
  return rows.front();
}

std::vector<Evaluation> SqliteStore::find_all(const std::string& key) const {
  return select_evaluations(*c_, queries::kByKey, {key}, "ORDER BY id");
}

std::optional<Evaluation> SqliteStore::find_candidate(const std::string& program, const std::string& strategy,
                                                      std::int64_t alternative, const std::string& point) const {
  auto rows =
      select_evaluations(*c_, queries::kByCandidate, {program, strategy, alternative, point}, "ORDER BY id DESC LIMIT 1");
  if (rows.empty()) return std::nullopt;
  return rows.front();
}

std::vector<Evaluation> SqliteStore::evaluations(const EvaluationFilter& filter) const {
  queries::Condition condition = queries::evaluation_filter(filter, schema::kSqlite);
  return select_evaluations(*c_, condition.where, condition.values, "ORDER BY id");
}

std::optional<interp::Tensors> SqliteStore::reference(const std::string& key) const {
  Statement s(*c_, queries::kSelectReference);
  s.bind(1, key);
  if (!s.step()) return std::nullopt;
  return stored::decode_reference(s.text(0), s.blob(1), path(), key);
}

std::vector<std::string> SqliteStore::reference_keys() const {
  Statement s(*c_, queries::kSelectReferenceKeys);
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.text(0));
  return out;
}

void SqliteStore::put_reference(const std::string& key, const std::string& what, const interp::Tensors& outputs) {
  stored::EncodedReference r = stored::encode_reference(outputs);
  Statement s(*c_, queries::kInsertReference);
  s.bind(1, key).bind(2, what).bind(3, r.meta).bind_blob(4, r.data).bind(5, utc_now()).step();
}

}  // namespace liftc::explore
