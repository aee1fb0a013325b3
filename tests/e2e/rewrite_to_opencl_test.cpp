// The compiler end to end: each named strategy of rules/ turns a high-level example into
// parametric low-level programs; for every alternative and a few valid tuning points,
// the generated OpenCL runs on the default device and must give the interpreter's values
// of the original, high-level program. And the hand-written low-level examples.

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <regex>

#include <gtest/gtest.h>

#include "forms.hpp"
#include "harness.hpp"
#include "liftc/codegen/module.hpp"
#include "liftc/host/execute.hpp"
#include "liftc/interp/interp.hpp"
#include "liftc/interp/magnitude.hpp"
#include "liftc/ir/printer.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/runtime/validate.hpp"

namespace liftc::rewrite::test {
namespace {

const runtime::Session& session() {
  static runtime::Session s;
  return s;
}

// Every alternative (up to 16) of `strategy` applied to `original`.
ProgramRewrite rewrite_all(const std::string& strategy, const ir::Program& original) {
  RewriteOptions options;
  options.budget.max_alternatives = 16;
  return rewrite_program(library(), strategy, original, options);
}

// Generates `low` (bound and checked), runs it on random inputs, and compares every output
// with the interpreter's values of `reference` (the program it was derived from, or itself).
void run_and_compare(const ir::Program& low, const ir::Program& reference, std::uint64_t seed,
                     const codegen::Options& options = {}) {
  codegen::Module m = codegen::generate(low, options);
  interp::Tensors inputs = interp::random_inputs(reference, seed);
  interp::Tensors expected = interp::evaluate(reference, inputs);
  runtime::RunOptions ro;
  ro.warmup_runs = 0;
  ro.timed_runs = 1;
  host::Execution ex = host::execute(m, inputs, session(), ro);
  ASSERT_TRUE(ex.run.ok()) << ex.run.failure() << "\n" << m.source();
  // A program that computes through constant arrays (Winograd's transforms) rounds in sums
  // far larger than its results: each element magnitude_tolerance of its own computation's
  // magnitude more, as `liftc explore` allows (Evaluator::magnitude_allowance).
  runtime::Tolerance tolerance = runtime::Tolerance::for_reduction(1024);
  interp::Tensors allowance;
  if (interp::has_constant_arrays(low)) allowance = interp::rounding_allowance(low, inputs);
  for (const auto& [name, want] : expected) {
    ASSERT_TRUE(ex.outputs.count(name)) << "no output " << name;
    const io::Tensor& got = ex.outputs.at(name);
    EXPECT_EQ(got.shape, want.shape) << name;
    runtime::Comparison cmp = runtime::compare(got.f32, want.f32, tolerance,
                                               allowance.count(name) ? std::span<const float>(allowance.at(name).f32)
                                                                     : std::span<const float>());
    EXPECT_TRUE(cmp.ok) << name << ": " << cmp.str() << "\n" << m.source();
  }
}

class StrategyToOpenCL : public ::testing::TestWithParam<StrategyCase> {};

TEST_P(StrategyToOpenCL, GeneratedKernelsMatchTheOriginalProgram) {
  const StrategyCase& c = GetParam();
  ir::Program original = program(example(c.example));
  ProgramRewrite rw = rewrite_all(c.strategy, original);
  std::mt19937_64 rng(11);
  int runs = 0;
  for (const auto& alt : rw.programs) {
    for (const Instance& inst : instances(original, alt, 2, rng)) {
      SCOPED_TRACE(params_text(inst) + "\n" + ir::to_string(alt.program));
      run_and_compare(inst.rewritten, inst.original, rng());
      if (::testing::Test::HasFatalFailure()) return;
      ++runs;
    }
  }
  EXPECT_GE(runs, 2) << "too few valid tuning points among " << rw.programs.size() << " rewritten programs";
}

INSTANTIATE_TEST_SUITE_P(Library, StrategyToOpenCL,
                         ::testing::Values(StrategyCase{"conv-parametric", "conv/conv_small.sr"},
                                           StrategyCase{"conv-parametric", "conv/conv_k5_pad2.sr"},
                                           StrategyCase{"conv-parametric", "conv/conv_k3_stride2_pad0.sr"},
                                           StrategyCase{"conv-parametric", "conv/conv_c1_m8.sr"},
                                           StrategyCase{"conv-tiled", "conv/conv_small.sr"},
                                           StrategyCase{"conv-lower", "conv/conv_k5_stride2_pad2.sr"},
                                           StrategyCase{"conv-naive", "conv/conv_k5_stride2_pad2.sr"},
                                           StrategyCase{"conv-gpu", "conv/conv_small.sr"},
                                           StrategyCase{"conv-gpu", "conv/conv_c1_m8.sr"},
                                           StrategyCase{"conv-gpu-k0", "conv/conv_k3_stride2_pad0.sr"},
                                           StrategyCase{"conv-local", "conv/conv_small.sr"},
                                           StrategyCase{"conv-local", "conv/conv_k3_stride2_pad0.sr"},
                                           StrategyCase{"conv-local", "conv/conv_k5_pad2.sr"},
                                           StrategyCase{"conv-chw", "conv/conv_small.sr"},
                                           StrategyCase{"conv-chw", "conv/conv_k5_stride2_pad2.sr"},
                                           StrategyCase{"conv-chw-kappa", "conv/conv_small.sr"},
                                           StrategyCase{"conv-chw-kappa", "conv/conv_c1_m8.sr"},
                                           StrategyCase{"conv-chw-tile", "conv/conv_small.sr"},
                                           StrategyCase{"conv-chw-m0", "conv/conv_k3_stride2_pad0.sr"},
                                           StrategyCase{"conv-chw-tile-m0", "conv/conv_c1_m8.sr"},
                                           StrategyCase{"conv-chw-omega", "conv/conv_small.sr"},
                                           StrategyCase{"conv-chw-omega", "conv/conv_relu_swapped.sr"},
                                           StrategyCase{"conv-chw-omega-m0", "conv/conv_k3_stride2_pad0.sr"},
                                           StrategyCase{"conv-chw-omega-m0", "conv/conv_relu_swapped.sr"},
                                           StrategyCase{"conv-chw-omega-kappa", "conv/conv_small.sr"},
                                           StrategyCase{"conv-chw-omega-kappa", "conv/conv_k3_stride2_pad0.sr"},
                                           StrategyCase{"conv-chw-omega-kappa", "conv/conv_relu_swapped.sr"},
                                           StrategyCase{"conv-chw-tile-local", "conv/conv_small.sr"},
                                           StrategyCase{"conv-chw-tile-local", "conv/conv_k3_stride2_pad0.sr"},
                                           StrategyCase{"conv-chw-tile-local", "vgg16/conv_reduced.sr"},
                                           StrategyCase{"conv-chw-tile-local", "conv/conv_relu_swapped.sr"},
                                           StrategyCase{"conv-chw-tile-split", "conv/conv_small.sr"},
                                           StrategyCase{"conv-chw-tile-split", "conv/conv_k3_stride2_pad0.sr"},
                                           StrategyCase{"conv-chw-tile-split", "conv/conv_relu_swapped.sr"},
                                           StrategyCase{"conv-chw-tile-split", "vgg16/conv_reduced.sr"},
                                           StrategyCase{"conv-chw-tile-split", "conv/conv_k5_pad2.sr"},
                                           StrategyCase{"conv-chw-tile-local", "conv/conv_k5_pad2.sr"},
                                           StrategyCase{"conv-gemm", "conv/conv_small.sr"},
                                           StrategyCase{"conv-gemm", "conv/conv_k3_stride2_pad0.sr"},
                                           StrategyCase{"conv-gemm", "conv/conv_relu_swapped.sr"},
                                           StrategyCase{"conv-gemm", "conv/forms/pointwise.sr"},
                                           StrategyCase{"conv-gemm", "conv/forms/k1_stride2.sr"},
                                           StrategyCase{"conv-chw-tile", "conv/forms/pointwise.sr"},
                                           StrategyCase{"conv-chw-tile", "conv/fused/pointwise_residual.sr"},
                                           StrategyCase{"conv-chw-tile", "conv/fused/conv_residual.sr"},
                                           StrategyCase{"conv-chw-tile-split", "conv/fused/pointwise_residual.sr"},
                                           StrategyCase{"conv-chw-tile-split", "conv/fused/conv_residual.sr"},
                                           StrategyCase{"conv-chw-tile-local", "conv/fused/pointwise_residual.sr"},
                                           StrategyCase{"conv-chw-tile-local", "conv/fused/conv_residual.sr"},
                                           StrategyCase{"conv-chw-tile-m0", "conv/fused/pointwise_residual.sr"},
                                           StrategyCase{"conv-chw-tile-m0", "conv/fused/conv_residual.sr"},
                                           StrategyCase{"conv-chw-m0", "conv/fused/conv_residual.sr"},
                                           StrategyCase{"conv-gemm", "conv/fused/pointwise_residual.sr"},
                                           StrategyCase{"conv-gemm", "conv/fused/conv_residual.sr"},
                                           StrategyCase{"conv-winograd", "conv/conv_small.sr"},
                                           StrategyCase{"conv-winograd", "conv/conv_c1_m8.sr"},
                                           StrategyCase{"conv-winograd", "conv/forms/relu_max_0x.sr"},
                                           StrategyCase{"conv-winograd-gemm", "conv/conv_small.sr"},
                                           StrategyCase{"conv-winograd-gemm", "conv/conv_c1_m8.sr"},
                                           StrategyCase{"conv-winograd-gemm", "conv/forms/relu_max_0x.sr"},
                                           StrategyCase{"conv-winograd-local", "conv/conv_small.sr"},
                                           StrategyCase{"conv-winograd-local", "conv/forms/relu_max_0x.sr"},
                                           StrategyCase{"conv-winograd", "conv/fused/conv_residual.sr"},
                                           StrategyCase{"conv-winograd-gemm", "conv/fused/conv_residual.sr"},
                                           StrategyCase{"conv-winograd-local", "conv/fused/conv_residual.sr"},
                                           StrategyCase{"conv-chw-omega", "conv/fused/conv_residual.sr"},
                                           StrategyCase{"conv-chw-omega-m0", "conv/fused/conv_residual.sr"},
                                           StrategyCase{"conv-chw-omega-kappa", "conv/fused/conv_residual.sr"},
                                           StrategyCase{"conv-chw-tile-m0", "conv/forms/kernel_minor_weights.sr"},
                                           StrategyCase{"conv-depthwise-kappa", "conv/forms/depthwise.sr"},
                                           StrategyCase{"conv-depthwise-kappa", "conv/forms/depthwise_chw.sr"},
                                           StrategyCase{"conv-depthwise-kappa", "conv/forms/depthwise_chw_nested.sr"},
                                           StrategyCase{"conv-depthwise-kappa", "conv/forms/depthwise_hwc_columns.sr"},
                                           StrategyCase{"conv-depthwise-kappa", "conv/forms/depthwise_hwc_prejoined.sr"},
                                           StrategyCase{"conv-depthwise-kappa", "conv/forms/depthwise_dilated.sr"},
                                           StrategyCase{"conv-dw-pw-private", "conv/fused/depthwise_pointwise.sr"},
                                           StrategyCase{"conv-dw-pw-local", "conv/fused/depthwise_pointwise.sr"},
                                           StrategyCase{"conv-dw-pw-private", "conv/fused/depthwise_pointwise_residual.sr"},
                                           StrategyCase{"conv-dw-pw-local", "conv/fused/depthwise_pointwise_residual.sr"},
                                           StrategyCase{"conv-dw-pw-private", "conv/fused/depthwise_pointwise_chw.sr"},
                                           StrategyCase{"conv-dw-pw-local", "conv/fused/depthwise_pointwise_chw.sr"},
                                           StrategyCase{"conv-pool-tile", "conv/fused/conv_pool_unjoined.sr"},
                                           StrategyCase{"conv-pool-kappa", "conv/fused/conv_pool_unjoined.sr"},
                                           StrategyCase{"conv-pool-tile-rt", "conv/fused/conv_pool_unjoined.sr"},
                                           StrategyCase{"conv-pool-tile", "conv/fused/conv_pool_unjoined_mean.sr"},
                                           StrategyCase{"conv-pool-kappa", "conv/fused/conv_pool_unjoined_mean.sr"},
                                           StrategyCase{"conv-pool-tile-rt", "conv/fused/conv_pool_unjoined_mean.sr"},
                                           StrategyCase{"conv-pool-kappa", "conv/fused/conv_pool_unjoined_pixels.sr"},
                                           StrategyCase{"conv-pool-tile-rt", "conv/fused/conv_pool_unjoined_pixels.sr"},
                                           StrategyCase{"conv-pool-tile", "conv/fused/conv_avgpool_joined.sr"},
                                           StrategyCase{"conv-pool-kappa", "conv/fused/conv_avgpool_joined.sr"},
                                           StrategyCase{"conv-pool-tile-rt", "conv/fused/conv_avgpool_joined.sr"},
                                           StrategyCase{"conv-depthwise-kappa", "conv/forms/depthwise_zip2d.sr"},
                                           StrategyCase{"conv-depthwise-tile", "conv/forms/depthwise.sr"},
                                           StrategyCase{"conv-depthwise-tile", "conv/forms/depthwise_chw.sr"},
                                           StrategyCase{"conv-depthwise-tile", "conv/forms/depthwise_zip2d.sr"},
                                           StrategyCase{"conv-depthwise-kappa", "conv/forms/depthwise_columns_bias_start.sr"},
                                           StrategyCase{"conv-depthwise-tile", "conv/forms/depthwise_columns_bias_start.sr"},
                                           StrategyCase{"conv-depthwise-tile", "conv/forms/depthwise_dilated.sr"},
                                           StrategyCase{"conv-depthwise-local", "conv/forms/depthwise.sr"},
                                           StrategyCase{"conv-depthwise-local", "conv/forms/depthwise_chw.sr"},
                                           StrategyCase{"conv-depthwise-local", "conv/forms/depthwise_zip2d.sr"},
                                           StrategyCase{"conv-depthwise-local", "conv/forms/depthwise_dilated.sr"},
                                           StrategyCase{"conv-depthwise-local", "conv/forms/depthwise_stride2.sr"},
                                           StrategyCase{"conv-chw-kappa", "conv/forms/grouped.sr"},
                                           StrategyCase{"conv-chw-tile", "conv/forms/dilated.sr"},
                                           StrategyCase{"conv-gemm", "conv/forms/dilated.sr"},
                                           StrategyCase{"conv-chw-tile-local", "conv/forms/dilated.sr"},
                                           StrategyCase{"conv-chw-tile-split", "conv/forms/dilated.sr"},
                                           StrategyCase{"conv-chw-tile-split", "conv/forms/dilated_1x1_windows.sr"},
                                           StrategyCase{"conv-chw-tile", "conv/forms/dilated_pad_split.sr"},
                                           StrategyCase{"conv-gemm", "conv/forms/dilated_pad_split.sr"},
                                           StrategyCase{"conv-chw-tile-local", "conv/forms/dilated_pad_split.sr"},
                                           StrategyCase{"conv-chw-tile-split", "conv/forms/dilated_pad_split.sr"},
                                           StrategyCase{"conv-depthwise-tile", "conv/forms/depthwise_kernel_first.sr"},
                                           StrategyCase{"conv-depthwise-tile", "conv/forms/depthwise_chw_kernel_first.sr"},
                                           StrategyCase{"conv-depthwise-kappa", "conv/forms/depthwise_no_bias.sr"},
                                           StrategyCase{"conv-depthwise-tile", "conv/forms/depthwise_multiplier_outer.sr"},
                                           StrategyCase{"conv-chw-tile", "conv/forms/oihw_window_planes.sr"},
                                           StrategyCase{"conv-gemm", "conv/forms/oihw_window_planes.sr"},
                                           StrategyCase{"conv-chw-tile", "conv/forms/dilated_oihw_window_planes.sr"},
                                           StrategyCase{"conv-gemm", "conv/forms/dilated_oihw_window_planes.sr"},
                                           StrategyCase{"conv-chw-tile-local", "conv/forms/dilated_oihw_window_planes.sr"},
                                           StrategyCase{"conv-chw-tile", "conv/forms/batch_of_one.sr"},
                                           StrategyCase{"conv-chw-tile-local", "conv/forms/pairs_projections.sr"},
                                           StrategyCase{"net-chw-kappa", "superres/fsrcnn.sr"},
                                           StrategyCase{"net-chw-kappa", "conv/conv_relu_swapped.sr"},
                                           StrategyCase{"stencil-parametric", "stencil2d.sr"},
                                           StrategyCase{"matmul-parametric", "matmul.sr"},
                                           StrategyCase{"lower-glb2", "matmul.sr"}),
                         [](const auto& info) { return case_name(info.param); });

// Each form of a convolution (examples/conv/forms/) through every strategy of
// strategies.rules offered for it: the first and the last alternative (up to 16) that have
// a valid tuning point, at one each, generated, run on OpenCL and compared with the interpreter's
// values of the form as written. A network's other definitions (pooling, the skip add) are
// lowered by the strategies' fallback and checked too.
class FormsToOpenCL : public ::testing::TestWithParam<std::string> {};

TEST_P(FormsToOpenCL, EveryOfferedStrategyMatchesTheInterpreter) {
  const std::string text = example("conv/forms/" + GetParam());
  ir::Program original = program(text);
  std::mt19937_64 rng(3);
  std::vector<std::string> offered = offered_strategies(text);
  EXPECT_FALSE(offered.empty());
  for (const auto& strategy : offered) {
    SCOPED_TRACE(strategy);
    ProgramRewrite rw = rewrite_all(strategy, original);
    // The first alternative with a valid tuning point (some have none at these sizes:
    // asVector(2) of a 3x3 window), and the last one.
    auto run_one = [&](std::size_t a) {
      std::vector<Instance> points = instances(original, rw.programs[a], 1, rng);
      if (points.empty()) return false;
      SCOPED_TRACE(params_text(points[0]) + "\n" + ir::to_string(rw.programs[a].program));
      run_and_compare(points[0].rewritten, points[0].original, rng());
      return true;
    };
    int runs = 0;
    std::size_t first = 0;
    while (first < rw.programs.size() && !run_one(first)) ++first;
    if (::testing::Test::HasFatalFailure()) return;
    if (first < rw.programs.size()) ++runs;
    for (std::size_t last = rw.programs.size(); last-- > first + 1;)
      if (run_one(last)) {
        ++runs;
        break;
      }
    if (::testing::Test::HasFatalFailure()) return;
    EXPECT_GE(runs, 1) << "no valid tuning point";
  }
}

INSTANTIATE_TEST_SUITE_P(Forms, FormsToOpenCL, ::testing::ValuesIn(conv_forms()), [](const auto& info) {
  std::string n = info.param.substr(0, info.param.size() - 3);
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
});

// conv-gemm on 1x1 convolutions (flattened-1x1-windows): the image is the im2col matrix.
// Each weights alternative has two, the GEMM reading the image in place or im2col-kernel's
// copy: with the weights as given, alternative 3 is one kernel and no intermediate buffer,
// alternative 4 two kernels (im2col, GEMM) and the copy, for a 1x1 window form, a strided one
// and one written per pixel (pointwise-windows); K = 3 has only the copy (alternative 2).
// Each runs and matches the interpreter.
TEST(PointwiseGemm, ReadsTheImageInPlaceOrCopiesIt) {
  struct Case {
    const char* example;
    std::size_t alternatives, alternative, kernels;
    bool intermediate;
  };
  for (const Case& c : {Case{"conv/forms/k1.sr", 4, 3, 1, false}, Case{"conv/forms/k1.sr", 4, 4, 2, true},
                        Case{"conv/forms/k1_stride2.sr", 4, 3, 1, false}, Case{"conv/forms/pointwise.sr", 4, 3, 1, false},
                        Case{"conv/forms/pointwise.sr", 4, 4, 2, true}, Case{"conv/conv_small.sr", 2, 2, 2, true}}) {
    SCOPED_TRACE(std::string(c.example) + " alternative " + std::to_string(c.alternative));
    ir::Program original = program(example(c.example));
    ProgramRewrite rw = rewrite_all("conv-gemm", original);
    ASSERT_EQ(rw.programs.size(), c.alternatives);
    std::mt19937_64 rng(9);
    std::vector<Instance> points = instances(original, rw.programs[c.alternative - 1], 1, rng);
    ASSERT_FALSE(points.empty());
    codegen::Module m = codegen::generate(points[0].rewritten);
    EXPECT_EQ(m.kernels.size(), c.kernels) << m.source();
    bool intermediate = std::any_of(m.memory.buffers.begin(), m.memory.buffers.end(), [](const codegen::Buffer& b) {
      return b.space == codegen::AddressSpace::Global && b.role == codegen::BufferRole::Intermediate;
    });
    EXPECT_EQ(intermediate, c.intermediate) << m.source();
    run_and_compare(points[0].rewritten, points[0].original, rng());
  }
}

// For each register-tile strategy's four alternatives on conv_c1_m8.sr (M = 8, so kappa can
// be 8 for float8): `count` random valid points, each generated, given to `check` with its
// 0-based alternative, then run and compared with the interpreter.
void for_each_tile_point(int count, std::uint64_t seed,
                         const std::function<void(std::size_t, const Instance&, const codegen::Module&)>& check) {
  ir::Program original = program(example("conv/conv_c1_m8.sr"));
  for (const char* strategy : {"conv-chw-tile", "conv-chw-tile-m0"}) {
    SCOPED_TRACE(strategy);
    ProgramRewrite rw = rewrite_all(strategy, original);
    ASSERT_EQ(rw.programs.size(), 4u);
    std::mt19937_64 rng(seed);
    for (std::size_t a = 0; a < 4; ++a) {
      SCOPED_TRACE(a + 1);
      std::vector<Instance> points = instances(original, rw.programs[a], count, rng);
      ASSERT_FALSE(points.empty());
      for (const Instance& inst : points) {
        SCOPED_TRACE(params_text(inst));
        codegen::Module m = codegen::generate(inst.rewritten);
        check(a, inst, m);
        if (::testing::Test::HasFatalFailure()) return;
        run_and_compare(inst.rewritten, inst.original, rng());
      }
    }
  }
}

// conv-chw-tile's alternatives after the first: 2 (tile-weights-private) copies each
// reduction step's kappa kernel values into a private array before the sigma windows'
// loop, so the accumulating statement reads only private memory (the window value is
// hoisted out of the kernels' loop already); 3 and 4 (tile-kernels-vectorize) also make
// the accumulators and kernel values float4 / float8 vectors (vload, vstore). The first
// alternative reads the kernel values in that statement, inside the windows' loop. All
// run and match; the same for -m0.
TEST(RegisterTile, KernelValuesOncePerStepAndVectorAccumulators) {
  const std::regex vload(R"(vload(\d+)\([^,]*, ([A-Za-z_][A-Za-z0-9_]*))");
  for_each_tile_point(1, 5, [&](std::size_t a, const Instance&, const codegen::Module& m) {
    const std::string& src = m.kernels.back().source;  // the tile's kernel (after the pad kernel)
    // The accumulating statement: the line that updates the accumulators (`pmemacc`)
    // with a product.
    std::string statement;
    for (std::size_t at = 0, end; at < src.size(); at = end + 1) {
      end = src.find('\n', at);
      if (end == std::string::npos) end = src.size();
      std::string line = src.substr(at, end - at);
      if (line.find("pmemacc") != std::string::npos && line.find(" * ") != std::string::npos) {
        statement = line;
        break;
      }
    }
    ASSERT_FALSE(statement.empty()) << src;
    // The arrays it indexes that are not private (private arrays are `pmem...`).
    int global_reads = 0;
    for (std::size_t b = statement.find('['); b != std::string::npos; b = statement.find('[', b + 1)) {
      std::size_t name = b;
      while (name > 0 && (std::isalnum(static_cast<unsigned char>(statement[name - 1])) || statement[name - 1] == '_')) --name;
      if (statement.compare(name, 4, "pmem") != 0) ++global_reads;
    }
    // The widths of the vector loads of the kernel values' private copy, anywhere in the
    // kernel (code generation hoists them out of the windows' loop).
    std::set<std::string> widths;
    for (std::sregex_iterator it(src.begin(), src.end(), vload), e; it != e; ++it)
      if ((*it)[2].str().rfind("pmemtmp", 0) == 0) widths.insert((*it)[1]);
    if (a == 0) {
      EXPECT_GE(global_reads, 1) << statement;  // the kernel value, in the windows' loop
      EXPECT_EQ(src.find("pmemtmp"), std::string::npos) << src;
    } else if (a == 1) {
      EXPECT_EQ(global_reads, 0) << statement;  // kernel values from the private copy
      EXPECT_NE(statement.find("pmemtmp"), std::string::npos) << statement;
    } else {
      // One vector multiply-add: the accumulators and the private kernel values as vectors,
      // the window's value (at most one global read) broadcast.
      std::string v = a == 2 ? "4" : "8";
      EXPECT_LE(global_reads, 1) << statement;
      EXPECT_NE(statement.find("vstore" + v + "(vload" + v + "("), std::string::npos) << statement;
      EXPECT_EQ(widths, std::set<std::string>{v}) << src;
    }
  });
}

// A register tile's nested reduction (reduce-nest: the kernel's rows, then each row's
// columns, then the channels) accumulates in one private array of sigma*kappa floats: each
// inner reduceSeq updates its enclosing one's accumulator in place (in_place_reduce) instead
// of copying it at every level (three arrays before). The private arrays of the tile's
// kernel are that accumulator and, from alternative 2, the kappa kernel values' copy:
// exactly what the constraint stage's plan counts. Every point runs and matches.
TEST(RegisterTile, AccumulatesInPlaceInOnePrivateArray) {
  for_each_tile_point(2, 7, [](std::size_t a, const Instance& inst, const codegen::Module& m) {
    const codegen::Kernel& tile = m.kernels.back();  // after the pad (and weights') kernels
    long long sigma = inst.values.at("sigma_KW"), kappa = inst.values.at("kappa_KW");
    std::vector<std::string> accumulators;
    long long floats = 0;
    for (const auto& b : m.memory.buffers) {
      if (b.kernel != tile.name || b.role != codegen::BufferRole::Private || b.variable) continue;
      floats += codegen::evaluate(b.elements, m);
      if (b.name.rfind("pmemacc", 0) == 0) accumulators.push_back(b.name);
    }
    ASSERT_EQ(accumulators.size(), 1u) << tile.source;
    EXPECT_EQ(codegen::evaluate(m.memory.buffer(accumulators[0]).elements, m), sigma * kappa);
    EXPECT_EQ(floats, sigma * kappa + (a == 0 ? 0 : kappa)) << tile.source;
  });
}

// Every private array is declared at the kernel's start, before its first loop: NVIDIA's
// OpenCL compiler (H200, driver 580) computed wrong values for a private array declared after
// the loop that filled another (conv-dw-pw-private with a residual add: the depthwise values,
// then the pointwise sums, then the add), and right ones with the declaration first or with
// -cl-opt-disable (docs/results.md). The same shape at small sizes: a row's values in private
// memory, their products with each kernel in a second private array, then a residual add.
TEST(PrivateArrays, AreDeclaredAtTheKernelsStart) {
  ir::Program p = typecheck::typecheck(ir::bind_sizes(program(R"(size N = 8, C = 6, M = 3
input x : [[float]C]N
input w : [[float]C]M
input r : [[float]M]N
def out = mapGlb(0, (row, rr) -> let px = toPrivate(y -> mapSeq(v -> max(v, 0.0), y), row) in
                   mapSeq((s, e) -> s + e, zip(join(toPrivate(y -> mapSeq(k -> reduceSeq(0.0, (acc, p) -> acc + p.0 * p.1, zip(px, k)), y), w)), rr)),
          zip(x, r))
)"), {})).program;
  codegen::Module m = codegen::generate(p);
  ASSERT_EQ(m.kernels.size(), 1u);
  const std::string& src = m.kernels[0].source;
  auto first_statement = src.find("int g_0");
  ASSERT_NE(first_statement, std::string::npos) << src;
  int arrays = 0;
  for (auto at = src.find("float pmem"); at != std::string::npos; at = src.find("float pmem", at + 1), ++arrays)
    EXPECT_LT(at, first_statement) << src;
  EXPECT_EQ(arrays, 2) << src;
  run_and_compare(p, p, 1);
}

// conv-winograd on conv_small.sr (8x8 output, M = 4): six alternatives, F(2x2, 3x3) and
// F(4x4, 3x3), each per kernel (1, 3), with kappa kernels per work-item
// (winograd-kernel-groups: 2, 4) or with sigma tiles x kappa kernels per work-item
// (winograd-register-tile: 5, 6). The products' kernel (the last) holds per work-item the
// alpha^2 channel sums of its kernel, the kappa x alpha^2 sums of its kappa kernels and the
// kappa accumulators of one transform row (with their initial values), or the sigma x kappa
// x alpha^2 sums of its tile, the sigma x kappa accumulators of one transform row (with
// their initial values) and the kappa transformed weight values of a channel, copied once
// for the sigma tiles (tile-weights-private): what the register budget counts. Two points
// of each run and match.
TEST(WinogradPrivateSums, KernelGroupsAndRegisterTilesKeepTheirSumsInPrivateMemory) {
  struct Alternative {
    long long alpha2;
    const char* kappa;  // the kernels per work-item's parameter, or none
    const char* sigma;  // the tiles per work-item's parameter, or none
  };
  const Alternative table[] = {{16, nullptr, nullptr}, {16, "kappa_M", nullptr}, {36, nullptr, nullptr},
                               {36, "kappa_M", nullptr}, {16, "kappa_W", "sigma_W"}, {36, "kappa_W", "sigma_W"}};
  ir::Program original = program(example("conv/conv_small.sr"));
  ProgramRewrite rw = rewrite_all("conv-winograd", original);
  ASSERT_EQ(rw.programs.size(), std::size(table));
  std::mt19937_64 rng(13);
  for (std::size_t a = 0; a < std::size(table); ++a) {
    SCOPED_TRACE(a + 1);
    const Alternative& alt = table[a];
    std::vector<Instance> points = instances(original, rw.programs[a], 2, rng);
    ASSERT_FALSE(points.empty());
    for (const Instance& inst : points) {
      SCOPED_TRACE(params_text(inst));
      const std::size_t parameters = inst.values.count("kappa_M") + inst.values.count("kappa_W") + inst.values.count("sigma_W");
      EXPECT_EQ(parameters, (alt.kappa ? 1u : 0u) + (alt.sigma ? 1u : 0u));
      const long long kappa = alt.kappa ? inst.values.at(alt.kappa) : 1;
      const long long sigma = alt.sigma ? inst.values.at(alt.sigma) : 1;
      codegen::Module m = codegen::generate(inst.rewritten);
      const codegen::Kernel& products = m.kernels.back();
      long long floats = 0;
      for (const auto& b : m.memory.buffers)
        if (b.kernel == products.name && b.role == codegen::BufferRole::Private && !b.variable)
          floats += codegen::evaluate(b.elements, m);
      const long long weights = alt.sigma ? kappa : 0;
      EXPECT_EQ(floats, alt.kappa ? sigma * kappa * (alt.alpha2 + 2) + weights : alt.alpha2) << products.source;
      run_and_compare(inst.rewritten, inst.original, rng());
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// conv-winograd-gemm on conv_small.sr (8x8 output, M = 4): six alternatives, F(2x2, 3x3)
// (1-3) and F(4x4, 3x3) (4-6), the multiplication with one product per work-item (1, 4), a
// sigma x kappa register tile (matmul-register-tile: 2, 5; its strided form: 3, 6); and
// conv-winograd-local's two, F(2x2) and F(4x4) with local-memory blocks of tau x gamma sums
// in sigma x kappa register tiles (matmul-local-tiles). Four kernels: the transformed
// input, the transformed weights, the batched multiplication and the output transform. The
// main kernel (the one the mapGlb work-group size applies to) is the mapGlb kernel with the
// deepest nest of sequential loops (codegen's choose_main_kernel): the register-tiled
// multiplication (a reduction over the channels of sigma x kappa maps), not the input
// transform split off first; without a tile, or with work-groups of its own, the output
// transform (a map of reductions). A register tile keeps its sigma x kappa sums (and, tiled
// without local memory, the kappa weight values of a step) in private memory; the
// local-memory blocks are work-groups of tau/sigma x gamma/kappa work-items holding a
// chunk's chi x (tau + gamma) operands in local memory. Two points of each run and match.
TEST(WinogradGemm, TheBatchedMultiplicationIsTheMainKernelAndKeepsItsTileInPrivateMemory) {
  enum class Products { One, Tile, Local };
  struct Alternative {
    long long alpha2;
    Products products;
  };
  const Alternative table[] = {{16, Products::One}, {16, Products::Tile}, {16, Products::Tile},
                               {36, Products::One}, {36, Products::Tile}, {36, Products::Tile},
                               {16, Products::Local}, {36, Products::Local}};
  ir::Program original = program(example("conv/conv_small.sr"));
  std::vector<RewrittenProgram> alternatives = rewrite_all("conv-winograd-gemm", original).programs;
  for (auto& p : rewrite_all("conv-winograd-local", original).programs) alternatives.push_back(std::move(p));
  ASSERT_EQ(alternatives.size(), std::size(table));
  std::mt19937_64 rng(17);
  for (std::size_t a = 0; a < std::size(table); ++a) {
    SCOPED_TRACE(a + 1);
    const Alternative& alt = table[a];
    std::vector<Instance> points = instances(original, alternatives[a], 2, rng);
    ASSERT_FALSE(points.empty());
    for (const Instance& inst : points) {
      SCOPED_TRACE(params_text(inst));
      codegen::Options o;
      o.global_work_group = {1, 1, 1};
      codegen::Module m = codegen::generate(inst.rewritten, o);
      ASSERT_EQ(m.kernels.size(), 4u) << m.source();
      const codegen::Kernel& products = m.kernels[2];
      const long long sigma = alt.products == Products::One ? 0 : inst.values.at("sigma_HW");
      const long long kappa = alt.products == Products::One ? 0 : inst.values.at("kappa_HW");
      // The multiplication, or with it in work-groups (which set their own sizes), the
      // input transform: the kernels that compute are chosen by their nests of sequential
      // loops, and those of the transforms, over constant arrays, do not count.
      const std::size_t main_kernel = alt.products == Products::Local ? 0 : 2;
      for (std::size_t k = 0; k < m.kernels.size(); ++k) {
        long long local0 = codegen::evaluate(m.kernels[k].launch.local[0], m);
        if (k == 2 && alt.products == Products::Local)
          EXPECT_EQ(local0, inst.values.at("tau_HW") / sigma) << "a work-item per register tile of a block";
        else
          EXPECT_EQ(local0, k == main_kernel ? 1 : 0) << m.kernels[k].name;
      }
      EXPECT_EQ(codegen::evaluate(products.launch.global[2], m), alt.alpha2);
      // The input and output transforms compute a whole tile per work-item, from its alpha^2
      // values copied into private memory once (so they are read once, not alpha^2 times).
      for (std::size_t k : {std::size_t{0}, std::size_t{3}}) {
        long long copied = 0;
        for (const auto& b : m.memory.buffers)
          if (b.kernel == m.kernels[k].name && b.role == codegen::BufferRole::Private && !b.variable)
            copied += codegen::evaluate(b.elements, m);
        EXPECT_EQ(copied, alt.alpha2) << m.kernels[k].source;
      }
      long long floats = 0, local = 0;
      for (const auto& b : m.memory.buffers) {
        if (b.kernel != products.name) continue;
        if (b.role == codegen::BufferRole::Private && !b.variable) floats += codegen::evaluate(b.elements, m);
        if (b.role == codegen::BufferRole::Local) local += codegen::evaluate(b.elements, m);
      }
      const long long want = alt.products == Products::One ? 0 : alt.products == Products::Tile ? sigma * kappa + kappa : sigma * kappa;
      EXPECT_EQ(floats, want) << products.source;
      EXPECT_EQ(local, alt.products == Products::Local
                           ? inst.values.at("chi_HW") * (inst.values.at("tau_HW") + inst.values.at("gamma_HW"))
                           : 0)
          << products.source;
      run_and_compare(inst.rewritten, inst.original, rng());
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// conv-chw-tile-local with an activation after each sum (register-tile-acc-activation): each
// work-item applies it to its own sigma x kappa tile of the block's sums, so the work-group
// keeps tau/sigma x gamma/kappa work-items, as without an activation (a map over all the
// block's tau x gamma sums would make dimension 0 tau wide). Both run and match.
TEST(TileLocal, TheActivationKeepsOneWorkItemPerRegisterTile) {
  struct Case {
    const char* example;
    std::map<std::string, long long> params;
    std::array<std::int64_t, 3> local;
    std::size_t alternatives;  // the pad kernel or the view, times (without an activation)
                               // register-tile-acc and its strided form
  };
  for (const Case& c :
       {Case{"conv/conv_small.sr", {{"tau_H", 8}, {"gamma_H", 4}, {"chi_H", 2}, {"sigma_C", 2}, {"kappa_C", 2}, {"beta_H", 2}}, {4, 1, 2}, 4},
        Case{"conv/conv_relu_swapped.sr", {{"tau_H", 9}, {"gamma_H", 4}, {"chi_H", 2}, {"sigma_C", 3}, {"kappa_C", 2}, {"beta_H", 2}},
             {3, 1, 2}, 2}}) {
    SCOPED_TRACE(c.example);
    ir::Program original = program(example(c.example));
    ProgramRewrite rw = rewrite_program(library(), "conv-chw-tile-local", original, {});
    ASSERT_EQ(rw.programs.size(), c.alternatives);
    ir::Program p = typecheck::typecheck(ir::bind_sizes(rw.programs[0].program, c.params)).program;
    codegen::Module m = codegen::generate(p);
    const codegen::Kernel& conv = m.kernels.back();  // after the pad kernel
    ASSERT_EQ(conv.name, "conv_kernel") << m.source();
    for (int d = 0; d < 3; ++d) EXPECT_EQ(codegen::evaluate(conv.launch.local[d], m), c.local[d]) << "dimension " << d;
    run_and_compare(p, typecheck::typecheck(ir::bind_sizes(original, {})).program, 4);
  }
}

// conv-chw-tile-local (register-tile-acc, its strided form, and with an activation after each
// sum register-tile-acc-activation): each work-item keeps its sigma x kappa register tile in
// private memory from the first chunk of channels to the last (codegen: work_item_parts),
// starting from the biases and writing its tile out itself (the activation applied by the
// work-item to its own tile: own_parts_reader); local memory holds only each chunk's input
// tile and weights.
TEST(TileLocal, EachWorkItemKeepsItsRegisterTilePrivateAcrossTheChunks) {
  struct Case {
    const char* example;
    long long tau, gamma, chi, sigma, kappa, k, s;
    std::size_t alternatives;
  };
  for (const Case& c : {Case{"conv/conv_small.sr", 4, 4, 2, 2, 2, 3, 1, 4},
                        Case{"conv/conv_k3_stride2_pad0.sr", 2, 3, 2, 2, 3, 3, 2, 4},
                        Case{"conv/conv_relu_swapped.sr", 9, 4, 2, 3, 2, 3, 1, 2}}) {
    SCOPED_TRACE(c.example);
    ir::Program original = program(example(c.example));
    ProgramRewrite rw = rewrite_program(library(), "conv-chw-tile-local", original, {});
    // register-tile-acc and register-tile-acc-strided (rho = tau/sigma tile rows), or the
    // activation's rule alone; each with the (padded) CHW image made by a kernel of its own,
    // or with the HWC image read by the copies into local memory.
    ASSERT_EQ(rw.programs.size(), c.alternatives);
    for (const auto& alternative : rw.programs) {
    std::map<std::string, long long> params = {{"tau_H", c.tau}, {"gamma_H", c.gamma}, {"chi_H", c.chi},
                                               {"sigma_C", c.sigma}, {"rho_C", c.tau / c.sigma}, {"kappa_C", c.kappa},
                                               {"beta_H", 2}};
    std::erase_if(params, [&](const auto& kv) {
      return std::none_of(alternative.program.sizes.begin(), alternative.program.sizes.end(),
                          [&](const ir::SizeDecl& d) { return d.name == kv.first; });
    });
    ir::Program p = typecheck::typecheck(ir::bind_sizes(alternative.program, params)).program;
    codegen::Module m = codegen::generate(p);
    const codegen::Kernel& conv = m.kernels.back();
    ASSERT_EQ(conv.name, "conv_kernel") << m.source();
    long long local = 0, private_arrays = 0;
    for (const auto& b : m.memory.buffers) {
      if (b.kernel != conv.name) continue;
      if (b.role == codegen::BufferRole::Local) local += codegen::evaluate(b.elements, m);
      if (b.role == codegen::BufferRole::Private && !b.variable) private_arrays += codegen::evaluate(b.elements, m);
    }
    const long long tile = c.chi * c.k * ((c.tau - 1) * c.s + c.k), weights = c.gamma * c.k * c.k * c.chi;
    EXPECT_EQ(local, tile + weights) << conv.source;
    EXPECT_EQ(conv.source.find("lmemacc"), std::string::npos) << conv.source;
    // The tile kept across the chunks, which the nested reductions over the window's rows,
    // channels and columns update in place (no copy of it per step).
    EXPECT_EQ(private_arrays, c.sigma * c.kappa) << conv.source;
    run_and_compare(p, typecheck::typecheck(ir::bind_sizes(original, {})).program, 4);
    if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// A reduction at work-group level whose step is a mapLcl over zip(acc, ...): each work-item
// updates its own element of the accumulator, which therefore lives in its private memory
// (work_item_parts), whether the value is written to a destination or read by a mapLcl of
// the same dimension, element i on work-item i (own_parts_reader). Read through a reorder,
// element i is another work-item's: the accumulator is the work-group's, in local memory;
// so it is on a device whose work-groups are smaller than the mapLcl (fit_to_device: each
// work-item then runs several of its iterations). Every program runs and matches the
// interpreter.
TEST(WorkGroupAccumulators, OwnPartsArePrivateAndSharedOnesLocal) {
  struct Case {
    const char* what;
    const char* def;
    bool local;
    std::int64_t max_work_group = 0;  // 0: the device's
  };
  const char* step = "(acc, st) -> mapLcl(0, p -> p.0 + p.1 * 2.0, zip(acc, st))";
  for (const Case& c :
       {Case{"written to the output", "mapWrg(0, g -> join(reduceSeq(b, STEP, g)), x)", false},
        Case{"read by its owners", "mapWrg(0, g -> mapLcl(0, v -> v * 3.0, join(reduceSeq(b, STEP, g))), x)", false},
        Case{"read through a reorder",
             "mapWrg(0, g -> mapLcl(0, v -> v * 3.0, reorder(striddenIndex(2), join(reduceSeq(b, STEP, g)))), x)", true},
        Case{"work-groups of 4 work-items", "mapWrg(0, g -> join(reduceSeq(b, STEP, g)), x)", true, 4}}) {
    SCOPED_TRACE(c.what);
    std::string def = c.def;
    def.replace(def.find("STEP"), 4, step);
    ir::Program p = typecheck::typecheck(ir::bind_sizes(
        program("size G = 3, S = 5, T = 8\ninput x : [[[float]T]S]G\ninput b : [float]T\ndef out = " + def), {})).program;
    codegen::Options options;
    options.max_work_group_size = c.max_work_group;
    codegen::Module m = codegen::generate(p, options);
    bool local = false;
    for (const auto& buf : m.memory.buffers) local = local || buf.role == codegen::BufferRole::Local;
    EXPECT_EQ(local, c.local) << m.source();
    run_and_compare(p, p, 3, options);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Every hand-written low-level example, with its own sizes, generates, runs, and matches
// the interpreter; and the paper's Listing 4 at the shape of VGG-16's first layer.
void run_low_level(const std::string& file, const std::map<std::string, long long>& sizes) {
  ir::Program p = typecheck::typecheck(ir::bind_sizes(parse::load_program(file), sizes)).program;
  run_and_compare(p, p, 5);
}

TEST(LowLevelExamples, RunAndMatchTheInterpreter) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(LIFTC_EXAMPLES_DIR) + "/lowlevel")) {
    if (entry.path().extension() != ".sr") continue;
    SCOPED_TRACE(entry.path().string());
    run_low_level(entry.path().string(), {});
    ++count;
  }
  EXPECT_GE(count, 2);
}

TEST(LowLevelExamples, Listing4AtTheFirstVggLayer) {
  run_low_level(std::string(LIFTC_EXAMPLES_DIR) + "/lowlevel/partial_conv.sr",
                {{"C", 3}, {"H", 224}, {"W", 224}, {"M", 64}, {"T", 4}, {"R", 0}, {"KAPPA", 4}, {"OMEGA", 9}});
}

}  // namespace
}  // namespace liftc::rewrite::test
