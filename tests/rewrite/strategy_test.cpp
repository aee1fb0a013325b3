// Strategies: combinators, traversals, budgets, the trace, and the named strategies of
// rules/ on the example programs (checked against the interpreter).

#include <cstdio>
#include <cstdlib>

#include <gtest/gtest.h>

#include "harness.hpp"
#include "liftc/ir/printer.hpp"
#include "liftc/parse/parse.hpp"

namespace liftc::rewrite::test {
namespace {

const char* const kMaps = "size N\ninput x : [float]N\ndef out = map(a -> a + 1.0, map(b -> b * 2.0, map(c -> c - 3.0, x)))";

std::string rewrite_one(const std::string& text, const std::string& strategy, RewriteOptions o = {}) {
  ProgramRewrite r = rewrite_program(library(), strategy, program(text), o);
  EXPECT_EQ(r.programs.size(), 1u);
  return ir::to_string(r.programs.at(0).program.defs.back().body);
}

TEST(Strategy, NormalizeReachesAFixedPoint) {
  ProgramRewrite r = rewrite_program(library(), "normalize(map-fusion)", program(kMaps));
  EXPECT_EQ(r.stop, StopReason::FixedPoint);
  EXPECT_EQ(r.steps, 2);
  EXPECT_EQ(ir::to_string(r.programs[0].program.defs[0].body), "map(y -> (y - 3.0) * 2.0 + 1.0, x)");
}

TEST(Strategy, StepBudgetStopsWithProgress) {
  RewriteOptions o;
  o.budget.max_steps = 1;
  ProgramRewrite r = rewrite_program(library(), "normalize(map-fusion)", program(kMaps), o);
  EXPECT_EQ(r.stop, StopReason::StepLimit);
  EXPECT_EQ(r.steps, 1);
}

TEST(Strategy, NodeBudget) {
  RewriteOptions o;
  o.budget.max_nodes = 12;
  ProgramRewrite r = rewrite_program(library(), "repeat(topdown(split-join))", program(kMaps), o);
  EXPECT_EQ(r.stop, StopReason::NodeLimit);
}

TEST(Strategy, ChoicesAndTraversals) {
  EXPECT_EQ(rewrite_one(kMaps, "fail <+ topdown(map-to-mapSeq)"), "mapSeq(a -> a + 1.0, map(b -> b * 2.0, map(c -> c - 3.0, x)))");
  EXPECT_EQ(rewrite_one(kMaps, "bottomup(map-to-mapSeq)"), "map(a -> a + 1.0, map(b -> b * 2.0, mapSeq(c -> c - 3.0, x)))");
  EXPECT_EQ(rewrite_one(kMaps, "everywhere(map-to-mapSeq)"), "mapSeq(a -> a + 1.0, mapSeq(b -> b * 2.0, mapSeq(c -> c - 3.0, x)))");
  EXPECT_EQ(rewrite_one(kMaps, "at(1, map-to-mapSeq)"), "map(a -> a + 1.0, mapSeq(b -> b * 2.0, map(c -> c - 3.0, x)))");
  EXPECT_EQ(rewrite_one(kMaps, "try(transpose-transpose)"), "map(a -> a + 1.0, map(b -> b * 2.0, map(c -> c - 3.0, x)))");
  EXPECT_EQ(rewrite_one(kMaps, "topdown(map-to-mapGlb[2])"), "mapGlb(2, a -> a + 1.0, map(b -> b * 2.0, map(c -> c - 3.0, x)))");
  EXPECT_EQ(rewrite_one(kMaps, "topdown(split-join[4])"),
            "join(map(y -> map(a -> a + 1.0, y), split(4, map(b -> b * 2.0, map(c -> c - 3.0, x)))))");
}

TEST(Strategy, ExhaustiveChoiceKeepsEveryAlternative) {
  ProgramRewrite r = rewrite_program(library(), "anywhere(map-to-mapSeq) | anywhere(map-fusion)", program(kMaps));
  EXPECT_EQ(r.programs.size(), 5u);
}

TEST(Strategy, TraceLogsEachRuleAsItFires) {
  std::vector<std::string> lines;
  RewriteOptions o;
  o.trace = [&](const std::string& l) { lines.push_back(l); };
  rewrite_program(library(), "normalize(map-fusion)", program(kMaps), o);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("[out] map-fusion at root: ", 0), 0u) << lines[0];
}

TEST(Strategy, FailingEverywhereIsAnError) {
  EXPECT_THROW(rewrite_program(library(), "transpose-transpose", program(kMaps)), Error);
}

// Each named strategy of rules/ on the example it is written for, checked by interpretation.
struct NamedCase {
  const char* strategy;
  const char* example;
};

class NamedStrategy : public ::testing::TestWithParam<NamedCase> {};

TEST_P(NamedStrategy, PreservesMeaningOnItsExample) {
  const NamedCase& c = GetParam();
  ASSERT_NE(library().strategy(c.strategy), nullptr);
  Equivalence e = check_equivalence(program(example(c.example)), c.strategy, 2, 7);
  EXPECT_TRUE(e.failure.empty()) << e.failure;
  EXPECT_GE(e.instances, 1);
  if (std::getenv("LIFTC_PRINT_REWRITES")) {
    ProgramRewrite r = rewrite_program(library(), c.strategy, program(example(c.example)));
    for (const auto& t : r.programs[0].params) std::printf("// %s\n", to_string(t).c_str());
    std::printf("%s\n", ir::to_string(r.programs[0].program).c_str());
  }
}

INSTANTIATE_TEST_SUITE_P(Library, NamedStrategy,
                         ::testing::Values(NamedCase{"fuse", "stencil2d.sr"}, NamedCase{"lower-seq", "stencil2d.sr"},
                                           NamedCase{"lower-glb1", "matmul.sr"}, NamedCase{"lower-glb2", "matmul.sr"},
                                           NamedCase{"matmul-parametric", "matmul.sr"},
                                           NamedCase{"stencil-parametric", "stencil2d.sr"},
                                           NamedCase{"conv-tiled", "conv/conv_small.sr"},
                                           NamedCase{"conv-parametric", "conv/conv_small.sr"},
                                           NamedCase{"conv-parametric", "conv/conv_k5_pad2.sr"},
                                           NamedCase{"conv-parametric", "conv/conv_k3_stride2_pad0.sr"},
                                           NamedCase{"conv-parametric", "conv/conv_c1_m8.sr"},
                                           NamedCase{"conv-naive", "conv/conv_small.sr"},
                                           NamedCase{"conv-gpu", "conv/conv_small.sr"},
                                           NamedCase{"conv-gpu", "conv/conv_k5_stride2_pad2.sr"},
                                           NamedCase{"conv-gpu-k0", "conv/conv_small.sr"},
                                           NamedCase{"conv-local", "conv/conv_small.sr"},
                                           NamedCase{"conv-local", "conv/conv_k5_pad2.sr"},
                                           NamedCase{"conv-local", "conv/conv_k3_stride2_pad0.sr"},
                                           NamedCase{"conv-local", "conv/conv_c1_m8.sr"}),
                         [](const auto& info) {
                           std::string n = std::string(info.param.strategy) + "_" + info.param.example;
                           for (char& ch : n)
                             if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace liftc::rewrite::test
