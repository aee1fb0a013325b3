// The standalone host program builds with cmake and writes what the in-process run gives.
// Labelled `host` in ctest (slow: a cmake configure and build).

#include <cstdlib>
#include <sys/stat.h>
#include <sys/wait.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <utility>

#include <gtest/gtest.h>

#include "liftc/emit/host_program.hpp"
#include "liftc/io/tensor.hpp"
#include "../codegen/run_helpers.hpp"

namespace liftc::emit {
namespace {

using namespace ir;
using namespace codegen;

// A program stored as halves (--storage half): the host converts its float32 .npy inputs
// to halves on upload and its outputs back to float32, as liftc's runtime does: the files
// it writes are the in-process run's, and they match the interpreter rounded at the same points.
TEST(HostProgram, HalfStorageBuildsAndMatchesTheInProcessRun) {
  Expr body = make_call(Prim::MapGlb, {0}, {make_lambda({"x", "z"}, make_call(Prim::Add, {}, {make_var("x"), make_var("z")})),
                                            make_call(Prim::Zip, {}, {make_var("a"), make_var("b")})});
  Program p;
  p.inputs = {{"a", Type::array(Type::float_(), 33), {}}, {"b", Type::array(Type::float_(), 33), {}}};
  p.defs = {{"y", body, {}}, {"padded", make_call(Prim::Pad, {2, 1}, {make_float(0.0), make_var("y")}), {}}};
  p.half = {"a", "y", "padded"};  // b stays float; odd lengths: the halves' poison fills 2-byte elements
  Program c = testing::checked(p);
  Module m = generate(c);
  interp::Tensors inputs = interp::random_inputs(c, 3);
  host::Execution ex = host::execute(m, inputs, testing::session());
  ASSERT_TRUE(ex.run.ok()) << ex.run.failure();

  auto dir = std::filesystem::temp_directory_path() / ("liftc_host_half_test_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  write_host_project(m, (dir / "src").string(), "host");
  for (const char* sub : {"in", "out", "want"}) std::filesystem::create_directories(dir / sub);
  for (const auto& [name, t] : inputs) io::write_npy((dir / "in" / (name + ".npy")).string(), t);
  interp::Tensors expected = interp::evaluate(c, inputs);
  for (const auto& [name, t] : expected) io::write_npy((dir / "want" / (name + ".npy")).string(), t);
  std::string d = dir.string();
  std::string cmd = "cmake -S " + d + "/src -B " + d + "/build > " + d + "/log.txt 2>&1 && cmake --build " + d +
                    "/build >> " + d + "/log.txt 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "see " << d << "/log.txt";
  std::string run = "timeout 60 " + d + "/build/host " + d + "/in " + d + "/out --expected " + d + "/want > " + d +
                    "/run.txt 2>&1";
  int status = std::system(run.c_str());
  std::ifstream in(d + "/run.txt");
  std::string printed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(status, 0) << printed;
  EXPECT_NE(printed.find("y: matches the expected values (33 values)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("padded: matches the expected values (36 values)"), std::string::npos) << printed;
  for (const auto& name : m.outputs) {
    io::Tensor got = io::read_npy((dir / "out" / (name + ".npy")).string());
    EXPECT_EQ(got.f32, ex.outputs.at(name).f32) << name;
    EXPECT_EQ(got.f32, expected.at(name).f32) << name << ": a sum of two halves rounded once, as the interpreter";
  }
  std::filesystem::remove_all(dir);
}

// A layer beyond the tolerance only through the network: y = a + b, then z = 1000 y. The
// expected y is the run's plus 0.0009 (within the tolerance, 0.001 + 0.001 |y|), and the
// expected z is 1000 times that: through the network z is 0.9 off, beyond its tolerance, but
// on the expected y it matches, so it passes and says so. Where z is wrong on the expected y
// too, it differs and the program exits 1.
TEST(HostProgram, ALayerRightOnTheValuesItReadsPassesWhereTheDifferenceIsCarriedFromTheLayersBefore) {
  Expr sum = make_call(Prim::MapGlb, {0},
                       {make_lambda({"x", "w"}, make_call(Prim::Add, {}, {make_var("x"), make_var("w")})),
                        make_call(Prim::Zip, {}, {make_var("a"), make_var("b")})});
  Expr scaled =
      make_call(Prim::MapGlb, {0},
                {make_lambda({"x"}, make_call(Prim::Mul, {}, {make_var("x"), make_float(1000.0)})), make_var("y")});
  Program p;
  p.inputs = {{"a", Type::array(Type::float_(), 16), {}}, {"b", Type::array(Type::float_(), 16), {}}};
  p.defs = {{"y", sum, {}}, {"z", scaled, {}}};
  Program c = testing::checked(p);
  Module m = generate(c);
  interp::Tensors inputs = interp::random_inputs(c, 3);
  for (std::size_t i = 0; i < 16; ++i) inputs.at("a").f32[i] = 0.0001f * float(i), inputs.at("b").f32[i] = 0.0f;
  interp::Tensors expected = interp::evaluate(c, inputs);
  for (float& v : expected.at("y").f32) v += 0.0009f;
  for (std::size_t i = 0; i < 16; ++i) expected.at("z").f32[i] = 1000.0f * expected.at("y").f32[i];

  auto dir = std::filesystem::temp_directory_path() / ("liftc_host_carried_test_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  write_host_project(m, (dir / "src").string(), "host");
  for (const char* sub : {"in", "out", "want", "wrong"}) std::filesystem::create_directories(dir / sub);
  for (const auto& [name, t] : inputs) io::write_npy((dir / "in" / (name + ".npy")).string(), t);
  for (const auto& [name, t] : expected) io::write_npy((dir / "want" / (name + ".npy")).string(), t);
  io::Tensor wrong_z = expected.at("z");
  wrong_z.f32[5] += 1.0f;
  io::write_npy((dir / "wrong" / "y.npy").string(), expected.at("y"));
  io::write_npy((dir / "wrong" / "z.npy").string(), wrong_z);
  std::string d = dir.string();
  std::string cmd = "cmake -S " + d + "/src -B " + d + "/build > " + d + "/log.txt 2>&1 && cmake --build " + d +
                    "/build >> " + d + "/log.txt 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "see " << d << "/log.txt";
  auto host = [&](const std::string& want) {
    std::string run = "timeout 60 " + d + "/build/host " + d + "/in " + d + "/out --expected " + d + "/" + want +
                      " > " + d + "/run.txt 2>&1";
    int status = std::system(run.c_str());
    std::ifstream in(d + "/run.txt");
    return std::pair<int, std::string>{
        status, std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>())};
  };
  auto [status, printed] = host("want");
  EXPECT_EQ(status, 0) << printed;
  EXPECT_NE(printed.find("y: matches the expected values (16 values)\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find("z: matches the expected values (16 values) on the expected values of the layers it reads; "
                         "through the network 16 of them are beyond the tolerance, the first at [0]"),
            std::string::npos)
      << printed;
  EXPECT_EQ(printed.find("DIFFERS"), std::string::npos) << printed;
  auto [wrong_status, wrong_printed] = host("wrong");
  EXPECT_NE(wrong_status, 0) << wrong_printed;
  EXPECT_NE(wrong_printed.find("z: DIFFERS: 16 of 16 values differ, the first at [0]"), std::string::npos)
      << wrong_printed;
  std::filesystem::remove_all(dir);
}

TEST(HostProgram, BuildsAndMatchesTheInProcessRun) {
  Expr body = make_call(Prim::MapGlb, {0}, {make_lambda({"x", "z"}, make_call(Prim::Add, {}, {make_var("x"), make_var("z")})),
                                            make_call(Prim::Zip, {}, {make_var("a"), make_var("b")})});
  Program p;
  p.inputs = {{"a", Type::array(Type::float_(), 32), {}}, {"b", Type::array(Type::float_(), 32), {}}};
  p.defs = {{"y", body, {}}, {"padded", make_call(Prim::Pad, {2, 1}, {make_float(0.0), make_var("y")}), {}}};
  Program c = testing::checked(p);
  Module m = generate(c);
  interp::Tensors inputs = interp::random_inputs(c, 3);
  host::Execution ex = host::execute(m, inputs, testing::session());

  auto dir = std::filesystem::temp_directory_path() / ("liftc_host_test_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  write_host_project(m, (dir / "src").string(), "host");
  std::filesystem::create_directories(dir / "in");
  std::filesystem::create_directories(dir / "out");
  for (const auto& [name, t] : inputs) io::write_npy((dir / "in" / (name + ".npy")).string(), t);
  std::string d = dir.string();
  std::string cmd = "cmake -S " + d + "/src -B " + d + "/build > " + d + "/log.txt 2>&1 && cmake --build " + d +
                    "/build >> " + d + "/log.txt 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "see " << d << "/log.txt";
  // Runs the host program with `args`; returns its exit status and what it printed.
  auto host = [&](const std::string& args) {
    std::string run = "timeout 60 " + d + "/build/host " + args + " > " + d + "/run.txt 2>&1";
    int status = std::system(run.c_str());
    std::ifstream in(d + "/run.txt");
    std::string printed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return std::pair<int, std::string>{status, printed};
  };
  for (const char* folder : {"want", "wrong", "allowed", "allowed_elsewhere"})
    std::filesystem::create_directories(dir / folder);
  interp::Tensors expected = interp::evaluate(c, inputs);
  for (const auto& [name, t] : expected) {
    io::write_npy((dir / "want" / (name + ".npy")).string(), t);
    io::Tensor off = t;
    off.f32[3] += 1.0f;
    io::write_npy((dir / "wrong" / (name + ".npy")).string(), off);
    // An allowance (front/<rank>/allowance/ of a point through Winograd's arrays) of 1.5 at
    // the element that is off, and one of 1.5 everywhere but there.
    io::Tensor allowed = t;
    std::fill(allowed.f32.begin(), allowed.f32.end(), 0.0f);
    allowed.f32[3] = 1.5f;
    io::write_npy((dir / "allowed" / (name + ".npy")).string(), allowed);
    std::fill(allowed.f32.begin(), allowed.f32.end(), 1.5f);
    allowed.f32[3] = 0.0f;
    io::write_npy((dir / "allowed_elsewhere" / (name + ".npy")).string(), allowed);
  }

  auto [status, printed] = host(d + "/in " + d + "/out --expected " + d + "/want");
  ASSERT_EQ(status, 0) << printed;
  EXPECT_NE(printed.find("y: matches the expected values (32 values)"), std::string::npos) << printed;
  for (const auto& name : m.outputs) {
    io::Tensor got = io::read_npy((dir / "out" / (name + ".npy")).string());
    EXPECT_EQ(got.shape, ex.outputs.at(name).shape) << name;
    EXPECT_EQ(got.f32, ex.outputs.at(name).f32) << name;
  }

  // --allowance widens the comparison per element: the element that is off passes with its own
  // allowance, not with one of the others'.
  auto [allowed_status, allowed_printed] =
      host(d + "/in " + d + "/out --expected " + d + "/wrong --allowance " + d + "/allowed");
  EXPECT_EQ(allowed_status, 0) << allowed_printed;
  EXPECT_NE(allowed_printed.find("y: matches the expected values (32 values)"), std::string::npos) << allowed_printed;
  auto [elsewhere_status, elsewhere_printed] =
      host(d + "/in " + d + "/out --expected " + d + "/wrong --allowance " + d + "/allowed_elsewhere");
  EXPECT_NE(elsewhere_status, 0) << elsewhere_printed;
  EXPECT_NE(elsewhere_printed.find("y: DIFFERS: 1 of 32 values differ, the first at [3]"), std::string::npos)
      << elsewhere_printed;

  // Errors: each a message and exit status 1 (the user's mistakes are found before the run).
  struct Bad {
    std::string args, message;
  };
  io::Tensor short_a = inputs.at("a");
  short_a.shape = {4, 8};
  std::filesystem::create_directories(dir / "badshape");
  io::write_npy((dir / "badshape" / "a.npy").string(), short_a);
  io::write_npy((dir / "badshape" / "b.npy").string(), inputs.at("b"));
  // .npy files whose header a text search misreads: a big-endian dtype with "<f4" further
  // on, and 'fortran_order':True written without spaces. (The header is padded to 64 bytes.)
  auto raw_npy = [&](const std::string& folder, const std::string& name, std::string header) {
    std::filesystem::create_directories(dir / folder);
    header += std::string((64 - (10 + header.size() + 1) % 64) % 64, ' ') + "\n";
    std::string bytes = std::string("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xff) + char(header.size() >> 8) + header;
    bytes += std::string(32 * 4, '\0');
    std::ofstream((dir / folder / (name + ".npy")).string(), std::ios::binary) << bytes;
  };
  raw_npy("bigendian", "a", "{'descr': '>f4', 'fortran_order': False, 'shape': (32,), 'was': '<f4', }");
  io::write_npy((dir / "bigendian" / "b.npy").string(), inputs.at("b"));
  raw_npy("fortran", "a", "{'descr':'<f4','fortran_order':True,'shape':(32,)}");
  io::write_npy((dir / "fortran" / "b.npy").string(), inputs.at("b"));
  // A pipe as an input is refused, as liftc eval --input refuses it: opening it would wait
  // for a writer forever.
  std::filesystem::create_directories(dir / "fifo");
  ASSERT_EQ(::mkfifo((dir / "fifo" / "a.npy").c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo((dir / "fifo" / "y.npy").c_str(), 0600), 0);
  io::write_npy((dir / "fifo" / "b.npy").string(), inputs.at("b"));
  std::ofstream(dir / "file.npy") << "a file where the output folder should be";
  const Bad bad[] = {
      {d + "/fifo " + d + "/out", "error: " + d + "/fifo/a.npy is a pipe, not a .npy file (give a regular file)"},
      {d + "/in " + d + "/out --expected " + d + "/fifo", "error: " + d + "/fifo/y.npy is a pipe"},
      {d + "/bigendian " + d + "/out", "a.npy: dtype '>f4', expected '<f4' (little-endian float32)"},
      {d + "/fortran " + d + "/out", "a.npy: Fortran order is not supported"},
      {d + "/in " + d + "/out --expected " + d + "/wrong", "y: DIFFERS: 1 of 32 values differ, the first at [3]"},
      {d + "/badshape " + d + "/out", "a.npy: shape (4, 8), expected (32,) for a"},
      {d + "/in " + d + "/out --device gpu", "--device takes a device index (0, 1, ...), not 'gpu'"},
      {d + "/in " + d + "/file.npy", "the output path " + d + "/file.npy is not a directory"},
      {d + "/badshape " + d + "/missing", "a.npy: shape (4, 8), expected (32,) for a"},
      {d + "/in " + d + "/out --rtol nan", "--rtol takes a non-negative number, not 'nan'"},
      {d + "/in " + d + "/out --allowance " + d + "/allowed", "--allowance needs --expected"},
      {d + "/in " + d + "/out --expected " + d + "/want --allowance " + d + "/nowhere",
       "the allowance directory " + d + "/nowhere does not exist"},
  };
  for (const Bad& b : bad) {
    auto [bad_status, bad_printed] = host(b.args);
    EXPECT_NE(bad_status, 0) << b.args;
    EXPECT_NE(bad_printed.find(b.message), std::string::npos) << b.args << ":\n" << bad_printed;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "missing"));  // a refused run creates no output folder
  // A missing output folder is created with its parents, as liftc eval -o creates its own.
  auto [made_status, made_printed] = host(d + "/in " + d + "/made/deeper --expected " + d + "/want");
  EXPECT_EQ(made_status, 0) << made_printed;
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "made" / "deeper" / "y.npy")) << made_printed;

  // A full disk: y.npy is /dev/full, where every write fails with ENOSPC. An error and exit
  // status 1, not a short file left as if written.
  std::filesystem::create_directories(dir / "full");
  std::filesystem::create_symlink("/dev/full", dir / "full" / "y.npy");
  auto [full_status, full_printed] = host(d + "/in " + d + "/full");
  EXPECT_TRUE(WIFEXITED(full_status) && WEXITSTATUS(full_status) == 1) << full_status << "\n" << full_printed;
  EXPECT_NE(full_printed.find("error: cannot write " + d + "/full/y.npy: No space left on device"), std::string::npos)
      << full_printed;
  EXPECT_EQ(full_printed.find("matches"), std::string::npos) << full_printed;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace liftc::emit
