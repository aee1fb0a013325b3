#include "liftc/ir/prim.hpp"

#include <cstddef>

#include "liftc/support/diagnostic.hpp"

namespace liftc::ir {

namespace {

// The forms of LIFTC_PRIMS's rows.
enum Form { plain, variadic, index_function };

// One row of the signature table, from one row of LIFTC_PRIMS (operand codes: 0 = data,
// k > 0 = function of k parameters).
#define LIFTC_SIGNATURE_ROW(name, spelling, sizes, form, ...) \
  {Prim::name, spelling, sizes, {__VA_ARGS__}, (form) == variadic, (form) == index_function},

// In the enum's order, so that a primitive's row is at its enumerator's index.
std::vector<PrimSignature> make_table() { return {LIFTC_PRIMS(LIFTC_SIGNATURE_ROW)}; }

#undef LIFTC_SIGNATURE_ROW

}  // namespace

const std::vector<PrimSignature>& all_signatures() {
  static const std::vector<PrimSignature> table = make_table();
  return table;
}

const PrimSignature& signature(Prim p) {
  const auto& table = all_signatures();
  auto index = static_cast<std::size_t>(p);
  LIFTC_ASSERT(index < table.size() && table[index].prim == p, "every primitive has its signature at its index");
  return table[index];
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
    case Prim::Zip: case Prim::Concat: case Prim::Slide: case Prim::Pad: case Prim::Map: case Prim::Reduce:
    case Prim::Id: case Prim::Array: case Prim::MapWrg: case Prim::MapLcl: case Prim::MapGlb: case Prim::MapSeq:
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
    case Prim::Map: case Prim::Reduce: case Prim::Zip: case Prim::Concat: case Prim::Split: case Prim::Join:
    case Prim::Slide: case Prim::Pad: case Prim::Transpose: case Prim::Reorder: case Prim::Id: case Prim::Array: LIFTC_SCALAR_BUILTIN_CASES
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
