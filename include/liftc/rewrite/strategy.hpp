#pragma once
// Strategies: how rules are composed, in the spirit of ELEVATE. A strategy maps an
// expression to the list of its rewritten alternatives; an empty list is failure.
// Deterministic combinators keep the first alternative, `|` and `anywhere` keep all.

#include <cstdint>
#include <string>
#include <vector>

#include "liftc/rewrite/rule.hpp"

namespace liftc::rewrite {

/// The strategy combinators (spelled as in rules/README.md).
enum class StrategyKind {
  Rule,        // a rule name: applies at the focus
  Named,       // a strategy name
  Id,          // id: succeeds, unchanged
  Fail,        // fail: no alternative
  Seq,         // s1 ; s2 ; ...: each on every result of the one before (n-ary)
  LeftChoice,  // s1 <+ s2 <+ ...: the results of the first that succeeds (n-ary)
  AllChoice,   // s1 | s2 | ...: the results of all (exploration; n-ary)
  Try,         // try(s) = s <+ id
  Repeat,      // repeat(s): s on its own first result while it succeeds
  TopDown,     // topdown(s): s at the first position, pre-order, where it succeeds
  BottomUp,    // bottomup(s): s at the first position, post-order, where it succeeds
  Everywhere,  // everywhere(s): one bottom-up pass trying s at every position
  Anywhere,    // anywhere(s): s at every position where it succeeds, each a separate result
  Normalize,   // normalize(s) = repeat(topdown(s))
  At,          // at(0.1.0, s): s at one position (child indices from the focus)
  Where,       // where(s): the focus unchanged if s succeeds there (a test: finds a place by its shape)
  Unless,      // unless(s): the focus unchanged if s fails there (a test: keeps a strategy off a shape)
  Body,        // body(s): s on the body of the focus's function (a lambda, or a call's first lambda operand)
  Fallback,    // fallback(s, t): s; t on a definition s fails on (the program counts as rewritten by s only where s applied)
};

/// A strategy term.
struct Strategy {
  StrategyKind kind = StrategyKind::Id;
  std::string name;              // Rule, Named
  std::vector<Strategy> args;    // operands of the combinators
  std::vector<int> path;         // At
  std::vector<std::int64_t> fixed;  // Rule: values of its first parameters, in order (`split-join[4]`)
  SourceLoc loc;
};

/// A named strategy of a rule file.
struct NamedStrategy {
  std::string name;
  std::vector<std::string> tags;  // `[fast, gpu]`: what `-s @fast` selects (rules/README.md, "Tags")
  std::string description;
  Strategy body;
  SourceLoc loc;
};

/// Prints a strategy in rule-file syntax.
std::string to_string(const Strategy& s);

}  // namespace liftc::rewrite
