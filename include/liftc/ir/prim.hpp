#pragma once
// The primitives of the language and their signatures.
//
// Every primitive application in the IR is a Call node: a primitive, its static size
// arguments (arith expressions: split factor, slide size/step, pad amounts, vector width,
// OpenCL dimension, ...), and its operand expressions. Operands that are functions are
// Lambda nodes; the signature table says which operand positions hold functions.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace liftc::ir {

/// Every primitive: algorithmic, OpenCL, and scalar builtins.
enum class Prim {
  // Algorithmic (what to compute).
  Map,        // map(f, x)
  Reduce,     // reduce(init, f, x)                 f: (acc, elem) -> acc; result [U]1
  Zip,        // zip(x1, ..., xn)                   n >= 2
  Split,      // split(n, x)
  Join,       // join(x)
  Slide,      // slide(size, step, x)
  Pad,        // pad(left, right, value, x)         negative amounts crop
  Transpose,  // transpose(x)
  Reorder,    // reorder(striddenIndex(s), x)
  Id,         // id(x)
  Array,      // array(e1, ..., en)                 n >= 2 literals, or arrays of them: a constant array
  // OpenCL (how).
  MapWrg,     // mapWrg(d, f, x)
  MapLcl,     // mapLcl(d, f, x)
  MapGlb,     // mapGlb(d, f, x)
  MapSeq,     // mapSeq(f, x)
  ReduceSeq,  // reduceSeq(init, f, x)
  ToGlobal,   // toGlobal(f, x)
  ToLocal,    // toLocal(f, x)
  ToPrivate,  // toPrivate(f, x)
  AsVector,   // asVector(v, x)
  AsScalar,   // asScalar(x)
  Vectorize,  // vectorize(v, f, x)                 applies scalar f lane-wise to vector x
  Dot,        // dot(a, b)
  // Scalar builtins (element-wise on vectors, scalars broadcast).
  Add, Sub, Mul, Div, Mod, Neg,
  Lt, Le, Gt, Ge, Eq, Ne, And, Or, Not,
  Select,     // select(cond, a, b)
  Min, Max, Exp, Sqrt, Abs,
  // Unary math functions of OpenCL C on floats and float vectors (spelled as in OpenCL;
  // is_float_math lists them with exp and sqrt).
  Exp2, Log, Log2, Log10, Rsqrt, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Tanh,
  Floor, Ceil, Round, Trunc,
  ToFloat,    // float(x): int to float
  SizeValue,  // a size expression used as an int value (one size argument, no operands)
};

/// The case labels of every scalar builtin (Add .. SizeValue), for a switch over Prim that
/// treats them alike. Switches over Prim list every primitive and have no `default:`, so
/// that -Wswitch names each one a new primitive must be decided in; a new scalar builtin
/// listed here joins these groups at once.
#define LIFTC_SCALAR_BUILTIN_CASES \
  case ::liftc::ir::Prim::Add: case ::liftc::ir::Prim::Sub: case ::liftc::ir::Prim::Mul: \
  case ::liftc::ir::Prim::Div: case ::liftc::ir::Prim::Mod: case ::liftc::ir::Prim::Neg: \
  LIFTC_COMPARISON_CASES \
  case ::liftc::ir::Prim::And: case ::liftc::ir::Prim::Or: case ::liftc::ir::Prim::Not: \
  case ::liftc::ir::Prim::Select: case ::liftc::ir::Prim::Min: case ::liftc::ir::Prim::Max: \
  case ::liftc::ir::Prim::Abs: \
  LIFTC_FLOAT_MATH_CASES \
  case ::liftc::ir::Prim::ToFloat: case ::liftc::ir::Prim::SizeValue:

/// The case labels of the six comparisons (lt, le, gt, ge, eq, ne), one group of the
/// scalar builtins.
#define LIFTC_COMPARISON_CASES \
  case ::liftc::ir::Prim::Lt: case ::liftc::ir::Prim::Le: case ::liftc::ir::Prim::Gt: \
  case ::liftc::ir::Prim::Ge: case ::liftc::ir::Prim::Eq: case ::liftc::ir::Prim::Ne:

/// The case labels of the float math functions (is_float_math: exp, sqrt, exp2 .. trunc),
/// one group of the scalar builtins.
#define LIFTC_FLOAT_MATH_CASES \
  case ::liftc::ir::Prim::Exp: case ::liftc::ir::Prim::Sqrt: case ::liftc::ir::Prim::Exp2: \
  case ::liftc::ir::Prim::Log: case ::liftc::ir::Prim::Log2: case ::liftc::ir::Prim::Log10: \
  case ::liftc::ir::Prim::Rsqrt: case ::liftc::ir::Prim::Sin: case ::liftc::ir::Prim::Cos: \
  case ::liftc::ir::Prim::Tan: case ::liftc::ir::Prim::Asin: case ::liftc::ir::Prim::Acos: \
  case ::liftc::ir::Prim::Atan: case ::liftc::ir::Prim::Sinh: case ::liftc::ir::Prim::Cosh: \
  case ::liftc::ir::Prim::Tanh: case ::liftc::ir::Prim::Floor: case ::liftc::ir::Prim::Ceil: \
  case ::liftc::ir::Prim::Round: case ::liftc::ir::Prim::Trunc:

/// The case labels of every layout primitive (is_layout: zip, split, join, slide, pad,
/// transpose, reorder, asVector, asScalar), for a switch that treats them as one class and
/// leaves what each does to its views (interp/view.cpp, codegen/view.cpp) and type rule
/// (typecheck/layout_rules.cpp). A new layout primitive listed here joins these groups.
#define LIFTC_LAYOUT_PRIM_CASES \
  case ::liftc::ir::Prim::Zip: case ::liftc::ir::Prim::Split: case ::liftc::ir::Prim::Join: \
  case ::liftc::ir::Prim::Slide: case ::liftc::ir::Prim::Pad: case ::liftc::ir::Prim::Transpose: \
  case ::liftc::ir::Prim::Reorder: case ::liftc::ir::Prim::AsVector: case ::liftc::ir::Prim::AsScalar:

/// The case labels of every primitive that is not a scalar builtin (the layout primitives
/// and Map .. Dot), for a switch over the scalar builtins that lists the rest as one group.
#define LIFTC_NON_BUILTIN_PRIM_CASES \
  LIFTC_LAYOUT_PRIM_CASES \
  case ::liftc::ir::Prim::Map: case ::liftc::ir::Prim::Reduce: case ::liftc::ir::Prim::Id: \
  case ::liftc::ir::Prim::Array: case ::liftc::ir::Prim::MapWrg: case ::liftc::ir::Prim::MapLcl: \
  case ::liftc::ir::Prim::MapGlb: case ::liftc::ir::Prim::MapSeq: case ::liftc::ir::Prim::ReduceSeq: \
  case ::liftc::ir::Prim::ToGlobal: case ::liftc::ir::Prim::ToLocal: case ::liftc::ir::Prim::ToPrivate: \
  case ::liftc::ir::Prim::Vectorize: case ::liftc::ir::Prim::Dot:

/// Which operand positions of a primitive are functions, and how many parameters each takes.
struct PrimSignature {
  Prim prim;
  std::string_view name;       // the .sr spelling
  int num_sizes;               // static size arguments, written first
  std::vector<int> operands;   // per operand: 0 = data, k > 0 = function of k parameters
  bool variadic = false;       // zip, array: any number >= 2 of data operands
  bool index_function = false; // its size argument is written as an index function, striddenIndex(s) (reorder)
};

/// The signature of `p`.
const PrimSignature& signature(Prim p);
/// Looks up a primitive by its .sr spelling (operators are not spelled here: `+` is Add).
std::optional<Prim> prim_from_name(std::string_view name);
/// All primitives, for listing and tests.
const std::vector<PrimSignature>& all_signatures();

/// mapWrg/mapLcl/mapGlb/mapSeq/map: the map family.
bool is_map(Prim p);
/// split/join/slide/pad/transpose/reorder/zip/asVector/asScalar: they only rearrange data.
bool is_layout(Prim p);
/// The layout primitives whose index map is one-to-one onto their operand's elements, so a
/// value written through one lands in its operand: split, join, transpose, reorder,
/// asVector, asScalar (not zip, slide or pad).
bool is_invertible_layout(Prim p);
/// reduce/reduceSeq.
bool is_reduce(Prim p);
/// The OpenCL primitives that the interpreter treats as their algorithmic meaning.
bool is_opencl(Prim p);
/// exp, sqrt and the other unary math functions of OpenCL C (log, sin, tanh, floor, ...):
/// one float or float-vector operand, the same type back, the OpenCL function of that name.
bool is_float_math(Prim p);
/// Infix operator spelling for binary/unary scalar builtins ("+", "<", "!"), or "".
std::string_view operator_spelling(Prim p);
/// The primitive an operator of the .sr grammar denotes with `operands` operands (`-` is Sub
/// with 2, Neg with 1); the operator must be one of the grammar's.
Prim operator_prim(std::string_view spelling, int operands);

}  // namespace liftc::ir
