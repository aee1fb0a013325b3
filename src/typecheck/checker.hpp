#pragma once
// Internal to the type checker: the state of one checking walk (the scope, the
// obligations found so far) and the helpers the per-primitive rule files share.
//
// The walk rebuilds the tree bottom-up: every returned node carries its type, every
// Lambda its parameter types and, as its own type, the type of its body (its result).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "liftc/typecheck/typecheck.hpp"

namespace liftc::typecheck::detail {

/// The deepest expression the checker walks (it recurses once per level). Above the 3,000
/// the .sr reader builds, so every program read from text checks; deeper IR (built by
/// other passes) is a liftc::Error rather than a stack overflow.
inline constexpr int kMaxDepth = 4000;

/// One type-checking walk over an expression or a program.
class Checker {
 public:
  /// `obligations` receives the symbolic obligations (may be null: they are then dropped).
  explicit Checker(std::vector<Obligation>* obligations) : obligations_(obligations) {}

  /// The variables in scope.
  TypeEnv env;

  /// The declared values of the program's sizes (`size K = 3`), by name: lengths that
  /// differ symbolically but agree at these values are the same (a --size override is
  /// checked again when the sizes are bound, with constants).
  SizeValues declared;

  /// Whether two lengths are equal: symbolically (exact division assumed, as for types),
  /// or once the declared size values are substituted.
  bool same_length(const arith::Expr& a, const arith::Expr& b) const {
    return arith::equal_assuming_exact_division(a, b, declared);
  }

  /// `length`, or its form with every division taken as exact where that form has no
  /// divisions and is the same length at the declared size values (every size it mentions
  /// declared): a grouped convolution's NI/(NI/G) groups are G, its NI/(NI/G)*(NO/G) output
  /// channels NO, for NI = 8, NO = 6, G = 2. A length of sizes without values, or one whose
  /// divisions are not exact at the values (4*(N/4) with N = 10), is kept as it is.
  arith::Expr simplest_length(const arith::Expr& length) const;

  /// Checks a value expression; returns a copy with every node typed.
  ir::Expr check(const ir::Expr& e);

  /// Checks a function operand applied to arguments of `arg_types` (a single tuple
  /// argument destructures into several parameters); returns the typed Lambda, whose
  /// type is its result type. `who` names the user of the function in errors.
  ir::Expr check_function(const ir::Expr& lambda, const std::vector<ir::Type>& arg_types, std::string_view who);

  /// Decides a concrete obligation (a false one throws `failure` at `at`), drops one the
  /// ranges prove, and records the rest.
  void require(Obligation::Kind kind, const arith::Expr& value, const arith::Expr& divisor, std::string what,
               const ir::Expr& at, const std::function<std::string()>& failure);

  /// Whether `divisor` divides `value`: as constants, provably from the ranges, or because
  /// this walk already required it (a split's or a slide's divisibility obligation).
  bool divides(const arith::Expr& value, const arith::Expr& divisor) const;

  /// Throws a liftc::Error at `at` (or, when its position is unknown, at the innermost
  /// enclosing node whose position is known).
  [[noreturn]] void fail(const ir::Expr& at, const std::string& message) const;

 private:
  ir::Expr check_call(const ir::Expr& call);

  std::vector<Obligation>* obligations_;
  std::vector<std::pair<arith::Expr, arith::Expr>> required_divisible_;  // (value, divisor) of each Divides required
  std::vector<SourceLoc> known_locs_;  // positions of the enclosing nodes that have one
  const ir::ExprNode* float_size_value_ = nullptr;  // the size value float(...) is checking: not an int
  int depth_ = 0;                      // expressions being checked, nested
};

/// Binds names in a Checker's scope until destroyed, restoring what they shadowed.
class Scope {
 public:
  explicit Scope(TypeEnv& env) : env_(env) {}
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
  ~Scope();
  /// Binds `name` to `type` for the rest of this scope.
  void bind(const std::string& name, const ir::Type& type);

 private:
  TypeEnv& env_;
  std::vector<std::pair<std::string, std::optional<ir::Type>>> saved_;
};

/// A Call with its data operands already checked; function operands are still unchecked.
struct CallSite {
  const ir::Expr& call;           // the original node (position, sizes, primitive)
  std::vector<ir::Expr> args;     // data operands typed; the rule replaces function operands
  std::string label;              // "split(4)", "mapWrg(0)", "operator +": names it in errors
};

/// The rules, by family. Each checks the site's function operands (replacing them in
/// `site.args`) and returns the Call's result type.
ir::Type check_layout(Checker& c, CallSite& site);      // zip concat split join slide pad transpose reorder id asVector asScalar
ir::Type check_functional(Checker& c, CallSite& site);  // map family, reduce family, toGlobal/toLocal/toPrivate, vectorize
ir::Type check_builtin(Checker& c, CallSite& site);     // scalar builtins, dot, sizeValue

/// How a Call is named in messages: "split(4)", "mapWrg(0)", "operator +", "zip".
std::string call_label(const ir::Expr& call);

/// A constant static size argument, or a liftc::Error saying `what` must be constant.
std::int64_t constant_size(Checker& c, const CallSite& site, std::size_t index, std::string_view what);

/// True for the vector widths OpenCL has: 2, 3, 4, 8, 16.
bool valid_vector_width(std::int64_t w);

}  // namespace liftc::typecheck::detail
