// The results store: rows keyed by what was run, failures with reasons, runs for resume,
// references, append-only reopening, and clear errors for a missing or foreign file; a
// damaged store (rows edited, bytes overwritten) is a clear error, never a crash; stores of
// earlier versions are read; a store opens in a folder nobody may write; a file-size limit
// is an error that leaves a store that opens; runs are locked against other processes;
// which stored rows may be served again.

#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "liftc/explore/evaluation/evaluate.hpp"
#include "liftc/explore/request.hpp"
#include "liftc/explore/store/sqlite_store.hpp"
#include "liftc/support/diagnostic.hpp"
#include "test_folder.hpp"

namespace liftc::explore {
namespace {

namespace fs = std::filesystem;

// A run's options as stored: --train-db's stores as a list (each without its password), and
// a run stored before --train-db repeated, with one name or "" for none, read back so.
TEST(StoredRequest, TrainDbsAreAListAndAnOlderRunsOneNameIsReadBack) {
  Request r;
  r.file = "conv.sr";
  r.train_dbs = {"a.db", "postgresql://u:secret@host/db"};
  nlohmann::json j = request_to_json(r);
  EXPECT_EQ(j.at("train_db"), nlohmann::json({"a.db", "postgresql://u:***@host/db"}));
  Request back;
  request_from_json(j, back);
  EXPECT_EQ(back.train_dbs, (std::vector<std::string>{"a.db", "postgresql://u:***@host/db"}));
  for (auto [stored, want] : std::vector<std::pair<nlohmann::json, std::vector<std::string>>>{
           {"old.db", {"old.db"}}, {"", {}}}) {
    j["train_db"] = stored;
    request_from_json(j, back);
    EXPECT_EQ(back.train_dbs, want) << stored;
  }
  j.erase("train_db");  // a run stored before --train-db
  request_from_json(j, back);
  EXPECT_TRUE(back.train_dbs.empty());
}

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::fresh_test_folder("liftc_store");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string db() const { return (dir_ / "results.db").string(); }
  fs::path dir_;
};

Evaluation row(const std::string& key, const std::string& status, double time, const std::string& reason = "") {
  Evaluation e;
  e.key = key;
  e.program = "p1";
  e.file = "conv.sr";
  e.strategy = "conv-gpu";
  e.alternative = 2;
  e.point = "v=4,kappa=2";
  e.status = status;
  e.reason = reason;
  e.time_ms = time;
  e.spread_ms = 0.01;
  e.samples_ms = {time, time + 0.01};
  e.memory_bytes = 4096;
  e.device = "dev";
  e.driver = "1.0";
  e.shapes = "x=4";
  e.machine = "aarch64";
  e.seconds = 0.25;
  return e;
}

TEST_F(StoreTest, RowsAreFoundByKeyAndKeepEveryField) {
  SqliteStore s(db());
  std::int64_t run = s.begin_run("conv.sr", "{}");
  Evaluation e = row("k1", status::Ok, 1.5);
  e.run = run;
  s.add(e);
  auto got = s.find("k1");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, "ok");
  EXPECT_EQ(got->time_ms, 1.5);
  EXPECT_EQ(got->samples_ms, (std::vector<double>{1.5, 1.51}));
  EXPECT_EQ(got->memory_bytes, 4096);
  EXPECT_EQ(got->point, "v=4,kappa=2");
  EXPECT_EQ(got->machine, "aarch64");
  EXPECT_EQ(got->seconds, 0.25);
  EXPECT_EQ(outcome_of(*got).seconds, 0.25);
  EXPECT_EQ(got->version, kLiftcVersion);
  EXPECT_FALSE(got->created.empty());
  EXPECT_EQ(got->run, run);
  EXPECT_FALSE(s.find("k2"));
}

TEST_F(StoreTest, FailuresAreRowsWithTheirReason) {
  SqliteStore s(db());
  s.add(row("t", status::Timeout, 0, "timed out after 2 s (killed by the watchdog)"));
  s.add(row("c", status::Crash, 0, "the runner was killed by signal 11"));
  auto t = s.find("t");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->status, "timeout");
  EXPECT_EQ(t->reason, "timed out after 2 s (killed by the watchdog)");
  EXPECT_FALSE(status_valid(t->status));
  EXPECT_EQ(s.evaluations().size(), 2u);
}

TEST_F(StoreTest, ReopeningAppendsAndKeepsEarlierRows) {
  {
    SqliteStore s(db());
    s.add(row("a", status::Ok, 1));
  }
  SqliteStore s(db());
  s.add(row("b", status::Ok, 2));
  auto all = s.evaluations();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].key, "a");
  EXPECT_EQ(all[1].key, "b");
}

TEST_F(StoreTest, RunsRecordConfigAndWhetherTheyFinished) {
  SqliteStore s(db());
  auto r1 = s.begin_run("a.sr", R"({"evals":"10"})");
  auto r2 = s.begin_run("b.sr", "{}");
  s.end_run(r1);
  auto runs = s.runs();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_TRUE(runs[0].finished);
  EXPECT_FALSE(runs[1].finished);
  EXPECT_EQ(runs[0].config, R"({"evals":"10"})");
  EXPECT_EQ(runs[1].id, r2);
  Evaluation e = row("x", status::Ok, 1);
  e.run = r2;
  s.add(e);
  EXPECT_EQ(s.evaluations(r2).size(), 1u);
  EXPECT_EQ(s.evaluations(r1).size(), 0u);
}

TEST_F(StoreTest, CandidatesAreFoundForReplay) {
  SqliteStore s(db());
  s.add(row("k", status::Ok, 3));
  EXPECT_TRUE(s.find_candidate("p1", "conv-gpu", 2, "v=4,kappa=2"));
  EXPECT_FALSE(s.find_candidate("p1", "conv-gpu", 1, "v=4,kappa=2"));
  EXPECT_FALSE(s.find_candidate("p2", "conv-gpu", 2, "v=4,kappa=2"));
}

TEST_F(StoreTest, ReferencesRoundTripAndAreKeptOnce) {
  SqliteStore s(db());
  interp::Tensors t;
  t["y"].dtype = io::DType::Float32;
  t["y"].shape = {2, 3};
  t["y"].f32 = {1, 2, 3, 4, 5, 6};
  t["z"].dtype = io::DType::Int32;
  t["z"].shape = {2};
  t["z"].i32 = {-1, 7};
  s.put_reference("r", "test", t);
  interp::Tensors other = t;
  other["y"].f32[0] = 99;
  s.put_reference("r", "test", other);  // kept: the first one stays
  auto back = s.reference("r");
  ASSERT_TRUE(back);
  EXPECT_EQ((*back)["y"].shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ((*back)["y"].f32, t["y"].f32);
  EXPECT_EQ((*back)["z"].i32, t["z"].i32);
  EXPECT_FALSE(s.reference("nope"));
}

TEST_F(StoreTest, KeysHashTheirText) {
  EXPECT_EQ(hash_text("kernel a"), hash_text("kernel a"));
  EXPECT_NE(hash_text("kernel a"), hash_text("kernel b"));
  EXPECT_EQ(hash_text("").size(), 32u);
}

struct StoreErrorCase {
  const char* what;
  const char* content;  // nullptr: no file
  const char* message;
};

TEST_F(StoreTest, Errors) {
  const StoreErrorCase cases[] = {
      {"missing", nullptr, "no results store at"},
      {"not sqlite", "hello, this is text\n", "is not a liftc results store"},
      {"empty", "", "is not a liftc results store (it has no table runs)"},
  };
  for (const auto& c : cases) {
    fs::path path = dir_ / (std::string(c.what) + ".db");
    if (c.content) std::ofstream(path) << c.content;
    try {
      Store::open_existing(path.string());
      ADD_FAILURE() << c.what;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << c.what << ": " << e.what();
    }
  }
}

// Runs `sql` on the store file directly, as a user with the sqlite3 shell (or a damaged
// disk) could; a failure fails the test.
void tamper(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  char* message = nullptr;
  EXPECT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &message), SQLITE_OK) << sql << ": " << (message ? message : "");
  sqlite3_free(message);
  sqlite3_close(h);
}

// Whether `read` throws a liftc::Error whose text holds `message`.
::testing::AssertionResult fails_with(const std::function<void()>& read, const std::string& message) {
  try {
    read();
  } catch (const Error& e) {
    if (std::string(e.what()).find(message) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "the error was: " << e.what();
  }
  return ::testing::AssertionFailure() << "no error";
}

// A store with run 1 (config {"a": 1}), evaluation 1 (ok) and reference "r" (y: 2x3 floats).
void small_store(const std::string& db) {
  SqliteStore s(db);
  Evaluation e = row("k", status::Ok, 1.5);
  e.run = s.begin_run("conv.sr", R"({"a": 1})");
  e.timeout_s = 10;
  s.add(e);
  interp::Tensors t;
  t["y"].dtype = io::DType::Float32;
  t["y"].shape = {2, 3};
  t["y"].f32 = {1, 2, 3, 4, 5, 6};
  s.put_reference("r", "test", t);
}

enum class Read { Evaluations, RunConfig, Reference };

struct DamageCase {
  const char* what;
  const char* sql;  // run on the small store
  Read read;
  const char* message;
};

// Item 8 of issue 20: what a damaged row gives is "STORE: ... is damaged (...)".
TEST_F(StoreTest, DamagedRowsAreClearErrors) {
  const DamageCase cases[] = {
      {"samples not JSON", "UPDATE evaluations SET samples_ms = 'fast'", Read::Evaluations,
       "results.db: evaluation 1 is damaged (its samples_ms is not a JSON list of numbers)"},
      {"samples of text", R"(UPDATE evaluations SET samples_ms = '["a"]')", Read::Evaluations,
       "results.db: evaluation 1 is damaged (its samples_ms is not a JSON list of numbers)"},
      {"samples an object", R"(UPDATE evaluations SET samples_ms = '{"a": 1}')", Read::Evaluations,
       "results.db: evaluation 1 is damaged (its samples_ms is not a JSON list of numbers)"},
      {"memory text", "UPDATE evaluations SET memory_bytes = 'lots'", Read::Evaluations,
       "results.db: evaluation 1 is damaged (its memory_bytes is not an integer)"},
      {"alternative real", "UPDATE evaluations SET alternative = 1.5", Read::Evaluations,
       "results.db: evaluation 1 is damaged (its alternative is not an integer)"},
      {"run text", "UPDATE evaluations SET run = 'first'", Read::Evaluations,
       "results.db: evaluation 1 is damaged (its run is not an integer)"},
      {"time text", "UPDATE evaluations SET time_ms = 'quick'", Read::Evaluations,
       "results.db: evaluation 1 is damaged (its time_ms is not a number)"},
      {"timeout bytes", "UPDATE evaluations SET timeout_s = x'00'", Read::Evaluations,
       "results.db: evaluation 1 is damaged (its timeout_s is not a number)"},
      {"config not JSON", "UPDATE runs SET config = '{'", Read::RunConfig,
       "results.db: run 1 is damaged (its config is not a JSON object)"},
      {"config a list", "UPDATE runs SET config = '[1]'", Read::RunConfig,
       "results.db: run 1 is damaged (its config is not a JSON object)"},
      {"meta garbage", "UPDATE refs SET meta = 'garbage'", Read::Reference,
       "results.db: the reference r is damaged (its meta is not a JSON list)"},
      {"meta an object", R"(UPDATE refs SET meta = '{"name": "y"}')", Read::Reference,
       "results.db: the reference r is damaged (its meta is not a JSON list)"},
      {"no name", R"(UPDATE refs SET meta = '[{"dtype": "f32", "shape": [6]}]')", Read::Reference,
       "the reference r is damaged (an entry of its meta has no name)"},
      {"dtype f64", R"(UPDATE refs SET meta = '[{"name": "y", "dtype": "f64", "shape": [6]}]')", Read::Reference,
       "the reference r is damaged ('y' has no dtype f32 or i32)"},
      {"shape 2^62", R"(UPDATE refs SET meta = '[{"name": "y", "dtype": "f32", "shape": [4611686018427387904]}]')",
       Read::Reference, "the reference r is damaged (its data is shorter than the shape of 'y' needs)"},
      {"shape overflowing 64 bits",
       R"(UPDATE refs SET meta = '[{"name": "y", "dtype": "f32", "shape": [4294967296, 4294967296, 16]}]')",
       Read::Reference, "the reference r is damaged (its data is shorter than the shape of 'y' needs)"},
      {"shape 2^64", R"(UPDATE refs SET meta = '[{"name": "y", "dtype": "f32", "shape": [18446744073709551615]}]')",
       Read::Reference, "the reference r is damaged (the shape of 'y' is not a list of sizes >= 0)"},
      {"negative size", R"(UPDATE refs SET meta = '[{"name": "y", "dtype": "f32", "shape": [-6]}]')", Read::Reference,
       "the reference r is damaged (the shape of 'y' is not a list of sizes >= 0)"},
      {"size not whole", R"(UPDATE refs SET meta = '[{"name": "y", "dtype": "f32", "shape": [1.5]}]')", Read::Reference,
       "the reference r is damaged (the shape of 'y' is not a list of sizes >= 0)"},
      {"shape missing", R"(UPDATE refs SET meta = '[{"name": "y", "dtype": "f32"}]')", Read::Reference,
       "the reference r is damaged ('y' has no shape)"},
      {"data longer", R"(UPDATE refs SET meta = '[{"name": "y", "dtype": "f32", "shape": [2]}]')", Read::Reference,
       "the reference r is damaged (its data is longer than its meta says)"},
      {"data shorter", "UPDATE refs SET data = x'0000803f'", Read::Reference,
       "the reference r is damaged (its data is shorter than the shape of 'y' needs)"},
      {"name twice",
       R"(UPDATE refs SET meta = '[{"name": "y", "dtype": "f32", "shape": [3]}, {"name": "y", "dtype": "i32", "shape": [3]}]')",
       Read::Reference, "the reference r is damaged ('y' appears twice)"},
  };
  for (const auto& c : cases) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    small_store(db());
    tamper(db(), c.sql);
    for (bool writable : {false, true}) {  // what results reads, and what explore reads
      std::unique_ptr<Store> s = writable ? std::make_unique<SqliteStore>(db()) : Store::open_existing(db());
      std::function<void()> read = [&] {
        if (c.read == Read::Evaluations) s->evaluations();
        if (c.read == Read::RunConfig) s->run_config(s->runs().at(0));
        if (c.read == Read::Reference) s->reference("r");
      };
      EXPECT_TRUE(fails_with(read, c.message)) << c.what;
    }
  }
}

// Bytes of the file overwritten: an error that says so, whatever is read.
TEST_F(StoreTest, OverwrittenBytesAreAClearError) {
  small_store(db());
  {
    SqliteStore s(db());
    for (int i = 0; i < 200; ++i) s.add(row(fmt::format("k{}", i), status::Ok, i, std::string(100, 'x')));
  }
  ASSERT_FALSE(fs::exists(db() + "-wal"));  // everything is in the file
  {
    std::fstream f(db(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(3 * 4096);
    std::string junk(4096 * 4, '\xff');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  EXPECT_TRUE(fails_with([&] { Store::open_existing(db())->evaluations(); }, "results.db is damaged (database disk image is malformed)"));
}

struct ResultCase {
  const char* status;
  double time_ms;
  std::int64_t memory;
  double timeout_s;  // the row's watchdog
  bool valid;        // valid_result
  bool servable;     // under a watchdog of 10 s
};

// Items 4 and 5 of issue 20: an ok without a usable time is no result; a crash, a runner
// error and a timeout under a shorter watchdog are tried again.
TEST(StoredRows, WhichAreValidAndWhichAreServed) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const ResultCase cases[] = {
      {"ok", 1.5, 64, 10, true, true},
      {"ok", 0, 64, 10, true, true},
      {"cut", 9, 64, 10, true, true},
      {"ok", nan, 64, 10, false, false},  // an ok with no time (NULL in the store)
      {"ok", -1, 64, 10, false, false},
      {"ok", inf, 64, 10, false, false},
      {"cut", nan, 64, 10, false, false},
      {"ok", 1, -5, 10, false, false},
      {"invalid", nan, 0, nan, false, true},
      {"build", nan, 64, 10, false, true},
      {"run", nan, 64, 10, false, true},
      {"wrong", nan, 64, 10, false, true},
      {"unwritten", nan, 64, 10, false, true},
      {"canary", nan, 64, 10, false, true},
      {"timeout", nan, 64, 10, false, true},   // the same watchdog
      {"timeout", nan, 64, 60, false, true},   // a more patient one
      {"timeout", nan, 64, 2, false, false},   // a shorter one: tried again
      {"timeout", nan, 64, nan, false, false}, // unknown (a store of an earlier version)
      {"crash", nan, 64, 10, false, false},
      {"runner", nan, 64, 10, false, false},
      {"bogus", 1, 64, 10, false, false},
      {"", 1, 64, 10, false, false},
  };
  for (const auto& c : cases) {
    Evaluation e = row("k", c.status, c.time_ms);
    e.memory_bytes = c.memory;
    e.timeout_s = c.timeout_s;
    EXPECT_EQ(valid_result(e), c.valid) << c.status << " " << c.time_ms << " " << c.memory;
    EXPECT_EQ(servable(e, 10), c.servable) << c.status << " " << c.time_ms << " " << c.timeout_s;
    EXPECT_EQ(outcome_of(e).ok, c.valid) << c.status;
  }
}

// A failed row's time is NULL in the store: read back as no time (NaN), never as 0 ms.
TEST_F(StoreTest, NoTimeIsReadBackAsNoTime) {
  SqliteStore s(db());
  s.add(row("k", status::Crash, std::numeric_limits<double>::quiet_NaN()));
  tamper(db(),
         "INSERT INTO evaluations SELECT NULL, run, 'k2', program, file, strategy, alternative, point, 'ok', "
         "reason, NULL, NULL, samples_ms, memory_bytes, device, driver, shapes, liftc_version, created, NULL, machine, "
         "seconds FROM evaluations");
  auto rows = s.evaluations();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(std::isnan(rows[0].time_ms));
  EXPECT_TRUE(std::isnan(rows[1].time_ms));
  EXPECT_FALSE(valid_result(rows[1]));
}

// A store written before evaluations had timeout_s, machine and seconds: read as it is (its
// timeouts' watchdog unknown, its machines empty, its runners' seconds unknown), and given the
// columns when opened for writing.
TEST_F(StoreTest, StoresOfEarlierVersionsAreRead) {
  tamper(db(), R"sql(
CREATE TABLE runs(id INTEGER PRIMARY KEY, started TEXT NOT NULL, file TEXT NOT NULL, config TEXT NOT NULL, liftc_version TEXT NOT NULL);
CREATE TABLE run_ends(run INTEGER NOT NULL, finished TEXT NOT NULL);
CREATE TABLE evaluations(id INTEGER PRIMARY KEY, run INTEGER NOT NULL, key TEXT NOT NULL, program TEXT NOT NULL, file TEXT NOT NULL,
  strategy TEXT NOT NULL, alternative INTEGER NOT NULL, point TEXT NOT NULL, status TEXT NOT NULL, reason TEXT NOT NULL,
  time_ms REAL, spread_ms REAL, samples_ms TEXT NOT NULL, memory_bytes INTEGER NOT NULL, device TEXT NOT NULL,
  driver TEXT NOT NULL, shapes TEXT NOT NULL, liftc_version TEXT NOT NULL, created TEXT NOT NULL);
CREATE TABLE refs(key TEXT PRIMARY KEY, what TEXT NOT NULL, meta TEXT NOT NULL, data BLOB NOT NULL, created TEXT NOT NULL);
INSERT INTO runs VALUES(1, '2026-01-01T00:00:00Z', 'conv.sr', '{}', '0.1');
INSERT INTO evaluations VALUES(1, 1, 'old', 'p1', 'conv.sr', 's', 1, 'v=1', 'timeout', 'timed out', NULL, NULL, '[]', 64,
  'dev', '1.0', 'x=4', '0.1', '2026-01-01T00:00:00Z');
INSERT INTO evaluations VALUES(2, 1, 'old2', 'p1', 'conv.sr', 's', 1, 'v=2', 'ok', '', 1.5, 0.1, '[1.5]', 64,
  'dev', '1.0', 'x=4', '0.1', '2026-01-01T00:00:00Z');
)sql");
  {
    auto old = Store::open_existing(db());
    auto rows = old->evaluations();
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_TRUE(std::isnan(rows[0].timeout_s));
    EXPECT_EQ(rows[0].machine, "");
    EXPECT_TRUE(std::isnan(rows[1].seconds));
    EXPECT_EQ(outcome_of(rows[1]).seconds, 0);  // not known: not slow
    EXPECT_FALSE(servable(rows[0], 1));  // a timeout whose watchdog is unknown is tried again
    EXPECT_TRUE(valid_result(rows[1]));
  }
  SqliteStore s(db());
  Evaluation e = row("new", status::Timeout, 0);
  e.timeout_s = 5;
  s.add(e);
  auto rows = s.evaluations();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].time_ms, 1.5);
  EXPECT_EQ(rows[2].timeout_s, 5);
  EXPECT_EQ(rows[1].machine, "");
  EXPECT_EQ(rows[2].machine, "aarch64");
  EXPECT_TRUE(std::isnan(rows[1].seconds));
  EXPECT_EQ(rows[2].seconds, 0.25);
}

// A store of the version before rows kept their machine (timeout_s, no machine): its rows
// read with no machine; opened for writing, it gets the column and keeps new rows' machine.
TEST_F(StoreTest, AStoreFromBeforeMachinesWereKeptGetsTheColumn) {
  small_store(db());
  tamper(db(), "ALTER TABLE evaluations DROP COLUMN machine");
  EXPECT_EQ(Store::open_existing(db())->evaluations().at(0).machine, "");
  SqliteStore s(db());
  s.add(row("new", status::Ok, 1));
  auto rows = s.evaluations();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].machine, "");
  EXPECT_EQ(rows[0].timeout_s, 10);
  EXPECT_EQ(rows[1].machine, "aarch64");
}

// The store's format, PRAGMA user_version, as the file holds it.
int user_version(const std::string& db) {
  sqlite3* h = nullptr;
  sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &s, nullptr);
  int v = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int(s, 0) : -1;
  sqlite3_finalize(s);
  sqlite3_close(h);
  return v;
}

// Item 14 of issue 36: a new store records its format; a store from before the format was
// kept (user_version 0) is format 1, opens, is read and written, and then records it.
TEST_F(StoreTest, AStoreRecordsItsFormatAndOneWithoutItIsFormatOne) {
  { SqliteStore s(db()); }
  EXPECT_EQ(user_version(db()), kStoreFormat);
  small_store(db());
  tamper(db(), "PRAGMA user_version = 0");
  EXPECT_EQ(Store::open_existing(db())->evaluations().size(), 1u);
  EXPECT_EQ(user_version(db()), 0);  // reading changes nothing
  {
    SqliteStore s(db());
    EXPECT_EQ(s.runs().size(), 1u);
    s.add(row("new", status::Ok, 1));
    EXPECT_EQ(s.evaluations().size(), 2u);
  }
  EXPECT_EQ(user_version(db()), kStoreFormat);
}

// Format 2 added the work queue's tables, format 3 its workers and each run's shared files:
// a store of format 1 (as the liftc before format 2 wrote it) is read as it is, and opened
// for writing gets the tables and says format 3.
TEST_F(StoreTest, AStoreOfFormatOneGetsTheQueueTablesOfFormatTwo) {
  small_store(db());
  tamper(db(), "DROP TABLE queue; DROP TABLE queue_files; DROP TABLE workers; DROP TABLE queue_run_files; "
               "PRAGMA user_version = 1");
  EXPECT_EQ(Store::open_existing(db())->evaluations().size(), 1u);
  EXPECT_EQ(user_version(db()), 1);
  { SqliteStore s(db()); }
  EXPECT_EQ(user_version(db()), 3);
  tamper(db(), "INSERT INTO queue(run, key, device, driver, timeout_s, bundle, files, state, tries, queued) "
               "VALUES(1, 'k', 'd', 'v', 60, x'00', '[]', 'queued', 0, 'now'); "
               "INSERT INTO queue_files(hash, data, created) VALUES('h', x'01', 'now'); "
               "INSERT INTO workers(host, pid, device, driver, runner, lease_s, started, heartbeat, done) "
               "VALUES('h', 1, 'd', 'v', 'liftc-runner', 30, 'now', 0, 0); "
               "INSERT INTO queue_run_files(run, hash) VALUES(1, 'h')");
  EXPECT_EQ(Store::open_existing(db())->evaluations().size(), 1u);
}

// Format 3 added the table of workers and each run's shared files: a store of format 2 (as
// the liftc before it wrote it) is read as it is, and opened for writing gets them.
TEST_F(StoreTest, AStoreOfFormatTwoGetsTheWorkersTableOfFormatThree) {
  small_store(db());
  tamper(db(), "DROP TABLE workers; DROP TABLE queue_run_files; PRAGMA user_version = 2");
  EXPECT_EQ(Store::open_existing(db())->evaluations().size(), 1u);
  EXPECT_EQ(user_version(db()), 2);
  { SqliteStore s(db()); }
  EXPECT_EQ(user_version(db()), 3);
  tamper(db(), "INSERT INTO workers(host, pid, device, driver, runner, lease_s, started, heartbeat, done) "
               "VALUES('h', 1, 'd', 'v', 'liftc-runner', 30, 'now', 0, 0); "
               "INSERT INTO queue_run_files(run, hash) VALUES(1, 'h')");
  EXPECT_EQ(Store::open_existing(db())->evaluations().size(), 1u);
}

// Item 14 of issue 36: a store of a later format (new tables, statuses this liftc does not
// know) is refused with one message, and neither read nor written.
TEST_F(StoreTest, AStoreOfALaterFormatIsRefused) {
  small_store(db());
  tamper(db(),
         "PRAGMA user_version = 99; CREATE TABLE future(x); "
         "INSERT INTO evaluations SELECT NULL, run, 'k2', program, file, strategy, alternative, point, "
         "'someday', reason, time_ms, spread_ms, samples_ms, memory_bytes, device, driver, shapes, liftc_version, "
         "created, timeout_s, machine, seconds FROM evaluations");
  auto size = fs::file_size(db());
  std::string message = fmt::format("{} is a results store of format 99, later than this liftc's (3, liftc {}): open "
                                    "it with the liftc that wrote it, or a later one",
                                    db(), kLiftcVersion);
  EXPECT_TRUE(fails_with([&] { SqliteStore s(db()); }, message));
  EXPECT_TRUE(fails_with([&] { Store::open_existing(db()); }, message));
  EXPECT_EQ(user_version(db()), 99);
  EXPECT_EQ(fs::file_size(db()), size);
  EXPECT_TRUE(fs::exists(db()));
}

// Item 14 of issue 36: rows keep the version of the liftc that made them (the build's,
// not a fixed "0.1"), and the row added is given its id, version and time.
TEST_F(StoreTest, RowsAreStampedWithTheBuildsVersion) {
  EXPECT_EQ(std::string(kLiftcVersion), build_version());
  EXPECT_EQ(std::string(kLiftcVersion).rfind("0.1", 0), 0u) << kLiftcVersion;
  SqliteStore s(db());
  Evaluation e = row("k", status::Ok, 1);
  std::int64_t id = s.add(e);
  EXPECT_EQ(e.id, id);
  EXPECT_EQ(e.version, kLiftcVersion);
  EXPECT_EQ(e.created.size(), std::string("2026-01-01T00:00:00Z").size()) << e.created;
  EXPECT_EQ(s.find("k")->created, e.created);
}

// Item 13 of issue 36: a store path that is a symbolic link to nothing, or a loop of links,
// is refused, and the user's link is left as it was.
TEST_F(StoreTest, ALinkToNothingIsRefusedAndKept) {
  struct Case {
    const char* link;
    const char* target;
    std::string message;
  };
  const Case cases[] = {
      {"dangling.db", "nowhere/x.db", "a symbolic link to nowhere/x.db, which does not exist; give the store's own "
                                      "path, or make the link point at one"},
      {"loop.db", "loop.db", "a symbolic link that loops (it leads back to itself); give the store's own path"},
  };
  for (const auto& c : cases) {
    fs::path link = dir_ / c.link;
    fs::create_symlink(c.target, link);
    EXPECT_TRUE(fails_with([&] { SqliteStore s(link.string()); }, fmt::format("results store {}: {}", link.string(), c.message)))
        << c.link;
    EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link))) << c.link;
    EXPECT_EQ(fs::read_symlink(link), c.target) << c.link;
  }
}

// Runs `child` in a forked process; its exit code (or -1 when it did not exit).
int in_child(const std::function<int()>& child) {
  pid_t pid = fork();
  if (pid == 0) {
    int code = 3;
    try {
      code = child();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child: %s\n", e.what());
    }
    _exit(code);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Item 21 of issue 20: a store in a folder this user cannot write (SQLite cannot make the
// -shm file WAL mode reads through) is read all the same. As root, the reader is `nobody`.
TEST_F(StoreTest, OpensInAFolderNobodyMayWrite) {
  small_store(db());
  ASSERT_FALSE(fs::exists(db() + "-wal"));
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                            fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  int code = in_child([&] {
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) return 4;
    if (access(dir_.c_str(), W_OK) == 0) return 5;  // the folder must not be writable for the test to show anything
    auto s = Store::open_existing(db());
    return s->evaluations().size() == 1 && s->reference("r") ? 0 : 6;
  });
  EXPECT_EQ(code, 0);
  EXPECT_FALSE(fs::exists(db() + "-shm"));

  // With a -wal file beside it, rows may be there: SQLite's "unable to open database file
  // (No such file or directory)" becomes what to do.
  fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add);
  std::ofstream(db() + "-wal").flush();
  fs::permissions(dir_, fs::perms::owner_write, fs::perm_options::remove);
  const std::string expected = fmt::format(
      "results store {0}: some of its rows may be in {0}-wal, which SQLite reads through a {0}-shm file it cannot make "
      "in this folder (this user may not write there); read a copy of {0} and {0}-wal in a folder you can write",
      db());
  code = in_child([&] {
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) return 4;
    try {
      Store::open_existing(db());
      return 7;
    } catch (const Error& e) {
      return e.message() == expected ? 0 : 8;
    }
  });
  fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add);
  EXPECT_EQ(code, 0);
}

// Item 11 of issue 20: under a file-size limit (`ulimit -f`, SIGXFSZ ignored as liftc's main
// does) a store that cannot be made is an error and no file; one that fills up is an error
// and still opens, with every row stored before.
TEST_F(StoreTest, AFileSizeLimitIsAnErrorAndLeavesAStoreThatOpens) {
  int code = in_child([&] {
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit{4096, 4096};
    setrlimit(RLIMIT_FSIZE, &limit);
    try {
      SqliteStore s(db());
      return 7;
    } catch (const Error& e) {
      std::string m = e.what();
      bool said = m.find("results store " + db() + ": ") != std::string::npos &&
                  (m.find("File too large") != std::string::npos || m.find("size limit") != std::string::npos);
      if (!said) std::fprintf(stderr, "%s\n", e.what());
      return said ? 0 : 8;
    }
  });
  EXPECT_EQ(code, 0);
  EXPECT_FALSE(fs::exists(db())) << "a store that could not be made was left behind";

  code = in_child([&] {
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit{128 * 1024, 128 * 1024};
    setrlimit(RLIMIT_FSIZE, &limit);
    SqliteStore s(db());
    for (int i = 0; i < 1000; ++i) {
      try {
        s.add(row(fmt::format("k{}", i), status::Ok, 1, std::string(2000, 'x')));
      } catch (const Error& e) {
        return i > 0 && std::string(e.what()).find("results store") != std::string::npos ? 0 : 9;
      }
    }
    return 10;
  });
  EXPECT_EQ(code, 0);
  auto s = Store::open_existing(db());
  EXPECT_GE(s->evaluations().size(), 1u);
}

// Item 16 of issue 20: a run is locked for as long as the store that began (or resumed) it
// is open, against every other open store, in this process or another; the lock goes with
// the process however it ends.
TEST_F(StoreTest, RunsAreLockedWhileTheirStoreIsOpen) {
  std::int64_t run = 0;
  {
    SqliteStore s(db());
    run = s.begin_run("conv.sr", "{}");
    EXPECT_TRUE(s.try_lock_run(run));  // its own lock again
    EXPECT_EQ(in_child([&] { return SqliteStore(db()).try_lock_run(run) ? 1 : 0; }), 0);
    EXPECT_EQ(in_child([&] { return SqliteStore(db()).try_lock_run(run + 1) ? 0 : 1; }), 0);  // other runs are free
  }
  EXPECT_EQ(in_child([&] { return SqliteStore(db()).try_lock_run(run) ? 0 : 1; }), 0);  // closed: free again
  EXPECT_TRUE(fails_with([&] { SqliteStore(db()).try_lock_run(-1); }, "run -1 cannot be locked"));
}

}  // namespace
}  // namespace liftc::explore
