// The cost model (XGBoost's ranking trees, cost/model.hpp) learns a known ranking, and the
// model-guided search (search/model_search.hpp) keeps the ask/tell contract of the other
// searches (valid fresh points, the same candidates for the same seed and outcomes, in
// rounds a parallel loop waits for) and finds the optimum of a known cost in fewer asks
// than random search. No device: toy spaces (toy_space.hpp) and made-up costs.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "liftc/explore/cost/model.hpp"
#include "liftc/explore/search/model_search.hpp"
#include "liftc/explore/search/registry.hpp"
#include "liftc/explore/search/transfer.hpp"
#include "liftc/explore/store/store.hpp"
#include "liftc/support/diagnostic.hpp"
#include "test_folder.hpp"
#include "toy_space.hpp"

namespace liftc::explore {
namespace {

// A known cost of three features: a bowl around (5, 3) and a slope in z.
double known_cost(float x, float y, float z) { return (x - 5) * (x - 5) + 2 * std::fabs(y - 3) + 0.3 * z; }

cost::RankingData known_rows(std::size_t rows, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0, 10);
  cost::RankingData d;
  d.columns = 3;
  for (std::size_t i = 0; i < rows; ++i) {
    float x = u(rng), y = u(rng), z = u(rng);
    d.features.insert(d.features.end(), {x, y, z});
    d.relevance.push_back(static_cast<float>(-known_cost(x, y, z)));
  }
  d.groups = {static_cast<unsigned>(rows)};
  return d;
}

TEST(CostModel, LearnsTheRankingOfAKnownFunctionOnHeldOutPoints) {
  for (const char* objective : {"rank:pairwise", "rank:ndcg"}) {
    SCOPED_TRACE(objective);
    cost::ModelOptions o;
    o.objective = objective;
    cost::RankModel model(o);
    EXPECT_FALSE(model.trained());
    cost::RankingData train = known_rows(200, 1);
    if (std::string(objective) == "rank:ndcg")  // ndcg's gains are 2^relevance - 1: small whole relevances
      for (float& r : train.relevance) r = std::floor(std::max(0.0f, 10.0f + r / 4.0f));
    model.train(train);
    EXPECT_TRUE(model.trained());
    EXPECT_EQ(model.columns(), 3u);
    cost::RankingData held = known_rows(300, 2);
    std::vector<float> scores = model.score(held.features, held.columns);
    ASSERT_EQ(scores.size(), 300u);
    std::vector<double> predicted(scores.begin(), scores.end()), truth(held.relevance.begin(), held.relevance.end());
    EXPECT_GT(cost::rank_correlation(predicted, truth), std::string(objective) == "rank:ndcg" ? 0.6 : 0.8);
  }
}

TEST(CostModel, TrainingIsReproducible) {
  cost::RankingData d = known_rows(100, 3), held = known_rows(50, 4);
  cost::RankModel a, b;
  a.train(d);
  b.train(d);
  EXPECT_EQ(a.score(held.features, 3), b.score(held.features, 3));
}

TEST(CostModel, RowsWiderOrNarrowerThanTrainedAreScored) {
  cost::RankModel m;
  m.train(known_rows(60, 5));
  // An extra column (a feature that appeared after training) is ignored; a missing one is NaN.
  std::vector<float> wide{5, 3, 0, 42, 9, 9, 9, 42};
  auto s = m.score(wide, 4);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_GT(s[0], s[1]);
  EXPECT_EQ(m.score({5, 3, 0}, 3)[0], s[0]);
  EXPECT_EQ(m.score({5, 3}, 2).size(), 1u);
}

TEST(CostModel, BadTrainingDataIsOneError) {
  struct Case {
    cost::RankingData data;
    std::string message;
  };
  cost::RankingData short_rows = known_rows(2, 1);
  short_rows.features.pop_back();
  cost::RankingData bad_groups = known_rows(4, 1);
  bad_groups.groups = {3};
  for (const Case& c : {Case{{}, "the cost model cannot be trained on no rows or no features"},
                        Case{short_rows, "the cost model's training rows hold 5 values, not 2 rows x 3 columns"},
                        Case{bad_groups, "the cost model's query groups do not cover its 4 rows"}}) {
    cost::RankModel m;
    try {
      m.train(c.data);
      ADD_FAILURE() << "no error for " << c.message;
    } catch (const Error& e) {
      EXPECT_EQ(e.message(), c.message);
    }
    EXPECT_FALSE(m.trained());
  }
}

TEST(CostModel, AnXGBoostFailureIsAnErrorWithItsMessage) {
  cost::ModelOptions o;
  o.objective = "rank:nonsense";
  cost::RankModel m(o);
  try {
    m.train(known_rows(10, 1));
    FAIL() << "no error";
  } catch (const Error& e) {
    std::string msg = e.message();
    EXPECT_EQ(msg.rfind("the cost model's XGBoost failed in XGBoosterUpdateOneIter: ", 0), 0u) << msg;
    EXPECT_NE(msg.find("rank:nonsense"), std::string::npos) << msg;
  }
  EXPECT_FALSE(m.trained());
}

TEST(CostModel, RankCorrelation) {
  struct Case {
    std::vector<double> a, b;
    double expected;
  };
  for (const Case& c : {Case{{1, 2, 3, 4}, {10, 20, 30, 40}, 1.0}, Case{{1, 2, 3, 4}, {4, 3, 2, 1}, -1.0},
                        Case{{1, 2, 3}, {7, 7, 7}, 0.0}, Case{{1}, {1}, 0.0}, Case{{1, 2, 3, 4}, {1, 3, 2, 4}, 0.8}})
    EXPECT_NEAR(cost::rank_correlation(c.a, c.b), c.expected, 1e-12);
}

// A space of 16^3 points, all valid, two alternatives; the fastest point is (11, 4, 7) of
// the first, and time grows with the distance from it (the second is 1.5 ms slower throughout).
CandidateSpace cube() {
  std::vector<std::int64_t> d;
  for (int i = 1; i <= 16; ++i) d.push_back(i);
  CandidateSpace cs;
  for (const char* label : {"cube #1", "cube #2"})
    cs.alternatives.push_back(std::make_unique<test::ToySpace>(
        label, std::vector<Parameter>{{"x", d}, {"y", d}, {"z", d}}, [](const Point&) { return true; }));
  return cs;
}

Outcome cube_cost(const Candidate& c) {
  Outcome o;
  o.ok = true;
  o.objectives.time_ms = 1.0 + 0.1 * std::fabs(double(c.point[0] - 11)) + 0.2 * std::fabs(double(c.point[1] - 4)) +
                         0.05 * double((c.point[2] - 7) * (c.point[2] - 7)) + 1.5 * double(c.alternative);
  o.objectives.memory = 1;
  return o;
}

const Candidate kCubeBest{0, {11, 4, 7}};

// Asks and tells `search` until it asked `evals` candidates or ended; what it asked.
std::vector<Candidate> run(Search& search, int evals, Outcome (*cost)(const Candidate&)) {
  std::vector<Candidate> asked;
  for (int i = 0; i < evals; ++i) {
    auto c = search.ask();
    if (!c) break;
    asked.push_back(*c);
    search.tell(*c, cost(*c));
  }
  return asked;
}

ModelSearchOptions small_rounds() {
  ModelSearchOptions o;
  o.batch = 8;
  o.warmup = 16;
  return o;
}

TEST(ModelSearch, ProposesValidFreshPointsReproducibly) {
  CandidateSpace cs = cube();
  auto first = make_model_search(cs, small_rounds(), 7);
  std::vector<Candidate> asked = run(*first, 120, cube_cost);
  ASSERT_EQ(asked.size(), 120u);
  std::set<Candidate> seen;
  for (const auto& c : asked) {
    EXPECT_TRUE(cs.alternatives[c.alternative]->valid(c.point));
    EXPECT_TRUE(seen.insert(c).second) << "a candidate was asked twice";
  }
  CandidateSpace again = cube();
  auto second = make_model_search(again, small_rounds(), 7);
  EXPECT_EQ(run(*second, 120, cube_cost), asked) << "same seed, same outcomes: same candidates (so --resume works)";
  CandidateSpace other = cube();
  auto third = make_model_search(other, small_rounds(), 8);
  EXPECT_NE(run(*third, 120, cube_cost), asked);
  EXPECT_NE(first->report().find("training(s)"), std::string::npos) << first->report();
}

// The parallel loop asks until the search is waiting(), then tells as runs end: the
// candidates must be those of the sequential loop (they cannot depend on --jobs).
TEST(ModelSearch, RoundsAskedAtOnceGiveTheSameCandidatesAsOneAtATime) {
  CandidateSpace cs = cube();
  auto sequential = make_model_search(cs, small_rounds(), 3);
  std::vector<Candidate> one_at_a_time = run(*sequential, 100, cube_cost);
  CandidateSpace again = cube();
  auto parallel = make_model_search(again, small_rounds(), 3);
  std::vector<Candidate> in_rounds;
  std::size_t rounds = 0;
  while (in_rounds.size() < 100) {
    std::vector<Candidate> round;
    while (!parallel->waiting() && in_rounds.size() + round.size() < 100) {
      auto c = parallel->ask();
      if (!c) break;
      round.push_back(*c);
    }
    if (round.empty()) break;
    ++rounds;
    EXPECT_TRUE(in_rounds.size() + round.size() == 100 || parallel->waiting());
    for (const auto& c : round) parallel->tell(c, cube_cost(c)), in_rounds.push_back(c);
  }
  EXPECT_EQ(in_rounds, one_at_a_time);
  EXPECT_GT(rounds, 5u);  // a warm-up round of 16, then rounds of 8
}

// A search that lags two rounds hands out two more rounds before it needs an outcome, and
// goes on while a slow candidate of an earlier round is still out; whatever order the
// outcomes come in, and however far ahead it is asked, it asks what the sequential loop
// asks (so --resume and --replay work as before).
TEST(ModelSearch, ALaggingSearchAsksAheadAndTheSameCandidatesHoweverOutcomesArrive) {
  ModelSearchOptions o = small_rounds();
  o.lag = 2;
  CandidateSpace cs = cube();
  auto sequential = make_model_search(cs, o, 4);
  std::vector<Candidate> one_at_a_time = run(*sequential, 120, cube_cost);

  CandidateSpace again = cube();
  auto ahead = make_model_search(again, o, 4);
  std::vector<Candidate> untold;
  while (!ahead->waiting()) untold.push_back(*ahead->ask());
  EXPECT_EQ(untold.size(), o.warmup + 2 * o.batch) << "the first round and two more before an outcome is needed";
  // The first candidate (a slow one) is told last of its round; the others as they end.
  std::vector<Candidate> asked = untold;
  std::mt19937_64 rng(9);
  while (asked.size() < 120) {
    std::shuffle(untold.begin() + 1, untold.end(), rng);
    std::rotate(untold.begin(), untold.begin() + 1, untold.end());  // the first one last
    for (const Candidate& c : untold) ahead->tell(c, cube_cost(c));
    untold.clear();
    while (!ahead->waiting() && asked.size() + untold.size() < 120) untold.push_back(*ahead->ask());
    asked.insert(asked.end(), untold.begin(), untold.end());
  }
  EXPECT_EQ(asked, one_at_a_time);

  CandidateSpace in_step = cube();
  auto no_lag = make_model_search(in_step, small_rounds(), 4);
  EXPECT_NE(run(*no_lag, 120, cube_cost), one_at_a_time) << "rounds made from older outcomes differ";
}

// The cube's costs, where every seventh point (by x + y + z) ran 3 s and the rest 0.1 s.
Outcome cube_cost_some_slow(const Candidate& c) {
  Outcome o = cube_cost(c);
  o.seconds = (c.point[0] + c.point[1] + c.point[2]) % 7 == 0 ? 3.0 : 0.1;
  return o;
}

// A candidate that runs longer than slow_s is seen slow_lag rounds after its own, not lag:
// the search goes on while it runs (it hears how long from `running`), and asks what the
// sequential loop asks, told each outcome's seconds at once. Without slow_s it waits.
TEST(ModelSearch, ASlowCandidateIsSeenLaterAndNotWaitedFor) {
  ModelSearchOptions o = small_rounds();
  o.lag = 2;
  o.slow_lag = 6;
  o.slow_s = 1;
  CandidateSpace cs = cube();
  auto sequential = make_model_search(cs, o, 4);
  std::vector<Candidate> one_at_a_time = run(*sequential, 160, cube_cost_some_slow);

  // A slow candidate is told 8 rounds after it was asked, the others in the round after
  // theirs, shuffled; meanwhile the search hears that the slow ones have run 1.5 s.
  CandidateSpace again = cube();
  auto ahead = make_model_search(again, o, 4);
  std::vector<Candidate> asked;
  struct Out {
    Candidate c;
    std::size_t ticks;
    std::size_t asked_at;
  };
  std::vector<Out> out;
  std::size_t passed_slow = 0;  // asks past a slow candidate's round + lag while it ran
  std::mt19937_64 rng(9);
  while (asked.size() < 160) {
    while (!ahead->waiting() && asked.size() < 160) {
      Candidate c = *ahead->ask();
      out.push_back({c, cube_cost_some_slow(c).seconds > o.slow_s ? 8u : 0u, asked.size()});
      asked.push_back(c);
    }
    ASSERT_FALSE(out.empty()) << "waiting with nothing out";
    std::shuffle(out.begin(), out.end(), rng);
    std::vector<Out> still;
    for (Out& x : out) {
      if (x.ticks == 0) {
        ahead->tell(x.c, cube_cost_some_slow(x.c));
        continue;
      }
      ahead->running(x.c, 1.5);
      --x.ticks;
      passed_slow = std::max(passed_slow, asked.size() - x.asked_at);
      still.push_back(x);
    }
    out = std::move(still);
  }
  EXPECT_EQ(asked, one_at_a_time);
  EXPECT_GT(passed_slow, (o.lag + 2) * o.batch) << "the search went on past a slow candidate";

  // Without slow_s, the third round after a slow candidate's waits for it.
  ModelSearchOptions no_slow = o;
  no_slow.slow_s = std::numeric_limits<double>::infinity();
  CandidateSpace third = cube();
  auto waits = make_model_search(third, no_slow, 4);
  std::vector<Candidate> first;
  while (!waits->waiting()) first.push_back(*waits->ask());
  for (const Candidate& c : first) waits->tell(c, cube_cost_some_slow(c));
  std::vector<Candidate> next;
  while (!waits->waiting()) next.push_back(*waits->ask());
  auto slow =
      std::find_if(next.begin(), next.end(), [&](const Candidate& c) { return cube_cost_some_slow(c).seconds > 1; });
  ASSERT_NE(slow, next.end()) << "a slow candidate in the rounds after the first";
  std::size_t asked_before = first.size() + next.size();
  for (const Candidate& c : next)
    if (c != *slow) waits->tell(c, cube_cost_some_slow(c));
  while (!waits->waiting()) waits->ask(), ++asked_before;
  waits->running(*slow, 1.5);
  EXPECT_TRUE(waits->waiting()) << "no slow_s: it waits however long the candidate runs";
  EXPECT_LE(asked_before - first.size() - std::size_t(slow - next.begin()), (o.lag + 1) * o.batch);
}

// Resume: a new search with the run's seed is told the stored outcomes of what it asks
// (served from the store) and goes on as the interrupted one would have.
TEST(ModelSearch, AResumedRunGoesOnAsTheUninterruptedOne) {
  CandidateSpace cs = cube();
  auto whole = make_model_search(cs, small_rounds(), 5);
  std::vector<Candidate> uninterrupted = run(*whole, 90, cube_cost);
  CandidateSpace again = cube();
  auto interrupted = make_model_search(again, small_rounds(), 5);
  std::vector<Candidate> before = run(*interrupted, 37, cube_cost);
  CandidateSpace third = cube();
  auto resumed = make_model_search(third, small_rounds(), 5);
  std::vector<Candidate> after = run(*resumed, 90, cube_cost);
  EXPECT_TRUE(std::equal(before.begin(), before.end(), after.begin()));
  EXPECT_EQ(after, uninterrupted);
}

TEST(ModelSearch, EndsWhenTheSpaceIsExhausted) {
  CandidateSpace cs = test::toy_candidates();
  ModelSearchOptions o;
  o.batch = 4;
  o.warmup = 8;
  auto search = make_model_search(cs, o, 11);
  std::vector<Candidate> asked = run(*search, 1000, [](const Candidate& c) {
    Outcome out;
    out.ok = true;
    out.objectives = test::toy_cost(c);
    return out;
  });
  EXPECT_EQ(std::set<Candidate>(asked.begin(), asked.end()).size(), asked.size());
  EXPECT_EQ(asked.size(), 36u);  // every valid point once, then no more
}

// Failures are learned too, ranked below every validated point: here time falls towards
// x = 16 but every point with x >= 13 fails (a quarter of the space), so a model that
// learned only from validated points would keep ranking the failing edge first.
Outcome failing_edge(const Candidate& c) {
  Outcome o;
  o.ok = c.point[0] < 13;
  o.objectives.time_ms = o.ok ? 1.0 + 0.3 * double(16 - c.point[0]) + 0.1 * double(c.point[1] + c.point[2])
                              : std::numeric_limits<double>::infinity();
  o.objectives.memory = 1;
  return o;
}

TEST(ModelSearch, FailuresAreLearnedAndAvoided) {
  std::size_t late = 0, early = 0;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    CandidateSpace cs = cube();
    auto search = make_model_search(cs, small_rounds(), seed);
    auto asked = run(*search, 160, failing_edge);
    ASSERT_EQ(asked.size(), 160u);
    for (std::size_t i = 0; i < asked.size(); ++i) (i < 80 ? early : late) += !failing_edge(asked[i]).ok;
  }
  // A random draw fails one time in four: 60 of 240. The model's picks after 80 rarely do.
  EXPECT_LT(late, 30u) << early << " failures in the first 80 asks of 3 seeds, " << late << " in the next 80";
  EXPECT_LT(late, early);
}

TEST(ModelSearch, AStrategysPromiseIsItsBestAgainstTheBestSquared) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::map<std::string, StrategyRecord> records{{"fastest", {5, 1.0}},       {"twice", {3, 2.0}},
                                                {"tenfold", {9, 10.0}},      {"failing", {4, kInf}},
                                                {"unjudged", {1, kInf}},     {"one-fast", {1, 1.0}}};
  std::map<std::string, double> promise = strategy_promise(records);
  EXPECT_DOUBLE_EQ(promise.at("fastest"), 1.0);
  EXPECT_DOUBLE_EQ(promise.at("twice"), 0.25);
  EXPECT_DOUBLE_EQ(promise.at("tenfold"), kLeastPromise) << "0.01 is below the least share";
  EXPECT_DOUBLE_EQ(promise.at("failing"), kLeastPromise);
  EXPECT_FALSE(promise.count("unjudged")) << "fewer than kStrategyJudgedAfter outcomes: a whole share";
  EXPECT_FALSE(promise.count("one-fast"));
  EXPECT_TRUE(strategy_promise({}).empty());
}

// Two strategies, the second ten times slower everywhere. The random share of each round
// (here all of it: epsilon 1) goes to the slow one about one time in twenty once both are
// judged, not one in two as uniform draws would give (issue 37: with every strategy offered,
// slow strategies took a fastest one's share of the device's time).
TEST(ModelSearch, ASlowStrategysRandomDrawsShrinkOnceItIsJudged) {
  std::vector<std::int64_t> d;
  for (int i = 1; i <= 16; ++i) d.push_back(i);
  auto space = [&] {
    CandidateSpace cs;
    for (const char* label : {"fast #1", "slow #1"})
      cs.alternatives.push_back(std::make_unique<test::ToySpace>(
          label, std::vector<Parameter>{{"x", d}, {"y", d}}, [](const Point&) { return true; }));
    return cs;
  };
  auto cost = [](const Candidate& c) {
    Outcome o;
    o.ok = true;
    o.objectives.time_ms = (1.0 + 0.01 * double(c.point[0] + c.point[1])) * (c.alternative == 0 ? 1.0 : 10.0);
    o.objectives.memory = 1;
    return o;
  };
  ModelSearchOptions o = small_rounds();
  o.epsilon = 1.0;
  std::size_t slow = 0, after_warmup = 0;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    CandidateSpace cs = space();
    auto search = make_model_search(cs, o, seed);
    for (std::size_t i = 0; i < 200; ++i) {
      auto c = search->ask();
      ASSERT_TRUE(c);
      search->tell(*c, cost(*c));
      if (i >= o.warmup) ++after_warmup, slow += c->alternative == 1;
    }
  }
  EXPECT_LT(double(slow), 0.15 * double(after_warmup)) << slow << " of " << after_warmup << " asks after the warm-up";
  EXPECT_GT(slow, 0u) << "the slow strategy keeps kLeastPromise of a share";
}

// Asks until `best` was asked; the number of asks (the budget + 1 when never).
std::size_t asks_to(Search& search, const Candidate& best, std::size_t budget) {
  for (std::size_t i = 1; i <= budget; ++i) {
    auto c = search.ask();
    if (!c) break;
    search.tell(*c, cube_cost(*c));
    if (*c == best) return i;
  }
  return budget + 1;
}

TEST(ModelSearch, FindsTheOptimumOfAKnownCostInFewerAsksThanRandom) {
  // 8,192 points; random search needs ~4,000 asks on average to hit the one optimum.
  std::vector<std::size_t> model, random;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    CandidateSpace a = cube(), b = cube();
    model.push_back(asks_to(*make_model_search(a, small_rounds(), seed), kCubeBest, 1000));
    random.push_back(asks_to(*make_random_search(b, seed), kCubeBest, 1000));
  }
  auto median = [](std::vector<std::size_t> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf("asks to the optimum over seeds 1-10: model %s, random %s (1001: not within 1000)\n",
              ::testing::PrintToString(model).c_str(), ::testing::PrintToString(random).c_str());
  EXPECT_LE(median(model), 300u) << ::testing::PrintToString(model);
  EXPECT_LT(median(model), median(random)) << ::testing::PrintToString(model) << " against "
                                           << ::testing::PrintToString(random);
}

// Two alternatives: a shallow one, near its floor (1.0) at every point, and a deep one whose
// floor (0.7) is reached only near one corner (1.8 on average). The shallow one leads from the
// start and settles; the search then gives its rounds to the deep one, still within
// kContenderFactor and gaining, instead of measuring the shallow one's flat points (the lock-in
// of VGG-16's layer 3 on `conv-chw-tile-m0`, docs/results.md).
Outcome shallow_or_deep(const Candidate& c) {
  Outcome o;
  o.ok = true;
  double distance = 0;
  for (std::int64_t v : c.point) distance += std::fabs(double(v - 13));
  o.objectives.time_ms = c.alternative == 0 ? 1.0 + 0.0005 * distance : 0.7 + 0.05 * distance;
  o.objectives.memory = 1;
  return o;
}

TEST(ModelSearch, ASettledAlternativeGivesItsRoundsToAContender) {
  std::vector<std::int64_t> d;
  for (int i = 1; i <= 16; ++i) d.push_back(i);
  std::vector<double> deep_share, best;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    CandidateSpace cs;
    cs.alternatives.push_back(
        std::make_unique<test::ToySpace>("shallow #1", std::vector<Parameter>{{"w", d}, {"x", d}, {"y", d}, {"z", d}},
                                         [](const Point&) { return true; }));
    cs.alternatives.push_back(std::make_unique<test::ToySpace>(
        "deep #1", std::vector<Parameter>{{"a", d}, {"b", d}, {"c", d}, {"e", d}}, [](const Point&) { return true; }));
    ModelSearchOptions o = small_rounds();
    auto search = make_model_search(cs, o, seed);
    std::size_t deep = 0, late = 0;
    double fastest = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < 400; ++i) {
      auto c = search->ask();
      ASSERT_TRUE(c);
      Outcome out = shallow_or_deep(*c);
      search->tell(*c, out);
      fastest = std::min(fastest, out.objectives.time_ms);
      if (i >= 200) ++late, deep += c->alternative == 1;
    }
    deep_share.push_back(double(deep) / double(late));
    best.push_back(fastest);
  }
  std::printf("deep alternative's share of asks 200-400: %s; best: %s\n", ::testing::PrintToString(deep_share).c_str(),
              ::testing::PrintToString(best).c_str());
  for (std::size_t s = 0; s < best.size(); ++s) {
    EXPECT_GT(deep_share[s], 0.6) << "seed " << s + 1;
    EXPECT_LT(best[s], 0.9) << "seed " << s + 1;
  }
}

// A candidate of two kernels: x reaches the first alone, y the second alone, z both; each
// kernel's time is its own (x's and y's terms) plus half of z's. The search is told each
// kernel's time (Outcome::kernel_ms) and, with kernel_reach, composes points of each kernel's
// fastest parameters.
Outcome two_kernel_cost(const Candidate& c) {
  Outcome o = cube_cost(c);
  double shared = 0.5 * (0.05 * double((c.point[2] - 7) * (c.point[2] - 7)) + 1.0 + 1.5 * double(c.alternative));
  o.kernel_ms = {0.1 * std::fabs(double(c.point[0] - 11)) + shared, 0.2 * std::fabs(double(c.point[1] - 4)) + shared};
  return o;
}

// x and y in 1..16, z in {6, 7}: many points share a z, as a Winograd alternative's points
// share its build options.
CandidateSpace two_kernel_space() {
  std::vector<std::int64_t> d;
  for (int i = 1; i <= 16; ++i) d.push_back(i);
  CandidateSpace cs;
  cs.alternatives.push_back(std::make_unique<test::ToySpace>(
      "two kernels #1", std::vector<Parameter>{{"x", d}, {"y", d}, {"z", {6, 7}}}, [](const Point&) { return true; }));
  return cs;
}

KernelReach two_kernel_reach() {
  return [](const Candidate&) { return std::vector<std::vector<std::size_t>>{{0}, {1}, {0, 1}}; };
}

// With the kernels' times and which kernels each parameter reaches, each round after the
// first asks the point composed of the fastest told point's z and, among the told points of
// its alternative with that z, the x of the one whose first kernel ran fastest and the y of
// the one whose second did (where that point is new); the report counts the points composed.
TEST(ModelSearch, APointOfEachKernelsFastestParametersIsComposed) {
  CandidateSpace cs = two_kernel_space();
  ModelSearchOptions o = small_rounds();
  o.kernel_reach = two_kernel_reach();
  auto search = make_model_search(cs, o, 3);
  std::vector<std::pair<Candidate, Outcome>> told;
  std::set<Candidate> asked;
  std::size_t composed_asked = 0;
  for (int round = 0; round < 6; ++round) {
    // The point the told outcomes compose, as the search's comment says.
    std::optional<Candidate> expected;
    if (!told.empty()) {
      const auto* best = &told.front();
      for (const auto& t : told)
        if (t.second.objectives.time_ms < best->second.objectives.time_ms) best = &t;
      Point p = best->first.point;
      for (std::size_t k = 0; k < 2; ++k) {
        const std::pair<Candidate, Outcome>* fastest = nullptr;
        for (const auto& t : told)
          if (t.first.alternative == best->first.alternative && t.first.point[2] == p[2] &&
              (!fastest || t.second.kernel_ms[k] < fastest->second.kernel_ms[k]))
            fastest = &t;
        p[k] = fastest->first.point[k];
      }
      Candidate c{best->first.alternative, p};
      if (p != best->first.point && !asked.count(c)) expected = c;
    }
    std::vector<Candidate> this_round;
    while (auto c = search->ask()) {
      this_round.push_back(*c);
      if (search->waiting()) break;
    }
    ASSERT_FALSE(this_round.empty());
    if (round > 0 && expected) {
      EXPECT_NE(std::find(this_round.begin(), this_round.end(), *expected), this_round.end())
          << "round " << round << ": no " << ::testing::PrintToString(expected->point);
      ++composed_asked;
    }
    for (const auto& c : this_round) {
      asked.insert(c);
      Outcome out = two_kernel_cost(c);
      search->tell(c, out);
      told.emplace_back(c, out);
    }
  }
  EXPECT_GE(composed_asked, 1u);
  EXPECT_NE(search->report().find("point(s) composed of each kernel's fastest parameters"), std::string::npos)
      << search->report();
}

// A composed point is valid (repaired where the composition is not) and fresh, and the same
// outcomes give the same candidates (so --resume works with it).
TEST(ModelSearch, ComposedPointsAreValidFreshAndReproducible) {
  CandidateSpace cs = two_kernel_space();
  ModelSearchOptions o = small_rounds();
  o.kernel_reach = two_kernel_reach();
  auto first = make_model_search(cs, o, 7);
  std::vector<Candidate> asked = run(*first, 120, two_kernel_cost);
  std::set<Candidate> seen;
  for (const auto& c : asked) {
    EXPECT_TRUE(cs.alternatives[c.alternative]->valid(c.point));
    EXPECT_TRUE(seen.insert(c).second) << "a candidate was asked twice";
  }
  CandidateSpace again = two_kernel_space();
  auto second = make_model_search(again, o, 7);
  EXPECT_EQ(run(*second, 120, two_kernel_cost), asked);
  EXPECT_NE(first->report().find("point(s) composed"), std::string::npos) << first->report();
}

TEST(ModelSearch, TheDefaultFeaturesAreTheStrategyAlternativeAndLogScaledParameters) {
  CandidateSpace cs = test::toy_candidates();
  Featurizer f = parameter_features(cs);
  NamedFeatures tile = f({0, {16, 4}});
  EXPECT_EQ(tile.names, (std::vector<std::string>{"strategy", "alternative", "a", "b"}));
  EXPECT_EQ(tile.values, (std::vector<float>{0, 0, float(std::log2(17.0)), float(std::log2(5.0))}));
  NamedFeatures plain = f({1, {7}});
  EXPECT_EQ(plain.names, (std::vector<std::string>{"strategy", "alternative", "c"}));
  EXPECT_EQ(plain.values, (std::vector<float>{1, 1, 3}));  // strategies numbered in the space's order
}

TEST(ModelSearch, TheRegistryMakesItWithTheSeedsAndPopulation) {
  const SearchKind& kind = search_kind("model");
  EXPECT_TRUE(kind.population);
  CandidateSpace cs = test::toy_candidates();
  SearchSettings settings;
  settings.seed = 42;
  settings.genetic.population = 6;
  settings.genetic.seeds = {{1, {5}}};
  auto made = kind.make(cs, settings);
  ModelSearchOptions o;
  o.warmup = 6;
  o.seeds = settings.genetic.seeds;
  o.model.seed = 42;
  auto direct = make_model_search(cs, o, 42);
  auto first = made->ask();
  EXPECT_EQ(first, (Candidate{1, {5}}));  // the seed first
  EXPECT_EQ(first, direct->ask());
  for (int i = 0; i < 6; ++i) EXPECT_EQ(made->ask(), direct->ask());
}

// The genetic and the model-guided searches start alike: one generation 0 (RoundSearch's
// first_round), the seeds first, then a point of every alternative, then random draws.
TEST(ModelSearch, ItsFirstRoundIsTheGeneticSearchsGenerationZero) {
  CandidateSpace a = cube(), b = cube();
  GeneticOptions g;
  g.population = 12;
  g.seeds = {{1, {3, 3, 3}}, kCubeBest};
  ModelSearchOptions m;
  m.warmup = 12;
  m.seeds = g.seeds;
  auto genetic = make_genetic_search(a, g, 9);
  auto model = make_model_search(b, m, 9);
  std::vector<Candidate> first_generation, first_round;
  while (!genetic->waiting()) first_generation.push_back(*genetic->ask());
  while (!model->waiting()) first_round.push_back(*model->ask());
  EXPECT_EQ(first_round, first_generation);
  ASSERT_EQ(first_round.size(), 12u);
  EXPECT_EQ(first_round[0], g.seeds[0]);
  EXPECT_EQ(first_round[1], g.seeds[1]);
}

// Each round after the first holds a candidate for every job (the registry's round is
// max(8, --jobs)), so no job waits while the model has candidates to hand out. With four jobs
// or more the search lags 6 rounds (registry.cpp), so 6 more rounds come before the first
// outcome is needed, and 7 rounds after each time every outcome was told.
TEST(ModelSearch, RoundsAreAsLargeAsTheJobs) {
  struct Case {
    std::size_t jobs, round, ahead;
  };
  for (Case c : {Case{1, 8, 0}, Case{2, 8, 0}, Case{4, 8, 6}, Case{16, 16, 6}, Case{24, 24, 6}}) {
    SCOPED_TRACE(c.jobs);
    CandidateSpace cs = cube();
    SearchSettings settings;
    settings.seed = 4;
    settings.jobs = c.jobs;
    settings.genetic.population = 10;
    auto search = search_kind("model").make(cs, settings);
    std::vector<std::size_t> rounds;
    for (int r = 0; r < 4; ++r) {
      std::vector<Candidate> round;
      while (!search->waiting()) round.push_back(*search->ask());
      for (const auto& x : round) search->tell(x, cube_cost(x));
      rounds.push_back(round.size());
    }
    // Told all at once, a lagging search then hands out its next ahead + 1 rounds together.
    std::size_t then = (c.ahead + 1) * c.round;
    EXPECT_EQ(rounds, (std::vector<std::size_t>{10 + c.ahead * c.round, then, then, then}));
  }
}

// In two stages, a round's pool is ranked first on cheap features, and only the shortlist
// (and each measured candidate) is given the model's features.
TEST(ModelSearch, TwoStagesGiveOnlyTheShortlistTheModelsFeatures) {
  CandidateSpace cs = cube();
  auto costly = std::make_shared<std::size_t>(0);
  Featurizer params = parameter_features(cs);
  ModelSearchOptions o = small_rounds();
  o.features = [params, costly](const Candidate& c) {
    ++*costly;
    return params(c);
  };
  o.shortlist_features = params;
  o.shortlist = 16;
  auto search = make_model_search(cs, o, 2);
  std::size_t asks = asks_to(*search, kCubeBest, 400);
  std::size_t asked = std::min<std::size_t>(asks, 400), ranked_rounds = (asked - o.warmup + o.batch - 1) / o.batch;
  EXPECT_LE(*costly, asked + ranked_rounds * o.shortlist) << "the model's features of every proposal were computed";
  EXPECT_LE(asks, 300u) << "two stages still find the optimum";
}

TEST(ModelSearch, TheReportGivesTheModelsShareOfTheLoop) {
  ModelSearchStats s;
  s.trainings = 3;
  s.rows = 40;
  s.train_seconds = 0.1;
  s.feature_seconds = 0.2;
  s.score_seconds = 0.1;
  s.scored = 512;
  s.loop_seconds = 8;
  s.propose_seconds = 0.05;
  EXPECT_DOUBLE_EQ(model_share(s), 0.05);
  EXPECT_EQ(format_model_stats(s), "model: 3 training(s) (up to 40 rows), training 0.100 s, features 0.200 s, scoring "
                                   "0.100 s of 512 candidates: 5.0% of the loop's 8.00 s; proposing 0.050 s");
  // Generations the evaluator then used for its bundles are its work, done once for both.
  ModelSearchStats shared = s;
  shared.reused_seconds = 0.1;
  EXPECT_DOUBLE_EQ(model_share(shared), 0.0375);
  EXPECT_EQ(format_model_stats(shared), "model: 3 training(s) (up to 40 rows), training 0.100 s, features 0.200 s (0.100 "
                                        "s of it kernels the evaluator then used), scoring 0.100 s of 512 candidates: "
                                        "3.8% of the loop's 8.00 s; proposing 0.050 s");
  // A run whose candidates were all stopped as its time budget ended told none.
  ModelSearchStats none;
  EXPECT_EQ(format_model_stats(none),
            "model: 0 training(s) (up to 0 rows), training 0.000 s, features 0.000 s, "
            "scoring 0.000 s of 0 candidates: no outcome was told; proposing 0.000 s");
  s.transfer_rows = 168;
  EXPECT_EQ(format_model_stats(s).rfind("model: trained on 168 row(s) of a tuning database before the first "
                                        "measurement; 3 training(s)",
                                        0),
            0u);
}

// The cube's cost at another shape: its optimum moved by one in x and y, its times scaled.
Outcome other_shape_cost(const Candidate& c) {
  Outcome o = cube_cost({c.alternative, {c.point[0] + 1, c.point[1] + 1, c.point[2]}});
  o.objectives.time_ms *= 3;
  return o;
}

// A tuning database of one group: `count` points of `cs` drawn in turn from each alternative,
// their features and their times at the other shape relative to the best of them.
TransferRows other_shape_database(CandidateSpace& cs, std::size_t count) {
  Featurizer f = parameter_features(cs);
  std::mt19937_64 rng(5);
  std::vector<Candidate> rows;
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t a = i % cs.alternatives.size();
    rows.push_back({a, cs.alternatives[a]->sample(rng)});
  }
  double best = std::numeric_limits<double>::infinity();
  for (const auto& c : rows) best = std::min(best, other_shape_cost(c).objectives.time_ms);
  TransferRows db;
  for (const auto& c : rows) {
    db.features.push_back(f(c));
    db.relative_time.push_back(other_shape_cost(c).objectives.time_ms / best);
  }
  db.groups = {static_cast<unsigned>(count)};
  return db;
}

// A tuning database of another shape: its rows trained on before the first measurement
// rank the first round's draws, which then land near the optimum far more often than random.
TEST(ModelSearch, ATuningDatabaseTrainsTheModelBeforeTheFirstMeasurement) {
  CandidateSpace cs = cube();
  TransferRows db = other_shape_database(cs, 300);
  double with = 0, without = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    ModelSearchOptions o = small_rounds();
    o.transfer = db;
    CandidateSpace a = cube(), b = cube();
    auto transferred = make_model_search(a, o, seed);
    EXPECT_EQ(transferred->report().rfind("model: trained on 300 row(s) of a tuning database before the first "
                                          "measurement; 1 training(s) (up to 300 rows)",
                                          0),
              0u)
        << transferred->report();
    auto cold = make_model_search(b, small_rounds(), seed);
    for (int i = 0; i < 16; ++i) {
      with += cube_cost(*transferred->ask()).objectives.time_ms;
      without += cube_cost(*cold->ask()).objectives.time_ms;
    }
  }
  EXPECT_LT(with, 0.8 * without) << "the first rounds' mean time, with the database and without";
}

// With a tuning database the first round is the seeds, then ranked proposals (the seeds'
// neighbours first) and a random share: not a point of every alternative, which with many
// alternatives would spend most of the round where the database says the time is not.
TEST(ModelSearch, WithATuningDatabaseTheFirstRoundIsRankedNotAPointOfEveryAlternative) {
  auto cubes = [] {  // 12 alternatives of the cube, each 1.5 ms slower than the one before
    std::vector<std::int64_t> d;
    for (int i = 1; i <= 16; ++i) d.push_back(i);
    CandidateSpace cs;
    for (int a = 1; a <= 12; ++a)
      cs.alternatives.push_back(std::make_unique<test::ToySpace>(
          fmt::format("cube #{}", a), std::vector<Parameter>{{"x", d}, {"y", d}, {"z", d}},
          [](const Point&) { return true; }));
    return cs;
  };
  CandidateSpace cs = cubes();
  TransferRows db = other_shape_database(cs, 600);
  const Candidate other_best{0, {10, 3, 7}};  // the other shape's optimum, as the nearest shape's seed
  ModelSearchOptions o = small_rounds();
  o.seeds = {other_best};
  ModelSearchOptions trained = o;
  trained.transfer = db;
  CandidateSpace a = cubes(), b = cubes();
  auto cold = make_model_search(a, o, 3), warm = make_model_search(b, trained, 3);
  std::vector<Candidate> cold_round, warm_round;
  while (!cold->waiting()) cold_round.push_back(*cold->ask());
  while (!warm->waiting()) warm_round.push_back(*warm->ask());
  ASSERT_EQ(warm_round.size(), 16u);
  EXPECT_EQ(warm_round[0], other_best);
  std::set<std::size_t> cold_alternatives;
  for (const auto& c : cold_round) cold_alternatives.insert(c.alternative);
  EXPECT_EQ(cold_alternatives.size(), 12u) << "without a database: a point of every alternative";
  auto in_first = std::count_if(warm_round.begin(), warm_round.end(), [](const Candidate& c) { return c.alternative == 0; });
  EXPECT_GE(in_first, 12) << "the seed and the ranked three quarters in the fastest alternative";
  double warm_best = std::numeric_limits<double>::infinity();
  for (const auto& c : warm_round) warm_best = std::min(warm_best, cube_cost(c).objectives.time_ms);
  EXPECT_LE(warm_best, 1.2) << "a neighbour of the seed, one step from the optimum (11, 4, 7), is in the round";
}

TEST(Transfer, ShapesDistance) {
  struct Case {
    const char* a;
    const char* b;
    double distance;
  };
  for (const Case& c : {Case{"A=4x8,B=8x512", "A=4x8,B=8x512", 0.0}, Case{"A=4x8,B=8x512", "A=8x8,B=8x256", 2 * std::log(2.0)},
                        Case{"A=4x8", "A=4x8,B=8x512", 10.0}, Case{"A=4x8", "A=4x8x1", 10.0}, Case{"", "", 0.0}}) {
    SCOPED_TRACE(std::string(c.a) + " / " + c.b);
    EXPECT_NEAR(shapes_distance(c.a, c.b), c.distance, 1e-12);
    EXPECT_NEAR(shapes_distance(c.b, c.a), c.distance, 1e-12);
  }
}

Evaluation stored(const std::string& program, const std::string& device, const std::string& shapes,
                  const std::string& point, double time, std::int64_t alternative = 1) {
  static int key = 0;
  Evaluation e;
  e.key = fmt::format("k{}", ++key);
  e.program = program;
  e.file = program + ".sr";
  e.strategy = "cube";
  e.alternative = alternative;
  e.point = point;
  e.status = std::isfinite(time) ? status::Ok : status::Wrong;
  e.reason = std::isfinite(time) ? "" : "it failed";
  e.time_ms = std::isfinite(time) ? time : std::numeric_limits<double>::quiet_NaN();
  e.device = device;
  e.shapes = shapes;
  return e;
}

// A store with this program's own rows, another shape's and another device's.
std::unique_ptr<Store> transfer_store(const std::string& path) {
  auto s = Store::open(path);
  std::int64_t run = s->begin_run("cube.sr", "{}");
  std::vector<Evaluation> rows{
      stored("this", "dev", "A=4x8", "x=1,y=1,z=1", 1.0),   stored("this", "dev", "A=4x8", "x=2,y=1,z=1", 2.0),
      stored("near", "dev", "A=8x8", "x=11,y=4,z=7", 0.5),  stored("near", "dev", "A=8x8", "x=9,y=4,z=7", 1.0),
      stored("near", "dev", "A=8x8", "x=20,y=4,z=7", 0.25),  // fastest, but not a point of this space
      stored("near", "dev", "A=8x8", "x=3,y=3,z=3", std::numeric_limits<double>::infinity()),
      stored("far", "dev", "A=64x8", "x=5,y=5,z=5", 0.1),   stored("far", "dev", "A=64x8", "x=6,y=5,z=5", 0.4),
      stored("near", "gpu", "A=8x8", "x=2,y=2,z=2", 0.2),   stored("near", "gpu", "A=8x8", "x=2,y=2,z=3", 0.8),
      stored("lone", "dev", "A=16x8", "x=4,y=4,z=4", 0.3),  // one time: ranks nothing
  };
  for (auto& e : rows) {
    e.run = run;
    s->add(e);
  }
  return s;
}

TEST(Transfer, RowsOfOtherProgramsAndDevicesRelativeToTheirBest) {
  auto dir = test::fresh_test_folder("transfer");
  auto s = transfer_store((dir / "db").string());
  TransferTarget t{"this", "dev", "A=4x8"};
  t.strategies = {"cube", "other"};
  TransferRows rows = transfer_rows({s.get()}, t);
  // Groups by (program, device) in the store's order of keys: far/dev, near/dev, near/gpu.
  EXPECT_EQ(rows.groups, (std::vector<unsigned>{2, 4, 2}));
  ASSERT_EQ(rows.relative_time.size(), 8u);
  EXPECT_EQ(rows.relative_time[0], 1.0);
  EXPECT_EQ(rows.relative_time[1], 4.0);
  EXPECT_EQ(rows.relative_time[2], 2.0);  // near/dev: 0.5 against its best 0.25
  EXPECT_TRUE(std::isinf(rows.relative_time[5]));
  EXPECT_EQ(rows.features[0].names,
            (std::vector<std::string>{"strategy.cube", "strategy.other", "alternative", "param.x", "param.y", "param.z"}));
  EXPECT_EQ(rows.features[0].values, (std::vector<float>{1, 0, 1, 5, 5, 5}));
  t.before_run = 1;  // a resumed first run: no earlier rows
  EXPECT_TRUE(transfer_rows({s.get()}, t).groups.empty());
}

// Several stores (--train-db given more than once) are read as one: a (program, device) of
// two of them is one group, its times relative to the best of both.
TEST(Transfer, SeveralStoresAreReadAsOneDatabase) {
  auto dir = test::fresh_test_folder("transfer");
  auto first = transfer_store((dir / "first").string());
  auto second = Store::open((dir / "second").string());
  std::int64_t run = second->begin_run("cube.sr", "{}");
  for (Evaluation e : {stored("lone", "dev", "A=16x8", "x=4,y=4,z=5", 0.15),  // lone ranks now: 0.3 is 2x its best
                       stored("other", "dev", "A=4x16", "x=7,y=7,z=7", 0.3),
                       stored("other", "dev", "A=4x16", "x=8,y=7,z=7", 0.9)}) {
    e.run = run;
    second->add(e);
  }
  TransferTarget t{"this", "dev", "A=4x8"};
  t.strategies = {"cube"};
  TransferRows both = transfer_rows({first.get(), second.get()}, t);
  // far/dev, lone/dev, near/dev, near/gpu, other/dev (the groups' keys in order).
  EXPECT_EQ(both.groups, (std::vector<unsigned>{2, 2, 4, 2, 2}));
  EXPECT_EQ(both.relative_time[2], 2.0);  // lone's 0.3 of the first store against 0.15 of the second
  EXPECT_EQ(both.relative_time[3], 1.0);
  EXPECT_EQ(transfer_rows({first.get()}, t).groups.size(), 3u);
  // The nearest shapes over both: other (A=4x16) is as near as near (A=8x8), after it in the map's order.
  CandidateSpace cs = cube();
  EXPECT_EQ(nearest_shape_seeds({first.get(), second.get()}, t, cs, 3, 1),
            (std::vector<Candidate>{{0, {16, 4, 7}}, {0, {7, 7, 7}}, {0, {4, 4, 5}}}));
}

TEST(Transfer, TheNearestShapesBestPointsMappedToTheNearestValidPoint) {
  auto dir = test::fresh_test_folder("transfer");
  auto s = transfer_store((dir / "db").string());
  CandidateSpace cs = cube();
  TransferTarget t{"this", "dev", "A=4x8"};
  // near (A=8x8), lone (A=16x8), far (A=64x8), the device's own before gpu's; near's
  // fastest, x=20, is outside the cube's 1..16: it becomes the nearest valid point, x=16;
  // the program's own rows are --warm-start's, not these.
  EXPECT_EQ(nearest_shape_seeds({s.get()}, t, cs, 10, 2),
            (std::vector<Candidate>{{0, {16, 4, 7}}, {0, {11, 4, 7}}, {0, {4, 4, 4}}, {0, {5, 5, 5}}, {0, {6, 5, 5}},
                                    {0, {2, 2, 2}}, {0, {2, 2, 3}}}));
  EXPECT_EQ(nearest_shape_seeds({s.get()}, t, cs, 1), (std::vector<Candidate>{{0, {16, 4, 7}}}));
}

}  // namespace
}  // namespace liftc::explore
