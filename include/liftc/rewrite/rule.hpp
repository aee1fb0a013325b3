#pragma once
// Rewrite rules as data: a left pattern, a right template, fresh tuning parameters and
// guards, read from rules/*.rules (see rules/README.md for the syntax).
//
// Patterns are IR-shaped trees written in .sr syntax (parse::Pattern). Their variables come in kinds,
// decided by where they first occur on the left: an expression variable (a data operand:
// `x`), a function variable (a function operand: `f`, or applied to lambda-bound
// variables: `g(e)`), a size variable (a static size argument: `n` in `split(n, x)`).
// A rule's parameters are fresh: each application introduces a new arith size variable
// (a tuning parameter, e.g. `n_1`) or, for a `choose` parameter, one alternative per value.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "liftc/arith/expr.hpp"
#include "liftc/ir/expr.hpp"
#include "liftc/parse/pattern.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::rewrite {

/// A rule's sides are patterns, elaborated by the pattern mode of the elaborator
/// (include/liftc/parse/pattern.hpp).
using parse::Pattern;
using parse::PatternKind;
using parse::VarKind;

/// A type in a guard: the type of an expression variable, or the element type `depth` times in.
struct TypeTerm {
  std::string var;
  int elem_depth = 0;
};

/// One condition of a rule's `if` clause; all must hold (a size comparison that cannot be
/// proved from the ranges counts as false).
struct Guard {
  enum class Kind { TypeIs, Compare, FunctionIs };
  Kind kind = Kind::TypeIs;
  bool negated = false;
  std::string predicate;   // TypeIs: scalar, vector, array, tuple, float, int; FunctionIs: layout, once
  TypeTerm term;           // TypeIs; FunctionIs: the function or expression variable (elem_depth 0)
  std::string op;          // Compare: == != < <= > >=
  arith::Expr lhs, rhs;    // Compare: over size variables and `length(x)` (the variable "length(x)")
  SourceLoc loc;
};

/// A parameter a rule introduces.
struct RuleParam {
  enum class Kind {
    Tuning,  // a fresh symbolic size variable: a tuning parameter for exploration
    Choice,  // `choose d in {...}`: one rewrite per value (an OpenCL dimension, say)
  };
  std::string name;
  Kind kind = Kind::Tuning;
  std::optional<std::int64_t> min, max;  // declared `lo..hi`, or the bounds of the value set
  std::vector<std::int64_t> values;      // declared `{a, b, ...}`; empty for a range
  SourceLoc loc;
};

/// A named, checked rewrite rule.
struct Rule {
  std::string name;
  std::string description;
  std::vector<RuleParam> params;
  Pattern lhs;
  Pattern rhs;
  std::vector<Guard> guards;
  parse::PatternVars vars;  // the left side's variables and their kinds
  SourceLoc loc;
};

/// A tuning parameter introduced by an application of a rule: a size variable of the
/// rewritten program, with the range or value set the rule declared.
struct TuningParam {
  std::string name;  // unique in the program, e.g. "n_1"
  std::string rule;  // the rule that introduced it
  std::string base;  // the rule's parameter name, e.g. "n"
  std::optional<std::int64_t> min, max;
  std::vector<std::int64_t> values;
};

/// One line describing a tuning parameter: `n_1 in 2..64 (split-join)`.
std::string to_string(const TuningParam& p);

}  // namespace liftc::rewrite
