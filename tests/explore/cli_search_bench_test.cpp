// scripts/bench_search.sh: the random, genetic and model-guided searches replayed over 20
// seeds against the recorded stores in tests/data/search_replay (no device), the second
// shape also with the model trained first on the first's rows, and `liftc explore --seeds`
// without --replay. Whether the model-guided search wins is measured (the script prints
// it), not asserted here.

#include <sys/wait.h>

#include <cstdio>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace {

struct Ran {
  int code = -1;
  std::string output;
};

Ran shell(const std::string& command) {
  Ran r;
  std::FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, p)) r.output.append(buffer, n);
  int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(SearchBenchmark, ReplaysEverySearchOverTwentySeedsAgainstTheRecordedStore) {
  Ran r = shell(fmt::format("'{}/scripts/bench_search.sh' --liftc '{}' --seeds 20 --evals 60", LIFTC_SOURCE_DIR,
                            LIFTC_BINARY));
  ASSERT_EQ(r.code, 0) << r.output;
  struct Replayed {
    const char* search;
    int points;
  };
  for (Replayed x : {Replayed{"random", 168}, Replayed{"genetic", 168}, Replayed{"model", 168}, Replayed{"random", 384},
                     Replayed{"genetic", 384}, Replayed{"model", 384}}) {
    SCOPED_TRACE(fmt::format("{} of {} points", x.search, x.points));
    EXPECT_NE(r.output.find(fmt::format("replay of search '{}' over 20 seed(s) (1..20), up to 60 measurements each, "
                                        "against {} recorded point(s)",
                                        x.search, x.points)),
              std::string::npos)
        << r.output;
    // The recorded space is exhaustive: no search asks a point the store lacks.
    EXPECT_NE(r.output.find(fmt::format("{}: 0 candidate(s) asked that the store does not hold", x.search)),
              std::string::npos)
        << r.output;
  }
  EXPECT_NE(r.output.find("model (seed 1): model: "), std::string::npos) << r.output;  // its training and scoring time
  // The transfer case: matmul_m8's replay with the model trained first on matmul_small's rows.
  EXPECT_NE(r.output.find("/recorded.db: 168 row(s) of 1 other program(s) or device(s) train the model before the first "
                          "measurement; 4 best point(s) of the nearest shapes start its first round"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("model (seed 1): model: trained on 168 row(s) of a tuning database before the first "
                          "measurement; "),
            std::string::npos)
      << r.output;
  std::size_t second = r.output.find("summary (20 seeds, up to 60 measurements each):\n  matmul_small.sql:\n");
  ASSERT_NE(second, std::string::npos) << r.output;
  second = r.output.find("  matmul_m8.sql, and the model trained first on matmul_small.sql (model+transfer):\n", second);
  ASSERT_NE(second, std::string::npos) << r.output;
  for (const char* search : {"random", "genetic", "model", "model+transfer"})
    for (const char* tolerance : {"5%", "10%"})
      EXPECT_NE(r.output.find(fmt::format("    {}: median measurements to within {} of the recorded best: ", search,
                                          tolerance),
                              second),
                std::string::npos)
          << search << " " << tolerance << "\n" << r.output;
}

TEST(SearchBenchmark, SeedsWithoutAReplayIsAnError) {
  Ran r = shell(fmt::format("'{}' explore '{}/tests/data/search_replay/matmul_small.sr' --seeds 20", LIFTC_BINARY,
                            LIFTC_SOURCE_DIR));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("error: --seeds replays the search with that many seeds against a store: give it with "
                          "--replay DB"),
            std::string::npos)
      << r.output;
}

}  // namespace
