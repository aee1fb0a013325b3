#pragma once
// Type inference for the IR: every primitive's rule with symbolic lengths
// (e.g. split(m, [T]n) : [[T]m](n/m)). Errors name the primitive, the expected and the
// actual type, with file:line:col, the source line and a caret.

#include <map>
#include <string>
#include <vector>

#include "liftc/ir/expr.hpp"

namespace liftc::typecheck {

/// Types of the variables in scope.
using TypeEnv = std::map<std::string, ir::Type>;

/// Declared values of sizes, by name (`size K = 3`).
using SizeValues = std::map<std::string, arith::Expr>;

/// A fact the types assume but cannot check while lengths are symbolic, e.g. that the
/// split factor divides the length. Constraint inference turns these into constraints.
struct Obligation {
  enum class Kind {
    Divides,   // `divisor` divides `value`
    Positive,  // `value` >= 1 (a length, a split factor, a slide step)
    NonNegative,  // `value` >= 0
  };
  Kind kind;
  arith::Expr value;
  arith::Expr divisor;  // Divides only
  std::string what;     // e.g. "split(4) of an array of length n"
  SourceLoc loc;
};

/// A checked program: every node's type set, every lambda's parameter types set.
struct Checked {
  ir::Program program;
  std::vector<Obligation> obligations;
};

/// Checks a program. Lengths compared for equality (zip's operands) also agree where they
/// are equal at the program's declared size values (`size K = 3`: `W + 3 - K` is `W`).
/// Obligations that are concrete (no variables) are decided on the spot:
/// a false one is a liftc::Error at the primitive that needs it.
Checked typecheck(const ir::Program& program);

/// Checks one expression under `env`; the same rules and errors; `declared` as for a
/// program's declared size values.
ir::Expr typecheck_expr(const ir::Expr& e, const TypeEnv& env, std::vector<Obligation>* obligations = nullptr,
                        const SizeValues& declared = {});

}  // namespace liftc::typecheck
