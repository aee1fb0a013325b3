#pragma once
// Internal to the constraints stage: compiled constraints (exact int64 evaluation over
// parameter indices), the order.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "liftc/constraints/space.hpp"

namespace liftc::constraints::detail {

/// An arith expression compiled to postfix code over parameter indices.
struct Compiled {
  enum class Op : std::uint8_t { Cst, Var, Add, Mul, Div, Mod, Min, Max };
  struct Ins {
    Op op;
    int n;           // Add/Mul: operand count; Var: parameter index
    std::int64_t v;  // Cst
  };
  std::vector<Ins> code;
};

/// Compiles `e`; every variable must be a parameter of `space`.
Compiled compile(const arith::Expr& e, const Space& space);

/// Evaluates with floor division and modulo (arith::floor_div, as arith folds and as solve.cpp
/// encodes them); nullopt on overflow or a division by zero.
std::optional<std::int64_t> run(const Compiled& c, const std::int64_t* values);

/// A constraint ready to check at a point.
struct CompiledConstraint {
  Constraint::Kind kind;
  Compiled lhs, rhs;
  std::vector<std::int64_t> values;  // Member, sorted
  std::vector<int> vars;             // parameter indices, ascending
  std::int64_t lo = 0, hi = 0;       // Range
};

CompiledConstraint compile(const Constraint& c, const Space& space);

/// Whether the constraint holds at `values` (indexed like Space::params).
bool check(const CompiledConstraint& c, const std::int64_t* values);

/// The values between lo and hi, inclusive.
struct Interval {
  std::int64_t lo, hi;
};

/// Bounds of `code` when each parameter j lies in box[j] (interval arithmetic); nullopt
/// when a parameter it reads has no interval, a bound overflows, or a division or modulo
/// is by a possibly non-positive number or of a possibly negative one.
std::optional<Interval> interval_of(const Compiled& code, const std::vector<std::optional<Interval>>& box);

/// Whether a `<=` constraint holds everywhere in the box of the domains (interval
/// arithmetic; false when it cannot tell), so the counting tables need not track it.
bool implied_by_domains(const CompiledConstraint& c, const std::vector<std::vector<std::int64_t>>& domains);


/// Orders the parameters with Boost.Graph: edges from each constraint (a divisor after the
/// value it divides, a bounded side after its bound), no edge that would close a cycle;
/// fills space.edges and sorts space.params topologically (declaration order among equals).
void order_parameters(Space& space);

}  // namespace liftc::constraints::detail

namespace liftc::constraints::detail {

/// Z3's answer to a question about a partial point.
enum class Verdict {
  Yes,     // some valid point has these values
  No,      // none has
  GaveUp,  // Z3 reached its resource limit: not an answer
};

/// A Z3 solver holding every constraint of a space, asked whether partial points extend
/// to valid ones (push/pop per question).
class Z3Prefix {
 public:
  explicit Z3Prefix(const Space& space);
  ~Z3Prefix();
  /// Whether some valid point has these values (parameter index, value), with `effort`
  /// as Z3's resource limit (rlimit: deterministic, unlike a timeout) and kZ3QuestionNetMs
  /// as a wall-clock net. On Yes, when
  /// `model` is given, it receives such a point (Z3's model; empty if beyond int64).
  Verdict extendable(const std::vector<std::pair<int, std::int64_t>>& fixed, std::uint64_t effort,
                     Assignment* model = nullptr);
  /// Which limit the last GaveUp reached: "its resource limit of 8000000 steps", or "its
  /// time net of 20 s" (kZ3QuestionNetMs).
  const std::string& why_gave_up() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace liftc::constraints::detail
