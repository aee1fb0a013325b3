// The standalone host program builds with cmake and writes what the in-process run gives.
// Labelled `host` in ctest (slow: a cmake configure and build).

#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "liftc/codegen/host.hpp"
#include "liftc/io/tensor.hpp"
#include "run_helpers.hpp"

namespace liftc::codegen {
namespace {

using namespace ir;

TEST(HostProgram, BuildsAndMatchesTheInProcessRun) {
  Expr body = make_call(Prim::MapGlb, {0}, {make_lambda({"x", "z"}, make_call(Prim::Add, {}, {make_var("x"), make_var("z")})),
                                            make_call(Prim::Zip, {}, {make_var("a"), make_var("b")})});
  Program p;
  p.inputs = {{"a", Type::array(Type::float_(), 32), {}}, {"b", Type::array(Type::float_(), 32), {}}};
  p.defs = {{"y", body, {}}, {"padded", make_call(Prim::Pad, {2, 1}, {make_float(0.0), make_var("y")}), {}}};
  Program c = testing::checked(p);
  Module m = generate(c);
  interp::Tensors inputs = interp::random_inputs(c, 3);
  Execution ex = execute(m, inputs, testing::session());

  auto dir = std::filesystem::temp_directory_path() / ("liftc_host_test_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  write_host_project(m, (dir / "src").string(), "host");
  std::filesystem::create_directories(dir / "in");
  std::filesystem::create_directories(dir / "out");
  for (const auto& [name, t] : inputs) io::write_npy((dir / "in" / (name + ".npy")).string(), t);
  std::string d = dir.string();
  std::string cmd = "cmake -S " + d + "/src -B " + d + "/build > " + d + "/log.txt 2>&1 && cmake --build " + d +
                    "/build >> " + d + "/log.txt 2>&1 && " + d + "/build/host " + d + "/in " + d + "/out >> " + d + "/log.txt 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "see " << d << "/log.txt";
  for (const auto& name : m.outputs) {
    io::Tensor got = io::read_npy((dir / "out" / (name + ".npy")).string());
    EXPECT_EQ(got.shape, ex.outputs.at(name).shape) << name;
    EXPECT_EQ(got.f32, ex.outputs.at(name).f32) << name;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace liftc::codegen
