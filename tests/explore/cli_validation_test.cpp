// Issue 36, what a user meets when nothing validates or a run is served from the store:
// the runner's stderr in the row and the summary (item 20), a non-zero exit without a
// front (item 20), a run of stored cut rows (item 12), and the hint after writing a front
// (item 21).

#include <chrono>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "explore_cli.hpp"

namespace liftc::explore::test {
namespace {

namespace fs = std::filesystem;

// The start of a stand-in runner: the device probe (a bundle with no kernel line) goes to
// the real runner; a candidate's bundle gets the rest of the script.
const std::string kProbeToRealRunner =
    "#!/bin/sh\ngrep -q '^kernel' \"$1/bundle.txt\" || exec \"$LIFTC_RUNNER_BIN\" \"$1\"\n";

// Item 20: PoCL without `ld` on PATH (liftc under `env -i`) aborts every candidate's
// runner, saying why only on stderr. The row keeps the last lines of it; explore's summary
// and `liftc results` show them; with no front, explore exits 1 with one message naming
// what happened.
TEST_F(ExploreCli, ARunnerAbortingEveryCandidateSaysWhyAndNoFrontIsAnError) {
  std::ofstream(dir_ / "runner.sh") << kProbeToRealRunner
                                    << "echo 'compiling kernels' >&2\n"
                                       "echo 'error: unable to execute command: Executable \"ld\" doesn'\"'\"'t exist!' >&2\n"
                                       "echo 'pocl: kernel build failed' >&2\n"
                                       "exec sh -c 'kill -ABRT $$'\n";
  fs::permissions(dir_ / "runner.sh", fs::perms::owner_all);
  Result r = run(fmt::format("explore {} -s stencil-parametric --evals 2 --jobs 1 --runner ./runner.sh --db results.db -q",
                             kStencil));
  // The last lines (the shell in between may add "Aborted" and end with code 134 rather
  // than the signal): one line in the row, in the summary and in the error.
  const std::string tail =
      "error: unable to execute command: Executable \"ld\" doesn't exist! | pocl: kernel build failed";
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("first failure: stencil-parametric #1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[crash]: the runner "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("; its stderr ends: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(tail), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("error: no front: no candidate validated (2 crash); the first failure: stencil-parametric #1"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(rows(dir_ / "results.db",
                 "status = 'crash' AND instr(reason, 'its stderr ends: ') > 0 AND "
                 "instr(reason, 'pocl: kernel build failed') > 0"),
            2);
  Result listed = run("results results.db");
  EXPECT_EQ(listed.exit_code, 0) << listed.output;
  EXPECT_NE(listed.output.find(tail), std::string::npos) << listed.output;
}

// Item 12: a cut row (validated, timed once because an earlier run had a point that
// dominates it) stands for its kernels only where this run's own results would cut it
// again. A run of the same candidates as a run whose rows were all cut times them again and
// has a front (it said "no candidate validated: no front"); replaying such rows says they
// were all cut.
TEST_F(ExploreCli, ARunOfStoredCutRowsTimesThemAgainAndHasAFront) {
  const std::string args = fmt::format("explore {} -s stencil-parametric --evals 3 --jobs 1 --db results.db -q", kStencil);
  Result first = run(args);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  sql(dir_ / "results.db", "UPDATE evaluations SET status = 'cut', reason = 'timed once: over 5x the best point'");
  Result again = run(args);
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("fastest:"), std::string::npos) << again.output;
  EXPECT_EQ(again.output.find("no front"), std::string::npos) << again.output;

  sql(dir_ / "results.db", "UPDATE evaluations SET status = 'cut', reason = 'timed once: over 5x the best point'");
  Result replayed = run(fmt::format("explore {} -s stencil-parametric --evals 3 --replay results.db -q", kStencil));
  EXPECT_EQ(replayed.exit_code, 1) << replayed.output;
  EXPECT_NE(replayed.output.find("error: no front: the 3 validated candidate(s) were each cut (3 cut; 3 served from the store): timed once, "
                                 "slower than a point that dominates them, which a front does not hold"),
            std::string::npos)
      << replayed.output;
}

// Item 9: a network explored as one program combines its layers' alternatives (10 x 10
// for vgg_block's two convolutions under conv-parametric): their constraint spaces took
// minutes and gigabytes. Past the bound, one error before any space is built, naming the
// flag that raises it.
TEST_F(ExploreCli, AWholeProgramWithTooManyAlternativesIsRefusedNamingTheBound) {
  const std::string vgg = std::string(LIFTC_SOURCE_DIR) + "/examples/networks/vgg_block.sr";
  auto start = std::chrono::steady_clock::now();
  Result r = run(fmt::format("explore {} --whole-program -s conv-parametric --evals 1 --db results.db -q", vgg));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("error: the 3 definitions explored as one program have more than 32 alternatives (100 with "
                          "strategy conv-parametric; each definition's alternatives combine): each takes a constraint "
                          "space of its own, and their memory and time grow past any budget; give "
                          "--max-program-alternatives N for more, fewer strategies with -s, or explore a network layer "
                          "by layer (without --whole-program)"),
            std::string::npos)
      << r.output;
  EXPECT_LT(seconds, 60) << r.output;
  Result raised = run(fmt::format("explore {} --whole-program -s conv-parametric --max-program-alternatives 0 -q", vgg));
  EXPECT_EQ(raised.exit_code, 1) << raised.output;
  EXPECT_NE(raised.output.find("--max-program-alternatives 0: expected a whole number from 1 to 1000000"),
            std::string::npos)
      << raised.output;
}

// Item 21: the hint after writing a front names a plotting script that exists.
TEST_F(ExploreCli, TheHintAfterWritingAFrontNamesAScriptThatExists) {
  Result r = run(fmt::format("explore {} -s stencil-parametric --evals 2 --jobs 1 -o out -q", kStencil));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::string script = (fs::path(LIFTC_SOURCE_DIR) / "scripts" / "plot_pareto.py").string();
  EXPECT_NE(r.output.find(fmt::format("(plot: python3 {} out)", script)), std::string::npos) << r.output;
}

// A Winograd point is validated with the rounding its transforms allow per element
// (interp::rounding_allowance): its front folder has that allowance as allowance/<output>.npy,
// the hint says so, and the host program compares with it (--allowance), down to a tolerance
// of zero, where without it the point's values differ from the interpreter's; so does a
// network point's, per layer. A point without constant arrays has no allowance/.
TEST_F(ExploreCli, AWinogradFrontPointsHostProgramComparesWithTheAllowanceItWasValidatedWith) {
  const std::string form = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/forms/chw_oihw.sr";
  Result r = run(fmt::format("explore {} -s conv-winograd-gemm --search random --evals 2 --jobs 2 -o out", form));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("--allowance out/front/RANK/allowance for the 1 point(s) that have one"), std::string::npos)
      << r.output;
  ASSERT_TRUE(fs::is_regular_file(dir_ / "out/front/1/allowance/conv.npy")) << r.output;
  Result allowed = run_front_point(*this, "chw_oihw", "1", "--rtol 0 --atol 0");
  EXPECT_EQ(allowed.exit_code, 0) << allowed.output;
  EXPECT_NE(allowed.output.find("conv: matches the expected values (144 values)"), std::string::npos) << allowed.output;
  Result exact =
      run_shell(fmt::format("'{0}/out/front/1/build/chw_oihw' '{0}/out/inputs' '{0}/exact' --expected "
                            "'{0}/out/expected' --rtol 0 --atol 0",
                            dir_.string()));
  EXPECT_NE(exact.exit_code, 0) << exact.output;
  EXPECT_NE(exact.output.find("conv: DIFFERS"), std::string::npos) << exact.output;

  // A network's point: each layer through Winograd's arrays has its output's allowance, here
  // a grouped convolution's groups, the first explored and the others of its shape
  // (layer_allowance on each group's own channels), down to a tolerance of zero too.
  const std::string grouped = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/grouped/resnext_3x3.sr";
  std::filesystem::remove_all(dir_ / "out");
  Result groups =
      run(fmt::format("explore {} -s conv-winograd-gemm --search random --evals 2 --jobs 2 -o out", grouped));
  ASSERT_EQ(groups.exit_code, 0) << groups.output;
  for (const char* layer : {"conv_g0", "conv_g1", "conv_g2", "conv_g3"})
    EXPECT_TRUE(fs::is_regular_file(dir_ / "out/front/1/allowance" / (std::string(layer) + ".npy"))) << layer;
  Result grouped_host = run_front_point(*this, "resnext_3x3", "1", "--rtol 0 --atol 0");
  EXPECT_EQ(grouped_host.exit_code, 0) << grouped_host.output;
  EXPECT_NE(grouped_host.output.find("conv_g3: matches the expected values (512 values)"), std::string::npos)
      << grouped_host.output;

  Result tiled = run(fmt::format("explore {} -s conv-chw-tile --search random --evals 2 --jobs 2 -o tiled", form));
  ASSERT_EQ(tiled.exit_code, 0) << tiled.output;
  EXPECT_TRUE(fs::is_directory(dir_ / "tiled/front/1")) << tiled.output;
  EXPECT_FALSE(fs::exists(dir_ / "tiled/front/1/allowance")) << tiled.output;
  EXPECT_EQ(tiled.output.find("--allowance"), std::string::npos) << tiled.output;
}

// Item 21: explore --help says where the rules come from after an install.
TEST_F(ExploreCli, HelpNamesTheInstalledRulesFolder) {
  Result r = run("explore --help");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("<prefix>/share/liftc/rules"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace liftc::explore::test
