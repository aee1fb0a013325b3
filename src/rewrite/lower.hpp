#pragma once
// Internal to the rewrite stage: giving the rule-file syntax tree its meaning.

#include <functional>
#include <optional>
#include <string>

#include "liftc/rewrite/rule.hpp"
#include "liftc/rewrite/strategy.hpp"
#include "liftc/syntax/parsed.hpp"
#include "liftc/syntax/rule_ast.hpp"

namespace liftc::rewrite::detail {

namespace ast = syntax::ast;

/// Lowers and checks one rule: classifies its variables, checks primitives, arities, the
/// right side's variables, the parameters and the guard (liftc::Error at file:line:col).
Rule lower_rule(const ast::RuleDecl& decl, const syntax::Positions& parsed);

/// What a name in a strategy refers to: a rule, a named strategy, or nothing.
using NameResolver = std::function<std::optional<StrategyKind>(const std::string&)>;

/// Lowers and checks a strategy term.
Strategy lower_strategy(const ast::StratExpr& e, const syntax::Positions& parsed, const NameResolver& resolve);

/// Checks the fixed rule parameters (`split-join[4]`) of `s` against the rules' declarations.
void check_fixed(const std::vector<Rule>& rules, const Strategy& s);

}  // namespace liftc::rewrite::detail
