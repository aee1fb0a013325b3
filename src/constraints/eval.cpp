// Exact evaluation of constraints at a point: arith expressions compiled to postfix code
// over parameter indices, int64 with overflow checks, arith's floor division (as solve.cpp
// gives Z3 and arith folds).

#include <algorithm>

#include <fmt/format.h>

#include "internal.hpp"
#include "liftc/arith/division.hpp"

namespace liftc::constraints::detail {

namespace {

void emit(const arith::Expr& e, const Space& space, Compiled& out) {
  using Op = Compiled::Op;
  switch (e.kind()) {
    case arith::Kind::Cst: out.code.push_back({Op::Cst, 0, e.value()}); return;
    case arith::Kind::Var: {
      int i = space.index(e.name());
      LIFTC_ASSERT(i >= 0, fmt::format("constraint variable {} is a parameter of the space", e.name()));
      out.code.push_back({Op::Var, i, 0});
      return;
    }
    default: break;
  }
  for (const auto& o : e.operands()) emit(o, space, out);
  int n = static_cast<int>(e.operands().size());
  switch (e.kind()) {
    case arith::Kind::Sum: out.code.push_back({Op::Add, n, 0}); break;
    case arith::Kind::Prod: out.code.push_back({Op::Mul, n, 0}); break;
    case arith::Kind::Div: out.code.push_back({Op::Div, 2, 0}); break;
    case arith::Kind::Mod: out.code.push_back({Op::Mod, 2, 0}); break;
    case arith::Kind::Min: out.code.push_back({Op::Min, 2, 0}); break;
    case arith::Kind::Max: out.code.push_back({Op::Max, 2, 0}); break;
    default: LIFTC_ASSERT(false, "every arith kind is handled");
  }
}

}  // namespace

Compiled compile(const arith::Expr& e, const Space& space) {
  Compiled c;
  emit(e, space, c);
  return c;
}

std::optional<std::int64_t> run(const Compiled& c, const std::int64_t* values) {
  std::int64_t stack[64];
  std::vector<std::int64_t> big;  // deep expressions only
  std::int64_t* s = c.code.size() <= 64 ? stack : (big.resize(c.code.size()), big.data());
  int top = 0;
  using Op = Compiled::Op;
  for (const auto& in : c.code) {
    switch (in.op) {
      case Op::Cst: s[top++] = in.v; break;
      case Op::Var: s[top++] = values[in.n]; break;
      case Op::Add: {
        std::int64_t acc = 0;
        for (int k = top - in.n; k < top; ++k)
          if (__builtin_add_overflow(acc, s[k], &acc)) return std::nullopt;
        top -= in.n;
        s[top++] = acc;
        break;
      }
      case Op::Mul: {
        std::int64_t acc = 1;
        for (int k = top - in.n; k < top; ++k)
          if (__builtin_mul_overflow(acc, s[k], &acc)) return std::nullopt;
        top -= in.n;
        s[top++] = acc;
        break;
      }
      default: {
        std::int64_t b = s[--top], a = s[--top];
        if ((in.op == Op::Div || in.op == Op::Mod) && b == 0) return std::nullopt;
        if (in.op == Op::Div && a == INT64_MIN && b == -1) return std::nullopt;
        std::int64_t r = in.op == Op::Div   ? arith::floor_div(a, b)
                         : in.op == Op::Mod ? arith::floor_mod(a, b)
                         : in.op == Op::Min ? std::min(a, b)
                                            : std::max(a, b);
        s[top++] = r;
      }
    }
  }
  return s[0];
}

CompiledConstraint compile(const Constraint& c, const Space& space) {
  CompiledConstraint out{c.kind, compile(c.lhs, space), compile(c.rhs, space), c.values, {}, c.lo, c.hi};
  std::sort(out.values.begin(), out.values.end());
  for (const auto& v : c.vars) out.vars.push_back(space.index(v));
  std::sort(out.vars.begin(), out.vars.end());
  return out;
}

bool check(const CompiledConstraint& c, const std::int64_t* values) {
  auto a = run(c.lhs, values);
  if (!a) return false;
  if (c.kind == Constraint::Kind::Member) return std::binary_search(c.values.begin(), c.values.end(), *a);
  if (c.kind == Constraint::Kind::Range) return c.lo <= *a && *a <= c.hi;
  auto b = run(c.rhs, values);
  if (!b) return false;
  if (c.kind == Constraint::Kind::LessEqual) return *a <= *b;
  return *a >= 1 && arith::floor_mod(*b, *a) == 0;
}

}  // namespace liftc::constraints::detail

namespace liftc::constraints::detail {

namespace {

bool mul(std::int64_t a, std::int64_t b, std::int64_t& r) { return !__builtin_mul_overflow(a, b, &r); }

}  // namespace

std::optional<Interval> interval_of(const Compiled& code, const std::vector<std::optional<Interval>>& box) {
  std::vector<Interval> s;
  using Op = Compiled::Op;
  for (const auto& in : code.code) {
    switch (in.op) {
      case Op::Cst: s.push_back({in.v, in.v}); break;
      case Op::Var: {
        const auto& b = box[static_cast<std::size_t>(in.n)];
        if (!b) return std::nullopt;
        s.push_back(*b);
        break;
      }
      case Op::Add: {
        Interval acc{0, 0};
        for (std::size_t k = s.size() - static_cast<std::size_t>(in.n); k < s.size(); ++k)
          if (__builtin_add_overflow(acc.lo, s[k].lo, &acc.lo) || __builtin_add_overflow(acc.hi, s[k].hi, &acc.hi))
            return std::nullopt;
        s.resize(s.size() - static_cast<std::size_t>(in.n));
        s.push_back(acc);
        break;
      }
      case Op::Mul: {
        Interval acc{1, 1};
        for (std::size_t k = s.size() - static_cast<std::size_t>(in.n); k < s.size(); ++k) {
          std::int64_t p[4];
          if (!mul(acc.lo, s[k].lo, p[0]) || !mul(acc.lo, s[k].hi, p[1]) || !mul(acc.hi, s[k].lo, p[2]) ||
              !mul(acc.hi, s[k].hi, p[3]))
            return std::nullopt;
          acc = {*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
        }
        s.resize(s.size() - static_cast<std::size_t>(in.n));
        s.push_back(acc);
        break;
      }
      default: {
        Interval b = s.back();
        s.pop_back();
        Interval a = s.back();
        s.pop_back();
        if (in.op == Op::Min) s.push_back({std::min(a.lo, b.lo), std::min(a.hi, b.hi)});
        else if (in.op == Op::Max) s.push_back({std::max(a.lo, b.lo), std::max(a.hi, b.hi)});
        else if (a.lo < 0 || b.lo < 1) return std::nullopt;  // only non-negative by positive
        else if (in.op == Op::Div) s.push_back({a.lo / b.hi, a.hi / b.lo});
        else s.push_back({0, std::min(a.hi, b.hi - 1)});
      }
    }
  }
  return s.back();
}

namespace {

// Branch and bound over the box of the domains: each parameter's values are an index
// range [first, last) of its (ascending) domain, so splitting the box copies nothing.
struct Box {
  const std::vector<std::vector<std::int64_t>>& domains;
  std::vector<std::pair<std::size_t, std::size_t>> ranges;

  std::vector<std::optional<Interval>> intervals() const {
    std::vector<std::optional<Interval>> out(ranges.size());
    for (std::size_t j = 0; j < ranges.size(); ++j)
      if (ranges[j].first < ranges[j].second)
        out[j] = Interval{domains[j][ranges[j].first], domains[j][ranges[j].second - 1]};
    return out;
  }
};

// Interval bounds over the box; where they cannot prove the constraint, the box is split
// along the constraint's parameter with the most values (with a budget of evaluations).
bool implied_in_box(const CompiledConstraint& c, Box& box, int& budget) {
  if (--budget < 0) return false;
  auto intervals = box.intervals();
  auto l = interval_of(c.lhs, intervals), r = interval_of(c.rhs, intervals);
  if (l && r && l->hi <= r->lo) return true;
  int widest = -1;
  auto width = [&](int v) { return box.ranges[static_cast<std::size_t>(v)].second - box.ranges[static_cast<std::size_t>(v)].first; };
  for (int v : c.vars)
    if (width(v) > 1 && (widest < 0 || width(v) > width(widest))) widest = v;
  if (widest < 0) return false;
  auto whole = box.ranges[static_cast<std::size_t>(widest)];
  std::size_t half = whole.first + (whole.second - whole.first) / 2;
  bool ok = true;
  for (int part = 0; part < 2 && ok; ++part) {
    box.ranges[static_cast<std::size_t>(widest)] = part == 0 ? std::make_pair(whole.first, half) : std::make_pair(half, whole.second);
    ok = implied_in_box(c, box, budget);
  }
  box.ranges[static_cast<std::size_t>(widest)] = whole;
  return ok;
}

}  // namespace

bool implied_by_domains(const CompiledConstraint& c, const std::vector<std::vector<std::int64_t>>& domains) {
  if (c.kind != Constraint::Kind::LessEqual) return false;
  Box box{domains, {}};
  for (const auto& d : domains) box.ranges.emplace_back(0, d.size());
  int budget = 4000;  // interval evaluations
  return implied_in_box(c, box, budget);
}

}  // namespace liftc::constraints::detail
