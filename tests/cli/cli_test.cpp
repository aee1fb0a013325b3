// The command line as a user meets it: `check`, `eval`, `rules` and `rewrite` on good and bad input.
// Each case runs the liftc binary and checks its exit code and what it printed.

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;

struct Result {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs the shell command `command` and captures what it prints on stdout.
Result shell(const std::string& command) {
  Result r;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  char buffer[4096];
  while (std::size_t n = fread(buffer, 1, sizeof buffer, pipe)) r.output.append(buffer, n);
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// Runs `liftc <args>` in `dir` (after the shell command `prefix`) and captures what it prints.
Result liftc(const std::string& args, const fs::path& dir, const std::string& prefix = "") {
  return shell(fmt::format("cd '{}' && {}'{}' {} 2>&1", dir.string(), prefix, LIFTC_BINARY, args));
}

// The paths under `dir` whose file name starts with `prefix`.
std::vector<std::string> files_starting(const fs::path& dir, const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path().string());
  return out;
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    // One directory per test process: ctest runs the cases in parallel.
    dir_ = fs::temp_directory_path() /
           fmt::format("liftc_cli_{}_{}", ::testing::UnitTest::GetInstance()->current_test_info()->name(), getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    write("double.sr", "size N = 4\ninput x : [float]N\ndef y = map(v -> v * 2.0, x)\n");
    write("symbolic.sr", "size N\ninput x : [float]N\ndef y = split(2, x)\n");
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  Result run(const std::string& args) { return liftc(args, dir_); }
  // Runs `liftc <args>` under a file-size limit of `kib` KiB (`ulimit -f`; what liftc
  // prints goes through a pipe, which the limit spares).
  Result run_limited(int kib, const std::string& args) { return liftc(args, dir_, fmt::format("ulimit -f {} && ", kib)); }
  // Runs `args` and expects exit code `code` and `message` in the output.
  void expect(const std::string& args, int code, const std::string& message) {
    Result r = run(args);
    EXPECT_EQ(r.exit_code, code) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
  }

  fs::path dir_;
};

TEST_F(Cli, CheckPrintsTypes) {
  Result r = run("check double.sr");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("def y : [float]N"), std::string::npos) << r.output;
}

TEST_F(Cli, CheckListsAssumptionsOfSymbolicSizes) {
  Result r = run("check symbolic.sr");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("assumes 2 divides N"), std::string::npos) << r.output;
}

TEST_F(Cli, CheckDecidesAssumptionsForGivenSizes) {
  Result ok = run("check symbolic.sr --size N=6");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("size N = 6"), std::string::npos) << ok.output;
  EXPECT_EQ(ok.output.find("assumes"), std::string::npos) << ok.output;
  Result bad = run("check symbolic.sr --size N=5");
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_NE(bad.output.find("split(2): 2 does not divide the array length 5"), std::string::npos) << bad.output;
}

TEST_F(Cli, CheckEveryExample) {
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(LIFTC_SOURCE_DIR) / "examples")) {
    if (entry.path().extension() != ".sr") continue;
    Result r = run("check '" + entry.path().string() + "'");
    EXPECT_EQ(r.exit_code, 0) << entry.path() << "\n" << r.output;
  }
}

TEST_F(Cli, EvalWritesOutputsAndReadsThemBack) {
  Result first = run("eval double.sr --seed 3 -o out --save-inputs");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_TRUE(fs::exists(dir_ / "out" / "y.npy"));
  EXPECT_TRUE(fs::exists(dir_ / "out" / "inputs" / "x.npy"));
  // The saved input given back explicitly must give the same summary line.
  Result again = run("eval double.sr --input x=out/inputs/x.npy");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  auto summary = [](const std::string& out) { return out.substr(0, out.find('\n')); };
  EXPECT_EQ(summary(first.output), summary(again.output));
}

TEST_F(Cli, EvalBindsSymbolicSizes) {
  Result r = run("eval symbolic.sr --size N=6");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("y [3, 2]"), std::string::npos) << r.output;
}

// Issue 36, item 1: a size used as a value is exact (64 bits) in the interpreter and in the
// kernel, from the high-level program through rewriting: x + float(N * N) for N = 65536 was
// x + 0 in both, float(N) for N = 2^32 was 0 in the interpreter. The kernels are validated
// against their own interpreter and against a program with the value as a float literal.
TEST_F(Cli, SizeArithmeticAsValuesIsExactInEvalAndRun) {
  write("square.sr", "size N = 65536\ninput x : [float]4\ndef y = map(v -> v + float(N * N), x)\n");
  write("wide.sr", "size N = 4294967296\ninput x : [float]4\ndef y = map(v -> v + float(N), x)\n");
  write("literal.sr", "input x : [float]4\ndef y = map(v -> v + 4294967296.0, x)\n");
  for (const char* program : {"square", "wide"}) {
    SCOPED_TRACE(program);
    expect(fmt::format("eval {}.sr", program), 0, "y [4]: min 4.29497e+09, max 4.29497e+09, mean 4.29497e+09");
    ASSERT_EQ(run(fmt::format("rewrite {0}.sr --strategy lower-glb1 > {0}_low.sr", program)).exit_code, 0);
    expect(fmt::format("run {}_low.sr --rtol 0 --atol 0", program), 0,
           "y: matches the interpreter (ok: 4 values, max abs error 0");
    expect(fmt::format("run {}_low.sr --reference literal.sr --rtol 0 --atol 0", program), 0,
           "y: matches the interpreter (ok: 4 values, max abs error 0");
  }
  // Where the size value is an int, one that does not fit in 32 bits is refused at check.
  write("int.sr", "size N = 65536\ninput x : [float]4\ndef y = map(v -> v + float(N * N / 2), x)\n");
  expect("check int.sr", 1,
         "int.sr:3:28: error: the size value 4294967296 does not fit in an int (32 bits): a size used as a value is "
         "an int, except in float(...), which converts its exact value; write float(...) around the size expression "
         "alone");
}

// Issue 38, item 5: concat and the prelude's nearest upsampling from text to OpenCL. Each
// program is checked, evaluated and run on the device against the interpreter, exactly (a
// layout-only definition is one parallel copy kernel); one that computes is also lowered by
// a strategy, and the rewritten text parses and runs again. The kernels read a concat's
// operands behind one bounds check each, and the upsampling's operand at i/2 with none.
// Mismatched element types are one error at the call.
TEST_F(Cli, ConcatAndUpsamplingRunAndMatchTheInterpreter) {
  write("concat.sr", "size N = 6, M\ninput a : [float]N\ninput b : [float]M\ninput c : [float]3\n"
                     "def y = concat(a, b, c)\ndef z = map(v -> v * 2.0, concat(c, y))\n");
  write("skip.sr", "size H = 4, W = 3, C1 = 4, C2 = 2\ninput up : [[[float]C1]W]H\ninput skip : [[[float]C2]W]H\n"
                   "def cat = map2D(p -> concat(p.0, p.1), zip2D(up, skip))\n");
  write("up.sr", "size H = 3, W = 5, C = 2\ninput image : [[[float]C]W]H\ndef up = upsample2D(image)\n");
  expect("eval concat.sr --size M=5", 0, "y [14]");
  expect("eval skip.sr", 0, "cat [4, 3, 6]");
  expect("eval up.sr", 0, "up [6, 10, 2]");
  expect("run skip.sr --rtol 0 --atol 0", 0, "cat: matches the interpreter (ok: 72 values, max abs error 0");
  expect("run up.sr --rtol 0 --atol 0", 0, "up: matches the interpreter (ok: 120 values, max abs error 0");
  ASSERT_EQ(run("rewrite concat.sr --strategy lower-glb1 > concat_low.sr").exit_code, 0);
  for (const char* line : {"y: matches the interpreter (ok: 14 values, max abs error 0",
                           "z: matches the interpreter (ok: 17 values, max abs error 0"})
    expect("run concat_low.sr --size M=5 --rtol 0 --atol 0", 0, line);

  auto kernels_of = [&](const std::string& program) {
    EXPECT_EQ(run(fmt::format("compile {0}.sr -o {0}_kernels", program)).exit_code, 0) << program;
    std::ifstream in(dir_ / (program + "_kernels") / "kernels.cl");
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  std::string cat = kernels_of("skip");
  EXPECT_NE(cat.find("= (g_4 < 4) ? up[12*g_2 + 4*g_3 + g_4] : skip[6*g_2 + 2*g_3 + g_4 - 4];"), std::string::npos) << cat;
  std::string up = kernels_of("up");
  EXPECT_NE(up.find("= image[g_4 + 10*(g_2/2) + 2*(g_3/2)];"), std::string::npos) << up;

  write("bad.sr", "size N = 4\ninput a : [float]N\ninput b : [int]N\ndef y = map(v -> v, concat(a, b))\n");
  expect("check bad.sr", 1,
         "bad.sr:4:21: error: concat: the arrays must have one element type, got float (operand 1) and int (operand 2)");
  write("scalar.sr", "size N = 4\ninput a : [float]N\ninput f : float\ndef y = concat(a, f)\n");
  expect("check scalar.sr", 1, "scalar.sr:4:9: error: concat: operand 2 must be an array, got float");
}

// Issue 36, item 10: an input or definition named like a C or OpenCL keyword is refused at
// check (every kernel failed to build).
TEST_F(Cli, ReservedNamesAreRefusedAtCheck) {
  write("global.sr", "size N = 4\ninput global : [float]N\ndef y = map(v -> v, global)\n");
  expect("check global.sr", 1,
         "global.sr:2:7: error: `global` is a keyword of C or OpenCL C, and an input names a buffer of the generated "
         "kernels: choose another name");
}

TEST_F(Cli, RulesListsRulesAndStrategies) {
  Result r = run("rules");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("rule split-join(n in 2..64): tile a map"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("strategy conv-parametric [gpu]: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("strategy conv-chw-tile [fast, gpu]: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("strategy conv-lower: "), std::string::npos) << r.output;
}

// -s @TAG: the strategies carrying the tag (`liftc rules` shows them); an unknown tag is one error.
TEST_F(Cli, AStrategyTagNamesItsStrategies) {
  std::string conv = (fs::path(LIFTC_SOURCE_DIR) / "examples" / "conv" / "conv_small.sr").string();
  Result r = run("space '" + conv + "' -s @fast");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* s : {"conv-chw-tile,", "conv-gemm,", "conv-winograd-local,"})
    EXPECT_NE(r.output.find(std::string("== strategy ") + s), std::string::npos) << s << r.output;
  EXPECT_EQ(r.output.find("== strategy conv-naive,"), std::string::npos) << r.output;
  expect("space '" + conv + "' -s @quick", 1,
         "error: strategy tag '@quick': no strategy of the rules carries it (their tags: @fast, @gpu)");
  expect("explore '" + conv + "' -s @quick --evals 1", 1,
         "error: strategy tag '@quick': no strategy of the rules carries it (their tags: @fast, @gpu)");
}

// A strategy a tag names need not apply: a dilated convolution takes five of the fast
// strategies, and the other three (Winograd needs a window of 3 adjacent pixels, -m0 its
// weights read in the window) are notes; none applying (a depthwise convolution) is one
// error; a strategy named by itself must still apply. Before, `-s @fast` was refused on a
// single program where any strategy of the tag did not apply.
TEST_F(Cli, AStrategyOfATagThatDoesNotApplyIsANote) {
  fs::path forms = fs::path(LIFTC_SOURCE_DIR) / "examples" / "conv" / "forms";
  std::string dilated = (forms / "dilated.sr").string(), depthwise = (forms / "depthwise.sr").string();
  Result r = run("space '" + dilated + "' -s @fast --target mali-g72 --samples 0");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* s : {"conv-chw-tile-m0", "conv-winograd-gemm", "conv-winograd-local"})
    EXPECT_NE(
        r.output.find(fmt::format("// -s @fast: strategy `{}` does not apply to any definition of {}", s, dilated)),
        std::string::npos)
        << s << r.output;
  EXPECT_NE(r.output.find("== strategy conv-gemm,"), std::string::npos) << r.output;
  Result x = run("explore '" + dilated + "' -s @fast --evals 1 --jobs 1 --db d.db");
  ASSERT_EQ(x.exit_code, 0) << x.output;
  EXPECT_NE(
      x.output.find("note: -s @fast: strategy `conv-winograd-local` does not apply to any definition of " + dilated),
      std::string::npos)
      << x.output;
  Result none = run("space '" + depthwise + "' -s @fast --target mali-g72 --samples 0");
  EXPECT_EQ(none.exit_code, 1) << none.output;
  EXPECT_NE(none.output.find("error: no strategy of -s @fast applies (strategy `"), std::string::npos) << none.output;
  Result named = run("explore '" + dilated + "' -s @fast -s conv-winograd --evals 1 --jobs 1 --db n.db");
  EXPECT_EQ(named.exit_code, 1) << named.output;
  EXPECT_NE(named.output.find("error: strategy `conv-winograd` does not apply to any definition of " + dilated),
            std::string::npos)
      << named.output;
}

// The user's path from a high-level program to a kernel: rewrite, save, run the result.
TEST_F(Cli, RewrittenProgramParsesBackAndRuns) {
  std::string conv = (fs::path(LIFTC_SOURCE_DIR) / "examples" / "conv" / "conv_small.sr").string();
  Result rw = run("rewrite '" + conv + "' --strategy conv-parametric > low.sr");
  ASSERT_EQ(rw.exit_code, 0) << rw.output;
  std::ifstream in(dir_ / "low.sr");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("size rho_H in 0..64"), std::string::npos) << text;
  expect("run low.sr --params omega_CK=3,n_M=2,n_KW=4,rho_H=0,theta_H=6", 0, "conv: matches the interpreter");
  expect("run low.sr --params omega_CK=3,n_M=2,n_KW=4,rho_H=0,theta_H=6 --local 2,4", 0, "global (2, 8), local (2, 4)");
  expect("run low.sr --params omega_CK=3,n_M=2,n_KW=4,rho_H=0,theta_H=99", 1, "theta_H ranges over 3..64");
  expect("run low.sr --params omega_CK=5,n_M=2,n_KW=4,rho_H=0,theta_H=6", 1, "split(5)");
}

// `run` and `compile` report the memory plan's global footprint in bytes (scripts compare
// them): conv_small (C = 4, 8x8 pixels, M = 4 kernels of 3x3) needs its inputs (144 + 4 +
// 256 floats) and output (256) plus, for conv-gemm, the 8*8 x 3*3*4 im2col matrix (2304)
// and in its first alternative a kernel-minor copy of the weights (144), for conv-chw the
// 10x10x4 padded image (400).
TEST_F(Cli, RunReportsTheMemoryFootprintInBytes) {
  std::string conv = (fs::path(LIFTC_SOURCE_DIR) / "examples" / "conv" / "conv_small.sr").string();
  ASSERT_EQ(run("rewrite '" + conv + "' --strategy conv-gemm --alternative 2 > gemm.sr").exit_code, 0);
  ASSERT_EQ(run("rewrite '" + conv + "' --strategy conv-gemm > gemm_minor.sr").exit_code, 0);
  ASSERT_EQ(run("rewrite '" + conv + "' --strategy conv-chw > chw.sr").exit_code, 0);
  expect("run gemm.sr --params sigma_KW=2,kappa_KW=2", 0, "memory: global 11.6 KiB (11856 bytes), local 0.0 KiB");
  expect("compile gemm.sr --params sigma_KW=4,kappa_KW=4 -o gemm", 0, "memory: global 11.6 KiB (11856 bytes)");
  expect("run gemm_minor.sr --params sigma_KW=2,kappa_KW=4", 0, "memory: global 12.1 KiB (12432 bytes)");
  expect("run chw.sr --params beta_H=2", 0, "memory: global 4.1 KiB (4240 bytes)");
}

// --storage half: the kernels read and write halves (vload_half/vstore_half, no
// cl_khr_fp16), the run validates against the interpreter rounded at the same points, and
// the memory is half the float point's — a pad copied into an intermediate buffer (conv-chw)
// included; an int buffer named is one error.
TEST_F(Cli, HalfStorageValidatesAndHalvesTheMemory) {
  std::string conv = (fs::path(LIFTC_SOURCE_DIR) / "examples" / "conv" / "conv_small.sr").string();
  ASSERT_EQ(run("rewrite '" + conv + "' --strategy conv-naive > naive.sr").exit_code, 0);
  ASSERT_EQ(run("rewrite '" + conv + "' --strategy conv-chw > chw.sr").exit_code, 0);
  expect("run naive.sr", 0, "memory: global 2.6 KiB (2640 bytes)");
  Result half = run("run naive.sr --storage half");
  EXPECT_EQ(half.exit_code, 0) << half.output;
  EXPECT_NE(half.output.find("memory: global 1.3 KiB (1320 bytes)"), std::string::npos) << half.output;
  EXPECT_NE(half.output.find("storage: half (vload_half/vstore_half, arithmetic in float): weights, biases, image, conv\n"),
            std::string::npos) << half.output;
  EXPECT_NE(half.output.find("conv: matches the interpreter"), std::string::npos) << half.output;
  expect("run chw.sr --params beta_H=2", 0, "memory: global 4.1 KiB (4240 bytes)");
  expect("run chw.sr --params beta_H=2 --storage half", 0, "memory: global 2.1 KiB (2120 bytes)");
  expect("run chw.sr --params beta_H=2 --storage half", 0, "conv: matches the interpreter");
  expect("run chw.sr --params beta_H=2 --storage half=image", 0, "conv: matches the interpreter");
  ASSERT_EQ(run("compile naive.sr --storage half -o half").exit_code, 0);
  std::ifstream in(dir_ / "half" / "kernels.cl");
  std::string kernels((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(kernels.find("global const half* restrict image"), std::string::npos) << kernels;
  EXPECT_NE(kernels.find("vload_half("), std::string::npos) << kernels;
  EXPECT_NE(kernels.find("vstore_half("), std::string::npos) << kernels;
  EXPECT_EQ(kernels.find("cl_khr_fp16"), std::string::npos) << kernels;
  write("ints.sr", "size N = 4\ninput n : [int]N\ninput x : [float]N\ndef y = mapGlb(0, v -> v * 2.0, x)\n");
  expect("run ints.sr --storage half=n", 1, "error: --storage half=n: 'n' holds int; only float buffers can be stored as half\n");
  expect("compile ints.sr --storage half=m -o bad", 1,
         "error: --storage half=m: the program has no input or definition 'm' holding scalars or vectors\n");
  expect("run ints.sr --storage fp16", 1,
         "error: --storage: expected 'float', 'half' or 'half=NAME[,NAME...]' (inputs and definitions of the program), "
         "not 'fp16'\n");
  expect("run ints.sr --storage half", 0, "y: matches the interpreter");
}

// A register tile's kappa outputs are one vector store (the kernel `compile` writes), and
// --no-vector-stores gives the scalar loop back; both run and match.
TEST_F(Cli, RegisterTileOutputsAreOneVectorStore) {
  std::string conv = (fs::path(LIFTC_SOURCE_DIR) / "examples" / "conv" / "conv_c1_m8.sr").string();
  ASSERT_EQ(run("rewrite '" + conv + "' --strategy conv-chw-tile > tile.sr").exit_code, 0);
  const std::string point = "tile.sr --params sigma_KW=2,kappa_KW=4,beta_H=1";
  auto kernels = [&](const std::string& dir) {
    std::ifstream in(dir_ / dir / "kernels.cl");
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  ASSERT_EQ(run("compile " + point + " -o vec").exit_code, 0);
  ASSERT_EQ(run("compile " + point + " --no-vector-stores -o scalar").exit_code, 0);
  EXPECT_NE(kernels("vec").find("vstore4(vload4("), std::string::npos) << kernels("vec");
  EXPECT_EQ(kernels("scalar").find("vstore"), std::string::npos) << kernels("scalar");
  expect("run " + point, 0, "matches the interpreter");
  expect("run " + point + " --no-vector-stores", 0, "matches the interpreter");
}

// --dump-after PASS prints the program or each kernel after that pass of the pipeline, and
// `all` after every pass, in order; the kernels written are those of the last pass.
TEST_F(Cli, DumpAfterEachPassOfThePipeline) {
  std::string conv = (fs::path(LIFTC_SOURCE_DIR) / "examples" / "conv" / "conv_c1_m8.sr").string();
  ASSERT_EQ(run("rewrite '" + conv + "' --strategy conv-chw-tile > tile.sr").exit_code, 0);
  const std::string point = "tile.sr --params sigma_KW=2,kappa_KW=4,beta_H=1";
  struct Case {
    std::string pass, shows, lacks;
  };
  const Case cases[] = {
      {"parse", "// ---- after parse ----\nsize ", "kernel void"},
      {"bind-sizes", "// ---- after bind-sizes ----\nsize ", "kernel void"},
      {"plan", "// ---- after plan: conv_kernel ----\n// kernel conv_kernel computes conv (output, ", "kernel void"},
      {"lower", "// ---- after lower: conv_kernel ----\nkernel void conv_kernel(", "inv_"},
      {"hoist", "// ---- after hoist: conv_kernel ----\nkernel void conv_kernel(", "vstore4(vload4("},
      {"vector-stores", "vstore4(vload4(", "after hoist"},
  };
  for (const Case& c : cases) {
    Result r = run("compile " + point + " -o out --force --dump-after " + c.pass);
    EXPECT_EQ(r.exit_code, 0) << c.pass << "\n" << r.output;
    EXPECT_NE(r.output.find(c.shows), std::string::npos) << c.pass << "\n" << r.output;
    EXPECT_EQ(r.output.find(c.lacks), std::string::npos) << c.pass << "\n" << r.output;
  }
  Result all = run("compile " + point + " -o out --force --dump-after all");
  std::size_t at = 0;
  for (const char* pass : {"parse", "typecheck", "bind-sizes", "plan: conv_kernel", "lower: conv_kernel", "hoist: conv_kernel",
                           "vector-stores: conv_kernel"}) {
    std::size_t found = all.output.find(fmt::format("// ---- after {} ----", pass), at);
    EXPECT_NE(found, std::string::npos) << pass << " in order\n" << all.output;
    at = found == std::string::npos ? at : found;
  }
  expect("compile " + point + " -o out --force --dump-after lowering", 1,
         "error: --dump-after: lowering not in {parse,typecheck,bind-sizes,plan,lower,hoist,vector-stores,all}");
}

// conv-gpu's dot-lanes alternatives (6: float4, 7: float8) accumulate each window's products
// in a float vector whose lanes are summed once: the accumulator starts as (bias, 0, 0, 0),
// the padded lanes known at compile time (no bounds check, no read), one vector
// multiply-add per step.
TEST_F(Cli, DotLanesAccumulateInAFloatVectorSummedOnce) {
  std::string conv = (fs::path(LIFTC_SOURCE_DIR) / "examples" / "conv" / "conv_small.sr").string();
  ASSERT_EQ(run("rewrite '" + conv + "' --strategy conv-gpu --alternative 6 > lanes.sr").exit_code, 0);
  ASSERT_EQ(run("compile lanes.sr --params n_M=2 -o lanes").exit_code, 0);
  std::ifstream in(dir_ / "lanes" / "kernels.cl");
  std::string kernel((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(kernel.find(", 0.0f, 0.0f, 0.0f), 0, pmemacc_"), std::string::npos) << kernel;
  EXPECT_NE(kernel.find("vstore4(vload4(0, pmemacc_"), std::string::npos) << kernel;
  EXPECT_EQ(kernel.find("1 < 1"), std::string::npos) << kernel;
  EXPECT_EQ(kernel.find("dot("), std::string::npos) << kernel;
  expect("run lanes.sr --params n_M=2 --reference '" + conv + "'", 0, "conv: matches the interpreter");
}

// Without --all or --alternative, `rewrite` prints the first alternative that the program's
// declared sizes allow (issue 38: a strategy's default alternative was infeasible only by a
// vector width). conv_pool_tile2d.sr's windows have 27 values (C = 3, 3x3), which none of
// conv-pool-kappa's widths divides: its alternatives 1-4 (v-wide dot products) and 6-7 (a
// float4 or float8 accumulator) have no valid point, so it prints alternative 5, the scalar
// dot products, says why the ones before it have none, and that program runs and validates.
// --all marks each such alternative; conv_small.sr's first conv-gpu alternative (36 values,
// width 2) is allowed and printed as before.
TEST_F(Cli, TheDefaultAlternativeIsTheFirstTheSizesAllow) {
  std::string form = (fs::path(LIFTC_SOURCE_DIR) / "examples" / "conv" / "forms" / "conv_pool_tile2d.sr").string();
  ASSERT_EQ(run("rewrite '" + form + "' --strategy conv-pool-kappa > kappa.sr").exit_code, 0);
  std::ifstream in(dir_ / "kappa.sr");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\n// alternative 5 of 7, the first the program's sizes allow (--all prints every one):\n"
                      "// alternative 1 has no valid point: its types need 2 divides 27 (asVector(2) of an array of "
                      "length C*K*K)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("// alternative 4 has no valid point: its types need 16 divides 27 (asVector(16) of an array of "
                      "length C*K*K)\n// tuning parameter n_M in 2..64 (split-join)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("asVector(", text.find("def pooled")), std::string::npos) << text;
  expect("run kappa.sr --params n_M=2 --reference '" + form + "'", 0, "pooled: matches the interpreter");
  Result all = run("rewrite '" + form + "' --strategy conv-pool-kappa --all");
  ASSERT_EQ(all.exit_code, 0) << all.output;
  EXPECT_NE(all.output.find("// ---- alternative 6 of 7\n// this alternative has no valid point: its types need 4 divides "
                            "27 (asVector(4) of an array of length C*K*K)\n"),
            std::string::npos)
      << all.output;
  EXPECT_NE(all.output.find("// ---- alternative 5 of 7\n// tuning parameter n_M"), std::string::npos) << all.output;
  std::string conv = (fs::path(LIFTC_SOURCE_DIR) / "examples" / "conv" / "conv_small.sr").string();
  Result small = run("rewrite '" + conv + "' --strategy conv-gpu");
  ASSERT_EQ(small.exit_code, 0) << small.output;
  EXPECT_EQ(small.output.find("valid point"), std::string::npos) << small.output;
  EXPECT_NE(small.output.find("asVector(2, join(join("), std::string::npos) << small.output;
}

// run --reference: the device's values are compared with those of the program a kernel was
// rewritten from; a reference that computes something else, or whose inputs differ, fails.
TEST_F(Cli, RunValidatesAgainstTheProgramItWasRewrittenFrom) {
  std::string conv = (fs::path(LIFTC_SOURCE_DIR) / "examples" / "conv" / "conv_c1_m8.sr").string();
  ASSERT_EQ(run("rewrite '" + conv + "' --strategy conv-chw-tile > tile.sr").exit_code, 0);
  const std::string point = "tile.sr --params sigma_KW=2,kappa_KW=4,beta_H=1";
  expect("run " + point + " --reference '" + conv + "'", 0, "conv: matches the interpreter");
  std::ifstream in(conv);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto variant = [&](const std::string& name, const std::string& from, const std::string& to) {
    std::string t = text;
    std::size_t at = t.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    write(name, t.replace(at, from.size(), to));
  };
  variant("other.sr", "acc + p.0 * p.1", "acc + p.0 * p.1 * 2.0");
  expect("run " + point + " --reference other.sr", 1, "conv: DIFFERS from the interpreter");
  variant("wider.sr", "H = 6, W = 6", "H = 6, W = 7");
  expect("run " + point + " --reference wider.sr", 1,
         "error: --reference wider.sr: its input 'image' is float [6, 7, 1], in tile.sr it is float [6, 6, 1]");
  std::string renamed = text;
  for (std::size_t at; (at = renamed.find("biases")) != std::string::npos;) renamed.replace(at, 6, "bias");
  write("renamed.sr", renamed);
  expect("run " + point + " --reference renamed.sr", 1, "error: --reference renamed.sr: its input 'bias' is not an input of tile.sr");
  variant("renamed_def.sr", "def conv =", "def other =");
  expect("run " + point + " --reference renamed_def.sr", 1,
         "error: --reference renamed_def.sr: it defines 'other', which tile.sr does not");
  expect("run " + point + " --reference missing.sr", 1, "missing.sr");
  expect("run " + point + " --reference other.sr --no-validate", 1, "--no-validate excludes --reference");
  // Sizes left symbolic in both programs, given with the tuning parameters (as `liftc space`
  // prints a sample): they bind the reference's sizes too (found by a generality check: it
  // said C had no value, and --size C as well was "given by both").
  variant("symbolic.sr", "size C = 1, H = 6, W = 6, M = 8, K = 3", "size C, H, W, M, K = 3");
  ASSERT_EQ(run("rewrite symbolic.sr --strategy conv-chw-tile > tile_symbolic.sr").exit_code, 0);
  expect("run tile_symbolic.sr --params C=1,H=6,W=6,M=8,sigma_KW=2,kappa_KW=4,beta_H=1 --reference symbolic.sr", 0,
         "conv: matches the interpreter");
}

// --mad and --build-options reach the OpenCL compiler (run) and the host program (compile).
TEST_F(Cli, BuildOptionsReachTheCompilerAndTheHostProgram) {
  std::string conv = (fs::path(LIFTC_SOURCE_DIR) / "examples" / "conv" / "conv_small.sr").string();
  ASSERT_EQ(run("rewrite '" + conv + "' --strategy conv-parametric > low.sr").exit_code, 0);
  const std::string point = "low.sr --params omega_CK=3,n_M=2,n_KW=4,rho_H=0,theta_H=6";
  Result mad = run("run " + point + " --mad --build-options ' -cl-fast-relaxed-math '");
  EXPECT_EQ(mad.exit_code, 0) << mad.output;
  EXPECT_NE(mad.output.find("build options: -cl-mad-enable -cl-fast-relaxed-math\n"), std::string::npos) << mad.output;
  EXPECT_NE(mad.output.find("conv: matches the interpreter"), std::string::npos) << mad.output;
  expect("run " + point + " --build-options -cl-no-such-option", 1, "with options '-cl-no-such-option'");
  expect("run " + point + " --build-options \"$(printf 'a\\nb')\"", 1,
         "error: the build options contain a control character (byte 0x0a at offset 1); give them on one line");
  ASSERT_EQ(run("compile " + point + " --mad -o host").exit_code, 0);
  std::ifstream in(dir_ / "host" / "main.cpp");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"-cl-mad-enable\",  // build options"), std::string::npos);
  EXPECT_NE(text.find("clBuildProgram(program, 1, &device, stage.build_options,"), std::string::npos);
  Result space = run("space '" + conv + "' --strategy conv-tiled --target mali-g72 --samples 20 --seed 3");
  EXPECT_NE(space.output.find("[codegen] mad in {0, 1}"), std::string::npos) << space.output;
  EXPECT_NE(space.output.find(" --mad\n"), std::string::npos) << space.output;
}

// Without --mad (the space's mad=0) the OpenCL compiler may not contract a * b - c * d into
// a fused multiply-add: it would round one product only, and x*x - x*x would not be 0.
TEST_F(Cli, WithoutMadNothingIsContracted) {
  write("contract.sr", "size N = 64\ninput a : [float]N\n"
                       "def out = mapGlb(0, x -> (x * 10000.0) * (x * 10000.0) - (x * 10000.0) * (x * 10000.0), a)\n");
  expect("run contract.sr --runs 1 --rtol 0 --atol 0", 0, "out: matches the interpreter (ok: 64 values, max abs error 0");
  ASSERT_EQ(run("compile contract.sr -o plain").exit_code, 0);
  std::ifstream in(dir_ / "plain" / "kernels.cl");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.rfind("#pragma OPENCL FP_CONTRACT OFF\n", 0), 0u) << text;
  // With --mad contraction is allowed, and on PoCL it happens: the test can tell the two apart.
  expect("run contract.sr --runs 1 --rtol 0 --atol 0 --mad", 1, "out: DIFFERS from the interpreter");
  ASSERT_EQ(run("compile contract.sr --mad -o mad").exit_code, 0);
  std::ifstream mad(dir_ / "mad" / "kernels.cl");
  std::string mad_text((std::istreambuf_iterator<char>(mad)), std::istreambuf_iterator<char>());
  EXPECT_EQ(mad_text.find("FP_CONTRACT"), std::string::npos) << mad_text;
}

// A write over a file-size limit (EFBIG, as a full disk gives ENOSPC) is an error: exit 1, no
// "wrote", no SIGXFSZ, and nothing left behind.
TEST_F(Cli, WritesOverAFileSizeLimitAreErrors) {
  write("big.sr", "size N = 4096\ninput x : [float]N\ndef y = map(v -> v * 2.0, x)\n");
  const std::string v = "'" LIFTC_SOURCE_DIR "/examples/lowlevel/vector_add.sr'";
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"compile " + v + " -o out", "/main.cpp: File too large"},
      {"eval big.sr -o out", "File too large"},
  };
  for (const Case& c : cases) {
    Result r = run_limited(1, c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_EQ(r.output.find("wrote"), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "out")) << c.args;
    EXPECT_TRUE(files_starting(dir_, ".liftc").empty()) << c.args;
  }
}

// `cmake --install` gives a liftc that needs neither its source tree nor an environment
// variable: from an empty folder it finds its rules and target profiles beside itself.
TEST_F(Cli, AnInstalledLiftcRunsFromAnEmptyFolderWithNoEnvironment) {
  fs::path prefix = dir_ / "prefix";
  std::string install = fmt::format("'{}' --install '{}' --prefix '{}' > install.txt 2>&1", CMAKE_COMMAND,
                                    LIFTC_BUILD_DIR, prefix.string());
  ASSERT_EQ(std::system(fmt::format("cd '{}' && {}", dir_.string(), install).c_str()), 0);
  EXPECT_TRUE(fs::exists(prefix / "share" / "liftc" / "rules" / "targets" / "mali-g72.target"));
  fs::create_directories(dir_ / "empty");
  fs::copy_file(fs::path(LIFTC_SOURCE_DIR) / "examples" / "conv" / "conv_small.sr", dir_ / "empty" / "conv.sr");
  auto installed = [&](const std::string& args) {
    return shell(fmt::format("cd '{}' && env -u LIFTC_RULES -u LIFTC_TARGETS -u LIFTC_RUNNER '{}' {} 2>&1",
                             (dir_ / "empty").string(), (prefix / "bin" / "liftc").string(), args));
  };
  Result devices = installed("devices");
  EXPECT_EQ(devices.exit_code, 0) << devices.output;
  EXPECT_NE(devices.output.find("target profiles (" + (prefix / "share" / "liftc" / "rules" / "targets").string() + "):"),
            std::string::npos)
      << devices.output;
  Result space = installed("space conv.sr --strategy conv-chw --target mali-g72 --samples 2");
  EXPECT_EQ(space.exit_code, 0) << space.output;
  Result explore = installed("explore conv.sr --strategy conv-chw --evals 2 --pareto -o front");
  EXPECT_EQ(explore.exit_code, 0) << explore.output;
  EXPECT_TRUE(fs::exists(dir_ / "empty" / "front" / "pareto.csv")) << explore.output;
  // Issue 36 item 21: the plotting hint names the installed script, which is there.
  fs::path plot = prefix / "share" / "liftc" / "scripts" / "plot_pareto.py";
  EXPECT_TRUE(fs::exists(plot));
  EXPECT_NE(explore.output.find(fmt::format("(plot: python3 {} front)", plot.string())), std::string::npos)
      << explore.output;
}

TEST_F(Cli, RewriteAllAndTrace) {
  std::string matmul = (fs::path(LIFTC_SOURCE_DIR) / "examples" / "matmul.sr").string();
  Result all = run("rewrite '" + matmul + "' --strategy 'anywhere(map-to-mapSeq)' --all");
  EXPECT_EQ(all.exit_code, 0) << all.output;
  EXPECT_NE(all.output.find("// ---- alternative 2 of 2"), std::string::npos) << all.output;
  Result second = run("rewrite '" + matmul + "' --strategy 'anywhere(map-to-mapSeq)' --alternative 2");
  EXPECT_EQ(second.exit_code, 0) << second.output;
  EXPECT_EQ(second.output.substr(second.output.find("def matmul")),
            all.output.substr(all.output.rfind("def matmul")));
  Result third = run("rewrite '" + matmul + "' --strategy 'anywhere(map-to-mapSeq)' --alternative 3");
  EXPECT_EQ(third.exit_code, 1) << third.output;
  EXPECT_NE(third.output.find("--alternative 3: the strategy gives 2 alternative(s)"), std::string::npos) << third.output;
  Result trace = run("rewrite '" + matmul + "' --strategy lower-glb2 --trace");
  EXPECT_EQ(trace.exit_code, 0) << trace.output;
  EXPECT_NE(trace.output.find("[matmul] map-to-mapGlb at root: "), std::string::npos) << trace.output;
}

// A strategy expression written over several lines (as in a script), with a `//` comment, is
// printed on one line in the header comment, without the comment, so that the output still
// reads back and runs, and the header's strategy is one that rewrites.
TEST_F(Cli, AStrategyOverSeveralLinesLeavesAProgramThatReadsBack) {
  std::string conv = (fs::path(LIFTC_SOURCE_DIR) / "examples" / "conv" / "conv_small.sr").string();
  Result rw = run("rewrite '" + conv + "' --strategy 'id ; // a comment\n   conv-chw' > low.sr");
  ASSERT_EQ(rw.exit_code, 0) << rw.output;
  std::ifstream in(dir_ / "low.sr");
  std::string first;
  std::getline(in, first);
  EXPECT_NE(first.find("--strategy 'id ; conv-chw': "), std::string::npos) << first;  // the comment dropped
  expect("rewrite '" + conv + "' --strategy 'id ; conv-chw' --alternative 1", 0, "--strategy 'id ; conv-chw'");
  expect("run low.sr --params beta_H=2 --reference '" + conv + "'", 0, "conv: matches the interpreter");
}

// Bad input: one clear message, exit code 1 (CLI11's own flag errors have their codes).
struct ErrorCase {
  const char* args;
  const char* message;
};

TEST_F(Cli, ErrorsHaveMessagesAndFail) {
  write("syntax.sr", "size N = 4\ninput x : [float]N\ndef y = map(v -> v + , x)\n");
  write("split.sr", "size N = 4\ninput x : [float]N\ndef y = split(3, x)\n");
  write("garbage.npy", "not an npy file");
  fs::create_directories(dir_ / "badrules");
  write("badrules/bad.rules", "rule r: map(f, x) => map(h, x)\n");
  ASSERT_EQ(run("eval double.sr -o taken").exit_code, 0);
  const ErrorCase cases[] = {
      {"check missing.sr", "cannot open missing.sr"},
      {"check syntax.sr", "syntax.sr:3:22: error: expected expression"},
      {"check split.sr", "split.sr:3:9: error: split(3): 3 does not divide the array length 4"},
      {"eval symbolic.sr", "size N has no value: give it with --size N=<value>"},
      {"eval double.sr --size N=0", "sizes are at least 1"},
      {"eval double.sr --size Q=3", "the program declares no size or tuning parameter Q"},
      {"eval double.sr --size N=four", "'four' is not an integer"},
      {"eval double.sr --size N", "--size expects name=value"},
      {"eval double.sr --input x=garbage.npy", "garbage.npy: not a .npy file"},
      {"eval double.sr --input x=nothere.npy", "nothere.npy"},
      {"eval double.sr --input z=garbage.npy", "the program has no input named 'z'"},
      {"eval double.sr -o taken", "exists; pass --force to overwrite it"},
      {"rewrite double.sr --strategy nosuch", "<strategy>:1:1: error: unknown rule or strategy `nosuch`"},
      {"rewrite double.sr --strategy 'topdown('", "<strategy>:1:9: error: expected strategy, found end of input"},
      {"rewrite double.sr --strategy transpose-transpose", "strategy `transpose-transpose` does not apply to any definition"},
      {"rewrite double.sr --strategy fuse --rules nowhere", "rule folder nowhere does not exist"},
      {"rules --rules badrules", "badrules/bad.rules:1:26: error: unbound variable `h` on the right side"},
      {"run '" LIFTC_SOURCE_DIR "/examples/lowlevel/vector_add.sr' --local 48",
       "work-group size 48 does not divide sum_kernel's global size 1024 in dimension 0"},
      // A size past every main kernel's dimensions sizes nothing: refused, not dropped.
      {"run '" LIFTC_SOURCE_DIR "/examples/lowlevel/vector_add.sr' --local 64,2",
       "work-group size 2 in dimension 1 (--local): the kernels it sizes (sum_kernel 1-D) have at most 1 dimension"},
  };
  for (const auto& c : cases) expect(c.args, 1, c.message);
}

// Careless paths, sizes and flag values (issue 11): each is one line naming what and
// where, exit code 1 (never "internal error", a crash, or silent acceptance).
TEST_F(Cli, BadPathsSizesAndFlagsAreOneLineErrors) {
  const std::string v = "'" LIFTC_SOURCE_DIR "/examples/lowlevel/vector_add.sr'";
  fs::create_directories(dir_ / "folder");
  write("huge.sr", "");
  fs::resize_file(dir_ / "huge.sr", (64 << 20) + 1);  // sparse: no disk space
  write("wraps.sr", "size N = 4611686018427387905, M = 4\ninput a : [[float]N]M\n"
                    "def out = map(r -> reduce(0.0, (acc, x) -> acc + x, r), a)\n");
  write("petabytes.sr", "size N = 4503599627370496\ninput a : [float]N\ndef out = map(x -> x + 1.0, a)\n");
  write("long.sr", "size N = 4\ninput x : [float]N\ndef " + std::string(300, 'a') + " = x\n");
  struct Case {
    std::string args;
    const char* message;
    bool one_line;  // false: a source error, followed by the line and a caret
  };
  const Case cases[] = {
      // Programs and inputs that are not regular files, or too large.
      {"check folder", "folder is a directory, not a .sr program (give a regular file)", true},
      {"check /dev/zero", "/dev/zero is a character device, not a .sr program", true},
      {"compile folder -o out", "folder is a directory, not a .sr program", true},
      {"check huge.sr", "huge.sr is 64.0 MiB (67108865 bytes); liftc reads a .sr program of at most 64.0 MiB", true},
      {"eval double.sr --input x=folder", "folder is a directory, not a .npy file", true},
      {"eval double.sr --input x=/dev/zero", "/dev/zero is a character device, not a .npy file", true},
      // Sizes whose byte counts wrap past 64 bits, or that no memory holds.
      {"check wraps.sr", "wraps.sr:2:7: error: a value of type [float]4611686018427387905 is too large", false},
      {"eval wraps.sr", "a value of type [float]4611686018427387905 is too large: its size in bytes does not fit in 64 bits",
       false},
      {"check symbolic.sr --size N=4611686018427387906", "is too large: its size in bytes does not fit in 64 bits", false},
      {"eval petabytes.sr", "input 'a' of type [float]4503599627370496 needs 16.0 PiB, more than this machine's memory",
       true},
      {"eval double.sr --size N=99999999999999999999", "--size N: 99999999999999999999 is too large", true},
      // Output folders.
      {"compile " + v + " -o double.sr", "-o double.sr: exists and is not a directory", true},
      {"compile " + v + " -o double.sr --force", "-o double.sr: exists and is not a directory", true},
      {"compile " + v + " -o double.sr/out", "-o double.sr/out: double.sr is not a directory", true},
      {"compile " + v + " -o /proc/none/out", "-o /proc/none/out: cannot write in /proc", true},
      {"compile " + v + " -o ''", "-o: the output directory path is empty", true},
      {"eval double.sr -o ''", "-o: the output directory path is empty", true},
      {"eval double.sr -o double.sr", "-o double.sr: exists and is not a directory", true},
      {"eval long.sr -o out", "long.sr:3:5: error: -o: definition `aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...` has a name of "
                              "300 bytes, too long for a file name", false},
      // Flag values.
      {"run " + v + " --rtol -1", "error: --rtol: expects a finite number >= 0, got '-1'", true},
      {"run " + v + " --rtol nan", "error: --rtol: expects a finite number >= 0, got 'nan'", true},
      {"run " + v + " --atol inf", "error: --atol: expects a finite number >= 0, got 'inf'", true},
      {"run " + v + " --params N", "error: --params expects name=value, got 'N'", true},
      {"run " + v + " --params N=x", "error: --params N: 'x' is not an integer", true},
      {"run " + v + " --params N=8 --size N=8", "error: N is given by both --size and --params", true},
      {"run " + v + " --runs 0", "error: --runs: expects an integer in 1..1000000, got '0'", true},
      {"run " + v + " --warmup -1", "error: --warmup: expects an integer in 0..1000000, got '-1'", true},
      {"run " + v + " --seed -1", "error: --seed: expects an integer in 0..18446744073709551615, got '-1'", true},
      {"eval double.sr --seed -1", "error: --seed: expects an integer in 0..18446744073709551615, got '-1'", true},
      {"rewrite double.sr -s fuse --alternative 0", "error: --alternative: expects an integer in 1..1000000, got '0'",
       true},
      {"rewrite double.sr -s fuse --max-seconds nan", "error: --max-seconds: expects a finite number >= 0, got 'nan'",
       true},
      {"rewrite double.sr -s fuse --max-seconds -1", "error: --max-seconds: expects a finite number >= 0, got '-1'",
       true},
      {"rewrite double.sr -s 'try(fuse)' --all --max-alternatives 0",
       "error: --max-alternatives: expects an integer in 1..1000000, got '0'", true},
      {"rewrite double.sr -s fuse --max-nodes 0", "error: --max-nodes: expects an integer of at least 1, got '0'", true},
      {"eval double.sr --no-such-flag", "error: The following argument was not expected: --no-such-flag", true},
      // Item 22 of issue 36: a folder after --save-inputs is a clear error.
      {"eval double.sr -o out --save-inputs ref",
       "error: --save-inputs takes no folder (ref): it writes the inputs into the -o folder's inputs/ (liftc eval F.sr "
       "-o DIR --save-inputs)",
       true},
  };
  for (const auto& c : cases) {
    Result r = run(c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_EQ(r.output.find("internal error"), std::string::npos) << c.args << "\n" << r.output;
    if (c.one_line) {
      EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << c.args << "\n" << r.output;
    }
  }
  EXPECT_FALSE(fs::exists(dir_ / "out")) << "a failed command creates no output folder";
}

// A tuple-valued definition is written as one .npy file per component (an array of
// pairs as two arrays), not skipped.
TEST_F(Cli, EvalWritesEachComponentOfATuple) {
  write("tuple.sr", "size N = 3\ninput x : [float]N\ninput k : [int]N\n"
                    "def p = (map(v -> v * 2.0, x), k)\ndef z = zip(x, k)\n");
  Result r = run("eval tuple.sr -o out --save-inputs");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("p.0 [3]: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("wrote 6 file(s) to out"), std::string::npos) << r.output;
  auto bytes = [&](const std::string& name) {
    std::ifstream in(dir_ / "out" / name, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  EXPECT_EQ(bytes("p.1.npy"), bytes("inputs/k.npy"));  // the int component, unchanged
  EXPECT_EQ(bytes("z.0.npy"), bytes("inputs/x.npy"));
  EXPECT_EQ(bytes("z.1.npy"), bytes("inputs/k.npy"));
  // The doubled component reads back as an input of the same shape.
  write("twice.sr", "size N = 3\ninput y : [float]N\ndef back = map(v -> v / 2.0, y)\n");
  Result back = run("eval twice.sr --input y=out/p.0.npy -o back");
  ASSERT_EQ(back.exit_code, 0) << back.output;
  EXPECT_EQ(bytes("inputs/x.npy").substr(128), [&] {
    std::ifstream in(dir_ / "back" / "back.npy", std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()).substr(128);
  }());
}

// An input of tuples has no .npy form: eval refuses it at its declaration, with how to write
// it, in explore's words (before, it said so without a place or a way out).
TEST_F(Cli, EvalRefusesAnInputOfTuplesAtItsDeclaration) {
  write("pairs.sr",
        "size N = 3\ninput x : [float]N\ninput st : [(float, float)]N\n"
        "def y = map((v, p) -> v * p.0 + p.1, zip(x, st))\n");
  Result r = run("eval pairs.sr");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("pairs.sr:3:7: error: input st of type [(float, float)]3 holds tuples: liftc runs programs "
                          "on tensors (.npy files), which hold arrays of scalars or vectors; declare one input per "
                          "component of the tuple and zip them where the program reads them\n"),
            std::string::npos)
      << r.output;
}

// A write that fails part-way leaves neither new outputs nor temporaries behind.
TEST_F(Cli, FailedOutputLeavesNothingBehind) {
  write("three.sr", "size N = 4\ninput x : [float]N\ndef a = x\ndef b = x\ndef c = x\n");
  fs::create_directories(dir_ / "out" / "b.npy");  // a folder where b.npy must go
  Result r = run("eval three.sr -o out --force");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("-o: out/b.npy is a directory; it cannot be replaced by a file"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "a.npy"));
  EXPECT_FALSE(fs::exists(dir_ / "out" / "c.npy"));
  EXPECT_TRUE(files_starting(dir_, ".liftc").empty());
  // compile into a file: nothing is created either.
  Result c = run("compile '" LIFTC_SOURCE_DIR "/examples/lowlevel/vector_add.sr' -o three.sr --force");
  EXPECT_EQ(c.exit_code, 1) << c.output;
  EXPECT_TRUE(files_starting(dir_, ".liftc").empty());
}

// -o into an existing empty folder, and into a folder whose parents do not exist yet.
TEST_F(Cli, OutputFoldersThatExistOrNot) {
  fs::create_directories(dir_ / "empty");
  const std::string v = "'" LIFTC_SOURCE_DIR "/examples/lowlevel/vector_add.sr'";
  expect("compile " + v + " -o empty", 0, "wrote empty/kernels.cl");
  EXPECT_TRUE(fs::exists(dir_ / "empty" / "kernels.cl"));
  expect("compile " + v + " -o empty", 1, "empty exists and is not empty; pass --force");
  expect("compile " + v + " -o empty/", 1, "empty/ exists and is not empty; pass --force");
  expect("eval double.sr -o new/deeper/", 0, "wrote 1 file(s) to new/deeper/");
  EXPECT_TRUE(fs::exists(dir_ / "new" / "deeper" / "y.npy"));
  EXPECT_TRUE(files_starting(dir_, ".liftc").empty());
}

// SIGINT or SIGTERM while `eval -o` runs removes its temporary folder and creates no output.
TEST_F(Cli, InterruptedEvalRemovesItsTemporaries) {
  // About 10^9 multiply-adds: seconds of work, interrupted long before the end.
  write("slow.sr", "size N = 32768\ninput x : [float]N\n"
                   "def y = map(a -> reduce(0.0, (acc, b) -> acc + a * b, x), x)\n");
  for (int sig : {SIGINT, SIGTERM}) {
    SCOPED_TRACE(sig);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      if (chdir(dir_.c_str()) != 0) _exit(127);
      std::freopen("/dev/null", "w", stdout);
      execl(LIFTC_BINARY, "liftc", "eval", "slow.sr", "-o", "out", static_cast<char*>(nullptr));
      _exit(127);
    }
    // Wait until the temporary folder exists, then interrupt.
    for (int i = 0; i < 500 && files_starting(dir_, ".liftc-tmp-").empty(); ++i) usleep(10000);
    EXPECT_FALSE(files_starting(dir_, ".liftc-tmp-").empty()) << "the staging folder appears before the work";
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "ends by the signal: status " << status;
    EXPECT_TRUE(files_starting(dir_, ".liftc").empty());
    EXPECT_FALSE(fs::exists(dir_ / "out"));
  }
}

TEST_F(Cli, WrongShapeInputNamesTheInput) {
  ASSERT_EQ(run("eval symbolic.sr --size N=6 -o six --save-inputs").exit_code, 0);
  Result r = run("eval double.sr --input x=six/inputs/x.npy");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("x"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[6]"), std::string::npos) << r.output;
}

TEST_F(Cli, HelpListsEveryCommand) {
  Result r = run("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* command : {"check", "eval", "rewrite", "rules", "compile", "run", "devices", "space", "deploy"})
    EXPECT_NE(r.output.find(command), std::string::npos) << command;
  // Issue 36 item 21: the commands' flags are in their own help, and it says so.
  EXPECT_NE(r.output.find("Each command's arguments and flags: liftc COMMAND --help"), std::string::npos) << r.output;
}

// Issue 36 item 21: every --rules flag says where the rules of an installed liftc are.
TEST_F(Cli, RulesFlagsNameTheInstalledRulesFolder) {
  for (const char* command : {"explore", "space", "rewrite", "rules"}) {
    Result r = run(fmt::format("{} --help", command));
    EXPECT_EQ(r.exit_code, 0) << command;
    EXPECT_NE(r.output.find("else <prefix>/share/liftc/rules of an installed liftc"), std::string::npos)
        << command << "\n" << r.output;
  }
}

// Issue 36 item 23: an output file that exists is refused before the evaluation, not
// after it.
TEST_F(Cli, EvalRefusesAnExistingOutputBeforeEvaluating) {
  ASSERT_EQ(run("eval double.sr -o taken --save-inputs").exit_code, 0);
  for (const char* args : {"eval double.sr -o taken", "eval double.sr -o taken/"}) {
    Result r = run(args);
    EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("taken/y.npy exists; pass --force to overwrite it"), std::string::npos) << args << "\n" << r.output;
    EXPECT_EQ(r.output.find("evaluated in"), std::string::npos) << args << ": evaluated first\n" << r.output;
  }
  fs::remove(dir_ / "taken" / "y.npy");
  Result inputs = run("eval double.sr -o taken --save-inputs");
  EXPECT_EQ(inputs.exit_code, 1) << inputs.output;
  EXPECT_NE(inputs.output.find("taken/inputs/x.npy exists; pass --force to overwrite it"), std::string::npos) << inputs.output;
  EXPECT_EQ(inputs.output.find("evaluated in"), std::string::npos) << inputs.output;
  EXPECT_EQ(run("eval double.sr -o taken --save-inputs --force").exit_code, 0);
}

// Issue 36 item 24: a high-level program given to run or compile is pointed to rewrite.
TEST_F(Cli, RunOnAHighLevelProgramSaysToRewriteItFirst) {
  for (const char* command : {"run double.sr", "compile double.sr -o out"}) {
    Result r = run(command);
    EXPECT_EQ(r.exit_code, 1) << command << "\n" << r.output;
    EXPECT_NE(r.output.find("map computes values but is not mapped onto OpenCL: use mapGlb, mapWrg/mapLcl or mapSeq; "
                            "double.sr is a high-level program: rewrite it first: liftc rewrite double.sr --strategy S "
                            "(liftc rules lists them)"),
              std::string::npos)
        << command << "\n" << r.output;
  }
}

// liftc space: constraints with their sources, the order, the count, and samples that
// `liftc run` accepts as they are printed.
TEST_F(Cli, SpaceListsConstraintsAndSamplesPointsThatRun) {
  std::string conv = (fs::path(LIFTC_SOURCE_DIR) / "examples" / "conv" / "conv_small.sr").string();
  Result r = run("space '" + conv + "' --strategy conv-tiled --target mali-g72 --samples 5 --seed 3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* line : {"[type] n_KW divides 8", "[rule] n_KW in 2..64", "[target] local_0*local_1 <= 384",
                           "[codegen] local_0 divides 8/n_KW", "order: ", "valid points: ", "(exact)",
                           "samples (5, uniform over the valid points)"})
    EXPECT_NE(r.output.find(line), std::string::npos) << line << "\n" << r.output;
  auto at = r.output.find("\n  --params ");
  ASSERT_NE(at, std::string::npos) << r.output;
  std::string flags = r.output.substr(at + 3, r.output.find('\n', at + 1) - at - 3);
  ASSERT_EQ(run("rewrite '" + conv + "' --strategy conv-tiled > low.sr").exit_code, 0);
  expect("run low.sr " + flags, 0, "conv: matches the interpreter");
}

TEST_F(Cli, OmegaPartialSumsFromTheCommandLine) {
  // conv-chw-omega-m0 on the ReLU convolution: omega_C in the space, a sampled point runs
  // and matches; four kernels: the weights' copy, the pad, the partial sums, their sums.
  std::string conv = (fs::path(LIFTC_SOURCE_DIR) / "examples" / "conv" / "conv_relu_swapped.sr").string();
  Result r = run("space '" + conv + "' --strategy conv-chw-omega-m0 --samples 3 --seed 5");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* line : {"  omega_C ", " declared 2..64      domain {2, 4}  [rule: ", "[type] omega_C divides 4",
                           "[codegen] local_2 divides omega_C"})
    EXPECT_NE(r.output.find(line), std::string::npos) << line << "\n" << r.output;
  auto at = r.output.find("\n  --params ");
  ASSERT_NE(at, std::string::npos) << r.output;
  std::string flags = r.output.substr(at + 3, r.output.find('\n', at + 1) - at - 3);
  ASSERT_EQ(run("rewrite '" + conv + "' --strategy conv-chw-omega-m0 > low.sr").exit_code, 0);
  expect("run low.sr " + flags, 0, "conv: matches the interpreter");
  Result c = run("compile low.sr --params omega_C=2,beta_H=2 -o out");
  ASSERT_EQ(c.exit_code, 0) << c.output;
  for (const char* line : {"kernel conv_part1_kernel (def conv_part1): global (8, 4, 3)",
                           "kernel conv_part2_kernel (def conv_part2): global (11, 11, 2)",
                           "kernel conv_part3_kernel (def conv_part3): global (8, 81, 2)",
                           "kernel conv_kernel (def conv): global (8, 81)"})
    EXPECT_NE(c.output.find(line), std::string::npos) << line << "\n" << c.output;
}

// Winograd's transforms are kernels beside the main one (the batched multiplication): each
// takes a work-group size of its own, by the buffer it computes (--kernel-local), which
// `liftc space` samples (0: the runtime's choice) and run and compile apply; a name no
// kernel computes, the main kernel's, a size that does not divide the launch and a
// malformed value are one-line errors.
TEST_F(Cli, KernelsBesideTheMainOneTakeAWorkGroupSizeOfTheirOwn) {
  std::string conv = (fs::path(LIFTC_SOURCE_DIR) / "examples" / "conv" / "conv_small.sr").string();
  Result r = run("space '" + conv + "' --strategy conv-winograd-gemm --samples 10 --seed 5");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* line : {"conv_part1_local_0 declared 0..", "[codegen] max(1, conv_part1_local_1) divides 16",
                           "(kernel conv_part1: a work-group size in every dimension or in none)"})
    EXPECT_NE(r.output.find(line), std::string::npos) << line << "\n" << r.output;
  auto at = r.output.find("\n  --local ");
  while (at != std::string::npos && r.output.substr(at, r.output.find('\n', at + 1) - at).find("--kernel-local") == std::string::npos)
    at = r.output.find("\n  --local ", at + 1);
  ASSERT_NE(at, std::string::npos) << "no sample with --kernel-local\n" << r.output;
  std::string flags = r.output.substr(at + 3, r.output.find('\n', at + 1) - at - 3);
  ASSERT_EQ(run("rewrite '" + conv + "' --strategy conv-winograd-gemm --alternative 1 > w.sr").exit_code, 0);
  expect("run w.sr " + flags + " --reference '" + conv + "'", 0, "conv: matches the interpreter");
  expect("run w.sr --kernel-local conv_part1=2,4 --kernel-local conv=1,2 --reference '" + conv + "'", 0,
         "conv: matches the interpreter");
  Result c = run("compile w.sr --kernel-local conv_part1=2,4 --kernel-local conv=1,2 -o out");
  ASSERT_EQ(c.exit_code, 0) << c.output;
  for (const char* line : {"kernel conv_part1_kernel (def conv_part1): global (4, 16), local (2, 4)",
                           "kernel conv_part2_kernel (def conv_part2): global (4, 4), local driver's choice",
                           "kernel conv_kernel (def conv): global (4, 16), local (1, 2)"})
    EXPECT_NE(c.output.find(line), std::string::npos) << line << "\n" << c.output;
  expect("run w.sr --kernel-local nosuch=2,4", 1,
         "a work-group size for nosuch: no kernel of the program computes it (the kernels that take one compute "
         "conv_part1, conv_part2, conv)");
  expect("run w.sr --kernel-local conv_part3=2,4", 1,
         "a work-group size for conv_part3: its kernel is the main one, whose size --local gives");
  expect("run w.sr --kernel-local conv_part1=3,4", 1, "work-group size 3 does not divide conv_part1_kernel's global size 4");
  expect("run w.sr --kernel-local conv_part1=0,4", 1,
         "expected PART=a[,b[,c]] (conv_part1=8,16), each size 1..1048576 (leave a kernel out for the runtime's choice)");
  expect("run w.sr --kernel-local =4", 1, "expected PART=a[,b[,c]]");
  expect("run w.sr --kernel-local conv_part1=1,2,3,4", 1, "expected PART=a[,b[,c]]");
  expect("run w.sr --kernel-local conv_part1=2,4,2", 1,
         "work-group size 2 in dimension 2 for conv_part1_kernel: the kernel has 2 dimensions");
  expect("run w.sr --kernel-local conv_part1=2,4 --kernel-local conv_part1=4,4", 1, "--kernel-local gives conv_part1 twice");
}

// A strategy that does not apply says which step of it found nothing and, where that step is
// a named strategy, what it needs (its description): Winograd's form needs a 3x3 kernel, so
// on a 5x5 convolution its step `winograd-gemm-form` applies nowhere, and says so.
TEST_F(Cli, AStrategyThatDoesNotApplySaysWhichStepFoundNothing) {
  std::ifstream in(fs::path(LIFTC_SOURCE_DIR) / "examples" / "conv" / "conv_small.sr");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto k = text.find("K = 3");
  ASSERT_NE(k, std::string::npos) << text;
  text.replace(k, 5, "K = 5");
  auto pad = text.find("pad2D(1, 1, 1, 1,");
  ASSERT_NE(pad, std::string::npos) << text;
  text.replace(pad, 17, "pad2D(2, 2, 2, 2,");
  write("c5.sr", text);
  ASSERT_EQ(run("check c5.sr").exit_code, 0) << text;
  for (const char* strategy : {"conv-winograd-gemm", "conv-winograd-local"})
    expect(std::string("rewrite c5.sr --strategy ") + strategy, 1,
           "does not apply to any definition of c5.sr (its step `winograd-gemm-form` applies nowhere: Winograd F(2x2, "
           "3x3) or F(4x4, 3x3) as a batched matrix multiplication (the rules winograd-f2x2-gemm, -f4x4-gemm and "
           "their -activation, -residual and -residual-activation variants), which needs a convolution over 3x3 "
           "windows with stride 1");
}

// The GEMM path's space: sigma and kappa with their declared ranges and the divisibility
// the types ask for; the im2col matrix is a buffer the target must hold; a sample runs.
TEST_F(Cli, SpaceOfTheGemmPathSamplesPointsThatRun) {
  std::string conv = (fs::path(LIFTC_SOURCE_DIR) / "examples" / "conv" / "conv_small.sr").string();
  Result r = run("space '" + conv + "' --strategy conv-gemm --target mali-g72 --samples 3 --seed 5");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* line : {"== strategy conv-gemm, alternative 2 of 2", "[rule] sigma_KW in 2..16", "[rule] kappa_KW in 2..32",
                           "[type] sigma_KW divides 8", "[type] kappa_KW divides 4", "[target] 9216 <= 1073741824",
                           "valid points: "})
    EXPECT_NE(r.output.find(line), std::string::npos) << line << "\n" << r.output;
  auto at = r.output.find("\n  --params ");
  ASSERT_NE(at, std::string::npos) << r.output;
  std::string flags = r.output.substr(at + 3, r.output.find('\n', at + 1) - at - 3);
  ASSERT_EQ(run("rewrite '" + conv + "' --strategy conv-gemm > gemm.sr").exit_code, 0);
  expect("run gemm.sr " + flags, 0, "conv: matches the interpreter");
}

TEST_F(Cli, SpaceNamesTheConflictOfAnEmptySpace) {
  fs::create_directories(dir_ / "sets");
  write("sets/tile.rules", "rule tile(n in {2, 4}): mapGlb(0, f, x) => join(mapGlb(0, mapSeq(f), split(n, x)))\n");
  write("nine.sr", "size N = 9\ninput x : [float]N\ndef y = mapGlb(0, v -> v * 2.0, x)\n");
  Result r = run("space nine.sr --rules sets --strategy tile --target adreno-650");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("valid points: 0 (Z3: infeasible; these constraints cannot hold together:)\n"
                          "  [rule] n_N in {2, 4}  (rule tile declares n in {2, 4})\n"
                          "  [type] n_N divides 9"),
            std::string::npos)
      << r.output;
}

// A softmax is no convolution: the convolution strategies (conv-chw, ...) are not offered
// for it. Its exponentials made a mapGlb of dimension 2 (what conv-chw's lowering did to it
// before) are read by the sum and the division of the same row: code generation cannot
// make that map a kernel of its own (it uses `mx` and `row`), so the space of that strategy
// has no point and says why; the points of the strategies offered run and match the
// interpreter.
TEST_F(Cli, SoftmaxIsOfferedOnlyWhereCodeGenerationAcceptsIt) {
  std::string softmax = (fs::path(LIFTC_SOURCE_DIR) / "examples" / "softmax" / "softmax.sr").string();
  Result offered = run("space '" + softmax + "' --target mali-g72 --samples 0");
  ASSERT_EQ(offered.exit_code, 0) << offered.output;
  EXPECT_EQ(offered.output.find("== strategy conv-chw"), std::string::npos) << offered.output;
  const std::string glb2 = "topdown(map-to-mapGlb[1]) ; topdown(map-to-mapGlb[0]) ; topdown(map-to-mapGlb[2]) ; lower-seq";
  Result r = run("space '" + softmax + "' --strategy '" + glb2 + "' --target mali-g72 --samples 1 --seed 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto chw = r.output.find("== strategy " + glb2 + ", ");
  ASSERT_NE(chw, std::string::npos) << r.output;
  EXPECT_NE(r.output.find(
                "valid points: 0 (Z3: infeasible; these constraints cannot hold together:)\n"
                "  [codegen] no point satisfies it  (code generation refuses this program: definition 'y': the values "
                "that mapGlb(2) computes are read by other work-items of the same kernel",
                chw),
            std::string::npos)
      << r.output;
  for (const char* strategy : {"conv-lower", "stencil-parametric"}) {
    Result s = run("space '" + softmax + "' --strategy " + strategy + " --target mali-g72 --samples 1 --seed 2");
    ASSERT_EQ(s.exit_code, 0) << s.output;
    auto at = s.output.find("\n  --");
    ASSERT_NE(at, std::string::npos) << s.output;
    std::string flags = s.output.substr(at + 3, s.output.find('\n', at + 1) - at - 3);
    ASSERT_EQ(run("rewrite '" + softmax + "' --strategy " + strategy + " > low.sr").exit_code, 0);
    expect("run low.sr " + flags, 0, "y: matches the interpreter");
  }
}

TEST_F(Cli, DevicesListsTargetProfiles) {
  Result r = run("devices");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* name : {"adreno-640: ", "adreno-650: ", "mali-g72: ", "mali-g76: "})
    EXPECT_NE(r.output.find(name), std::string::npos) << r.output;
}

// Bad flags of liftc space: one clear message, exit code 1.
TEST_F(Cli, SpaceErrors) {
  struct Case {
    const char* args;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"space double.sr --target mali-g99", "unknown target `mali-g99`: the profiles in"},
      {"space double.sr --target mali-g72 --samples -1", "--samples -1: expected a whole number from 0 to 1000000"},
      {"space double.sr --target mali-g72 --samples many", "--samples many: expected a whole number from 0 to 1000000"},
      {"space double.sr --target mali-g72 --samples 2000000", "--samples 2000000: expected a whole number"},
      {"space double.sr --target mali-g72 --seed x", "--seed x: expected a whole number"},
      {"space double.sr --target mali-g72 --device 0", "--target and --device exclude each other"},
      {"space double.sr --target mali-g72 --strategy nosuch", "<strategy>:1:1: error: unknown rule or strategy `nosuch`"},
      {"space nothere.sr --target mali-g72", "nothere.sr"},
  };
  for (const auto& c : cases) expect(c.args, 1, c.message);
}

// Issue 11 (sections 3 to 6), from the command line: a step that would change a type is
// not applied and --trace says why; rewrites that grow stop at a budget and print a
// program `check` reads back; slide errors say how to crop; log and -inf exist.
TEST_F(Cli, RewriteKeepsTypesAndStopsReadable) {
  fs::create_directories(dir_ / "transpose");
  write("transpose/t.rules", "rule r: transpose(x) => x\n");
  fs::create_directories(dir_ / "twice");
  write("twice/t.rules", "rule r: map(f, x) => map(y -> f(f(y)), x)\n");
  write("grid.sr", "size N, M\ninput a : [[float]M]N\ndef y = transpose(a)\n"
                   "def z = map(r -> map(v -> v + 1.0, r), a)\n");
  expect("rewrite grid.sr --rules transpose --strategy 'topdown(r)' --trace", 1,
         "[y] r matched at root but its result has type [[float]M]N, not [[float]N]M");
  expect("rewrite grid.sr --rules twice --strategy 'repeat(r)' > twice.sr", 0, "");
  expect("check twice.sr", 0, "def z : [[float]M]N");
  expect("rewrite double.sr --strategy 'normalize(reorder-stride[2])' > strided.sr", 0, "");
  expect("check strided.sr", 0, "def y : [float]N");
  std::ifstream in(dir_ / "strided.sr");
  std::string header;
  std::getline(in, header);
  EXPECT_NE(header.find("stopped at nesting limit"), std::string::npos) << header;
  write("pool.sr", "size N = 7\ninput x : [float]N\ndef p = map(w -> reduce(-inf, (a, v) -> max(a, v), w), slide(2, 2, x))\n");
  expect("check pool.sr", 1, "pool.sr:3:56: error: slide(2, 2): the step 2 does not divide 5 (the array length 7 minus the "
                             "window size 2); slides must cover the array exactly: crop the last 1 element first, "
                             "slide(2, 2, pad(0, -1, 0.0, x)) (floor mode)");
  // The same in slide2D (the error at its call): its crop is pad2D's, of the rows or the columns.
  write("pool2d.sr",
        "size H = 8, W = 8\ninput x : [[float]W]H\n"
        "def p = map2D(w -> reduce(-inf, (a, v) -> max(a, v), join(w)), slide2D(3, 3, 2, 2, x))\n");
  expect("check pool2d.sr", 1,
         "(ceil mode); in slide2D, with pad2D: pad2D(0, -1, 0, 0, 0.0, x) crops the rows, pad2D(0, 0, 0, -1, 0.0, x) "
         "the columns");
  write("lse.sr", "size N = 8\ninput x : [float]N\ndef m = reduce(-inf, (a, v) -> max(a, v), x)\n"
                  "def l = map(s -> log(s), m)\n");
  expect("eval lse.sr", 0, "l [1]");
}

}  // namespace
