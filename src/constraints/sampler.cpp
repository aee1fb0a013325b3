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

}  // namespace

struct Sampler::Impl {
  const Space& space;
  std::size_t k = 0;
  std::vector<detail::CompiledConstraint> all;
  std::vector<std::vector<std::size_t>> at_level;  // multi-variable constraints by their last parameter
  std::vector<std::vector<int>> frontier;          // level i: parameters < i still mentioned later
  bool constant_ok = true;                         // the constraints without variables hold
  bool exact = true;
  std::size_t max_states, states = 0;
  std::vector<std::unordered_map<Key, Count, KeyHash>> memo;
  Count total = 0;
  double estimate = 0;
  int probes = 0;
  std::unique_ptr<detail::Z3Prefix> z3;

  Impl(const Space& s, std::size_t budget) : space(s), k(s.params.size()), max_states(budget) {
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
    if (!constant_ok) return;
    try {
      std::vector<std::int64_t> values(k, 0);
      total = count_from(0, values);
    } catch (const BudgetSpent&) {
      exact = false;
      memo.clear();
      knuth_estimate();
    }
  }

  bool level_ok(std::size_t i, const std::vector<std::int64_t>& values) const {
    for (auto c : at_level[i])
      if (!detail::check(all[c], values.data())) return false;
    return true;
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
    if (++states > max_states) throw BudgetSpent{};
    memo[i].emplace(std::move(key), n);
    return n;
  }

  void knuth_estimate() {
    std::mt19937_64 rng(12345);
    const int n = 400;
    double sum = 0;
    for (int p = 0; p < n; ++p) {
      std::vector<std::int64_t> values(k, 0);
      double weight = 1;
      for (std::size_t i = 0; i < k && weight > 0; ++i) {
        std::vector<std::int64_t> ok;
        for (auto v : space.params[i].domain) {
          values[i] = v;
          if (level_ok(i, values)) ok.push_back(v);
        }
        weight *= static_cast<double>(ok.size());
        if (!ok.empty()) values[i] = ok[std::uniform_int_distribution<std::size_t>(0, ok.size() - 1)(rng)];
      }
      sum += weight;
    }
    probes = n;
    estimate = sum / n;
  }
};

Sampler::Sampler(const Space& space, std::size_t max_states) : impl_(std::make_unique<Impl>(space, max_states)) {}
Sampler::~Sampler() = default;

bool Sampler::uniform() const { return impl_->exact; }

Count Sampler::count() const {
  if (!impl_->constant_ok) return 0;
  return impl_->exact ? impl_->total : static_cast<Count>(std::llround(impl_->estimate));
}

std::string Sampler::count_text() const {
  if (impl_->exact || !impl_->constant_ok) return fmt::format("{} (exact)", to_string(count()));
  return fmt::format("about {:.3g} (estimate: Knuth's estimator, {} probes; the counting tables would exceed {} entries)",
                     impl_->estimate, impl_->probes, impl_->max_states);
}

bool Sampler::valid(const Point& p) const {
  if (p.size() != impl_->k) return false;
  for (const auto& c : impl_->all)
    if (!detail::check(c, p.data())) return false;
  return true;
}

Point Sampler::sample(std::mt19937_64& rng) {
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
  // Not countable: a descent that Z3 keeps feasible (valid, not uniform).
  if (!m.z3) m.z3 = std::make_unique<detail::Z3Prefix>(m.space);
  std::vector<std::pair<int, std::int64_t>> fixed;
  for (std::size_t i = 0; i < m.k; ++i) {
    std::vector<std::int64_t> candidates;
    for (auto v : m.space.params[i].domain) {
      values[i] = v;
      if (m.level_ok(i, values)) candidates.push_back(v);
    }
    std::shuffle(candidates.begin(), candidates.end(), rng);
    bool chosen = false;
    for (auto v : candidates) {
      fixed.emplace_back(static_cast<int>(i), v);
      if (m.z3->extendable(fixed).value_or(false)) {
        values[i] = v;
        chosen = true;
        break;
      }
      fixed.pop_back();
    }
    if (!chosen) throw Error("the space has no valid point (Z3 found no value for " + m.space.params[i].name + ")");
  }
  return values;
}

std::optional<Point> Sampler::repair(const Point& p) {
  Impl& m = *impl_;
  if (!m.constant_ok) return std::nullopt;
  if (m.exact) {
    if (m.total == 0) return std::nullopt;
    // Least L1 distance of the completions, by the same levels and keys.
    constexpr std::int64_t kNone = INT64_MAX;
    std::vector<std::unordered_map<Key, std::int64_t, KeyHash>> best(m.k + 1);
    std::vector<std::int64_t> values(m.k, 0);
    // Each domain nearest-first: once a value is as far as the best completion, stop.
    std::vector<std::vector<std::int64_t>> nearest(m.k);
    for (std::size_t i = 0; i < m.k; ++i) {
      nearest[i] = m.space.params[i].domain;
      std::stable_sort(nearest[i].begin(), nearest[i].end(),
                       [&](std::int64_t a, std::int64_t b) { return std::llabs(a - p[i]) < std::llabs(b - p[i]); });
    }
    std::function<std::int64_t(std::size_t)> cost = [&](std::size_t i) -> std::int64_t {
      if (i == m.k) return 0;
      Key key = m.key_of(i, values);
      auto it = best[i].find(key);
      if (it != best[i].end()) return it->second;
      std::int64_t b = kNone;
      for (auto v : nearest[i]) {
        std::int64_t d = std::llabs(v - p[i]);
        if (d >= b) break;
        values[i] = v;
        if (!m.level_ok(i, values)) continue;
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
    for (std::size_t i = 0; i < m.k; ++i)
      for (auto v : nearest[i]) {
        values[i] = v;
        if (!m.level_ok(i, values)) continue;
        std::int64_t rest = cost(i + 1);
        if (rest != kNone && spent + std::llabs(v - p[i]) + rest == target) {
          spent += std::llabs(v - p[i]);
          break;
        }
      }
    return values;
  }
  // Not countable: keep each value as close to p's as Z3 allows, in order.
  if (!m.z3) m.z3 = std::make_unique<detail::Z3Prefix>(m.space);
  std::vector<std::pair<int, std::int64_t>> fixed;
  Point out(m.k, 0);
  for (std::size_t i = 0; i < m.k; ++i) {
    std::vector<std::int64_t> candidates = m.space.params[i].domain;
    std::stable_sort(candidates.begin(), candidates.end(),
                     [&](std::int64_t a, std::int64_t b) { return std::llabs(a - p[i]) < std::llabs(b - p[i]); });
    bool chosen = false;
    for (auto v : candidates) {
      out[i] = v;
      if (!m.level_ok(i, out)) continue;
      fixed.emplace_back(static_cast<int>(i), v);
      if (m.z3->extendable(fixed).value_or(false)) {
        chosen = true;
        break;
      }
      fixed.pop_back();
    }
    if (!chosen) return std::nullopt;
  }
  return out;
}

}  // namespace liftc::constraints
