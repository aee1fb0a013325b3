#pragma once
// Running strategies over expressions and whole programs, with budgets.
//
// The engine keeps every node typed: it type checks the program first, re-checks each
// rule's result in its scope (apply_rule), and checks the whole rewritten program again
// at the end. Budgets stop a run cleanly: once one is spent every further rule
// application fails, so repeat/normalize unwind with the progress made so far, and the
// result says why it stopped (egg's StopReason, MLIR's GreedyRewriteConfig).

#include <chrono>
#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "liftc/rewrite/load.hpp"
#include "liftc/rewrite/match.hpp"

namespace liftc::rewrite {

/// Why a run stopped.
enum class StopReason { FixedPoint, StepLimit, NodeLimit, TimeLimit, NestingLimit, DepthLimit };

/// "fixed point", "step limit", ..., "nesting limit (...)".
const char* to_string(StopReason r);

/// Limits of one run. The node, nesting and depth limits default to what the .sr reader
/// accepts (src/parse: 200,000 IR nodes, 200 levels of nesting, IR 3,000 deep), so a
/// rewritten definition, printed, reads back; they also keep every recursive pass over
/// the IR within the stack.
struct Budget {
  long max_steps = 100000;          // rule applications (successful ones)
  long max_nodes = 200000;          // IR nodes of the expression being rewritten
  double max_seconds = 30.0;        // wall-clock time
  std::size_t max_alternatives = 256;  // results kept by exhaustive strategies
  int max_nesting = 200;            // nesting of the printed definition (parentheses, argument lists, ...)
  int max_depth = 3000;             // depth of the IR tree of a definition
};

/// How a run is done.
struct RewriteOptions {
  Budget budget;
  /// Called with one line per rule that fires (and per rejected match); null: silent.
  std::function<void(const std::string&)> trace;
};

/// A position: child indices from the root of a definition's body.
using Position = std::vector<int>;

/// "0.1.2" ("root" for the empty path).
std::string to_string(const Position& p);

/// The state of one run: budgets, fresh names, statistics.
class Engine {
 public:
  Engine(const RuleSet& rules, RewriteOptions options);

  /// Applies `s` to `e` (typed, free variables typed by `env`); `at` is e's position,
  /// used in trace lines. Returns the alternatives (empty: the strategy failed).
  std::vector<ir::Expr> run(const Strategy& s, const ir::Expr& e, const typecheck::TypeEnv& env,
                            const Position& at = {});

  /// Every position in `e` where `rule` applies (pre-order), for exploration.
  std::vector<Position> positions(const Rule& rule, const ir::Expr& e, const typecheck::TypeEnv& env);

  /// Reserves a name so no fresh parameter takes it.
  void reserve(const std::string& name) { names_.reserve(name); }
  /// Every tuning parameter introduced so far.
  const std::vector<TuningParam>& params() const { return params_; }
  /// Why the run stopped (FixedPoint while no budget is spent).
  StopReason stop_reason() const { return stop_; }
  /// Rules applied so far.
  long steps() const { return steps_; }
  /// A label for trace lines, e.g. the definition being rewritten.
  void set_label(std::string label) { label_ = std::move(label); }
  /// Whether a fallback(s, t) met so far had to take t (s failed), and whether one's s
  /// succeeded; rewrite_program reads them per definition.
  bool took_fallback() const { return took_fallback_; }
  bool primary_applied() const { return primary_applied_; }
  /// Why the strategy did not apply, in words: the step of the sequence (`s1 ; s2 ; ...`)
  /// that left nothing to rewrite, of the outermost fallback(s, t) whose s failed, or of the
  /// strategy itself when it failed ("its step `winograd-gemm-form` applies nowhere");
  /// empty when that is not a sequence's step.
  std::string why_not_applied() const;
  /// Forgets the three above (before the next definition).
  void reset_fallbacks() {
    took_fallback_ = primary_applied_ = false;
    failed_step_ = nullptr;
    fallback_failed_step_ = nullptr;
  }
  /// The program's declared size values, at which a step's type must equal the original's
  /// where symbolic comparison does not decide it (same_type).
  void set_sizes(SizeValues sizes) { sizes_ = std::move(sizes); }

 private:
  struct Focus;
  std::vector<ir::Expr> eval(const Strategy& s, const Focus& f);       // eval_node, the fallback record kept only on success
  std::vector<ir::Expr> eval_node(const Strategy& s, const Focus& f);  // one node of the strategy
  std::vector<ir::Expr> repeat(const Strategy& step, bool topdown, const Focus& f);
  bool within_shape_budget(const ir::Expr& result, const Focus& f, const std::string& rule);
  std::vector<ir::Expr> apply_named_rule(const Strategy& s, const Focus& f);
  std::vector<ir::Expr> first_position(const Strategy& s, const Focus& f, bool preorder);
  std::vector<ir::Expr> all_positions(const Strategy& s, const Focus& f);
  ir::Expr everywhere(const Strategy& s, const Focus& f);
  std::vector<ir::Expr> at_path(const Strategy& s, const Focus& f, std::size_t depth);
  std::vector<ir::Expr> in_body(const Strategy& s, const Focus& f);
  bool budget_left();

  const RuleSet& rules_;
  RewriteOptions options_;
  FreshNames names_;
  std::vector<TuningParam> params_;
  StopReason stop_ = StopReason::FixedPoint;
  long steps_ = 0;
  long nodes_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::string label_;
  SizeValues sizes_;
  bool took_fallback_ = false;
  bool primary_applied_ = false;
  const Strategy* failed_step_ = nullptr;           // the step a sequence stopped at, the outermost last
  const Strategy* fallback_failed_step_ = nullptr;  // failed_step_ when the outermost fallback's s failed
};

/// One rewritten program and the tuning parameters it uses.
struct RewrittenProgram {
  ir::Program program;              // type checked; its tuning parameters are declared sizes without values
  std::vector<TuningParam> params;  // with the ranges their rules declared
};

/// The result of rewriting a program.
struct ProgramRewrite {
  std::vector<RewrittenProgram> programs;  // the alternatives (one for deterministic strategies)
  std::vector<std::string> unchanged;      // definitions the strategy did not apply to
  std::vector<std::string> fallen_back;    // definitions rewritten only by a fallback(s, t)'s t
  std::map<std::string, std::string> why_not;  // of those two, why (Engine::why_not_applied), where known
  StopReason stop = StopReason::FixedPoint;
  long steps = 0;
};

/// Applies the named strategy (or rule) to every definition of `program`. A definition the
/// strategy fails on is left as it is (and listed); failing on all is a liftc::Error, and so
/// is applying to every definition only through fallbacks (`fallback(conv, lower-glb2)` on a
/// program without a convolution).
/// Alternatives of several definitions combine, up to max_alternatives.
ProgramRewrite rewrite_program(const RuleSet& rules, const std::string& strategy, const ir::Program& program,
                               const RewriteOptions& options = {});

/// Parses a strategy expression written as in rule files (`topdown(map-fusion) ; id`),
/// checked against `rules`.
Strategy parse_strategy(const RuleSet& rules, const std::string& text);

}  // namespace liftc::rewrite
