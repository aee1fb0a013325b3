// The space and the generated code read one kernel plan (codegen::plan_kernels): over every
// strategy of rules/strategies.rules on small examples, at sampled points of each space,
// the plan the space was built from (symbolic in the tuning parameters) is the code
// generate() makes there — the same kernels, launches and buffers — and generate()
// refuses no point the space accepts. A program code generation refuses has no point.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include <fmt/format.h>

#include "helpers.hpp"
#include "liftc/codegen/plan.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace liftc::constraints::test {
namespace {

// Small programs between them matched by every strategy of strategies.rules.
const std::vector<const char*> kExamples = {
    "conv/conv_small.sr", "conv/conv_relu_swapped.sr", "stencil1d.sr",         "stencil2d.sr",
    "matmul.sr",          "logsumexp.sr",              "softmax/softmax.sr", "maxpool_floor.sr",
    "conv/forms/depthwise.sr", "conv/fused/depthwise_pointwise.sr", "conv/forms/conv_pool_one_definition.sr",
    "conv/forms/conv_residual_one_definition.sr", "conv/fused/conv_pool_unjoined.sr", "fully_connected.sr",
    // channel-first, each output row's one-element results joined: outputs joined per pixel
    // under the transposes back to CHW (views the plan reads)
    "conv/forms/depthwise_chw_rows_joined.sr", "conv/forms/chw_kernels_outermost_rows_joined.sr"};
constexpr int kSamplesPerAlternative = 8;
constexpr std::size_t kAlternativesPerStrategy = 6;


// The value of a symbolic size of the space's program at point `p`.
std::int64_t at(const Space& s, const Assignment& p, const arith::Expr& e) {
  std::map<std::string, std::int64_t> values;
  for (const auto& sz : s.program.sizes)
    if (sz.value) values[sz.name] = static_cast<std::int64_t>(*sz.value);
  for (const auto& [name, v] : size_values(s, p)) values[name] = v;
  auto v = arith::evaluate(e, values);
  EXPECT_TRUE(v.has_value()) << arith::to_string(e);
  return v.value_or(-1);
}

std::int64_t sum_at(const Space& s, const Assignment& p, const codegen::PlannedKernel& k, codegen::AddressSpace space) {
  std::int64_t sum = 0;
  for (const auto& b : k.buffers)
    if (b.space == space) sum += at(s, p, b.bytes);
  return sum;
}

// Generated module `m` at point `p` is the plan the space was built from, evaluated there.
void expect_module_is_plan(const Space& s, const Assignment& p, const codegen::KernelPlan& plan, const codegen::Module& m,
                           const std::string& where) {
  ASSERT_EQ(m.kernels.size(), plan.kernels.size()) << where;
  codegen::Options options = codegen_options(s, p);
  for (std::size_t i = 0; i < plan.kernels.size(); ++i) {
    const codegen::PlannedKernel& k = plan.kernels[i];
    const codegen::Kernel& g = m.kernels[i];
    std::string what = fmt::format("{}: kernel {}", where, k.name);
    EXPECT_EQ(g.name, k.name) << what;
    // The launch: the plan's thread counts, the work-group size of the point for the main
    // mapGlb kernel, the kernel's own parameters' for another computing mapGlb kernel (0:
    // the runtime's), the runtime's for copies.
    ASSERT_EQ(g.launch.dims, std::max(1, k.threads.dims)) << what;
    for (std::size_t d = 0; d < static_cast<std::size_t>(g.launch.dims); ++d) {
      EXPECT_EQ(codegen::evaluate(g.launch.global[d], m), at(s, p, k.threads.global[d])) << what << " global " << d;
      int own = s.index(fmt::format("{}_local_{}", k.buffer, d));
      std::int64_t local = k.threads.work_groups ? at(s, p, k.threads.local[d])
                           : k.tuned             ? options.global_work_group[d]
                           : own >= 0            ? p[static_cast<std::size_t>(own)]
                                                 : 0;
      EXPECT_EQ(codegen::evaluate(g.launch.local[d], m), local) << what << " local " << d;
    }
    // The buffers: the part it computes, the global and local memory it allocates.
    // And the private arrays of a work-item (the register budget's), in place where lowering
    // accumulates in place; not the variables lowering declares for computed values.
    std::int64_t global = 0, local = 0, priv = 0, result = -1;
    for (const auto& b : m.memory.buffers) {
      if (b.name == k.buffer) result = codegen::evaluate(b.bytes, m);
      if (b.kernel != g.name) continue;
      if (b.role == codegen::BufferRole::Intermediate && b.name != k.buffer) global += codegen::evaluate(b.bytes, m);
      if (b.role == codegen::BufferRole::Local) local += codegen::evaluate(b.bytes, m);
      if (b.role == codegen::BufferRole::Private && !b.variable) priv += codegen::evaluate(b.bytes, m);
    }
    EXPECT_EQ(result, at(s, p, k.bytes)) << what << " computes " << k.buffer;
    EXPECT_EQ(global, sum_at(s, p, k, codegen::AddressSpace::Global)) << what << " global memory";
    EXPECT_EQ(local, sum_at(s, p, k, codegen::AddressSpace::Local)) << what << " local memory";
    EXPECT_EQ(priv, sum_at(s, p, k, codegen::AddressSpace::Private)) << what << " private arrays";
  }
}

// The space models the plan's kernels: a launch constraint for each work-group kernel and
// for each main mapGlb kernel, named after the buffer it computes; each other computing
// mapGlb kernel has a work-group size parameter per dimension, its own, and no copy has one.
void expect_space_models_plan(const Space& s, const codegen::KernelPlan& plan, const std::string& where) {
  for (const auto& k : plan.kernels) {
    bool own = !k.threads.work_groups && !k.tuned && !k.copy && k.threads.dims >= 1;
    for (int d = 0; d < std::max(1, k.threads.dims); ++d) {
      std::string name = fmt::format("{}_local_{}", k.buffer, d);
      auto it = s.kernel_work_group_params.find(name);
      EXPECT_EQ(it != s.kernel_work_group_params.end(), own) << where << ": " << name;
      EXPECT_EQ(s.index(name) >= 0, own) << where << ": " << name;
      if (own && it != s.kernel_work_group_params.end()) {
        EXPECT_EQ(it->second, std::make_pair(k.buffer, static_cast<std::size_t>(d))) << where << ": " << name;
      }
    }
  }
  std::set<std::string> modelled;
  for (const auto& c : s.constraints) {
    if (c.why.rfind("kernel ", 0) != 0) continue;
    modelled.insert(c.why.substr(7, c.why.find(':') - 7));
  }
  std::set<std::string> planned;
  for (const auto& k : plan.kernels)
    if (k.threads.work_groups || k.tuned || !k.buffers.empty() || s.kernel_work_group_params.count(k.buffer + "_local_0"))
      planned.insert(k.buffer);
  std::set<std::string> launched;
  for (const auto& k : plan.kernels)
    if (k.threads.work_groups || k.tuned || s.kernel_work_group_params.count(k.buffer + "_local_0"))
      launched.insert(k.buffer);
  for (const auto& name : launched) EXPECT_TRUE(modelled.count(name)) << where << ": kernel " << name << " not modelled";
  for (const auto& name : modelled) EXPECT_TRUE(planned.count(name)) << where << ": kernel " << name << " not planned";
}

TEST(SpaceMatchesPlan, EveryStrategySampledPointsGenerateThePlannedKernels) {
  std::mt19937_64 rng(19);
  const Target target = small_target(8, 64);
  std::size_t points = 0;
  for (const auto& strategy : rewrite::default_strategies(library())) {
    bool applies = false;
    for (const char* file : kExamples) {
      std::vector<Space> alternatives;
      try {
        alternatives = spaces(example(file), strategy, target);
      } catch (const Error&) {
        continue;  // the strategy does not match this program
      }
      applies = true;
      for (std::size_t a = 0; a < alternatives.size() && a < kAlternativesPerStrategy; ++a) {
        const Space& s = alternatives[a];
        std::string where = fmt::format("{} {} alternative {}", file, strategy, a + 1);
        codegen::KernelPlan plan;
        try {
          plan = codegen::plan_kernels(typecheck::typecheck(s.program).program);
        } catch (const Error& e) {
          // Refused by code generation: the space has no point, and says why.
          EXPECT_EQ(Sampler(s).count(), 0) << where;
          continue;
        }
        expect_space_models_plan(s, plan, where);
        Sampler sampler(s);
        if (sampler.count() == 0) continue;  // e.g. float16 vectors of a 36-element window
        for (int i = 0; i < kSamplesPerAlternative; ++i) {
          Assignment p = sampler.sample(rng);
          std::string point = where + " " + format_assignment(s, p);
          ir::Program bound = typecheck::typecheck(ir::bind_sizes(s.program, size_values(s, p))).program;
          codegen::Module m;
          try {
            m = codegen::generate(bound, codegen_options(s, p));
          } catch (const Error& e) {
            ADD_FAILURE() << point << ": the space accepts it, generate refuses it: " << e.message();
            continue;
          }
          expect_module_is_plan(s, p, plan, m, point);
          ++points;
        }
      }
    }
    EXPECT_TRUE(applies) << strategy << " matches none of the examples: add one it matches";
  }
  EXPECT_GT(points, 500u);
}

// Winograd's input transform is a computing mapGlb kernel beside the main one (the batched
// multiplication): it takes a work-group size of its own, conv_part1_local_0 and _1, where
// 0 in both is the runtime's choice. A size in one dimension only is no point; a chosen
// size reaches the kernel's launch, and the main kernel keeps local_d.
TEST(SpaceMatchesPlan, AComputingKernelBesideTheMainOneTakesAWorkGroupSizeOfItsOwn) {
  std::vector<Space> alternatives = spaces(example("conv/conv_small.sr"), "conv-winograd-gemm", small_target(8, 64));
  ASSERT_FALSE(alternatives.empty());
  const Space& s = alternatives[0];
  int l0 = s.index("conv_part1_local_0"), l1 = s.index("conv_part1_local_1");
  ASSERT_GE(l0, 0);
  ASSERT_GE(l1, 0);
  EXPECT_EQ(s.kernel_work_group_params.at("conv_part1_local_0"), std::make_pair(std::string("conv_part1"), std::size_t{0}));
  Sampler sampler(s);
  ASSERT_GT(sampler.count(), 0);
  std::mt19937_64 rng(7);
  Assignment p = sampler.sample(rng);
  const auto& d0 = s.params[static_cast<std::size_t>(l0)].domain;
  const auto& d1 = s.params[static_cast<std::size_t>(l1)].domain;
  ASSERT_EQ(d0.front(), 0);
  ASSERT_GE(d0.size(), 2u);
  ASSERT_GE(d1.size(), 2u);
  auto launch_of_transform = [&](const Assignment& q) {
    ir::Program bound = typecheck::typecheck(ir::bind_sizes(s.program, size_values(s, q))).program;
    codegen::Module m = codegen::generate(bound, codegen_options(s, q));
    auto k = std::find_if(m.kernels.begin(), m.kernels.end(), [](const codegen::Kernel& x) { return x.name == "conv_part1_kernel"; });
    EXPECT_NE(k, m.kernels.end());
    return std::make_pair(codegen::evaluate(k->launch.local[0], m), codegen::evaluate(k->launch.local[1], m));
  };
  // The runtime's choice.
  p[static_cast<std::size_t>(l0)] = 0, p[static_cast<std::size_t>(l1)] = 0;
  EXPECT_TRUE(violated(s, p).empty()) << format_assignment(s, p);
  EXPECT_EQ(launch_of_transform(p), std::make_pair(std::int64_t{0}, std::int64_t{0}));
  EXPECT_EQ(format_assignment(s, p).find("conv_part1="), std::string::npos) << format_assignment(s, p);
  // A size in both dimensions.
  p[static_cast<std::size_t>(l0)] = d0[1], p[static_cast<std::size_t>(l1)] = d1[1];
  EXPECT_TRUE(violated(s, p).empty()) << format_assignment(s, p);
  EXPECT_EQ(launch_of_transform(p), std::make_pair(d0[1], d1[1]));
  EXPECT_NE(format_assignment(s, p).find(fmt::format("--kernel-local conv_part1={},{}", d0[1], d1[1])), std::string::npos)
      << format_assignment(s, p);
  // In one dimension only; and one that does not divide the global size.
  p[static_cast<std::size_t>(l1)] = 0;
  EXPECT_FALSE(violated(s, p).empty());
  p[static_cast<std::size_t>(l1)] = d1.back() + 1;
  EXPECT_FALSE(violated(s, p).empty());
}

// The softmax whose exponentials (a mapGlb over the row, dimension 2 after the rows and
// columns: what conv-chw's lowering did before conv-chw took convolutions only) are read by
// the sum and the division of the same work-item's row: that map uses `mx` and `row` of the
// code around it, so it cannot be a kernel of its own. Code generation refuses it, and the
// space has no point, with codegen's reason as its one false constraint.
TEST(SpaceMatchesPlan, ARefusedProgramHasNoPointAndSaysWhy) {
  std::vector<Space> s = spaces(example("softmax/softmax.sr"),
                                "topdown(map-to-mapGlb[1]) ; topdown(map-to-mapGlb[0]) ; topdown(map-to-mapGlb[2]) ; lower-seq",
                                small_target(8, 64));
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(Sampler(s[0]).count(), 0);
  auto refusal = std::find_if(s[0].constraints.begin(), s[0].constraints.end(), [](const Constraint& c) {
    return c.source == Source::Codegen && c.vars.empty() && to_string(c) == "no point satisfies it";
  });
  ASSERT_NE(refusal, s[0].constraints.end());
  EXPECT_EQ(refusal->why,
            "code generation refuses this program: definition 'y': the values that mapGlb(2) computes are read by "
            "other work-items of the same kernel, with no synchronisation between them (a data race); it uses 'mx', "
            "'row' of the code around it, so it cannot be made a kernel of its own: compute that part in a definition "
            "of its own");
  // The strategies that keep the row in one work-item are offered.
  for (const char* strategy : {"conv-lower", "stencil-parametric"})
    for (const Space& ok : spaces(example("softmax/softmax.sr"), strategy, small_target(8, 64)))
      EXPECT_GT(Sampler(ok).count(), 0) << strategy;
}

}  // namespace
}  // namespace liftc::constraints::test
