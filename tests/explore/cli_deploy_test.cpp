// `liftc deploy`: an exploration's front becomes a CMake project whose library chooses a
// point by memory budget and latency target; its demo is built with cmake and run on PoCL.
// Bad input to `liftc deploy` is one error line and exit 1, with nothing written.

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_folder.hpp"

namespace {

namespace fs = std::filesystem;

// Whether `out` says "chosen: N " for each of `points`, in this order.
bool chose_in_order(const std::string& out, const std::vector<std::size_t>& points) {
  std::size_t at = 0;
  for (std::size_t n : points) {
    at = out.find(fmt::format("chosen: {} ", n), at);
    if (at == std::string::npos) return false;
    ++at;
  }
  return true;
}

const std::string kConv = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/conv_small.sr";

struct Result {
  int exit_code = -1;
  std::string out, err;  // stdout, stderr
};

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::size_t count(const std::string& text, const std::string& piece) {
  std::size_t n = 0;
  for (auto at = text.find(piece); at != std::string::npos; at = text.find(piece, at + 1)) ++n;
  return n;
}

class DeployCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = liftc::explore::test::fresh_test_folder("liftc_deploy"); }
  void TearDown() override { fs::remove_all(dir_); }

  // A shell command in the test's folder; its stdout, stderr and exit code.
  Result shell(const std::string& command) {
    std::string out = (dir_ / "stdout.txt").string(), err = (dir_ / "stderr.txt").string();
    int status = std::system(fmt::format("cd '{}' && {} > '{}' 2> '{}'", dir_.string(), command, out, err).c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read(out), read(err)};
  }
  Result liftc(const std::string& args) { return shell(fmt::format("'{}' {}", LIFTC_BINARY, args)); }

  // cmake's configure and build of the deployed proj/ into proj/build (output in build.log).
  Result build_project() {
    return shell("cmake -S proj -B proj/build > build.log 2>&1 && cmake --build proj/build >> build.log 2>&1");
  }

  // The demo over three memory budgets in one process, on ref/'s inputs, checked against ref/.
  Result demo_of(std::int64_t first, std::int64_t second, std::int64_t third) {
    return shell(fmt::format("proj/build/demo --memory-budget {} --memory-budget {} --memory-budget {} "
                             "--inputs ref/inputs --expected ref",
                             first, second, third));
  }

  // ./memory_runner.sh: the real runner (each candidate validated against the interpreter
  // there), but a candidate's time is reported as 10^6 / its buffers' bytes ms: more memory,
  // faster, so a front holds points of different memory whatever the machine's load.
  // `liftc explore ARGS --runs 2 --pareto -o ex` through ./memory_runner.sh.
  Result explore_by_memory(const std::string& args) {
    write_memory_runner();
    return liftc(fmt::format("explore {} --runs 2 --pareto -o ex --runner ./memory_runner.sh -q", args));
  }

  void write_memory_runner() {
    std::ofstream(dir_ / "memory_runner.sh") << fmt::format(
        "#!/bin/sh\n"
        "grep -q '^kernel\\|^library' \"$1/bundle.txt\" || exec '{0}' \"$1\"\n"
        "t=$(awk '$1 == \"buffer\" {{ s += $4 * 4 }} END {{ printf \"%.6f\", 1000000 / s }}' \"$1/bundle.txt\")\n"
        "'{0}' \"$1\" | sed -e '/\"status\":\"ok\"/s/\"samples_ms\":\\[[^]]*\\]/\"samples_ms\":['\"$t,$t\"']/' \\\n"
        "  -e '/\"status\":\"ok\"/s/\"\\(median\\|min\\|max\\)_ms\":[^,]*/\"\\1_ms\":'\"$t\"'/g'\n",
        LIFTC_RUNNER_PATH);
    fs::permissions(dir_ / "memory_runner.sh", fs::perms::owner_all);
  }

  fs::path dir_;
};

// The whole path: explore to a front of several memory sizes, deploy it, build the
// project, and let the demo choose, switch and validate.
TEST_F(DeployCli, FrontLibraryChoosesByBudgetSwitchesAndValidates) {
  // The front must hold points of different memory whatever the machine's load, so the
  // candidates run in the real runner (validated against the interpreter there) but each
  // reports its time as 10^6 / its buffers' bytes ms: more memory, faster. The demo below
  // validates every point it runs itself, against `liftc eval`'s outputs.
  // Six random draws (seed 1) reach the strategies of several memory sizes.
  Result explored = explore_by_memory(kConv + " -s conv-lower -s conv-chw -s conv-chw-omega --search random --evals 6");
  ASSERT_EQ(explored.exit_code, 0) << explored.out << explored.err;

  // The front, fastest first: point 1 has the most memory; `small` is the first point of the least.
  nlohmann::json front = nlohmann::json::parse(read(dir_ / "ex/pareto.json"));
  std::set<std::int64_t> sizes;
  std::int64_t least = INT64_MAX, most = 0;
  std::size_t small = 0;
  for (std::size_t i = 0; i < front.size(); ++i) {
    std::int64_t m = front[i]["memory_bytes"];
    sizes.insert(m);
    most = std::max(most, m);
    if (m < least) least = m, small = i + 1;
  }
  ASSERT_GE(sizes.size(), 2u) << read(dir_ / "ex/pareto.csv");
  ASSERT_EQ(front[0]["memory_bytes"], most);

  Result reference = liftc(fmt::format("eval {} -o ref --save-inputs", kConv));
  ASSERT_EQ(reference.exit_code, 0) << reference.err;
  Result deployed = liftc("deploy ex -o proj");
  ASSERT_EQ(deployed.exit_code, 0) << deployed.err;
  EXPECT_NE(deployed.out.find(fmt::format("wrote proj: the front library proj_front ({} point(s))", front.size())),
            std::string::npos)
      << deployed.out;
  // No CLBlast point: the project does not look for CLBlast.
  EXPECT_EQ(read(dir_ / "proj/CMakeLists.txt").find("clblast"), std::string::npos);
  ASSERT_EQ(build_project().exit_code, 0) << read(dir_ / "build.log");

  // Three requests in one process: the least memory, room for every point, the least again
  // (its programs are cached by then). Each chosen point validates.
  Result demo = demo_of(least, most, least);
  ASSERT_EQ(demo.exit_code, 0) << demo.out << demo.err;
  EXPECT_TRUE(chose_in_order(demo.out, {small, 1, small})) << demo.out;
  EXPECT_EQ(count(demo.out, "conv: matches the expected values (256 values)"), 3u) << demo.out;
  EXPECT_NE(demo.out.find(fmt::format("switch: from 1 to {} in", small)), std::string::npos) << demo.out;
  EXPECT_NE(demo.out.find("programs cached"), std::string::npos) << demo.out;

  // A latency target every point meets: the least memory; one none meets: the fastest, said so.
  Result met = shell("proj/build/demo --latency-ms 1000000000");
  EXPECT_EQ(met.exit_code, 0) << met.err;
  EXPECT_NE(met.out.find(fmt::format("chosen: {} ", small)), std::string::npos) << met.out;
  Result missed = shell("proj/build/demo --latency-ms 0.000001");
  EXPECT_EQ(missed.exit_code, 0) << missed.err;
  EXPECT_NE(missed.out.find("chosen: 1 "), std::string::npos) << missed.out;
  EXPECT_NE(missed.out.find("latency target not met"), std::string::npos) << missed.out;

  // A budget below every point: one error line, exit 1.
  Result too_small = shell(fmt::format("proj/build/demo --memory-budget {}", least - 1));
  EXPECT_EQ(too_small.exit_code, 1);
  EXPECT_EQ(too_small.err, fmt::format("error: no front point fits in a memory budget of {} bytes (the smallest, "
                                       "point {}, needs {} bytes)\n",
                                       least - 1, small, least));

  // The same front generated again from the store: the same kernels and launch plans.
  Result from_store = liftc("deploy --db ex/results.db --run 1 -o proj2");
  ASSERT_EQ(from_store.exit_code, 0) << from_store.err;
  EXPECT_EQ(read(dir_ / "proj2/points.cpp"), read(dir_ / "proj/points.cpp"));

  // The project is not overwritten without --force, and is with it.
  Result again = liftc("deploy ex -o proj");
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(again.err, "error: -o proj: exists; pass --force to replace its files\n");
  EXPECT_EQ(liftc("deploy ex -o proj --force").exit_code, 0);
}

// A front with a CLBlast point: CLBlast's Convgemm between liftc's kernels (the most memory,
// so the fastest by the memory runner) and a liftc point of less memory. The deployed
// project links CLBlast, and its demo switches to each and validates both. One CLBlast
// point of a tiny shape: PoCL compiles CLBlast's kernel slowly (30-60 s cold).
TEST_F(DeployCli, FrontWithAClblastPointDeploysAndValidates) {
#ifndef LIFTC_HAVE_CLBLAST
  GTEST_SKIP() << "CLBlast was not found when liftc was built (scripts/setup.sh installs libclblast-dev): no clblast- "
                  "point to deploy";
#endif
  const std::string conv = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/conv_relu_swapped.sr";
  Result explored = explore_by_memory(conv + " -s clblast-convgemm -s conv-lower --evals 3 --jobs 1 --timeout 600");
  ASSERT_EQ(explored.exit_code, 0) << explored.out << explored.err;
  nlohmann::json front = nlohmann::json::parse(read(dir_ / "ex/pareto.json"));
  ASSERT_GE(front.size(), 2u) << read(dir_ / "ex/pareto.csv");
  ASSERT_EQ(front[0]["strategy"], "clblast-convgemm") << read(dir_ / "ex/pareto.csv");
  // Fastest first: the CLBlast point has the most memory; `small` is the first point of the least.
  std::int64_t most = front[0]["memory_bytes"], least = front.back()["memory_bytes"];
  ASSERT_LT(least, most) << read(dir_ / "ex/pareto.csv");
  std::size_t small = 0;
  for (std::size_t i = front.size(); i-- > 0;)
    if (front[i]["memory_bytes"] == least) small = i + 1;
  // The CLBlast point's plan: liftc's kernels around the library call, as the runner ran it.
  nlohmann::json plan = nlohmann::json::parse(read(dir_ / "ex/front/1/plan.json"));
  std::vector<std::string> steps;
  for (const auto& k : plan["stages"][0]["kernels"]) steps.push_back(k.contains("library") ? "library" : "kernel");
  EXPECT_EQ(steps, (std::vector<std::string>{"kernel", "kernel", "library", "kernel"})) << plan.dump(2);

  ASSERT_EQ(liftc(fmt::format("eval {} -o ref --save-inputs", conv)).exit_code, 0);
  Result deployed = liftc("deploy ex -o proj");
  ASSERT_EQ(deployed.exit_code, 0) << deployed.err;
  EXPECT_NE(read(dir_ / "proj/CMakeLists.txt").find("find_library(CLBLAST_LIBRARY clblast)"), std::string::npos);
  ASSERT_EQ(build_project().exit_code, 0) << read(dir_ / "build.log");
  Result demo = demo_of(most, least, most);
  ASSERT_EQ(demo.exit_code, 0) << demo.out << demo.err;
  EXPECT_TRUE(chose_in_order(demo.out, {1, small, 1})) << demo.out;
  EXPECT_NE(demo.out.find("clblast-convgemm #1: "), std::string::npos) << demo.out;
  EXPECT_EQ(count(demo.out, "conv: matches the expected values (648 values)"), 3u) << demo.out;

  // Where CMake finds no CLBlast (its search confined to an empty root; OpenCL given), the
  // configure fails with one message naming the package.
  Result without = shell(
      "cmake -S proj -B nobuild -DCMAKE_FIND_ROOT_PATH=/nonexistent -DCMAKE_FIND_ROOT_PATH_MODE_LIBRARY=ONLY "
      "-DCMAKE_FIND_ROOT_PATH_MODE_INCLUDE=ONLY -DOpenCL_LIBRARY=\"$(sed -n 's/^OpenCL_LIBRARY:FILEPATH=//p' "
      "proj/build/CMakeCache.txt)\" -DOpenCL_INCLUDE_DIR=\"$(sed -n 's/^OpenCL_INCLUDE_DIR:PATH=//p' "
      "proj/build/CMakeCache.txt)\"");
  EXPECT_NE(without.exit_code, 0) << without.out;
  EXPECT_NE(without.err.find("CLBlast was not found, and a point of this front calls it: install it"), std::string::npos)
      << without.err;
  EXPECT_NE(without.err.find("libclblast-dev"), std::string::npos) << without.err;

  // The same front generated again from the store: the same steps and parameters.
  Result from_store = liftc("deploy --db ex/results.db --run 1 -o proj2");
  ASSERT_EQ(from_store.exit_code, 0) << from_store.err;
  EXPECT_EQ(read(dir_ / "proj2/points.cpp"), read(dir_ / "proj/points.cpp"));
}

// A front of Winograd points: each was validated with a rounding allowance per output element
// (front/<rank>/allowance/conv.npy), which the deployed project carries as
// allowance/<point>/conv.npy and its demo compares with (--allowance), down to a tolerance of
// zero, where without it the same point's values differ from the interpreter's.
TEST_F(DeployCli, AWinogradPointsDemoComparesWithTheAllowanceItWasValidatedWith) {
  const std::string form = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/forms/chw_oihw.sr";
  Result explored =
      liftc(fmt::format("explore {} -s conv-winograd-gemm --search random --evals 2 --jobs 2 --pareto -o ex -q", form));
  ASSERT_EQ(explored.exit_code, 0) << explored.out << explored.err;
  nlohmann::json front = nlohmann::json::parse(read(dir_ / "ex/pareto.json"));
  ASSERT_GE(front.size(), 1u);
  Result deployed = liftc("deploy ex -o proj");
  ASSERT_EQ(deployed.exit_code, 0) << deployed.err;
  for (std::size_t n = 1; n <= front.size(); ++n)
    EXPECT_EQ(read(dir_ / fmt::format("proj/allowance/{}/conv.npy", n)),
              read(dir_ / fmt::format("ex/front/{}/allowance/conv.npy", n)))
        << n;
  EXPECT_NE(read(dir_ / "proj/README.md").find("--allowance allowance"), std::string::npos);
  ASSERT_EQ(build_project().exit_code, 0) << read(dir_ / "build.log");

  const std::string on_exploration_data = "proj/build/demo --inputs ex/inputs --expected ex/expected --rtol 0 --atol 0";
  Result exact = shell(on_exploration_data);
  EXPECT_EQ(exact.exit_code, 1) << exact.out << exact.err;
  EXPECT_NE(exact.out.find("conv: DIFFERS"), std::string::npos) << exact.out;
  Result allowed = shell(on_exploration_data + " --allowance proj/allowance");
  EXPECT_EQ(allowed.exit_code, 0) << allowed.out << allowed.err;
  EXPECT_NE(allowed.out.find("conv: matches the expected values (144 values)"), std::string::npos) << allowed.out;

  // --allowance widens a comparison: without --expected, or a folder that is not there, an error.
  Result alone = shell("proj/build/demo --allowance proj/allowance");
  EXPECT_EQ(alone.exit_code, 1);
  EXPECT_EQ(alone.err, "error: --allowance needs --expected: it widens that comparison\n");
  Result missing = shell("proj/build/demo --expected ex/expected --allowance nowhere");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "error: the allowance directory nowhere does not exist\n");

  // A front regenerated from the store has no exploration's inputs to compute one on: none.
  Result from_store = liftc("deploy --db ex/results.db --run 1 -o proj2");
  ASSERT_EQ(from_store.exit_code, 0) << from_store.err;
  EXPECT_EQ(read(dir_ / "proj2/points.cpp"), read(dir_ / "proj/points.cpp"));
  EXPECT_FALSE(fs::exists(dir_ / "proj2/allowance"));
  EXPECT_EQ(read(dir_ / "proj2/README.md").find("--allowance allowance"), std::string::npos);
}

// A hand-made front of one point (conv-gpu #1, v=4) in `dir`: y = x copied, two buffers of
// 4 floats (32 bytes). `memory` is the row's memory_bytes; `arg` the plan's int argument;
// `time` the row's time.
void write_front(const fs::path& dir, std::int64_t memory = 32, const std::string& arg = "4", double time = 1.5) {
  fs::create_directories(dir / "front/1");
  std::ofstream(dir / "pareto.json") << fmt::format(
      R"([{{"time_ms": {}, "spread_ms": 0.1, "memory_bytes": {}, "strategy": "conv-gpu", "alternative": 1,
            "point": {{"v": 4}}}}])",
      time, memory);
  std::ofstream(dir / "front/1/plan.json") << fmt::format(
      R"({{"format": "liftc-host-plan", "version": 1,
  "buffers": [{{"name": "x", "type": "float", "role": "input", "elements": 4, "shape": [4]}},
              {{"name": "y", "type": "float", "role": "output", "elements": 4, "shape": [4]}}],
  "stages": [{{"source": "kernel void copy(global const float* x, global float* y, int n) {{ y[get_global_id(0)] = x[get_global_id(0)]; }}",
              "build_options": "", "kernels": [{{"name": "copy", "global": [4], "local": [],
              "args": [{{"buffer": "x"}}, {{"buffer": "y"}}, {{"int": {}}}]}}]}}]}})",
      arg);
}

// Item 11 of issue 36: a front folder is checked before it is trusted: a network row whose
// layers nest (as deep as a stack allows no recursion), a memory that is not the plan's, an
// int argument that does not fit 32 bits (4294967297 read as 1).
TEST_F(DeployCli, AFolderIsCheckedBeforeItIsTrusted) {
  write_front(dir_ / "good");
  write_front(dir_ / "less", 16);
  write_front(dir_ / "more", 64);
  write_front(dir_ / "wide", 32, "4294967297");
  write_front(dir_ / "negative", 32, "-2147483649");
  write_front(dir_ / "fraction", 32, "1.5");
  write_front(dir_ / "deep");
  write_front(dir_ / "network", 8);  // a network's row: its plan's peak
  std::ofstream(dir_ / "network/pareto.json") << R"([{"time_ms": 1.5, "spread_ms": 0.1, "memory_bytes": 8, "layers":
      [{"layer": "a", "strategy": "conv-gpu", "alternative": 1, "point": {"v": 4}}]}])";
  {
    std::ofstream deep(dir_ / "deep/pareto.json");
    deep << R"([{"time_ms": 1.5, "spread_ms": 0.1, "memory_bytes": 32, "layers": [)";
    for (int i = 0; i < 200000; ++i) deep << R"({"layer": "a", "layers": [)";
    deep << R"({"layer": "a", "strategy": "s", "alternative": 1, "point": {}})";
    for (int i = 0; i < 200000; ++i) deep << "]}";
    deep << "]}]";
  }
  Result good = liftc("deploy good -o out");
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_NE(good.out.find("point 1: 1.5000 ms, 32 bytes, conv-gpu #1: v=4"), std::string::npos) << good.out;
  fs::remove_all(dir_ / "out");

  struct Case {
    std::string args, error;
  };
  const Case cases[] = {
      {"deploy less -o out",
       "less/pareto.json (point 1): its memory_bytes 16 is not what its plan "
       "less/front/1/plan.json allocates (32 bytes)"},
      {"deploy more -o out",
       "more/pareto.json (point 1): its memory_bytes 64 is not what its plan "
       "more/front/1/plan.json allocates (32 bytes)"},
      {"deploy wide -o out",
       "wide/front/1/plan.json: kernel copy: the int argument 4294967297 is not a whole number of 32 bits"},
      {"deploy negative -o out",
       "negative/front/1/plan.json: kernel copy: the int argument -2147483649 is not a whole number of 32 bits"},
      {"deploy fraction -o out",
       "fraction/front/1/plan.json: kernel copy: the int argument 1.5 is not a whole number of 32 bits"},
      {"deploy deep -o out", "deep/pareto.json (point 1): a layer's row holds layers of its own"},
      {"deploy network -o out",
       "network/pareto.json (point 1): its memory_bytes 8 is not what its plan "
       "network/front/1/plan.json holds at its peak (32 bytes)"},
  };
  for (const Case& c : cases) {
    Result r = liftc(c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args;
    EXPECT_EQ(r.err, "error: " + c.error + "\n") << c.args;
    EXPECT_FALSE(fs::exists(dir_ / "out")) << c.args;
  }
}

// Item 7 of issue 36: a deploy locks its -o folder while it writes it: a second one (or an
// explore) into it is refused, never mixed with the first one's files.
TEST_F(DeployCli, OneDeployPerFolder) {
  write_front(dir_ / "a", 32, "4", 1.5);
  write_front(dir_ / "b", 32, "8", 2.5);
  ASSERT_EQ(liftc("deploy a --name one -o ref_a").exit_code, 0);
  ASSERT_EQ(liftc("deploy b --name two -o ref_b").exit_code, 0);

  // The folder held by another process (as while a deploy writes it).
  fs::create_directories(dir_ / "held");
  int fd = ::open((dir_ / "held").c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  auto refused = [](const std::string& folder) {
    return fmt::format("error: -o {}: another liftc explore or deploy is writing into this folder; wait for it to end, "
                       "or give another folder\n",
                       folder);
  };
  Result r = liftc("deploy a -o held --force");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, refused("held"));
  ::close(fd);
  EXPECT_TRUE(fs::is_empty(dir_ / "held"));
  EXPECT_EQ(liftc("deploy a -o held --force").exit_code, 0);

  // Two at once, many times: each writes the whole project or is refused, and the folder
  // holds one project's files, never a mix.
  auto files_of = [&](const fs::path& d) {
    std::vector<std::pair<std::string, std::string>> files;
    for (const auto& e : fs::directory_iterator(d)) files.emplace_back(e.path().filename().string(), read(e.path()));
    std::sort(files.begin(), files.end());
    return files;
  };
  const auto a = files_of(dir_ / "ref_a"), b = files_of(dir_ / "ref_b");
  for (int round = 0; round < 20; ++round) {
    Result both = shell(fmt::format(
        "( ('{0}' deploy a --name one -o shared --force > a.out 2>&1; echo $? > a.rc) & "
        "('{0}' deploy b --name two -o shared --force > b.out 2>&1; echo $? > b.rc) & wait )",
        LIFTC_BINARY));
    ASSERT_EQ(both.exit_code, 0);
    for (const char* who : {"a", "b"}) {
      std::string rc = read(dir_ / fmt::format("{}.rc", who)), out = read(dir_ / fmt::format("{}.out", who));
      if (rc == "0\n") EXPECT_NE(out.find("wrote shared:"), std::string::npos) << out;
      else EXPECT_EQ(out, refused("shared")) << rc << out;
    }
    auto got = files_of(dir_ / "shared");
    EXPECT_TRUE(got == a || got == b) << "round " << round << ": the folder holds a mix of the two projects";
  }
}

// Bad input: each row one error line and exit 1, and no -o folder made.
TEST_F(DeployCli, BadInputIsOneErrorLine) {
  fs::create_directories(dir_ / "empty");
  fs::create_directories(dir_ / "nofront");
  std::ofstream(dir_ / "nofront/pareto.json") << "[]\n";
  const char* row = R"([{"time_ms": 1.5, "spread_ms": 0.1, "memory_bytes": 2640, "strategy": "conv-gpu",
                         "alternative": 1, "point": {"v": 4}}])";
  fs::create_directories(dir_ / "noplan");
  std::ofstream(dir_ / "noplan/pareto.json") << row;
  fs::create_directories(dir_ / "badplan/front/1");
  std::ofstream(dir_ / "badplan/pareto.json") << row;
  std::ofstream(dir_ / "badplan/front/1/plan.json") << "{}";
  fs::create_directories(dir_ / "badrow");
  std::ofstream(dir_ / "badrow/pareto.json") << R"([{"time_ms": "fast"}])";
  fs::create_directories(dir_ / "existing");
  // A front point whose plan calls CLBlast's Gemm (2x3 times 3x4) with `sizes` and one tuning
  // parameter `param`, as an edited or damaged plan.json may: WGD = 0 crashed CLBlast in the
  // deployed library, KWID = 0 never ended, sizes past A read past it.
  auto library_front = [&](const std::string& name, const std::string& sizes, const std::string& param) {
    fs::create_directories(dir_ / name / "front/1");
    std::ofstream(dir_ / name / "pareto.json") << R"([{"time_ms": 1.5, "spread_ms": 0.1, "memory_bytes": 104, )"
                                                  R"("strategy": "clblast-gemm", "alternative": 1, "point": {"WGD": 8}}])";
    std::ofstream(dir_ / name / "front/1/plan.json")
        << R"({"format": "liftc-host-plan", "version": 1, "buffers": [)"
           R"({"name": "a", "type": "float", "role": "input", "elements": 6, "shape": [2, 3]},)"
           R"({"name": "b", "type": "float", "role": "input", "elements": 12, "shape": [3, 4]},)"
           R"({"name": "c", "type": "float", "role": "output", "elements": 8, "shape": [2, 4]}],)"
           R"("stages": [{"source": "", "build_options": "", "kernels": [{"name": "clblast-gemm", "library": )"
           R"({"routine": "clblast-gemm", "sizes": )" + sizes + R"(, "parameters": [)" + param + R"(]},)"
           R"("args": [{"buffer": "a"}, {"buffer": "b"}, {"buffer": "c"}]}]}]})";
  };
  library_front("wgd0", "[2, 4, 3]", R"({"kernel": "XgemmDirect", "name": "WGD", "value": 0})");
  library_front("kwid0", "[2, 4, 3]", R"({"kernel": "XgemmDirect", "name": "KWID", "value": 0})");
  library_front("pastA", "[2, 4, 30]", R"({"kernel": "XgemmDirect", "name": "WGD", "value": 8})");

  struct Case {
    std::string args, error;
  };
  const Case cases[] = {
      {"deploy missing -o out", "missing: no such folder"},
      {"deploy empty -o out",
       "empty is not an exploration's output: it has no pareto.json (write one with liftc explore F.sr --pareto -o empty)"},
      {"deploy nofront -o out", "nofront/pareto.json: the front has no point (no candidate validated)"},
      {"deploy badrow -o out", "badrow/pareto.json (point 1): no measured time or memory"},
      {"deploy noplan -o out",
       "noplan/front/1/plan.json is missing (an exploration by an earlier liftc, which kept no plans: explore again, "
       "or deploy from its store with --db STORE --run N)"},
      {"deploy badplan -o out", "badplan/front/1/plan.json: not a host plan (its \"format\" is not \"liftc-host-plan\")"},
      {"deploy wgd0 -o out", "wgd0/front/1/plan.json: library call clblast-gemm: XgemmDirect.WGD = 0 is not one of 8, 16, 32, 64"},
      {"deploy kwid0 -o out", "kwid0/front/1/plan.json: library call clblast-gemm: XgemmDirect.KWID = 0 is not one of 2, 8"},
      {"deploy pastA -o out", "pastA/front/1/plan.json: library call clblast-gemm: its A needs 60 elements, the buffer has 6"},
      {"deploy noplan -o existing", "-o existing: exists; pass --force to replace its files"},
      {"deploy -o out", "deploy: give the exploration's folder (liftc explore F.sr --pareto -o DIR) or --db STORE --run N"},
      {"deploy noplan --db x.db --run 1 -o out", "deploy: give the exploration's folder or --db STORE, not both"},
      {"deploy --db x.db -o out", "--db x.db needs --run N (liftc results x.db lists the runs)"},
      {"deploy --run 1 -o out", "--run N needs --db STORE"},
      {"deploy --db x.db --run 1 -o out", "no results store at x.db"},
  };
  for (const Case& c : cases) {
    Result r = liftc(c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args;
    EXPECT_EQ(r.err, "error: " + c.error + "\n") << c.args;
    EXPECT_FALSE(fs::exists(dir_ / "out")) << c.args;
  }
}

}  // namespace
