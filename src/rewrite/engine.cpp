// The strategy evaluator: combinators, traversals with the type environment of each
// position, budgets and the trace.

#include <fmt/format.h>

#include "liftc/ir/printer.hpp"
#include "liftc/rewrite/engine.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/syntax/limits.hpp"

namespace liftc::rewrite {

// The defaults are what the .sr reader accepts, so that what rewrite prints reads back.
static_assert(Budget{}.max_nesting == syntax::kMaxNesting);
static_assert(Budget{}.max_depth == parse::kMaxIrDepth);
static_assert(Budget{}.max_nodes == parse::kMaxNodes);

namespace {

long count_nodes(const ir::Expr& e) {
  long n = 1;
  for (const auto& a : e->args) n += count_nodes(a);
  return n;
}

int ir_depth(const ir::Expr& e) {
  int d = 0;
  for (const auto& a : e->args) d = std::max(d, ir_depth(a));
  return d + 1;
}

}  // namespace

/// The expression a strategy is applied to, its scope's types, its position, and where
/// its text stands when the definition is printed.
struct Engine::Focus {
  ir::Expr expr;
  const typecheck::TypeEnv* env;
  Position path;
  ir::PrintContext print;

  // The same place holding another expression.
  Focus with(const ir::Expr& e) const { return Focus{e, env, path, print}; }

  // The focus on child `i`, with the names the node binds there added to the scope.
  Focus child(std::size_t i, typecheck::TypeEnv& storage) const {
    Focus f{expr->args[i], env, path, ir::child_context(expr, i, print)};
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
    case StopReason::NestingLimit: return "nesting limit (the printed program would nest deeper than the .sr reader accepts)";
    case StopReason::DepthLimit: return "depth limit (the IR would be deeper than the .sr reader accepts)";
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
  return eval(s, Focus{e, &env, at, {}});
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
    if (!within_shape_budget(a.result, f, name)) break;
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

// What a fallback did is recorded only by evaluations whose results are kept: one that
// fails (a `<+` branch not taken, a position `topdown` tried in vain) leaves the record as it
// was, and so does the test inside `where`.
std::vector<ir::Expr> Engine::eval(const Strategy& s, const Focus& f) {
  const bool took_fallback = took_fallback_, primary_applied = primary_applied_;
  std::vector<ir::Expr> out = eval_node(s, f);
  if (out.empty()) {
    took_fallback_ = took_fallback;
    primary_applied_ = primary_applied;
  }
  return out;
}

std::vector<ir::Expr> Engine::eval_node(const Strategy& s, const Focus& f) {
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
      // s1 ; s2 ; ... (one n-ary node, so a long sequence is neither deep nor copied).
      std::vector<ir::Expr> current = {f.expr};
      for (const auto& step : s.args) {
        failed_step_ = nullptr;
        std::vector<ir::Expr> next;
        for (const auto& r : current)
          for (auto& r2 : eval(step, f.with(r)))
            if (next.size() < cap) next.push_back(std::move(r2));
        current = std::move(next);
        if (current.empty()) {
          // The step that found nothing: this one, or, where it is a composite (a choice of
          // sequences), the step inside it that stopped the last of them, which says more.
          bool named = step.kind == StrategyKind::Rule || step.kind == StrategyKind::Named;
          if (named || !failed_step_) failed_step_ = &step;
          break;
        }
      }
      return current;
    }
    case StrategyKind::LeftChoice: {
      for (const auto& option : s.args)
        if (auto r = eval(option, f); !r.empty()) return r;
      return {};
    }
    case StrategyKind::AllChoice: {
      std::vector<ir::Expr> out;
      for (const auto& option : s.args)
        for (auto& r : eval(option, f))
          if (out.size() < cap) out.push_back(std::move(r));
      return out;
    }
    case StrategyKind::Try: {
      auto r = eval(s.args[0], f);
      return r.empty() ? std::vector<ir::Expr>{f.expr} : r;
    }
    case StrategyKind::Repeat: return repeat(s.args[0], false, f);
    case StrategyKind::Normalize: return repeat(s.args[0], true, f);
    case StrategyKind::TopDown: return first_position(s.args[0], f, true);
    case StrategyKind::BottomUp: return first_position(s.args[0], f, false);
    case StrategyKind::Everywhere: return {everywhere(s.args[0], f)};
    case StrategyKind::Anywhere: return all_positions(s.args[0], f);
    case StrategyKind::At: return at_path(s, f, 0);
    case StrategyKind::Where:
    case StrategyKind::Unless: {
      const bool took_fallback = took_fallback_, primary_applied = primary_applied_;
      bool applies = !eval(s.args[0], f).empty();
      took_fallback_ = took_fallback;
      primary_applied_ = primary_applied;
      if (applies != (s.kind == StrategyKind::Where)) return {};
      return {f.expr};
    }
    case StrategyKind::Body: return in_body(s.args[0], f);
    case StrategyKind::Fallback: {
      failed_step_ = nullptr;
      auto r = eval(s.args[0], f);
      if (!r.empty()) {
        primary_applied_ = true;
        return r;
      }
      const Strategy* why = failed_step_;
      took_fallback_ = true;
      auto out = eval(s.args[1], f);
      fallback_failed_step_ = why;  // after t's own fallbacks: the outermost one's stands
      return out;
    }
  }
  return {};
}

std::string Engine::why_not_applied() const {
  const Strategy* step = took_fallback_ && !primary_applied_ ? fallback_failed_step_ : failed_step_;
  if (!step) return std::string();
  std::string why = fmt::format("its step `{}` applies nowhere", to_string(*step));
  // A named strategy's description says what it needs in a user's terms (winograd-gemm-form:
  // "... which needs a convolution over 3x3 windows with stride 1, ..."): said with it.
  if (step->kind == StrategyKind::Named)
    if (const NamedStrategy* n = rules_.strategy(step->name); n != nullptr && !n->description.empty())
      why += ": " + n->description;
  return why;
}

std::vector<ir::Expr> Engine::repeat(const Strategy& step, bool topdown, const Focus& f) {
  ir::Expr cur = f.expr;
  while (budget_left()) {
    auto r = topdown ? first_position(step, f.with(cur), true) : eval(step, f.with(cur));
    if (r.empty() || ir::alpha_equal(r[0], cur)) break;
    cur = r[0];
  }
  return {cur};
}

bool Engine::within_shape_budget(const ir::Expr& result, const Focus& f, const std::string& rule) {
  const Budget& b = options_.budget;
  int nesting = ir::nesting_depth(result, f.print);
  int depth = static_cast<int>(f.path.size()) + ir_depth(result);
  if (nesting <= b.max_nesting && depth <= b.max_depth) return true;
  stop_ = nesting > b.max_nesting ? StopReason::NestingLimit : StopReason::DepthLimit;
  if (options_.trace)
    options_.trace(nesting > b.max_nesting
                       ? fmt::format("[{}] {} at {} not applied: the printed definition would nest {} levels deep, "
                                     "more than the {} the .sr reader accepts; stopping",
                                     label_, rule, to_string(f.path), nesting, b.max_nesting)
                       : fmt::format("[{}] {} at {} not applied: the definition's IR would be {} deep, more than "
                                     "{}; stopping",
                                     label_, rule, to_string(f.path), depth, b.max_depth));
  return false;
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
    Focus cur = f.with(e);
    typecheck::TypeEnv storage;
    e = cur.with_child(i, everywhere(s, cur.child(i, storage)));
  }
  auto r = eval(s, f.with(e));
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

// A lambda's body is its child 0; a call's function operands are lambdas among its children.
std::vector<ir::Expr> Engine::in_body(const Strategy& s, const Focus& f) {
  std::size_t i = 0;
  if (f.expr.kind() == ir::ExprKind::Call) {
    while (i < f.expr->args.size() && f.expr->args[i].kind() != ir::ExprKind::Lambda) ++i;
    if (i == f.expr->args.size()) return {};
    typecheck::TypeEnv storage;
    auto r = in_body(s, f.child(i, storage));
    for (auto& e : r) e = f.with_child(i, e);
    return r;
  }
  if (f.expr.kind() != ir::ExprKind::Lambda) return {};
  typecheck::TypeEnv storage;
  auto r = eval(s, f.child(0, storage));
  for (auto& e : r) e = f.with_child(0, e);
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
  walk(Focus{e, &env, {}, {}});
  return out;
}

}  // namespace liftc::rewrite
