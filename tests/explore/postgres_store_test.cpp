// The PostgreSQL backend against a throwaway server (postgres_server.hpp): the same rows,
// runs, references, filters and front as the SQLite backend for the same writes; a store of
// a later format, an empty database and foreign tables are clear errors that write nothing;
// runs are locked between connections; passwords never reach a message.

#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "liftc/explore/search/pareto.hpp"
#include "liftc/explore/store/postgres_store.hpp"
#include "liftc/explore/store/store.hpp"
#include "liftc/support/diagnostic.hpp"
#include "postgres_server.hpp"
#include "test_folder.hpp"

namespace liftc::explore {
namespace {

namespace fs = std::filesystem;

class PostgresStoreTest : public test::WithPostgresServer<::testing::Test> {
 protected:
  void SetUp() override {
    ASSERT_EQ(error_, "") << "no PostgreSQL server for the test";
    dir_ = test::fresh_test_folder("liftc_pg_store");
    name_ = "store_test";
    server_->create_database(name_);
  }
  void TearDown() override {
    if (server_ && error_.empty()) server_->admin(fmt::format("DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)", name_));
    fs::remove_all(dir_);
  }
  std::string url() const { return server_->url(name_); }
  std::string sqlite() const { return (dir_ / "results.db").string(); }

  fs::path dir_;
  std::string name_;
};


// Whether `f` throws a liftc::Error whose message is `message`.
::testing::AssertionResult fails_with(const std::function<void()>& f, const std::string& message) {
  try {
    f();
  } catch (const Error& e) {
    if (e.message() == message) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "message: " << e.message() << "\nexpected: " << message;
  }
  return ::testing::AssertionFailure() << "no error; expected: " << message;
}

Evaluation row(const std::string& key, const std::string& status, double time, std::int64_t memory,
               const std::string& device, const std::string& file, const std::string& shapes) {
  Evaluation e;
  e.key = key;
  e.program = "hash-of-" + file;
  e.file = file;
  e.strategy = "conv-gpu";
  e.alternative = 2;
  e.point = "v=4,kappa=" + key;
  e.status = status;
  e.reason = status_valid(status) ? "" : "it 'failed'; DROP TABLE runs; --";
  e.time_ms = time;
  e.spread_ms = std::isfinite(time) ? 0.01 : time;
  e.samples_ms = {time, 0.1, std::numeric_limits<double>::quiet_NaN()};
  e.memory_bytes = memory;
  e.device = device;
  e.driver = "1.0";
  e.shapes = shapes;
  e.timeout_s = 20.5;
  e.machine = "x86_64";
  return e;
}

// The same writes, on either backend.
void write_rows(Store& s) {
  std::int64_t run = s.begin_run("/work/conv.sr", R"({"program":"p","ünïcode":"ok"})");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Evaluation rows[] = {
      row("1", status::Ok, 2.5, 4096, "gpu-a", "/x/conv.sr", "image=28x28x32,weights=3x3"),
      row("2", status::Ok, 1.25, 8192, "gpu-a", "/x/conv.sr", "image=28x28x32,weights=3x3"),
      row("3", status::Cut, 30.0, 1024, "gpu-b", "/x/conv.sr", "image=14x14x64"),
      row("4", status::Build, nan, 0, "gpu-b", "/y/matmul.sr", "a=64x64"),
      row("5", status::Ok, 0.5, 1 << 20, "gpu-b", "/y/matmul.sr", "a=64x64"),
      row("6", status::Timeout, std::numeric_limits<double>::infinity(), 0, "gpu-a", "/y/matmul.sr", "a=64x64"),
      row("2", status::Ok, 1.5, 8192, "gpu-a", "/x/conv.sr", "image=28x28x32,weights=3x3"),
  };
  for (Evaluation e : rows) {
    e.run = run;
    s.add(e);
  }
  s.end_run(run);
  s.begin_run("/y/matmul.sr", "{}");
  io::Tensor t;
  t.dtype = io::DType::Float32;
  t.shape = {2, 2};
  t.f32 = {1.5f, -2.0f, 0.0f, 3.25f};
  s.put_reference("ref-1", "conv seed 1", {{"out", t}});
  s.put_reference("ref-1", "kept once", {{"other", t}});
  s.put_reference("ref-0", "second", {});
}

// Every field but the time a row was stamped with.
std::string describe(const Evaluation& e) {
  return fmt::format("{} {} {} {} {} {} {} {} {} {} {} [{}] {} {} {} {} {} {} {}", e.id, e.run, e.key, e.program, e.file,
                     e.strategy, e.alternative, e.point, e.status, e.reason, e.time_ms, fmt::join(e.samples_ms, ","),
                     e.spread_ms, e.memory_bytes, e.device, e.driver, e.shapes, e.timeout_s, e.machine);
}
std::vector<std::string> describe(const std::vector<Evaluation>& rows) {
  std::vector<std::string> out;
  for (const auto& e : rows) out.push_back(describe(e));
  return out;
}
std::vector<std::size_t> front(const std::vector<Evaluation>& rows) {
  std::vector<Objectives> points;
  for (const auto& e : rows)
    points.push_back({valid_result(e) ? e.time_ms : std::numeric_limits<double>::infinity(), e.spread_ms,
                      static_cast<double>(e.memory_bytes)});
  return pareto_front(points);
}

TEST_F(PostgresStoreTest, BothBackendsKeepTheSameRowsRunsReferencesAndFront) {
  auto lite = Store::open(sqlite());
  auto pg = Store::open(url());
  EXPECT_EQ(pg->path(), url());
  write_rows(*lite);
  write_rows(*pg);
  lite.reset();
  pg.reset();
  for (bool existing : {false, true}) {
    auto a = existing ? Store::open_existing(sqlite()) : Store::open(sqlite());
    auto b = existing ? Store::open_existing(url()) : Store::open(url());
    std::vector<Evaluation> rows = b->evaluations();
    ASSERT_EQ(rows.size(), 7u);
    EXPECT_EQ(describe(rows), describe(a->evaluations()));
    EXPECT_TRUE(std::isnan(rows[3].time_ms) && std::isinf(rows[5].time_ms) && std::isnan(rows[0].samples_ms[2]));
    EXPECT_EQ(front(rows), front(a->evaluations()));
    EXPECT_EQ(front(rows), (std::vector<std::size_t>{0, 1, 2, 4}));
    ASSERT_EQ(b->runs().size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(b->runs()[i].id, a->runs()[i].id);
      EXPECT_EQ(b->runs()[i].file, a->runs()[i].file);
      EXPECT_EQ(b->runs()[i].config, a->runs()[i].config);
      EXPECT_EQ(b->runs()[i].finished, a->runs()[i].finished);
    }
    EXPECT_EQ(describe(b->find_all("2")), describe(a->find_all("2")));
    EXPECT_EQ(describe(*b->find("2")), describe(*a->find("2")));
    EXPECT_FALSE(b->find("none"));
    EXPECT_EQ(describe(*b->find_candidate("hash-of-/x/conv.sr", "conv-gpu", 2, "v=4,kappa=2")), describe(rows[6]));
    EXPECT_EQ(b->reference_keys(), a->reference_keys());
    EXPECT_EQ(b->reference_keys(), (std::vector<std::string>{"ref-0", "ref-1"}));
    EXPECT_EQ(b->reference("ref-1")->at("out").f32, a->reference("ref-1")->at("out").f32);
    EXPECT_EQ(b->reference("ref-1")->count("other"), 0u);
    EXPECT_TRUE(b->reference("ref-0")->empty());
    EXPECT_FALSE(b->reference("none"));
  }
}

TEST_F(PostgresStoreTest, FiltersKeepTheSameRowsOnBothBackends) {
  auto lite = Store::open(sqlite());
  auto pg = Store::open(url());
  write_rows(*lite);
  write_rows(*pg);
  struct Case {
    EvaluationFilter filter;
    std::vector<std::int64_t> ids;
  };
  auto f = [](std::int64_t run, const char* device, const char* program, const char* shapes) {
    EvaluationFilter out;
    out.run = run;
    out.device = device;
    out.program = program;
    out.shapes = shapes;
    return out;
  };
  const Case cases[] = {
      {f(-1, "", "", ""), {1, 2, 3, 4, 5, 6, 7}},
      {f(1, "", "", ""), {1, 2, 3, 4, 5, 6, 7}},
      {f(2, "", "", ""), {}},
      {f(-1, "gpu-b", "", ""), {3, 4, 5}},
      {f(-1, "gpu", "", ""), {}},
      {f(-1, "", "matmul.sr", ""), {4, 5, 6}},
      {f(-1, "", "/x/conv.sr", ""), {1, 2, 3, 7}},
      {f(-1, "", "hash-of-/y/matmul.sr", ""), {4, 5, 6}},
      {f(-1, "", "x/conv.sr", ""), {1, 2, 3, 7}},
      {f(-1, "", "onv.sr", ""), {}},
      {f(-1, "", "", "image=28x28x32"), {1, 2, 7}},
      {f(-1, "", "", "28x28"), {1, 2, 7}},
      {f(-1, "gpu-a", "conv.sr", "image=28x28x32"), {1, 2, 7}},
      {f(-1, "gpu-b", "conv.sr", "image=28x28x32"), {}},
      {f(-1, "' OR '1'='1", "", ""), {}},
      {f(-1, "", "%", "_"), {}},
  };
  for (const auto& c : cases) {
    for (Store* s : {lite.get(), pg.get()}) {
      std::vector<std::int64_t> ids;
      for (const auto& e : s->evaluations(c.filter)) ids.push_back(e.id);
      EXPECT_EQ(ids, c.ids) << s->path() << ": run " << c.filter.run << " device '" << c.filter.device << "' program '"
                            << c.filter.program << "' shapes '" << c.filter.shapes << "'";
    }
  }
}

TEST_F(PostgresStoreTest, AStoreOfALaterFormatIsRefusedAndKept) {
  { Store::open(url())->add(row("1", status::Ok, 1, 1, "d", "f", "s")); }
  server_->sql(name_, "UPDATE liftc_schema SET version = 4");
  std::string message = fmt::format("{} is a results store of format 4, later than this liftc's (3, liftc {}): open it "
                                    "with the liftc that wrote it, or a later one",
                                    url(), kLiftcVersion);
  EXPECT_TRUE(fails_with([&] { Store::open(url()); }, message));
  EXPECT_TRUE(fails_with([&] { Store::open_existing(url()); }, message));
  EXPECT_EQ(server_->value(name_, "SELECT count(*) FROM evaluations"), "1");
  EXPECT_EQ(server_->value(name_, "SELECT version FROM liftc_schema"), "4");
  server_->sql(name_, "UPDATE liftc_schema SET version = 0");
  EXPECT_TRUE(fails_with([&] { Store::open(url()); }, url() + " is not a liftc results store (its format is 0)"));
}

// Format 2 added the work queue's tables, format 3 its workers and each run's shared files:
// a store of format 1 or 2 (as the liftc before each made it) is read as it is, and opened
// for writing gets the tables it lacks and says format 3.
TEST_F(PostgresStoreTest, AStoreOfAnEarlierFormatGetsTheQueueAndWorkersTables) {
  const struct {
    int format;
    const char* dropped;
  } cases[] = {{1, "DROP TABLE queue; DROP TABLE queue_files; DROP TABLE workers; DROP TABLE queue_run_files"},
               {2, "DROP TABLE workers; DROP TABLE queue_run_files"}};
  for (const auto& c : cases) {
    server_->sql(name_, "DROP SCHEMA public CASCADE; CREATE SCHEMA public");
    { Store::open(url())->add(row("1", status::Ok, 1, 1, "d", "f", "s")); }
    server_->sql(name_, fmt::format("{}; UPDATE liftc_schema SET version = {}", c.dropped, c.format));
    EXPECT_EQ(Store::open_existing(url())->evaluations().size(), 1u) << c.format;
    EXPECT_EQ(server_->value(name_, "SELECT to_regclass('workers')"), "") << c.format;
    { Store::open(url()); }
    EXPECT_EQ(server_->value(name_, "SELECT version FROM liftc_schema"), "3") << c.format;
    for (const char* table : {"queue", "queue_files", "workers", "queue_run_files"})
      EXPECT_EQ(server_->value(name_, fmt::format("SELECT to_regclass('{}')", table)), table) << c.format;
    EXPECT_EQ(server_->value(name_, "SELECT count(*) FROM evaluations"), "1") << c.format;
  }
}

TEST_F(PostgresStoreTest, AnEmptyDatabaseOrForeignTablesAreNoStore) {
  EXPECT_TRUE(fails_with([&] { Store::open_existing(url()); },
                         "no results store at " + url() + " (its database has no table liftc_schema)"));
  server_->sql(name_, "CREATE TABLE runs(id INTEGER)");
  EXPECT_TRUE(fails_with([&] { Store::open(url()); },
                         url() + " is not a liftc results store (its table runs has no column started)"));
  // Nothing was made: the failed migration was one transaction.
  EXPECT_EQ(server_->value(name_, "SELECT to_regclass('liftc_schema')"), "");
  EXPECT_EQ(server_->value(name_, "SELECT to_regclass('evaluations')"), "");
}

TEST_F(PostgresStoreTest, RunsAreLockedWhileTheirStoreIsOpen) {
  auto first = Store::open(url());
  std::int64_t run = first->begin_run("a.sr", "{}");
  {
    auto second = Store::open(url());
    EXPECT_FALSE(second->try_lock_run(run));
    EXPECT_TRUE(second->try_lock_run(run + 1));
  }
  first.reset();
  EXPECT_TRUE(Store::open(url())->try_lock_run(run));
  EXPECT_TRUE(fails_with([&] { Store::open(url())->try_lock_run(-1); }, url() + ": run -1 cannot be locked (no such run id)"));
}

TEST(PostgresUrl, PasswordsAreHiddenAndOtherSchemesRefused) {
  const struct {
    const char* url;
    const char* shown;
  } cases[] = {
      {"postgresql://team@db.lab/tuning", "postgresql://team@db.lab/tuning"},
      {"postgresql://team:s3cret@db.lab:5433/tuning", "postgresql://team:***@db.lab:5433/tuning"},
      {"postgres://team:p@ss@db.lab/tuning?sslmode=require", "postgres://team:***@db.lab/tuning?sslmode=require"},
      {"postgresql:///tuning?host=/run/pg&password=s3cret&user=team", "postgresql:///tuning?host=/run/pg&password=***&user=team"},
  };
  for (const auto& c : cases) EXPECT_EQ(hide_password(c.url), c.shown);
  EXPECT_TRUE(is_database_url("postgresql://team@db.lab/tuning"));
  EXPECT_TRUE(is_database_url("postgres://db.lab/tuning"));
  EXPECT_FALSE(is_database_url("results.db"));
  EXPECT_FALSE(is_database_url("./odd://name.db"));
  EXPECT_TRUE(fails_with([] { Store::open("mysql://team@db.lab/tuning"); },
                         "--db mysql://...: liftc keeps results in a SQLite file (give its path) or in PostgreSQL "
                         "(postgresql://USER@HOST/DATABASE or postgres://...)"));
}

}  // namespace
}  // namespace liftc::explore
