// The model-guided search (model_search.hpp).

#include "liftc/explore/search/model_search.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "liftc/support/diagnostic.hpp"

namespace liftc::explore {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

float log_scaled(std::int64_t v) {
  double m = std::log2(1.0 + std::fabs(double(v)));
  return static_cast<float>(v < 0 ? -m : m);
}

// A candidate's features as a sparse row of the search's columns.
using Row = std::vector<std::pair<std::size_t, float>>;

// A measured candidate.
struct Measured {
  Candidate candidate;
  Outcome outcome;
  Row row;
};

class ModelSearch : public Search {
  // The fastest points that breed each round's proposals, besides each alternative's best.
  static constexpr std::size_t kParents = 8;
  static constexpr double kMutationRate = 0.3;
  static constexpr int kDrawAttempts = 200;

 public:
  ModelSearch(CandidateSpace& space, const ModelSearchOptions& o, std::uint64_t seed)
      : space_(space), o_(o), rng_(seed), model_(o.model) {
    o_.batch = std::max<std::size_t>(o_.batch, 1);
    o_.pool = std::max(o_.pool, o_.batch);
    o_.warmup = std::max<std::size_t>(o_.warmup, 2);
    o_.epsilon = std::clamp(o_.epsilon, 0.0, 1.0);
    if (!o_.features) o_.features = parameter_features(space);
  }

  std::optional<Candidate> ask() override {
    if (!clock_started_) clock_started_ = true, started_at_ = Clock::now();
    if (pending_.empty()) breed();
    if (pending_.empty()) return std::nullopt;
    Candidate c = pending_.front();
    pending_.pop_front();
    ++untold_;
    return c;
  }

  void tell(const Candidate& c, const Outcome& o) override {
    if (untold_ > 0) --untold_;
    measured_.push_back({c, o, row_of(c)});
    stats_.loop_seconds = seconds_since(started_at_);
  }

  // A round is ranked with the outcomes of the rounds before: all of them.
  bool waiting() const override { return pending_.empty() && untold_ > 0; }

  std::string report() const override { return format_model_stats(stats_); }

 private:
  // Not asked before, nor proposed in this round.
  bool fresh(const Candidate& c) const { return !asked_.count(c); }

  void queue(const Candidate& c) {
    asked_.insert(c);
    pending_.push_back(c);
  }

  std::optional<Candidate> random_candidate() {
    for (int attempt = 0; attempt < kDrawAttempts; ++attempt) {
      Candidate c;
      c.alternative = draw_alternative(space_, rng_);
      if (space_.alternatives[c.alternative]->count() <= 0) continue;
      c.point = space_.alternatives[c.alternative]->sample(rng_);
      if (fresh(c)) return c;
    }
    return std::nullopt;
  }

  Row row_of(const Candidate& c) {
    NamedFeatures f = o_.features(c);
    LIFTC_ASSERT(f.names.size() == f.values.size(), "a featurizer gives a value for every name");
    Row row;
    for (std::size_t i = 0; i < f.names.size(); ++i) {
      auto [it, added] = columns_.try_emplace(f.names[i], columns_.size());
      row.emplace_back(it->second, f.values[i]);
    }
    return row;
  }

  // Rows as a dense matrix of the columns known now (NaN where a row lacks one).
  std::vector<float> dense(const std::vector<const Row*>& rows) const {
    std::size_t width = columns_.size();
    std::vector<float> m(rows.size() * width, std::numeric_limits<float>::quiet_NaN());
    for (std::size_t r = 0; r < rows.size(); ++r)
      for (const auto& [col, v] : *rows[r]) m[r * width + col] = v;
    return m;
  }

  // Trains on every outcome so far once there are enough rows and they grew enough since
  // the last training: the relevance of a validated candidate is -log(time), a failure's
  // below every validated one (the model learns to avoid failing regions too); one query
  // group, the run, so that candidates of different alternatives are ranked against each other.
  void maybe_train() {
    std::size_t n = measured_.size();
    if (n < o_.warmup) return;
    if (model_.trained() && (double(n) < double(trained_rows_) * (1.0 + o_.retrain_growth) || n < trained_rows_ + o_.batch))
      return;
    std::vector<double> times;
    for (const auto& m : measured_)
      if (m.outcome.ok && std::isfinite(m.outcome.objectives.time_ms) && m.outcome.objectives.time_ms > 0)
        times.push_back(m.outcome.objectives.time_ms);
    if (times.size() < 2 || *std::min_element(times.begin(), times.end()) == *std::max_element(times.begin(), times.end()))
      return;  // nothing to rank yet
    auto t0 = Clock::now();
    double worst = -std::log(*std::max_element(times.begin(), times.end()));
    cost::RankingData data;
    std::vector<const Row*> rows;
    for (const auto& m : measured_) {
      rows.push_back(&m.row);
      bool timed = m.outcome.ok && std::isfinite(m.outcome.objectives.time_ms) && m.outcome.objectives.time_ms > 0;
      data.relevance.push_back(static_cast<float>(timed ? -std::log(m.outcome.objectives.time_ms) : worst - 1.0));
    }
    data.columns = columns_.size();
    data.features = dense(rows);
    data.groups = {static_cast<unsigned>(n)};
    model_.train(data);
    trained_rows_ = n;
    ++stats_.trainings;
    stats_.rows = n;
    stats_.train_seconds += seconds_since(t0);
  }

  // The parents of a round's proposals: the fastest validated points, and each alternative's fastest.
  std::vector<const Candidate*> parents() const {
    std::vector<const Measured*> ok;
    for (const auto& m : measured_)
      if (m.outcome.ok) ok.push_back(&m);
    std::stable_sort(ok.begin(), ok.end(), [](const Measured* a, const Measured* b) {
      return a->outcome.objectives.time_ms < b->outcome.objectives.time_ms;
    });
    std::vector<const Candidate*> out;
    std::set<std::size_t> alternatives;
    for (std::size_t i = 0; i < ok.size(); ++i)
      if (i < kParents || alternatives.insert(ok[i]->candidate.alternative).second) {
        alternatives.insert(ok[i]->candidate.alternative);
        out.push_back(&ok[i]->candidate);
      }
    return out;
  }

  // Many fresh candidates, cheaply: children of the parents (crossover within an
  // alternative, mutation), then random draws for a quarter of the pool.
  std::vector<Candidate> propose() {
    auto t0 = Clock::now();
    std::vector<Candidate> pool;
    std::set<Candidate> in_pool;
    auto add = [&](const Candidate& c) {
      if (fresh(c) && in_pool.insert(c).second) pool.push_back(c);
    };
    std::vector<const Candidate*> ps = parents();
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
    for (std::size_t attempt = 0; pool.size() < draws && attempt < o_.pool; ++attempt)
      if (auto c = random_candidate()) add(*c);
    stats_.propose_seconds += seconds_since(t0);
    return pool;
  }

  // The pool's candidates in the model's order, best first.
  std::vector<Candidate> ranked(std::vector<Candidate> pool) {
    auto t0 = Clock::now();
    std::vector<Row> rows;
    for (const auto& c : pool) rows.push_back(row_of(c));
    std::vector<const Row*> refs;
    for (const auto& r : rows) refs.push_back(&r);
    std::vector<float> scores = model_.score(dense(refs), columns_.size());
    std::vector<std::size_t> order(pool.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
    std::vector<Candidate> out;
    for (std::size_t i : order) out.push_back(std::move(pool[i]));
    stats_.scored += out.size();
    stats_.score_seconds += seconds_since(t0);
    return out;
  }

  // The first round: the seeds, a point of every alternative (in random order), then random
  // draws up to `warmup`, as the genetic search's generation 0.
  void first_round() {
    for (const Candidate& c : o_.seeds)
      if (c.alternative < space_.alternatives.size() && space_.alternatives[c.alternative]->valid(c.point) && fresh(c))
        queue(c);
    std::vector<std::size_t> order;
    for (std::size_t a = 0; a < space_.alternatives.size(); ++a)
      if (space_.alternatives[a]->count() > 0) order.push_back(a);
    std::shuffle(order.begin(), order.end(), rng_);
    for (std::size_t a : order)
      for (int attempt = 0; attempt < 50; ++attempt) {
        Candidate c{a, space_.alternatives[a]->sample(rng_)};
        if (fresh(c)) {
          queue(c);
          break;
        }
      }
    while (pending_.size() < o_.warmup)
      if (auto c = random_candidate()) queue(*c);
      else break;
  }

  void breed() {
    if (!started_) {
      started_ = true;
      first_round();
      return;
    }
    maybe_train();
    auto random_share = static_cast<std::size_t>(std::lround(o_.epsilon * double(o_.batch)));
    std::size_t ranked_share = model_.trained() ? o_.batch - std::min(random_share, o_.batch) : 0;
    if (ranked_share > 0) {
      std::vector<Candidate> best = ranked(propose());
      for (std::size_t i = 0; i < best.size() && pending_.size() < ranked_share; ++i) queue(best[i]);
    }
    while (pending_.size() < o_.batch)
      if (auto c = random_candidate()) queue(*c);
      else break;
  }

  CandidateSpace& space_;
  ModelSearchOptions o_;
  std::mt19937_64 rng_;
  cost::RankModel model_;
  bool started_ = false;
  std::deque<Candidate> pending_;
  std::set<Candidate> asked_;
  std::vector<Measured> measured_;  // in the order told
  std::map<std::string, std::size_t> columns_;  // feature name -> column
  std::size_t trained_rows_ = 0;
  std::size_t untold_ = 0;
  bool clock_started_ = false;
  Clock::time_point started_at_;
  ModelSearchStats stats_;
};

}  // namespace

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

std::unique_ptr<Search> make_model_search(CandidateSpace& space, const ModelSearchOptions& options, std::uint64_t seed) {
  return std::make_unique<ModelSearch>(space, options, seed);
}

std::string format_model_stats(const ModelSearchStats& s) {
  double model = s.train_seconds + s.score_seconds;
  std::string share = s.loop_seconds > 0 ? fmt::format("{:.1f}%", 100.0 * model / s.loop_seconds) : "-";
  return fmt::format("model: {} training(s) (up to {} rows), training {:.3f} s, scoring {:.3f} s of {} candidates: {} "
                     "of the loop's {:.2f} s; proposing {:.3f} s",
                     s.trainings, s.rows, s.train_seconds, s.score_seconds, s.scored, share, s.loop_seconds,
                     s.propose_seconds);
}

}  // namespace liftc::explore
