// Issue 36, item 10: names the generated kernels reserve (C and OpenCL C keywords and
// types, main, the built-ins the kernels call) are refused where an input or a value
// definition declares them, at file:line:col; every kernel failed to build before.

#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>

#include "test_util.hpp"
#include "../readable_name.hpp"

namespace {

using namespace liftc;
using parse::test::parse_text;

// The error parsing `text` gives, or "<no error>".
Error error_of(const std::string& text) {
  try {
    parse_text(text);
  } catch (const Error& e) {
    return e;
  }
  return Error("<no error>");
}

struct ReservedCase {
  const char* name;
  const char* why;
};

// clang-format off
const ReservedCase kReserved[] = {
    {"global",          "a keyword of C or OpenCL C"},
    {"kernel",          "a keyword of C or OpenCL C"},
    {"restrict",        "a keyword of C or OpenCL C"},
    {"main",            "a keyword of C or OpenCL C"},
    {"local",           "a keyword of C or OpenCL C"},
    {"constant",        "a keyword of C or OpenCL C"},
    {"private",         "a keyword of C or OpenCL C"},
    {"__global",        "reserved in C (it begins with two underscores)"},
    {"__kernel",        "reserved in C (it begins with two underscores)"},
    {"read_only",       "a keyword of C or OpenCL C"},
    {"write_only",      "a keyword of C or OpenCL C"},
    {"const",           "a keyword of C or OpenCL C"},
    {"int",             "a keyword of C or OpenCL C"},
    {"double",          "a keyword of C or OpenCL C"},
    {"void",            "a keyword of C or OpenCL C"},
    {"return",          "a keyword of C or OpenCL C"},
    {"for",             "a keyword of C or OpenCL C"},
    {"while",           "a keyword of C or OpenCL C"},
    {"if",              "a keyword of C or OpenCL C"},
    {"else",            "a keyword of C or OpenCL C"},
    {"struct",          "a keyword of C or OpenCL C"},
    {"sizeof",          "a keyword of C or OpenCL C"},
    {"volatile",        "a keyword of C or OpenCL C"},
    {"static",          "a keyword of C or OpenCL C"},
    {"bool",            "a keyword of C or OpenCL C"},
    {"true",            "a keyword of C or OpenCL C"},
    {"NULL",            "a keyword of C or OpenCL C"},
    {"uint",            "a type of OpenCL C"},
    {"half",            "a type of OpenCL C"},
    {"size_t",          "a type of OpenCL C"},
    {"image2d_t",       "a type of OpenCL C"},
    {"float4",          "a vector type of OpenCL C"},
    {"int16",           "a vector type of OpenCL C"},
    {"uchar3",          "a vector type of OpenCL C"},
    {"get_global_id",   "a built-in function or constant of OpenCL C that the generated kernels use"},
    {"barrier",         "a built-in function or constant of OpenCL C that the generated kernels use"},
    {"vload4",          "a built-in function or constant of OpenCL C that the generated kernels use"},
    {"vstore16",        "a built-in function or constant of OpenCL C that the generated kernels use"},
    {"convert_float4",  "a built-in function or constant of OpenCL C that the generated kernels use"},
    {"fmax",            "a built-in function or constant of OpenCL C that the generated kernels use"},
    {"INFINITY",        "a built-in function or constant of OpenCL C that the generated kernels use"},
};
// clang-format on

class ReservedNames : public ::testing::TestWithParam<ReservedCase> {};

TEST_P(ReservedNames, AreRefusedAsInputsAndDefinitions) {
  const ReservedCase& c = GetParam();
  Error input = error_of(fmt::format("size N = 4\ninput {} : [float]N\ndef out = map(v -> v, {})\n", c.name, c.name));
  EXPECT_EQ(input.message(), fmt::format("`{}` is {}, and an input names a buffer of the generated kernels: choose "
                                         "another name",
                                         c.name, c.why));
  EXPECT_EQ(input.loc().line, 2);
  EXPECT_EQ(input.loc().col, 7);
  Error def = error_of(fmt::format("size N = 4\ninput xs : [float]N\ndef {} = map(v -> v, xs)\n", c.name));
  EXPECT_EQ(def.message(), fmt::format("`{}` is {}, and a definition names a buffer of the generated kernels: choose "
                                       "another name",
                                       c.name, c.why));
  EXPECT_EQ(def.loc().line, 3);
  EXPECT_EQ(def.loc().col, 5);
}

INSTANTIATE_TEST_SUITE_P(Table, ReservedNames, ::testing::ValuesIn(kReserved), [](const auto& info) {
  return liftc::testing::readable_name(info.index, {info.param.name});
});

TEST(ReservedNames, NamesThatOnlyLookLikeThemAreFine) {
  for (const char* name : {"kernels", "global_x", "x_global", "main2", "float5", "int1", "vload5", "_x", "Kernel",
                           "restricted", "weights"}) {
    EXPECT_NO_THROW(parse_text(fmt::format("size N = 4\ninput {} : [float]N\ndef {}_out = map(v -> v, {})\n", name,
                                           name, name)))
        << name;
  }
  // A binder or a function definition never reaches generated code under its own name.
  EXPECT_NO_THROW(parse_text("size N = 4\ninput xs : [float]N\ndef kernel(x) = x\n"
                             "def out = map(global -> kernel(global), xs)\n"));
}

}  // namespace
