// Search strategies on a toy space: selection, crossover and mutation keep points valid
// (through repair), random search gives distinct valid points and exhausts small spaces,
// genetic search is reproducible, proposes only valid fresh points and finds good ones.

#include <functional>
#include <map>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "liftc/explore/request.hpp"
#include "liftc/explore/search/registry.hpp"
#include "liftc/explore/search/searches.hpp"
#include "liftc/support/diagnostic.hpp"
#include "toy_space.hpp"

namespace liftc::explore {
namespace {

using test::ToySpace;

TEST(Selection, TournamentOfTheWholePopulationPicksTheFittest) {
  std::mt19937_64 rng(1);
  std::vector<double> f = {5, 3, 9, 1, 7};
  // With k much larger than the population every member is drawn with near certainty.
  for (int i = 0; i < 50; ++i) EXPECT_EQ(select_tournament(f, 200, rng), 3u);
}

TEST(Selection, TournamentOfOneIsUniform) {
  std::mt19937_64 rng(2);
  std::vector<double> f = {5, 3, 9, 1};
  std::map<std::size_t, int> hits;
  for (int i = 0; i < 4000; ++i) ++hits[select_tournament(f, 1, rng)];
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(hits[i], 1000, 150) << i;
}

TEST(Selection, RouletteIsProportionalToInverseTimeAndNeverPicksFailures) {
  std::mt19937_64 rng(3);
  std::vector<double> f = {1.0, 2.0, std::numeric_limits<double>::infinity(), 4.0};
  std::map<std::size_t, int> hits;
  const int n = 14000;
  for (int i = 0; i < n; ++i) ++hits[select_roulette(f, rng)];
  EXPECT_EQ(hits[2], 0);
  // weights 1, 1/2, 0, 1/4 -> shares 4/7, 2/7, 0, 1/7
  EXPECT_NEAR(hits[0], n * 4 / 7, 400);
  EXPECT_NEAR(hits[1], n * 2 / 7, 400);
  EXPECT_NEAR(hits[3], n * 1 / 7, 400);
}

TEST(Selection, RouletteOfAllFailuresStillPicksSomeone) {
  std::mt19937_64 rng(4);
  double inf = std::numeric_limits<double>::infinity();
  EXPECT_LT(select_roulette({inf, inf}, rng), 2u);
}

TEST(Crossover, OffspringOfEveryParentPairAndCutIsValid) {
  CandidateSpace cs = test::toy_candidates();
  auto& alt = static_cast<ToySpace&>(*cs.alternatives[0]);
  int repaired = 0;
  for (const auto& a : alt.all_valid())
    for (const auto& b : alt.all_valid()) {
      Point raw = {a[0], b[1]};
      auto child = crossover(alt, a, b, 1);
      ASSERT_TRUE(child);
      EXPECT_TRUE(alt.valid(*child)) << a[0] << "," << b[1];
      if (alt.valid(raw)) EXPECT_EQ(*child, raw);  // a valid combination is kept as it is
      else {
        ++repaired;
        // repaired to a nearest valid point
        for (const auto& v : alt.all_valid()) EXPECT_LE(ToySpace::distance(raw, *child), ToySpace::distance(raw, v));
      }
    }
  EXPECT_GT(repaired, 0);  // the toy space makes some combinations invalid: repair was exercised
}

TEST(Mutation, MutantsAreValidAndMove) {
  CandidateSpace cs = test::toy_candidates();
  auto& alt = *cs.alternatives[0];
  std::mt19937_64 rng(5);
  int moved = 0;
  for (int i = 0; i < 500; ++i) {
    Point p = alt.sample(rng);
    auto m = mutate(alt, p, 0.5, rng);
    ASSERT_TRUE(m);
    EXPECT_TRUE(alt.valid(*m));
    moved += *m != p;
  }
  EXPECT_GT(moved, 200);
}

TEST(Neighbours, EachParameterOneStepDownAndUpValidAndDistinct) {
  CandidateSpace cs = test::toy_candidates();
  auto& alt = *cs.alternatives[0];  // a divides 64, b divides a, a*b <= 256
  EXPECT_EQ(neighbours(alt, {8, 4}), (std::vector<Point>{{4, 4}, {16, 4}, {8, 2}, {8, 8}}));
  // At the domain's end a has no step up; b's step up (64, 8) breaks a*b <= 256 and repairs
  // to (64, 4) itself, so it is no neighbour.
  EXPECT_EQ(neighbours(alt, {64, 4}), (std::vector<Point>{{32, 4}, {64, 2}}));
  std::mt19937_64 rng(6);
  for (int i = 0; i < 100; ++i) {
    Point p = alt.sample(rng);
    std::set<Point> seen;
    for (const Point& n : neighbours(alt, p)) {
      EXPECT_TRUE(alt.valid(n));
      EXPECT_NE(n, p);
      EXPECT_TRUE(seen.insert(n).second) << "repeated";
    }
  }
}

TEST(RandomSearch, DistinctValidPointsUntilTheSpaceIsExhausted) {
  CandidateSpace cs = test::toy_candidates();
  double total = cs.alternatives[0]->count() + cs.alternatives[1]->count();
  auto search = make_random_search(cs, 7, 2000);
  std::set<Candidate> seen;
  while (auto c = search->ask()) {
    EXPECT_TRUE(cs.alternatives[c->alternative]->valid(c->point));
    EXPECT_TRUE(seen.insert(*c).second) << "repeated";
    search->tell(*c, {});
  }
  EXPECT_EQ(double(seen.size()), total);
}

// Alternatives of one strategy are drawn equally whatever their counts: a count mostly
// measures how many tuning parameters an alternative has.
TEST(RandomSearch, StrategiesAndTheirAlternativesAreDrawnEqually) {
  CandidateSpace cs = test::toy_candidates();  // strategy "tile": 22 points, "plain": 14
  cs.alternatives.push_back(std::make_unique<ToySpace>("plain #2", std::vector<Parameter>{{"d", {1, 2, 3, 4, 5, 6, 7}}},
                                                       [](const Point&) { return true; }));  // 7 more "plain" points
  cs.alternatives.push_back(std::make_unique<ToySpace>("plain #3", std::vector<Parameter>{{"d", {1, 2}}},
                                                       [](const Point&) { return false; }));  // no valid point
  std::mt19937_64 rng(8);
  std::map<std::size_t, int> hits;
  const int n = 20000;
  for (int i = 0; i < n; ++i) ++hits[draw_alternative(cs, rng)];
  EXPECT_NEAR(hits[0], n / 2, 400);  // "tile", one half
  EXPECT_NEAR(hits[1], n / 4, 400);  // "plain #1" (14 points) and "plain #2" (7): a quarter each
  EXPECT_NEAR(hits[2], n / 4, 400);
  EXPECT_EQ(hits[3], 0);             // never the one without a valid point
}

// An alternative whose kernels use local memory that the target emulates in global memory.
class EmulatedLocal : public ToySpace {
 public:
  using ToySpace::ToySpace;
  bool local_memory_emulated() const override { return true; }
};

TEST(RandomSearch, AStrategyOnEmulatedLocalMemoryIsOfferedButNotFavoured) {
  CandidateSpace cs = test::toy_candidates();  // "tile" and "plain", one share each
  cs.alternatives.push_back(std::make_unique<EmulatedLocal>("local #1", std::vector<Parameter>{{"d", {1, 2, 3, 4, 5, 6, 7}}},
                                                            [](const Point&) { return true; }));
  std::mt19937_64 rng(9);
  std::map<std::size_t, int> hits;
  const int n = 18000;
  for (int i = 0; i < n; ++i) ++hits[draw_alternative(cs, rng)];
  // shares 1, 1 and kEmulatedLocalShare (0.25): 4/9, 4/9, 1/9
  EXPECT_NEAR(hits[0], n * 4 / 9, 400);
  EXPECT_NEAR(hits[1], n * 4 / 9, 400);
  EXPECT_NEAR(hits[2], n * 1 / 9, 300);
}

// explore's note on strategies over emulated local memory compares their share with the
// others' only when there are others.
TEST(RandomSearch, TheEmulatedLocalNoteComparesOnlyWithStrategiesOffered) {
  auto local = [](const char* label) {
    return std::make_unique<EmulatedLocal>(label, std::vector<Parameter>{{"d", {1, 2}}}, [](const Point&) { return true; });
  };
  auto plain = [] {
    return std::make_unique<ToySpace>("plain #1", std::vector<Parameter>{{"d", {1, 2}}}, [](const Point&) { return true; });
  };
  const struct {
    std::vector<std::function<std::unique_ptr<Alternative>()>> alternatives;
    std::string note;
  } cases[] = {
      {{plain}, ""},
      {{plain, [&] { return local("local #1"); }},
       "local uses local memory, which PoCL emulates in global memory: drawn 0.25 times as often as the other strategies"},
      {{[&] { return local("local #1"); }, [&] { return local("tiled #1"); }, plain},
       "local, tiled use local memory, which PoCL emulates in global memory: drawn 0.25 times as often as the other "
       "strategies"},
      {{[&] { return local("clblast-convgemm #1"); }},
       "clblast-convgemm uses local memory, which PoCL emulates in global memory: no faster there than reading global "
       "memory"},
      {{[&] { return local("local #1"); }, [&] { return local("local #2"); }, [&] { return local("tiled #1"); }},
       "local, tiled use local memory, which PoCL emulates in global memory: no faster there than reading global memory "
       "(every strategy offered does: drawn equally)"},
  };
  for (const auto& c : cases) {
    CandidateSpace cs;
    for (const auto& make : c.alternatives) cs.alternatives.push_back(make());
    EXPECT_EQ(emulated_local_note(cs, "PoCL"), c.note);
  }
}

// The registry (registry.hpp): one row a search, each made by name and proposing the same
// candidates as its own factory with the same seed.
TEST(SearchRegistry, EachSearchIsMadeByName) {
  struct Case {
    const char* name;
    bool population;
  };
  for (const Case& c : {Case{"random", false}, Case{"genetic", true}}) {
    SCOPED_TRACE(c.name);
    const SearchKind& kind = search_kind(c.name);
    EXPECT_EQ(kind.name, c.name);
    EXPECT_EQ(kind.population, c.population);
    CandidateSpace cs = test::toy_candidates();
    SearchSettings settings;
    settings.seed = 42;
    settings.genetic.population = 4;
    auto made = kind.make(cs, settings);
    auto direct = c.population ? make_genetic_search(cs, settings.genetic, 42) : make_random_search(cs, 42);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(made->ask(), direct->ask());
  }
  EXPECT_EQ(search_kinds().size(), 3u);  // and model (model_test.cpp)
  // The default is the model-guided search, and a Request without --search asks for it.
  EXPECT_EQ(kDefaultSearch, "model");
  EXPECT_EQ(search_kind(kDefaultSearch).name, "model");
  EXPECT_EQ(Request{}.search, "model");
}

TEST(SearchRegistry, AnUnknownNameIsAnErrorListingTheSearches) {
  try {
    search_kind("annealing");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "--search annealing: expected 'random', 'genetic' or 'model'");
  }
}

TEST(SearchRegistry, NamesAndHelpComeFromTheTable) {
  EXPECT_EQ(search_names([](const SearchKind&) { return true; }, true), "'random', 'genetic' or 'model'");
  EXPECT_EQ(search_names([](const SearchKind& k) { return k.population; }, false), "genetic or model");
  EXPECT_EQ(search_help(),
            "random (distinct sampled points), genetic (generations of crossover and mutation; NSGA-II with --pareto), "
            "model (a cost model (XGBoost's ranking trees) trained on the run's measurements chooses what to measure) "
            "(default model)");
}

TEST(RandomSearch, TheSameSeedGivesTheSameCandidates) {
  CandidateSpace cs = test::toy_candidates();
  auto a = make_random_search(cs, 42), b = make_random_search(cs, 42), c = make_random_search(cs, 43);
  bool differs = false;
  for (int i = 0; i < 10; ++i) {
    auto x = a->ask(), y = b->ask(), z = c->ask();
    EXPECT_EQ(*x, *y);
    differs |= !(*x == *z);
  }
  EXPECT_TRUE(differs);
}

// Runs a genetic search on the toy cost for `evals` evaluations; returns what it asked.
std::vector<Candidate> run_genetic(CandidateSpace& cs, const GeneticOptions& o, std::uint64_t seed, int evals) {
  auto search = make_genetic_search(cs, o, seed);
  std::vector<Candidate> asked;
  for (int i = 0; i < evals; ++i) {
    auto c = search->ask();
    if (!c) break;
    asked.push_back(*c);
    Outcome out;
    out.ok = true;
    out.objectives = test::toy_cost(*c);
    search->tell(*c, out);
  }
  return asked;
}

TEST(GeneticSearch, ProposesValidFreshPointsReproducibly) {
  for (bool pareto : {false, true})
    for (Selection sel : {Selection::Tournament, Selection::Roulette}) {
      CandidateSpace cs = test::toy_candidates();
      GeneticOptions o;
      o.population = 8;
      o.pareto = pareto;
      o.selection = sel;
      auto first = run_genetic(cs, o, 11, 30);
      EXPECT_EQ(first.size(), 30u);
      std::set<Candidate> seen;
      for (const auto& c : first) {
        EXPECT_TRUE(cs.alternatives[c.alternative]->valid(c.point));
        EXPECT_TRUE(seen.insert(c).second) << "a candidate was asked twice";
      }
      CandidateSpace again = test::toy_candidates();
      EXPECT_EQ(run_genetic(again, o, 11, 30), first) << "same seed, same outcomes: same candidates";
    }
}

TEST(GeneticSearch, FindsTheFastestPointSoonerThanItsBudgetOnAverage) {
  // The toy space has 36 valid points; the best time is at a*b = 256 (a = 16, b = 16).
  int found = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    CandidateSpace cs = test::toy_candidates();
    GeneticOptions o;
    o.population = 6;
    auto asked = run_genetic(cs, o, seed, 30);
    for (const auto& c : asked) found += c.alternative == 0 && c.point == Point{16, 16};
  }
  EXPECT_GE(found, 7);
}

// Two strategies: "flat" (a, b in 1..30) times 2.0 to 2.3 ms whatever its point; "needle"
// (x, y in 1..16) is faster only near (12, 12), 1.0 ms there and 0.5 ms slower per step
// away, so nearly all its random points are slower than flat's. Without niches the whole
// population soon belongs to flat and needle's best is found only by luck; with them
// needle's fastest points so far keep breeding and their children climb to (12, 12).
TEST(GeneticSearch, NichesKeepSearchingAStrategyWhoseFirstPointsWereSlow) {
  auto candidates = [] {
    CandidateSpace cs;
    std::vector<std::int64_t> a, x;
    for (int i = 1; i <= 30; ++i) a.push_back(i);
    for (int i = 1; i <= 16; ++i) x.push_back(i);
    cs.alternatives.push_back(std::make_unique<test::ToySpace>(
        "flat #1", std::vector<Parameter>{{"a", a}, {"b", a}}, [](const Point&) { return true; }));
    cs.alternatives.push_back(std::make_unique<test::ToySpace>(
        "needle #1", std::vector<Parameter>{{"x", x}, {"y", x}}, [](const Point&) { return true; }));
    return cs;
  };
  auto cost = [](const Candidate& c) {
    if (c.alternative == 0) return 2.0 + 0.01 * double(c.point[0] % 30);
    return 1.0 + 0.5 * double(std::llabs(c.point[0] - 12) + std::llabs(c.point[1] - 12));
  };
  auto found_needle = [&](double niche_share, bool pareto) {
    int found = 0;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      CandidateSpace cs = candidates();
      GeneticOptions o;
      o.population = 12;
      o.niche_share = niche_share;
      o.pareto = pareto;
      auto search = make_genetic_search(cs, o, seed);
      for (int i = 0; i < 120; ++i) {
        auto c = search->ask();
        if (!c) break;
        if (c->alternative == 1 && c->point == Point{12, 12}) {
          ++found;
          break;
        }
        Outcome out;
        out.ok = true;
        out.objectives.time_ms = cost(*c);
        out.objectives.memory = 1000;
        search->tell(*c, out);
      }
    }
    return found;
  };
  for (bool pareto : {false, true}) {
    SCOPED_TRACE(pareto ? "NSGA-II" : "time alone");
    int with = found_needle(GeneticOptions{}.niche_share, pareto), without = found_needle(0.0, pareto);
    EXPECT_GE(with, 16) << "of 20 seeds; without niches " << without;
    EXPECT_GT(with, without + 5) << "niches found it " << with << " times, the whole population " << without;
  }
}

// More alternatives than individuals (VGG-16's layer 2: 28 alternatives, a population of
// 24): generation 0 still holds a point of each, and generations to come breed from them.
TEST(GeneticSearch, GenerationZeroHoldsAPointOfEveryAlternative) {
  CandidateSpace cs;
  std::vector<std::int64_t> a;
  for (int i = 1; i <= 8; ++i) a.push_back(i);
  for (int k = 1; k <= 30; ++k)
    cs.alternatives.push_back(std::make_unique<test::ToySpace>(fmt::format("s{} #1", k % 7),
                                                               std::vector<Parameter>{{"a", a}}, [](const Point&) { return true; }));
  for (bool pareto : {false, true}) {
    GeneticOptions o;
    o.population = 8;
    o.pareto = pareto;
    auto search = make_genetic_search(cs, o, 5);
    std::set<std::size_t> first;
    for (int i = 0; i < 30; ++i) {
      auto c = search->ask();
      ASSERT_TRUE(c);
      first.insert(c->alternative);
    }
    EXPECT_EQ(first.size(), 30u) << "alternatives in generation 0";
  }
}

// An alternative whose points all fail has no niche to breed from; each generation tries a
// fresh point of one such alternative, so it is not left with the one point generation 0
// gave it.
TEST(GeneticSearch, AnAlternativeWhosePointsFailedIsTriedAgain) {
  CandidateSpace cs;
  std::vector<std::int64_t> a;
  for (int i = 1; i <= 30; ++i) a.push_back(i);
  for (const char* label : {"good #1", "failing #1"})
    cs.alternatives.push_back(std::make_unique<test::ToySpace>(label, std::vector<Parameter>{{"a", a}, {"b", a}},
                                                               [](const Point&) { return true; }));
  GeneticOptions o;
  o.population = 6;
  auto search = make_genetic_search(cs, o, 9);
  int failing = 0;
  for (int i = 0; i < 60; ++i) {
    auto c = search->ask();
    ASSERT_TRUE(c);
    Outcome out;
    out.ok = c->alternative == 0;  // every point of the second alternative fails
    out.objectives.time_ms = 1.0 + 0.01 * double(c->point[0]);
    failing += c->alternative == 1;
    search->tell(*c, out);
  }
  EXPECT_GE(failing, 10) << "asks of the failing alternative in 60";
}

TEST(GeneticSearch, ParetoModeCoversTheFront) {
  CandidateSpace cs = test::toy_candidates();
  GeneticOptions o;
  o.population = 10;
  o.pareto = true;
  auto asked = run_genetic(cs, o, 3, 45);
  // The true front of all valid points, and how much of it the search found.
  std::vector<Candidate> all;
  for (std::size_t a = 0; a < 2; ++a)
    for (const auto& p : static_cast<ToySpace&>(*cs.alternatives[a]).all_valid()) all.push_back({a, p});
  std::vector<Objectives> objs;
  for (const auto& c : all) objs.push_back(test::toy_cost(c));
  std::set<Candidate> asked_set(asked.begin(), asked.end());
  std::size_t on_front = 0, found = 0;
  for (std::size_t i : pareto_front(objs)) ++on_front, found += asked_set.count(all[i]);
  EXPECT_GE(double(found), 0.6 * double(on_front)) << found << " of " << on_front;
}

TEST(GeneticSearch, EndsWhenTheSpaceIsExhausted) {
  CandidateSpace cs = test::toy_candidates();
  GeneticOptions o;
  o.population = 8;
  EXPECT_EQ(run_genetic(cs, o, 11, 1000).size(), 36u);  // every valid point once, then no more
}

TEST(GeneticSearch, RepairsInvalidOffspring) {
  CandidateSpace cs = test::toy_candidates();
  GeneticOptions o;
  o.population = 8;
  o.mutation_rate = 0.8;
  run_genetic(cs, o, 9, 40);
  EXPECT_GT(static_cast<ToySpace&>(*cs.alternatives[0]).repairs, 0);
}

}  // namespace
}  // namespace liftc::explore
