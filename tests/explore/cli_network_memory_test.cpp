// A network front point's memory (pareto.csv's memory_bytes) is the peak its host program
// holds: each device buffer from the first kernel that uses it to the last (compose.hpp), which
// the host program prints as `device memory: N bytes at most`. Before, composition counted
// every buffer of a layer's kernels for the whole layer, a network input from the start and
// an output no later layer reads to the end: a convolution pooled in its definition, split,
// its convolution by conv-chw-tile (a kernel pads the image into a buffer of its own, then
// the image is freed), had 4240 bytes on the front where its host program held 3216 (issue
// 38). One row a network: a pooling split off its convolution (its points fused and
// unfused), a residual block, MobileNetV2's block in half storage. Small sizes, few
// evaluations: a CI test on PoCL.

#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "explore_cli.hpp"

namespace liftc::explore::test {
namespace {

struct MemoryCase {
  const char* program;  // under examples/
  const char* flags;    // explore's, besides --pareto and -o out
};

// Each row of pareto.csv (its header skipped): its id (the rank) and memory_bytes.
std::vector<std::pair<std::string, std::string>> front_memory(const std::string& csv) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line)) {
    std::vector<std::string> cells;
    std::istringstream row(line);
    for (std::string cell; cells.size() < 6 && std::getline(row, cell, ',');) cells.push_back(cell);
    if (cells.size() == 6) out.emplace_back(cells[0], cells[5]);  // id,run,status,time_ms,spread_ms,memory_bytes
  }
  return out;
}

void expect_every_point_holds_its_memory(ExploreCli& cli, const MemoryCase& c) {
  const std::string path = std::string(LIFTC_SOURCE_DIR) + "/examples/" + c.program;
  Result r = cli.run(fmt::format("explore {} {} --pareto -o out", path, c.flags));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::string csv = cli.read(cli.dir() / "out/pareto.csv");
  auto points = front_memory(csv);
  ASSERT_FALSE(points.empty()) << csv;
  const std::string name = std::filesystem::path(c.program).stem().string();
  for (const auto& [rank, memory] : points) {
    Result host = run_front_point(cli, name, rank);
    ASSERT_EQ(host.exit_code, 0) << host.output;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(host.output, m, std::regex("device memory: ([0-9]+) bytes at most"))) << host.output;
    EXPECT_EQ(m[1].str(), memory) << c.program << ", point " << rank << "\n" << csv << host.output;
  }
}

TEST_F(ExploreCli, EveryNetworkFrontPointsMemoryIsThePeakItsHostProgramHolds) {
  for (const MemoryCase& c : {
           MemoryCase{"conv/forms/conv_pool_one_definition.sr",
                      "-s conv-chw-tile -s conv-pool-tile --evals 3 --runs 2 --jobs 2"},
           MemoryCase{"networks/resnet_block.sr", "-s conv-chw-tile -s conv-gpu --evals 2 --runs 2 --jobs 2"},
           MemoryCase{"networks/mobilenet_v2_block.sr",
                      "-s conv-chw-tile -s conv-dw-pw-private --storage half --evals 2 --runs 2 --jobs 2"},
       }) {
    SCOPED_TRACE(c.program);
    std::filesystem::remove_all(dir() / "out");
    std::filesystem::remove_all(dir() / "values");
    expect_every_point_holds_its_memory(*this, c);
  }
}

}  // namespace
}  // namespace liftc::explore::test
