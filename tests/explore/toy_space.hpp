#pragma once
// A small parameter space for search tests: parameters with explicit domains and a
// validity predicate; sampling and repair by brute-force enumeration (uniform, nearest in
// L1 distance over domain values), so the search can be tested without the constraints stage.

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>

#include "liftc/explore/search/pareto.hpp"
#include "liftc/explore/search/space.hpp"

namespace liftc::explore::test {

class ToySpace : public Alternative {
 public:
  ToySpace(std::string label, std::vector<Parameter> params, std::function<bool(const Point&)> ok)
      : label_(std::move(label)), params_(std::move(params)), ok_(std::move(ok)) {
    Point p(params_.size());
    enumerate(p, 0);
  }
  std::string label() const override { return label_; }
  const std::vector<Parameter>& parameters() const override { return params_; }
  double count() const override { return double(valid_.size()); }
  Point sample(std::mt19937_64& rng) override {
    return valid_[std::uniform_int_distribution<std::size_t>(0, valid_.size() - 1)(rng)];
  }
  bool valid(const Point& p) const override {
    if (p.size() != params_.size()) return false;
    for (std::size_t i = 0; i < p.size(); ++i)
      if (!std::binary_search(params_[i].domain.begin(), params_[i].domain.end(), p[i])) return false;
    return ok_(p);
  }
  std::optional<Point> repair(const Point& p) override {
    ++repairs;
    std::optional<Point> best;
    std::int64_t best_d = std::numeric_limits<std::int64_t>::max();
    for (const auto& v : valid_) {
      std::int64_t d = distance(p, v);
      if (d < best_d) best_d = d, best = v;
    }
    return best;
  }
  static std::int64_t distance(const Point& a, const Point& b) {
    std::int64_t d = 0;
    for (std::size_t i = 0; i < a.size(); ++i) d += std::llabs(a[i] - b[i]);
    return d;
  }
  const std::vector<Point>& all_valid() const { return valid_; }
  int repairs = 0;

 private:
  void enumerate(Point& p, std::size_t i) {
    if (i == params_.size()) {
      if (ok_(p)) valid_.push_back(p);
      return;
    }
    for (auto v : params_[i].domain) {
      p[i] = v;
      enumerate(p, i + 1);
    }
  }
  std::string label_;
  std::vector<Parameter> params_;
  std::function<bool(const Point&)> ok_;
  std::vector<Point> valid_;
};

/// Two alternatives: (a divides 64, b divides a, a*b <= 256) and (c in 1..20, c % 3 != 0).
inline CandidateSpace toy_candidates() {
  CandidateSpace cs;
  cs.alternatives.push_back(std::make_unique<ToySpace>(
      "tile #1", std::vector<Parameter>{{"a", {1, 2, 4, 8, 16, 32, 64}}, {"b", {1, 2, 4, 8, 16, 32, 64}}},
      [](const Point& p) { return p[0] % p[1] == 0 && p[0] * p[1] <= 256; }));
  std::vector<std::int64_t> c;
  for (int i = 1; i <= 20; ++i) c.push_back(i);
  cs.alternatives.push_back(std::make_unique<ToySpace>("plain #1", std::vector<Parameter>{{"c", c}},
                                                       [](const Point& p) { return p[0] % 3 != 0; }));
  return cs;
}

/// A made-up cost for the toy candidates: time and memory pulling in opposite directions.
inline Objectives toy_cost(const Candidate& c) {
  Objectives o;
  if (c.alternative == 0) {
    double a = double(c.point[0]), b = double(c.point[1]);
    o.time_ms = 100.0 / (a * b) + std::abs(std::log2(a) - 4.0);
    o.memory = a * b * 10;
  } else {
    o.time_ms = 10 + double(c.point[0]);
    o.memory = 1000 - 10 * double(c.point[0]);
  }
  return o;
}

}  // namespace liftc::explore::test
