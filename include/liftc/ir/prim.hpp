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

/// Every primitive, declared once: X(Enumerator, "spelling", sizes, form, operands...), with
/// `sizes` the number of static size arguments (written first); `form` one of `plain`,
/// `variadic` (zip, concat, array: any number >= 2 of data operands) or `index_function` (its size
/// argument is written as an index function, striddenIndex(s), as reorder's is); and per
/// operand 0 for data or k > 0 for a function of k parameters. Both the enum below and the
/// signature table of prim.cpp are made from this list, so there is no row to forget.
#define LIFTC_PRIMS(X) \
  /* Algorithmic (what to compute). */ \
  X(Map, "map", 0, plain, 1, 0)                /* map(f, x) */ \
  X(Reduce, "reduce", 0, plain, 0, 2, 0)       /* reduce(init, f, x); f: (acc, elem) -> acc; result [U]1 */ \
  X(Zip, "zip", 0, variadic, 0, 0)             /* zip(x1, ..., xn), n >= 2 */ \
  X(Concat, "concat", 0, variadic, 0, 0)       /* concat(x1, ..., xn), n >= 2: x1's elements, then x2's, ... */ \
  X(Split, "split", 1, plain, 0)               /* split(n, x) */ \
  X(Join, "join", 0, plain, 0)                 /* join(x) */ \
  X(Slide, "slide", 2, plain, 0)               /* slide(size, step, x) */ \
  X(Pad, "pad", 2, plain, 0, 0)                /* pad(left, right, value, x); negative amounts crop */ \
  X(Transpose, "transpose", 0, plain, 0)       /* transpose(x) */ \
  X(Reorder, "reorder", 1, index_function, 0)  /* reorder(striddenIndex(s), x) */ \
  X(Id, "id", 0, plain, 0)                     /* id(x) */ \
  X(Array, "array", 0, variadic, 0, 0)         /* array(e1, ..., en): n >= 2 literals, or arrays of them */ \
  /* OpenCL (how). */ \
  X(MapWrg, "mapWrg", 1, plain, 1, 0)          /* mapWrg(d, f, x) */ \
  X(MapLcl, "mapLcl", 1, plain, 1, 0)          /* mapLcl(d, f, x) */ \
  X(MapGlb, "mapGlb", 1, plain, 1, 0)          /* mapGlb(d, f, x) */ \
  X(MapSeq, "mapSeq", 0, plain, 1, 0)          /* mapSeq(f, x) */ \
  X(ReduceSeq, "reduceSeq", 0, plain, 0, 2, 0) /* reduceSeq(init, f, x) */ \
  X(ToGlobal, "toGlobal", 0, plain, 1, 0)      /* toGlobal(f, x) */ \
  X(ToLocal, "toLocal", 0, plain, 1, 0)        /* toLocal(f, x) */ \
  X(ToPrivate, "toPrivate", 0, plain, 1, 0)    /* toPrivate(f, x) */ \
  X(AsVector, "asVector", 1, plain, 0)         /* asVector(v, x) */ \
  X(AsScalar, "asScalar", 0, plain, 0)         /* asScalar(x) */ \
  X(Vectorize, "vectorize", 1, plain, 1, 0)    /* vectorize(v, f, x): scalar f lane-wise on vector x */ \
  X(Dot, "dot", 0, plain, 0, 0)                /* dot(a, b) */ \
  /* Scalar builtins (element-wise on vectors, scalars broadcast). */ \
  X(Add, "add", 0, plain, 0, 0) \
  X(Sub, "sub", 0, plain, 0, 0) \
  X(Mul, "mul", 0, plain, 0, 0) \
  X(Div, "div", 0, plain, 0, 0) \
  X(Mod, "mod", 0, plain, 0, 0) \
  X(Neg, "neg", 0, plain, 0) \
  X(Lt, "lt", 0, plain, 0, 0) \
  X(Le, "le", 0, plain, 0, 0) \
  X(Gt, "gt", 0, plain, 0, 0) \
  X(Ge, "ge", 0, plain, 0, 0) \
  X(Eq, "eq", 0, plain, 0, 0) \
  X(Ne, "ne", 0, plain, 0, 0) \
  X(And, "and", 0, plain, 0, 0) \
  X(Or, "or", 0, plain, 0, 0) \
  X(Not, "not", 0, plain, 0) \
  X(Select, "select", 0, plain, 0, 0, 0)       /* select(cond, a, b) */ \
  X(Min, "min", 0, plain, 0, 0) \
  X(Max, "max", 0, plain, 0, 0) \
  X(Exp, "exp", 0, plain, 0) \
  X(Sqrt, "sqrt", 0, plain, 0) \
  X(Abs, "abs", 0, plain, 0) \
  /* Unary math functions of OpenCL C on floats and float vectors, spelled as in OpenCL */ \
  /* (is_float_math lists them with exp and sqrt). */ \
  X(Exp2, "exp2", 0, plain, 0) \
  X(Log, "log", 0, plain, 0) \
  X(Log2, "log2", 0, plain, 0) \
  X(Log10, "log10", 0, plain, 0) \
  X(Rsqrt, "rsqrt", 0, plain, 0) \
  X(Sin, "sin", 0, plain, 0) \
  X(Cos, "cos", 0, plain, 0) \
  X(Tan, "tan", 0, plain, 0) \
  X(Asin, "asin", 0, plain, 0) \
  X(Acos, "acos", 0, plain, 0) \
  X(Atan, "atan", 0, plain, 0) \
  X(Sinh, "sinh", 0, plain, 0) \
  X(Cosh, "cosh", 0, plain, 0) \
  X(Tanh, "tanh", 0, plain, 0) \
  X(Floor, "floor", 0, plain, 0) \
  X(Ceil, "ceil", 0, plain, 0) \
  X(Round, "round", 0, plain, 0) \
  X(Trunc, "trunc", 0, plain, 0) \
  /* roundHalf(x): x rounded to the nearest IEEE half (ties to even) and read back as a float, */ \
  /* what a half buffer holds once x is stored (liftc/support/half.hpp); not OpenCL's name. */ \
  X(RoundHalf, "roundHalf", 0, plain, 0) \
  X(ToFloat, "float", 0, plain, 0)             /* float(x): int to float */ \
  X(SizeValue, "sizeValue", 1, plain)          /* a size used as an int value (one size argument, no operands) */

/// Every primitive: algorithmic, OpenCL, and scalar builtins (LIFTC_PRIMS, in its order).
enum class Prim {
#define LIFTC_PRIM_ENUMERATOR(name, ...) name,
  LIFTC_PRIMS(LIFTC_PRIM_ENUMERATOR)
#undef LIFTC_PRIM_ENUMERATOR
};

/// How many primitives there are (the rows of LIFTC_PRIMS).
#define LIFTC_PRIM_ONE(...) +1
inline constexpr int kPrimCount = 0 LIFTC_PRIMS(LIFTC_PRIM_ONE);
#undef LIFTC_PRIM_ONE

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

/// The case labels of the float math functions (is_float_math: exp, sqrt, exp2 .. trunc, roundHalf),
/// one group of the scalar builtins.
#define LIFTC_FLOAT_MATH_CASES \
  case ::liftc::ir::Prim::Exp: case ::liftc::ir::Prim::Sqrt: case ::liftc::ir::Prim::Exp2: \
  case ::liftc::ir::Prim::Log: case ::liftc::ir::Prim::Log2: case ::liftc::ir::Prim::Log10: \
  case ::liftc::ir::Prim::Rsqrt: case ::liftc::ir::Prim::Sin: case ::liftc::ir::Prim::Cos: \
  case ::liftc::ir::Prim::Tan: case ::liftc::ir::Prim::Asin: case ::liftc::ir::Prim::Acos: \
  case ::liftc::ir::Prim::Atan: case ::liftc::ir::Prim::Sinh: case ::liftc::ir::Prim::Cosh: \
  case ::liftc::ir::Prim::Tanh: case ::liftc::ir::Prim::Floor: case ::liftc::ir::Prim::Ceil: \
  case ::liftc::ir::Prim::Round: case ::liftc::ir::Prim::Trunc: case ::liftc::ir::Prim::RoundHalf:

/// The case labels of every layout primitive (is_layout: zip, concat, split, join, slide, pad,
/// transpose, reorder, asVector, asScalar), for a switch that treats them as one class and
/// leaves what each does to its views (interp/view.cpp, codegen/view.cpp) and type rule
/// (typecheck/layout_rules.cpp). A new layout primitive listed here joins these groups.
#define LIFTC_LAYOUT_PRIM_CASES \
  case ::liftc::ir::Prim::Zip: case ::liftc::ir::Prim::Concat: case ::liftc::ir::Prim::Split: \
  case ::liftc::ir::Prim::Join: case ::liftc::ir::Prim::Slide: case ::liftc::ir::Prim::Pad: case ::liftc::ir::Prim::Transpose: \
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
  bool variadic = false;       // zip, concat, array: any number >= 2 of data operands
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
/// split/join/slide/pad/transpose/reorder/zip/concat/asVector/asScalar: they only rearrange data.
bool is_layout(Prim p);
/// The layout primitives whose index map is one-to-one onto their operand's elements, so a
/// value written through one lands in its operand: split, join, transpose, reorder,
/// asVector, asScalar (not zip, concat, slide or pad: a write through concat would have to
/// choose its operand per element).
bool is_invertible_layout(Prim p);
/// reduce/reduceSeq.
bool is_reduce(Prim p);
/// The OpenCL primitives that the interpreter treats as their algorithmic meaning.
bool is_opencl(Prim p);
/// exp, sqrt and the other unary math functions of OpenCL C (log, sin, tanh, floor, ...):
/// one float or float-vector operand, the same type back, the OpenCL function of that name
/// (roundHalf, which OpenCL C lacks, a function codegen defines: opencl_functions.hpp).
bool is_float_math(Prim p);
/// Infix operator spelling for binary/unary scalar builtins ("+", "<", "!"), or "".
std::string_view operator_spelling(Prim p);
/// The primitive an operator of the .sr grammar denotes with `operands` operands (`-` is Sub
/// with 2, Neg with 1); the operator must be one of the grammar's.
Prim operator_prim(std::string_view spelling, int operands);

}  // namespace liftc::ir
