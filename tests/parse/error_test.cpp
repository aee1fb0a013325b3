// Inputs that must fail: one line a case, the program text, a substring of the message,
// and the line:col the error must point at.

#include <gtest/gtest.h>

#include <string>

#include "test_util.hpp"

namespace {

using namespace liftc;
using parse::test::parse_text;

struct ErrorCase {
  const char* text;
  const char* message;
  int line;
  int col;
};

#define XS "input xs : [float]8\n"

// clang-format off
const ErrorCase kCases[] = {
    // Syntax.
    {"def x = ",                                 "expected expression, found end of input",   1, 9},
    {"def x = (1, 2",                            "expected `)`",                              1, 14},
    {"def x = (1, 2\n  // comment\n",            "expected `)`",                              3, 1},
    {"input x : [float",                         "expected `]`",                              1, 17},
    {"input x : [float]",                        "expected array length",                     1, 18},
    {"input x float",                            "expected `:`",                              1, 9},
    {"input x : ",                               "expected type",                             1, 11},
    {"size N = x",                               "expected integer",                          1, 10},
    {"size N, ",                                 "expected size name",                        1, 9},
    {"def = 1",                                  "expected name",                             1, 5},
    {"def x 1",                                  "expected `=`",                              1, 7},
    {"def x = 1 +",                              "expected expression",                       1, 12},
    {"def x = 1 2",                              "expected `size`, `input` or `def`",         1, 11},
    {"foo",                                      "expected `size`, `input` or `def`",         1, 1},
    {"def x = let y = 1 y",                      "expected `in`",                             1, 19},
    {"def x = (1, 2).a",                         "expected tuple index",                      1, 16},
    {"def x = f()",                              "expected expression",                       1, 11},
    {"def f() = 1",                              "expected name",                             1, 7},
    {"def x = 1 /* open",                        "unterminated comment",                      1, 11},
    {"def let = 1",                              "expected name",                             1, 5},
    {"def x = 99999999999999999999",             "expected expression",                       1, 9},
    // Types and sizes.
    {"input x : foo",                            "unknown type `foo`",                        1, 11},
    {"input x : [float]y",                       "unknown name `y`",                          1, 18},
    {"input x : [float](1.5)",                   "an array length must be a size expression", 1, 19},
    {"size N = 0",                               "size N must be at least 1",                 1, 6},
    {"size r in 4..2",                           "size r: empty range 4..2",                  1, 11},
    {"size r = 9 in 0..8",                       "size r must be in 0..8",                    1, 6},
    {"size r in 0.",                             "expected `..`",                             1, 12},
    // Names.
    {"def x = y",                                "unknown name `y`",                          1, 9},
    {XS "def x = mapp(id, xs)",                  "unknown name `mapp`; did you mean `map`?",  2, 9},
    {"def x = striddenIndex(2)",                 "only be the first argument of reorder",     1, 9},
    {"input a : float\ndef a = 1.0",             "`a` is already defined (at t.sr:1:7)",      2, 5},
    {"def f(x) = x\ndef f(y) = y",               "`f` is already defined",                    2, 5},
    {"size N, N",                                "`N` is already defined",                    1, 9},
    {"def map(f, x) = x",                        "`map` is a primitive and cannot be redefined", 1, 5},
    {"def f(x, x) = x",                          "parameter `x` appears twice",               1, 10},
    {XS "def x = map((y, y) -> y, xs)",         "parameter `y` appears twice",               2, 17},
    {"def x = x",                                "unknown name `x`",                          1, 9},
    // Arity of primitives and functions.
    {XS "def x = split(4, xs, xs)",              "split takes 2 arguments (1 size argument, then 1 operand), but 3 are given", 2, 9},
    {XS "def x = zip(xs)",                       "zip takes at least 2 arguments, got 1",     2, 9},
    {XS "def x = slide(3)",                      "slide needs its 2 size arguments first",    2, 9},
    {"def f(x) = x\ndef y = f(1, 2)",            "f takes 1 argument, but 2 are given",       2, 9},
    {"def x = (y -> y)(1, 2)",                   "this lambda takes 1 parameter, but 2 are given", 1, 9},
    // Size arguments that are not size expressions.
    {XS "def x = split(1.5, xs)",                "size argument 1 of split must be a size expression", 2, 15},
    {XS "def x = split(xs, xs)",                 "size argument 1 of split must be a size expression", 2, 15},
    {XS "def x = split(y -> y, xs)",             "size argument 1 of split must be a size expression", 2, 15},
    {XS "def x = split(2 * xs, xs)",             "size argument 1 of split must be a size expression", 2, 19},
    {XS "def x = map(y -> split(y, xs), xs)",    "size argument 1 of split must be a size expression", 2, 24},
    {XS "def f(n, x) = split(n, x)\ndef y = f(xs, xs)", "size argument 1 of split must be a size expression", 3, 11},
    {XS "def x = split(4 / 0, xs)",              "division by zero",                          2, 17},
    {XS "def x = reorder(4, xs)",                "first argument of reorder must be an index function", 2, 17},
    // Functions where data is expected, and data where a function is expected.
    {XS "def x = map(id, transpose)",            "argument 2 of map must be data, not a function (`transpose` needs 1 more argument)", 2, 17},
    {XS "def x = map(xs, xs)",                   "argument 1 of map must be a function of 1 parameter, not data", 2, 13},
    {XS "def x = reduce(0.0, y -> y, xs)",       "argument 2 of reduce must be a function of 2 parameters; this lambda takes 1 parameter", 2, 21},
    {XS "def x = reduce(0.0, neg, xs)",          "argument 2 of reduce must be a function of 2 parameters; `neg` needs 1 more argument", 2, 21},
    {XS "def x = map(split, xs)",                "split needs its 1 size argument here",      2, 13},
    {"def x = (id, 1)",                          "a tuple component must be data, not a function (`id` needs 1 more argument)", 1, 10},
    {"def x = 1 + id",                           "the right operand of `+` must be data",     1, 13},
    {"def x = -map",                             "the operand of `-` must be data",           1, 10},
    {"def x = y -> y",                           "definition `x` is a function",              1, 5},
    {"input a : float\ndef x = a(1)",            "this expression is data, not a function",   2, 9},
    {"def x = map(y -> id, 1)",                  "the body of a lambda must be data",         1, 18},
    // Recursion.
    {"def f(x) = f(x)",                          "recursive definition: f -> f",              1, 5},
    {"def f(x) = g(x)\ndef g(x) = f(x)",         "recursive definition: f -> g -> f",         1, 5},
    {"def f(x) = (y -> g(y))(x)\ndef g(x) = let h = f in h(x)", "recursive definition: f -> g -> f", 1, 5},
    {"def f(g, x) = g(g, x)\ndef y = f(f, 1)",   "definitions expand too deeply",             2, 11},
};
// clang-format on

TEST(Errors, Table) {
  for (const auto& c : kCases) {
    try {
      parse_text(c.text);
      ADD_FAILURE() << "no error for:\n" << c.text;
    } catch (const Error& e) {
      EXPECT_NE(e.message().find(c.message), std::string::npos)
          << "input:\n" << c.text << "\nexpected message containing: " << c.message << "\ngot: " << e.what();
      EXPECT_EQ(e.loc().line, c.line) << "input:\n" << c.text << "\ngot: " << e.what();
      EXPECT_EQ(e.loc().col, c.col) << "input:\n" << c.text << "\ngot: " << e.what();
    }
  }
}

TEST(Errors, DeepNestingIsAnErrorNotACrash) {
  for (const char* open : {"(", "-", "[", "x -> ", "let y = 1 in "}) {
    std::string text = std::string(*open == '[' ? "input x : " : "def x = ");
    for (int i = 0; i < 100000; ++i) text += open;
    try {
      parse_text(text);
      ADD_FAILURE() << "no error for nesting of " << open;
    } catch (const Error& e) {
      EXPECT_NE(e.message().find("nested deeper than"), std::string::npos) << e.what();
    }
  }
}

TEST(Errors, ExponentialExpansionIsBounded) {
  // f_i(x) is a tree of 2^i copies of x: wide, not deep.
  std::string text = "def f0(x) = (x, x)\n";
  for (int i = 1; i < 30; ++i)
    text += "def f" + std::to_string(i) + "(x) = (f" + std::to_string(i - 1) + "(x), f" + std::to_string(i - 1) + "(x))\n";
  text += "def y = f29(1)\n";
  try {
    parse_text(text);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("too large after expanding"), std::string::npos) << e.what();
  }
}

TEST(Errors, DeepExpansionIsBounded) {
  // A 50-deep chain of additions, nested 100 times through a function: IR depth 5000.
  std::string text = "def a(x) = x";
  for (int i = 0; i < 50; ++i) text += " + 1";
  text += "\ndef y = ";
  for (int i = 0; i < 100; ++i) text += "a(";
  text += "1" + std::string(100, ')') + "\n";
  try {
    parse_text(text);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("nested deeper than 3000 levels"), std::string::npos) << e.what();
  }
}

TEST(Errors, MissingFile) {
  try {
    parse::load_program("/nonexistent/dir/prog.sr");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("cannot open /nonexistent/dir/prog.sr"), std::string::npos) << e.what();
  }
}

}  // namespace
