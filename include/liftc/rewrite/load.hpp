#pragma once
// Loading rule files. Every problem is a liftc::Error at file:line:col: a syntax error,
// an unknown primitive, a wrong number of operands or size arguments, a variable of the
// right side the left side does not bind, a duplicate rule or strategy name, a strategy
// naming an unknown rule or strategy.

#include <memory>
#include <string>
#include <vector>

#include "liftc/rewrite/rule.hpp"
#include "liftc/rewrite/strategy.hpp"

namespace liftc::rewrite {

/// The rules and strategies of one or more rule files (names unique across all).
struct RuleSet {
  std::vector<Rule> rules;
  std::vector<NamedStrategy> strategies;
  std::vector<std::string> files;  // the files read, in order

  /// The rule named `name`, or null.
  const Rule* rule(const std::string& name) const;
  /// The strategy named `name`, or null.
  const NamedStrategy* strategy(const std::string& name) const;
};

/// Parses one rule file's text and adds its rules and strategies to `set`; strategies may
/// name rules and strategies of files added earlier or of this one.
void add_rules(RuleSet& set, std::shared_ptr<const SourceFile> source);

/// Reads every *.rules file of `dir`, in name order.
RuleSet load_rules_dir(const std::string& dir);

/// Reads the given rule files, in order; a strategy may name a rule or strategy of any of them.
RuleSet load_rule_files(const std::vector<std::string>& paths);

/// The rules folder: liftc::default_rules_dir() ($LIFTC_RULES, else installed beside the binary, else the source tree).
std::string default_rules_dir();

/// The strategies of `strategies.rules` in `rules`, in file order: what `liftc space` and
/// `liftc explore` try when no strategy is named.
std::vector<std::string> default_strategies(const RuleSet& rules);

/// Strategy names as a user gives them (`-s`), each `@tag` replaced by the strategies of
/// `rules` that carry that tag, in file order (a name given twice is kept once). An `@tag`
/// no strategy carries is an error naming the tags there are.
std::vector<std::string> expand_strategy_tags(const RuleSet& rules, const std::vector<std::string>& names);

}  // namespace liftc::rewrite
