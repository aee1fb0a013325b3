#pragma once
// Matching a rule's left side against a typed IR expression, and building its right side.
//
// Matching is binding-aware: a pattern lambda matches any lambda of as many parameters
// (alpha equivalence), a variable bound outside a pattern lambda may not capture that
// lambda's parameters, a function variable applied to lambda-bound variables (`g(e)`)
// matches any body (a higher-order pattern: g becomes `e -> body`), one applied to an
// expression over them (`g(s + b)`) matches any body in which they occur only inside
// matches of it (an abstraction: g becomes `y -> body` with those matches y), a partial
// application in a function position (`map(f)`) matches its eta-expanded lambda, and a
// variable that occurs twice must match alpha-equal expressions.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "liftc/rewrite/rule.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace liftc::rewrite {

/// The values of a program's sizes that it declares (`size N = 64`), by name: a rewrite
/// step must keep types equal at these values where they are not equal symbolically.
using SizeValues = std::map<std::string, arith::Expr>;

/// What a match binds: expression, function (a Lambda) and size variables.
struct Match {
  std::map<std::string, ir::Expr> exprs;
  std::map<std::string, ir::Expr> functions;
  std::map<std::string, arith::Expr> sizes;
};

/// Matches `lhs` at the root of `e` (types are not looked at); nullopt when it does not match.
std::optional<Match> match_pattern(const Pattern& lhs, const ir::Expr& e);

/// The sizes `m` gives a rule's sizes and guards: its size variables, and the lengths of what
/// each expression variable x matched, as `length(x)`, `length(elem(x))`, ...
/// (parse::length_variable).
std::map<std::string, arith::Expr> matched_sizes(const Match& m);

/// Whether every guard of `rule` holds for `m` (`e`'s nodes must carry types); a size
/// comparison the variables' ranges do not decide is decided at the sizes in `given`.
bool guards_hold(const Rule& rule, const Match& m, const SizeValues& given = {});

/// Builds the right side: `params` gives each rule parameter its arith value (a fresh
/// variable or a chosen constant). The result is beta-reduced and not yet type-checked.
ir::Expr instantiate(const Rule& rule, const Match& m, const std::map<std::string, arith::Expr>& params);

/// The stable base name of tuning parameter `p` of `rule` applied with match `m`: the
/// parameter's name and the place it acts, named by the program sizes in the length of the
/// array the rule's left side descends to (`n_M`: split-join over the M kernels; `theta_H`:
/// row tiles of the H rows); the bare name where that length mentions no program size.
/// FreshNames then makes it unique (`n_M_3`); rewrite_program gives each alternative its
/// own canonical names (`n_M`), so one place has one name in every alternative.
std::string tuning_param_name(const Rule& rule, const RuleParam& p, const Match& m);

/// Names the rewriter must not use for fresh tuning parameters, and the ones it made.
class FreshNames {
 public:
  /// Reserves `name` (a size, an input, a definition, an existing parameter).
  void reserve(const std::string& name);
  /// A new name `base_k` (k = 1, 2, ...) not reserved yet; reserves it.
  std::string make(const std::string& base);

 private:
  std::vector<std::string> taken_;
};

/// One way a rule rewrote an expression: the type-checked result and its new parameters.
struct Application {
  ir::Expr result;
  std::vector<TuningParam> params;
};

/// Why a rule that matched produced nothing (for --trace).
using RejectLog = std::function<void(const std::string& why)>;

/// Applies `rule` at the root of the typed expression `e` whose free variables have the
/// types in `env`: matches, checks the guards, builds one result per choice-parameter
/// value (fresh tuning parameters from `names`), and type checks each; a result that does
/// not type check, or whose type is not `e`'s (same_type), is dropped (and reported to
/// `reject`). `fixed` gives the first parameters constant values instead (`split-join[4]`).
std::vector<Application> apply_rule(const Rule& rule, const ir::Expr& e, const typecheck::TypeEnv& env,
                                    FreshNames& names, const RejectLog& reject = {},
                                    const std::vector<std::int64_t>& fixed = {}, const SizeValues& given = {});

/// Whether a rewrite step keeps the type of the expression it replaces: the same
/// structure, and array lengths equal symbolically (division taken as exact, e.g.
/// n_1*(N/n_1) == N: the divisibility is a recorded obligation) or, where that does not
/// decide it, equal once the sizes in `given` take their values. `[[float]M]N` and
/// `[[float]N]M` differ even where M may equal N.
bool same_type(const ir::Type& a, const ir::Type& b, const SizeValues& given = {});

}  // namespace liftc::rewrite
