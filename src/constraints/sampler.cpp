// Sampler: exact counting by dynamic programming over the dependency order, uniform
// sampling weighted by the number of valid completions, nearest-point repair; Knuth's
// estimate and a Z3-guided descent where the tables would be too large.

#include <algorithm>
#include <cmath>
#include <functional>
#include <unordered_map>

#include <fmt/format.h>

#include "internal.hpp"
#include "liftc/constraints/solve.hpp"

namespace liftc::constraints {

std::string to_string(Count c) {
  if (c == 0) return "0";
  std::string s;
  while (c > 0) {
    s += static_cast<char>('0' + static_cast<int>(c % 10));
    c /= 10;
  }
  return {s.rbegin(), s.rend()};
}

namespace {

using Key = std::vector<std::int64_t>;

struct KeyHash {
  std::size_t operator()(const Key& k) const {
    std::size_t h = 1469598103934665603ull;
    for (auto v : k) h = (h ^ static_cast<std::size_t>(v)) * 1099511628211ull;
    return h;
  }
};

constexpr Count kMaxCount = ~Count(0);

// The values of an ascending list in order of their distance from `to`, the lower first of
// two as far: a walk outwards from where `to` would go.
class NearestFirst {
 public:
  NearestFirst(const std::vector<std::int64_t>& values, std::int64_t to)
      : v_(values),
        to_(to),
        hi_(static_cast<std::size_t>(std::lower_bound(values.begin(), values.end(), to) - values.begin())),
        lo_(hi_) {}
  bool next(std::int64_t& out) {
    bool below = lo_ > 0, above = hi_ < v_.size();
    if (!below && !above) return false;
    if (below && (!above || to_ - v_[lo_ - 1] <= v_[hi_] - to_))
      out = v_[--lo_];
    else
      out = v_[hi_++];
    return true;
  }

 private:
  const std::vector<std::int64_t>& v_;
  std::int64_t to_;
  std::size_t hi_, lo_;
};

Count add_sat(Count a, Count b) { return a > kMaxCount - b ? kMaxCount : a + b; }

struct BudgetSpent {};

// A uniform integer in [0, n) (n >= 1).
Count uniform_below(Count n, std::mt19937_64& rng) {
  if (n <= Count(UINT64_MAX)) return std::uniform_int_distribution<std::uint64_t>(0, static_cast<std::uint64_t>(n - 1))(rng);
  Count limit = kMaxCount - kMaxCount % n;
  for (;;) {
    Count r = (Count(rng()) << 64) | rng();
    if (r < limit) return r % n;
  }
}

// Levels with more values than this are sampled, not enumerated, by the estimate and the
// descent (a domain may hold up to kMaxDomainValues values).
constexpr std::size_t kWide = 4096;
// Keys of one level whose allowed values repair keeps (Sampler::Impl::allowed).
constexpr std::size_t kAllowedKept = 1 << 16;
// Z3 questions about values drawn at random for one parameter before Z3 picks the value.
constexpr int kTries = 8;
// Level checks Knuth's estimate may spend over all its probes (at least kMinProbes probes).
constexpr std::uint64_t kEstimateChecks = 20'000'000;
constexpr int kMinProbes = 16, kMaxProbes = 400;

}  // namespace

struct Sampler::Impl {
  const Space& space;
  SamplerBudget budget;
  std::size_t k = 0;
  std::vector<detail::CompiledConstraint> all;
  std::vector<std::vector<std::size_t>> at_level;  // multi-variable constraints by their last parameter
  std::vector<std::vector<int>> frontier;          // level i: parameters < i still mentioned later
  bool constant_ok = true;                         // the constraints without variables hold
  bool exact = true;
  bool counting = false;                           // in the constructor: the budgets apply
  std::size_t states = 0;
  mutable std::uint64_t checks = 0;                // constraint evaluations so far
  std::vector<std::unordered_map<Key, Count, KeyHash>> memo;
  // Repair's: level i's values allowed by the constraints that end at it, by the key of i
  // (every earlier value they read is in it), kept from one repair to the next.
  std::vector<std::unordered_map<Key, std::vector<std::int64_t>, KeyHash>> allowed_memo;
  Count total = 0;
  double estimate = 0;
  int probes = 0;
  std::string spent;                               // which budget the exact count exceeded
  std::unique_ptr<detail::Z3Prefix> z3;

  Impl(const Space& s, SamplerBudget b) : space(s), budget(b), k(s.params.size()) {
    at_level.resize(k);
    frontier.resize(k + 1);
    std::vector<int> last_use(k, -1);
    for (std::size_t i = 0; i < s.constraints.size(); ++i) {
      all.push_back(detail::compile(s.constraints[i], s));
      const auto& c = all.back();
      if (c.vars.empty()) {
        if (!detail::check(c, nullptr)) constant_ok = false;
        continue;
      }
      if (c.vars.size() < 2) continue;  // pruned into the domain
      if (s.constraints[i].implied) continue;  // e.g. memory far below the limit
      int last = c.vars.back();
      at_level[static_cast<std::size_t>(last)].push_back(i);
      for (int v : c.vars) last_use[static_cast<std::size_t>(v)] = std::max(last_use[static_cast<std::size_t>(v)], last);
    }
    for (std::size_t i = 0; i <= k; ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (last_use[j] >= static_cast<int>(i)) frontier[i].push_back(static_cast<int>(j));
    memo.resize(k + 1);
    allowed_memo.resize(k);
    if (!constant_ok) return;
    counting = true;
    try {
      std::vector<std::int64_t> values(k, 0);
      total = count_from(0, values);
    } catch (const BudgetSpent&) {
      exact = false;
      memo.clear();
      knuth_estimate();
    }
    counting = false;
  }

  bool level_ok(std::size_t i, const std::vector<std::int64_t>& values) const {
    for (auto c : at_level[i]) {
      ++checks;
      if (!detail::check(all[c], values.data())) return false;
    }
    return true;
  }

  // The values of parameter i, ascending, that the constraints ending at i allow after the
  // earlier `values` (whose key at i is `key`).
  const std::vector<std::int64_t>& allowed(std::size_t i, std::vector<std::int64_t>& values, const Key& key) {
    auto& at = allowed_memo[i];
    if (auto it = at.find(key); it != at.end()) return it->second;
    if (at.size() >= kAllowedKept) at.clear();  // a bound on memory, not on correctness
    std::int64_t kept = values[i];
    std::vector<std::int64_t> ok;
    for (auto v : space.params[i].domain) {
      values[i] = v;
      if (level_ok(i, values)) ok.push_back(v);
    }
    values[i] = kept;
    return at.emplace(key, std::move(ok)).first->second;
  }

  Key key_of(std::size_t level, const std::vector<std::int64_t>& values) const {
    Key key;
    key.reserve(frontier[level].size());
    for (int j : frontier[level]) key.push_back(values[static_cast<std::size_t>(j)]);
    return key;
  }

  // Valid completions of parameters i.. given `values` of the earlier ones.
  Count count_from(std::size_t i, std::vector<std::int64_t>& values) {
    if (i == k) return 1;
    Key key = key_of(i, values);
    auto it = memo[i].find(key);
    if (it != memo[i].end()) return it->second;
    Count n = 0;
    for (auto v : space.params[i].domain) {
      values[i] = v;
      if (level_ok(i, values)) n = add_sat(n, count_from(i + 1, values));
    }
    if (counting && ++states > budget.max_states) {
      spent = fmt::format("the counting tables would exceed {} entries", budget.max_states);
      throw BudgetSpent{};
    }
    if (counting && checks > budget.max_checks) {
      spent = fmt::format("counting exactly would take more than {} constraint evaluations", budget.max_checks);
      throw BudgetSpent{};
    }
    memo[i].emplace(std::move(key), n);
    return n;
  }

  // Values of parameter i that pass the constraints it closes, given the earlier values.
  // Without `near`: in random order, all of them, or for a wide domain those among kWide
  // random draws. With `near`: the values nearest to it first, at most kWide looked at.
  // `looked` receives how many values were looked at (the domain size when all were).
  std::vector<std::int64_t> candidates(std::size_t i, std::vector<std::int64_t>& values, std::mt19937_64& rng,
                                       std::optional<std::int64_t> near, std::size_t& looked) const {
    const auto& domain = space.params[i].domain;
    std::vector<std::int64_t> ok;
    auto test = [&](std::int64_t v) {
      values[i] = v;
      if (level_ok(i, values)) ok.push_back(v);
    };
    looked = std::min(domain.size(), kWide);
    if (near) {
      // Outward from where `near` would sit in the ascending domain.
      auto right = static_cast<std::size_t>(std::lower_bound(domain.begin(), domain.end(), *near) - domain.begin());
      std::size_t left = right;
      for (std::size_t n = 0; n < looked; ++n) {
        bool take_left = left > 0 && (right == domain.size() || *near - domain[left - 1] <= domain[right] - *near);
        test(take_left ? domain[--left] : domain[right++]);
      }
    } else if (domain.size() <= kWide) {
      for (auto v : domain) test(v);
      std::shuffle(ok.begin(), ok.end(), rng);
    } else {
      std::uniform_int_distribution<std::size_t> pick(0, domain.size() - 1);
      for (std::size_t n = 0; n < kWide; ++n) test(domain[pick(rng)]);
    }
    return ok;
  }

  // A valid point by a depth-first search over the candidates (random order, or nearest to
  // `near` first), backtracking from dead ends, spending at most its budget of constraint
  // evaluations (search_checks); nullopt past them (or when the candidates looked at
  // lead nowhere).
  std::optional<Assignment> search(std::mt19937_64& rng, const Assignment* near) const {
    if (k == 0) return Assignment{};
    const std::uint64_t start = checks;
    std::vector<std::int64_t> values(k, 0);
    std::vector<std::vector<std::int64_t>> options(k);
    std::vector<std::size_t> next(k, 0);
    std::size_t looked = 0;
    auto enter = [&](std::size_t i) {
      options[i] = candidates(i, values, rng, near ? std::optional<std::int64_t>((*near)[i]) : std::nullopt, looked);
      next[i] = 0;
    };
    std::size_t i = 0;
    enter(0);
    while (checks - start < budget.search_checks) {
      if (next[i] == options[i].size()) {  // every option of level i leads nowhere
        if (i == 0) return std::nullopt;
        --i;
        continue;
      }
      values[i] = options[i][next[i]++];
      if (i + 1 == k) return values;
      enter(++i);
    }
    return std::nullopt;
  }

  // Knuth's estimator: random root-to-leaf probes, each weighted by the product of the
  // numbers of choices met on the way. On a wide level the number of choices is itself
  // estimated from random draws (unbiased, and the value taken among the draws that pass
  // is uniform over the choices, so the product stays an unbiased estimate).
  void knuth_estimate() {
    std::mt19937_64 rng(12345);
    std::uint64_t per_probe = 1;
    for (const auto& p : space.params) per_probe += std::min(p.domain.size(), kWide);
    probes = static_cast<int>(std::clamp<std::uint64_t>(kEstimateChecks / per_probe, kMinProbes, kMaxProbes));
    double sum = 0;
    for (int p = 0; p < probes; ++p) {
      std::vector<std::int64_t> values(k, 0);
      double weight = 1;
      for (std::size_t i = 0; i < k && weight > 0; ++i) {
        std::size_t looked = 0;
        std::vector<std::int64_t> ok = candidates(i, values, rng, std::nullopt, looked);
        double choices = static_cast<double>(ok.size());
        if (looked < space.params[i].domain.size())
          choices *= static_cast<double>(space.params[i].domain.size()) / static_cast<double>(looked);
        weight *= choices;
        if (!ok.empty()) values[i] = ok.front();  // candidates come in random order
      }
      sum += weight;
    }
    estimate = sum / probes;
  }

  // Parameter i's value in a descent that Z3 keeps feasible: a candidate Z3 says extends
  // the values fixed so far (at most kTries asked, in the given order), else the value of
  // a point Z3 finds itself. nullopt when Z3 proves that no value extends them; a
  // liftc::Error when it gave up (its resource limit, then four times it, reached).
  std::optional<std::int64_t> choose(std::size_t i, const std::vector<std::int64_t>& candidates,
                                     std::vector<std::pair<int, std::int64_t>>& fixed, std::vector<std::int64_t>& values) {
    if (!z3) z3 = std::make_unique<detail::Z3Prefix>(space);
    int asked = 0;
    for (auto v : candidates) {
      if (asked++ == kTries) break;
      fixed.emplace_back(static_cast<int>(i), v);
      if (z3->extendable(fixed, budget.z3_effort) == detail::Verdict::Yes) {
        values[i] = v;
        return v;
      }
      fixed.pop_back();  // No, or Z3 gave up on this value: another may do
    }
    // Unknown is not unsat: the deciding question gets more effort before liftc says so.
    Assignment model;
    detail::Verdict verdict = detail::Verdict::GaveUp;
    for (std::uint64_t effort : {budget.z3_effort, budget.z3_effort * 4}) {
      verdict = z3->extendable(fixed, effort, &model);
      if (verdict != detail::Verdict::GaveUp) break;
    }
    if (verdict == detail::Verdict::No) return std::nullopt;
    if (verdict == detail::Verdict::GaveUp)
      throw Error(fmt::format("Z3 gave up choosing a value for {} (it reached {}): the space may well have valid "
                              "points; this is not a proof that it has none",
                              space.params[i].name, z3->why_gave_up()));
    if (model.empty())
      throw Error(fmt::format("Z3's point for choosing {} has values beyond 64 bits", space.params[i].name));
    values[i] = model[i];
    // Z3's exact integers and liftc's checked int64 agree unless an evaluation overflows.
    if (!level_ok(i, values))
      throw Error(fmt::format("Z3's value {} for {} overflows liftc's 64-bit evaluation of the constraints",
                              model[i], space.params[i].name));
    fixed.emplace_back(static_cast<int>(i), model[i]);
    return model[i];
  }
};

Sampler::Sampler(const Space& space, SamplerBudget budget) : impl_(std::make_unique<Impl>(space, budget)) {}
Sampler::~Sampler() = default;

bool Sampler::uniform() const { return impl_->exact; }

Count Sampler::count() const {
  if (!impl_->constant_ok) return 0;
  return impl_->exact ? impl_->total : static_cast<Count>(std::llround(impl_->estimate));
}

std::string Sampler::count_text() const {
  if (impl_->exact || !impl_->constant_ok) return fmt::format("{} (exact)", to_string(count()));
  return fmt::format("about {:.3g} (estimate: Knuth's estimator, {} probes; {})", impl_->estimate, impl_->probes,
                     impl_->spent);
}

bool Sampler::valid(const Assignment& p) const {
  if (p.size() != impl_->k) return false;
  for (const auto& c : impl_->all)
    if (!detail::check(c, p.data())) return false;
  return true;
}

Assignment Sampler::sample(std::mt19937_64& rng) {
  Impl& m = *impl_;
  if (count() == 0 && (m.exact || !m.constant_ok)) throw Error("the space has no valid point");
  std::vector<std::int64_t> values(m.k, 0);
  if (m.exact) {
    for (std::size_t i = 0; i < m.k; ++i) {
      Count total = m.count_from(i, values);
      Count r = uniform_below(total, rng);
      for (auto v : m.space.params[i].domain) {
        values[i] = v;
        if (!m.level_ok(i, values)) continue;
        Count w = m.count_from(i + 1, values);
        if (r < w) break;
        r -= w;
      }
    }
    return values;
  }
  // Not countable: a random depth-first search, else a descent that Z3 keeps feasible
  // (valid points, not uniform).
  if (auto p = m.search(rng, nullptr)) return *p;
  std::vector<std::pair<int, std::int64_t>> fixed;
  for (std::size_t i = 0; i < m.k; ++i) {
    std::size_t looked = 0;
    std::vector<std::int64_t> candidates = m.candidates(i, values, rng, std::nullopt, looked);
    if (!m.choose(i, candidates, fixed, values))
      throw Error(fmt::format("the space has no valid point (Z3 proved that no value of {} extends the others)",
                              m.space.params[i].name));
  }
  return values;
}

std::optional<Assignment> Sampler::repair(const Assignment& p) {
  Impl& m = *impl_;
  if (!m.constant_ok) return std::nullopt;
  if (m.exact) {
    if (m.total == 0) return std::nullopt;
    // Least L1 distance of the completions, by the same levels and keys, each level's values
    // nearest-first among those its constraints allow (allowed(): kept from one repair to the
    // next, so that a repair checks few constraints once the levels it visits are known; on
    // VGG-16's spaces it checked about 40,000 a repair, and repairs were most of the model
    // search's proposing: docs/results.md, thirty-fifth session).
    constexpr std::int64_t kNone = INT64_MAX;
    std::vector<std::unordered_map<Key, std::int64_t, KeyHash>> best(m.k + 1);
    std::vector<std::int64_t> values(m.k, 0);
    std::function<std::int64_t(std::size_t)> cost = [&](std::size_t i) -> std::int64_t {
      if (i == m.k) return 0;
      Key key = m.key_of(i, values);
      auto it = best[i].find(key);
      if (it != best[i].end()) return it->second;
      std::int64_t b = kNone;
      NearestFirst order(m.allowed(i, values, key), p[i]);
      for (std::int64_t v; order.next(v);) {
        std::int64_t d = std::llabs(v - p[i]);
        if (d >= b) break;  // once a value is as far as the best completion, stop
        values[i] = v;
        std::int64_t rest = cost(i + 1);
        if (rest == kNone) continue;
        if (rest <= kNone - d && rest + d < b) b = rest + d;
      }
      best[i].emplace(std::move(key), b);
      return b;
    };
    std::int64_t target = cost(0);
    if (target == kNone) return std::nullopt;
    std::int64_t spent = 0;
    for (std::size_t i = 0; i < m.k; ++i) {
      NearestFirst order(m.allowed(i, values, m.key_of(i, values)), p[i]);
      for (std::int64_t v; order.next(v);) {
        values[i] = v;
        std::int64_t rest = cost(i + 1);
        if (rest != kNone && spent + std::llabs(v - p[i]) + rest == target) {
          spent += std::llabs(v - p[i]);
          break;
        }
      }
    }
    return values;
  }
  // Not countable: each value as close to p's as a depth-first search (nearest first)
  // finds, else as Z3 allows, in order.
  std::mt19937_64 rng(1);  // unused by a search nearest-first
  if (auto r = m.search(rng, &p)) return r;
  std::vector<std::pair<int, std::int64_t>> fixed;
  Assignment out(m.k, 0);
  for (std::size_t i = 0; i < m.k; ++i) {
    std::size_t looked = 0;
    std::vector<std::int64_t> candidates = m.candidates(i, out, rng, p[i], looked);
    if (!m.choose(i, candidates, fixed, out)) return std::nullopt;
  }
  return out;
}

}  // namespace liftc::constraints
