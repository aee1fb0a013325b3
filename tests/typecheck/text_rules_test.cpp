// Type rules on .sr text: one line a case, an expression checked in a small context
// (symbolic sizes n, m, k, s) and the type it must print as; then errors with their
// message and line:col, and the obligations symbolic lengths leave.

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "liftc/ir/program.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/typecheck/typecheck.hpp"
#include "../readable_name.hpp"

namespace {

using namespace liftc;

// Every case is `kContext` followed by one line `def out = <expression>`.
constexpr const char* kContext =
    "size n, m, k, s\n"
    "input xs : [float]n\n"
    "input ys : [float]n\n"
    "input zs : [float]m\n"
    "input is : [int]n\n"
    "input grid : [[float]m]n\n"
    "input cube : [[[float]k]m]n\n"
    "input vs : [float4]n\n"
    "input c12 : [float]12\n"
    "input v4 : float4\n"
    "input f : float\n"
    "input i : int\n"
    "input t : (float, int)\n";
constexpr int kContextLines = 13;
constexpr const char* kDefPrefix = "def out = ";

typecheck::Checked check_source(const std::string& text) {
  auto file = std::make_shared<SourceFile>(SourceFile{"case.sr", text});
  return typecheck::typecheck(parse::parse_program(file));
}

typecheck::Checked check_expr(const std::string& expr) {
  return check_source(fmt::format("{}{}{}\n", kContext, kDefPrefix, expr));
}

std::string type_of(const std::string& expr) {
  typecheck::Checked c = check_expr(expr);
  return ir::to_string(c.program.defs.back().body.type());
}

struct TypeCase {
  const char* expr;
  const char* expected;
};
void PrintTo(const TypeCase& c, std::ostream* os) { *os << c.expr << " : " << c.expected; }

// clang-format off
const TypeCase kTypes[] = {
    {"map(x -> x * f, xs)",                                   "[float]n"},
    {"mapSeq(x -> float(x), is)",                             "[float]n"},
    {"mapGlb(0, r -> r, grid)",                               "[[float]m]n"},
    {"mapWrg(1, mapLcl(0, id), grid)",                        "[[float]m]n"},
    {"map(map(x -> x + 1.0), grid)",                          "[[float]m]n"},
    {"reduce(0.0, (acc, y) -> acc + y, xs)",                  "[float]1"},
    {"reduceSeq(0, (acc, y) -> acc + y, is)",                 "[int]1"},
    {"reduceSeq((0.0, 0), (acc, y) -> acc, xs)",              "[(float, int)]1"},
    {"zip(xs, ys)",                                           "[(float, float)]n"},
    {"zip(xs, ys, is)",                                       "[(float, float, int)]n"},
    {"map((a, b) -> a * b, zip(xs, ys))",                     "[float]n"},
    {"split(4, xs)",                                          "[[float]4](n/4)"},
    {"split(s, grid)",                                        "[[[float]m]s](n/s)"},
    {"join(grid)",                                            "[float](m*n)"},
    {"slide(3, 1, c12)",                                      "[[float]3]10"},
    {"slide(4, 2, c12)",                                      "[[float]4]5"},
    {"slide(1, 1, xs)",                                       "[[float]1]n"},
    {"pad(1, 2, 0.0, c12)",                                   "[float]15"},
    {"concat(c12, xs)",                                       "[float](n + 12)"},
    {"concat(xs, zs, c12)",                                   "[float](m + n + 12)"},
    {"concat(grid, grid)",                                    "[[float]m](2*n)"},
    {"map2D(p -> concat(p, p), cube)",                        "[[[float](2*k)]m]n"},
    {"map(p -> concat(p.0, p.1), zip(grid, grid))",           "[[float](2*m)]n"},
    {"pad(-1, -1, 0.0, c12)",                                 "[float]10"},
    {"pad(1, 1, 0.0, grid)",                                  "[[float]m](n + 2)"},
    {"transpose(grid)",                                       "[[float]n]m"},
    {"transpose(transpose(grid))",                            "[[float]m]n"},
    {"map(transpose, cube)",                                  "[[[float]m]k]n"},
    {"reorder(striddenIndex(s), xs)",                         "[float]n"},
    {"id(t)",                                                 "(float, int)"},
    {"toGlobal(mapSeq(id), xs)",                              "[float]n"},
    {"toLocal(mapLcl(0, id), xs)",                            "[float]n"},
    {"toPrivate(p -> p.0, t)",                                "float"},
    {"asVector(4, xs)",                                       "[float4](n/4)"},
    {"asScalar(vs)",                                          "[float](4*n)"},
    {"asScalar(asVector(4, c12))",                            "[float]12"},
    {"map(vectorize(4, x -> x * 2.0), vs)",                   "[float4]n"},
    {"vectorize(4, x -> max(x, 0.0), v4)",                    "float4"},
    {"dot(v4, v4)",                                           "float"},
    {"v4 * f + v4",                                           "float4"},
    {"i % 3 - i / 2",                                         "int"},
    {"-f",                                                    "float"},
    {"f < 1.0 && !(i == 2) || f >= 0.0",                      "bool"},
    {"select(f > 0.0, v4, v4)",                               "float4"},
    {"max(f, 0.0) + min(f, 1.0)",                             "float"},
    {"sqrt(exp(v4))",                                         "float4"},
    {"abs(i)",                                                "int"},
    {"t.1",                                                   "int"},
    {"(f, i, v4)",                                            "(float, int, float4)"},
    {"let y = f * 2.0 in (y, y)",                             "(float, float)"},
    {"map(r -> reduce(0.0, (acc, y) -> acc + y, r), grid)",   "[[float]1]n"},
    {"log(f) + exp2(f) + log2(f) + log10(f) + rsqrt(f)",       "float"},
    {"sin(f) + cos(f) + tan(f) + asin(f) + acos(f) + atan(f)", "float"},
    {"sinh(v4) + cosh(v4) + tanh(v4)",                        "float4"},
    {"floor(v4) + ceil(v4) + round(v4) + trunc(v4)",          "float4"},
    {"map(x -> max(x, -inf), xs)",                            "[float]n"},
    {"reduce(inf, (a, y) -> min(a, y), xs)",                  "[float]1"},
    {"slide(3, 2, pad(0, -1, 0.0, c12))",                     "[[float]3]5"},
    {"array(1.0, -2.0, 0.5)",                                 "[float]3"},
    {"array(array(1, 2, 3), array(4, -5, 6))",                "[[int]3]2"},
    {"map(d -> reduce(0.0, (a, p) -> a + p.0 * p.1, zip(d, array(1.0, 0.0, -1.0))), split(3, c12))", "[[float]1]4"},
};
// clang-format on

class TextTypes : public ::testing::TestWithParam<TypeCase> {};

TEST_P(TextTypes, PrintsExpectedType) {
  EXPECT_EQ(type_of(GetParam().expr), GetParam().expected) << GetParam().expr;
}

INSTANTIATE_TEST_SUITE_P(Table, TextTypes, ::testing::ValuesIn(kTypes), [](const auto& info) {
  return liftc::testing::readable_name(info.index, {info.param.expr});
});

struct ErrorCase {
  const char* expr;
  const char* message;  // a substring of the error's message
  int col;              // column within the expression (1 = its first character)
};
void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.expr << " -> " << c.message; }

// Positions follow the parser: a call is at its primitive's name, a binary operator at
// the operator, a projection at its dot, and everything a prelude function (map2D,
// slide2D, ...) expands to at the user's call of it, except the user's own arguments,
// which keep their positions.

// clang-format off
const ErrorCase kErrors[] = {
    {"map(x -> x, f)",                          "map: expected an array, got float",                                   1},
    {"array(f, 1.0)",                           "array: the elements of a constant array must be int or float literals or constant arrays", 1},
    {"array(1.0, 2)",                           "array: the elements must have one type, got float (element 0) and int (element 1)", 1},
    {"array(array(1.0, 2.0), array(3.0))",      "array takes at least 2 arguments, got 1",                              24},
    {"array(array(1.0, 2.0), array(3.0, 4.0, 5.0))", "array: the elements must have one type, got [float]2 (element 0) and [float]3 (element 1)", 1},
    {"concat(xs, is)",                          "concat: the arrays must have one element type, got float (operand 1) and int (operand 2)", 1},
    {"concat(grid, split(2, zs))",              "concat: the arrays must have one element type, got [float]m (operand 1) and [float]2 (operand 2)", 1},
    {"concat(xs, f)",                           "concat: operand 2 must be an array, got float",                       1},
    {"map(x -> x, concat(c12, f))",             "concat: operand 2 must be an array, got float",                       13},
    {"concat(xs)",                              "concat takes at least 2 arguments, got 1",                            1},
    {"zip(xs, zs)",                             "zip: arrays must have the same length, got [float]n and [float]m",     1},
    {"reduce(0.0, (a, y) -> v4, xs)",           "reduce: the reducing function must return the accumulator type float, got float4", 1},
    {"split(5, c12)",                           "split(5): 5 does not divide the array length 12",                     1},
    {"split(0, xs)",                            "split(0): the chunk size must be at least 1",                         1},
    {"slide(3, 2, c12)",                        "slide(3, 2): the step 2 does not divide 9",                           1},
    {"slide(13, 1, c12)",                       "slide(13, 1): the window size 13 is larger than the array length 12", 1},
    {"asVector(4, split(4, c12))",              "asVector(4): expected an array of int or float scalars, got [[float]4]3",                 1},
    {"asVector(5, xs)",                         "asVector(5): the vector width must be 2, 3, 4, 8 or 16",              1},
    {"asVector(4, pad(0, 1, 0.0, c12))",        "asVector(4): 4 does not divide the array length 13",                  1},
    {"asScalar(xs)",                            "asScalar: expected an array of vectors, got [float]n",                    1},
    {"join(xs)",                                "join: expected an array of arrays, got [float]n",                     1},
    {"transpose(xs)",                           "transpose: expected an array of arrays, got [float]n",                1},
    {"pad(1, 1, 0, xs)",                        "pad(1, 1): the padding value must have type float, got int",          1},
    {"pad(-6, -6, 0.0, c12)",                   "pad(-6, -6): the result length 0 is not positive",                    1},
    {"map(x -> x, split(4, pad(0, 1, 0.0, c12)))", "split(4): 4 does not divide the array length 13",                  13},
    {"reorder(striddenIndex(5), c12)",          "reorder(striddenIndex(5)): the stride 5 does not divide the array length 12", 1},
    {"mapLcl(3, x -> x, xs)",                   "mapLcl(3): the dimension must be 0, 1 or 2, got 3",                   1},
    {"map((a, b) -> a, xs)",                    "map: the function (a, b) -> ... takes 2 parameters, so its argument must be a tuple of 2 components, got float", 5},
    {"vectorize(4, x -> x, f)",                 "vectorize(4): expected a vector of 4 lanes (or a tuple of them), got float", 1},
    {"dot(v4, f)",                              "dot: expected two float vectors of the same width, got float4 and float", 1},
    {"i + f",                                   "operator +: the operands must have the same element type, got int and float", 3},
    {"v4 < v4",                                 "operator <: expected two int or float scalars of the same type, got float4 and float4", 4},
    {"select(f, f, f)",                         "select: the condition must be bool, got float",                      1},
    {"select(f > 0.0, f, i)",                   "select: both branches must have the same type, got float and int",   1},
    {"exp(i)",                                  "exp: expected float or a float vector, got int",                     1},
    {"log(i)",                                  "log: expected float or a float vector, got int",                     1},
    {"tanh(xs)",                                "tanh: expected float or a float vector, got [float]n",               1},
    {"floor(t)",                                "floor: expected float or a float vector, got (float, int)",          1},
    // A slide that does not cover the array says how to crop it (issue 11, section 6).
    {"slide(3, 2, c12)",                        "slides must cover the array exactly: crop the last 1 element first, slide(3, 2, pad(0, -1, 0.0, x)) (floor mode), or pad 1 more with a value v that leaves the result unchanged, slide(3, 2, pad(0, 1, v, x)) (ceil mode)", 1},
    {"slide(2, 4, split(1, c12))",              "crop the last 2 elements first, slide(2, 4, pad(0, -2, 0.0, x))",   1},
    {"float(f)",                                "float: expected int or an int vector, got float",                    1},
    {"!f",                                      "operator !: expected bool, got float",                               1},
    {"f.0",                                     "projection .0: expected a tuple, got float",                         2},
    {"t.2",                                     "projection .2: the tuple (float, int) has only 2 components",        2},
    {"map2D(x -> x, xs)",                       "map: expected an array, got float",                                   1},
    {"map2D(x -> x.0, grid)",                   "projection .0: expected a tuple, got float",                         13},
    {"f + map2D(x -> x, grid)",                 "operator +: expected numbers (int, float or vectors of them), got float and [[float]m]n", 3},
    {"zip2D(grid, transpose(grid))",            "zip: arrays must have the same length, got [[float]m]n and [[float]n]m", 1},
    {"slide2D(3, 3, 2, 2, split(12, c12))",     "slide(3, 2): the step 2 does not divide 9",                           1},
    {"sum(is)",                                 "operator +: the operands must have the same element type, got float and int", 1},
};
// clang-format on

class TextErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(TextErrors, ReportsMessageAndPosition) {
  const ErrorCase& c = GetParam();
  try {
    check_expr(c.expr);
    FAIL() << "expected an error for " << c.expr;
  } catch (const Error& e) {
    EXPECT_NE(e.message().find(c.message), std::string::npos) << c.expr << "\n  got: " << e.message();
    EXPECT_EQ(e.loc().line, kContextLines + 1) << c.expr;
    EXPECT_EQ(e.loc().col, static_cast<int>(std::string_view(kDefPrefix).size()) + c.col) << c.expr;
  }
}

INSTANTIATE_TEST_SUITE_P(Table, TextErrors, ::testing::ValuesIn(kErrors), [](const auto& info) {
  return liftc::testing::readable_name(info.index, {info.param.expr});
});

using Kind = typecheck::Obligation::Kind;

// The obligations of one expression, printed "s | n", ">= 1: x", ">= 0: x".
std::vector<std::string> obligations_of(const std::string& expr) {
  std::vector<std::string> out;
  for (const auto& o : check_expr(expr).obligations) {
    switch (o.kind) {
      case Kind::Divides: out.push_back(arith::to_string(o.divisor) + " | " + arith::to_string(o.value)); break;
      case Kind::Positive: out.push_back(">= 1: " + arith::to_string(o.value)); break;
      case Kind::NonNegative: out.push_back(">= 0: " + arith::to_string(o.value)); break;
    }
  }
  return out;
}

using Strings = std::vector<std::string>;

TEST(TextObligations, Split) { EXPECT_EQ(obligations_of("split(s, xs)"), (Strings{"s | n"})); }
TEST(TextObligations, SplitOfConstantLength) { EXPECT_EQ(obligations_of("split(s, c12)"), (Strings{"s | 12"})); }
TEST(TextObligations, AsVector) { EXPECT_EQ(obligations_of("asVector(4, xs)"), (Strings{"4 | n"})); }
TEST(TextObligations, Reorder) { EXPECT_EQ(obligations_of("reorder(striddenIndex(s), xs)"), (Strings{"s | n"})); }
TEST(TextObligations, Slide) {
  EXPECT_EQ(obligations_of("slide(3, s, xs)"), (Strings{">= 0: " + arith::to_string(arith::size_var("n") - 3),
                                                        "s | " + arith::to_string(arith::size_var("n") - 3)}));
}
TEST(TextObligations, ConcreteTrueOnesAreNotRecorded) {
  EXPECT_TRUE(obligations_of("split(4, c12)").empty());
  EXPECT_TRUE(obligations_of("slide(3, 3, c12)").empty());
  EXPECT_TRUE(obligations_of("join(split(n, xs))").empty());
}
TEST(TextObligations, TheyCarryTheirPosition) {
  auto c = check_expr("map(x -> x, split(s, xs))");
  ASSERT_EQ(c.obligations.size(), 1u);
  EXPECT_EQ(c.obligations[0].loc.line, kContextLines + 1);
  EXPECT_EQ(c.obligations[0].loc.col, static_cast<int>(std::string_view(kDefPrefix).size()) + 13);
}

TEST(TextObligations, FromAPreludeFunctionTheyPointAtTheUsersCall) {
  auto c = check_expr("map(w -> w, slide2D(3, 3, s, s, grid))");
  ASSERT_FALSE(c.obligations.empty());
  for (const auto& o : c.obligations) {
    ASSERT_NE(o.loc.file, nullptr) << o.what;
    EXPECT_EQ(o.loc.file->path, "case.sr") << o.what;
    EXPECT_EQ(o.loc.line, kContextLines + 1) << o.what;
    EXPECT_EQ(o.loc.col, static_cast<int>(std::string_view(kDefPrefix).size()) + 13) << o.what;
  }
}

// The full diagnostic: file:line:col, the message, the source line and a caret under the column.
TEST(TextDiagnostics, ShowFilePositionSourceLineAndCaret) {
  try {
    check_expr("map(x -> x, split(4, pad(0, 1, 0.0, c12)))");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string line = "def out = map(x -> x, split(4, pad(0, 1, 0.0, c12)))";
    const std::string expected = fmt::format("case.sr:{}:23: error: split(4): 4 does not divide the array length 13\n"
                                             "  {}\n  {}^",
                                             kContextLines + 1, line, std::string(22, ' '));
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

TEST(TextPrograms, SplitThenJoinIsTheOriginalLength) {
  auto c = check_expr("zip(join(split(4, xs)), ys)");  // zip needs the lengths equal
  EXPECT_EQ(ir::to_string(c.program.defs.back().body.type().elem()), "(float, float)");
}

// Joining the chunks of a split gives the split array's length itself, not s*(n/s): later
// types and the constraints derived from them stay free of the chunk size.
TEST(TextPrograms, JoiningASplitHasTheSplitArraysLength) {
  EXPECT_EQ(ir::to_string(check_expr("join(split(s, xs))").program.defs.back().body.type()), "[float]n");
  EXPECT_EQ(ir::to_string(check_expr("join(map(r -> r, split(s, xs)))").program.defs.back().body.type()), "[float]n");
  // Chunks that did not come from a split of that length keep the product: a slide's, and
  // an input's whose declared length need not be exact (4 does not divide 10: 8 floats).
  EXPECT_EQ(ir::to_string(check_expr("join(slide(3, 1, xs))").program.defs.back().body.type()), "[float](3*n - 6)");
  auto declared = check_source("size N = 10\ninput x : [[float]4](N/4)\ndef y = join(x)\n");
  EXPECT_EQ(ir::to_string(declared.program.defs.back().body.type()), "[float](4*(N/4))");
}

// Issue 36, item 25: lengths that agree at the declared size values are the same; a
// --size override that makes them differ is refused once the sizes are bound.
TEST(TextPrograms, ZipUsesDeclaredSizeValues) {
  const std::string text =
      "size H = 8, W = 8, K = 3\n"
      "input a : [[float]W]H\n"
      "input b : [[float](W + 3 - K)](H + K - 3)\n"
      "def out = zip2D(a, b)\n";
  auto c = check_source(text);
  EXPECT_EQ(ir::to_string(c.program.defs.back().body.type()), "[[(float, float)]W]H");
  auto file = std::make_shared<SourceFile>(SourceFile{"case.sr", text});
  try {
    typecheck::typecheck(ir::bind_sizes(parse::parse_program(file), {{"K", 4}}));
    FAIL() << "expected an error for K = 4";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "zip: arrays must have the same length, got [[float]8]8 and [[float]7]9");
  }
  // Without a declared value the lengths still differ.
  EXPECT_THROW(check_source("size W, K\ninput a : [float]W\ninput b : [float](W + 3 - K)\ndef out = zip(a, b)\n"),
               Error);
}

// Issue 38: a grouped convolution's groups, split(NI/G) of NI channels, are G and its output
// channels NO (not NI/(NI/G) and NI/(NI/G)*(NO/G)) where the sizes are declared and the
// divisions exact at their values; otherwise the lengths stay as the rules give them.
TEST(TextPrograms, LengthsWithDivisionsExactAtTheDeclaredSizesAreSimplified) {
  const char* const groups = "split(NI/G, x)";
  const char* const outputs = "join(map(p -> p.1, zip(split(NI/G, x), split(NO/G, w))))";
  struct Case {
    const char* sizes;
    const char* def;
    const char* type;
  };
  const Case cases[] = {
      {"size NI = 8, NO = 6, G = 2", groups, "[[float](NI/G)]G"},
      {"size NI = 8, NO = 6, G = 2", outputs, "[float]NO"},
      {"size NI = 8, NO = 6, G = 3", groups, "[[float](NI/G)](NI/(NI/G))"},  // 4 chunks of 2, not 3
      {"size NI, NO, G", groups, "[[float](NI/G)](NI/(NI/G))"},
      {"size NI, NO, G", outputs, "[float](NI/(NI/G)*(NO/G))"},
  };
  for (const auto& c : cases) {
    auto checked = check_source(fmt::format("{}\ninput x : [float]NI\ninput w : [float]NO\ndef out = {}\n", c.sizes, c.def));
    EXPECT_EQ(ir::to_string(checked.program.defs.back().body.type()), c.type) << c.sizes << ": " << c.def;
  }
}

TEST(TextPrograms, DefinitionsSeeEarlierDefinitions) {
  auto c = check_source(std::string(kContext) + "def a = split(2, xs)\ndef b = map(r -> r, a)\n");
  EXPECT_EQ(ir::to_string(c.program.defs.back().body.type()), "[[float]2](n/2)");
}

}  // namespace

// Issue 11, section 6: with u unbounded, u - 4 may be negative, so the outer length of the
// split is not simplified to 0 (it was `[[float]n]0`); with u in 5..64 it is the same.
TEST(TextTypes, LengthsWithADivisorOfUnknownSign) {
  struct Case {
    const char* sizes;
    const char* type;
  };
  const Case cases[] = {
      {"size u, n\n", "[[float]n](4*(37/(u - 4))/n)"},
      {"size u in 5..64, n\n", "[[float]n](4*(37/(u - 4))/n)"},
  };
  for (const auto& c : cases) {
    typecheck::Checked checked =
        check_source(fmt::format("{}input x : [float](4*(37/(u - 4)))\ndef y = split(n, x)\n", c.sizes));
    EXPECT_EQ(ir::to_string(checked.program.defs[0].body.type()), c.type) << c.sizes;
  }
}
