// Parse then print: one line a case, the input expression and its printed form.
// Covers precedence, literals, partial application, macros (prelude and local) and the
// special forms (reorder, sizes in value positions).

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace {

using liftc::parse::test::print_expr;

struct PrintCase {
  const char* input;
  const char* expected;
};

// clang-format off
const PrintCase kCases[] = {
    // Literals and operators.
    {"1",                                   "1"},
    {"1.0",                                 "1.0"},
    {".5",                                  "0.5"},
    {"1e-3",                                "0.001"},
    {"2.5f",                                "2.5"},
    {"1e-30",                               "1e-30"},
    {"0.1 + 0.2",                           "0.1 + 0.2"},
    {"1.",                                  "1.0"},
    {"-2",                                  "-2"},
    {"-1.5",                                "-1.5"},
    {"-(1.5)",                              "-(1.5)"},
    {"-a",                                  "-a"},
    {"!(a < b)",                            "!(a < b)"},
    {"a + b * a",                           "a + b * a"},
    {"(a + b) * a",                         "(a + b) * a"},
    {"a - (b - a)",                         "a - (b - a)"},
    {"a - b - a",                           "a - b - a"},
    {"a < b && b < a || a == b",            "a < b && b < a || a == b"},
    {"a < b && (b < a || a == b)",          "a < b && (b < a || a == b)"},
    {"i % 2 == 0 != (i > 1)",               "i % 2 == 0 != i > 1"},
    {"(i == 0) == (i == 1)",                "i == 0 == (i == 1)"},
    {"-a * -b",                             "-a * -b"},
    {"a - -2.0",                            "a - -2.0"},
    {"t.0",                                 "t.0"},
    {"(t.0, t.1)",                          "(t.0, t.1)"},
    {"((a))",                               "a"},
    {"let x = a + b in x * x",              "let x = a + b in x * x"},
    {"/* c */ a // d",                      "a"},
    // Primitives, lambdas, partial application.
    {"map(x -> x * 2.0, xs)",               "map(x -> x * 2.0, xs)"},
    {"map(neg, xs)",                        "map(x -> -x, xs)"},
    {"map(transpose, map(split(2), grid))", "map(x -> transpose(x), map(x -> split(2, x), grid))"},
    {"map(map(x -> x + 1.0), grid)",        "map(x -> map(x_1 -> x_1 + 1.0, x), grid)"},
    {"zip(xs, ys, is)",                     "zip(xs, ys, is)"},
    {"map((x, y) -> x * y, zip(xs, ys))",   "map((x, y) -> x * y, zip(xs, ys))"},
    {"map(add, zip(xs, ys))",               "map((x, x_1) -> x + x_1, zip(xs, ys))"},
    {"reduce(0.0, (acc, x) -> acc + x, xs)", "reduce(0.0, (acc, x) -> acc + x, xs)"},
    {"reduceSeq(0.0, add, xs)",             "reduceSeq(0.0, (x, x_1) -> x + x_1, xs)"},
    {"split(4, xs)",                        "split(4, xs)"},
    {"split(N / 4, xs)",                    "split(N/4, xs)"},
    {"slide(3, 1, xs)",                     "slide(3, 1, xs)"},
    {"pad(1, -1, 0.0, xs)",                 "pad(1, -1, 0.0, xs)"},
    {"pad(min(2, K), max(1, 0), 0.0, xs)",  "pad(min(2, K), 1, 0.0, xs)"},
    {"mapWrg(0, mapLcl(1, id), grid)",      "mapWrg(0, x -> mapLcl(1, x_1 -> id(x_1), x), grid)"},
    {"toGlobal(mapSeq(id), xs)",            "toGlobal(x -> mapSeq(x_1 -> id(x_1), x), xs)"},
    {"asScalar(vectorize(4, x -> x * 2.0, asVector(4, xs)))",
                                            "asScalar(vectorize(4, x -> x * 2.0, asVector(4, xs)))"},
    {"reorder(striddenIndex(4), xs)",       "reorder(striddenIndex(4), xs)"},
    {"map(x -> x * float(N), xs)",          "map(x -> x * float(N), xs)"},
    // Size arithmetic in a value position is one exact size value (issue 36, item 1).
    {"N * 2",                               "sizeValue(2*N)"},
    {"N * N - 1 + i",                       "sizeValue(N*N - 1) + i"},
    {"N / 2 + N % 3",                       "N / 2 + N % 3"},
    {"select(a < b, a, b)",                 "select(a < b, a, b)"},
    {"min(exp(a), sqrt(abs(b)))",           "min(exp(a), sqrt(abs(b)))"},
    {"dot(a, b)",                           "dot(a, b)"},
    {"(x -> x + 1.0)(a)",                   "(x -> x + 1.0)(a)"},
    {"((x, y) -> x * y)(a, b)",             "((x, y) -> x * y)(a, b)"},
    {"((x, y) -> x)(t)",                    "((x, y) -> x)(t)"},
    {"(f -> f(a))(x -> x * 2.0)",           "(x -> x * 2.0)(a)"},
    {"let f = x -> x + 1.0 in map(f, xs)",  "map(x -> x + 1.0, xs)"},
    // Function definitions: arguments are sizes, functions or data, as their uses need.
    {"(twice(map(relu), tile(4, xs)))",     "map(x -> max(x, 0.0), map(x -> max(x, 0.0), split(4, xs)))"},
    // Capture avoidance: a binder never captures a free name of an argument.
    {"map(x -> map(y -> x + y, xs), xs)",   "map(x -> map(y -> x + y, xs), xs)"},
    {"map(xs -> xs, ys)",                   "map(xs_1 -> xs_1, ys)"},
    // Prelude.
    {"map2D(x -> x * 2.0, grid)",           "map(row -> map(x -> x * 2.0, row), grid)"},
    {"sum(xs)",                             "reduce(0.0, (acc, v) -> acc + v, xs)"},
    {"map(sum, split(4, xs))",              "map(x -> reduce(0.0, (acc, v) -> acc + v, x), split(4, xs))"},
    {"pad2D(1, 1, 2, 2, 0.0, grid)",        "pad(1, 1, 0.0, map(row -> pad(2, 2, 0.0, row), grid))"},
    {"slide2D(3, 3, 1, 1, grid)",
     "map(x -> transpose(x), slide(3, 1, map(row -> slide(3, 1, row), grid)))"},
};
// clang-format on

TEST(Print, Table) {
  for (const auto& c : kCases) EXPECT_EQ(print_expr(c.input), c.expected) << "input: " << c.input;
}

}  // namespace
