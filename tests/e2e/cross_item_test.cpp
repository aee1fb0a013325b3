// Values that cross work-items inside one kernel (issue: a race hidden by the warm-up run).
// Code generation must give such a program a kernel boundary where the values cross, or
// refuse it naming the definition; and validation must see stale data: the first run, on
// poisoned buffers, is the one compared with the interpreter.

#include <random>
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "harness.hpp"
#include "liftc/codegen/module.hpp"
#include "liftc/host/execute.hpp"
#include "liftc/interp/interp.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/runtime/validate.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace liftc::rewrite::test {
namespace {

const runtime::Session& session() {
  static runtime::Session s;
  return s;
}

ir::Program bound(const ir::Program& p) { return typecheck::typecheck(ir::bind_sizes(p, {})).program; }

// Generates `low`, runs it once (no warm-up) and compares with the interpreter's values of
// `reference`; returns the module.
codegen::Module run_once_and_compare(const ir::Program& low, const ir::Program& reference,
                                     const codegen::Options& options = {}) {
  codegen::Module m = codegen::generate(low, options);
  interp::Tensors inputs = interp::random_inputs(reference, 3);
  interp::Tensors expected = interp::evaluate(reference, inputs);
  host::Execution ex = host::execute(m, inputs, session(), {.warmup_runs = 0, .timed_runs = 1});
  EXPECT_TRUE(ex.run.ok()) << ex.run.failure() << "\n" << m.source();
  for (const auto& [name, want] : expected) {
    runtime::Comparison c = runtime::compare(ex.outputs.at(name).f32, want.f32, runtime::Tolerance{1e-5, 1e-5});
    EXPECT_TRUE(c.ok) << name << ": " << c.str() << "\n" << m.source();
  }
  return m;
}

struct CrossCase {
  const char* what;
  const char* body;     // the definition `out` over input a : [float]N (N = 64) or b : [[float]8]8
  std::size_t kernels;  // how many kernels code generation makes of it
};

// Programs whose parallel maps hand values to other work-items, and some that do not.
const CrossCase kCases[] = {
    {"a stencil over a mapGlb's result (the issue's program)",
     "mapGlb(0, w -> reduceSeq(0.0, (acc, v) -> acc + v, w), slide(3, 1, pad(1, 1, 0.0, mapGlb(0, x -> x * 2.0, a))))", 2},
    {"a reversal of a mapGlb's result, read by a mapGlb",
     "mapGlb(0, x -> x + 1.0, reorder(striddenIndex(2), mapGlb(0, x -> x * 2.0, a)))", 2},
    {"a crop of a mapGlb's result (a layout primitive after the parallel maps)",
     "pad(-1, -1, 0.0, mapGlb(0, x -> x * 2.0, a))", 2},
    {"a sequential sum of a mapGlb's result, in a mapGlb",
     "mapGlb(0, r -> reduceSeq(0.0, (acc, v) -> acc + v, r), split(4, mapGlb(0, x -> x * 2.0, a)))", 2},
    {"two mapGlb stages of one dimension, element by element: one kernel",
     "mapGlb(0, x -> x + 1.0, mapGlb(0, x -> x * 2.0, a))", 1},
    {"a work-group's mapLcl read by the next mapLcl: a barrier, one kernel",
     "join(mapWrg(0, t -> mapLcl(0, w -> reduceSeq(0.0, (acc, v) -> acc + v, w), slide(3, 1, pad(1, 1, 0.0, "
     "mapLcl(0, x -> x * 2.0, t)))), split(16, a)))", 1},
    {"a mapGlb inside a function that uses nothing of it: computed once, by its own kernel",
     "mapGlb(0, x -> reduceSeq(x, (acc, v) -> acc + v, mapGlb(0, y -> y * 2.0, join(b))), a)", 2},
    {"two mapGlb stages in two dimensions, read by the same work-items",
     "mapGlb(1, r -> mapGlb(0, x -> x + 1.0, r), mapGlb(1, r -> mapGlb(0, x -> x * 2.0, r), b))", 2},
};

TEST(CrossItem, ValuesCrossingWorkItemsGetAKernelBoundary) {
  for (const CrossCase& c : kCases) {
    SCOPED_TRACE(c.what);
    ir::Program p = bound(program(std::string("size N = 64\ninput a : [float]N\ninput b : [[float]8]8\ndef out = ") +
                                  c.body + "\n"));
    codegen::Module m = run_once_and_compare(p, p);
    EXPECT_EQ(m.kernels.size(), c.kernels) << m.source();
    EXPECT_EQ(m.outputs, std::vector<std::string>{"out"});
  }
}

TEST(CrossItem, AMapThatUsesTheCodeAroundItIsRefusedNamingTheDefinition) {
  ir::Program p = bound(program(
      "size N = 8\ninput a : [[float]N]N\n"
      "def out = mapGlb(0, row -> mapSeq(w -> reduceSeq(0.0, (acc, v) -> acc + v, w), "
      "slide(3, 1, pad(1, 1, 0.0, mapGlb(1, x -> x * 2.0, row)))), a)\n"));
  try {
    codegen::generate(p);
    FAIL() << "a racing kernel was generated";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("definition 'out'"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("mapGlb(1)"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("data race"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("'row'"), std::string::npos) << e.message();
  }
}

// The index with which kernel `k` stores into `buffer` (the text between the brackets).
std::string store_index(const codegen::Kernel& k, const std::string& buffer) {
  std::smatch m;
  EXPECT_TRUE(std::regex_search(k.source, m, std::regex(buffer + R"(\[([^\]]*)\] =)"))) << k.source;
  return m.size() > 1 ? m[1].str() : "";
}

TEST(CrossItem, AToGlobalOfLayoutPrimitivesStoresThePartInTheOrderItsReaderReads) {
  // Each row's values (a mapSeq per work-item over the rows), summed per column by another
  // kernel. Split off as the map, the part is stored row-major, in the map's order, and the
  // columns read through the transpose; split off as toGlobal(t -> transpose(...), a), the
  // map's kernel writes through the transpose and the part is stored column-major.
  const std::string rows = "mapGlb(0, row -> mapSeq(v -> v + 1.0, row), a)";
  const std::string sums = "def out = mapGlb(0, col -> toGlobal(mapSeq(s -> s), reduceSeq(0.0, (acc, v) -> acc + v, col)), ";
  for (bool written : {false, true}) {
    SCOPED_TRACE(written ? "toGlobal" : "the map");
    std::string part = written ? "toGlobal(t -> transpose(" + std::regex_replace(rows, std::regex(", a\\)$"), ", t)") + "), a)"
                               : "transpose(" + rows + ")";
    ir::Program p = bound(program("size N = 8, M = 4\ninput a : [[float]M]N\n" + sums + part + ")\n"));
    codegen::Module m = run_once_and_compare(p, p);
    ASSERT_EQ(m.kernels.size(), 2u) << m.source();
    // The row's M values are M apart in a column-major part (stride N = 8 per value).
    std::string index = store_index(m.kernels[0], "out_part1");
    EXPECT_EQ(index.find("8*") != std::string::npos, written) << index;
  }
}

TEST(CrossItem, TheIssuesProgramRewrittenByBuiltInRulesRunsCorrectly) {
  ir::Program high = program(
      "size N = 256\ninput a : [float]N\n"
      "def out = map(w -> reduce(0.0, (acc, v) -> acc + v, w), slide(3, 1, pad(1, 1, 0.0, map(x -> x * 2.0, a))))\n");
  ProgramRewrite rw = rewrite_program(library(), "normalize(map-to-mapGlb[0] <+ reduce-to-reduceSeq)", high, {});
  ASSERT_FALSE(rw.programs.empty());
  for (const auto& alt : rw.programs) {
    codegen::Module m = run_once_and_compare(bound(alt.program), bound(high));
    EXPECT_EQ(m.kernels.size(), 2u) << m.source();
  }
}

TEST(CrossItem, TheWorkGroupSizeOfADefinitionIsNotImposedOnTheKernelsSplitOffIt) {
  // conv-chw: a pad kernel over the padded 10x10 image, then the 8x8 convolution; a
  // work-group of 4 divides the convolution's launch, not the pad kernel's.
  ir::Program high = program(example("conv/conv_small.sr"));
  ProgramRewrite rw = rewrite_program(library(), "conv-chw", high, {});
  ASSERT_EQ(rw.programs.size(), 1u);
  codegen::Options options;
  options.global_work_group = {4, 1, 1};
  ir::Program low = typecheck::typecheck(ir::bind_sizes(rw.programs[0].program, {{"beta_H", 4}})).program;
  codegen::Module m = run_once_and_compare(low, bound(high), options);
  ASSERT_EQ(m.kernels.size(), 2u);
  EXPECT_FALSE(m.kernels[0].launch.has_local()) << m.kernels[0].name;
  EXPECT_EQ(m.kernels[1].launch.local[0], arith::Expr(4)) << m.kernels[1].name;
}

TEST(CrossItem, TheWorkGroupSizeGoesToThePartialSumsNotToTheirSum) {
  // conv-chw-omega (omega = 2): a pad kernel, the partial sums over 64 pixels, 4 kernels
  // and 2 chunks (the work), then the sums over 64 pixels and 4 kernels; a work-group of
  // 8 x 2 x 2 is the partial sums' (it does not fit the sums' two dimensions).
  ir::Program high = program(example("conv/conv_small.sr"));
  ProgramRewrite rw = rewrite_program(library(), "conv-chw-omega", high, {});
  ASSERT_EQ(rw.programs.size(), 1u);
  ir::Program low = typecheck::typecheck(ir::bind_sizes(rw.programs[0].program, {{"omega_C", 2}, {"beta_H", 2}})).program;
  codegen::Options options;
  options.global_work_group = {8, 2, 2};
  codegen::Module m = run_once_and_compare(low, bound(high), options);
  ASSERT_EQ(m.kernels.size(), 3u) << m.source();
  EXPECT_FALSE(m.kernels[0].launch.has_local()) << m.kernels[0].name;
  EXPECT_EQ(m.kernels[1].launch.global[2], arith::Expr(2)) << m.kernels[1].name;
  EXPECT_EQ(m.kernels[1].launch.local[2], arith::Expr(2)) << m.kernels[1].name;
  EXPECT_FALSE(m.kernels[2].launch.has_local()) << m.kernels[2].name;
}

TEST(CrossItem, ATiledStencilWhosePaddingIsCroppedRuns) {
  // The crop after the parallel maps becomes a copy kernel of its own.
  ir::Program high = program(
      "size N = 64\ninput a : [float]N\n"
      "def out = map(w -> reduce(0.0, (acc, v) -> acc + v, w), slide(3, 1, pad(1, 1, 0.0, a)))\n");
  ProgramRewrite rw = rewrite_program(
      library(), "pad-for-tiling ; at(1.1, slide-tiling) ; at(1, split-join) ; lower-glb1", high, {});
  ASSERT_EQ(rw.programs.size(), 1u);
  std::mt19937_64 rng(5);
  std::vector<Instance> points = instances(high, rw.programs[0], 3, rng);
  ASSERT_FALSE(points.empty());
  for (const Instance& inst : points) {
    SCOPED_TRACE(params_text(inst));
    codegen::Module m = run_once_and_compare(inst.rewritten, inst.original);
    EXPECT_EQ(m.kernels.size(), 2u) << m.source();
  }
}

}  // namespace
}  // namespace liftc::rewrite::test
