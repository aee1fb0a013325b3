// Z3 and the sampler: counts against brute force, every sample accepted by the type
// checker, uniformity, repair to a nearest valid point, infeasible spaces explained.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "helpers.hpp"

namespace liftc::constraints::test {
namespace {

// Small spaces: one line a case (example, strategy, target limits).
struct Small {
  const char* example;
  const char* strategy;
  std::int64_t items, group;
};
const std::vector<Small> kSmall = {
    {"conv/conv_small.sr", "conv-tiled", 4, 8},
    {"conv/conv_small.sr", "conv-gpu", 4, 16},
    {"conv/conv_small.sr", "conv-local", 8, 64},
    {"conv/conv_k3_stride2_pad0.sr", "conv-naive", 4, 16},
    {"matmul.sr", "matmul-parametric", 2, 4},
};

std::int64_t l1(const Assignment& a, const Assignment& b) {
  std::int64_t d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d += std::llabs(a[i] - b[i]);
  return d;
}

TEST(Count, SamplerAndZ3AgreeWithBruteForce) {
  for (const auto& c : kSmall) {
    auto all = spaces(example(c.example), c.strategy, small_target(c.items, c.group));
    for (std::size_t i = 0; i < all.size() && i < 2; ++i) {
      const Space& s = all[i];
      auto valid = brute_force(s);
      Sampler sampler(s);
      EXPECT_TRUE(sampler.uniform());
      EXPECT_EQ(to_string(sampler.count()), std::to_string(valid.size())) << c.example << " " << c.strategy;
      if (i == 0) {
        EXPECT_EQ(z3_count(s, 1000), valid.size()) << c.example << " " << c.strategy;
      }
      for (const auto& p : valid) ASSERT_TRUE(type_checker_accepts(s, p)) << format_assignment(s, p);
    }
  }
}

// Thousands of samples of every alternative of `strategy` (or those listed), each
// accepted by the type checker at its values.
void samples_type_check(const char* file, const char* strategy, std::vector<std::size_t> only = {}) {
  std::mt19937_64 rng(11);
  std::size_t feasible = 0;
  for (const Space& s : spaces(example(file), strategy, small_target(64, 256))) {
    if (!only.empty() && std::find(only.begin(), only.end(), s.alternative) == only.end()) continue;
    Sampler sampler(s);
    if (sampler.count() == 0) {  // an empty alternative: Z3 agrees and names why
      Feasibility f = check_feasibility(s);
      EXPECT_FALSE(f.feasible) << file << " " << strategy << " alternative " << s.alternative;
      EXPECT_FALSE(f.conflict.empty());
      continue;
    }
    ++feasible;
    std::map<std::map<std::string, long long>, bool> decided;  // the type checker's answer per size values
    for (int i = 0; i < 2000; ++i) {
      Assignment p = sampler.sample(rng);
      ASSERT_TRUE(sampler.valid(p));
      auto sizes = size_values(s, p);
      auto it = decided.find(sizes);
      if (it == decided.end()) it = decided.emplace(sizes, type_checker_accepts(s, p)).first;
      ASSERT_TRUE(it->second) << file << " " << strategy << " alternative " << s.alternative << ": "
                              << format_assignment(s, p);
    }
    Assignment p = sampler.sample(rng);
    EXPECT_TRUE(z3_accepts(s, p)) << format_assignment(s, p);
  }
  EXPECT_GT(feasible, 0u) << file << " " << strategy;
}

TEST(Sample, EveryPointIsAcceptedByTheTypeChecker) {
  samples_type_check("conv/conv_small.sr", "conv-local");
  samples_type_check("conv/conv_k5_stride2_pad2.sr", "conv-tiled");
  samples_type_check("stencil2d.sr", "stencil-parametric");
  samples_type_check("matmul.sr", "matmul-parametric");
  samples_type_check("vgg16/conv_reduced.sr", "conv-gpu");
}

// conv-parametric's alternatives with the coalescing stride (the most constraints): float2
// dot products and scalar ones (the others drop the stride or differ only in v).
TEST(Sample, EveryConvParametricPointIsAcceptedByTheTypeChecker) {
  samples_type_check("conv/conv_small.sr", "conv-parametric", {2, 10});
}

// Pearson's chi-square over every valid point of a small space: samples are uniform.
TEST(Sample, IsUniform) {
  Space s = spaces(example("conv/conv_small.sr"), "conv-tiled", small_target(4, 8)).at(0);
  auto valid = brute_force(s);
  ASSERT_GT(valid.size(), 20u);
  Sampler sampler(s);
  std::mt19937_64 rng(5);
  const std::size_t per_point = 100, n = per_point * valid.size();
  std::map<Assignment, std::size_t> seen;
  for (std::size_t i = 0; i < n; ++i) ++seen[sampler.sample(rng)];
  EXPECT_EQ(seen.size(), valid.size());
  double chi2 = 0;
  for (const auto& p : valid) {
    double d = static_cast<double>(seen[p]) - per_point;
    chi2 += d * d / per_point;
  }
  // df = |valid| - 1; p < 1e-6 lies beyond df + 5*sqrt(2 df) for these sizes.
  double df = static_cast<double>(valid.size() - 1);
  EXPECT_LT(chi2, df + 5 * std::sqrt(2 * df)) << "df " << df;
}

// Repair gives a valid point no farther (L1) than any valid point.
TEST(Repair, GivesANearestValidPoint) {
  std::mt19937_64 rng(9);
  for (const auto& c : kSmall) {
    Space s = spaces(example(c.example), c.strategy, small_target(c.items, c.group)).at(0);
    auto valid = brute_force(s);
    Sampler sampler(s);
    for (int i = 0; i < 20; ++i) {
      Assignment p(s.params.size());
      for (std::size_t j = 0; j < p.size(); ++j)  // anywhere in 0..70, valid or not
        p[j] = std::uniform_int_distribution<std::int64_t>(0, 70)(rng);
      auto r = sampler.repair(p);
      ASSERT_TRUE(r.has_value());
      EXPECT_TRUE(violated(s, *r).empty()) << format_assignment(s, *r);
      std::int64_t best = INT64_MAX;
      for (const auto& v : valid) best = std::min(best, l1(v, p));
      EXPECT_EQ(l1(*r, p), best) << c.example << " " << c.strategy;
    }
  }
}

// Repair keeps each level's allowed values from one repair to the next: a sampler that has
// repaired many points gives each the point a fresh sampler gives it.
TEST(Repair, KeptAllowedValuesGiveTheSamePointsAsAFreshSampler) {
  std::mt19937_64 rng(11);
  for (const auto& c : kSmall) {
    Space s = spaces(example(c.example), c.strategy, small_target(c.items, c.group)).at(0);
    Sampler used(s);
    for (int i = 0; i < 30; ++i) {
      Assignment p(s.params.size());
      for (std::size_t j = 0; j < p.size(); ++j) p[j] = std::uniform_int_distribution<std::int64_t>(0, 70)(rng);
      Sampler fresh(s);
      EXPECT_EQ(used.repair(p), fresh.repair(p)) << c.example << " " << c.strategy << " " << format_assignment(s, p);
    }
  }
}

// An infeasible space: Z3 names the constraints that conflict.
TEST(Feasibility, InfeasibleSpacesNameTheConflict) {
  rewrite::RuleSet rules;
  rewrite::add_rules(rules, std::make_shared<const SourceFile>(SourceFile{
                                "sets.rules", "rule tile(n in {2, 4}): map(f, x) => join(map(map(f), split(n, x)))"}));
  Space s = spaces(program_text("size N = 9\ninput x : [float]N\ndef y = map(a -> a, x)"), "tile", small_target(), rules).at(0);
  Feasibility f = check_feasibility(s);
  ASSERT_TRUE(f.decided);
  EXPECT_FALSE(f.feasible);
  std::vector<std::string> conflict;
  for (auto i : f.conflict) conflict.push_back(to_string(s.constraints[i]));
  EXPECT_EQ(conflict, (std::vector<std::string>{"n_N in {2, 4}", "n_N divides 9"}));
  EXPECT_EQ(to_string(Sampler(s).count()), "0");

  // The target: a 16-byte local memory cannot hold conv-local's input tile.
  Space local = spaces(example("conv/conv_small.sr"), "conv-local", small_target(8, 64, 16)).at(0);
  Feasibility g = check_feasibility(local);
  EXPECT_FALSE(g.feasible);
  bool names_local = false;
  for (auto i : g.conflict) names_local |= local.constraints[i].why.find("local memory") != std::string::npos;
  EXPECT_TRUE(names_local);

  Space ok = spaces(example("conv/conv_small.sr"), "conv-tiled", small_target()).at(0);
  EXPECT_TRUE(check_feasibility(ok).feasible);
}

// Past the table budget: an estimate, marked, and valid (non-uniform) samples.
TEST(Sample, LargeSpacesAreEstimatedAndSaySo) {
  Space s = spaces(example("conv/conv_small.sr"), "conv-tiled", small_target(8, 16)).at(0);
  Sampler exact(s), budget(s, SamplerBudget{3});
  EXPECT_TRUE(exact.uniform());
  EXPECT_FALSE(budget.uniform());
  EXPECT_NE(budget.count_text().find("estimate"), std::string::npos);
  double ratio = static_cast<double>(budget.count()) / static_cast<double>(exact.count());
  EXPECT_GT(ratio, 0.5);
  EXPECT_LT(ratio, 2.0);
  std::mt19937_64 rng(2);
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(exact.valid(budget.sample(rng)));
  Assignment far(s.params.size(), 50);
  auto r = budget.repair(far);
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(exact.valid(*r));
}

// Z3 giving up is not "no valid point": forced with a resource limit of one step (Z3's
// rlimit is deterministic, unlike the wall-clock timeout that made the answer depend on
// the machine's load), the error says that Z3 gave up, and on which parameter; with the
// usual limit the same space gives valid points.
TEST(Sample, Z3GivingUpIsSaidSo) {
  Space s = spaces(example("conv/conv_small.sr"), "conv-tiled", small_target(8, 16)).at(0);
  // Past the tables (3 entries) and without the random search: Z3 decides every value.
  Sampler gives_up(s, SamplerBudget{.max_states = 3, .search_checks = 0, .z3_effort = 1});
  ASSERT_FALSE(gives_up.uniform());
  const std::string message = "Z3 gave up choosing a value for " + s.params[0].name +
                              " (it reached its resource limit of 4 steps): the space may well have valid points; "
                              "this is not a proof that it has none";
  std::mt19937_64 rng(4);
  try {
    gives_up.sample(rng);
    ADD_FAILURE() << "a point without Z3";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), message);
  }
  try {
    gives_up.repair(Assignment(s.params.size(), 50));
    ADD_FAILURE() << "a point without Z3";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), message);
  }
  EXPECT_FALSE(check_feasibility(s, 1).decided);

  Sampler decides(s, SamplerBudget{.max_states = 3, .search_checks = 0});
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(decides.valid(decides.sample(rng)));
  auto r = decides.repair(Assignment(s.params.size(), 50));
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(decides.valid(*r));
  EXPECT_TRUE(check_feasibility(s).decided);
}

// A parameter of 100,000 values past the tables: Knuth's estimate draws from the wide
// domain instead of enumerating it on every probe, samples and repairs are valid.
TEST(Sample, WideDomainsAreEstimatedAndSampled) {
  Space s = spaces(program_text("size n in 1..100000\ninput x : [float]n\ndef y = map(v -> v * 2.0, x)"),
                   "stencil-parametric", small_target(8, 16))
                .at(0);
  ASSERT_GE(s.index("local_0"), 0);  // local_0 divides n: counting needs a table entry per n
  Sampler exact(s), estimate(s, SamplerBudget{.max_states = 3});
  ASSERT_TRUE(exact.uniform());
  ASSERT_FALSE(estimate.uniform());
  double ratio = static_cast<double>(estimate.count()) / static_cast<double>(exact.count());
  EXPECT_GT(ratio, 0.5);
  EXPECT_LT(ratio, 2.0);
  std::mt19937_64 rng(6);
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(exact.valid(estimate.sample(rng)));
  Assignment far(s.params.size(), 77777);
  auto r = estimate.repair(far);
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(exact.valid(*r));
  EXPECT_EQ((*r)[static_cast<std::size_t>(s.index("n"))], 77777);  // a valid value of n stays
}

}  // namespace
}  // namespace liftc::constraints::test
