// The PostgreSQL backend of the results store, through libpqxx.

#include "liftc/explore/store/postgres_store.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <pqxx/pqxx>

#include "liftc/support/diagnostic.hpp"
#include "pg.hpp"
#include "queries.hpp"
#include "schema.hpp"
#include "stored_rows.hpp"

namespace liftc::explore {

namespace {

using namespace pg;

// The first key of liftc's advisory locks ("lift"): a run's lock is (kLockClass, run id),
// making a store's tables is (kLockClass, 0).
constexpr std::int64_t kLockClass = 0x6c696674;
constexpr std::int64_t kMaxLockedRun = std::numeric_limits<std::int32_t>::max();

// A row of the evaluations table as stored::read_evaluation reads it (the columns are
// typed: a number is a number; NULL is 0, NaN or empty text).
struct Row {
  const pqxx::row& r;
  std::optional<std::int64_t> integer(int col) const { return pg::integer(r[col]); }
  std::optional<double> real(int col) const { return pg::real(r[col]); }
  std::string text(int col) const { return pg::text(r[col]); }
};

}  // namespace

std::string hide_password(const std::string& url) {
  std::string out = url;
  std::size_t start = out.find("://");
  if (start != std::string::npos) {
    start += 3;
    std::size_t end = out.find_first_of("/?", start);
    std::size_t at = out.rfind('@', end == std::string::npos ? out.size() : end);
    if (at != std::string::npos && at >= start) {
      std::size_t colon = out.find(':', start);
      if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "***");
    }
  }
  for (std::size_t p = out.find("password="); p != std::string::npos; p = out.find("password=", p + 1)) {
    std::size_t value = p + 9, end = out.find('&', value);
    out.replace(value, (end == std::string::npos ? out.size() : end) - value, "***");
  }
  return out;
}

// One connection (used by one thread at a time) and the store's name in messages.
struct PostgresStore::Connection {
  std::unique_ptr<pqxx::connection> db;
  std::string name;
  std::set<std::string> absent;  // the kAddedEvaluationColumns a store opened to read lacks
  mutable std::mutex mutex;

  Error failure(const std::exception& e) const {
    return Error(fmt::format("results store {}: {}", name, one_line(e.what())));
  }
  // Runs `body` on a transaction of kind T and commits it; a database's error is a liftc::Error.
  template <class T, class F>
  auto in(F body) const {
    std::lock_guard<std::mutex> lock(mutex);
    try {
      T t(*db);
      auto out = body(t);
      t.commit();
      return out;
    } catch (const pqxx::failure& e) {
      throw failure(e);
    }
  }
  template <class F> auto write(F body) const { return in<pqxx::work>(body); }
  template <class F> auto read(F body) const { return in<pqxx::read_transaction>(body); }
  std::vector<Evaluation> select(const std::string& where, const std::vector<queries::Value>& values,
                                 const std::string& order) const {
    return read([&](pqxx::transaction_base& t) {
      std::vector<Evaluation> out;
      for (const auto& r :
           exec(t, queries::select_evaluations(stored::evaluation_select_list(absent), where, order), params(values)))
        out.push_back(stored::read_evaluation(Row{r}, name));
      return out;
    });
  }
};

namespace {

using Connection = PostgresStore::Connection;

// The store's format: 0 when the database has no table liftc_schema.
int stored_format(pqxx::transaction_base& t, const std::string& store) {
  if (t.exec("SELECT to_regclass('liftc_schema')")[0][0].is_null()) return 0;
  pqxx::result r = t.exec("SELECT version FROM liftc_schema");
  if (r.size() != 1 || r[0][0].is_null())
    throw Error(fmt::format("{} is not a liftc results store (its table liftc_schema does not hold one version)", store));
  int format = r[0][0].as<int>();
  if (format < 1) throw Error(fmt::format("{} is not a liftc results store (its format is {})", store, format));
  return format;
}

// Checks the tables' columns; returns the kAddedEvaluationColumns the evaluations table lacks
// (a store an earlier liftc made).
std::set<std::string> check_schema(pqxx::transaction_base& t, const std::string& store) {
  std::set<std::string> absent;
  for (const auto& table : schema::kTables) {
    std::set<std::string> have;
    for (const auto& r : exec(t,
                              "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
                              "AND table_name = ?",
                              {std::string(table.table)}))
      have.insert(r[0].as<std::string>());
    auto not_a_store = [&](const std::string& why) {
      return Error(fmt::format("{} is not a liftc results store ({})", store, why));
    };
    if (have.empty()) throw not_a_store(fmt::format("it has no table {}", table.table));
    for (const char* c : table.columns)
      if (!have.count(c)) throw not_a_store(fmt::format("its table {} has no column {}", table.table, c));
    if (std::string(table.table) == "evaluations")
      for (const auto& c : schema::kAddedEvaluationColumns)
        if (!have.count(c.name)) absent.insert(c.name);
  }
  return absent;
}

// Brings the database's store to this liftc's format, in one transaction (one liftc at a
// time: a transaction-level advisory lock).
void migrate(pqxx::transaction_base& t, const std::string& store) {
  exec(t, "SELECT pg_advisory_xact_lock(?, 0)", {param(kLockClass)});
  int format = stored_format(t, store);
  schema::check_format(format, store);
  if (format < kStoreFormat) {
    for (const std::string& step : schema::migration(format, schema::kPostgres)) t.exec(step);
    t.exec("CREATE TABLE IF NOT EXISTS liftc_schema(version INTEGER NOT NULL)");
    t.exec("DELETE FROM liftc_schema");
    exec(t, "INSERT INTO liftc_schema(version) VALUES(?)", {param(std::int64_t{kStoreFormat})});
  }
  std::set<std::string> absent = check_schema(t, store);
  for (const auto& c : schema::kAddedEvaluationColumns)
    if (absent.count(c.name))
      t.exec(fmt::format("ALTER TABLE evaluations ADD COLUMN {} {}", c.name,
                         std::string(c.type) == "REAL" ? schema::kPostgres.real : c.type));
}

}  // namespace

PostgresStore::PostgresStore(const std::string& url) : PostgresStore(url, false) {}

PostgresStore::PostgresStore(const std::string& url, bool read_only)
    : Store(hide_password(url)), c_(std::make_unique<Connection>()) {
  c_->name = path();
  try {
    c_->db = std::make_unique<pqxx::connection>(url);
    pqxx::nontransaction t(*c_->db);
    t.exec("SET client_min_messages TO warning");  // no NOTICE on stderr
  } catch (const pqxx::broken_connection& e) {
    throw Error(fmt::format("cannot open the results store {}: {}", path(), one_line(e.what())));
  } catch (const pqxx::failure& e) {
    throw c_->failure(e);
  }
  if (!read_only) {
    c_->write([&](pqxx::transaction_base& t) { return migrate(t, path()), 0; });
    return;
  }
  c_->read([&](pqxx::transaction_base& t) {
    int format = stored_format(t, path());
    if (format == 0) throw Error(fmt::format("no results store at {} (its database has no table liftc_schema)", path()));
    schema::check_format(format, path());
    c_->absent = check_schema(t, path());
    return 0;
  });
}

PostgresStore::~PostgresStore() = default;

std::unique_ptr<PostgresStore> PostgresStore::open_existing(const std::string& url) {
  return std::unique_ptr<PostgresStore>(new PostgresStore(url, true));
}

std::int64_t PostgresStore::begin_run(const std::string& file, const std::string& config_json) {
  // The run is locked before its row is visible to other processes (a --resume elsewhere
  // cannot take it in between).
  return c_->write([&](pqxx::transaction_base& t) {
    std::int64_t id = integer(
        exec(t, queries::kInsertRun, {param(utc_now()), param(file), param(config_json), param(std::string(kLiftcVersion))})
            [0][0]);
    if (id > kMaxLockedRun) throw Error(fmt::format("{}: run {} cannot be locked (no such run id)", path(), id));
    if (!exec(t, "SELECT pg_try_advisory_lock(?, ?)", {param(kLockClass), param(id)})[0][0].as<bool>())
      throw Error(fmt::format("{}: run {} is locked by another process", path(), id));
    return id;
  });
}

bool PostgresStore::try_lock_run(std::int64_t id) {
  if (id < 0 || id > kMaxLockedRun) throw Error(fmt::format("{}: run {} cannot be locked (no such run id)", path(), id));
  return c_->in<pqxx::nontransaction>([&](pqxx::transaction_base& t) {
    return exec(t, "SELECT pg_try_advisory_lock(?, ?)", {param(kLockClass), param(id)})[0][0].as<bool>();
  });
}

void PostgresStore::end_run(std::int64_t id) {
  c_->write([&](pqxx::transaction_base& t) { return exec(t, queries::kInsertRunEnd, {param(id), param(utc_now())}); });
}

std::vector<RunRecord> PostgresStore::runs() const {
  return c_->read([&](pqxx::transaction_base& t) {
    std::vector<RunRecord> out;
    for (const auto& r : t.exec(queries::kSelectRuns))
      out.push_back({integer(r[0]), text(r[1]), text(r[2]), text(r[3]), integer(r[4]) != 0});
    return out;
  });
}

std::int64_t PostgresStore::add(Evaluation& e) {
  e.version = kLiftcVersion;
  e.created = utc_now();
  std::vector<Param> values;
  stored::bind_evaluation(e, [&](int, const auto& value) { values.push_back(param(value)); });
  e.id = c_->write(
      [&](pqxx::transaction_base& t) { return integer(exec(t, stored::insert_evaluation_statement(), values)[0][0]); });
  return e.id;
}

std::optional<Evaluation> PostgresStore::find(const std::string& key) const {
  auto rows = c_->select(queries::kByKey, {key}, "ORDER BY id LIMIT 1");
  if (rows.empty()) return std::nullopt;
  return rows.front();
}

std::vector<Evaluation> PostgresStore::find_all(const std::string& key) const {
  return c_->select(queries::kByKey, {key}, "ORDER BY id");
}

std::optional<Evaluation> PostgresStore::find_candidate(const std::string& program, const std::string& strategy,
                                                        std::int64_t alternative, const std::string& point) const {
  auto rows = c_->select(queries::kByCandidate, {program, strategy, alternative, point}, "ORDER BY id DESC LIMIT 1");
  if (rows.empty()) return std::nullopt;
  return rows.front();
}

std::vector<Evaluation> PostgresStore::evaluations(const EvaluationFilter& filter) const {
  queries::Condition condition = queries::evaluation_filter(filter, schema::kPostgres);
  return c_->select(condition.where, condition.values, "ORDER BY id");
}

std::optional<interp::Tensors> PostgresStore::reference(const std::string& key) const {
  auto row = c_->read([&](pqxx::transaction_base& t) -> std::optional<std::pair<std::string, std::string>> {
    pqxx::result r = exec(t, queries::kSelectReference, {param(key)});
    if (r.empty()) return std::nullopt;
    return std::make_pair(text(r[0][0]), pqxx::binarystring(r[0][1]).str());
  });
  if (!row) return std::nullopt;
  return stored::decode_reference(row->first, row->second, path(), key);
}

std::vector<std::string> PostgresStore::reference_keys() const {
  return c_->read([&](pqxx::transaction_base& t) {
    std::vector<std::string> out;
    for (const auto& r : t.exec(queries::kSelectReferenceKeys)) out.push_back(text(r[0]));
    return out;
  });
}

void PostgresStore::put_reference(const std::string& key, const std::string& what, const interp::Tensors& outputs) {
  stored::EncodedReference r = stored::encode_reference(outputs);
  c_->write([&](pqxx::transaction_base& t) {
    return exec(t, queries::kInsertReference,
                {param(key), param(what), param(r.meta), bytes_param(r.data), param(utc_now())});
  });
}

}  // namespace liftc::explore
