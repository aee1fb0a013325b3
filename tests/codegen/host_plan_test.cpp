// Host plans: a module's plan survives plan.json unchanged, and a damaged plan.json is one
// error naming what is wrong (one case a row).

#include <gtest/gtest.h>

#include "liftc/codegen/host_plan.hpp"
#include "liftc/support/diagnostic.hpp"
#include "run_helpers.hpp"

namespace liftc::codegen {
namespace {

using namespace ir;

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
      {"\"type\": \"float\"", "\"type\": \"double\"", "p.json: buffer a: type 'double' is not float or int"},
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

}  // namespace
}  // namespace liftc::codegen
