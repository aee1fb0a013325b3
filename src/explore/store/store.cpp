// The SQLite results store (append-only), and the checks of what it reads back.

#include "liftc/explore/store/store.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "liftc/support/diagnostic.hpp"

namespace liftc::explore {

namespace fs = std::filesystem;

namespace {

const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS runs(
  id INTEGER PRIMARY KEY, started TEXT NOT NULL, file TEXT NOT NULL, config TEXT NOT NULL, liftc_version TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS run_ends(run INTEGER NOT NULL, finished TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS evaluations(
  id INTEGER PRIMARY KEY, run INTEGER NOT NULL, key TEXT NOT NULL, program TEXT NOT NULL, file TEXT NOT NULL,
  strategy TEXT NOT NULL, alternative INTEGER NOT NULL, point TEXT NOT NULL, status TEXT NOT NULL, reason TEXT NOT NULL,
  time_ms REAL, spread_ms REAL, samples_ms TEXT NOT NULL, memory_bytes INTEGER NOT NULL, device TEXT NOT NULL,
  driver TEXT NOT NULL, shapes TEXT NOT NULL, liftc_version TEXT NOT NULL, created TEXT NOT NULL, timeout_s REAL,
  machine TEXT);
CREATE INDEX IF NOT EXISTS evaluations_key ON evaluations(key);
CREATE INDEX IF NOT EXISTS evaluations_candidate ON evaluations(program, strategy, alternative, point);
CREATE TABLE IF NOT EXISTS refs(key TEXT PRIMARY KEY, what TEXT NOT NULL, meta TEXT NOT NULL, data BLOB NOT NULL,
  created TEXT NOT NULL);
)sql";

// The columns every liftc store has.
struct TableColumns {
  const char* table;
  std::vector<const char*> columns;
};
const TableColumns kTables[] = {
    {"runs", {"id", "started", "file", "config", "liftc_version"}},
    {"run_ends", {"run", "finished"}},
    {"evaluations",
     {"id", "run", "key", "program", "file", "strategy", "alternative", "point", "status", "reason", "time_ms",
      "spread_ms", "samples_ms", "memory_bytes", "device", "driver", "shapes", "liftc_version", "created"}},
    {"refs", {"key", "what", "meta", "data", "created"}},
};

// The columns of the evaluations table added after the first stores: a store written before
// one is still read (the column reads as NULL: NaN, or empty text), and gets it when it is
// opened for writing. In the order they were added; each is read after kEvaluationColumns.
struct AddedColumn {
  const char* name;
  const char* type;
};
const AddedColumn kAddedEvaluationColumns[] = {
    {"timeout_s", "REAL"},  // the watchdog's limit
    {"machine", "TEXT"},    // the runner machine's architecture
};

const char* kEvaluationColumns =
    "id, run, key, program, file, strategy, alternative, point, status, reason, time_ms, spread_ms, samples_ms, "
    "memory_bytes, device, driver, shapes, liftc_version, created";

// Where the run locks start in the store file: far beyond the bytes SQLite locks (around
// 1 GiB), one byte per run id.
constexpr off_t kRunLockBase = off_t(1) << 40;
constexpr std::int64_t kMaxLockedRun = std::int64_t(1) << 40;

Error damaged(const std::string& path, const std::string& what, const std::string& why) {
  return Error(fmt::format("{}: {} is damaged ({})", path, what, why));
}

// One SQLite connection and the store file it is of.
struct Connection {
  sqlite3* db = nullptr;
  std::string path;
  std::set<std::string> added;  // the kAddedEvaluationColumns the evaluations table has
  int lock_fd = -1;          // holds the run locks; closed after SQLite (see Store::try_lock_run)
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
  void exec(const char* sql) {
    if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) throw failure();
  }
  // The SELECT list of an evaluation row.
  std::string evaluation_columns() const {
    std::string out = kEvaluationColumns;
    for (const auto& c : kAddedEvaluationColumns) out += fmt::format(", {}", added.count(c.name) ? c.name : "NULL");
    return out;
  }
  void check_schema();
  int user_version();
  void check_format();
};

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

void Connection::check_schema() {
  for (const auto& t : kTables) {
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
      for (const auto& c : kAddedEvaluationColumns)
        if (have.count(c.name)) added.insert(c.name);
  }
}

int Connection::user_version() {
  Statement s(*this, "PRAGMA user_version");
  return s.step() ? static_cast<int>(s.integer(0).value_or(0)) : 0;
}

// A store of a later format than this liftc's is refused before anything reads its tables
// or writes to it (0: a store made before the format was kept, which is format 1).
void Connection::check_format() {
  int format = user_version();
  if (format > kStoreFormat)
    throw Error(fmt::format("{} is a results store of format {}, later than this liftc's ({}, liftc {}): open it with "
                            "the liftc that wrote it, or a later one",
                            path, format, kStoreFormat, kLiftcVersion));
  if (format < 0) throw Error(fmt::format("{} is not a liftc results store (its format is {})", path, format));
}

// A row of the evaluations table, checked: every number column holds a number.
Evaluation read_evaluation(const Statement& s, const std::string& path) {
  Evaluation e;
  e.id = s.integer(0).value_or(0);  // INTEGER PRIMARY KEY: always an integer
  std::string what = fmt::format("evaluation {}", e.id);
  auto integer = [&](int col, const char* name) {
    if (auto v = s.integer(col)) return *v;
    throw damaged(path, what, fmt::format("its {} is not an integer", name));
  };
  auto real = [&](int col, const char* name) {
    if (auto v = s.real(col)) return *v;
    throw damaged(path, what, fmt::format("its {} is not a number", name));
  };
  e.run = integer(1, "run");
  e.key = s.text(2);
  e.program = s.text(3);
  e.file = s.text(4);
  e.strategy = s.text(5);
  e.alternative = integer(6, "alternative");
  e.point = s.text(7);
  e.status = s.text(8);
  e.reason = s.text(9);
  e.time_ms = real(10, "time_ms");
  e.spread_ms = real(11, "spread_ms");
  nlohmann::json samples = nlohmann::json::parse(s.text(12), nullptr, false);
  if (samples.is_discarded() || !samples.is_array())
    throw damaged(path, what, "its samples_ms is not a JSON list of numbers");
  for (const auto& v : samples) {
    if (!v.is_number() && !v.is_null()) throw damaged(path, what, "its samples_ms is not a JSON list of numbers");
    // null: what nlohmann::json writes for a sample that is not finite
    e.samples_ms.push_back(v.is_null() ? std::numeric_limits<double>::quiet_NaN() : v.get<double>());
  }
  e.memory_bytes = integer(13, "memory_bytes");
  e.device = s.text(14);
  e.driver = s.text(15);
  e.shapes = s.text(16);
  e.version = s.text(17);
  e.created = s.text(18);
  e.timeout_s = real(19, "timeout_s");
  e.machine = s.text(20);
  return e;
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

}  // namespace

bool status_valid(const std::string& s) { return s == status::Ok || s == status::Cut; }

bool valid_result(const Evaluation& e) {
  return status_valid(e.status) && std::isfinite(e.time_ms) && e.time_ms >= 0 && e.memory_bytes >= 0;
}

struct Store::Impl : Connection {};

Store::Store(const std::string& path) : Store(path, false) {}

Store::Store(const std::string& path, bool read_only) : impl_(std::make_unique<Impl>()), path_(path) {
  impl_->path = path;
  auto open = [&](const std::string& name, int flags) {
    sqlite3_close(impl_->db);
    impl_->db = nullptr;
    if (sqlite3_open_v2(name.c_str(), &impl_->db, flags, nullptr) != SQLITE_OK)
      throw Error(fmt::format("cannot open the results store {}: {}", path,
                              impl_->db ? sqlite3_errmsg(impl_->db) : "out of memory"));
    sqlite3_busy_timeout(impl_->db, 5000);
  };
  if (read_only) {
    open(path, SQLITE_OPEN_READONLY);
    try {
      impl_->check_format();
      impl_->check_schema();
    } catch (const Error&) {
      // A WAL store in a folder this process cannot write: SQLite cannot make the -shm file
      // it reads through. With no -wal file beside it, the store file holds every row, and
      // since nobody can write there either, it can be read as immutable.
      int code = impl_->last_failure;
      std::error_code ec;
      if (code != SQLITE_READONLY && code != SQLITE_CANTOPEN) throw;
      // With a -wal file beside it (a run going on, or one killed), rows may be in the -wal
      // file, which SQLite reads only through the -shm file it cannot make here.
      if (fs::exists(path + "-wal", ec))
        throw Error(fmt::format("results store {0}: some of its rows may be in {0}-wal, which SQLite reads through a "
                                "{0}-shm file it cannot make in this folder (this user may not write there); read a "
                                "copy of {0} and {0}-wal in a folder you can write",
                                path));
      open(immutable_uri(path), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
      impl_->check_format();
      impl_->check_schema();
    }
    return;
  }
  std::error_code ec;
  // Whatever is at the path (a symbolic link to nothing too) is the user's: it is never
  // removed below, and a link to nothing is refused rather than followed.
  fs::file_status at = fs::symlink_status(path, ec);
  bool existed = fs::exists(at);
  if (fs::is_symlink(at)) {
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
  try {
    open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    impl_->check_format();  // before anything is written to a store of a later format
    // WAL: a row is durable once add() returns, and a kill -9 cannot corrupt the file.
    impl_->exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
    impl_->exec(kSchema);
    impl_->check_schema();
    for (const auto& c : kAddedEvaluationColumns)
      if (impl_->added.insert(c.name).second)
        impl_->exec(fmt::format("ALTER TABLE evaluations ADD COLUMN {} {}", c.name, c.type).c_str());
    // A new store, or one from before the format was kept (format 1, as this one), says so.
    if (impl_->user_version() == 0) impl_->exec(fmt::format("PRAGMA user_version = {}", kStoreFormat).c_str());
  } catch (const Error&) {
    if (!existed) {
      // What this call created (an empty or half-made file) is no store: leave nothing.
      sqlite3_close(impl_->db);
      impl_->db = nullptr;
      for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(path + suffix, ec);
    }
    throw;
  }
}

Store::~Store() = default;

std::unique_ptr<Store> Store::open_existing(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw Error(fmt::format("no results store at {}", path));
  return std::unique_ptr<Store>(new Store(path, true));
}

std::int64_t Store::begin_run(const std::string& file, const std::string& config_json) {
  // The run is locked before its row is visible to other processes (a --resume elsewhere
  // cannot take it in between).
  impl_->exec("BEGIN IMMEDIATE");
  try {
    Statement s(*impl_, "INSERT INTO runs(started, file, config, liftc_version) VALUES(?, ?, ?, ?)");
    s.bind(1, utc_now()).bind(2, file).bind(3, config_json).bind(4, std::string(kLiftcVersion)).step();
    std::int64_t id = sqlite3_last_insert_rowid(impl_->db);
    if (!try_lock_run(id)) throw Error(fmt::format("{}: run {} is locked by another process", path_, id));
    impl_->exec("COMMIT");
    return id;
  } catch (...) {
    sqlite3_exec(impl_->db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

bool Store::try_lock_run(std::int64_t id) {
  if (id < 0 || id > kMaxLockedRun) throw Error(fmt::format("{}: run {} cannot be locked (no such run id)", path_, id));
  if (impl_->lock_fd < 0) {
    impl_->lock_fd = ::open(path_.c_str(), O_RDWR | O_CLOEXEC);
    if (impl_->lock_fd < 0) throw Error(fmt::format("cannot lock run {} of {}: {}", id, path_, std::strerror(errno)));
  }
  // An open-file-description lock: owned by this descriptor, so two stores of one process
  // exclude each other too, and dropped when the process ends however it ends.
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  lock.l_start = kRunLockBase + static_cast<off_t>(id);
  lock.l_len = 1;
  if (::fcntl(impl_->lock_fd, F_OFD_SETLK, &lock) == 0) return true;
  if (errno == EAGAIN || errno == EACCES) return false;
  throw Error(fmt::format("cannot lock run {} of {}: {}", id, path_, std::strerror(errno)));
}

void Store::end_run(std::int64_t id) {
  Statement s(*impl_, "INSERT INTO run_ends(run, finished) VALUES(?, ?)");
  s.bind(1, id).bind(2, utc_now()).step();
}

std::vector<RunRecord> Store::runs() const {
  Statement s(*impl_,
              "SELECT id, started, file, config, EXISTS(SELECT 1 FROM run_ends WHERE run = runs.id) FROM runs ORDER BY id");
  std::vector<RunRecord> out;
  while (s.step()) out.push_back({s.integer(0).value_or(0), s.text(1), s.text(2), s.text(3), s.integer(4).value_or(0) != 0});
  return out;
}

nlohmann::json Store::run_config(const RunRecord& run) const {
  nlohmann::json config = nlohmann::json::parse(run.config, nullptr, false);
  if (config.is_discarded() || !config.is_object())
    throw damaged(path_, fmt::format("run {}", run.id), "its config is not a JSON object");
  return config;
}

std::int64_t Store::add(Evaluation& e) {
  e.version = kLiftcVersion;
  e.created = utc_now();
  Statement s(*impl_,
              "INSERT INTO evaluations(run, key, program, file, strategy, alternative, point, status, reason, time_ms, "
              "spread_ms, samples_ms, memory_bytes, device, driver, shapes, liftc_version, created, timeout_s, machine) "
              "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, e.run).bind(2, e.key).bind(3, e.program).bind(4, e.file).bind(5, e.strategy).bind(6, e.alternative);
  s.bind(7, e.point).bind(8, e.status).bind(9, e.reason).bind(10, e.time_ms).bind(11, e.spread_ms);
  s.bind(12, nlohmann::json(e.samples_ms).dump()).bind(13, e.memory_bytes).bind(14, e.device).bind(15, e.driver);
  s.bind(16, e.shapes).bind(17, e.version).bind(18, e.created).bind(19, e.timeout_s);
  s.bind(20, e.machine);
  s.step();
  e.id = sqlite3_last_insert_rowid(impl_->db);
  return e.id;
}

std::optional<Evaluation> Store::find(const std::string& key) const {
  Statement s(*impl_, fmt::format("SELECT {} FROM evaluations WHERE key = ? ORDER BY id LIMIT 1", impl_->evaluation_columns()));
  s.bind(1, key);
  if (!s.step()) return std::nullopt;
  return read_evaluation(s, path_);
}

std::vector<Evaluation> Store::find_all(const std::string& key) const {
  Statement s(*impl_, fmt::format("SELECT {} FROM evaluations WHERE key = ? ORDER BY id", impl_->evaluation_columns()));
  s.bind(1, key);
  std::vector<Evaluation> out;
  while (s.step()) out.push_back(read_evaluation(s, path_));
  return out;
}

std::optional<Evaluation> Store::find_candidate(const std::string& program, const std::string& strategy,
                                                std::int64_t alternative, const std::string& point) const {
  Statement s(*impl_, fmt::format("SELECT {} FROM evaluations WHERE program = ? AND strategy = ? AND alternative = ? "
                                  "AND point = ? ORDER BY id DESC LIMIT 1",
                                  impl_->evaluation_columns()));
  s.bind(1, program).bind(2, strategy).bind(3, alternative).bind(4, point);
  if (!s.step()) return std::nullopt;
  return read_evaluation(s, path_);
}

std::vector<Evaluation> Store::evaluations(std::int64_t run) const {
  std::string sql = fmt::format("SELECT {} FROM evaluations {} ORDER BY id", impl_->evaluation_columns(),
                                run >= 0 ? "WHERE run = ?" : "");
  Statement s(*impl_, sql);
  if (run >= 0) s.bind(1, run);
  std::vector<Evaluation> out;
  while (s.step()) out.push_back(read_evaluation(s, path_));
  return out;
}

std::optional<interp::Tensors> Store::reference(const std::string& key) const {
  Statement s(*impl_, "SELECT meta, data FROM refs WHERE key = ?");
  s.bind(1, key);
  if (!s.step()) return std::nullopt;
  auto bad = [&](const std::string& why) { return damaged(path_, fmt::format("the reference {}", key), why); };
  nlohmann::json meta = nlohmann::json::parse(s.text(0), nullptr, false);
  if (meta.is_discarded() || !meta.is_array()) throw bad("its meta is not a JSON list");
  const std::string data = s.blob(1);
  interp::Tensors out;
  std::size_t offset = 0;
  for (const auto& m : meta) {
    if (!m.is_object() || !m.contains("name") || !m["name"].is_string() || m["name"].get<std::string>().empty())
      throw bad("an entry of its meta has no name");
    std::string name = m["name"].get<std::string>();
    if (!m.contains("dtype") || (m["dtype"] != "f32" && m["dtype"] != "i32"))
      throw bad(fmt::format("'{}' has no dtype f32 or i32", name));
    if (!m.contains("shape") || !m["shape"].is_array()) throw bad(fmt::format("'{}' has no shape", name));
    io::Tensor t;
    t.dtype = m["dtype"] == "f32" ? io::DType::Float32 : io::DType::Int32;
    // The element count is checked against the bytes left as it is multiplied, so no
    // shape, however large, overflows.
    const std::size_t left = (data.size() - offset) / 4;
    std::size_t count = 1;
    bool empty = false;
    for (const auto& d : m["shape"]) {
      // Sizes parse as unsigned JSON numbers; a negative one parses as signed.
      if (!d.is_number_unsigned() || d.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
        throw bad(fmt::format("the shape of '{}' is not a list of sizes >= 0", name));
      auto n = d.get<std::uint64_t>();
      t.shape.push_back(static_cast<std::int64_t>(n));
      if (n == 0) empty = true;
      else if (!empty && count > left / n) count = left + 1;  // more than the data holds
      else if (!empty) count *= n;
    }
    if (empty) count = 0;
    if (count > left) throw bad(fmt::format("its data is shorter than the shape of '{}' needs", name));
    if (t.dtype == io::DType::Float32) {
      t.f32.resize(count);
      std::memcpy(t.f32.data(), data.data() + offset, 4 * count);
    } else {
      t.i32.resize(count);
      std::memcpy(t.i32.data(), data.data() + offset, 4 * count);
    }
    offset += 4 * count;
    if (!out.emplace(name, std::move(t)).second) throw bad(fmt::format("'{}' appears twice", name));
  }
  if (offset != data.size()) throw bad("its data is longer than its meta says");
  return out;
}

std::vector<std::string> Store::reference_keys() const {
  Statement s(*impl_, "SELECT key FROM refs ORDER BY rowid");
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.text(0));
  return out;
}

void Store::put_reference(const std::string& key, const std::string& what, const interp::Tensors& outputs) {
  nlohmann::json meta = nlohmann::json::array();
  std::string data;
  for (const auto& [name, t] : outputs) {
    bool f = t.dtype == io::DType::Float32;
    meta.push_back({{"name", name}, {"dtype", f ? "f32" : "i32"}, {"shape", t.shape}});
    const char* p = f ? reinterpret_cast<const char*>(t.f32.data()) : reinterpret_cast<const char*>(t.i32.data());
    data.append(p, 4 * static_cast<std::size_t>(t.element_count()));
  }
  Statement s(*impl_, "INSERT OR IGNORE INTO refs(key, what, meta, data, created) VALUES(?, ?, ?, ?, ?)");
  s.bind(1, key).bind(2, what).bind(3, meta.dump()).bind_blob(4, data).bind(5, utc_now()).step();
}

std::string hash_text(const std::string& text) {
  std::uint64_t a = 14695981039346656037ull, b = 0x84222325cbf29ce4ull;
  for (unsigned char c : text) {
    a = (a ^ c) * 1099511628211ull;
    b = (b ^ c) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull;
  }
  return fmt::format("{:016x}{:016x}", a, b);
}

std::string utc_now() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

}  // namespace liftc::explore
