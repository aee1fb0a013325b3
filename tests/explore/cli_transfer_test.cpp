// A tuning database that transfers (search/transfer.hpp), end to end on the test machine's
// OpenCL device: a store holding a recorded run of one shape of a matrix multiply
// (tests/data/search_replay/matmul_small.sql, M = 4), and a new exploration of another shape
// (matmul_m8.sr, M = 8) with --search model in it.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "explore_cli.hpp"

namespace liftc::explore::test {
namespace {

const std::string kRecorded = std::string(LIFTC_SOURCE_DIR) + "/tests/data/search_replay/";

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// liftc explore of the recorded M = 8 shape with the model-guided search: `evals` candidates
// (a first round of as many, at most 6), one timed run each, then `rest` (the store, ...).
std::string explore_m8(int evals, const std::string& rest) {
  return fmt::format("explore '{}matmul_m8.sr' -s matmul-parametric --search model --evals {} --population {} -j 2 "
                     "--warmup 1 --runs 1 -q {}",
                     kRecorded, evals, std::min(evals, 6), rest);
}

// The model is trained on the other shape's 168 rows before the first measurement, the
// recorded best point (it fits M = 8) is in the first round, and the summary gives the
// model's share of the loop.
TEST_F(ExploreCli, AModelSearchOfANewShapeStartsFromTheStoresOtherShape) {
  sql(dir() / "r.db", text_of(kRecorded + "matmul_small.sql"));
  ASSERT_EQ(rows(dir() / "r.db"), 168);
  Result r = run(explore_m8(10, "--db r.db"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("tuning database r.db: 168 row(s) of 1 other program(s) or device(s) train the model before "
                          "the first measurement; 4 best point(s) of the nearest shapes start its first round\n"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("model: trained on 168 row(s) of a tuning database before the first measurement; "),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("% of the loop's "), std::string::npos) << "the model's share of the loop: " << r.output;
  // The recorded best (0.00065 ms) in the new run's first round of 6 (stored as they end).
  EXPECT_EQ(rows(dir() / "r.db", "run = 2 AND id < (SELECT MIN(id) FROM evaluations WHERE run = 2) + 6 AND "
                                 "alternative = 5 AND point = 'mad=1,unroll=1,n_M=4,local_1=1,local_0=1,omega_K=8'"),
            1)
      << r.output;
  EXPECT_EQ(rows(dir() / "r.db", "run = 2"), 10);
}

// --train-db names another store; a search without a model refuses it.
TEST_F(ExploreCli, TrainDbIsAnotherStoreAndOnlyForTheModelSearch) {
  sql(dir() / "small.db", text_of(kRecorded + "matmul_small.sql"));
  Result r = run(explore_m8(6, "--db new.db --train-db small.db"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("tuning database small.db: 168 row(s) of 1 other program(s) or device(s) train the model"),
            std::string::npos)
      << r.output;
  // Given twice, the stores are read as one: the same program on the same device in both is
  // one group of both stores' rows.
  std::filesystem::copy_file(dir() / "small.db", dir() / "copy.db");
  Result two = run(explore_m8(4, "--db two.db --train-db small.db --train-db copy.db"));
  ASSERT_EQ(two.exit_code, 0) << two.output;
  EXPECT_NE(two.output.find("tuning database small.db, copy.db: 336 row(s) of 1 other program(s) or device(s) train "
                            "the model"),
            std::string::npos)
      << two.output;
  // A store without other programs' rows: nothing to say of it.
  Result alone = run(explore_m8(4, "--db new.db"));
  ASSERT_EQ(alone.exit_code, 0) << alone.output;
  EXPECT_EQ(alone.output.find("tuning database"), std::string::npos) << alone.output;
  expect(fmt::format("explore '{}matmul_m8.sr' --search genetic --train-db small.db --db x.db", kRecorded), 1,
         "error: --train-db trains the model-guided search's model: give it with --search model\n");
  expect(fmt::format("explore '{}matmul_m8.sr' --search model --train-db small.db --train-db small.db --db x.db",
                     kRecorded),
         1, "error: --train-db small.db is given twice\n");
  expect(fmt::format("explore '{}matmul_m8.sr' -s matmul-parametric --search model --train-db missing.db --db y.db",
                     kRecorded),
         1, "missing.db");
}

// The tuning databases a run trains on are stored with it: --resume opens them again, and
// --resume with others is refused.
TEST_F(ExploreCli, AResumedRunTrainsOnTheDatabasesItStartedWith) {
  sql(dir() / "small.db", text_of(kRecorded + "matmul_small.sql"));
  std::filesystem::copy_file(dir() / "small.db", dir() / "copy.db");
  Result r = run(explore_m8(4, "--db r.db --train-db small.db --train-db copy.db"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  sql(dir() / "r.db", "DELETE FROM run_ends");  // as if it had been stopped
  expect("explore --resume --db r.db --train-db small.db", 1,
         "error: --resume: run 1 of r.db trained its model on small.db, copy.db, not small.db\n");
  Result resumed = run("explore --resume --db r.db");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("tuning database small.db, copy.db: 336 row(s)"), std::string::npos) << resumed.output;
}

}  // namespace
}  // namespace liftc::explore::test
