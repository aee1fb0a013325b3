// stored_seeds (--warm-start): the fastest validated rows of one program on one device by
// earlier runs, read back as points of the current space; rows the space cannot take, and
// rows of the run being seeded or of later ones, are left out.

#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "liftc/explore/search/warm_start.hpp"
#include "liftc/explore/store/sqlite_store.hpp"
#include "test_folder.hpp"
#include "toy_space.hpp"

namespace liftc::explore {
namespace {

namespace fs = std::filesystem;

Evaluation stored(const std::string& strategy, std::int64_t alternative, const std::string& point, double time_ms,
                  const std::string& status = "ok", const std::string& device = "dev", const std::string& program = "p1",
                  std::int64_t run = 1) {
  Evaluation e;
  e.run = run;
  e.key = fmt::format("{} #{} {} {} {}", strategy, alternative, point, device, program);
  e.program = program;
  e.strategy = strategy;
  e.alternative = alternative;
  e.point = point;
  e.status = status;
  e.time_ms = time_ms;
  e.memory_bytes = 64;
  e.device = device;
  return e;
}

TEST(WarmStart, TheFastestValidatedRowsOfTheProgramOnTheDeviceAsPointsOfTheSpace) {
  fs::path dir = test::fresh_test_folder("liftc_warm_start");
  {
    SqliteStore store((dir / "r.db").string());
    // toy_candidates: "tile #1" (a, b in powers of two, a % b == 0, a * b <= 256), "plain #1" (c, not a multiple of 3).
    store.add(stored("tile", 1, "a=16,b=16", 2.0));
    store.add(stored("plain", 1, "c=4", 1.0));
    store.add(stored("tile", 1, "b=4,a=8", 3.0));           // the names in another order
    store.add(stored("tile", 1, "a=16,b=16", 2.5));         // the same point again
    store.add(stored("tile", 1, "a=2,b=4", 0.5));           // not valid in the space (a % b)
    store.add(stored("tile", 1, "a=16,z=1", 0.5));          // a parameter the alternative lacks
    store.add(stored("tile", 1, "a=16", 0.5));              // one missing
    store.add(stored("tile", 2, "a=16,b=16", 0.5));         // an alternative the space lacks
    store.add(stored("conv-gpu", 1, "v=4", 0.5));           // a strategy it lacks
    store.add(stored("plain", 1, "c=5", 0.5, "run"));       // failed
    store.add(stored("plain", 1, "c=7", 0.5, "ok", "other"));       // another device
    store.add(stored("plain", 1, "c=8", 0.5, "ok", "dev", "p2"));   // another program
    store.add(stored("plain", 1, "c=10", 0.5, "ok", "dev", "p1", 2));  // by the run being seeded
    store.add(stored("plain", 1, "c=11", 0.5, "ok", "dev", "p1", 3));  // by a later run
    CandidateSpace space = test::toy_candidates();
    std::vector<Candidate> seeds = stored_seeds(store, "p1", "dev", 2, space, 10);
    ASSERT_EQ(seeds.size(), 3u);
    EXPECT_EQ(seeds[0], (Candidate{1, {4}}));
    EXPECT_EQ(seeds[1], (Candidate{0, {16, 16}}));
    EXPECT_EQ(seeds[2], (Candidate{0, {8, 4}}));
    EXPECT_EQ(stored_seeds(store, "p1", "dev", 2, space, 1), std::vector<Candidate>{seeds[0]});
    EXPECT_TRUE(stored_seeds(store, "p3", "dev", 2, space, 10).empty());
    EXPECT_TRUE(stored_seeds(store, "p1", "dev", 1, space, 10).empty()) << "no run before the first";
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace liftc::explore
