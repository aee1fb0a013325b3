#pragma once
// Symbolic integer arithmetic for array lengths, tuning parameters and indices.
//
// An arith::Expr is an immutable, always-simplified expression over 64-bit integers:
// constants, named variables (sizes, tuning parameters, loop indices) with optional
// inclusive ranges, n-ary sums and products, and binary floor division, modulo, min, max.
// Every constructor (the operators and the free functions below) returns the simplified,
// canonical form, so two expressions that the simplifier can prove equal compare equal
// with ==. Division and modulo are defined on non-negative operands (the only ones sizes
// and indices take); the simplifier relies on variables being non-negative unless their
// range says otherwise.

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace liftc::arith {

class Expr;

/// The kinds of node; Sum and Prod are n-ary, Div/Mod/Min/Max binary.
enum class Kind { Cst, Var, Sum, Prod, Div, Mod, Min, Max };

struct Node;

/// A handle to an immutable, simplified arithmetic expression. Cheap to copy.
class Expr {
 public:
  Expr();                          // the constant 0
  Expr(std::int64_t value);        // NOLINT: constants convert implicitly, as in `n + 1`
  Expr(int value) : Expr(static_cast<std::int64_t>(value)) {}  // NOLINT

  Kind kind() const;
  /// The value of a constant; asserts kind() == Cst.
  std::int64_t value() const;
  /// The value if this is a constant.
  std::optional<std::int64_t> constant() const;
  /// The name of a variable; asserts kind() == Var.
  const std::string& name() const;
  /// A variable's declared inclusive range, when it has one.
  const std::optional<Expr>& var_min() const;
  const std::optional<Expr>& var_max() const;
  /// The operands (terms of a Sum, factors of a Prod, the two sides of Div/Mod/Min/Max).
  const std::vector<Expr>& operands() const;

  /// Structural equality of the canonical forms (total order below is consistent with it).
  friend bool operator==(const Expr& a, const Expr& b);
  friend bool operator!=(const Expr& a, const Expr& b) { return !(a == b); }
  /// A total order used to sort operands canonically.
  friend bool operator<(const Expr& a, const Expr& b);

  const Node* node() const { return node_.get(); }
  explicit Expr(std::shared_ptr<const Node> node) : node_(std::move(node)) {}

 private:
  std::shared_ptr<const Node> node_;
};

struct Node {
  Kind kind = Kind::Cst;
  std::int64_t value = 0;        // Cst
  std::string name;              // Var
  std::optional<Expr> min, max;  // Var: inclusive range, if declared
  std::vector<Expr> operands;    // Sum, Prod, Div, Mod, Min, Max
};

/// A named variable; `min`/`max` give an inclusive range when known (a size is >= 1, a
/// loop index over n iterations ranges over [0, n-1]). Variables are equal when their
/// names are equal: one name means one variable within a program.
Expr var(const std::string& name, std::optional<Expr> min = std::nullopt, std::optional<Expr> max = std::nullopt);
/// A size or tuning parameter: a variable with range [1, +inf).
Expr size_var(const std::string& name);

Expr operator+(const Expr& a, const Expr& b);
Expr operator-(const Expr& a, const Expr& b);
Expr operator-(const Expr& a);
Expr operator*(const Expr& a, const Expr& b);
/// Floor division of non-negative operands.
Expr operator/(const Expr& a, const Expr& b);
/// Remainder of non-negative operands.
Expr operator%(const Expr& a, const Expr& b);
Expr min(const Expr& a, const Expr& b);
Expr max(const Expr& a, const Expr& b);

/// Symbolic lower / upper bounds of `e` from its variables' ranges, when derivable.
std::optional<Expr> lower_bound(const Expr& e);
std::optional<Expr> upper_bound(const Expr& e);
/// Proofs from ranges; false means "could not prove", not "false".
bool provably_nonnegative(const Expr& e);
bool provably_positive(const Expr& e);
bool provably_less(const Expr& a, const Expr& b);  // a < b
/// True when `a % b` simplifies to 0 (e.g. (4*n) % 4, or 12 % 4).
bool provably_divisible(const Expr& a, const Expr& b);

/// Equality that also treats `/` as exact division where the divisor may divide, e.g.
/// (n/m)*m == n. Type checking uses it for lengths: the divisibility it assumes is a
/// constraint that split/asVector record and that constraint inference checks later.
bool equal_assuming_exact_division(const Expr& a, const Expr& b);
/// The same equality, or once `values` (sizes by name) are substituted into both sides: lengths
/// that differ symbolically but agree at a program's size values (`W + 3 - K` and `W` with
/// K = 3). A substitution that divides by zero or overflows is not equal.
bool equal_assuming_exact_division(const Expr& a, const Expr& b, const std::map<std::string, Expr>& values);

/// `e` with every division taken as exact, as equal_assuming_exact_division reads it: one
/// fraction of division-free polynomials, its common content cancelled (`NI/(NI/G)` is `G`,
/// `G*(NO/G)` is `NO`, `(n/4)*4` is `n`; `n/4` stays `n/4`). The same value as `e` only
/// where the divisions are exact (G divides NI); `e` itself where a cross product overflows.
Expr exact_division_form(const Expr& e);

/// Replaces variables by expressions (by name), re-simplifying the result.
Expr substitute(const Expr& e, const std::map<std::string, Expr>& bindings);
/// Evaluates with concrete values for every variable; nullopt if one is unbound or a
/// division by zero occurs.
std::optional<std::int64_t> evaluate(const Expr& e, const std::map<std::string, std::int64_t>& values);
/// Names of the variables `e` mentions, sorted.
std::vector<std::string> free_vars(const Expr& e);
/// Applies `f` bottom-up, rebuilding through the simplifying constructors.
Expr transform(const Expr& e, const std::function<std::optional<Expr>(const Expr&)>& f);

/// Prints in the .sr / C syntax: `n/4*4 + i%2`, with parentheses only where needed.
/// The output parses back (as an .sr size expression and as OpenCL C) to the same value.
std::string to_string(const Expr& e);
/// Writes to_string(e) (for test failure messages and logs).
std::ostream& operator<<(std::ostream& os, const Expr& e);

}  // namespace liftc::arith
