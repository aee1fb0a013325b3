// A network point's memory is its liveness peak (each buffer held from the first kernel that
// uses it to the last), and the generated host program holds that much (issue 36, item 5;
// issue 38: no less either): it makes each buffer before the first kernel that uses it and
// releases it after the last, and prints the most it held; so does the deployed library's
// run. Before, both allocated every layer's buffers at once, so the demo's --memory-budget
// admitted points that allocated more.

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;

// Runs `command` in a shell; its exit status and what it printed.
std::pair<int, std::string> shell(const std::string& command, const fs::path& log) {
  int status = std::system((command + " > " + log.string() + " 2>&1").c_str());
  std::ifstream in(log);
  return {status, std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>())};
}

// Builds and runs front point `rank` of exploration folder `dir` on the network's inputs,
// checked against its expected values; the device memory it says it held at most.
long long peak_of_point(const fs::path& dir, std::size_t rank) {
  fs::path project = dir / "front" / std::to_string(rank);
  std::string p = project.string();
  auto [built, log] = shell(fmt::format("cmake -S {0} -B {0}/build && cmake --build {0}/build", p), project / "log.txt");
  EXPECT_EQ(built, 0) << log;
  fs::create_directories(project / "out");
  auto [ran, printed] = shell(fmt::format("{0}/build/vgg_block {1}/inputs {0}/out --expected {1}/expected", p, dir.string()),
                              project / "run.txt");
  EXPECT_EQ(ran, 0) << printed;
  std::smatch m;
  if (!std::regex_search(printed, m, std::regex("device memory: ([0-9]+) bytes at most"))) {
    ADD_FAILURE() << printed;
    return -1;
  }
  return std::stoll(m[1]);
}

nlohmann::json front_of(const fs::path& dir) {
  std::ifstream in(dir / "pareto.json");
  return nlohmann::json::parse(in);
}

TEST(HostProgramMemory, NetworkPointHoldsNoMoreThanItsMemoryAndADeployedBudgetIsALimit) {
  fs::path dir = fs::temp_directory_path() / fmt::format("liftc_memory_test_{}", ::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string net = std::string(LIFTC_SOURCE_DIR) + "/examples/networks/vgg_block.sr";
  std::string explore = fmt::format("{} explore {} --pareto --evals 6 --seed 1 -j 1 --db {}/results.db", LIFTC_BINARY,
                                    net, dir.string());
  auto [explored, out] = shell(explore + " -o " + (dir / "all").string(), dir / "explore.txt");
  ASSERT_EQ(explored, 0) << out;
  nlohmann::json front = front_of(dir / "all");
  ASSERT_FALSE(front.empty());
  long long least = -1, total_allocated = 0;  // the most by which a point's buffers together exceed its memory
  for (std::size_t rank = 1; rank <= front.size(); ++rank) {
    long long reported = front[rank - 1]["memory_bytes"].get<long long>();
    long long peak = peak_of_point(dir / "all", rank);
    EXPECT_GT(peak, 0);
    EXPECT_EQ(peak, reported) << "point " << rank;
    // The layers' buffers together: what the host program allocated before.
    for (const auto& layer : front[rank - 1]["layers"]) total_allocated = std::max(total_allocated, layer["memory_bytes"].get<long long>());
    if (least < 0 || reported < least) least = reported;
  }
  EXPECT_GT(total_allocated, 0);

  // The deployed front under a budget of the smallest point's memory: the library chooses
  // a point within it, and its run holds no more than the budget.
  auto [deployed, deploy_out] =
      shell(fmt::format("{} deploy {}/all -o {}/deployed", LIFTC_BINARY, dir.string(), dir.string()), dir / "deploy.txt");
  ASSERT_EQ(deployed, 0) << deploy_out;
  std::string d = dir.string();
  auto [built, build_log] =
      shell(fmt::format("cmake -S {0}/deployed -B {0}/deployed/build && cmake --build {0}/deployed/build", d), dir / "build.txt");
  ASSERT_EQ(built, 0) << build_log;
  auto [ran, printed] = shell(fmt::format("{0}/deployed/build/demo --memory-budget {1} --inputs {0}/all/inputs "
                                          "--expected {0}/all/expected",
                                          d, least),
                              dir / "demo.txt");
  ASSERT_EQ(ran, 0) << printed;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(printed, m, std::regex("device memory ([0-9]+) bytes at most"))) << printed;
  EXPECT_GT(std::stoll(m[1]), 0);
  EXPECT_LE(std::stoll(m[1]), least) << printed;
  fs::remove_all(dir);
}

}  // namespace
