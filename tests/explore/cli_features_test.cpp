// `liftc features`: the table and the JSON a user reads, and one error line for bad input
// (the library's own cases are in features_test.cpp).

#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "explore_cli.hpp"

namespace liftc::explore::test {
namespace {

using FeaturesCli = ExploreCli;

const std::string kPoint = "mad=0,unroll=0,local_0=8,local_1=4";

// The value column of the table's line for feature `name`, or "" when it has none.
std::string table_value(const std::string& table, const std::string& name) {
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string first, value;
    if (words >> first >> value && first == name) return value;
  }
  return "";
}

TEST_F(FeaturesCli, PrintsTheFeaturesAsATable) {
  Result r = run(fmt::format("features '{}' -s lower-glb2 --params {} --target mali-g72", kMatmul, kPoint));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("lower-glb2 #1 at " + kPoint), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\nk0: matmul_kernel\n"), std::string::npos) << r.output;
  EXPECT_EQ(table_value(r.output, "k0.global_size"), "3072");
  EXPECT_EQ(table_value(r.output, "k0.global_read_bytes"), "256");
  EXPECT_EQ(table_value(r.output, "k0.float_ops"), "64");
  EXPECT_EQ(table_value(r.output, "strategy.lower-glb2"), "1");
  EXPECT_EQ(table_value(r.output, "param.local_1"), "4");
}

TEST_F(FeaturesCli, PrintsTheFeaturesAsJsonInOrder) {
  Result r = run(fmt::format("features '{}' --strategy lower-glb2 --params {} --target mali-g72 --json", kMatmul, kPoint));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(r.output);
  EXPECT_EQ(j["alternative"], "lower-glb2 #1");
  EXPECT_EQ(j["point"], kPoint);
  EXPECT_EQ(j["kernels"], nlohmann::ordered_json::array({"matmul_kernel"}));
  const auto& features = j["features"];
  EXPECT_EQ(features["k0.global_size"], 3072);
  EXPECT_EQ(features["k0.int_ops"], 99);
  EXPECT_EQ(features.begin().key().rfind("strategy.", 0), 0u);  // the order of the names: the one-hot first
  EXPECT_EQ(std::prev(features.end()).key(), "param.local_1");
  std::size_t common = j["common"];
  EXPECT_EQ(std::next(features.begin(), static_cast<std::ptrdiff_t>(common)).key(), "k0.global_size");
}

// Each bad input: exit code 1 and exactly one line.
TEST_F(FeaturesCli, BadInputIsOneErrorLine) {
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {fmt::format("features '{}' --params {} --target mali-g72", kMatmul, kPoint), "error: --strategy is required"},
      {fmt::format("features '{}' -s lower-glb2 --params {} --target nope", kMatmul, kPoint),
       fmt::format("error: unknown target `nope`: the profiles in {}/rules/targets are adreno-640, adreno-650, mali-g72, "
                   "mali-g76 (or use --device for an OpenCL device)",
                   LIFTC_SOURCE_DIR)},
      {fmt::format("features '{}' -s lower-glb2 --params {} --target mali-g72 --device 0", kMatmul, kPoint),
       "error: --target and --device exclude each other: give one"},
      {fmt::format("features '{}' -s lower-glb2 --alternative 0 --params {} --target mali-g72", kMatmul, kPoint),
       "error: --alternative: expects an integer in 1..1000000, got '0'"},
      {fmt::format("features '{}' -s lower-glb2 --alternative 3 --params {} --target mali-g72", kMatmul, kPoint),
       "error: --alternative 3: strategy lower-glb2 gives 1 alternative(s)"},
      {fmt::format("features '{}' -s lower-glb2 --target mali-g72", kMatmul), "error: --params: the point '' has no value of mad"},
      {fmt::format("features '{}' -s lower-glb2 --params mad=0,unroll=0,local_0=5,local_1=4 --target mali-g72", kMatmul),
       "error: --params: mad=0,unroll=0,local_0=5,local_1=4 is not a valid point of lower-glb2 #1: it violates local_0 "
       "divides 48 (kernel matmul: the work-group size divides the global size in dimension 0)"},
  };
  for (const auto& c : cases) {
    Result r = run(c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args << "\n" << r.output;
    EXPECT_EQ(r.output, c.message + "\n") << c.args;
  }
}

TEST_F(FeaturesCli, IsListedWithItsFlags) {
  Result top = run("--help");
  EXPECT_NE(top.output.find("features "), std::string::npos) << top.output;
  Result r = run("features --help");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* flag : {"--strategy", "--alternative", "--params", "--target", "--device", "--rules", "--json",
                           "else <prefix>/share/liftc/rules of an installed liftc"})
    EXPECT_NE(r.output.find(flag), std::string::npos) << flag << "\n" << r.output;
}

TEST_F(FeaturesCli, AnUnknownStrategyPointsAtIt) {
  Result r = run(fmt::format("features '{}' -s nope --params {} --target mali-g72", kMatmul, kPoint));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(r.output, "<strategy>:1:1: error: unknown rule or strategy `nope`\n  nope\n  ^\n");
}

}  // namespace
}  // namespace liftc::explore::test
