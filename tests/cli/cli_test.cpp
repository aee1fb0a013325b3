// The command line as a user meets it: `check`, `eval`, `rules` and `rewrite` on good and bad input.
// Each case runs the liftc binary and checks its exit code and what it printed.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;

struct Result {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs `liftc <args>` in `dir` and captures what it prints.
Result liftc(const std::string& args, const fs::path& dir) {
  std::string command = fmt::format("cd '{}' && '{}' {} 2>&1", dir.string(), LIFTC_BINARY, args);
  Result r;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  char buffer[4096];
  while (std::size_t n = fread(buffer, 1, sizeof buffer, pipe)) r.output.append(buffer, n);
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
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

TEST_F(Cli, RulesListsRulesAndStrategies) {
  Result r = run("rules");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("rule split-join(n in 2..64): tile a map"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("strategy conv-parametric: "), std::string::npos) << r.output;
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
      {"eval double.sr --size Q=3", "the program declares no size Q"},
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
  };
  for (const auto& c : cases) expect(c.args, 1, c.message);
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
  for (const char* command : {"check", "eval", "rewrite", "rules", "compile", "run", "devices", "space"})
    EXPECT_NE(r.output.find(command), std::string::npos) << command;
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

TEST_F(Cli, SpaceNamesTheConflictOfAnEmptySpace) {
  fs::create_directories(dir_ / "sets");
  write("sets/tile.rules", "rule tile(n in {2, 4}): map(f, x) => join(map(map(f), split(n, x)))\n");
  write("nine.sr", "size N = 9\ninput x : [float]N\ndef y = map(v -> v * 2.0, x)\n");
  Result r = run("space nine.sr --rules sets --strategy tile --target adreno-650");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("valid points: 0 (Z3: infeasible; these constraints cannot hold together:)\n"
                          "  [rule] n_N in {2, 4}  (rule tile declares n in {2, 4})\n"
                          "  [type] n_N divides 9"),
            std::string::npos)
      << r.output;
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

}  // namespace
