// A deployed front built with cmake and run: one point of one stage, one of two stages
// chained over a shared buffer (a network's point: a kernel choice per layer); the demo
// chooses each by its memory budget and both compute the interpreter's values.
// Labelled `host` in ctest (a cmake configure and build).

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "liftc/emit/deploy_project.hpp"
#include "liftc/io/tensor.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/support/file.hpp"
#include "../codegen/run_helpers.hpp"

namespace liftc::emit {
namespace {

using namespace ir;
using namespace codegen;

Expr add(Expr a, Expr b) { return make_call(Prim::Add, {}, {std::move(a), std::move(b)}); }
Expr twice(Expr a) { return make_call(Prim::Mul, {}, {std::move(a), make_float(2.0)}); }
InputDecl vector32(const std::string& name) { return {name, Type::array(Type::float_(), 32), {}}; }

TEST(HostProgram, DeployedFrontChoosesOneAndTwoStagePoints) {
  // z = (a + b) * 2 in one kernel ...
  Program fused;
  fused.inputs = {vector32("a"), vector32("b")};
  fused.defs = {{"z", make_call(Prim::MapGlb, {0}, {make_lambda({"x", "y"}, twice(add(make_var("x"), make_var("y")))),
                                                    make_call(Prim::Zip, {}, {make_var("a"), make_var("b")})}), {}}};
  // ... and as two layers: y = a + b, then z = y * 2 (y is the first layer's output and the
  // second's input: one buffer, scratch in the chained plan).
  Program first;
  first.inputs = {vector32("a"), vector32("b")};
  first.defs = {{"y", make_call(Prim::MapGlb, {0}, {make_lambda({"x", "w"}, add(make_var("x"), make_var("w"))),
                                                    make_call(Prim::Zip, {}, {make_var("a"), make_var("b")})}), {}}};
  Program second;
  second.inputs = {vector32("y")};
  second.defs = {{"z", make_call(Prim::MapGlb, {0}, {make_lambda({"x"}, twice(make_var("x"))), make_var("y")}), {}}};
  Program checked = testing::checked(fused);
  HostPlan one = host_plan(generate(checked));
  HostPlan two = chain_plans({host_plan(generate(testing::checked(first))), host_plan(generate(testing::checked(second)))});
  ASSERT_EQ(two.stages.size(), 2u);
  ASSERT_EQ(two.buffers.size(), 4u);
  EXPECT_EQ(two.buffers[2].name, "y");
  EXPECT_EQ(two.buffers[2].role, HostRole::Scratch);

  std::vector<DeployPoint> points = {{"two layers", 0.5, 0.01, two.global_bytes(), two, {}},
                                     {"fused", 1.0, 0.01, one.global_bytes(), one, {}}};
  auto dir = std::filesystem::temp_directory_path() / ("liftc_deploy_test_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  for (const auto& [file, text] : deploy_project(points, "pair")) {
    std::filesystem::create_directories((dir / "src" / file).parent_path());
    write_file((dir / "src" / file).string(), text);
  }
  std::filesystem::create_directories(dir / "in");
  std::filesystem::create_directories(dir / "want");
  interp::Tensors inputs = interp::random_inputs(checked, 5);
  for (const auto& [name, t] : inputs) io::write_npy((dir / "in" / (name + ".npy")).string(), t);
  for (const auto& [name, t] : interp::evaluate(checked, inputs)) io::write_npy((dir / "want" / (name + ".npy")).string(), t);
  std::string d = dir.string();
  ASSERT_EQ(std::system(fmt::format("cmake -S {0}/src -B {0}/build > {0}/log.txt 2>&1 && cmake --build {0}/build >> "
                                    "{0}/log.txt 2>&1",
                                    d)
                            .c_str()),
            0)
      << "see " << d << "/log.txt";
  int status = std::system(fmt::format("{0}/build/demo --memory-budget {1} --memory-budget {2} --inputs {0}/in "
                                       "--expected {0}/want > {0}/run.txt 2>&1",
                                       d, one.global_bytes(), two.global_bytes())
                               .c_str());
  std::ifstream in(dir / "run.txt");
  std::string printed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << printed;
  std::size_t fused_at = printed.find("chosen: 2 (measured 1.0000 ms, 384 bytes; fused)");
  std::size_t layers_at = printed.find("chosen: 1 (measured 0.5000 ms, 512 bytes; two layers)");
  EXPECT_TRUE(fused_at != std::string::npos && layers_at != std::string::npos && fused_at < layers_at) << printed;
  std::size_t matches = 0;
  for (auto at = printed.find("z: matches the expected values (32 values)"); at != std::string::npos;
       at = printed.find("z: matches", at + 1))
    ++matches;
  EXPECT_EQ(matches, 2u) << printed;
  std::filesystem::remove_all(dir);
}

// A point's allowance (Winograd's, per output) becomes allowance/<point>/<output>.npy of the
// project; its name is a file name, so one that is not an output of its point is refused.
TEST(DeployProject, APointsAllowanceIsAFileOfItsOwnOutputsOnly) {
  Program p;
  p.inputs = {vector32("a")};
  p.defs = {{"z", make_call(Prim::MapGlb, {0}, {make_lambda({"x"}, twice(make_var("x"))), make_var("a")}), {}}};
  HostPlan plan = host_plan(generate(testing::checked(p)));
  DeployPoint point{"twice", 0.5, 0.01, plan.global_bytes(), plan, {}};
  point.allowance["z"] = "NPY bytes";
  std::vector<DeployPoint> points = {point, {"twice again", 1.0, 0.01, plan.global_bytes(), plan, {}}};
  std::vector<std::string> allowance_files;
  for (const auto& [file, text] : deploy_project(points, "one"))
    if (file.rfind("allowance/", 0) == 0) {
      allowance_files.push_back(file);
      EXPECT_EQ(text, "NPY bytes");
    }
  EXPECT_EQ(allowance_files, (std::vector<std::string>{"allowance/1/z.npy"}));
  for (const char* name : {"a", "../z", "y"}) {
    points[0].allowance = {{name, "NPY bytes"}};
    try {
      deploy_project(points, "one");
      ADD_FAILURE() << name << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()),
                fmt::format("error: front point 1 has an allowance for '{}', which is not one of its outputs", name));
    }
  }
}

}  // namespace
}  // namespace liftc::emit
