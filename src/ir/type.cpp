#include "liftc/ir/type.hpp"

#include <fmt/format.h>

#include "liftc/support/diagnostic.hpp"

namespace liftc::ir {

namespace {

Type make(TypeNode n) { return Type(std::make_shared<const TypeNode>(std::move(n))); }

}  // namespace

Type Type::scalar(ScalarKind k) {
  TypeNode n;
  n.kind = TypeKind::Scalar;
  n.scalar = k;
  return make(std::move(n));
}

Type Type::vector(ScalarKind k, int width) {
  LIFTC_ASSERT(width == 2 || width == 3 || width == 4 || width == 8 || width == 16,
               "vector widths are 2, 3, 4, 8 or 16");
  TypeNode n;
  n.kind = TypeKind::Vector;
  n.scalar = k;
  n.width = width;
  return make(std::move(n));
}

Type Type::tuple(std::vector<Type> elems) {
  LIFTC_ASSERT(elems.size() >= 2, "tuples have at least two components");
  TypeNode n;
  n.kind = TypeKind::Tuple;
  n.elems = std::move(elems);
  return make(std::move(n));
}

Type Type::array(Type elem, arith::Expr length) {
  LIFTC_ASSERT(elem.defined(), "array element type must be known");
  TypeNode n;
  n.kind = TypeKind::Array;
  n.elem = std::move(elem);
  n.length = std::move(length);
  return make(std::move(n));
}

TypeKind Type::kind() const {
  LIFTC_ASSERT(defined(), "kind() of an empty type");
  return node_->kind;
}

ScalarKind Type::scalar_kind() const {
  LIFTC_ASSERT(is_scalar() || is_vector(), "scalar_kind() of a non-scalar type");
  return node_->scalar;
}

int Type::width() const {
  LIFTC_ASSERT(is_vector(), "width() of a non-vector type");
  return node_->width;
}

const std::vector<Type>& Type::elems() const {
  LIFTC_ASSERT(is_tuple(), "elems() of a non-tuple type");
  return node_->elems;
}

const Type& Type::elem() const {
  LIFTC_ASSERT(is_array(), "elem() of a non-array type");
  return node_->elem;
}

const arith::Expr& Type::length() const {
  LIFTC_ASSERT(is_array(), "length() of a non-array type");
  return node_->length;
}

bool operator==(const Type& a, const Type& b) {
  if (a.node_ == b.node_) return true;
  if (!a.defined() || !b.defined()) return false;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case TypeKind::Scalar:
      return a.scalar_kind() == b.scalar_kind();
    case TypeKind::Vector:
      return a.scalar_kind() == b.scalar_kind() && a.width() == b.width();
    case TypeKind::Tuple:
      return a.elems() == b.elems();
    case TypeKind::Array:
      return arith::equal_assuming_exact_division(a.length(), b.length()) && a.elem() == b.elem();
  }
  return false;
}

const char* to_string(ScalarKind k) {
  switch (k) {
    case ScalarKind::Bool: return "bool";
    case ScalarKind::Int: return "int";
    case ScalarKind::Float: return "float";
  }
  return "?";
}

std::string to_string(const Type& t) {
  if (!t.defined()) return "<unknown>";
  switch (t.kind()) {
    case TypeKind::Scalar:
      return to_string(t.scalar_kind());
    case TypeKind::Vector:
      return fmt::format("{}{}", to_string(t.scalar_kind()), t.width());
    case TypeKind::Tuple: {
      std::string s = "(";
      for (std::size_t i = 0; i < t.elems().size(); ++i) s += (i ? ", " : "") + to_string(t.elems()[i]);
      return s + ")";
    }
    case TypeKind::Array: {
      std::string len = arith::to_string(t.length());
      // A compound length is parenthesised so `[float]n+1` cannot be misread.
      bool simple = t.length().kind() == arith::Kind::Cst || t.length().kind() == arith::Kind::Var;
      return fmt::format("[{}]{}", to_string(t.elem()), simple ? len : "(" + len + ")");
    }
  }
  return "?";
}

Type base_scalar(const Type& t) {
  if (!t.defined()) return {};
  switch (t.kind()) {
    case TypeKind::Scalar: return t;
    case TypeKind::Vector: return Type::scalar(t.scalar_kind());
    case TypeKind::Array: return base_scalar(t.elem());
    case TypeKind::Tuple: return {};
  }
  return {};
}

Type substitute_sizes(const Type& t, const std::map<std::string, arith::Expr>& bindings) {
  if (!t.defined()) return t;
  switch (t.kind()) {
    case TypeKind::Scalar:
    case TypeKind::Vector:
      return t;
    case TypeKind::Tuple: {
      std::vector<Type> elems;
      for (const auto& c : t.elems()) elems.push_back(substitute_sizes(c, bindings));
      return Type::tuple(std::move(elems));
    }
    case TypeKind::Array:
      return Type::array(substitute_sizes(t.elem(), bindings), arith::substitute(t.length(), bindings));
  }
  return t;
}

}  // namespace liftc::ir
