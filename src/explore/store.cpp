// The SQLite results store (append-only).

#include "liftc/explore/store.hpp"

#include <sqlite3.h>

#include <cstring>
#include <ctime>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "liftc/support/diagnostic.hpp"

namespace liftc::explore {

namespace {

const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS runs(
  id INTEGER PRIMARY KEY, started TEXT NOT NULL, file TEXT NOT NULL, config TEXT NOT NULL, liftc_version TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS run_ends(run INTEGER NOT NULL, finished TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS evaluations(
  id INTEGER PRIMARY KEY, run INTEGER NOT NULL, key TEXT NOT NULL, program TEXT NOT NULL, file TEXT NOT NULL,
  strategy TEXT NOT NULL, alternative INTEGER NOT NULL, point TEXT NOT NULL, status TEXT NOT NULL, reason TEXT NOT NULL,
  time_ms REAL, spread_ms REAL, samples_ms TEXT NOT NULL, memory_bytes INTEGER NOT NULL, device TEXT NOT NULL,
  driver TEXT NOT NULL, shapes TEXT NOT NULL, liftc_version TEXT NOT NULL, created TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS evaluations_key ON evaluations(key);
CREATE INDEX IF NOT EXISTS evaluations_candidate ON evaluations(program, strategy, alternative, point);
CREATE TABLE IF NOT EXISTS refs(key TEXT PRIMARY KEY, what TEXT NOT NULL, meta TEXT NOT NULL, data BLOB NOT NULL,
  created TEXT NOT NULL);
)sql";

// A prepared statement that finalizes itself.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK)
      throw Error(fmt::format("results store: {}", sqlite3_errmsg(db)));
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
    sqlite3_bind_double(stmt_, i, v);
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
    throw Error(fmt::format("results store: {}", sqlite3_errmsg(db_)));
  }
  std::string text(int col) const {
    auto p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col))) : std::string();
  }
  std::string blob(int col) const {
    auto p = static_cast<const char*>(sqlite3_column_blob(stmt_, col));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col))) : std::string();
  }
  std::int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }
  double real(int col) const { return sqlite3_column_double(stmt_, col); }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

const char* kEvaluationColumns =
    "id, run, key, program, file, strategy, alternative, point, status, reason, time_ms, spread_ms, samples_ms, "
    "memory_bytes, device, driver, shapes, liftc_version, created";

Evaluation read_evaluation(const Statement& s) {
  Evaluation e;
  e.id = s.integer(0);
  e.run = s.integer(1);
  e.key = s.text(2);
  e.program = s.text(3);
  e.file = s.text(4);
  e.strategy = s.text(5);
  e.alternative = s.integer(6);
  e.point = s.text(7);
  e.status = s.text(8);
  e.reason = s.text(9);
  e.time_ms = s.real(10);
  e.spread_ms = s.real(11);
  for (double v : nlohmann::json::parse(s.text(12), nullptr, false).get<std::vector<double>>()) e.samples_ms.push_back(v);
  e.memory_bytes = s.integer(13);
  e.device = s.text(14);
  e.driver = s.text(15);
  e.shapes = s.text(16);
  e.version = s.text(17);
  e.created = s.text(18);
  return e;
}

}  // namespace

bool status_valid(const std::string& s) { return s == status::Ok || s == status::Cut; }

struct Store::Impl {
  sqlite3* db = nullptr;
  ~Impl() { sqlite3_close(db); }
  void exec(const char* sql) {
    char* message = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
      std::string m = message ? message : "unknown error";
      sqlite3_free(message);
      throw Error(fmt::format("results store: {}", m));
    }
  }
};

Store::Store(const std::string& path) : Store(path, false) {}

Store::Store(const std::string& path, bool read_only) : impl_(std::make_unique<Impl>()), path_(path) {
  int flags = read_only ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  if (sqlite3_open_v2(path.c_str(), &impl_->db, flags, nullptr) != SQLITE_OK)
    throw Error(fmt::format("cannot open the results store {}: {}", path,
                            impl_->db ? sqlite3_errmsg(impl_->db) : "out of memory"));
  sqlite3_busy_timeout(impl_->db, 5000);
  try {
    if (!read_only) {
      // WAL: a row is durable once add() returns, and a kill -9 cannot corrupt the file.
      impl_->exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
      impl_->exec(kSchema);
    } else {
      Statement s(impl_->db, "SELECT count(*) FROM evaluations");
      s.step();
    }
  } catch (const Error& e) {
    throw Error(fmt::format("{} is not a liftc results store ({})", path, e.message()));
  }
}

Store::~Store() = default;

std::unique_ptr<Store> Store::open_existing(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) throw Error(fmt::format("no results store at {}", path));
  return std::unique_ptr<Store>(new Store(path, true));
}

std::int64_t Store::begin_run(const std::string& file, const std::string& config_json) {
  Statement s(impl_->db, "INSERT INTO runs(started, file, config, liftc_version) VALUES(?, ?, ?, ?)");
  s.bind(1, utc_now()).bind(2, file).bind(3, config_json).bind(4, std::string(kLiftcVersion)).step();
  return sqlite3_last_insert_rowid(impl_->db);
}

void Store::end_run(std::int64_t id) {
  Statement s(impl_->db, "INSERT INTO run_ends(run, finished) VALUES(?, ?)");
  s.bind(1, id).bind(2, utc_now()).step();
}

std::vector<RunRecord> Store::runs() const {
  Statement s(impl_->db,
              "SELECT id, started, file, config, EXISTS(SELECT 1 FROM run_ends WHERE run = runs.id) FROM runs ORDER BY id");
  std::vector<RunRecord> out;
  while (s.step()) out.push_back({s.integer(0), s.text(1), s.text(2), s.text(3), s.integer(4) != 0});
  return out;
}

std::int64_t Store::add(Evaluation e) {
  Statement s(impl_->db,
              "INSERT INTO evaluations(run, key, program, file, strategy, alternative, point, status, reason, time_ms, "
              "spread_ms, samples_ms, memory_bytes, device, driver, shapes, liftc_version, created) "
              "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, e.run).bind(2, e.key).bind(3, e.program).bind(4, e.file).bind(5, e.strategy).bind(6, e.alternative);
  s.bind(7, e.point).bind(8, e.status).bind(9, e.reason).bind(10, e.time_ms).bind(11, e.spread_ms);
  s.bind(12, nlohmann::json(e.samples_ms).dump()).bind(13, e.memory_bytes).bind(14, e.device).bind(15, e.driver);
  s.bind(16, e.shapes).bind(17, std::string(kLiftcVersion)).bind(18, utc_now());
  s.step();
  return sqlite3_last_insert_rowid(impl_->db);
}

std::optional<Evaluation> Store::find(const std::string& key) const {
  Statement s(impl_->db, fmt::format("SELECT {} FROM evaluations WHERE key = ? ORDER BY id LIMIT 1", kEvaluationColumns).c_str());
  s.bind(1, key);
  if (!s.step()) return std::nullopt;
  return read_evaluation(s);
}

std::optional<Evaluation> Store::find_candidate(const std::string& program, const std::string& strategy,
                                                std::int64_t alternative, const std::string& point) const {
  Statement s(impl_->db, fmt::format("SELECT {} FROM evaluations WHERE program = ? AND strategy = ? AND alternative = ? "
                                     "AND point = ? ORDER BY id LIMIT 1",
                                     kEvaluationColumns)
                             .c_str());
  s.bind(1, program).bind(2, strategy).bind(3, alternative).bind(4, point);
  if (!s.step()) return std::nullopt;
  return read_evaluation(s);
}

std::vector<Evaluation> Store::evaluations(std::int64_t run) const {
  std::string sql = fmt::format("SELECT {} FROM evaluations {} ORDER BY id", kEvaluationColumns,
                                run >= 0 ? "WHERE run = ?" : "");
  Statement s(impl_->db, sql.c_str());
  if (run >= 0) s.bind(1, run);
  std::vector<Evaluation> out;
  while (s.step()) out.push_back(read_evaluation(s));
  return out;
}

std::optional<interp::Tensors> Store::reference(const std::string& key) const {
  Statement s(impl_->db, "SELECT meta, data FROM refs WHERE key = ?");
  s.bind(1, key);
  if (!s.step()) return std::nullopt;
  nlohmann::json meta = nlohmann::json::parse(s.text(0));
  std::string data = s.blob(1);
  interp::Tensors out;
  std::size_t offset = 0;
  for (const auto& m : meta) {
    io::Tensor t;
    t.dtype = m.at("dtype") == "f32" ? io::DType::Float32 : io::DType::Int32;
    t.shape = m.at("shape").get<std::vector<std::int64_t>>();
    auto n = static_cast<std::size_t>(t.element_count());
    if (offset + 4 * n > data.size()) throw Error(fmt::format("results store {}: reference {} is truncated", path_, key));
    if (t.dtype == io::DType::Float32) {
      t.f32.resize(n);
      std::memcpy(t.f32.data(), data.data() + offset, 4 * n);
    } else {
      t.i32.resize(n);
      std::memcpy(t.i32.data(), data.data() + offset, 4 * n);
    }
    offset += 4 * n;
    out[m.at("name").get<std::string>()] = std::move(t);
  }
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
  Statement s(impl_->db, "INSERT OR IGNORE INTO refs(key, what, meta, data, created) VALUES(?, ?, ?, ?, ?)");
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
