// clblast- candidates (src/explore/candidates/library.hpp) from the command line: CLBlast's Convgemm
// and Gemm explored, validated and stored like liftc's own candidates; the errors of a
// library strategy that does not apply; the note a liftc built without CLBlast prints.

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "explore_cli.hpp"

namespace liftc::explore::test {
namespace {

const std::string kConvSmall = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/conv_small.sr";
const std::string kConvRelu = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/conv_relu_swapped.sr";
const std::string kForms = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/forms/";

#ifdef LIFTC_HAVE_CLBLAST

// PoCL compiles each of CLBlast's kernels from its source at the first call (tens of
// seconds on a loaded CI machine): one candidate of each routine, with a patient watchdog.
struct LibraryCase {
  const char* what;
  std::string file;
  const char* strategy;
  const char* name;  // of its results store and output folder
};

TEST_F(ExploreCli, ClblastCandidatesAreValidatedAndStored) {
  const LibraryCase cases[] = {
      {"a convolution with an activation: Convgemm between liftc's kernels", kConvRelu, "clblast-convgemm", "relu"},
      {"a 1x1 convolution written per pixel with innerProduct: its [1][1][C] kernels split from [M][C] weights by liftc's "
       "kernel, no padding",
       kForms + "pointwise_inner_product.sr", "clblast-convgemm", "pointwise"},
      {"weights stored kernel-minor, read as flat kernels: liftc's kernel makes them [M][C][K][K]",
       kForms + "kernel_minor_weights.sr", "clblast-convgemm", "kernel-minor"},
      {"a 1x1 convolution written per pixel, its channels joined: liftc's kernel after the call joins them",
       kForms + "pointwise.sr", "clblast-convgemm", "joined"},
      {"a matrix product: Gemm alone", kMatmul, "clblast-gemm", "gemm"},
  };
  for (const auto& c : cases) {
    std::string db = std::string(c.name) + ".db";
    std::string out = std::string("out-") + c.name;
    Result r = run(fmt::format("explore {} -s {} --evals 1 --jobs 1 --timeout 600 --db {} -o {} -q", c.file, c.strategy,
                               db, out));
    ASSERT_EQ(r.exit_code, 0) << c.what << "\n" << r.output;
    // Its point on the front: no host program (it runs in liftc-runner), its steps described.
    std::ifstream readme(dir_ / out / "front" / "1" / "README.txt");
    std::string text((std::istreambuf_iterator<char>(readme)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("No host program is generated for a CLBlast point"), std::string::npos) << c.what << ": " << text;
    EXPECT_EQ(rows(dir_ / db, fmt::format("strategy = '{}' AND status IN ('ok', 'cut') AND time_ms >= 0", c.strategy).c_str()), 1)
        << c.what << "\n" << r.output;
  }
}

TEST_F(ExploreCli, ClblastSpaceListsCLBlastsParameters) {
  Result r = run(fmt::format("space {} -s clblast-gemm --samples 1", kMatmul));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("== strategy clblast-gemm, alternative 1 (CLBlast)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("== strategy clblast-gemm, alternative 2 (CLBlast)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("CLBlast Sgemm (row-major) for matmul: M=64 N=48 K=32"), std::string::npos) << r.output;
  r = run(fmt::format("space {} -s clblast-convgemm --samples 1", kConvRelu));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("bias and x -> max(x, 0.0)"), std::string::npos) << r.output;
}

// Convgemm reads each form's convolution from the match: the image, kernels and biases as
// expressions of the inputs, the sizes from their types, the padding where the image is
// padded with zeros on every side (else 0).
TEST_F(ExploreCli, ClblastConvgemmReadsEachFormsConvolution) {
  struct Case {
    const char* form;
    const char* summary;
  };
  const Case cases[] = {
      {"swapped_acc_right.sr", "for conv: C=2 H=6 W=6 K=3 pad=1 stride=1 M=4,"},
      {"pointwise_inner_product.sr", "for conv: C=4 H=4 W=6 K=1 pad=0 stride=1 M=4,"},
      {"kernel_minor_weights.sr", "for conv: C=2 H=6 W=6 K=3 pad=1 stride=1 M=4, between liftc kernels for the layouts "
                                  "([H][W][C] to [C][H][W], [M][K][K][C] to [M][C][K][K]) and the bias and "
                                  "x -> max(x, 0.0)"},  // its select(x > 0.0, x, 0.0), normal-form's relu-select
      {"chw_oihw.sr", "for conv: C=2 H=6 W=6 K=3 pad=1 stride=1 M=4,"},
      {"floor_mode.sr", "for conv: C=2 H=9 W=9 K=3 pad=0 stride=2 M=4,"},
      {"no_bias.sr", "for conv: C=2 H=6 W=6 K=3 pad=1 stride=1 M=4,"},
      {"joined_channels.sr", "for conv: C=2 H=6 W=6 K=3 pad=1 stride=1 M=4,"},
      {"pointwise.sr", "for conv: C=4 H=4 W=6 K=1 pad=0 stride=1 M=4,"},
  };
  for (const auto& c : cases) {
    Result r = run(fmt::format("space {}{} -s clblast-convgemm --samples 0", kForms, c.form));
    ASSERT_EQ(r.exit_code, 0) << c.form << "\n" << r.output;
    EXPECT_NE(r.output.find(std::string("CLBlast Sconvgemm (cross-correlation) ") + c.summary), std::string::npos)
        << c.form << "\n" << r.output;
  }
}

TEST_F(ExploreCli, ClblastStrategyErrors) {
  struct Case {
    std::string args;
    std::string message;
  };
  // A rules folder whose convolution shape names the image otherwise than explore reads it.
  std::filesystem::create_directories(dir_ / "renamed");
  std::ofstream(dir_ / "renamed" / "library.rules")
      << "rule library-conv2d: map(row -> map(window -> map((w, b) -> reduce(b, (acc, q) -> acc + q.0 * q.1, "
         "zip(join(join(window)), join(join(w)))), zip(ws, bs)), row), map(y -> transpose(y), slide(k, s, "
         "map(r -> slide(k, s, r), img)))) => img\n";
  const Case cases[] = {
      {"space " + kConvSmall + " -s clblast-convgemm --rules renamed",
       "error: rule library-conv2d (a shape of the library candidates, rules/library.rules) binds no expression "
       "variable `x`\n"},
      {"space " + kConvSmall + " -s clblast-gemm",
       "error: strategy clblast-gemm does not apply: its definition is not a matrix product of rules/library.rules' shape\n"},
      {"space " + kMatmul + " -s clblast-convgemm",
       "error: strategy clblast-convgemm does not apply: its definition is not a 2D convolution of rules/library.rules' "
       "shape (after normal-form)\n"},
      {"space " + kForms + "depthwise.sr -s clblast-convgemm",
       "error: strategy clblast-convgemm does not apply: its definition is not a 2D convolution of rules/library.rules' "
       "shape (after normal-form)\n"},
      {"explore " + kMatmul + " -s clblast-fft --evals 1",
       "error: strategy clblast-fft does not apply: there is no such library strategy (clblast-convgemm, clblast-gemm)\n"},
  };
  for (const auto& c : cases) {
    Result r = run(c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
  }
}

#else

TEST_F(ExploreCli, ClblastCandidatesAreValidatedAndStored) {
  GTEST_SKIP() << "CLBlast was not found when liftc was built (scripts/setup.sh installs libclblast-dev): no clblast- "
                  "candidates to explore";
}

TEST_F(ExploreCli, WithoutClblastSpaceSaysSoAndAClblastStrategyIsAnError) {
  Result r = run(fmt::format("space {} --samples 1", kMatmul));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("// note: clblast- candidates are not offered: CLBlast was not found when liftc was built"),
            std::string::npos)
      << r.output;
  r = run(fmt::format("space {} -s clblast-gemm", kMatmul));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("error: clblast- candidates are not offered: CLBlast was not found when liftc was built"),
            std::string::npos)
      << r.output;
}

#endif

}  // namespace
}  // namespace liftc::explore::test
