// Collecting a space: constraints of every source, value sets, the dependency order, and
// the symbolic memory and launch expressions against codegen's own plan.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>

#include "helpers.hpp"
#include "liftc/codegen/limits.hpp"
#include "liftc/codegen/module.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace liftc::constraints::test {
namespace {

bool has(const Space& s, Source source, const std::string& text) {
  return std::any_of(s.constraints.begin(), s.constraints.end(),
                     [&](const Constraint& c) { return c.source == source && to_string(c) == text; });
}

std::string listing(const Space& s) {
  std::string out;
  for (const auto& c : s.constraints) out += std::string(to_string(c.source)) + ": " + to_string(c) + "\n";
  return out;
}

// One line per constraint the conv_small example's conv-tiled space must contain.
TEST(Collect, EverySourceContributes) {
  Space s = spaces(example("conv/conv_small.sr"), "conv-tiled", small_target()).at(0);
  struct Case {
    Source source;
    const char* constraint;
  };
  const std::vector<Case> cases = {
      {Source::Type, "n_KW divides 8"},                      // split(n) of the 8 windows of a row
      {Source::Type, "theta_H - 2 divides 10 - theta_H"},    // slide-tiling's slide is strict
      {Source::Type, "1 <= theta_H - 2"},                    // its step is positive
      {Source::Rule, "n_KW in 2..64"},                       // split-join(n in 2..64)
      {Source::Rule, "theta_H in 3..64"},                    // slide-tiling(theta in 3..64)
      {Source::Target, "local_0 in 1..8"},                   // per-dimension work-group limit
      {Source::Target, "local_0*local_1 <= 16"},             // work-group limit
      {Source::Codegen, "local_0 divides 8/n_KW"},           // the work-group divides the launch
      {Source::Codegen, "unroll in {0, 1}"},
      {Source::Codegen, "36*unroll <= 64"},                  // unrolling a 36-iteration reduceSeq
      {Source::Target, "576 <= 1073741824"},                 // the weights fit one buffer
  };
  for (const auto& c : cases) EXPECT_TRUE(has(s, c.source, c.constraint)) << c.constraint << "\n" << listing(s);
}

TEST(Collect, LocalMemoryIsAnExpressionOfTheParameters) {
  Space s = spaces(example("conv/conv_small.sr"), "conv-local", small_target(8, 64)).at(0);
  auto it = std::find_if(s.constraints.begin(), s.constraints.end(),
                         [](const Constraint& c) { return c.why.find("local memory") != std::string::npos; });
  ASSERT_NE(it, s.constraints.end()) << listing(s);
  EXPECT_EQ(it->source, Source::Target);
  EXPECT_EQ(it->vars, std::vector<std::string>{"theta_H"}) << to_string(*it);
}

// A size whose divisor is zero at every value of the parameters' ranges (conv-winograd-gemm
// on a 4x4 output: F(4x4) has one tile, and the dealt-out register tile's split(1 / sigma_HW)
// makes arith fold 1/sigma_HW, sigma_HW >= 2, to 0 under a division) is a space without a
// valid point that says why, not an error that loses every other alternative.
TEST(Collect, ASizeDividingByZeroEverywhereLeavesNoValidPoint) {
  ir::Program p = program_text(
      "size C = 2, H = 4, W = 4, M = 4, K = 3\n"
      "input weights : [[[[float]C]K]K]M\ninput biases : [float]M\ninput image : [[[float]C]W]H\n"
      "def conv = map2D(window -> map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, "
      "zip(join(join(window)), join(join(w)))), zip(weights, biases)), slide2D(K, K, 1, 1, pad2D(1, 1, 1, 1, 0.0, image)))");
  std::vector<Space> all = spaces(p, "conv-winograd-gemm", small_target(8, 64));
  ASSERT_EQ(all.size(), 6u);
  const Space& strided = all[5];  // F(4x4), matmul-register-tile-strided
  auto it = std::find_if(strided.constraints.begin(), strided.constraints.end(),
                         [](const Constraint& c) { return c.why.find("division by zero") != std::string::npos; });
  ASSERT_NE(it, strided.constraints.end()) << listing(strided);
  // Over the pruned domains: six work-group sizes of the transforms' kernels, 0..8 each as
  // declared, would make 9^6 times the points.
  EXPECT_TRUE(brute_force(strided, Domains::Pruned).empty());
  EXPECT_FALSE(brute_force(all[3], Domains::Pruned).empty());  // F(4x4), one product per work-item
}

// A program whose kernels allocate local memory is marked on a target that emulates local
// memory in global memory (Mali), and only there; one without local memory never is.
TEST(Collect, LocalMemoryEmulatedInGlobalMemoryIsMarked) {
  struct Case {
    const char* strategy;
    bool emulated;  // the target's local memory is global memory
    bool marked;
  };
  const Case cases[] = {
      {"conv-chw-tile-local", true, true},
      {"conv-chw-tile-local", false, false},
      {"conv-local", true, true},
      {"conv-chw-tile", true, false},
  };
  for (const Case& c : cases) {
    Target t = small_target(64, 256);
    t.local_mem_global = c.emulated;
    Space s = spaces(example("conv/conv_small.sr"), c.strategy, t).at(0);
    EXPECT_EQ(s.local_memory_emulated, c.marked) << c.strategy << (c.emulated ? " on emulated" : " on on-chip");
  }
}

// A rule parameter declared as a set keeps its values: the domain is the set, not 2..16.
TEST(Collect, ValueSetsStaySets) {
  rewrite::RuleSet rules;
  rewrite::add_rules(rules, std::make_shared<const SourceFile>(SourceFile{
                                "sets.rules", "rule tile(n in {2, 4, 8, 16}): map(f, x) => join(map(map(f), split(n, x)))"}));
  struct Case {
    const char* length;
    std::vector<std::int64_t> domain;
  };
  for (const Case& c : {Case{"64", {2, 4, 8, 16}}, Case{"24", {2, 4, 8}}, Case{"12", {2, 4}}}) {
    Space s = spaces(program_text(std::string("size N = ") + c.length + "\ninput x : [float]N\ndef y = map(a -> a, x)"),
                     "tile", small_target(), rules)
                  .at(0);
    int n = s.index("n_N");
    ASSERT_GE(n, 0);
    EXPECT_EQ(s.params[static_cast<std::size_t>(n)].declared, "{2, 4, 8, 16}");
    EXPECT_EQ(s.params[static_cast<std::size_t>(n)].domain, c.domain) << c.length;
    EXPECT_TRUE(has(s, Source::Rule, "n_N in {2, 4, 8, 16}")) << listing(s);
  }
}

// Declared ranges are never enumerated: `n divides 1024` gives 1024's divisors (a range
// of a billion values used to fill 23 GB), a range is scanned only as far as it must be.
TEST(Collect, WideRangesAreNotEnumerated) {
  struct Case {
    const char* program;
    std::vector<std::int64_t> first;  // the domain of n starts so
    std::size_t values;               // and has this many values
  };
  const std::vector<Case> cases = {
      {"size n in 1..1000000000\ninput x : [float]1024\ndef y = join(mapGlb(0, r -> mapSeq(v -> v * 2.0, r), split(n, x)))",
       {1, 2, 4, 8}, 11},
      {"size n in 1..1000000000000000\ninput x : [float]1000003\ndef y = join(map(r -> r, split(n, x)))",
       {1, 1000003}, 2},  // a prime
      {"size n in 1..100000\ninput x : [float]n\ndef y = mapGlb(0, v -> v * 2.0, x)", {1, 2, 3}, 100000},
  };
  for (const auto& c : cases) {
    auto start = std::chrono::steady_clock::now();
    Space s = spaces(program_text(c.program), "id", small_target()).at(0);
    const Param& n = s.params.at(static_cast<std::size_t>(s.index("n")));
    ASSERT_EQ(n.domain.size(), c.values) << c.program;
    EXPECT_TRUE(std::equal(c.first.begin(), c.first.end(), n.domain.begin())) << c.program;
    EXPECT_GT(Sampler(s).count(), 0u) << c.program;
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(seconds, 10.0) << c.program;
  }
}

// Sizes with remainders nested seven deep (issue 20 item 17): the space is built in well
// under a second (checking it took 134 s; its byte counts then overflowed the stack), and
// every sample type-checks.
TEST(Collect, NestedRemaindersInSizes) {
  auto start = std::chrono::steady_clock::now();
  Space s = spaces(program_text("size N in 1..1000\ninput x : [float]N\n"
                                "def y = split(N % 17 % 16 % 15 % 14 % 13 % 12 % 11, x)"),
                   "id", small_target())
                .at(0);
  Sampler sampler(s);
  ASSERT_GT(sampler.count(), 0u);
  std::mt19937_64 rng(8);
  for (int i = 0; i < 20; ++i) {
    Assignment p = sampler.sample(rng);
    EXPECT_TRUE(type_checker_accepts(s, p)) << format_assignment(s, p);
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
}

// Error category: a parameter that would need too many values is an error naming it.
TEST(Collect, TooWideParametersAreErrors) {
  struct Case {
    const char* program;
    const char* message;
  };
  const std::string n_wide = "parameter n (a size the program declares without a value) has ";
  const std::string advice = "; liftc enumerates a parameter's values and takes at most ";
  const std::vector<Case> cases = {
      {"size n in 1..1000000000\ninput x : [float]n\ndef y = map(v -> v * 2.0, x)",
       "1000000000 candidate values (1..1000000000)"},
      {"size n in 1..1000000000, m in 1..1000000000\ninput x : [[float]m]n\ndef y = map(r -> map(v -> v, r), x)",
       "1000000000 candidate values (1..1000000000)"},
      {"size n in 1..20000000\ninput x : [float]n\ndef y = map(v -> v * 2.0, x)", "20000000 candidate values (1..20000000)"},
      {"size n in 1..2000000\ninput x : [float]n\ndef y = map(v -> v * 2.0, x)",
       "more than 1048576 valid values (1..2000000)"},
  };
  for (const auto& c : cases) {
    try {
      spaces(program_text(c.program), "id", small_target());
      ADD_FAILURE() << c.program;
    } catch (const Error& e) {
      std::string limit = std::string(c.message).find("candidate") != std::string::npos ? "16777216" : "1048576";
      EXPECT_EQ(e.message(), n_wide + c.message + advice + limit + ": declare a narrower range or a value set");
    }
  }
}

// A target whose work-group limits are huge (a device reporting 10^9): each work-group
// dimension is bounded by the launch it divides, so the space is that of any large limit.
TEST(Collect, HugeWorkGroupLimitsAreBoundedByTheLaunch) {
  for (const char* strategy : {"conv-tiled", "conv-parametric", "conv-gpu"}) {
    auto huge = spaces(example("conv/conv_small.sr"), strategy, small_target(1'000'000'000, 1'000'000'000));
    auto large = spaces(example("conv/conv_small.sr"), strategy, small_target(100'000, 100'000));
    ASSERT_EQ(huge.size(), large.size());
    for (std::size_t a = 0; a < huge.size(); ++a) {
      for (std::size_t i = 0; i < huge[a].params.size(); ++i) {
        EXPECT_EQ(huge[a].params[i].domain, large[a].params[i].domain) << strategy << " " << huge[a].params[i].name;
        EXPECT_LE(huge[a].params[i].domain.size(), 4096u) << strategy << " " << huge[a].params[i].name;
      }
      EXPECT_EQ(Sampler(huge[a]).count(), Sampler(large[a]).count()) << strategy << " alternative " << a + 1;
    }
  }
}

// Every edge goes forward in the order; the expected dependencies are there. (conv-tiled's
// row tiles are joined back: the launch's rows are H, whatever theta_H, so theta_H is no
// longer an edge to local_1.)
TEST(Order, DivisorsAndBoundsComeAfterWhatTheyDepend) {
  Space s = spaces(example("conv/conv_small.sr"), "conv-tiled", small_target()).at(0);
  for (const auto& [a, b] : s.edges) EXPECT_LT(s.index(a), s.index(b)) << a << " -> " << b;
  for (const auto& edge : std::vector<std::pair<std::string, std::string>>{{"n_KW", "local_0"}, {"local_0", "local_1"}})
    EXPECT_NE(std::find(s.edges.begin(), s.edges.end(), edge), s.edges.end()) << edge.first << " -> " << edge.second;
  Space p = spaces(example("conv/conv_small.sr"), "conv-parametric", small_target()).at(1);
  EXPECT_LT(p.index("n_KW"), p.index("s_KW"));  // the stride divides the groups of windows
}

// The derived launch and local memory agree with codegen::generate at sampled points.
// The register budget (issue 18): each kernel's private arrays per work-item, from codegen's
// plan over the tuning parameters (conv-chw-tile: sigma*kappa accumulators, from alternative 2
// also the kappa kernel values' copy), within the target's private_mem_bytes. A 8x16 tile
// (144 floats: within NVIDIA's 255 registers per thread and a live device's 16 KiB) is
// excluded on mali-g72 (64 registers), and every sampled point keeps within 256 bytes.
TEST(RegisterBudget, TilesBeyondAPhonesRegistersAreExcluded) {
  Target mali = find_target("mali-g72", std::string(LIFTC_SOURCE_DIR) + "/rules/targets");
  Target live = mali;
  live.live = true;
  live.private_mem_bytes = codegen::kDefaultPrivateBytes;
  std::vector<Space> on_mali = spaces(example("vgg16/conv5.sr"), "conv-chw-tile", mali);
  std::vector<Space> on_live = spaces(example("vgg16/conv5.sr"), "conv-chw-tile", live);
  ASSERT_EQ(on_mali.size(), 4u);
  ASSERT_EQ(on_live.size(), 4u);
  std::mt19937_64 rng(18);
  for (std::size_t a = 0; a < 4; ++a) {
    SCOPED_TRACE(a + 1);
    const Space& s = on_mali[a];
    EXPECT_TRUE(has(s, Source::Target, a == 0 ? "4*kappa_KW*sigma_KW <= 256" : "4*kappa_KW*sigma_KW + 4*kappa_KW <= 256"))
        << listing(s);
    EXPECT_TRUE(has(on_live[a], Source::Target,
                    a == 0 ? "4*kappa_KW*sigma_KW <= 16384" : "4*kappa_KW*sigma_KW + 4*kappa_KW <= 16384"))
        << listing(on_live[a]);
    int sigma = s.index("sigma_KW"), kappa = s.index("kappa_KW");
    ASSERT_GE(sigma, 0);
    ASSERT_GE(kappa, 0);
    // sigma = 8, kappa = 16, every other parameter at its smallest value (local sizes 1).
    Assignment big(s.params.size());
    for (std::size_t i = 0; i < s.params.size(); ++i) big[i] = s.params[i].domain.front();
    big[static_cast<std::size_t>(sigma)] = 8;
    big[static_cast<std::size_t>(kappa)] = 16;
    std::vector<std::size_t> broken = violated(s, big);
    ASSERT_EQ(broken.size(), 1u) << format_assignment(s, big);
    EXPECT_NE(s.constraints[broken[0]].why.find("private arrays of a work-item fit the 256 bytes of mali-g72"),
              std::string::npos)
        << s.constraints[broken[0]].why;
    EXPECT_TRUE(violated(on_live[a], big).empty()) << format_assignment(on_live[a], big);
    Sampler sampler(s);
    ASSERT_GT(sampler.count(), 0);
    EXPECT_LT(sampler.count(), Sampler(on_live[a]).count());
    for (int i = 0; i < 200; ++i) {
      Assignment p = sampler.sample(rng);
      std::int64_t floats = p[static_cast<std::size_t>(sigma)] * p[static_cast<std::size_t>(kappa)] +
                            (a == 0 ? 0 : p[static_cast<std::size_t>(kappa)]);
      EXPECT_LE(4 * floats, 256) << format_assignment(s, p);
    }
  }
}

TEST(Collect, KernelExpressionsMatchTheGeneratedPlan) {
  std::mt19937_64 rng(3);
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"conv/conv_small.sr", "conv-local"}, {"conv/conv_small.sr", "conv-tiled"}, {"conv/conv_small.sr", "conv-gpu"},
      {"conv/conv_small.sr", "conv-parametric"}, {"stencil2d.sr", "stencil-parametric"},
      {"matmul.sr", "matmul-parametric"},
      // kernels split off by code generation (a pad kernel, a kernel-minor copy of the
      // weights): the sampled work-group sizes divide the main kernel's launch
      {"conv/conv_small.sr", "conv-chw-tile"}, {"conv/conv_small.sr", "conv-chw-m0"},
      // and the omega partial sums' kernel split off before the summing one
      {"conv/conv_small.sr", "conv-chw-omega"}, {"conv/conv_relu_swapped.sr", "conv-chw-omega-m0"},
      {"conv/conv_small.sr", "conv-chw-omega-kappa"},
      // the im2col matrix, a kernel of its own
      {"conv/conv_small.sr", "conv-gemm"},
      {"stencil1d.sr", "stencil1d-tiled"}};
  for (const auto& [file, strategy] : cases)
    for (const Space& s : spaces(example(file), strategy, small_target(8, 64))) {
      Sampler sampler(s);
      if (sampler.count() == 0) continue;  // e.g. float16 vectors of a 36-element window
      for (int i = 0; i < 8; ++i) {
        Assignment p = sampler.sample(rng);
        ir::Program bound = typecheck::typecheck(ir::bind_sizes(s.program, size_values(s, p))).program;
        codegen::Module m = codegen::generate(bound, codegen_options(s, p));
        // The local-memory and global-memory constraints' left sides are the plan's bytes.
        for (const auto& c : s.constraints)
          if (c.why.find("local memory") != std::string::npos || c.why.find("all global buffers") != std::string::npos) {
            bool local = c.why.find("local memory") != std::string::npos;
            Constraint probe = c;
            probe.rhs = codegen::evaluate(local ? m.memory.local_bytes() : m.memory.global_bytes(), m);
            probe.kind = Constraint::Kind::LessEqual;
            EXPECT_TRUE(holds(s, probe, p)) << file << " " << strategy << " " << format_assignment(s, p) << ": " << c.why
                                            << ": plan " << arith::to_string(probe.rhs) << ", derived "
                                            << arith::to_string(c.lhs);
            probe.lhs = probe.rhs;
            probe.rhs = c.lhs;
            EXPECT_TRUE(holds(s, probe, p)) << file << " " << strategy << " " << format_assignment(s, p) << ": " << c.why
                                            << ": plan " << arith::to_string(probe.lhs) << ", derived "
                                            << arith::to_string(c.lhs);
          }
      }
    }
}

}  // namespace
}  // namespace liftc::constraints::test
