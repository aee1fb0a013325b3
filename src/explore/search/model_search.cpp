// The model-guided search (model_search.hpp).

#include "liftc/explore/search/model_search.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "liftc/explore/search/rounds.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::explore {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

float log_scaled(std::int64_t v) {
  double m = std::log2(1.0 + std::fabs(double(v)));
  return static_cast<float>(v < 0 ? -m : m);
}

// A candidate's features as a sparse row of a ranker's columns.
using Row = std::vector<std::pair<std::size_t, float>>;

// A model and what it sees: its featurizer, and the columns its feature names were given.
struct Ranker {
  explicit Ranker(const cost::ModelOptions& o) : model(o) {}
  Featurizer features;
  cost::RankModel model;
  std::map<std::string, std::size_t> columns;  // feature name -> column
  std::vector<Row> prior;                      // the tuning database's rows (ModelSearchOptions::transfer)

  Row row_of(const NamedFeatures& f) {
    LIFTC_ASSERT(f.names.size() == f.values.size(), "a featurizer gives a value for every name");
    Row row;
    for (std::size_t i = 0; i < f.names.size(); ++i) {
      auto [it, added] = columns.try_emplace(f.names[i], columns.size());
      row.emplace_back(it->second, f.values[i]);
    }
    return row;
  }

  // Rows as a dense matrix of the columns known now (NaN where a row lacks one).
  std::vector<float> dense(const std::vector<const Row*>& rows) const {
    std::size_t width = columns.size();
    std::vector<float> m(rows.size() * width, std::numeric_limits<float>::quiet_NaN());
    for (std::size_t r = 0; r < rows.size(); ++r)
      for (const auto& [col, v] : *rows[r]) m[r * width + col] = v;
    return m;
  }

  std::vector<float> score(const std::vector<Row>& rows) const {
    std::vector<const Row*> refs;
    for (const auto& r : rows) refs.push_back(&r);
    return model.score(dense(refs), columns.size());
  }
};

// A measured candidate and its rows: of the model, and of the shortlisting model (if any).
struct Measured {
  Candidate candidate;
  Outcome outcome;
  Row row, cheap_row;
};

class ModelSearch : public RoundSearch {
  // The fastest points that breed each round's proposals, besides each alternative's best.
  static constexpr std::size_t kParents = 8;
  // The fastest points whose every neighbour (one parameter one step away) is proposed each
  // round: the model then picks among the small steps from the best points, which the
  // mutations (a third of the parameters at once, from any of the parents) rarely make.
  static constexpr std::size_t kNeighbourhoods = 4;
  static constexpr double kMutationRate = 0.3;
  // The fastest alternatives that get a point composed of their kernels' fastest parameters each round.
  static constexpr std::size_t kComposedAlternatives = 3;
  // Ranks past each kernel's fastest setting that a composed point may take in all.
  static constexpr std::size_t kComposedRanks = 4;
  // An alternative is settled once its last kSettledAfter outcomes did not make its fastest
  // point kSettledGain faster. While another alternative within kContenderFactor of the
  // fastest is not settled, a settled one breeds no round (its fastest point stays a parent,
  // with no neighbourhood) and gets at most kSettledRanked of a round's ranked share; the rest
  // goes to the contenders. Without this, the first alternative to lead took most of a run:
  // on VGG-16's layer 3 (90 s, every strategy) `conv-chw-tile-m0` #1 took 828 of 1,369
  // measurements, its last 620 within 1% of its best (0.1028 ms), while `conv-winograd-local`
  // #2 got 46, 2% behind and still gaining; with this, runs of 120 s ended on the Winograd
  // strategies at 0.0711 and 0.0645 ms (docs/results.md, thirty-fourth session).
  static constexpr std::size_t kSettledAfter = 64;
  static constexpr double kSettledGain = 0.02;
  static constexpr double kContenderFactor = 1.5;
  static constexpr std::size_t kSettledRanked = 1;

 public:
  ModelSearch(CandidateSpace& space, const ModelSearchOptions& o, std::uint64_t seed)
      : RoundSearch(space, seed, o.lag, o.slow_lag, o.slow_s), o_(o), full_(o.model), cheap_(o.model) {
    o_.batch = std::max<std::size_t>(o_.batch, 1);
    o_.pool = std::max(o_.pool, o_.batch);
    o_.warmup = std::max<std::size_t>(o_.warmup, 2);
    o_.epsilon = std::clamp(o_.epsilon, 0.0, 1.0);
    full_.features = o_.features ? o_.features : parameter_features(space);
    two_stage_ = o_.shortlist_features && o_.shortlist > 0 && o_.shortlist < o_.pool;
    cheap_.features = o_.shortlist_features;
    prior_rows_ = o_.transfer.features.size();
    for (const auto& f : o_.transfer.features) {
      full_.prior.push_back(full_.row_of(f));
      if (two_stage_) cheap_.prior.push_back(cheap_.row_of(f));
    }
    maybe_train();  // on the tuning database's rows alone, before the first measurement
  }

  std::string report() const override {
    ModelSearchStats s = stats_;
    if (o_.reused_by_evaluator) s.reused_seconds = std::min(o_.reused_by_evaluator(), s.feature_seconds);
    return format_model_stats(s);
  }

 private:
  void told(const Candidate& c, const Outcome& o) override {
    measured_.push_back({c, o, row_of(full_, c), two_stage_ ? row_of(cheap_, c) : Row{}});
    StrategyRecord& r = strategies_[space_.alternatives[c.alternative]->strategy()];
    ++r.outcomes;
    if (timed(o)) r.best_ms = std::min(r.best_ms, o.objectives.time_ms);
    Progress& p = progress_[c.alternative];
    ++p.since_gain;
    if (timed(o) && o.objectives.time_ms < p.gained_at * (1.0 - kSettledGain))
      p.gained_at = o.objectives.time_ms, p.since_gain = 0;
    if (timed(o)) p.best_ms = std::min(p.best_ms, o.objectives.time_ms);
    stats_.loop_seconds = seconds_since(started_at_);
  }

  Row row_of(Ranker& r, const Candidate& c) {
    auto t0 = Clock::now();
    Row row = r.row_of(r.features(c));
    stats_.feature_seconds += seconds_since(t0);
    return row;
  }

  // Trains on the tuning database's rows and every outcome so far, once the run's rows grew
  // enough since the last training (or, without a database, once there are `warmup` of
  // them). The relevance of a validated candidate is -log(time / the best of its group): its
  // program on its device (the run's rows are one group, so that candidates of different
  // alternatives are ranked against each other); a failure's is below every validated one of
  // its group (the model learns to avoid failing regions too).
  void maybe_train() {
    std::size_t n = measured_.size();
    if (prior_rows_ == 0 && n < o_.warmup) return;
    if (full_.model.trained() &&
        (double(n) < double(trained_rows_) * (1.0 + o_.retrain_growth) || n < trained_rows_ + o_.batch))
      return;
    auto t0 = Clock::now();
    cost::RankingData data;
    std::vector<std::size_t> prior;  // the database's rows trained on, then the run's (all of them or none)
    std::size_t at = 0;
    for (unsigned g : o_.transfer.groups) {
      for (std::size_t i = at; i < at + g; ++i) {
        prior.push_back(i);
        double t = o_.transfer.relative_time[i];
        data.relevance.push_back(
            static_cast<float>(std::isfinite(t) ? -std::log(t) : -std::log(worst_prior(at, g)) - 1.0));
      }
      data.groups.push_back(g);
      at += g;
    }
    std::vector<double> times;
    for (const auto& m : measured_)
      if (timed(m.outcome)) times.push_back(m.outcome.objectives.time_ms);
    bool own = times.size() >= 2 &&
               *std::min_element(times.begin(), times.end()) != *std::max_element(times.begin(), times.end());
    if (own) {
      double best = *std::min_element(times.begin(), times.end());
      double worst = -std::log(*std::max_element(times.begin(), times.end()) / best);
      for (const auto& m : measured_)
        data.relevance.push_back(
            static_cast<float>(timed(m.outcome) ? -std::log(m.outcome.objectives.time_ms / best) : worst - 1.0));
      data.groups.push_back(static_cast<unsigned>(n));
    }
    if (data.groups.empty()) return;  // nothing to rank yet
    auto train = [&](Ranker& r, Row Measured::*row) {
      std::vector<const Row*> rows;
      for (std::size_t i : prior) rows.push_back(&r.prior[i]);
      if (own)
        for (const auto& m : measured_) rows.push_back(&(m.*row));
      data.columns = r.columns.size();
      data.features = r.dense(rows);
      r.model.train(data);
    };
    train(full_, &Measured::row);
    if (two_stage_) train(cheap_, &Measured::cheap_row);
    trained_rows_ = n;
    ++stats_.trainings;
    stats_.rows = data.rows();
    stats_.transfer_rows = prior_rows_;
    stats_.train_seconds += seconds_since(t0);
  }

  static bool timed(const Outcome& o) {
    return o.ok && std::isfinite(o.objectives.time_ms) && o.objectives.time_ms > 0;
  }

  // The largest finite relative time of the database's group [at, at + size).
  double worst_prior(std::size_t at, std::size_t size) const {
    double worst = 1;
    for (std::size_t i = at; i < at + size; ++i)
      if (std::isfinite(o_.transfer.relative_time[i])) worst = std::max(worst, o_.transfer.relative_time[i]);
    return worst;
  }

  // The alternatives that are settled (kSettledAfter) while a contender is not; empty when
  // no contender is left (then the fastest alternatives breed as before, settled or not).
  std::set<std::size_t> held_back() const {
    double fastest = std::numeric_limits<double>::infinity();
    for (const auto& [alternative, p] : progress_) fastest = std::min(fastest, p.best_ms);
    std::set<std::size_t> settled;
    bool contender = false;
    for (const auto& [alternative, p] : progress_) {
      if (!std::isfinite(p.best_ms)) continue;
      if (p.since_gain >= kSettledAfter)
        settled.insert(alternative);
      else
        contender = contender || p.best_ms <= kContenderFactor * fastest;
    }
    return contender ? settled : std::set<std::size_t>{};
  }

  // The parents of a round's proposals: the kParents fastest validated points of alternatives
  // not `held` back (fastest first: the first kNeighbourhoods get their neighbours proposed),
  // then each other alternative's fastest.
  std::vector<const Candidate*> parents(const std::set<std::size_t>& held) const {
    std::vector<const Measured*> ok;
    for (const auto& m : measured_)
      if (m.outcome.ok) ok.push_back(&m);
    std::stable_sort(ok.begin(), ok.end(), [](const Measured* a, const Measured* b) {
      return a->outcome.objectives.time_ms < b->outcome.objectives.time_ms;
    });
    std::vector<const Candidate*> out;
    if (ok.empty())  // a model trained on a tuning database alone: the seeds breed
      for (const Candidate& c : o_.seeds) out.push_back(&c);
    std::set<std::size_t> alternatives;
    std::vector<const Candidate*> bests;  // of alternatives without a point among the fastest
    std::size_t fastest = 0;
    for (const Measured* m : ok) {
      std::size_t a = m->candidate.alternative;
      if (fastest < kParents && !held.count(a)) {
        ++fastest;
        alternatives.insert(a);
        out.push_back(&m->candidate);
      } else if (alternatives.insert(a).second) {
        bests.push_back(&m->candidate);
      }
    }
    out.insert(out.end(), bests.begin(), bests.end());
    return out;
  }

  // Many fresh candidates, cheaply: the fresh neighbours of the kNeighbourhoods fastest
  // points of alternatives not `held` back (held_back()), children of the parents (crossover
  // within an alternative, mutation), then random draws for a quarter of the pool.
  std::vector<Candidate> propose(const std::set<std::size_t>& held) {
    auto t0 = Clock::now();
    std::vector<Candidate> pool;
    std::set<Candidate> in_pool;
    auto add = [&](const Candidate& c) {
      if (fresh(c) && in_pool.insert(c).second) pool.push_back(c);
    };
    std::vector<const Candidate*> ps = parents(held);
    for (std::size_t i = 0; i < ps.size() && i < kNeighbourhoods && !held.count(ps[i]->alternative); ++i)
      for (Point& n : neighbours(*space_.alternatives[ps[i]->alternative], ps[i]->point))
        add({ps[i]->alternative, std::move(n)});
    std::size_t bred = ps.empty() ? 0 : o_.pool - o_.pool / 4;
    std::uniform_real_distribution<double> coin(0.0, 1.0);
    for (std::size_t attempt = 0; pool.size() < bred && attempt < 2 * bred; ++attempt) {
      const Candidate& a = *ps[std::uniform_int_distribution<std::size_t>(0, ps.size() - 1)(rng_)];
      const Candidate& b = *ps[std::uniform_int_distribution<std::size_t>(0, ps.size() - 1)(rng_)];
      Alternative& alt = *space_.alternatives[a.alternative];
      Point p = a.point;
      if (b.alternative == a.alternative && p.size() >= 2 && coin(rng_) < 0.5) {
        std::size_t cut = std::uniform_int_distribution<std::size_t>(1, p.size() - 1)(rng_);
        if (auto x = crossover(alt, a.point, b.point, cut)) p = *x;
      }
      if (auto m = mutate(alt, p, kMutationRate, rng_)) add({a.alternative, *m});
    }
    std::size_t draws = pool.size() + std::max<std::size_t>(o_.pool / 4, o_.pool - std::min(o_.pool, bred));
    std::map<std::string, double> promise = strategy_promise(strategies_);
    for (std::size_t attempt = 0; pool.size() < draws && attempt < o_.pool; ++attempt)
      if (auto c = random_candidate(promise)) add(*c);
    stats_.propose_seconds += seconds_since(t0);
    return pool;
  }

  // Points composed of each kernel's fastest parameters. An alternative's candidates that
  // run several kernels are timed kernel by kernel (Outcome::kernel_ms), and a parameter that
  // reaches one kernel alone (ModelSearchOptions::kernel_reach: the Winograd transforms'
  // work-group sizes, say) changes that kernel's time alone. From the alternative's fastest
  // point b, each kernel takes the parameters that reach it alone from the measured point where
  // it ran fastest among those that agree with b on the other parameters that reach it. The
  // kComposedAlternatives fastest alternatives get one such point a round, where it is new:
  // one point's transforms and another's multiplication, which mutations combine by chance
  // (VGG-16 layer 3's last 5% came from such parameters a few at a time: docs/results.md).
  std::vector<Candidate> composed() {
    std::vector<Candidate> out;
    if (!o_.kernel_reach) return out;
    std::map<std::size_t, const Measured*> fastest_of;
    for (const auto& m : measured_) {
      if (!timed(m.outcome) || m.outcome.kernel_ms.size() < 2) continue;
      auto [it, added] = fastest_of.try_emplace(m.candidate.alternative, &m);
      if (!added && m.outcome.objectives.time_ms < it->second->outcome.objectives.time_ms) it->second = &m;
    }
    std::vector<const Measured*> bests;
    for (const auto& [alternative, m] : fastest_of) bests.push_back(m);
    std::stable_sort(bests.begin(), bests.end(), [](const Measured* a, const Measured* b) {
      return a->outcome.objectives.time_ms < b->outcome.objectives.time_ms;
    });
    if (bests.size() > kComposedAlternatives) bests.resize(kComposedAlternatives);
    for (const Measured* b : bests) {
      std::size_t alternative = b->candidate.alternative, kernels = b->outcome.kernel_ms.size();
      const Point& at = b->candidate.point;
      const std::vector<std::vector<std::size_t>>& reach = reach_of(b->candidate);
      bool fits = reach.size() == at.size();
      for (const auto& r : reach)
        fits = fits && std::all_of(r.begin(), r.end(), [&](std::size_t k) { return k < kernels; });
      if (!fits) continue;  // the reach of another kernel plan than the one timed
      auto reaches = [&](std::size_t i, std::size_t k) {
        return std::find(reach[i].begin(), reach[i].end(), k) != reach[i].end();
      };
      // Each kernel's own parameters (those that reach it alone) at the points that agree
      // with b on its other parameters, fastest first, each setting once.
      std::vector<std::vector<std::pair<double, Point>>> settings(kernels);
      for (std::size_t k = 0; k < kernels; ++k) {
        std::map<Point, double> fastest;  // a setting of k's own parameters -> its least time
        for (const auto& m : measured_) {
          if (m.candidate.alternative != alternative || !timed(m.outcome) || m.outcome.kernel_ms.size() != kernels)
            continue;
          bool agrees = true;
          Point own;
          for (std::size_t i = 0; i < at.size() && agrees; ++i) {
            agrees = !(reaches(i, k) && reach[i].size() > 1 && m.candidate.point[i] != at[i]);
            if (reach[i].size() == 1 && reach[i][0] == k) own.push_back(m.candidate.point[i]);
          }
          if (!agrees) continue;
          auto [it, added] = fastest.try_emplace(own, m.outcome.kernel_ms[k]);
          if (!added) it->second = std::min(it->second, m.outcome.kernel_ms[k]);
        }
        for (const auto& [own, ms] : fastest) settings[k].emplace_back(ms, own);
        std::stable_sort(settings[k].begin(), settings[k].end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
      }
      // The combination of the kernels' settings of least rank sum (each kernel's fastest
      // first, then the next ones) that is a fresh valid point (repaired to the nearest where
      // it is not valid); at most kComposedRanks ranks in all past the fastest.
      std::optional<Candidate> found;
      std::vector<std::size_t> rank(kernels, 0);
      for (std::size_t sum = 0; sum <= kComposedRanks && !found; ++sum)
        for_each_ranks(rank, 0, sum, settings, [&] {
          if (found) return;
          Point p = at;
          for (std::size_t k = 0; k < kernels; ++k) {
            if (settings[k].empty()) continue;
            const Point& own = settings[k][rank[k]].second;
            std::size_t o = 0;
            for (std::size_t i = 0; i < at.size(); ++i)
              if (reach[i].size() == 1 && reach[i][0] == k) p[i] = own[o++];
          }
          Alternative& alt = *space_.alternatives[alternative];
          std::optional<Point> valid = alt.valid(p) ? std::optional<Point>(p) : alt.repair(p);
          if (!valid) return;
          Candidate c{alternative, std::move(*valid)};
          if (fresh(c) && std::find(out.begin(), out.end(), c) == out.end()) found = std::move(c);
        });
      if (found) out.push_back(std::move(*found));
    }
    stats_.composed += out.size();
    return out;
  }

  // Calls `visit` with every `rank` (one a kernel, each below its kernel's settings, 0 where it
  // has none) whose ranks from kernel `k` on sum to `left`.
  template <typename Visit>
  static void for_each_ranks(std::vector<std::size_t>& rank, std::size_t k, std::size_t left,
                             const std::vector<std::vector<std::pair<double, Point>>>& settings, Visit&& visit) {
    if (k == rank.size()) {
      if (left == 0) visit();
      return;
    }
    std::size_t most = settings[k].empty() ? 0 : std::min(left, settings[k].size() - 1);
    for (std::size_t r = 0; r <= most; ++r) {
      rank[k] = r;
      for_each_ranks(rank, k + 1, left - r, settings, visit);
    }
    rank[k] = 0;
  }

  // Which kernels each parameter of `c`'s alternative reaches, found once an alternative (at
  // its fastest point when first asked).
  const std::vector<std::vector<std::size_t>>& reach_of(const Candidate& c) {
    auto it = reach_.find(c.alternative);
    if (it == reach_.end()) {
      auto t0 = Clock::now();
      it = reach_.emplace(c.alternative, o_.kernel_reach(c)).first;
      stats_.reach_seconds += seconds_since(t0);
    }
    return it->second;
  }

  // Candidates in the order of `scores`, best first.
  static std::vector<Candidate> by_score(std::vector<Candidate> pool, const std::vector<float>& scores) {
    std::vector<std::size_t> order(pool.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
    std::vector<Candidate> out;
    for (std::size_t i : order) out.push_back(std::move(pool[i]));
    return out;
  }

  // The pool's candidates in the model's order, best first. In two stages, the pool is
  // first ranked by the shortlisting model (on what a point says alone), and only its best
  // `shortlist` get the model's features (a generation each) and its order.
  std::vector<Candidate> ranked(std::vector<Candidate> pool) {
    double featuring = stats_.feature_seconds;
    auto t0 = Clock::now();
    stats_.scored += pool.size();
    if (two_stage_ && pool.size() > o_.shortlist) {
      std::vector<Row> rows;
      for (const auto& c : pool) rows.push_back(row_of(cheap_, c));
      pool = by_score(std::move(pool), cheap_.score(rows));
      pool.resize(o_.shortlist);
    }
    std::vector<Row> rows;
    for (const auto& c : pool) rows.push_back(row_of(full_, c));
    std::vector<Candidate> out = by_score(std::move(pool), full_.score(rows));
    stats_.score_seconds += seconds_since(t0) - (stats_.feature_seconds - featuring);
    return out;
  }

  // The best-ranked of a pool of proposals up to `size` queued (at most kSettledRanked of
  // each alternative held back), then random draws up to `fill` (the share that keeps the
  // model learning where it ranks wrongly).
  void queue_ranked(std::size_t size, std::size_t fill) {
    if (full_.model.trained() && queued() < size) {
      std::set<std::size_t> held = held_back();
      std::map<std::size_t, std::size_t> taken;  // of each alternative held back
      std::vector<Candidate> best = ranked(propose(held));
      for (std::size_t i = 0; i < best.size() && queued() < size; ++i)
        if (!held.count(best[i].alternative) || ++taken[best[i].alternative] <= kSettledRanked) queue(best[i]);
    }
    std::map<std::string, double> promise = strategy_promise(strategies_);
    while (queued() < fill)
      if (auto c = random_candidate(promise))
        queue(*c);
      else
        break;
  }

  void next_round() override {
    if (!clock_started_) clock_started_ = true, started_at_ = Clock::now();
    auto random_share = static_cast<std::size_t>(std::lround(o_.epsilon * double(o_.batch)));
    if (!started_) {
      // The genetic search's generation 0 (the seeds and a point of every alternative, then
      // random draws). With a model trained on a tuning database: the seeds, then ranked
      // proposals (bred from the seeds: their neighbours first) and a random share; a point
      // of every alternative would take all of the first round (VGG-16's layer 2 has 28
      // alternatives to a first round of 24), whatever the database says of them.
      started_ = true;
      first_round(o_.seeds, 0, !full_.model.trained());
      queue_ranked(o_.warmup - std::min(random_share, o_.warmup), o_.warmup);
      return;
    }
    maybe_train();
    for (const Candidate& c : composed()) queue(c);
    queue_ranked(o_.batch - std::min(random_share, o_.batch), o_.batch);
  }

  ModelSearchOptions o_;
  Ranker full_;   // the model: o_.features
  Ranker cheap_;  // the shortlisting model (two_stage_): o_.shortlist_features
  bool two_stage_ = false;
  bool started_ = false;
  std::size_t prior_rows_ = 0;
  std::vector<Measured> measured_;                                      // in the order told
  std::map<std::string, StrategyRecord> strategies_;                    // the outcomes of each strategy's candidates
  // An alternative's fastest validated time, and its outcomes since that time last fell by
  // kSettledGain (from gained_at, its fastest then).
  struct Progress {
    double best_ms = std::numeric_limits<double>::infinity();
    double gained_at = std::numeric_limits<double>::infinity();
    std::size_t since_gain = 0;
  };
  std::map<std::size_t, Progress> progress_;                            // by alternative
  std::map<std::size_t, std::vector<std::vector<std::size_t>>> reach_;  // reach_of, by alternative
  std::size_t trained_rows_ = 0;                                        // the run's rows at the last training
  bool clock_started_ = false;
  Clock::time_point started_at_;
  ModelSearchStats stats_;
};

}  // namespace

std::map<std::string, double> strategy_promise(const std::map<std::string, StrategyRecord>& strategies) {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& [name, r] : strategies) best = std::min(best, r.best_ms);
  std::map<std::string, double> promise;
  for (const auto& [name, r] : strategies) {
    if (r.outcomes < kStrategyJudgedAfter) continue;  // not judged yet: a whole share
    double ratio = std::isfinite(r.best_ms) ? best / r.best_ms : 0.0;
    promise[name] = std::max(kLeastPromise, ratio * ratio);
  }
  return promise;
}

Featurizer parameter_features(const CandidateSpace& space) {
  struct Layout {
    float strategy = 0;
    std::vector<std::string> names;
  };
  std::vector<Layout> layouts;
  std::map<std::string, float> strategies;
  for (const auto& a : space.alternatives) {
    Layout l;
    l.strategy = strategies.try_emplace(a->strategy(), float(strategies.size())).first->second;
    for (const auto& p : a->parameters()) l.names.push_back(p.name);
    layouts.push_back(std::move(l));
  }
  return [layouts](const Candidate& c) {
    LIFTC_ASSERT(c.alternative < layouts.size(), "a candidate of the space the featurizer was made for");
    const Layout& l = layouts[c.alternative];
    NamedFeatures f;
    f.names = {"strategy", "alternative"};
    f.values = {l.strategy, float(c.alternative)};
    for (std::size_t i = 0; i < l.names.size() && i < c.point.size(); ++i) {
      f.names.push_back(l.names[i]);
      f.values.push_back(log_scaled(c.point[i]));
    }
    return f;
  };
}

std::unique_ptr<Search> make_model_search(CandidateSpace& space, const ModelSearchOptions& options,
                                          std::uint64_t seed) {
  return std::make_unique<ModelSearch>(space, options, seed);
}

Featurizer caching(Featurizer features) {
  auto known = std::make_shared<std::map<Candidate, NamedFeatures>>();
  return [features = std::move(features), known](const Candidate& c) {
    auto it = known->find(c);
    if (it == known->end()) it = known->emplace(c, features(c)).first;
    return it->second;
  };
}

double model_share(const ModelSearchStats& s) {
  double own = s.train_seconds + s.score_seconds + s.feature_seconds - s.reused_seconds;
  return s.loop_seconds > 0 ? own / s.loop_seconds : 0.0;
}

std::string format_model_stats(const ModelSearchStats& s) {
  // The loop's time runs from the first round to the last outcome told.
  std::string share = s.loop_seconds > 0
                          ? fmt::format("{:.1f}% of the loop's {:.2f} s", 100.0 * model_share(s), s.loop_seconds)
                          : "no outcome was told";
  std::string transfer =
      s.transfer_rows > 0
          ? fmt::format("trained on {} row(s) of a tuning database before the first measurement; ", s.transfer_rows)
          : std::string();
  std::string reused = s.reused_seconds > 0
                           ? fmt::format(" ({:.3f} s of it kernels the evaluator then used)", s.reused_seconds)
                           : std::string();
  std::string composed = s.composed > 0
                             ? fmt::format(
                                   "; {} point(s) composed of each kernel's fastest parameters (which kernels each "
                                   "parameter reaches: {:.3f} s)",
                                   s.composed, s.reach_seconds)
                             : std::string();
  return fmt::format(
      "model: {}{} training(s) (up to {} rows), training {:.3f} s, features {:.3f} s{}, scoring {:.3f} s "
      "of {} candidates: {}; proposing {:.3f} s{}",
      transfer, s.trainings, s.rows, s.train_seconds, s.feature_seconds, reused, s.score_seconds, s.scored, share,
      s.propose_seconds, composed);
}

}  // namespace liftc::explore
