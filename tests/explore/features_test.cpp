// Features of a candidate (explore/cost/features.hpp), computed from its generated kernels
// without running it: against numbers worked out by hand, in the direction a tile parameter
// moves them, fixed names per alternative, and one error a row for what a user can get wrong.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <cstdlib>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "liftc/constraints/target.hpp"
#include "liftc/explore/candidates/constraint_space.hpp"
#include "liftc/explore/candidates/library.hpp"
#include "liftc/explore/cost/features.hpp"
#include "liftc/explore/cost/kernel_dependencies.hpp"
#include "liftc/explore/evaluation/evaluate.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/rewrite/load.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::explore::cost {
namespace {

std::string source(const std::string& path) { return std::string(LIFTC_SOURCE_DIR) + "/" + path; }

const rewrite::RuleSet& rules() {
  static const rewrite::RuleSet r = rewrite::load_rules_dir(source("rules"));
  return r;
}

// Mali-G72 MP12: 12 compute units, 32 KiB of local memory per work-group.
constraints::Target mali() { return constraints::load_target_file(source("rules/targets/mali-g72.target")); }

FeatureVector features(const std::string& program, const std::string& strategy, const std::string& point,
                       std::size_t alternative = 1) {
  FeatureRequest r;
  r.program = parse::load_program(source(program));
  r.strategy = strategy;
  r.alternative = alternative;
  r.point = point;
  r.target = mali();
  return requested_features(r, rules());
}

struct Expected {
  const char* name;
  double value;
};

void expect_features(const FeatureVector& f, const std::vector<Expected>& rows) {
  ASSERT_EQ(f.names.size(), f.values.size());
  for (const auto& row : rows) {
    std::optional<float> v = f.find(row.name);
    ASSERT_TRUE(v.has_value()) << row.name;
    EXPECT_FLOAT_EQ(*v, static_cast<float>(row.value)) << row.name;
  }
}

// examples/matmul.sr (C[64][48] = A[64][32] x B[32][48]) lowered by lower-glb2: one
// work-item per output (columns over dimension 0, rows over 1), a sequential reduction of
// K = 32 products: `acc = acc + A[i + inv] * B[col + 48*i]` after `inv = 32*row` is hoisted.
TEST(Features, NaiveMatrixMultiplyAsWorkedOutByHand) {
  FeatureVector f = features("examples/matmul.sr", "lower-glb2", "mad=0,unroll=0,local_0=8,local_1=4");
  EXPECT_EQ(f.kernels, std::vector<std::string>{"matmul_kernel"});
  EXPECT_EQ(f.alternative, "lower-glb2 #1");
  EXPECT_EQ(f.point, "mad=0,unroll=0,local_0=8,local_1=4");
  expect_features(f, {
      {"strategy.lower-glb2", 1},
      {"strategy.conv-chw", 0},
      {"alternative", 1},
      {"kernels", 1},
      {"library_calls", 0},
      {"memory_bytes", 4 * (64 * 32 + 32 * 48 + 64 * 48)},  // A, B and C
      {"k0.global_size", 48 * 64},
      {"k0.local_size", 8 * 4},
      {"k0.work_groups", 48 * 64 / 32},
      {"k0.work_groups_per_cu", 96.0 / 12},
      {"k0.global_read_bytes", 32 * (4 + 4)},  // a value of A and of B per iteration
      {"k0.global_write_bytes", 4},
      {"k0.local_read_bytes", 0},
      {"k0.local_bytes", 0},
      {"k0.private_bytes", 4},                // the accumulator
      {"k0.float_ops", 32 * 2},               // a multiply and an add per iteration
      {"k0.int_ops", 1 + 32 * (1 + 2) + 2},   // 32*row once; i + inv and col + 48*i per iteration; 48*row + col
      {"k0.trip_product", 32},
      {"k0.loop_depth", 1},
      {"k0.barriers", 0},
      {"k0.vector_width", 1},
      {"sum.global_size", 3072},
      {"sum.float_ops", 64},
      {"total.global_bytes", 3072 * (256 + 4)},
      {"total.float_ops", 3072 * 64},
      {"intensity", 64.0 / 260},
      {"local_share", 0},
      {"param.mad", 0},
      {"param.unroll", 0},
      {"param.local_0", 8},
      {"param.local_1", 4},
  });
  // The common part comes first: the strategy one-hot, the alternative, the sums.
  EXPECT_EQ(f.names[f.common], "k0.global_size");
  EXPECT_EQ(f.names.back(), "param.local_1");
}

// Unrolling the reduction leaves the same reads and operations without a loop around them.
TEST(Features, UnrollingRemovesTheLoopNotTheWork) {
  FeatureVector f = features("examples/matmul.sr", "lower-glb2", "mad=0,unroll=1,local_0=8,local_1=4");
  expect_features(f, {{"k0.trip_product", 1},
                      {"k0.loop_depth", 0},
                      {"k0.global_read_bytes", 256},
                      {"k0.float_ops", 64},
                      {"param.unroll", 1}});
}

// The work-group size moves only the NDRange features.
TEST(Features, TheWorkGroupSizeMovesWorkGroupsOnly) {
  FeatureVector f = features("examples/matmul.sr", "lower-glb2", "mad=0,unroll=0,local_0=16,local_1=8");
  expect_features(f, {{"k0.local_size", 128},
                      {"k0.work_groups", 24},
                      {"k0.work_groups_per_cu", 2},
                      {"k0.global_read_bytes", 256},
                      {"k0.float_ops", 64}});
}

// conv-chw-kappa on examples/conv/conv_small.sr (C = 4 channels, 8 x 8 pixels, M = 4 kernels
// of 3 x 3, padding 1): a kernel padding the image into CHW layout (10 x 10 x 4 work-items,
// a value each), then one work-item per pixel and group of kappa kernels. Each reads its
// 3 x 3 x 4 window once, the kappa kernels' weights and biases, and keeps kappa accumulators.
TEST(Features, KappaKernelsPerWorkItemMoveTheFeaturesAsWorkedOut) {
  for (int kappa : {2, 4}) {
    SCOPED_TRACE(kappa);
    FeatureVector f = features("examples/conv/conv_small.sr", "conv-chw-kappa",
                               fmt::format("mad=0,conv_part1_local_1=0,local_1=1,local_0=8,kappa_M={},local_2=1,beta_H=1,"
                                           "conv_part1_local_2=0,conv_part1_local_0=0",
                                           kappa));
    EXPECT_EQ(f.kernels, (std::vector<std::string>{"conv_part1_kernel", "conv_kernel"}));
    const double k = kappa, window = 3 * 3 * 4;
    expect_features(f, {
        {"k0.global_size", 10 * 10 * 4},
        {"k0.local_size", 0},  // conv_part1_local_* = 0: the runtime chooses
        {"k0.work_groups", 0},
        {"k0.global_read_bytes", 4},
        {"k0.global_write_bytes", 4},
        {"k1.global_size", 8 * 8 * (4 / k)},
        {"k1.local_size", 8},
        {"k1.work_groups", 8 * 8 * (4 / k) / 8},
        {"k1.global_read_bytes", 4 * (window + k * window + k)},  // window, weights, biases
        {"k1.global_write_bytes", 4 * k},
        {"k1.private_bytes", 4 * k},  // the accumulators
        {"k1.float_ops", k * window * 2},
        {"k1.trip_product", 3 * 3 * 4 * k},
        {"k1.loop_depth", 4},
        {"k1.vector_width", k},  // the accumulators stored by one vstore of kappa lanes
        {"sum.global_size", 400 + 8 * 8 * (4 / k)},
        {"total.float_ops", 8 * 8 * 4 * window * 2},  // the same work, whatever kappa
        {"param.kappa_M", k},
    });
  }
}

// A work-group strategy: local tiles, their bytes and barriers, and the share of the device's
// local memory (Mali-G72: 32 KiB per work-group) follow from the kernels' memory plan.
TEST(Features, LocalTilesAndBarriersOfAWorkGroupStrategy) {
  ir::Program program = parse::load_program(source("examples/conv/conv_small.sr"));
  CandidateSpace space = build_candidate_space(program, rules(), {"conv-chw-tile-local"}, true, mali());
  ASSERT_FALSE(space.alternatives.empty());
  FeatureContext ctx = feature_context(space, rules(), mali());
  std::mt19937_64 rng(3);
  Candidate c{0, space.alternatives[0]->sample(rng)};
  FeatureVector f = candidate_features(c, ctx);
  EXPECT_GT(*f.find("max.local_bytes"), 0);
  EXPECT_GT(*f.find("sum.local_read_bytes"), 0);
  EXPECT_GT(*f.find("sum.local_write_bytes"), 0);
  EXPECT_GT(*f.find("sum.barriers"), 0);
  EXPECT_FLOAT_EQ(*f.find("local_share"), *f.find("max.local_bytes") / 32768.0f);
  EXPECT_EQ(*f.find("local_emulated"), 1);  // Mali emulates local memory in global memory
}

// Which kernels each parameter reaches (kernel_dependencies.hpp), on conv-winograd-local's
// kernels (the pad, the input transform, the batched multiplication with its local tiles,
// the output transform): a transform's work-group sizes reach that kernel alone, the local
// tiles' the multiplication alone, and mad (a build option, in no kernel's text) every kernel.
TEST(Features, EachParameterReachesTheKernelsWhoseCodeItChanges) {
  ir::Program program = parse::load_program(source("examples/conv/conv_small.sr"));
  CandidateSpace space = build_candidate_space(program, rules(), {"conv-winograd-local"}, true, mali());
  ASSERT_FALSE(space.alternatives.empty());
  FeatureContext ctx = feature_context(space, rules(), mali());
  const auto& params = space.alternatives[0]->parameters();
  // At a few points: a parameter without a valid neighbouring value at one of them is given
  // every kernel there, so each parameter's narrowest reach is the one checked.
  std::mt19937_64 rng(5);
  std::size_t kernels = 0;
  std::map<std::string, std::vector<std::size_t>> narrowest;
  for (int sample = 0; sample < 6; ++sample) {
    Candidate c{0, space.alternatives[0]->sample(rng)};
    std::vector<std::vector<std::size_t>> reach = kernel_dependencies(c, ctx);
    ASSERT_EQ(reach.size(), params.size());
    kernels =
        generate_candidate(*candidate_of(*space.alternatives[0]).constraint_space(), c.point, "").module.kernels.size();
    for (std::size_t i = 0; i < params.size(); ++i) {
      ASSERT_FALSE(reach[i].empty()) << params[i].name;
      for (std::size_t k : reach[i]) EXPECT_LT(k, kernels) << params[i].name;
      auto [it, added] = narrowest.try_emplace(params[i].name, reach[i]);
      if (reach[i].size() < it->second.size()) it->second = reach[i];
    }
  }
  ASSERT_GE(kernels, 3u);
  std::vector<std::size_t> every(kernels);
  for (std::size_t k = 0; k < kernels; ++k) every[k] = k;
  EXPECT_EQ(narrowest.at("mad"), every);
  for (const char* one : {"conv_local_0", "conv_local_1", "conv_part2_local_0", "conv_part2_local_1", "tau_HW"})
    EXPECT_EQ(narrowest.at(one).size(), 1u) << one << ": " << ::testing::PrintToString(narrowest.at(one));
  EXPECT_NE(narrowest.at("conv_local_0"), narrowest.at("conv_part2_local_0"));  // the two transforms
  EXPECT_NE(narrowest.at("conv_local_0"), narrowest.at("tau_HW"));              // a transform and the multiplication
  EXPECT_NE(narrowest.at("conv_part2_local_0"), narrowest.at("tau_HW"));
}

// Every candidate of an alternative has the same names in the same order, and every
// alternative the same first `common` ones; computing them again gives the same values.
TEST(Features, NamesAreFixedPerAlternativeAndCommonOnesForAll) {
  ir::Program program = parse::load_program(source("examples/conv/conv_small.sr"));
  CandidateSpace space = build_candidate_space(
      program, rules(), {"conv-naive", "conv-chw", "conv-chw-kappa", "conv-gemm", "conv-winograd", "conv-chw-tile-local"},
      true, mali());
  FeatureContext ctx = feature_context(space, rules(), mali());
  std::mt19937_64 rng(1);
  std::vector<std::string> common;
  for (std::size_t a = 0; a < space.alternatives.size(); ++a) {
    SCOPED_TRACE(space.alternatives[a]->label());
    std::vector<std::string> names;
    for (int i = 0; i < 4; ++i) {
      Candidate c{a, space.alternatives[a]->sample(rng)};
      FeatureVector f = candidate_features(c, ctx);
      ASSERT_EQ(f.names.size(), f.values.size());
      if (names.empty()) names = f.names;
      EXPECT_EQ(f.names, names);
      std::vector<std::string> head(f.names.begin(), f.names.begin() + static_cast<std::ptrdiff_t>(f.common));
      if (common.empty()) common = head;
      EXPECT_EQ(head, common);
      EXPECT_EQ(candidate_features(c, ctx).values, f.values);
    }
  }
}

// A library candidate (CLBlast's): its steps' NDRanges, its call, CLBlast's parameters.
TEST(Features, ALibraryCandidateCountsItsCall) {
  if (!clblast_available()) GTEST_SKIP() << "liftc was built without CLBlast";
  FeatureVector f = features("examples/matmul.sr", "clblast-gemm", "MWG=16,NWG=64,KWG=16,MDIMC=8,NDIMC=8,VWM=2,VWN=4,SA=0,SB=1", 2);
  EXPECT_EQ(f.kernels, std::vector<std::string>{"clblast-gemm"});
  expect_features(f, {{"strategy.clblast-gemm", 1},
                      {"alternative", 2},
                      {"kernels", 1},
                      {"library_calls", 1},
                      {"memory_bytes", 26624},
                      {"param.MWG", 16},
                      {"param.SB", 1}});
}

// CLBlast's parameters go to its call alone: a library alternative's steps and memory are the
// same at every point, so a context keeps them from the first candidate (library_steps). Made
// again for each point, they agree.
TEST(Features, ALibraryAlternativesStepsAreTheSameAtEveryPoint) {
  if (!clblast_available()) GTEST_SKIP() << "liftc was built without CLBlast";
  ir::Program program = parse::load_program(source("examples/conv/conv_small.sr"));
  CandidateSpace space = build_candidate_space(program, rules(), {"clblast-convgemm"}, true, mali());
  ASSERT_EQ(space.alternatives.size(), 1u);
  FeatureContext kept = feature_context(space, rules(), mali());
  FeatureContext fresh = kept;
  fresh.library_steps = nullptr;
  std::mt19937_64 rng(2);
  std::vector<float> first;
  for (int i = 0; i < 4; ++i) {
    Candidate c{0, space.alternatives[0]->sample(rng)};
    FeatureVector f = candidate_features(c, fresh);
    EXPECT_EQ(candidate_features(c, kept).values, f.values);
    EXPECT_EQ(f.kernels, (std::vector<std::string>{"clblast_image_kernel", "clblast_weights_kernel", "clblast-convgemm",
                                                   "conv_kernel"}));
    std::vector<float> steps;
    for (std::size_t n = 0; n < f.names.size(); ++n)
      if (f.names[n].rfind("param.", 0) != 0) steps.push_back(f.values[n]);
    if (first.empty()) first = steps;
    EXPECT_EQ(steps, first);
  }
  Candidate invalid{0, Point(space.alternatives[0]->parameters().size(), 3)};
  try {
    candidate_features(invalid, kept);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "clblast-convgemm #1: (WGD=3,MDIMCD=3,NDIMCD=3,KWID=3,VWMD=3,VWND=3) is not a valid point");
  }
}

// How long a candidate's features take against generating it as the evaluator does (the
// difference is the walk over the kernels), over sampled candidates of a program's default
// strategies. A measurement, not a test: run it with --gtest_also_run_disabled_tests, and
// LIFTC_FEATURES_PROGRAM=examples/vgg16/conv5.sr for another program.
TEST(Features, DISABLED_TimeACandidatesFeatures) {
  const char* chosen = std::getenv("LIFTC_FEATURES_PROGRAM");
  ir::Program program = parse::load_program(source(chosen ? chosen : "examples/conv/conv_small.sr"));
  auto space_start = std::chrono::steady_clock::now();
  CandidateSpace space = build_candidate_space(program, rules(), default_strategies(rules(), program), false, mali());
  double space_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - space_start).count();
  FeatureContext ctx = feature_context(space, rules(), mali());
  std::mt19937_64 rng(1);
  std::vector<Candidate> candidates;
  for (std::size_t a = 0; a < space.alternatives.size(); ++a)
    for (int i = 0; i < 10; ++i) candidates.push_back({a, space.alternatives[a]->sample(rng)});
  // Processor time, not wall time: what a shared machine's load does not change.
  auto time = [&](const auto& f) {
    std::clock_t start = std::clock();
    for (const auto& c : candidates) f(c);
    return 1000.0 * static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC / static_cast<double>(candidates.size());
  };
  double generate_ms = time([&](const Candidate& c) {
    const Alternative& alt = *space.alternatives[c.alternative];
    if (is_constraint_alternative(alt)) generate_candidate(constraint_alternative(alt), c.point, "");
  });
  double features_ms = time([&](const Candidate& c) { candidate_features(c, ctx); });
  std::printf("%zu candidates of %zu alternatives (space built in %.1f s): features %.2f ms a candidate, of which "
              "generation %.2f ms (processor time)\n",
              candidates.size(), space.alternatives.size(), space_s, features_ms, generate_ms);
}

// What a user can get wrong, one row each: the message is the whole error.
struct BadRequest {
  const char* strategy;
  std::size_t alternative;
  const char* point;
  const char* message;
};

TEST(Features, BadRequestsAreOneClearError) {
  const BadRequest cases[] = {
      {"conv-chw", 1, "mad=0",
       "strategy `conv-chw` does not apply to any definition of " LIFTC_SOURCE_DIR
       "/examples/matmul.sr (its step `topdown(kernel-map)` applies nowhere)"},
      {"lower-glb2", 2, "mad=0", "--alternative 2: strategy lower-glb2 gives 1 alternative(s)"},
      {"lower-glb2", 1, "mad=0,unroll=0,local_0=8", "--params: the point 'mad=0,unroll=0,local_0=8' has no value of local_1"},
      {"lower-glb2", 1, "", "--params: the point '' has no value of mad"},
      {"lower-glb2", 1, "mad=0,unroll=0,local_0=8,local_1=4,foo=1",
       "--params: the point 'mad=0,unroll=0,local_0=8,local_1=4,foo=1' names parameters lower-glb2 #1 does not have"},
      {"lower-glb2", 1, "mad=0,unroll=0,local_0=x,local_1=4",
       "--params: the point 'mad=0,unroll=0,local_0=x,local_1=4' is not name=value,..."},
      {"lower-glb2", 1, "mad=0,unroll=0,local_0=5,local_1=4",
       "--params: mad=0,unroll=0,local_0=5,local_1=4 is not a valid point of lower-glb2 #1: it violates local_0 divides "
       "48 (kernel matmul: the work-group size divides the global size in dimension 0)"},
      {"lower-glb2", 1, "mad=0,unroll=0,local_0=48,local_1=16",
       "--params: mad=0,unroll=0,local_0=48,local_1=16 is not a valid point of lower-glb2 #1: it violates "
       "local_0*local_1 <= 384 (kernel matmul: at most 384 work-items per work-group on mali-g72)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.point);
    try {
      features("examples/matmul.sr", c.strategy, c.point, c.alternative);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.message(), c.message);
    }
  }
}

TEST(Features, AnAlternativeWithoutAValidPointIsNamed) {
  try {
    features("examples/conv/conv_small.sr", "conv-gpu", "mad=0", 3);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "--alternative 3: conv-gpu #3 has no valid point on mali-g72 (liftc space shows its constraints)");
  }
}

TEST(Features, AnUnknownStrategyIsTheRewritersError) {
  try {
    features("examples/matmul.sr", "nope", "mad=0");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "unknown rule or strategy `nope`");
  }
}

}  // namespace
}  // namespace liftc::explore::cost
