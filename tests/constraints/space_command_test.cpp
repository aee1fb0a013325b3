// `liftc space` and `liftc devices` as a user meets them on hostile input: each case runs
// the liftc binary and checks the exit code and what it printed (issue 20: flags, wide
// domains, target profiles that are FIFOs, zero limits, a missing key).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

namespace {

namespace fs = std::filesystem;

struct Result {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

class SpaceCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           fmt::format("liftc_space_{}_{}", ::testing::UnitTest::GetInstance()->current_test_info()->name(), getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "targets");
    write("double.sr", "size N = 64\ninput x : [float]N\ndef y = map(v -> v * 2.0, x)\n");
    // A billion values of n, of which 1024's divisors are all that matter.
    write("divides.sr", "size n in 1..1000000000\ninput x : [float]1024\n"
                        "def y = join(map(r -> map(v -> v * 2.0, r), split(n, x)))\n");
    // A billion values of n that all matter.
    write("wide.sr", "size n in 1..1000000000\ninput x : [float]n\ndef y = map(v -> v * 2.0, x)\n");
    // A network of three layers, the first two of one shape.
    write("net.sr", "size N = 16\ninput x : [float]N\ninput y : [float]N\n"
                    "def a = map(v -> v * 2.0, x)\ndef b = map(v -> v * 2.0, y)\n"
                    "def c = map((u, v) -> u + v, zip(a, b))\n");
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }

  // A profile in targets/: mali-g72's, with `replace` lines in place of those of the same
  // keys, and without the line of key `drop`.
  void profile(const std::string& file, const std::vector<std::string>& replace, const std::string& drop = "") {
    std::ifstream in(LIFTC_SOURCE_DIR "/rules/targets/mali-g72.target");
    std::ofstream out(dir_ / "targets" / file);
    for (std::string line; std::getline(in, line);) {
      std::string key = line.substr(0, line.find(' '));
      auto r = std::find_if(replace.begin(), replace.end(), [&](const std::string& x) { return x.rfind(key + " ", 0) == 0; });
      if (key != drop) out << (r != replace.end() ? *r : line) << "\n";
    }
  }

  // Runs `liftc <args>` in the test folder, with $LIFTC_TARGETS its targets/ when `own_targets`.
  Result run(const std::string& args, bool own_targets = false) {
    std::string env = own_targets ? fmt::format("LIFTC_TARGETS='{}' ", (dir_ / "targets").string()) : "";
    std::string command = fmt::format("cd '{}' && {}timeout 120 '{}' {} 2>&1", dir_.string(), env, LIFTC_BINARY, args);
    Result r;
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) return r;
    char buffer[4096];
    while (std::size_t n = fread(buffer, 1, sizeof buffer, pipe)) r.output.append(buffer, n);
    int status = pclose(pipe);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
  }

  fs::path dir_;
};

// Error category: one clear line (or a source line and caret), exit 1, nothing else printed.
TEST_F(SpaceCommand, BadInputIsOneError) {
  profile("zero.target", {"name = zero", "max_work_item_sizes = 0 0 0"});
  struct Case {
    std::string args;
    bool own_targets;
    std::string message;
    bool one_line;  // false: a profile error, followed by its line and a caret
  };
  const std::vector<Case> cases = {
      {"space double.sr --target mali-g72 --max-alternatives 0", false,
       "error: --max-alternatives: expects an integer in 1..1000000, got '0'", true},
      {"space wide.sr --target mali-g72", false,
       "error: parameter n (a size the program declares without a value) has 1000000000 candidate values "
       "(1..1000000000); liftc enumerates a parameter's values and takes at most 16777216: declare a narrower "
       "range or a value set",
       true},
      {"space double.sr --target zero", true, "zero.target:6:23: error: max_work_item_sizes must be at least 1, got `0`",
       false},
      {"space net.sr -s conv-chw --target mali-g72", false,
       "error: strategy `conv-chw` applies to no layer of net.sr (layer 'a': strategy `conv-chw` does not apply to any "
       "definition of net.sr (its step `topdown(kernel-map)` applies nowhere))",
       true},
  };
  for (const auto& c : cases) {
    Result r = run(c.args, c.own_targets);
    EXPECT_EQ(r.exit_code, 1) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_EQ(r.output.find("internal error"), std::string::npos) << c.args << "\n" << r.output;
    if (c.one_line) {
      EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << c.args << "\n" << r.output;
    }
  }
}

// A profile without a key: one "error:", not two.
TEST_F(SpaceCommand, AMissingKeyIsOneError) {
  profile("nokey.target", {"name = nokey"}, "compute_units");
  Result r = run("space double.sr --target nokey", true);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(r.output, fmt::format("error: {}/targets/nokey.target: the profile does not give `compute_units`\n",
                                  dir_.string()))
      << r.output;
}

// A FIFO named *.target is refused at once; it used to hang `devices` and every --target.
TEST_F(SpaceCommand, AFifoProfileDoesNotHang) {
  profile("mali-g72.target", {});
  ASSERT_EQ(::mkfifo((dir_ / "targets" / "pipe.target").c_str(), 0600), 0);
  // (`devices` prints the OpenCL devices first.)
  std::string message =
      fmt::format("error: {}/targets/pipe.target is a pipe, not a target profile (give a regular file)\n", dir_.string());
  for (const char* args : {"space double.sr --target mali-g72", "devices"}) {
    Result r = run(args, true);
    EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
  }
}

// Wide declared ranges and huge work-group limits give a space, quickly (a billion values
// of n took 23 GB; a limit of 10^6 work-items took minutes).
TEST_F(SpaceCommand, WideDomainsGiveASpace) {
  profile("huge.target", {"name = huge", "max_work_group_size = 1000000", "max_work_item_sizes = 1000000 1000000 1000000"});
  struct Case {
    std::string args;
    bool own_targets;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"space divides.sr --target mali-g72 --samples 2", false,
       "n          declared 1..1000000000 domain {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}"},
      {"space double.sr --target huge --samples 2", true, "local_0    declared 1..1000000 domain {1, 2, 4, 8, 16, 32, 64}"},
      {"space '" LIFTC_SOURCE_DIR "/examples/conv/conv_small.sr' -s conv-tiled --target huge --samples 2", true,
       "valid points: "},
  };
  for (const auto& c : cases) {
    Result r = run(c.args, c.own_targets);
    EXPECT_EQ(r.exit_code, 0) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos) << c.args << "\n" << r.output;
  }
}

// A network's fused layers, explore's alternatives to the layers they fuse (--fusion on),
// are listed after its layers: MobileNetV1's depthwise layer inlined into its pointwise one,
// with the fused strategies; --fusion off lists the layers as written only.
TEST_F(SpaceCommand, ANetworksFusedLayersAreListedAfterItsLayers) {
  const std::string pair = "space '" LIFTC_SOURCE_DIR "/examples/networks/mobilenet_v1_pair.sr' --target mali-g72 --samples 0";
  Result on = run(pair + " -s conv-dw-pw-private -s conv-depthwise-kappa");
  EXPECT_EQ(on.exit_code, 0) << on.output;
  EXPECT_NE(on.output.find("\n==== layer 2/2 (pointwise)\n"), std::string::npos) << on.output;
  std::size_t fused = on.output.find(
      "\n==== fused layer (depthwise+pointwise: depthwise inlined into it, explore's alternative to the layers it "
      "fuses; --fusion off: none)\n");
  ASSERT_NE(fused, std::string::npos) << on.output;
  EXPECT_NE(on.output.find("\n== strategy conv-dw-pw-private, alternative 1 of 1", fused), std::string::npos) << on.output;
  Result off = run(pair + " -s conv-depthwise-kappa --fusion off");
  EXPECT_EQ(off.exit_code, 0) << off.output;
  EXPECT_EQ(off.output.find("fused layer"), std::string::npos) << off.output;
  Result bad = run(pair + " --fusion only");
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_NE(bad.output.find("--fusion: 'only' is not on or off"), std::string::npos) << bad.output;
}

// A network (two or more definitions that compute): each layer's space, layers of one shape
// once; --whole-program as one, and a network already rewritten whole as one.
TEST_F(SpaceCommand, ANetworkLayerByLayer) {
  Result r = run("space net.sr -s lower-glb1 --target mali-g72 --samples 1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* line :
       {"// a network of 3 layers: each layer's space (explore searches them one by one; --whole-program: the program "
        "as one)",
        "\n==== layer 1/3 (a)\n\n== strategy lower-glb1, alternative 1 of 1",
        "\n==== layer 2/3 (b): the shape of layer 1 (a), its space\n\n==== layer 3/3 (c)\n\n== strategy lower-glb1"})
    EXPECT_NE(r.output.find(line), std::string::npos) << line << "\n" << r.output;
  Result whole = run("space net.sr -s lower-glb1 --target mali-g72 --samples 1 --whole-program");
  EXPECT_EQ(whole.exit_code, 0) << whole.output;
  EXPECT_EQ(whole.output.find("==== layer"), std::string::npos) << whole.output;
  // A network a strategy rewrote whole has tuning parameters its layers share: the whole
  // program's space, not layers without values for them.
  Result rewrite = run("rewrite '" LIFTC_SOURCE_DIR "/examples/networks/resnet_block.sr' --strategy net-chw-kappa > rw.sr");
  ASSERT_EQ(rewrite.exit_code, 0) << rewrite.output;
  Result tuned = run("space rw.sr --target mali-g72 --samples 0");
  EXPECT_EQ(tuned.exit_code, 0) << tuned.output;
  EXPECT_NE(tuned.output.find("// a rewritten network (its layers share tuning parameters): the whole program's space\n"),
            std::string::npos)
      << tuned.output;
  EXPECT_EQ(tuned.output.find("==== layer"), std::string::npos) << tuned.output;
  Result vgg = run("space '" LIFTC_SOURCE_DIR "/examples/networks/vgg_block.sr' --target mali-g72 --samples 0");
  EXPECT_EQ(vgg.exit_code, 0) << vgg.output;
  EXPECT_NE(vgg.output.find("==== layer 2/3 (conv2): the shape of layer 1 (conv1), its space"), std::string::npos)
      << vgg.output;
  // A layer no strategy applies to is lowered by the first fallback that changes it; a
  // program already low-level is taken as written.
  Result lse = run("space '" LIFTC_SOURCE_DIR "/examples/logsumexp.sr' --target mali-g72 --samples 0");
  EXPECT_NE(lse.output.find("==== layer 1/2 (m)\n// no strategy of strategies.rules applies: lowered by lower-seq\n"),
            std::string::npos)
      << lse.output;
  Result low = run("space '" LIFTC_SOURCE_DIR "/examples/lowlevel/vector_add.sr' --target mali-g72 --samples 0");
  EXPECT_NE(low.output.find("// no strategy of strategies.rules applies: the program as written (strategy id)\n"),
            std::string::npos)
      << low.output;
}

}  // namespace
