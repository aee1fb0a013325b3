// The noise-tolerant front and NSGA-II's sorting, against hand cases and brute force.

#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "liftc/explore/search/pareto.hpp"

namespace liftc::explore {
namespace {

const double kInf = std::numeric_limits<double>::infinity();

struct DominanceCase {
  const char* what;
  Objectives a, b;
  bool a_dominates_b;
};

TEST(Dominance, Table) {
  const DominanceCase cases[] = {
      {"faster beyond the spreads, same memory", {1.0, 0.1, 100}, {2.0, 0.1, 100}, true},
      {"faster but within the spreads, same memory", {1.0, 0.3, 100}, {1.5, 0.3, 100}, false},
      {"slower within the spreads, less memory", {1.5, 0.3, 50}, {1.0, 0.3, 100}, false},
      {"faster within the spreads, less memory", {1.0, 0.3, 50}, {1.5, 0.3, 100}, true},
      {"a noisy point never dominates a faster one", {4.0, 6.0, 50}, {1.2, 0.1, 100}, false},
      {"slower beyond the spreads, less memory", {3.0, 0.1, 50}, {1.0, 0.1, 100}, false},
      {"equal in both", {1.0, 0.0, 100}, {1.0, 0.0, 100}, false},
      {"faster, more memory", {1.0, 0.0, 200}, {2.0, 0.0, 100}, false},
      {"no noise, faster by a hair", {1.0, 0.0, 100}, {1.0001, 0.0, 100}, true},
      {"a failure dominates nothing", {kInf, 0, 1}, {5.0, 0, 100}, false},
      {"anything measured dominates a failure", {5.0, 0, 100}, {kInf, 0, 1}, true},
  };
  for (const auto& c : cases) EXPECT_EQ(dominates(c.a, c.b), c.a_dominates_b) << c.what;
}

// Random points with noise; memory from a few values so ties happen.
std::vector<Objectives> random_points(std::mt19937_64& rng, std::size_t n) {
  std::uniform_real_distribution<double> time(0.5, 5.0), spread(0.0, 0.2);
  std::uniform_int_distribution<int> mem(1, 12);
  std::vector<Objectives> p;
  for (std::size_t i = 0; i < n; ++i) p.push_back({time(rng), spread(rng), double(mem(rng)) * 1024});
  return p;
}

// The brute-force front, written from the definition: a point is off it when another
// point uses less memory and is not slower, or uses no more memory and is faster beyond
// both spreads.
std::vector<std::size_t> brute_front(const std::vector<Objectives>& p) {
  std::vector<std::size_t> out;
  for (std::size_t b = 0; b < p.size(); ++b) {
    bool beaten = false;
    for (std::size_t a = 0; a < p.size(); ++a) {
      if (a == b) continue;
      double tol = p[a].spread_ms + p[b].spread_ms;
      bool less_memory = p[a].memory < p[b].memory, same_memory = p[a].memory == p[b].memory;
      bool clearly_faster = p[b].time_ms - p[a].time_ms > tol;
      bool not_slower = p[a].time_ms <= p[b].time_ms;
      if ((less_memory && not_slower) || ((less_memory || same_memory) && clearly_faster)) beaten = true;
    }
    if (!beaten) out.push_back(b);
  }
  return out;
}

TEST(Front, EqualsTheBruteForceFrontWithNoiseTolerance) {
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 50; ++trial) {
    auto points = random_points(rng, 60);
    EXPECT_EQ(pareto_front(points), brute_front(points)) << "trial " << trial;
  }
}

TEST(Front, NoiseKeepsPointsAZeroSpreadFrontWouldDrop) {
  // Same memory, 1.0 vs 1.1 ms: with spreads 0.1 both stay; without, the slower goes.
  std::vector<Objectives> noisy = {{1.0, 0.1, 100}, {1.1, 0.1, 100}};
  std::vector<Objectives> exact = {{1.0, 0.0, 100}, {1.1, 0.0, 100}};
  EXPECT_EQ(pareto_front(noisy).size(), 2u);
  EXPECT_EQ(pareto_front(exact).size(), 1u);
}

TEST(NondominatedSort, FrontsPartitionAndLayer) {
  std::mt19937_64 rng(23);
  for (int trial = 0; trial < 20; ++trial) {
    auto p = random_points(rng, 50);
    auto fronts = nondominated_sort(p);
    ASSERT_FALSE(fronts.empty());
    EXPECT_EQ(fronts[0], pareto_front(p));
    std::vector<int> rank(p.size(), -1);
    for (std::size_t f = 0; f < fronts.size(); ++f)
      for (std::size_t i : fronts[f]) {
        EXPECT_EQ(rank[i], -1) << "in two fronts";
        rank[i] = int(f);
      }
    for (std::size_t i = 0; i < p.size(); ++i) {
      ASSERT_GE(rank[i], 0);
      for (std::size_t j = 0; j < p.size(); ++j)
        if (dominates(p[j], p[i])) {
          EXPECT_LT(rank[j], rank[i]);  // a dominator is in an earlier front
        }
      if (rank[i] > 0) {
        bool by_previous = false;  // and something of the front before dominates it
        for (std::size_t j : fronts[std::size_t(rank[i]) - 1]) by_previous |= dominates(p[j], p[i]);
        EXPECT_TRUE(by_previous);
      }
    }
  }
}

TEST(Crowding, ExtremesAreInfiniteAndInnerPointsSumNormalizedGaps) {
  std::vector<Objectives> p = {{1, 0, 40}, {2, 0, 30}, {4, 0, 20}, {5, 0, 10}};
  auto d = crowding_distance(p, {0, 1, 2, 3});
  EXPECT_TRUE(std::isinf(d[0]));
  EXPECT_TRUE(std::isinf(d[3]));
  // point 1: time gap (4-1)/4, memory gap (40-20)/30
  EXPECT_NEAR(d[1], 3.0 / 4.0 + 20.0 / 30.0, 1e-12);
  EXPECT_NEAR(d[2], 3.0 / 4.0 + 20.0 / 30.0, 1e-12);
}

}  // namespace
}  // namespace liftc::explore
