// The strategy evaluator: combinators, traversals with the type environment of each
// position, budgets and the trace.

#include <fmt/format.h>

#include "liftc/ir/printer.hpp"
#include "liftc/rewrite/engine.hpp"

namespace liftc::rewrite {

namespace {

long count_nodes(const ir::Expr& e) {
  long n = 1;
  for (const auto& a : e->args) n += count_nodes(a);
  return n;
}

}  // namespace

/// The expression a strategy is applied to, its scope's types and its position.
struct Engine::Focus {
  ir::Expr expr;
  const typecheck::TypeEnv* env;
  Position path;

  // The focus on child `i`, with the names the node binds there added to the scope.
  Focus child(std::size_t i, typecheck::TypeEnv& storage) const {
    Focus f{expr->args[i], env, path};
    f.path.push_back(static_cast<int>(i));
    if (expr.kind() == ir::ExprKind::Lambda) {
      storage = *env;
      for (std::size_t k = 0; k < expr->params.size(); ++k)
        if (k < expr->param_types.size()) storage[expr->params[k]] = expr->param_types[k];
      f.env = &storage;
    } else if (expr.kind() == ir::ExprKind::Let && i == 1) {
      storage = *env;
      storage[expr->name] = ir::let_value(expr).type();
      f.env = &storage;
    }
    return f;
  }

  // The focus's node with child `i` replaced.
  ir::Expr with_child(std::size_t i, const ir::Expr& c) const {
    std::vector<ir::Expr> args = expr->args;
    args[i] = c;
    return ir::with_args(expr, std::move(args));
  }
};

const char* to_string(StopReason r) {
  switch (r) {
    case StopReason::FixedPoint: return "fixed point";
    case StopReason::StepLimit: return "step limit";
    case StopReason::NodeLimit: return "node limit";
    case StopReason::TimeLimit: return "time limit";
  }
  return "?";
}

std::string to_string(const Position& p) {
  if (p.empty()) return "root";
  return fmt::format("{}", fmt::join(p, "."));
}

Engine::Engine(const RuleSet& rules, RewriteOptions options)
    : rules_(rules), options_(std::move(options)), start_(std::chrono::steady_clock::now()) {}

bool Engine::budget_left() {
  if (stop_ != StopReason::FixedPoint) return false;
  if (steps_ >= options_.budget.max_steps) stop_ = StopReason::StepLimit;
  else if (nodes_ > options_.budget.max_nodes) stop_ = StopReason::NodeLimit;
  else if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() > options_.budget.max_seconds)
    stop_ = StopReason::TimeLimit;
  return stop_ == StopReason::FixedPoint;
}

std::vector<ir::Expr> Engine::run(const Strategy& s, const ir::Expr& e, const typecheck::TypeEnv& env,
                                  const Position& at) {
  nodes_ = count_nodes(e);
  return eval(s, Focus{e, &env, at});
}

std::vector<ir::Expr> Engine::apply_named_rule(const Strategy& s, const Focus& f) {
  const std::string& name = s.name;
  if (!budget_left()) return {};
  const Rule* rule = rules_.rule(name);
  LIFTC_ASSERT(rule != nullptr, "strategies name loaded rules (checked when loaded)");
  RejectLog reject;
  if (options_.trace)
    reject = [&](const std::string& why) {
      options_.trace(fmt::format("[{}] {} matched at {} but {}", label_, name, to_string(f.path), why));
    };
  std::vector<Application> apps = apply_rule(*rule, f.expr, *f.env, names_, reject, s.fixed, sizes_);
  std::vector<ir::Expr> out;
  for (auto& a : apps) {
    if (out.size() >= options_.budget.max_alternatives) break;
    long grown = count_nodes(a.result) - count_nodes(f.expr);
    if (nodes_ + grown > options_.budget.max_nodes) {
      stop_ = StopReason::NodeLimit;
      break;
    }
    nodes_ += grown;
    ++steps_;
    for (const auto& p : a.params)
      if (std::none_of(params_.begin(), params_.end(), [&](const TuningParam& q) { return q.name == p.name; }))
        params_.push_back(p);
    if (options_.trace) {
      std::string fresh;
      for (const auto& p : a.params) fresh += (fresh.empty() ? ", new " : ", ") + to_string(p);
      options_.trace(fmt::format("[{}] {} at {}{}: {}", label_, name, to_string(f.path), fresh, ir::to_string(a.result)));
    }
    out.push_back(std::move(a.result));
  }
  return out;
}

std::vector<ir::Expr> Engine::eval(const Strategy& s, const Focus& f) {
  const std::size_t cap = options_.budget.max_alternatives;
  switch (s.kind) {
    case StrategyKind::Rule: return apply_named_rule(s, f);
    case StrategyKind::Named: {
      const NamedStrategy* n = rules_.strategy(s.name);
      LIFTC_ASSERT(n != nullptr, "strategies name loaded strategies (checked when loaded)");
      return eval(n->body, f);
    }
    case StrategyKind::Id: return {f.expr};
    case StrategyKind::Fail: return {};
    case StrategyKind::Seq: {
      std::vector<ir::Expr> out;
      for (const auto& r : eval(s.args[0], f))
        for (auto& r2 : eval(s.args[1], Focus{r, f.env, f.path}))
          if (out.size() < cap) out.push_back(std::move(r2));
      return out;
    }
    case StrategyKind::LeftChoice: {
      auto r = eval(s.args[0], f);
      return r.empty() ? eval(s.args[1], f) : r;
    }
    case StrategyKind::AllChoice: {
      auto r = eval(s.args[0], f);
      for (auto& r2 : eval(s.args[1], f))
        if (r.size() < cap) r.push_back(std::move(r2));
      return r;
    }
    case StrategyKind::Try: {
      auto r = eval(s.args[0], f);
      return r.empty() ? std::vector<ir::Expr>{f.expr} : r;
    }
    case StrategyKind::Repeat:
    case StrategyKind::Normalize: {
      Strategy step = s.args[0];
      if (s.kind == StrategyKind::Normalize) {
        step = Strategy{};
        step.kind = StrategyKind::TopDown;
        step.args = {s.args[0]};
      }
      ir::Expr cur = f.expr;
      while (budget_left()) {
        auto r = eval(step, Focus{cur, f.env, f.path});
        if (r.empty() || ir::alpha_equal(r[0], cur)) break;
        cur = r[0];
      }
      return {cur};
    }
    case StrategyKind::TopDown: return first_position(s.args[0], f, true);
    case StrategyKind::BottomUp: return first_position(s.args[0], f, false);
    case StrategyKind::Everywhere: return {everywhere(s.args[0], f)};
    case StrategyKind::Anywhere: return all_positions(s.args[0], f);
    case StrategyKind::At: return at_path(s, f, 0);
  }
  return {};
}

std::vector<ir::Expr> Engine::first_position(const Strategy& s, const Focus& f, bool preorder) {
  if (preorder) {
    auto r = eval(s, f);
    if (!r.empty()) return r;
  }
  for (std::size_t i = 0; i < f.expr->args.size(); ++i) {
    typecheck::TypeEnv storage;
    auto r = first_position(s, f.child(i, storage), preorder);
    if (!r.empty()) {
      for (auto& e : r) e = f.with_child(i, e);
      return r;
    }
  }
  return preorder ? std::vector<ir::Expr>{} : eval(s, f);
}

std::vector<ir::Expr> Engine::all_positions(const Strategy& s, const Focus& f) {
  const std::size_t cap = options_.budget.max_alternatives;
  std::vector<ir::Expr> out = eval(s, f);
  for (std::size_t i = 0; i < f.expr->args.size() && out.size() < cap; ++i) {
    typecheck::TypeEnv storage;
    for (auto& r : all_positions(s, f.child(i, storage)))
      if (out.size() < cap) out.push_back(f.with_child(i, r));
  }
  return out;
}

ir::Expr Engine::everywhere(const Strategy& s, const Focus& f) {
  ir::Expr e = f.expr;
  for (std::size_t i = 0; i < e->args.size(); ++i) {
    Focus cur{e, f.env, f.path};
    typecheck::TypeEnv storage;
    e = cur.with_child(i, everywhere(s, cur.child(i, storage)));
  }
  auto r = eval(s, Focus{e, f.env, f.path});
  return r.empty() ? e : r[0];
}

std::vector<ir::Expr> Engine::at_path(const Strategy& s, const Focus& f, std::size_t depth) {
  if (depth == s.path.size()) return eval(s.args[0], f);
  auto i = static_cast<std::size_t>(s.path[depth]);
  if (i >= f.expr->args.size()) return {};
  typecheck::TypeEnv storage;
  auto r = at_path(s, f.child(i, storage), depth + 1);
  for (auto& e : r) e = f.with_child(i, e);
  return r;
}

std::vector<Position> Engine::positions(const Rule& rule, const ir::Expr& e, const typecheck::TypeEnv& env) {
  std::vector<Position> out;
  std::function<void(const Focus&)> walk = [&](const Focus& f) {
    if (!apply_rule(rule, f.expr, *f.env, names_, {}, {}, sizes_).empty()) out.push_back(f.path);
    for (std::size_t i = 0; i < f.expr->args.size(); ++i) {
      typecheck::TypeEnv storage;
      walk(f.child(i, storage));
    }
  };
  walk(Focus{e, &env, {}});
  return out;
}

}  // namespace liftc::rewrite
