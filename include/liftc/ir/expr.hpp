#pragma once
// The liftc IR: what a program means.
//
// A program is a list of size declarations (named symbolic lengths, optionally with
// values), typed inputs, and value definitions. A definition's body is an expression tree
// of immutable nodes (ir::Expr handles). Nodes:
//
//   Var      a name bound by a lambda, a let, an input or an earlier definition
//   Literal  a float or int constant
//   Lambda   (x, y) -> body ; applied to one tuple argument it destructures it
//   Apply    f(a, ...) where f is a Lambda (what rewriting leaves before beta reduction)
//   Call     a primitive with static size arguments and operands (see prim.hpp)
//   Tuple    (a, b, ...)
//   Get      e.i      tuple projection
//   Let      let x = value in body
//
// Functions are not first-class values: a Lambda only appears as a primitive's function
// operand, as an Apply's callee, or as a definition's body after elaboration of a partial
// application. Function definitions of the surface language (`def f(x) = ...`) are
// expanded at their uses during elaboration and do not exist in the IR.
//
// Every node carries its source position and, after type checking, its type. A pass that
// changes nothing returns the same handle (compare with same_node).

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "liftc/arith/expr.hpp"
#include "liftc/ir/prim.hpp"
#include "liftc/ir/type.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::ir {

/// The kinds of IR node.
enum class ExprKind { Var, Literal, Lambda, Apply, Call, Tuple, Get, Let };

struct ExprNode;

/// A handle to an immutable IR node. Cheap to copy.
class Expr {
 public:
  Expr() = default;
  explicit Expr(std::shared_ptr<const ExprNode> n) : node_(std::move(n)) {}

  bool defined() const { return node_ != nullptr; }
  const ExprNode& operator*() const { return *node_; }
  const ExprNode* operator->() const { return node_.get(); }
  const ExprNode* get() const { return node_.get(); }
  ExprKind kind() const;
  /// The type set by type checking (empty before).
  const Type& type() const;
  const SourceLoc& loc() const;

  /// Identity (the same node object), not structural equality.
  friend bool same_node(const Expr& a, const Expr& b) { return a.node_ == b.node_; }

 private:
  std::shared_ptr<const ExprNode> node_;
};

/// A literal's value: float or int.
struct LiteralValue {
  ScalarKind kind = ScalarKind::Float;
  double f = 0.0;
  long long i = 0;
};

struct ExprNode {
  ExprKind kind = ExprKind::Var;
  SourceLoc loc;
  Type type;                         // set by type checking

  std::string name;                  // Var; Let: the bound name
  LiteralValue literal;              // Literal
  std::vector<std::string> params;   // Lambda
  std::vector<Type> param_types;     // Lambda: set by type checking
  Prim prim = Prim::Id;              // Call
  std::vector<arith::Expr> sizes;    // Call: static size arguments
  std::vector<Expr> args;            // Call operands; Apply: callee then arguments;
                                     // Tuple elements; Get: {tuple}; Let: {value, body};
                                     // Lambda: {body}
  int index = 0;                     // Get
};

// Builders. They check structural invariants (arity against the primitive's signature,
// lambdas where functions are expected) with LIFTC_ASSERT: the elaborator reports user
// mistakes before calling them.
Expr make_var(const std::string& name, SourceLoc loc = {});
Expr make_float(double v, SourceLoc loc = {});
Expr make_int(long long v, SourceLoc loc = {});
Expr make_lambda(std::vector<std::string> params, Expr body, SourceLoc loc = {});
Expr make_apply(Expr callee, std::vector<Expr> args, SourceLoc loc = {});
Expr make_call(Prim p, std::vector<arith::Expr> sizes, std::vector<Expr> args, SourceLoc loc = {});
Expr make_tuple(std::vector<Expr> elems, SourceLoc loc = {});
Expr make_get(Expr tuple, int index, SourceLoc loc = {});
Expr make_let(const std::string& name, Expr value, Expr body, SourceLoc loc = {});

/// A copy of `e` with its type set (used by type checking).
Expr with_type(const Expr& e, Type t);
/// A copy of a Lambda with its parameter types and type set.
Expr with_lambda_types(const Expr& lambda, std::vector<Type> param_types);
/// A copy of `e` with other children (same kind, same fields otherwise); returns `e`
/// itself when every child is the same node.
Expr with_args(const Expr& e, std::vector<Expr> args);

// Accessors with meaningful names.
inline const Expr& lambda_body(const Expr& l) { return l->args[0]; }
inline const Expr& let_value(const Expr& l) { return l->args[0]; }
inline const Expr& let_body(const Expr& l) { return l->args[1]; }
inline const Expr& get_tuple(const Expr& g) { return g->args[0]; }

/// A size declaration: `size N = 64` (value known) or `size N` (symbolic; given at eval time),
/// optionally with the range of values it may take: `size r_1 in 0..64` (a tuning parameter
/// of a rewritten program). Without a range a size is at least 1.
struct SizeDecl {
  std::string name;
  std::optional<long long> value;
  SourceLoc loc;
  std::optional<long long> min = std::nullopt;  // the declared range, both or neither
  std::optional<long long> max = std::nullopt;

  /// Whether `v` is a value this size may take (its range, else >= 1).
  bool admits(long long v) const { return min ? *min <= v && v <= *max : v >= 1; }
  /// The arith variable standing for this size, with its range.
  arith::Expr variable() const;
};

/// An input: `input image : [[float]W]H`.
struct InputDecl {
  std::string name;
  Type type;
  SourceLoc loc;
};

/// A value definition `def name = body`: one output of the program.
struct Definition {
  std::string name;
  Expr body;
  SourceLoc loc;
};

/// A surface function definition `def name(p, ...) = ...`, kept only for listing; its
/// uses have been expanded.
struct FunctionInfo {
  std::string name;
  std::vector<std::string> params;
  SourceLoc loc;
  bool from_prelude = false;
};

/// A whole elaborated program.
struct Program {
  std::vector<SizeDecl> sizes;
  std::vector<InputDecl> inputs;
  std::vector<Definition> defs;
  std::vector<FunctionInfo> functions;
  std::shared_ptr<const SourceFile> source;
  /// The inputs and definitions stored as IEEE halves (`--storage half`,
  /// codegen::half_buffers): their floats are rounded to half where they are stored (an
  /// input on upload, a definition when written); the arithmetic stays in float. The
  /// interpreter rounds at the same points; code generation reads and writes them with
  /// vload_half/vstore_half. Empty: every buffer as its element type.
  std::set<std::string> half;
};

/// Structural equality of two expressions up to consistent renaming of bound variables
/// (alpha equivalence); types and positions are ignored.
bool alpha_equal(const Expr& a, const Expr& b);

/// Free variable names of `e`.
std::vector<std::string> free_vars(const Expr& e);
/// Whether the free variable `name` occurs in `e` exactly once, and not inside a lambda of
/// `e` (whose body may run many times): substituting a computation for it then computes it
/// once, as often as before.
bool used_once_outside_lambdas(const Expr& e, const std::string& name);

/// A name not in `avoid`, derived from `base` ("x" -> "x_1", "x_2", ...).
std::string fresh_name(const std::string& base, const std::vector<std::string>& avoid);

/// Capture-avoiding substitution of free variables by expressions.
Expr substitute(const Expr& e, const std::vector<std::pair<std::string, Expr>>& bindings);

/// Replaces, inside every Call's size arguments and every type, arith variables by
/// expressions (e.g. tuning parameters by values).
Expr substitute_sizes(const Expr& e, const std::map<std::string, arith::Expr>& bindings);

/// The values of a constant array `array(e1, ..., en)` (a Call of Prim::Array whose
/// elements are int or float literals, their negations, or constant arrays of one shape),
/// flattened row-major; nullopt when `e` is not one.
std::optional<std::vector<double>> constant_array_values(const Expr& e);

/// True when `e` only rearranges data: variables, projections, tuples, layout primitives
/// and maps of functions that only rearrange data; no arithmetic, no loops, no memory.
bool only_rearranges(const Expr& e);

/// The map (any map primitive) that computes `e`, looking through toGlobal/toLocal/
/// toPrivate, whose function is that map applied to the function's parameter; undefined
/// when there is none.
Expr producing_map(const Expr& e);

/// True when `e` or any expression under it is a mapWrg, mapLcl or mapGlb.
bool contains_parallel_maps(const Expr& e);

/// The OpenCL dimension of a mapWrg/mapLcl/mapGlb call (0 for the other maps).
int map_dimension(const Expr& map);

/// Beta-reduces Apply(Lambda, args) everywhere (destructuring a single tuple argument).
Expr beta_reduce(const Expr& e);

/// `e` with the node `from` (by identity, same_node) replaced by `to`; `e` itself when
/// `from` is not in it.
Expr replace_node(const Expr& e, const Expr& from, const Expr& to);

/// The function f of a 2D map `map(r -> map(f, r), x)` (over an image's pixels or windows),
/// f a lambda of one parameter; undefined when `e` is not one.
Expr map2d_function(const Expr& e);

}  // namespace liftc::ir
