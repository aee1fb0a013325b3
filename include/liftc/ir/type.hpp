#pragma once
// Types of liftc values: scalars, short vectors, tuples and arrays with symbolic lengths.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "liftc/arith/expr.hpp"

namespace liftc::ir {

/// Scalar element kinds. Bool is the type of comparisons (a select's condition).
enum class ScalarKind { Bool, Int, Float };

/// The kinds of type.
enum class TypeKind { Scalar, Vector, Tuple, Array };

struct TypeNode;

/// A handle to an immutable type. Cheap to copy; compared structurally.
class Type {
 public:
  Type() = default;  // an empty handle: "not yet known"
  explicit Type(std::shared_ptr<const TypeNode> n) : node_(std::move(n)) {}

  static Type scalar(ScalarKind k);
  static Type float_() { return scalar(ScalarKind::Float); }
  static Type int_() { return scalar(ScalarKind::Int); }
  static Type bool_() { return scalar(ScalarKind::Bool); }
  /// A vector of `width` in {2, 3, 4, 8, 16} lanes of a scalar kind.
  static Type vector(ScalarKind k, int width);
  static Type tuple(std::vector<Type> elems);
  static Type array(Type elem, arith::Expr length);

  bool defined() const { return node_ != nullptr; }
  TypeKind kind() const;
  bool is_scalar() const { return defined() && kind() == TypeKind::Scalar; }
  bool is_vector() const { return defined() && kind() == TypeKind::Vector; }
  bool is_tuple() const { return defined() && kind() == TypeKind::Tuple; }
  bool is_array() const { return defined() && kind() == TypeKind::Array; }

  /// Scalar and vector: the scalar kind.
  ScalarKind scalar_kind() const;
  /// Vector: the number of lanes.
  int width() const;
  /// Tuple: the components.
  const std::vector<Type>& elems() const;
  /// Array: the element type and the symbolic length.
  const Type& elem() const;
  const arith::Expr& length() const;

  /// Structural equality; array lengths compare with arith::equal_assuming_exact_division.
  friend bool operator==(const Type& a, const Type& b);
  friend bool operator!=(const Type& a, const Type& b) { return !(a == b); }

  const TypeNode* node() const { return node_.get(); }

 private:
  std::shared_ptr<const TypeNode> node_;
};

struct TypeNode {
  TypeKind kind = TypeKind::Scalar;
  ScalarKind scalar = ScalarKind::Float;  // Scalar, Vector
  int width = 1;                          // Vector
  std::vector<Type> elems;                // Tuple
  Type elem;                              // Array
  arith::Expr length;                     // Array
};

/// The .sr spelling: `float`, `float4`, `(float, int)`, `[[float]n]m`.
std::string to_string(const Type& t);
/// The scalar type at the bottom of nested arrays and vectors (tuples have none: returns empty).
Type base_scalar(const Type& t);
/// Replaces arith variables in every array length (e.g. sizes by their values).
Type substitute_sizes(const Type& t, const std::map<std::string, arith::Expr>& bindings);
/// Type-level spelling of a scalar kind: "float", "int", "bool".
const char* to_string(ScalarKind k);

}  // namespace liftc::ir
