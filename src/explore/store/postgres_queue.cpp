// The work queue (queue.hpp) in a PostgreSQL store, through libpqxx: claims with
// SELECT ... FOR UPDATE SKIP LOCKED, leases timed by the server's clock (machines that
// reach it need not agree on the time), expired leases handled by whoever claims or waits.

#include <chrono>
#include <mutex>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <pqxx/pqxx>

#include "liftc/explore/store/postgres_store.hpp"
#include "liftc/explore/store/queue.hpp"
#include "liftc/support/diagnostic.hpp"
#include "pg.hpp"

namespace liftc::explore {

namespace {

using namespace pg;

// The server's clock in seconds: leases are kept in it.
constexpr const char* kNow = "extract(epoch from clock_timestamp())::double precision";

// The advisory lock that a run's end takes alone and every put shared: a run's end removes
// the shared files no run uses any more, never one that a put is adding a use of at that
// moment. One 64-bit key ("liftfile"): PostgreSQL keeps it apart from the store's two-key
// locks (0x6c696674, run), which a run's explorer holds while it runs.
constexpr std::int64_t kFilesLock = 0x6c69667466696c65;

// Leases that expired: the candidate back in the queue, or lost after kMaxTries of them.
std::string expire_statement() {
  return fmt::format(
      "UPDATE queue SET state = CASE WHEN tries >= {0} THEN 'crash' ELSE 'queued' END, "
      "ended = CASE WHEN tries >= {0} THEN 'lost' ELSE NULL END, "
      "finished = CASE WHEN tries >= {0} THEN ? ELSE NULL END, owner = NULL, lease_until = NULL "
      "WHERE state = 'leased' AND lease_until < {1}",
      kMaxTries, kNow);
}

std::string files_json(const std::vector<std::pair<std::string, std::string>>& files) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& [path, hash] : files) j.push_back({path, hash});
  return j.dump();
}

std::vector<std::pair<std::string, std::string>> files_from_json(const std::string& text, const std::string& where) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  std::vector<std::pair<std::string, std::string>> out;
  bool good = j.is_array();
  for (const auto& f : j)
    if (good && f.is_array() && f.size() == 2 && f[0].is_string() && f[1].is_string())
      out.emplace_back(f[0].get<std::string>(), f[1].get<std::string>());
    else
      good = false;
  if (!good) throw Error(fmt::format("{}: its list of shared files is damaged", where));
  return out;
}

class PostgresQueue final : public Queue {
 private:
  Error failure(const std::exception& e) const {
    return Error(fmt::format("work queue {}: {}", name_, one_line(e.what())));
  }
  // Runs `body` in one transaction and commits it; one thread at a time on the connection.
  template <class F>
  auto write(F body) {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      pqxx::work t(*db_);
      auto out = body(t);
      t.commit();
      return out;
    } catch (const pqxx::failure& e) {
      throw failure(e);
    }
  }


 public:
  explicit PostgresQueue(const std::string& url) : name_(hide_password(url)) {
    PostgresStore made(url);  // the tables, the format checked (the store's own messages)
    try {
      db_ = std::make_unique<pqxx::connection>(url);
      pqxx::nontransaction t(*db_);
      t.exec("SET client_min_messages TO warning");
    } catch (const pqxx::broken_connection& e) {
      throw Error(fmt::format("cannot open the work queue {}: {}", name_, one_line(e.what())));
    } catch (const pqxx::failure& e) {
      throw failure(e);
    }
  }

  std::int64_t put(std::int64_t run, const std::string& key, const DeviceKind& kind, double timeout_s,
                   const PackedBundle& bundle) override {
    std::set<std::pair<std::int64_t, std::string>> stored;
    std::int64_t id = write([&](pqxx::transaction_base& t) -> std::int64_t {
      pqxx::result old = exec(t, "SELECT id FROM queue WHERE run = ? AND key = ? ORDER BY id LIMIT 1", {param(run), param(key)});
      if (!old.empty()) return integer(old[0][0]);
      exec(t, "SELECT pg_advisory_xact_lock_shared(?)", {param(kFilesLock)});
      // A file is stored once, and once a run of this queue uses it (queue_run_files), it
      // stays until that run ends: this queue sends its bytes once a run.
      for (const auto& [hash, bytes] : bundle.contents) {
        if (sent_.count({run, hash}) || stored.count({run, hash})) continue;
        exec(t, "INSERT INTO queue_files(hash, data, created) VALUES(?, ?, ?) ON CONFLICT(hash) DO NOTHING",
             {param(hash), bytes_param(bytes), param(utc_now())});
        exec(t, "INSERT INTO queue_run_files(run, hash) VALUES(?, ?) ON CONFLICT(run, hash) DO NOTHING",
             {param(run), param(hash)});
        stored.insert({run, hash});
      }
      return integer(exec(t,
                          "INSERT INTO queue(run, key, device, driver, timeout_s, bundle, files, state, tries, queued) "
                          "VALUES(?, ?, ?, ?, CAST(? AS DOUBLE PRECISION), ?, ?, 'queued', 0, ?) RETURNING id",
                          {param(run), param(key), param(kind.device), param(kind.driver), param(timeout_s),
                           bytes_param(bundle.own), param(files_json(bundle.shared)), param(utc_now())})[0][0]);
    });
    std::lock_guard<std::mutex> lock(mutex_);
    sent_.insert(stored.begin(), stored.end());
    return id;
  }

  std::optional<QueueOutcome> outcome(std::int64_t id) override {
    return write([&](pqxx::transaction_base& t) -> std::optional<QueueOutcome> {
      auto now = std::chrono::steady_clock::now();
      if (now - last_expired_ > std::chrono::seconds(1)) {
        exec(t, expire_statement(), {param(utc_now())});
        last_expired_ = now;
      }
      pqxx::result r =
          exec(t, "SELECT state, ended, exit_code, seconds, answer, stderr, tries FROM queue WHERE id = ?", {param(id)});
      if (r.empty())
        throw Error(fmt::format("work queue {}: candidate {} is no longer in the queue (its row was removed)", name_, id));
      std::string state = text(r[0][0]);
      if (state != "done" && state != "crash") return std::nullopt;
      QueueOutcome o;
      o.ended = text(r[0][1]);
      o.code = static_cast<int>(integer(r[0][2]));
      o.seconds = r[0][3].is_null() ? 0.0 : real(r[0][3]);
      o.answer = text(r[0][4]);
      o.err = text(r[0][5]);
      o.tries = static_cast<int>(integer(r[0][6]));
      return o;
    });
  }

  void take(std::int64_t id) override {
    write([&](pqxx::transaction_base& t) { return exec(t, "DELETE FROM queue WHERE id = ?", {param(id)}); });
  }

  void end_run(std::int64_t run) override {
    write([&](pqxx::transaction_base& t) {
      exec(t, "SELECT pg_advisory_xact_lock(?)", {param(kFilesLock)});
      exec(t, "DELETE FROM queue WHERE run = ?", {param(run)});
      exec(t, "DELETE FROM queue_run_files WHERE run = ?", {param(run)});
      return exec(t, "DELETE FROM queue_files WHERE NOT EXISTS (SELECT 1 FROM queue_run_files u WHERE u.hash = "
                     "queue_files.hash)",
                  {});
    });
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = sent_.begin(); it != sent_.end();) it = it->first == run ? sent_.erase(it) : std::next(it);
  }

  std::optional<Claim> claim(const DeviceKind& kind, const std::string& owner, double lease_s) override {
    return write([&](pqxx::transaction_base& t) -> std::optional<Claim> {
      exec(t, expire_statement(), {param(utc_now())});
      pqxx::result r = exec(
          t,
          fmt::format("UPDATE queue SET state = 'leased', owner = ?, lease_until = {0} + CAST(? AS DOUBLE PRECISION), "
                      "heartbeat = {0}, tries = tries + 1 WHERE id = (SELECT id FROM queue WHERE state = 'queued' AND "
                      "device = ? AND driver = ? ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) "
                      "RETURNING id, run, key, timeout_s, bundle, files, tries",
                      kNow),
          {param(owner), param(lease_s), param(kind.device), param(kind.driver)});
      if (r.empty()) return std::nullopt;
      Claim c;
      c.id = integer(r[0][0]);
      c.run = integer(r[0][1]);
      c.key = text(r[0][2]);
      c.timeout_s = real(r[0][3]);
      c.bundle.own = pqxx::binarystring(r[0][4]).str();
      c.bundle.shared = files_from_json(text(r[0][5]), fmt::format("work queue {}: candidate {}", name_, c.id));
      c.tries = static_cast<int>(integer(r[0][6]));
      return c;
    });
  }

  bool heartbeat(std::int64_t id, const std::string& owner, double lease_s) override {
    return write([&](pqxx::transaction_base& t) {
      return exec(t,
                  fmt::format("UPDATE queue SET lease_until = {0} + CAST(? AS DOUBLE PRECISION), heartbeat = {0} "
                              "WHERE id = ? AND owner = ? AND state = 'leased'",
                              kNow),
                  {param(lease_s), param(id), param(owner)})
                 .affected_rows() == 1;
    });
  }

  bool finish(std::int64_t id, const std::string& owner, const QueueOutcome& o) override {
    return write([&](pqxx::transaction_base& t) {
      return exec(t,
                  "UPDATE queue SET state = 'done', ended = ?, exit_code = ?, seconds = CAST(? AS DOUBLE PRECISION), "
                  "answer = ?, stderr = ?, finished = ?, owner = NULL, lease_until = NULL "
                  "WHERE id = ? AND owner = ? AND state = 'leased'",
                  {param(o.ended), param(std::int64_t{o.code}), param(o.seconds), param(o.answer), param(o.err),
                   param(utc_now()), param(id), param(owner)})
                 .affected_rows() == 1;
    });
  }

  void give_back(std::int64_t id, const std::string& owner) override {
    write([&](pqxx::transaction_base& t) {
      return exec(t,
                  "UPDATE queue SET state = 'queued', owner = NULL, lease_until = NULL, tries = tries - 1 "
                  "WHERE id = ? AND owner = ? AND state = 'leased'",
                  {param(id), param(owner)});
    });
  }

  std::string file(const std::string& hash) override {
    return write([&](pqxx::transaction_base& t) {
      pqxx::result r = exec(t, "SELECT data FROM queue_files WHERE hash = ?", {param(hash)});
      if (r.empty()) throw Error(fmt::format("work queue {}: it holds no shared file {}", name_, hash));
      return pqxx::binarystring(r[0][0]).str();
    });
  }

  std::int64_t join(const WorkerRecord& w) override {
    return write([&](pqxx::transaction_base& t) {
      return integer(exec(t,
                          fmt::format("INSERT INTO workers(host, pid, device, driver, runner, lease_s, started, "
                                      "heartbeat, done) VALUES(?, ?, ?, ?, ?, CAST(? AS DOUBLE PRECISION), ?, {}, 0) "
                                      "RETURNING id",
                                      kNow),
                          {param(w.host), param(w.pid), param(w.device), param(w.driver), param(w.runner),
                           param(w.lease_s), param(utc_now())})[0][0]);
    });
  }

  void beat(std::int64_t worker, std::optional<std::int64_t> current, std::int64_t done) override {
    write([&](pqxx::transaction_base& t) {
      return exec(t, fmt::format("UPDATE workers SET heartbeat = {}, current = ?, done = ? WHERE id = ?", kNow),
                  {current ? param(*current) : Param(), param(done), param(worker)});
    });
  }

  void leave(std::int64_t worker, std::int64_t done) override {
    write([&](pqxx::transaction_base& t) {
      return exec(t, fmt::format("UPDATE workers SET heartbeat = {}, current = NULL, done = ?, stopped = ? WHERE id = ?", kNow),
                  {param(done), param(utc_now()), param(worker)});
    });
  }

  std::vector<WorkerRecord> workers() override {
    return write([&](pqxx::transaction_base& t) {
      std::vector<WorkerRecord> out;
      for (const auto& r : exec(t,
                                fmt::format("SELECT w.id, w.host, w.pid, w.device, w.driver, w.runner, w.lease_s, "
                                            "w.started, w.done, w.current, w.stopped, {} - w.heartbeat, q.run FROM "
                                            "workers w LEFT JOIN queue q ON q.id = w.current ORDER BY w.id",
                                            kNow),
                                {})) {
        WorkerRecord w;
        w.id = integer(r[0]);
        w.host = text(r[1]);
        w.pid = integer(r[2]);
        w.device = text(r[3]);
        w.driver = text(r[4]);
        w.runner = text(r[5]);
        w.lease_s = real(r[6]);
        w.started = text(r[7]);
        w.done = integer(r[8]);
        if (!r[9].is_null()) w.current = integer(r[9]);
        w.stopped = text(r[10]);
        w.silent_s = real(r[11]);
        w.current_run = integer(r[12]);
        out.push_back(std::move(w));
      }
      return out;
    });
  }

  const std::string& name() const override { return name_; }

 private:
  std::string name_;
  std::unique_ptr<pqxx::connection> db_;
  std::mutex mutex_;
  std::set<std::pair<std::int64_t, std::string>> sent_;  // (run, hash) of the shared files this queue stored
  std::chrono::steady_clock::time_point last_expired_{};
};

}  // namespace

std::unique_ptr<Queue> Queue::open(const std::string& db, const std::string& what) {
  if (!is_database_url(db))
    throw Error(fmt::format("{}: the work queue needs a PostgreSQL store (--db postgresql://USER@HOST/DATABASE), which "
                            "workers on other processes and machines reach; {} is a SQLite file",
                            what, db));
  return std::make_unique<PostgresQueue>(db);
}

}  // namespace liftc::explore
