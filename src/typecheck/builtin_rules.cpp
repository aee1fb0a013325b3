// Rules of the scalar builtins (arithmetic, comparisons, logic, select, math functions
// such as exp, log, sin, tanh and floor, float(x)), dot and sizeValue. Arithmetic works on int or float scalars and element-wise
// on vectors of one width; a scalar operand broadcasts against a vector. There are no
// implicit conversions: int and float mix only through float(x). Comparisons are on
// scalars only (a vector comparison would need a vector of bools, which has no OpenCL
// spelling as a select condition here).

#include <fmt/format.h>

#include "checker.hpp"

namespace liftc::typecheck::detail {

using ir::ScalarKind;
using ir::Type;

namespace {

std::string str(const Type& t) { return ir::to_string(t); }

bool is_number(const Type& t) { return (t.is_scalar() || t.is_vector()) && t.scalar_kind() != ScalarKind::Bool; }
bool is_float(const Type& t) { return is_number(t) && t.scalar_kind() == ScalarKind::Float; }
bool is_bool(const Type& t) { return t.is_scalar() && t.scalar_kind() == ScalarKind::Bool; }

const Type& operand(const CallSite& site, std::size_t i) { return site.args[i].type(); }

// + - * / % min max: the common type, a vector when either side is one.
Type arithmetic(Checker& c, const CallSite& site) {
  const Type& a = operand(site, 0);
  const Type& b = operand(site, 1);
  if (!is_number(a) || !is_number(b))
    c.fail(site.call, fmt::format("{}: expected numbers (int, float or vectors of them), got {} and {}", site.label,
                                  str(a), str(b)));
  if (a.scalar_kind() != b.scalar_kind())
    c.fail(site.call, fmt::format("{}: the operands must have the same element type, got {} and {} (convert with "
                                  "float(x))",
                                  site.label, str(a), str(b)));
  if (a.is_vector() && b.is_vector() && a.width() != b.width())
    c.fail(site.call, fmt::format("{}: vector widths differ, got {} and {}", site.label, str(a), str(b)));
  return a.is_vector() ? a : b;
}

// < <= > >= == !=: scalars of one kind (== and != on bools too) give bool.
Type comparison(Checker& c, const CallSite& site) {
  const Type& a = operand(site, 0);
  const Type& b = operand(site, 1);
  bool equality = site.call->prim == ir::Prim::Eq || site.call->prim == ir::Prim::Ne;
  bool ok = a.is_scalar() && b.is_scalar() && a == b && (equality || a.scalar_kind() != ScalarKind::Bool);
  if (!ok)
    c.fail(site.call, fmt::format("{}: expected two {} of the same type, got {} and {}", site.label,
                                  equality ? "scalars" : "int or float scalars", str(a), str(b)));
  return Type::bool_();
}

Type logic(Checker& c, const CallSite& site) {
  for (std::size_t i = 0; i < site.args.size(); ++i)
    if (!is_bool(operand(site, i)))
      c.fail(site.call, fmt::format("{}: expected bool, got {}", site.label, str(operand(site, i))));
  return Type::bool_();
}

Type select(Checker& c, const CallSite& site) {
  if (!is_bool(operand(site, 0)))
    c.fail(site.call, fmt::format("select: the condition must be bool, got {}", str(operand(site, 0))));
  if (operand(site, 1) != operand(site, 2))
    c.fail(site.call, fmt::format("select: both branches must have the same type, got {} and {}",
                                  str(operand(site, 1)), str(operand(site, 2))));
  return operand(site, 1);
}

// One number (or vector) operand; `floats_only` for exp, log, sin and the other math functions.
Type unary_number(Checker& c, const CallSite& site, bool floats_only) {
  const Type& a = operand(site, 0);
  if (floats_only ? !is_float(a) : !is_number(a))
    c.fail(site.call, fmt::format("{}: expected {}, got {}", site.label,
                                  floats_only ? "float or a float vector" : "a number or a vector of numbers", str(a)));
  return a;
}

Type to_float(Checker& c, const CallSite& site) {
  const Type& a = operand(site, 0);
  if (!is_number(a) || a.scalar_kind() != ScalarKind::Int)
    c.fail(site.call, fmt::format("float: expected int or an int vector, got {}", str(a)));
  return a.is_vector() ? Type::vector(ScalarKind::Float, a.width()) : Type::float_();
}

// dot(floatN, floatN) : float (float, float is the width-1 case).
Type dot(Checker& c, const CallSite& site) {
  const Type& a = operand(site, 0);
  const Type& b = operand(site, 1);
  if (!is_float(a) || a != b)
    c.fail(site.call, fmt::format("dot: expected two float vectors of the same width, got {} and {}", str(a), str(b)));
  return Type::float_();
}

// array(e1, ..., en): a constant array. Its elements are literals (or their negations) of
// one scalar type, or constant arrays of one type: the values are known when the program
// is compiled (code generation makes them a __constant array), so nothing else may appear.
Type constant_array(Checker& c, const CallSite& site) {
  if (!ir::constant_array_values(site.call))
    c.fail(site.call, fmt::format("{}: the elements of a constant array must be int or float literals or constant "
                                  "arrays",
                                  site.label));
  const Type& first = operand(site, 0);
  for (std::size_t i = 1; i < site.args.size(); ++i)
    if (!(operand(site, i) == first))
      c.fail(site.call, fmt::format("{}: the elements must have one type, got {} (element 0) and {} (element {})",
                                    site.label, str(first), str(operand(site, i)), i));
  return Type::array(first, arith::Expr(static_cast<std::int64_t>(site.args.size())));
}

}  // namespace

Type check_builtin(Checker& c, CallSite& site) {
  if (ir::is_float_math(site.call->prim)) return unary_number(c, site, true);
  switch (site.call->prim) {
    case ir::Prim::Add: case ir::Prim::Sub: case ir::Prim::Mul: case ir::Prim::Div: case ir::Prim::Mod:
    case ir::Prim::Min: case ir::Prim::Max:
      return arithmetic(c, site);
    case ir::Prim::Neg: case ir::Prim::Abs:
      return unary_number(c, site, false);
    LIFTC_COMPARISON_CASES
      return comparison(c, site);
    case ir::Prim::And: case ir::Prim::Or: case ir::Prim::Not:
      return logic(c, site);
    case ir::Prim::Select: return select(c, site);
    case ir::Prim::ToFloat: return to_float(c, site);
    case ir::Prim::Dot: return dot(c, site);
    case ir::Prim::SizeValue: return Type::int_();
    case ir::Prim::Array: return constant_array(c, site);
    LIFTC_LAYOUT_PRIM_CASES LIFTC_FLOAT_MATH_CASES case ir::Prim::Map: case ir::Prim::Reduce: case ir::Prim::Id:
    case ir::Prim::MapWrg: case ir::Prim::MapLcl: case ir::Prim::MapGlb: case ir::Prim::MapSeq:
    case ir::Prim::ReduceSeq: case ir::Prim::ToGlobal: case ir::Prim::ToLocal: case ir::Prim::ToPrivate:
    case ir::Prim::Vectorize:
      break;
  }
  LIFTC_ASSERT(false, "check_builtin is called for builtins only");
  return {};
}

}  // namespace liftc::typecheck::detail
