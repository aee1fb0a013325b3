#include "builtins.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "liftc/support/half.hpp"

namespace liftc::interp::detail {

namespace {

using ir::Prim;
using ir::ScalarKind;

float f32(Word w) { return std::bit_cast<float>(w); }
Word of_f32(float f) { return std::bit_cast<Word>(f); }
std::int32_t i32(Word w) { return static_cast<std::int32_t>(w); }
Word of_i32(std::int32_t i) { return static_cast<Word>(i); }
Word of_bool(bool b) { return b ? 1u : 0u; }

bool is_comparison(Prim p) {
  return p == Prim::Lt || p == Prim::Le || p == Prim::Gt || p == Prim::Ge || p == Prim::Eq || p == Prim::Ne;
}

// Comparison `p` (LIFTC_COMPARISON_CASES) of two lanes read as one C type (float, int32 or
// bool), as a bool word: one encoding of a comparison's result for every operand kind.
template <class T>
Word compare(Prim p, T x, T y) {
  switch (p) {
    case Prim::Lt: return of_bool(x < y);
    case Prim::Le: return of_bool(x <= y);
    case Prim::Gt: return of_bool(x > y);
    case Prim::Ge: return of_bool(x >= y);
    case Prim::Eq: return of_bool(x == y);
    case Prim::Ne: return of_bool(x != y);
    LIFTC_NON_BUILTIN_PRIM_CASES LIFTC_FLOAT_MATH_CASES case Prim::Add: case Prim::Sub: case Prim::Mul:
    case Prim::Div: case Prim::Mod: case Prim::Neg: case Prim::And: case Prim::Or: case Prim::Not:
    case Prim::Select: case Prim::Min: case Prim::Max: case Prim::Abs: case Prim::ToFloat: case Prim::SizeValue:
      break;
  }
  LIFTC_ASSERT(false, fmt::format("compare() of '{}', a comparison", ir::signature(p).name));
  return 0;
}

// Binary operations on one lane of operand kind `k`.
Word binary_lane(Prim p, ScalarKind k, Word a, Word b) {
  if (k == ScalarKind::Float) {
    float x = f32(a), y = f32(b);
    switch (p) {
      case Prim::Add: return of_f32(x + y);
      case Prim::Sub: return of_f32(x - y);
      case Prim::Mul: return of_f32(x * y);
      case Prim::Div: return of_f32(x / y);
      case Prim::Mod: return of_f32(std::fmod(x, y));
      case Prim::Min: return of_f32(std::fmin(x, y));
      case Prim::Max: return of_f32(std::fmax(x, y));
      LIFTC_COMPARISON_CASES return compare(p, x, y);
      LIFTC_NON_BUILTIN_PRIM_CASES LIFTC_FLOAT_MATH_CASES case Prim::Neg: case Prim::And: case Prim::Or:
      case Prim::Not: case Prim::Select: case Prim::Abs: case Prim::ToFloat: case Prim::SizeValue:
        break;
    }
  } else if (k == ScalarKind::Int) {
    std::int32_t x = i32(a), y = i32(b);
    switch (p) {
      case Prim::Add: return a + b;  // unsigned arithmetic wraps
      case Prim::Sub: return a - b;
      case Prim::Mul: return a * b;
      case Prim::Div:
      case Prim::Mod:
        if (y == 0) throw Error(fmt::format("integer {} by zero ({} {} 0)", p == Prim::Div ? "division" : "remainder", x,
                                            p == Prim::Div ? "/" : "%"));
        if (x == std::numeric_limits<std::int32_t>::min() && y == -1) return p == Prim::Div ? a : 0u;
        return of_i32(p == Prim::Div ? x / y : x % y);
      case Prim::Min: return of_i32(std::min(x, y));
      case Prim::Max: return of_i32(std::max(x, y));
      LIFTC_COMPARISON_CASES return compare(p, x, y);
      LIFTC_NON_BUILTIN_PRIM_CASES LIFTC_FLOAT_MATH_CASES case Prim::Neg: case Prim::And: case Prim::Or:
      case Prim::Not: case Prim::Select: case Prim::Abs: case Prim::ToFloat: case Prim::SizeValue:
        break;
    }
  } else {
    bool x = a != 0, y = b != 0;
    switch (p) {
      case Prim::And: return of_bool(x && y);
      case Prim::Or: return of_bool(x || y);
      case Prim::Eq: case Prim::Ne: return compare(p, x, y);
      LIFTC_NON_BUILTIN_PRIM_CASES LIFTC_FLOAT_MATH_CASES case Prim::Add: case Prim::Sub: case Prim::Mul:
      case Prim::Div: case Prim::Mod: case Prim::Neg: case Prim::Lt: case Prim::Le: case Prim::Gt:
      case Prim::Ge: case Prim::Not: case Prim::Select: case Prim::Min: case Prim::Max: case Prim::Abs:
      case Prim::ToFloat: case Prim::SizeValue:
        break;
    }
  }
  LIFTC_ASSERT(false, fmt::format("binary builtin '{}' on {} operands is ruled out by type checking",
                                  ir::signature(p).name, ir::to_string(k)));
  return 0;
}

// Unary operations on one lane of operand kind `k`.
Word unary_lane(Prim p, ScalarKind k, Word a) {
  if (k == ScalarKind::Float) {
    float x = f32(a);
    switch (p) {
      case Prim::Neg: return of_f32(-x);
      case Prim::Exp: return of_f32(std::exp(x));
      case Prim::Sqrt: return of_f32(std::sqrt(x));
      case Prim::Exp2: return of_f32(std::exp2(x));
      case Prim::Log: return of_f32(std::log(x));
      case Prim::Log2: return of_f32(std::log2(x));
      case Prim::Log10: return of_f32(std::log10(x));
      case Prim::Rsqrt: return of_f32(1.0f / std::sqrt(x));
      case Prim::Sin: return of_f32(std::sin(x));
      case Prim::Cos: return of_f32(std::cos(x));
      case Prim::Tan: return of_f32(std::tan(x));
      case Prim::Asin: return of_f32(std::asin(x));
      case Prim::Acos: return of_f32(std::acos(x));
      case Prim::Atan: return of_f32(std::atan(x));
      case Prim::Sinh: return of_f32(std::sinh(x));
      case Prim::Cosh: return of_f32(std::cosh(x));
      case Prim::Tanh: return of_f32(std::tanh(x));
      case Prim::Floor: return of_f32(std::floor(x));
      case Prim::Ceil: return of_f32(std::ceil(x));
      case Prim::Round: return of_f32(std::round(x));  // halfway cases away from zero, as OpenCL's round
      case Prim::Trunc: return of_f32(std::trunc(x));
      case Prim::RoundHalf: return of_f32(half::round(x));  // what a half buffer holds once x is stored
      case Prim::Abs: return of_f32(std::fabs(x));
      case Prim::ToFloat: return a;
      LIFTC_NON_BUILTIN_PRIM_CASES LIFTC_COMPARISON_CASES case Prim::Add: case Prim::Sub: case Prim::Mul:
      case Prim::Div: case Prim::Mod: case Prim::And: case Prim::Or: case Prim::Not: case Prim::Select:
      case Prim::Min: case Prim::Max: case Prim::SizeValue:
        break;
    }
  } else if (k == ScalarKind::Int) {
    std::int32_t x = i32(a);
    switch (p) {
      case Prim::Neg: return 0u - a;
      case Prim::Abs: return x < 0 ? 0u - a : a;
      case Prim::ToFloat: return of_f32(static_cast<float>(x));
      LIFTC_NON_BUILTIN_PRIM_CASES LIFTC_COMPARISON_CASES LIFTC_FLOAT_MATH_CASES case Prim::Add: case Prim::Sub:
      case Prim::Mul: case Prim::Div: case Prim::Mod: case Prim::And: case Prim::Or: case Prim::Not:
      case Prim::Select: case Prim::Min: case Prim::Max: case Prim::SizeValue:
        break;
    }
  } else if (p == Prim::Not) {
    return of_bool(a == 0);
  } else if (p == Prim::ToFloat) {
    return of_f32(a != 0 ? 1.0f : 0.0f);
  }
  LIFTC_ASSERT(false, fmt::format("unary builtin '{}' on {} operands is ruled out by type checking",
                                  ir::signature(p).name, ir::to_string(k)));
  return 0;
}

ScalarKind result_kind(Prim p, ScalarKind operand) {
  if (is_comparison(p) || p == Prim::And || p == Prim::Or || p == Prim::Not) return ScalarKind::Bool;
  if (p == Prim::ToFloat) return ScalarKind::Float;
  return operand;
}

// A result of `width` lanes (1: a scalar).
Value make_result(ScalarKind k, int width) { return width == 1 ? Value::scalar(k, 0) : Value::vector(k, width); }

int common_width(const Value* args, int n) {
  int w = 1;
  for (int i = 0; i < n; ++i) {
    LIFTC_ASSERT(!args[i].is_ref(), "builtins take scalars and vectors");
    if (args[i].width() == 1) continue;
    LIFTC_ASSERT(w == 1 || w == args[i].width(), "vector operands of a builtin have one width");
    w = args[i].width();
  }
  return w;
}

// Lane l of an operand, a scalar broadcast to every lane.
Word lane_of(const Value& v, int l) { return v.lane(v.width() == 1 ? 0 : l); }

Value dot(const Value& a, const Value& b) {
  int w = std::max(a.width(), b.width());
  float sum = 0.0f;
  for (int l = 0; l < w; ++l) sum += f32(lane_of(a, l)) * f32(lane_of(b, l));
  return Value::of_float(sum);
}

}  // namespace

bool is_builtin(ir::Prim p) {
  auto i = static_cast<int>(p);
  return (i >= static_cast<int>(Prim::Add) && i <= static_cast<int>(Prim::ToFloat)) || p == Prim::Dot;
}

Value apply_builtin(Prim p, const Value* args, int n) {
  // The common case first: two float scalars.
  if (n == 2 && args[0].is_scalar() && args[1].is_scalar() && args[0].scalar_kind() == ScalarKind::Float) {
    float x = args[0].as_float(), y = args[1].as_float();
    switch (p) {
      case Prim::Add: return Value::of_float(x + y);
      case Prim::Mul: return Value::of_float(x * y);
      case Prim::Sub: return Value::of_float(x - y);
      LIFTC_NON_BUILTIN_PRIM_CASES LIFTC_COMPARISON_CASES LIFTC_FLOAT_MATH_CASES case Prim::Div: case Prim::Mod:
      case Prim::Neg: case Prim::And: case Prim::Or: case Prim::Not: case Prim::Select: case Prim::Min:
      case Prim::Max: case Prim::Abs: case Prim::ToFloat: case Prim::SizeValue:
        break;
    }
  }
  if (p == Prim::Dot) {
    LIFTC_ASSERT(n == 2, "dot takes two operands");
    return dot(args[0], args[1]);
  }
  int w = common_width(args, n);
  if (p == Prim::Select) {
    LIFTC_ASSERT(n == 3, "select takes three operands");
    Value r = make_result(args[1].scalar_kind(), w);
    for (int l = 0; l < r.width(); ++l) r.set_lane(l, lane_of(args[0], l) != 0 ? lane_of(args[1], l) : lane_of(args[2], l));
    return r;
  }
  ScalarKind k = args[0].scalar_kind();
  Value r = make_result(result_kind(p, k), w);
  if (n == 1) {
    for (int l = 0; l < w; ++l) r.set_lane(l, unary_lane(p, k, lane_of(args[0], l)));
  } else {
    LIFTC_ASSERT(n == 2, "builtins take one, two or three operands");
    for (int l = 0; l < w; ++l) r.set_lane(l, binary_lane(p, k, lane_of(args[0], l), lane_of(args[1], l)));
  }
  return r;
}

}  // namespace liftc::interp::detail
