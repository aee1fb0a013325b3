// The results store: rows keyed by what was run, failures with reasons, runs for resume,
// references, append-only reopening, and clear errors for a missing or foreign file.

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <unistd.h>

#include "liftc/explore/store.hpp"
#include "liftc/support/diagnostic.hpp"
#include "test_folder.hpp"

namespace liftc::explore {
namespace {

namespace fs = std::filesystem;

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
  return e;
}

TEST_F(StoreTest, RowsAreFoundByKeyAndKeepEveryField) {
  Store s(db());
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
  EXPECT_EQ(got->version, kLiftcVersion);
  EXPECT_FALSE(got->created.empty());
  EXPECT_EQ(got->run, run);
  EXPECT_FALSE(s.find("k2"));
}

TEST_F(StoreTest, FailuresAreRowsWithTheirReason) {
  Store s(db());
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
    Store s(db());
    s.add(row("a", status::Ok, 1));
  }
  Store s(db());
  s.add(row("b", status::Ok, 2));
  auto all = s.evaluations();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].key, "a");
  EXPECT_EQ(all[1].key, "b");
}

TEST_F(StoreTest, RunsRecordConfigAndWhetherTheyFinished) {
  Store s(db());
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
  Store s(db());
  s.add(row("k", status::Ok, 3));
  EXPECT_TRUE(s.find_candidate("p1", "conv-gpu", 2, "v=4,kappa=2"));
  EXPECT_FALSE(s.find_candidate("p1", "conv-gpu", 1, "v=4,kappa=2"));
  EXPECT_FALSE(s.find_candidate("p2", "conv-gpu", 2, "v=4,kappa=2"));
}

TEST_F(StoreTest, ReferencesRoundTripAndAreKeptOnce) {
  Store s(db());
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

}  // namespace
}  // namespace liftc::explore
