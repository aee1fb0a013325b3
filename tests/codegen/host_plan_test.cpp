// Host plans: a module's plan survives plan.json unchanged, and a damaged plan.json is one
// error naming what is wrong (one case a row).

#include <gtest/gtest.h>

#include "liftc/codegen/host_plan.hpp"
#include "liftc/emit/tables.hpp"
#include "liftc/emit/template.hpp"
#include "liftc/support/diagnostic.hpp"
#include "run_helpers.hpp"

namespace liftc::codegen {
namespace {

using namespace ir;
using emit::cpp_string;
using emit::plan_tables;

// y = a + b over 32 elements, then a padded copy of y: two kernels, three roles of buffer.
Module two_kernels() {
  Expr body = make_call(Prim::MapGlb, {0}, {make_lambda({"x", "z"}, make_call(Prim::Add, {}, {make_var("x"), make_var("z")})),
                                            make_call(Prim::Zip, {}, {make_var("a"), make_var("b")})});
  Program p;
  p.inputs = {{"a", Type::array(Type::float_(), 32), {}}, {"b", Type::array(Type::float_(), 32), {}}};
  p.defs = {{"y", body, {}}, {"padded", make_call(Prim::Pad, {2, 2}, {make_float(0.0), make_var("y")}), {}}};
  Options options;
  options.global_work_group = {4, 0, 0};
  return generate(testing::checked(p), options);
}

TEST(HostPlan, RoundTripsThroughPlanJson) {
  Module m = two_kernels();
  HostPlan plan = host_plan(m);
  ASSERT_EQ(plan.stages.size(), 1u);
  EXPECT_EQ(plan.stages[0].kernels.size(), m.kernels.size());
  EXPECT_EQ(plan.stages[0].source, m.source());
  EXPECT_EQ(plan.global_bytes(), evaluate(m.memory.global_bytes(), m));
  EXPECT_EQ(plan.buffers_of(HostRole::Input).size(), 2u);
  std::string text = plan_json(plan);
  EXPECT_EQ(plan_json(read_plan_json(text, "plan.json")), text);
  // The C++ tables name every buffer and kernel of the plan.
  std::string tables = plan_tables(plan, "kPlan");
  for (const auto& b : plan.buffers) EXPECT_NE(tables.find("\"" + b.name + "\""), std::string::npos) << b.name;
  for (const auto& k : plan.stages[0].kernels) EXPECT_NE(tables.find("\"" + k.name + "\""), std::string::npos) << k.name;
}

// A host holds each buffer from the first step naming it to the last (host_support.hpp's
// run_plan): the most at once is below every buffer together when one is freed before
// another is made.
TEST(HostPlan, PeakBytesHoldsEachBufferFromTheFirstStepNamingItToTheLast) {
  // a: 32 bytes, t: 16, y: 8, s: 64 (2 bytes an element, half); steps (a, t), (t, y), (a, y, s).
  HostPlan plan;
  plan.buffers = {{"a", true, false, HostRole::Input, 8, {8}},
                  {"t", true, false, HostRole::Scratch, 4, {}},
                  {"y", true, false, HostRole::Output, 2, {2}},
                  {"s", true, true, HostRole::Output, 32, {32}}};
  HostStage stage;
  stage.kernels = {HostKernel{"k0", 1, {1, 1, 1}, {0, 0, 0}, {{0, 0}, {1, 0}}, {}},
                   HostKernel{"k1", 1, {1, 1, 1}, {0, 0, 0}, {{1, 0}, {2, 0}, {-1, 7}}, {}},
                   HostKernel{"k2", 1, {1, 1, 1}, {0, 0, 0}, {{0, 0}, {2, 0}, {3, 0}}, {}}};
  plan.stages = {stage};
  EXPECT_EQ(plan.global_bytes(), 32 + 16 + 8 + 64);
  EXPECT_EQ(plan.peak_bytes(), 32 + 8 + 64);  // at k2: a (read again), y and s; t freed after k1
  // The two-kernel module: a, b and y for the sum, then y and the padded copy (a, b freed).
  HostPlan two = host_plan(two_kernels());
  EXPECT_EQ(two.peak_bytes(), 3 * 32 * 4);
  EXPECT_LT(two.peak_bytes(), two.global_bytes());
}

TEST(HostPlan, CppStringEscapes) {
  EXPECT_EQ(cpp_string("a\"b\\c\nd?" "?=\x01"), "\"a\\\"b\\\\c\\nd\\?\\?=\\001\"");
}

// plan.json text with one buffer a, one output y and a kernel k over them; `edit` replaces
// the first occurrence of a piece of it.
std::string plan_text(const std::string& from = "", const std::string& to = "") {
  std::string text = R"({"format": "liftc-host-plan", "version": 1,
 "buffers": [{"name": "a", "type": "float", "role": "input", "elements": 8, "shape": [8]},
             {"name": "y", "type": "float", "role": "output", "elements": 8, "shape": [2, 4]}],
 "stages": [{"source": "kernel void k() {}", "build_options": "",
             "kernels": [{"name": "k", "global": [8], "local": [4], "args": [{"buffer": "a"}, {"buffer": "y"}, {"int": 3}]}]}]})";
  if (!from.empty()) {
    auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
  }
  return text;
}

TEST(HostPlan, ReadsAWellFormedPlan) {
  HostPlan plan = read_plan_json(plan_text(), "p.json");
  ASSERT_EQ(plan.buffers.size(), 2u);
  EXPECT_EQ(plan.buffers[1].shape, (std::vector<std::int64_t>{2, 4}));
  const HostKernel& k = plan.stages.at(0).kernels.at(0);
  EXPECT_EQ(k.local, (std::array<std::int64_t, 3>{4, 1, 1}));
  EXPECT_EQ(k.args.at(1).buffer, 1);
  EXPECT_EQ(k.args.at(2).value, 3);
}

TEST(HostPlan, ChainedLayersMustAgreeOnSharedBuffers) {
  HostPlan layer = read_plan_json(plan_text(), "p.json");
  HostPlan other = read_plan_json(plan_text("\"elements\": 8, \"shape\": [8]", "\"elements\": 4, \"shape\": [4]"), "q.json");
  try {
    chain_plans({layer, other});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "layer 2's buffer a (float 4) is not the earlier layers' (float 8)");
  }
  HostPlan twice = chain_plans({layer, layer});
  EXPECT_EQ(twice.stages.size(), 2u);
  EXPECT_EQ(twice.buffers.size(), 2u);  // a and y, shared
}

struct BadPlan {
  std::string from, to, message;
};

TEST(HostPlan, DamagedPlansAreOneError) {
  const BadPlan cases[] = {
      {"liftc-host-plan", "other", "p.json: not a host plan (its \"format\" is not \"liftc-host-plan\")"},
      {"\"version\": 1", "\"version\": 2", "p.json: a host plan of an unknown version (this liftc reads version 1)"},
      {"\"name\": \"a\"", "\"name\": \"a.b\"", "p.json: buffer name 'a.b' is not a C identifier"},
      {"\"name\": \"y\"", "\"name\": \"a\"", "p.json: two buffers are called a"},
      {"\"type\": \"float\"", "\"type\": \"double\"", "p.json: buffer a: type 'double' is not float, int or half"},
      {"\"role\": \"input\"", "\"role\": \"temp\"", "p.json: buffer a: role 'temp' is not input, output or scratch"},
      {"\"elements\": 8", "\"elements\": 0", "p.json: buffer a: 0 elements, not 1 to 2^31 - 1"},
      {"[2, 4]", "[3, 4]", "p.json: buffer y: shape (3, 4) does not hold its 8 elements"},
      {"\"local\": [4]", "\"local\": [3]", "p.json: kernel k: local size 3 does not divide global size 8 in dimension 0"},
      {"\"local\": [4]", "\"local\": [4, 1]", "p.json: kernel k: the local size has 2 dimensions, the global 1"},
      {"\"global\": [8]", "\"global\": [8, 1, 1, 1]", "p.json: kernel k: a global size of 4 dimensions"},
      {"{\"buffer\": \"a\"}", "{\"buffer\": \"b\"}", "p.json: kernel k: an argument names no buffer of the plan (b)"},
      {"\"name\": \"k\"", "\"name\": \"k()\"", "p.json: kernel name 'k()' is not a C identifier"},
      {"kernel void k() {}", "x )LIFTC\\\" y", "p.json: a kernel source holds the delimiter )LIFTC\""},
      {"\"build_options\": \"\"", "\"build_options\": \"-a\\n-b\"", "p.json: the build options hold a control character"},
      {"\"role\": \"output\"", "\"role\": \"scratch\"", "p.json: no output buffer"},
      {"\"buffers\"", "\"buffer_list\"", "p.json: malformed ("},
      {"{\"format\"", "[{\"format\"", "p.json: not a JSON object (a host plan, plan.json, is one)"},
  };
  for (const BadPlan& c : cases) {
    try {
      read_plan_json(plan_text(c.from, c.to), "p.json");
      ADD_FAILURE() << c.to << ": no error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.message()).substr(0, c.message.size()), c.message) << c.to;
    }
  }
}

// A launch plan with a library step (CLBlast's Sgemm of a 2x3 by 3x4 product, as a
// clblast-gemm candidate makes it): roles from the buffers, the step kept with its routine,
// sizes and parameters through plan.json and into the generated tables.
runtime::LaunchPlan gemm_launch() {
  runtime::LaunchPlan plan;
  plan.buffers = {runtime::BufferSpec::input("a", std::vector<float>(6)), runtime::BufferSpec::input("b", std::vector<float>(12)),
                  runtime::BufferSpec::output("c", 8)};
  runtime::KernelLaunch step;
  step.kernel = "clblast-gemm";
  step.library = runtime::LibraryCall{"clblast-gemm", {2, 4, 3}, {{"XgemmDirect", "WGD", 8}, {"GemmRoutine", "XGEMM_MIN_INDIRECT_SIZE", 1048576}}};
  step.args = {runtime::arg_buffer(0), runtime::arg_buffer(1), runtime::arg_buffer(2)};
  plan.kernels.push_back(step);
  return plan;
}

TEST(HostPlan, ALibraryStepRoundTripsThroughPlanJson) {
  HostPlan plan = host_plan(gemm_launch(), "", {{"a", {2, 3}}, {"b", {3, 4}}, {"c", {2, 4}}});
  ASSERT_EQ(plan.buffers.size(), 3u);
  EXPECT_EQ(plan.buffers[0].role, HostRole::Input);
  EXPECT_EQ(plan.buffers[2].role, HostRole::Output);
  EXPECT_EQ(plan.buffers[2].elements, 8);
  EXPECT_TRUE(plan.calls_library());
  std::string text = plan_json(plan);
  HostPlan back = read_plan_json(text, "plan.json");
  EXPECT_EQ(plan_json(back), text);
  ASSERT_TRUE(back.stages.at(0).kernels.at(0).library);
  EXPECT_EQ(back.stages[0].kernels[0].library->sizes, (std::vector<std::int64_t>{2, 4, 3}));
  EXPECT_NE(plan_tables(back, "kPlan").find(
                "\"clblast-gemm\", {2, 4, 3}, {{\"XgemmDirect\", \"WGD\", 8}, {\"GemmRoutine\", "
                "\"XGEMM_MIN_INDIRECT_SIZE\", 1048576}}"),
            std::string::npos)
      << plan_tables(back, "kPlan");
  EXPECT_FALSE(host_plan(two_kernels()).calls_library());
}

TEST(HostPlan, DamagedLibraryStepsAreOneError) {
  std::string good = plan_json(host_plan(gemm_launch(), "", {{"a", {2, 3}}, {"b", {3, 4}}, {"c", {2, 4}}}));
  const BadPlan cases[] = {
      {"\"routine\": \"clblast-gemm\"", "\"routine\": \"clblast-fft\"",
       "p.json: unknown library routine 'clblast-fft' (clblast-convgemm, clblast-gemm)"},
      {"\"routine\": \"clblast-gemm\"", "\"routine\": \"clblast-convgemm\"",
       "p.json: library call clblast-convgemm: 3 sizes and 3 buffers, not 13 and 3"},
      {"\"name\": \"WGD\"", "\"name\": \"W GD\"",
       "p.json: library call clblast-gemm: the parameter XgemmDirect.W GD = 8 is not a name and a whole number"},
      {"\"buffer\": \"b\"", "\"buffer\": \"z\"", "p.json: library call clblast-gemm: an argument names no buffer of the plan"},
  };
  for (const BadPlan& c : cases) {
    std::string text = good;
    auto at = text.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from << "\n" << text;
    text.replace(at, c.from.size(), c.to);
    try {
      read_plan_json(text, "p.json");
      ADD_FAILURE() << c.to << ": no error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.message()).substr(0, c.message.size()), c.message) << c.to;
    }
  }
  EXPECT_THROW(host_plan(gemm_launch(), "", {{"a", {2, 3}}}), Error);  // an input without a shape
}

}  // namespace
}  // namespace liftc::codegen
