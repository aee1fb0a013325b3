// Random and genetic search (ask/tell), selection, crossover, mutation and a point's neighbours.

#include "liftc/explore/search/searches.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "liftc/explore/search/rounds.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::explore {

std::size_t draw_alternative(const CandidateSpace& space, std::mt19937_64& rng,
                             const std::map<std::string, double>& strategy_weights) {
  LIFTC_ASSERT(!space.alternatives.empty(), "a candidate space has at least one alternative");
  // Alternatives with valid points, per strategy. They are drawn equally, not in
  // proportion to their counts: a count mostly measures how many tuning parameters an
  // alternative has (a kernel's own work-group sizes multiply it by hundreds), not what it
  // is worth, and drawing by counts left alternatives of a strategy undrawn.
  std::map<std::string, double> strategy_alternatives;
  for (const auto& a : space.alternatives) strategy_alternatives[a->strategy()] += a->count() > 0 ? 1.0 : 0.0;
  std::size_t strategies = 0;
  for (const auto& [name, n] : strategy_alternatives) strategies += n > 0;
  std::vector<double> weights;
  for (const auto& a : space.alternatives) {
    double n = strategy_alternatives[a->strategy()];
    double share = a->local_memory_emulated() ? kEmulatedLocalShare : 1.0;
    auto weight = strategy_weights.find(a->strategy());
    if (weight != strategy_weights.end()) share *= weight->second;
    weights.push_back(a->count() > 0 ? share / n / double(strategies) : 0.0);
  }
  if (std::accumulate(weights.begin(), weights.end(), 0.0) <= 0) return 0;
  std::discrete_distribution<std::size_t> pick(weights.begin(), weights.end());
  return pick(rng);
}

std::string emulated_local_note(const CandidateSpace& space, const std::string& target) {
  std::vector<std::string> emulated;
  bool others = false;  // a strategy drawn at a whole share
  for (const auto& a : space.alternatives) {
    others |= !a->local_memory_emulated();
    if (a->local_memory_emulated() && std::find(emulated.begin(), emulated.end(), a->strategy()) == emulated.end())
      emulated.push_back(a->strategy());
  }
  if (emulated.empty()) return "";
  std::string what = fmt::format("{} {} local memory, which {} emulates in global memory", fmt::join(emulated, ", "),
                                 emulated.size() == 1 ? "uses" : "use", target);
  if (others) return fmt::format("{}: drawn {} times as often as the other strategies", what, kEmulatedLocalShare);
  return fmt::format("{}: no faster there than reading global memory{}", what,
                     emulated.size() == 1 ? "" : " (every strategy offered does: drawn equally)");
}

double fitness(const Outcome& o) { return o.ok ? o.objectives.time_ms : std::numeric_limits<double>::infinity(); }

std::size_t select_tournament(const std::vector<double>& fitness, std::size_t k, std::mt19937_64& rng) {
  LIFTC_ASSERT(!fitness.empty(), "selection needs a population");
  std::uniform_int_distribution<std::size_t> any(0, fitness.size() - 1);
  std::size_t best = any(rng);
  for (std::size_t i = 1; i < std::max<std::size_t>(k, 1); ++i) {
    std::size_t c = any(rng);
    if (fitness[c] < fitness[best]) best = c;
  }
  return best;
}

std::size_t select_roulette(const std::vector<double>& fitness, std::mt19937_64& rng) {
  LIFTC_ASSERT(!fitness.empty(), "selection needs a population");
  std::vector<double> weights;
  for (double f : fitness) weights.push_back(std::isfinite(f) && f > 0 ? 1.0 / f : (std::isfinite(f) ? 1e300 : 0.0));
  if (std::accumulate(weights.begin(), weights.end(), 0.0) <= 0)
    return std::uniform_int_distribution<std::size_t>(0, fitness.size() - 1)(rng);
  std::discrete_distribution<std::size_t> pick(weights.begin(), weights.end());
  return pick(rng);
}

std::optional<Point> crossover(Alternative& alt, const Point& a, const Point& b, std::size_t cut) {
  LIFTC_ASSERT(a.size() == b.size(), "crossover of points of one alternative");
  Point child(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(std::min(cut, a.size())));
  child.insert(child.end(), b.begin() + static_cast<std::ptrdiff_t>(child.size()), b.end());
  if (alt.valid(child)) return child;
  return alt.repair(child);
}

std::optional<Point> mutate(Alternative& alt, const Point& p, double rate, std::mt19937_64& rng) {
  Point child = p;
  const auto& params = alt.parameters();
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (coin(rng) >= rate) continue;
    const auto& domain = params[i].domain;
    if (domain.size() < 2) continue;
    auto at = std::lower_bound(domain.begin(), domain.end(), child[i]);
    auto here = static_cast<std::ptrdiff_t>(at - domain.begin());
    auto last = static_cast<std::ptrdiff_t>(domain.size()) - 1;
    std::ptrdiff_t next;
    if (coin(rng) < 0.25) {
      next = std::uniform_int_distribution<std::ptrdiff_t>(0, last)(rng);
    } else {
      std::ptrdiff_t step = coin(rng) < 0.5 ? -1 : 1;
      next = std::clamp<std::ptrdiff_t>(here + step, 0, last);
      if (next == here) next = std::clamp<std::ptrdiff_t>(here - step, 0, last);
    }
    child[i] = domain[static_cast<std::size_t>(next)];
  }
  if (alt.valid(child)) return child;
  return alt.repair(child);
}

std::vector<Point> neighbours(Alternative& alt, const Point& p) {
  const auto& params = alt.parameters();
  std::vector<Point> out;
  std::set<Point> seen{p};
  for (std::size_t i = 0; i < params.size() && i < p.size(); ++i) {
    const auto& domain = params[i].domain;
    auto at = std::lower_bound(domain.begin(), domain.end(), p[i]);
    std::vector<std::int64_t> steps;
    if (at != domain.begin()) steps.push_back(*std::prev(at));
    if (at != domain.end() && *at == p[i]) ++at;  // p's own value is no step
    if (at != domain.end()) steps.push_back(*at);
    for (std::int64_t v : steps) {
      Point q = p;
      q[i] = v;
      std::optional<Point> valid = alt.valid(q) ? std::optional<Point>(q) : alt.repair(q);
      if (valid && seen.insert(*valid).second) out.push_back(std::move(*valid));
    }
  }
  return out;
}

namespace {

class RandomSearch : public Search {
 public:
  RandomSearch(CandidateSpace& space, std::uint64_t seed, int max_attempts)
      : space_(space), rng_(seed), max_attempts_(max_attempts) {}

  std::optional<Candidate> ask() override {
    for (int attempt = 0; attempt < max_attempts_; ++attempt) {
      Candidate c;
      c.alternative = draw_alternative(space_, rng_);
      if (space_.alternatives[c.alternative]->count() <= 0) continue;
      c.point = space_.alternatives[c.alternative]->sample(rng_);
      if (seen_.insert(c).second) return c;
    }
    return std::nullopt;
  }
  void tell(const Candidate&, const Outcome&) override {}

 private:
  CandidateSpace& space_;
  std::mt19937_64 rng_;
  int max_attempts_;
  std::set<Candidate> seen_;
};

class GeneticSearch : public RoundSearch {
  // The fastest points of each alternative kept as parents of its niche (more than one, so
  // that crossover within the niche mixes two points).
  static constexpr std::size_t kNicheSize = 3;

 public:
  GeneticSearch(CandidateSpace& space, const GeneticOptions& o, std::uint64_t seed)
      : RoundSearch(space, seed), o_(o) {
    o_.population = std::max<std::size_t>(o_.population, 2);
    o_.elites = std::min(o_.elites, o_.population - 1);
  }

 private:
  void told(const Candidate& c, const Outcome& o) override {
    known_[c] = o;
    children_.push_back(c);
  }

  // Fitness used for selection: time alone, or NSGA-II's crowded comparison as one number
  // (rank first, then larger crowding distance).
  std::vector<double> selection_fitness(const std::vector<Candidate>& pop) {
    std::vector<double> f(pop.size());
    if (!o_.pareto) {
      for (std::size_t i = 0; i < pop.size(); ++i) f[i] = fitness(known_.at(pop[i]));
      return f;
    }
    std::vector<Objectives> objs = objectives(pop);
    auto fronts = nondominated_sort(objs);
    for (std::size_t r = 0; r < fronts.size(); ++r) {
      std::vector<double> crowd = crowding_distance(objs, fronts[r]);
      for (std::size_t i = 0; i < fronts[r].size(); ++i)
        f[fronts[r][i]] = double(r) + 1.0 + (std::isinf(crowd[i]) ? 0.0 : 0.5 / (1.0 + crowd[i]));
    }
    return f;
  }

  std::vector<Objectives> objectives(const std::vector<Candidate>& pop) const {
    std::vector<Objectives> objs;
    for (const auto& c : pop) {
      Objectives ob = known_.at(c).objectives;
      if (!known_.at(c).ok) ob.time_ms = std::numeric_limits<double>::infinity();
      objs.push_back(ob);
    }
    return objs;
  }

  // The next population from the current one and the children just evaluated.
  void select_survivors() {
    if (population_.empty()) {
      population_ = children_;
      children_.clear();
      return;
    }
    if (o_.pareto) {
      std::vector<Candidate> all = population_;
      all.insert(all.end(), children_.begin(), children_.end());
      std::vector<Objectives> objs = objectives(all);
      std::vector<Candidate> next;
      for (const auto& front : nondominated_sort(objs)) {
        if (next.size() + front.size() <= o_.population) {
          for (std::size_t i : front) next.push_back(all[i]);
          continue;
        }
        std::vector<double> crowd = crowding_distance(objs, front);
        std::vector<std::size_t> order(front.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return crowd[a] > crowd[b]; });
        for (std::size_t i = 0; next.size() < o_.population && i < order.size(); ++i) next.push_back(all[front[order[i]]]);
        break;
      }
      population_ = std::move(next);
    } else {
      std::vector<Candidate> old = population_;
      std::stable_sort(old.begin(), old.end(),
                       [&](const Candidate& a, const Candidate& b) { return fitness(known_.at(a)) < fitness(known_.at(b)); });
      population_.assign(old.begin(), old.begin() + static_cast<std::ptrdiff_t>(std::min(o_.elites, old.size())));
      population_.insert(population_.end(), children_.begin(), children_.end());
    }
    children_.clear();
    if (o_.niche_share <= 0) return;
    // Every alternative's kNicheSize fastest points so far stay parents (its niche).
    std::map<std::size_t, std::vector<Candidate>> niches;
    for (const auto& [c, o] : known_)
      if (o.ok) niches[c.alternative].push_back(c);
    for (auto& [alt, members] : niches) {
      auto keep = std::min(kNicheSize, members.size());
      std::partial_sort(members.begin(), members.begin() + static_cast<std::ptrdiff_t>(keep), members.end(),
                        [&](const Candidate& a, const Candidate& b) { return fitness(known_.at(a)) < fitness(known_.at(b)); });
      for (std::size_t i = 0; i < keep; ++i)
        if (std::find(population_.begin(), population_.end(), members[i]) == population_.end())
          population_.push_back(members[i]);
    }
  }

  // Parents of a niche child: members of one alternative's niche (in turn over the
  // alternatives with a valid point in the population), by the usual selection among them.
  std::optional<std::pair<std::size_t, std::size_t>> niche_parents(const std::vector<double>& f) {
    std::map<std::size_t, std::vector<std::size_t>> members;  // alternative -> population indices
    for (std::size_t i = 0; i < population_.size(); ++i)
      if (known_.at(population_[i]).ok) members[population_[i].alternative].push_back(i);
    if (members.empty()) return std::nullopt;
    auto it = members.begin();
    std::advance(it, static_cast<std::ptrdiff_t>(next_niche_++ % members.size()));
    const std::vector<std::size_t>& m = it->second;
    std::vector<double> fm;
    for (std::size_t i : m) fm.push_back(f[i]);
    return std::make_pair(m[select(fm)], m[select(fm)]);
  }

  std::size_t select(const std::vector<double>& f) {
    return o_.selection == Selection::Tournament ? select_tournament(f, o_.tournament, rng_) : select_roulette(f, rng_);
  }

  // One child of two selected parents (of one niche when `niche`); nullopt when no fresh
  // valid child was found.
  std::optional<Candidate> child(const std::vector<double>& f, bool niche) {
    std::uniform_real_distribution<double> coin(0.0, 1.0);
    std::pair<std::size_t, std::size_t> parents;
    if (auto np = niche ? niche_parents(f) : std::nullopt)
      parents = *np;
    else
      parents = {select(f), select(f)};
    const Candidate& a = population_[parents.first];
    const Candidate& b = population_[parents.second];
    Alternative& alt = *space_.alternatives[a.alternative];
    Candidate c{a.alternative, a.point};
    std::size_t n = a.point.size();
    if (b.alternative == a.alternative && n >= 2 && coin(rng_) < o_.crossover_rate) {
      std::size_t cut = std::uniform_int_distribution<std::size_t>(1, n - 1)(rng_);
      if (auto p = crossover(alt, a.point, b.point, cut)) c.point = *p;
    }
    double rate = o_.mutation_rate;
    for (int attempt = 0; attempt < 8; ++attempt) {
      if (auto p = mutate(alt, c.point, rate, rng_)) {
        Candidate m{c.alternative, *p};
        if (fresh(m)) return m;
      }
      rate = std::min(1.0, rate * 2 + 0.1);  // a duplicate: mutate harder
    }
    return random_candidate();  // the neighbourhood is used up: a fresh point keeps the search going
  }

  // One fresh point of an alternative that has none validated yet (its points so far failed,
  // or were never drawn), in turn over them; nullopt when every alternative has one.
  std::optional<Candidate> retry_unvalidated() {
    std::set<std::size_t> validated;
    for (const auto& [c, o] : known_)
      if (o.ok) validated.insert(c.alternative);
    std::vector<std::size_t> waiting;
    for (std::size_t a = 0; a < space_.alternatives.size(); ++a)
      if (space_.alternatives[a]->count() > 0 && !validated.count(a)) waiting.push_back(a);
    if (waiting.empty()) return std::nullopt;
    return sample_of(waiting[next_retry_++ % waiting.size()]);
  }

  void next_round() override {
    if (!started_) {
      started_ = true;
      first_round(o_.seeds, o_.population);
      return;
    }
    select_survivors();
    if (population_.empty()) return;
    // An alternative with no validated point has no niche: one fresh point of one of them
    // per generation, so that one whose first points failed is tried again.
    if (auto c = retry_unvalidated()) queue(*c);
    std::vector<double> f = selection_fitness(population_);
    std::size_t count = o_.pareto ? o_.population : o_.population - std::min(o_.elites, population_.size());
    count = std::max<std::size_t>(count, 1);
    auto niches = static_cast<std::size_t>(std::lround(o_.niche_share * double(count)));
    for (std::size_t i = 0; i < count; ++i)
      if (auto c = child(f, i < niches)) queue(*c);
  }

  GeneticOptions o_;
  bool started_ = false;
  std::vector<Candidate> population_;  // the current parents (evaluated)
  std::vector<Candidate> children_;    // evaluated since the last generation
  std::map<Candidate, Outcome> known_;
  std::size_t next_niche_ = 0;  // the alternative whose niche breeds the next niche child
  std::size_t next_retry_ = 0;  // the alternative without a validated point tried next
};

}  // namespace

std::unique_ptr<Search> make_random_search(CandidateSpace& space, std::uint64_t seed, int max_attempts) {
  return std::make_unique<RandomSearch>(space, seed, max_attempts);
}

std::unique_ptr<Search> make_genetic_search(CandidateSpace& space, const GeneticOptions& options, std::uint64_t seed) {
  return std::make_unique<GeneticSearch>(space, options, seed);
}

}  // namespace liftc::explore
