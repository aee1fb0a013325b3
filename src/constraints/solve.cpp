// Z3 for the space: every constraint as an integer formula (exact, unbounded integers;
// arith's floor div/mod; a division by zero makes its constraint false), feasibility with an
// unsat core naming the constraints that conflict, checks of points and partial points,
// and model enumeration for counting small spaces.

#include <algorithm>
#include <chrono>
#include <climits>

#include <z3++.h>

#include <fmt/format.h>

#include "internal.hpp"
#include "liftc/constraints/solve.hpp"

namespace liftc::constraints {

namespace {

struct Encoder {
  z3::context& ctx;
  const Space& space;
  std::vector<z3::expr> vars;

  Encoder(z3::context& c, const Space& s) : ctx(c), space(s) {
    for (const auto& p : s.params) vars.push_back(ctx.int_const(p.name.c_str()));
  }

  // arith's floor division (src/arith/README.md) in Z3, whose div is Euclidean: the two
  // agree for a positive divisor, and a divisor of unknown sign takes the other branch
  // (floor(a/b) = floor(-a/-b)).
  static z3::expr floor_div(const z3::expr& a, const z3::expr& b, bool positive) {
    return positive ? a / b : z3::ite(b > 0, a / b, (-a) / (-b));
  }

  // `guards` collects `divisor != 0` for every division.
  z3::expr term(const arith::Expr& e, std::vector<z3::expr>& guards) {
    switch (e.kind()) {
      case arith::Kind::Cst: return ctx.int_val(static_cast<int64_t>(e.value()));
      case arith::Kind::Var: return vars[static_cast<std::size_t>(space.index(e.name()))];
      default: break;
    }
    std::vector<z3::expr> ops;
    for (const auto& o : e.operands()) ops.push_back(term(o, guards));
    switch (e.kind()) {
      case arith::Kind::Sum: {
        z3::expr s = ops[0];
        for (std::size_t i = 1; i < ops.size(); ++i) s = s + ops[i];
        return s;
      }
      case arith::Kind::Prod: {
        z3::expr s = ops[0];
        for (std::size_t i = 1; i < ops.size(); ++i) s = s * ops[i];
        return s;
      }
      case arith::Kind::Div:
        guards.push_back(ops[1] != 0);
        return floor_div(ops[0], ops[1], arith::provably_positive(e.operands()[1]));
      case arith::Kind::Mod: {
        guards.push_back(ops[1] != 0);
        bool positive = arith::provably_positive(e.operands()[1]);
        return positive ? z3::mod(ops[0], ops[1]) : ops[0] - ops[1] * floor_div(ops[0], ops[1], false);
      }
      case arith::Kind::Min: return z3::ite(ops[0] <= ops[1], ops[0], ops[1]);
      case arith::Kind::Max: return z3::ite(ops[0] >= ops[1], ops[0], ops[1]);
      default: break;
    }
    LIFTC_ASSERT(false, "every arith kind is encoded");
    return ops[0];
  }

  z3::expr constraint(const Constraint& c) {
    std::vector<z3::expr> guards;
    z3::expr a = term(c.lhs, guards);
    z3::expr r = ctx.bool_val(true);
    switch (c.kind) {
      case Constraint::Kind::Member: {
        bool contiguous = !c.values.empty() && c.values.back() - c.values.front() + 1 == static_cast<std::int64_t>(c.values.size());
        if (contiguous) {
          r = a >= ctx.int_val(static_cast<int64_t>(c.values.front())) && a <= ctx.int_val(static_cast<int64_t>(c.values.back()));
        } else {
          r = ctx.bool_val(false);
          for (auto v : c.values) r = r || a == ctx.int_val(static_cast<int64_t>(v));
        }
        break;
      }
      case Constraint::Kind::Range:
        r = a >= ctx.int_val(static_cast<int64_t>(c.lo)) && a <= ctx.int_val(static_cast<int64_t>(c.hi));
        break;
      case Constraint::Kind::LessEqual: r = a <= term(c.rhs, guards); break;
      case Constraint::Kind::Divides: {
        z3::expr b = term(c.rhs, guards);
        r = a >= 1 && z3::mod(b, a) == 0;
        break;
      }
    }
    for (const auto& g : guards) r = r && g;
    return r;
  }
};

}  // namespace

namespace {

// Sets a solver's limits for its next checks: the resource limit (rlimit, Z3's count of
// its own steps: what decides, the same on a busy machine as on a quiet one), and a
// wall-clock net far above what that limit normally takes, for Z3's nonlinear integer
// reasoning, which can count few steps a second (2.5 million steps took 74 s on a
// remainder of remainders).
void limit(z3::solver& s, std::uint64_t effort, unsigned net_ms) {
  z3::params params(s.ctx());
  params.set("rlimit", static_cast<unsigned>(std::clamp<std::uint64_t>(effort, 1, UINT_MAX)));
  params.set("timeout", net_ms);
  s.set(params);
}

// Why Z3 answered unknown, for a message: which of the two limits it reached (Z3 says
// "canceled" for both; the net is the one when the check took as long).
std::string gave_up_reason(std::uint64_t effort, unsigned net_ms, std::chrono::steady_clock::duration took) {
  if (took >= std::chrono::milliseconds(net_ms)) return fmt::format("its time net of {} s", net_ms / 1000);
  return fmt::format("its resource limit of {} steps", effort);
}

}  // namespace

Feasibility check_feasibility(const Space& space, std::uint64_t effort) {
  z3::context ctx;
  z3::solver s(ctx);
  // Not Z3's core.minimize: its minimisation runs outside the resource limit. The core is
  // minimised below, each check under the limits.
  limit(s, effort, kZ3FeasibilityNetMs);
  Encoder enc(ctx, space);
  std::vector<z3::expr> labels;
  for (std::size_t i = 0; i < space.constraints.size(); ++i) {
    z3::expr label = ctx.bool_const(fmt::format("c{}", i).c_str());
    labels.push_back(label);
    s.add(z3::implies(label, enc.constraint(space.constraints[i])));
  }
  auto check = [&](const std::vector<std::size_t>& which) {
    z3::expr_vector assumptions(ctx);
    for (auto i : which) assumptions.push_back(labels[i]);
    return s.check(assumptions);
  };
  auto core = [&] {
    std::vector<std::size_t> out;
    z3::expr_vector c = s.unsat_core();
    for (unsigned i = 0; i < c.size(); ++i) out.push_back(std::stoul(c[i].decl().name().str().substr(1)));
    std::sort(out.begin(), out.end());
    return out;
  };
  std::vector<std::size_t> all(labels.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  Feasibility f;
  switch (check(all)) {
    case z3::sat: return f;
    case z3::unknown: f.decided = false; return f;
    case z3::unsat: break;
  }
  f.feasible = false;
  f.conflict = core();
  // Deletion: a constraint whose absence leaves the rest unsat goes (with whatever else
  // that check's core leaves out); one whose absence Z3 cannot decide stays. A constraint
  // found necessary stays necessary in every smaller unsat subset.
  std::vector<std::size_t> necessary;
  for (;;) {
    auto next = std::find_if(f.conflict.begin(), f.conflict.end(), [&](std::size_t i) {
      return std::find(necessary.begin(), necessary.end(), i) == necessary.end();
    });
    if (next == f.conflict.end()) break;
    std::size_t candidate = *next;
    std::vector<std::size_t> rest;
    for (auto i : f.conflict)
      if (i != candidate) rest.push_back(i);
    // Each a smaller question, under smaller limits: keeping a constraint is always safe.
    limit(s, effort / 10, kZ3QuestionNetMs / 4);
    if (check(rest) == z3::unsat) {
      f.conflict = core();
    } else {
      necessary.push_back(candidate);
    }
  }
  return f;
}

bool z3_accepts(const Space& space, const Assignment& p) {
  z3::context ctx;
  z3::solver s(ctx);
  Encoder enc(ctx, space);
  for (const auto& c : space.constraints) s.add(enc.constraint(c));
  for (std::size_t i = 0; i < p.size(); ++i) s.add(enc.vars[i] == ctx.int_val(static_cast<int64_t>(p[i])));
  return s.check() == z3::sat;
}

std::uint64_t z3_count(const Space& space, std::uint64_t limit) {
  z3::context ctx;
  z3::solver s(ctx);
  Encoder enc(ctx, space);
  for (const auto& c : space.constraints) s.add(enc.constraint(c));
  // The pruned domains are implied by the one-variable constraints; stating them helps Z3.
  for (std::size_t i = 0; i < space.params.size(); ++i) {
    Constraint d;
    d.kind = Constraint::Kind::Member;
    d.lhs = arith::var(space.params[i].name);
    d.values = space.params[i].domain;
    s.add(enc.constraint(d));
  }
  std::uint64_t n = 0;
  while (n < limit && s.check() == z3::sat) {
    ++n;
    z3::model m = s.get_model();
    z3::expr differs = ctx.bool_val(false);
    for (const auto& v : enc.vars) differs = differs || v != m.eval(v, true);
    s.add(differs);
  }
  return n;
}

namespace detail {

struct Z3Prefix::Impl {
  z3::context ctx;
  z3::solver solver{ctx};
  std::vector<z3::expr> vars;
  std::string gave_up;  // the limit the last unknown reached
};

Z3Prefix::Z3Prefix(const Space& space) : impl_(std::make_unique<Impl>()) {
  Encoder enc(impl_->ctx, space);
  for (const auto& c : space.constraints) impl_->solver.add(enc.constraint(c));
  impl_->vars = enc.vars;
}

Z3Prefix::~Z3Prefix() = default;

Verdict Z3Prefix::extendable(const std::vector<std::pair<int, std::int64_t>>& fixed, std::uint64_t effort, Assignment* model) {
  impl_->solver.push();
  for (const auto& [i, v] : fixed)
    impl_->solver.add(impl_->vars[static_cast<std::size_t>(i)] == impl_->ctx.int_val(static_cast<int64_t>(v)));
  limit(impl_->solver, effort, kZ3QuestionNetMs);
  auto start = std::chrono::steady_clock::now();
  z3::check_result r = impl_->solver.check();
  if (r == z3::unknown)
    impl_->gave_up = gave_up_reason(effort, kZ3QuestionNetMs, std::chrono::steady_clock::now() - start);
  if (r == z3::sat && model) {
    z3::model m = impl_->solver.get_model();
    model->assign(impl_->vars.size(), 0);
    for (std::size_t i = 0; i < impl_->vars.size() && !model->empty(); ++i) {
      int64_t value = 0;
      if (m.eval(impl_->vars[i], true).is_numeral_i64(value)) (*model)[i] = value;
      else model->clear();  // beyond int64: not a point liftc can use
    }
  }
  impl_->solver.pop();
  if (r == z3::unknown) return Verdict::GaveUp;
  return r == z3::sat ? Verdict::Yes : Verdict::No;
}

const std::string& Z3Prefix::why_gave_up() const { return impl_->gave_up; }

}  // namespace detail

}  // namespace liftc::constraints
