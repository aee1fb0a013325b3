#include "liftc/ir/prim.hpp"

#include <algorithm>

#include "liftc/support/diagnostic.hpp"

namespace liftc::ir {

namespace {

// Operand codes: 0 = data, k > 0 = function of k parameters.
std::vector<PrimSignature> make_table() {
  return {
      {Prim::Map, "map", 0, {1, 0}},
      {Prim::Reduce, "reduce", 0, {0, 2, 0}},
      {Prim::Zip, "zip", 0, {0, 0}, true},
      {Prim::Split, "split", 1, {0}},
      {Prim::Join, "join", 0, {0}},
      {Prim::Slide, "slide", 2, {0}},
      {Prim::Pad, "pad", 2, {0, 0}},
      {Prim::Transpose, "transpose", 0, {0}},
      {Prim::Reorder, "reorder", 1, {0}, false, true},
      {Prim::Id, "id", 0, {0}},
      {Prim::Array, "array", 0, {0, 0}, true},
      {Prim::MapWrg, "mapWrg", 1, {1, 0}},
      {Prim::MapLcl, "mapLcl", 1, {1, 0}},
      {Prim::MapGlb, "mapGlb", 1, {1, 0}},
      {Prim::MapSeq, "mapSeq", 0, {1, 0}},
      {Prim::ReduceSeq, "reduceSeq", 0, {0, 2, 0}},
      {Prim::ToGlobal, "toGlobal", 0, {1, 0}},
      {Prim::ToLocal, "toLocal", 0, {1, 0}},
      {Prim::ToPrivate, "toPrivate", 0, {1, 0}},
      {Prim::AsVector, "asVector", 1, {0}},
      {Prim::AsScalar, "asScalar", 0, {0}},
      {Prim::Vectorize, "vectorize", 1, {1, 0}},
      {Prim::Dot, "dot", 0, {0, 0}},
      {Prim::Add, "add", 0, {0, 0}},
      {Prim::Sub, "sub", 0, {0, 0}},
      {Prim::Mul, "mul", 0, {0, 0}},
      {Prim::Div, "div", 0, {0, 0}},
      {Prim::Mod, "mod", 0, {0, 0}},
      {Prim::Neg, "neg", 0, {0}},
      {Prim::Lt, "lt", 0, {0, 0}},
      {Prim::Le, "le", 0, {0, 0}},
      {Prim::Gt, "gt", 0, {0, 0}},
      {Prim::Ge, "ge", 0, {0, 0}},
      {Prim::Eq, "eq", 0, {0, 0}},
      {Prim::Ne, "ne", 0, {0, 0}},
      {Prim::And, "and", 0, {0, 0}},
      {Prim::Or, "or", 0, {0, 0}},
      {Prim::Not, "not", 0, {0}},
      {Prim::Select, "select", 0, {0, 0, 0}},
      {Prim::Min, "min", 0, {0, 0}},
      {Prim::Max, "max", 0, {0, 0}},
      {Prim::Exp, "exp", 0, {0}},
      {Prim::Sqrt, "sqrt", 0, {0}},
      {Prim::Abs, "abs", 0, {0}},
      {Prim::Exp2, "exp2", 0, {0}},
      {Prim::Log, "log", 0, {0}},
      {Prim::Log2, "log2", 0, {0}},
      {Prim::Log10, "log10", 0, {0}},
      {Prim::Rsqrt, "rsqrt", 0, {0}},
      {Prim::Sin, "sin", 0, {0}},
      {Prim::Cos, "cos", 0, {0}},
      {Prim::Tan, "tan", 0, {0}},
      {Prim::Asin, "asin", 0, {0}},
      {Prim::Acos, "acos", 0, {0}},
      {Prim::Atan, "atan", 0, {0}},
      {Prim::Sinh, "sinh", 0, {0}},
      {Prim::Cosh, "cosh", 0, {0}},
      {Prim::Tanh, "tanh", 0, {0}},
      {Prim::Floor, "floor", 0, {0}},
      {Prim::Ceil, "ceil", 0, {0}},
      {Prim::Round, "round", 0, {0}},
      {Prim::Trunc, "trunc", 0, {0}},
      {Prim::ToFloat, "float", 0, {0}},
      {Prim::SizeValue, "sizeValue", 1, {}},
  };
}

}  // namespace

const std::vector<PrimSignature>& all_signatures() {
  static const std::vector<PrimSignature> table = make_table();
  return table;
}

const PrimSignature& signature(Prim p) {
  const auto& table = all_signatures();
  auto it = std::find_if(table.begin(), table.end(), [p](const PrimSignature& s) { return s.prim == p; });
  LIFTC_ASSERT(it != table.end(), "every primitive has a signature");
  return *it;
}

std::optional<Prim> prim_from_name(std::string_view name) {
  for (const auto& s : all_signatures())
    if (s.name == name) return s.prim;
  return std::nullopt;
}

bool is_map(Prim p) {
  return p == Prim::Map || p == Prim::MapWrg || p == Prim::MapLcl || p == Prim::MapGlb || p == Prim::MapSeq;
}

bool is_layout(Prim p) {
  switch (p) {
    LIFTC_LAYOUT_PRIM_CASES
      return true;
    case Prim::Map: case Prim::Reduce: case Prim::Id: case Prim::Array: case Prim::MapWrg: case Prim::MapLcl: case Prim::MapGlb:
    case Prim::MapSeq: case Prim::ReduceSeq: case Prim::ToGlobal: case Prim::ToLocal: case Prim::ToPrivate:
    case Prim::Vectorize: case Prim::Dot: LIFTC_SCALAR_BUILTIN_CASES
      return false;
  }
  LIFTC_ASSERT(false, "the switch above lists every primitive");
  return {};
}

bool is_invertible_layout(Prim p) {
  switch (p) {
    case Prim::Split: case Prim::Join: case Prim::Transpose: case Prim::Reorder: case Prim::AsVector:
    case Prim::AsScalar:
      return true;
    case Prim::Zip: case Prim::Slide: case Prim::Pad: case Prim::Map: case Prim::Reduce: case Prim::Id:
    case Prim::Array: case Prim::MapWrg: case Prim::MapLcl: case Prim::MapGlb: case Prim::MapSeq:
    case Prim::ReduceSeq: case Prim::ToGlobal: case Prim::ToLocal: case Prim::ToPrivate: case Prim::Vectorize:
    case Prim::Dot: LIFTC_SCALAR_BUILTIN_CASES
      return false;
  }
  LIFTC_ASSERT(false, "the switch above lists every primitive");
  return {};
}

bool is_float_math(Prim p) {
  switch (p) {
    LIFTC_FLOAT_MATH_CASES
      return true;
    LIFTC_NON_BUILTIN_PRIM_CASES LIFTC_COMPARISON_CASES case Prim::Add: case Prim::Sub: case Prim::Mul:
    case Prim::Div: case Prim::Mod: case Prim::Neg: case Prim::And: case Prim::Or: case Prim::Not:
    case Prim::Select: case Prim::Min: case Prim::Max: case Prim::Abs: case Prim::ToFloat: case Prim::SizeValue:
      return false;
  }
  LIFTC_ASSERT(false, "the switch above lists every primitive");
  return {};
}

bool is_reduce(Prim p) { return p == Prim::Reduce || p == Prim::ReduceSeq; }

bool is_opencl(Prim p) {
  switch (p) {
    case Prim::MapWrg: case Prim::MapLcl: case Prim::MapGlb: case Prim::MapSeq: case Prim::ReduceSeq:
    case Prim::ToGlobal: case Prim::ToLocal: case Prim::ToPrivate: case Prim::AsVector: case Prim::AsScalar:
    case Prim::Vectorize: case Prim::Dot:
      return true;
    case Prim::Map: case Prim::Reduce: case Prim::Zip: case Prim::Split: case Prim::Join: case Prim::Slide:
    case Prim::Pad: case Prim::Transpose: case Prim::Reorder: case Prim::Id: case Prim::Array: LIFTC_SCALAR_BUILTIN_CASES
      return false;
  }
  LIFTC_ASSERT(false, "the switch above lists every primitive");
  return {};
}

namespace {

// The operators of the .sr grammar and the primitive each denotes: the one table, read by
// the elaborator (spelling -> primitive) and by the printer and code generation (back).
struct Operator {
  Prim prim;
  std::string_view spelling;
};
constexpr Operator kOperators[] = {
    {Prim::Add, "+"}, {Prim::Sub, "-"},  {Prim::Mul, "*"},  {Prim::Div, "/"}, {Prim::Mod, "%"},
    {Prim::Neg, "-"}, {Prim::Lt, "<"},   {Prim::Le, "<="},  {Prim::Gt, ">"},  {Prim::Ge, ">="},
    {Prim::Eq, "=="}, {Prim::Ne, "!="},  {Prim::And, "&&"}, {Prim::Or, "||"}, {Prim::Not, "!"},
};

}  // namespace

std::string_view operator_spelling(Prim p) {
  for (const auto& op : kOperators)
    if (op.prim == p) return op.spelling;
  return "";
}

Prim operator_prim(std::string_view spelling, int operands) {
  for (const auto& op : kOperators)
    if (op.spelling == spelling && static_cast<int>(signature(op.prim).operands.size()) == operands) return op.prim;
  LIFTC_ASSERT(false, "the grammar only produces the operators of the table");
  return {};
}

}  // namespace liftc::ir
