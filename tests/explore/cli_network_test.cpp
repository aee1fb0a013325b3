// `liftc explore` on a network (a program of several definitions): each layer explored with
// its own space and reference, layers of one shape once, the network front composed and
// written with a host program per point that runs every layer and validates each against
// the interpreter. Small sizes, few evaluations: a CI test on PoCL.

#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "explore_cli.hpp"

namespace liftc::explore::test {
namespace {

namespace fs = std::filesystem;

const std::string kVggBlock = std::string(LIFTC_SOURCE_DIR) + "/examples/networks/vgg_block.sr";

// conv2 is explored as conv1 (one shape): its kernels take conv1's point, whose kernels'
// own work-group sizes name conv1's parts (conv1_part1_local_d, conv-chw-tile's pad):
// conv2's pad kernel launches with them, and the host program validates every layer.
TEST_F(ExploreCli, ALayerExploredAsAnotherTakesItsKernelsOwnWorkGroupSizes) {
  // The random search's first three points (seed 1) give the front a work-group size of its own.
  Result r = run(fmt::format(
      "explore {} -s conv-chw-tile --search random --fusion off --pareto --evals 3 --runs 2 --jobs 2 -o out", kVggBlock));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("conv1_part1_local_0="), std::string::npos) << r.output;
  std::string host = read(dir_ / "out/front/1/main.cpp");
  auto launch = [&](const std::string& kernel) {  // `{"K", dims, {global}, {local}, has_local`
    auto at = host.find("{\"" + kernel + "\", ");
    EXPECT_NE(at, std::string::npos) << kernel << "\n" << host;
    if (at == std::string::npos) return std::string();
    auto global = host.find("}, {", at);
    return host.substr(global + 4, host.find(", {{", global) - global - 4);
  };
  std::string conv1 = launch("conv1_part1_kernel"), conv2 = launch("conv2_part1_kernel");
  EXPECT_EQ(conv1, conv2);
  EXPECT_NE(conv1.find("}, true"), std::string::npos) << conv1;  // a size of its own (3 points: not all the runtime's)
  Result run = run_front_point(*this, "vgg_block");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  expect_all_in(run.output, {"conv1: matches the expected values", "conv2: matches the expected values",
                             "pooled: matches the expected values"});
}

// A network's layers share one set of serving runners: a layer's first candidate runs in the
// device context a runner opened for an earlier layer, the first layer's in the one its
// runner opened for the probe's bundle while the spaces were made (ServePool::warm). One
// candidate a layer: none is cut, and no failure reopens a context.
TEST_F(ExploreCli, ANetworksLayersRunInTheRunnersOfTheLayersBefore) {
  const std::string resnet = std::string(LIFTC_SOURCE_DIR) + "/examples/networks/resnet_block.sr";
  Result r = run(fmt::format("explore {} -s conv-lower --fusion off --evals 1 --runs 1 --jobs 1 -q", resnet));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::vector<std::pair<int, int>> layers;  // (run, in a kept runner context) per layer, in order
  std::regex counts(R"(\((\d+) run, (\d+) in a kept runner context)");
  for (auto it = std::sregex_iterator(r.output.begin(), r.output.end(), counts); it != std::sregex_iterator(); ++it)
    layers.emplace_back(std::stoi((*it)[1]), std::stoi((*it)[2]));
  ASSERT_EQ(layers.size(), 3u) << r.output;  // conv1, conv2, block
  for (const auto& layer : layers) EXPECT_EQ(layer, std::make_pair(1, 1)) << r.output;
}

// Each layer of a network gets the model-guided search's own inputs: a tuning database's rows
// of the other layers (a layer's own rows are --warm-start's) train its model, from the stores
// --train-db names, else from the run's store's earlier runs.
TEST_F(ExploreCli, EachLayerOfANetworkTrainsItsModelOnATuningDatabase) {
  std::string explore = fmt::format("explore {} --fusion off --evals 4 --runs 1 --jobs 2", kVggBlock);
  Result first = run(explore + " --search random --db first.db");
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_EQ(first.output.find("tuning database"), std::string::npos) << first.output;
  Result named = run(explore + " --search model --db second.db --train-db first.db");
  ASSERT_EQ(named.exit_code, 0) << named.output;
  Result own = run(explore + " --search model --db first.db");
  ASSERT_EQ(own.exit_code, 0) << own.output;
  for (const char* layer : {"layer 1/3 (conv1): tuning database first.db: ", "layer 3/3 (pooled): tuning database first.db: "}) {
    EXPECT_NE(named.output.find(layer), std::string::npos) << layer << "\n" << named.output;
    EXPECT_NE(own.output.find(layer), std::string::npos) << layer << "\n" << own.output;
  }
  EXPECT_NE(named.output.find("row(s) of 1 other program(s) or device(s) train the model"), std::string::npos)
      << named.output;
  // Each layer's outcome gives its model's line (trained on the database first, its share of the loop).
  EXPECT_NE(named.output.find("  model: trained on "), std::string::npos) << named.output;
}

TEST_F(ExploreCli, NetworkFrontWithHostProgramsThatValidateEveryLayer) {
  Result r = run(fmt::format("explore {} --fusion off --pareto --evals 3 --runs 2 --jobs 2 -o out", kVggBlock));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(
      r.output,
      {"network: 3 layers, 2 of a shape of their own, each explored with its own space and reference (3 evaluations "
       "each): conv1, conv2 (as conv1), pooled",
       "layer 2/3 (conv2): the shape of layer 1 (conv1): explored once, its results taken",
       "explore layer 3/3 (pooled): 3/3 evaluated", "network Pareto front"});
  for (const char* f : {"out/pareto.csv", "out/pareto.json", "out/evaluated.csv", "out/results.db",
                        "out/front/1/kernels.cl", "out/front/1/main.cpp", "out/front/1/CMakeLists.txt",
                        "out/inputs/image.npy", "out/inputs/w2.npy", "out/expected/conv1.npy",
                        "out/expected/conv2.npy", "out/expected/pooled.npy"})
    EXPECT_TRUE(fs::exists(dir_ / f)) << f;
  std::string evaluated = read(dir_ / "out/evaluated.csv");
  EXPECT_EQ(std::count(evaluated.begin(), evaluated.end(), '\n'), 7) << evaluated;  // header + 3 rows of 2 layers
  // Each row names its layer (item 26 of issue 36); conv2's are conv1's (pareto.json's explored_as).
  EXPECT_EQ(evaluated.substr(0, evaluated.find('\n')),
            "layer,id,run,status,time_ms,spread_ms,memory_bytes,strategy,alternative,point,reason,device,driver,"
            "machine,shapes,key,liftc_version,created");
  std::map<std::string, int> per_layer;
  for (std::size_t at = evaluated.find('\n') + 1; at < evaluated.size(); at = evaluated.find('\n', at) + 1)
    ++per_layer[evaluated.substr(at, evaluated.find(',', at) - at)];
  EXPECT_EQ(per_layer, (std::map<std::string, int>{{"conv1", 3}, {"pooled", 3}})) << evaluated;
  std::string json = read(dir_ / "out/pareto.json");
  EXPECT_NE(json.find("\"layer\": \"conv2\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"explored_as\": \"conv1\""), std::string::npos) << json;
  EXPECT_NE(read(dir_ / "out/pareto.csv").find(",network,1,\"conv1: "), std::string::npos);

  // The fastest point's host program: conv2's kernels are conv1's exploration under conv2's names.
  Result host = run_front_point(*this, "vgg_block");
  ASSERT_EQ(host.exit_code, 0) << host.output;
  expect_all_in(host.output, {"conv1: matches the expected values (512 values)",
                              "conv2: matches the expected values (512 values)",
                              "pooled: matches the expected values (128 values)"});

  // The network front deploys as a library: each point one kernel choice per layer, all of
  // them in the point's plan (liftc deploy; tests/explore/cli_deploy_test.cpp runs a demo).
  Result deployed = run("deploy out -o deployed");
  ASSERT_EQ(deployed.exit_code, 0) << deployed.output;
  std::string readme = read(dir_ / "deployed/README.md");
  expect_all_in(readme, {"conv1: ", "; conv2: ", "; pooled: "});
  EXPECT_NE(read(dir_ / "deployed/points.cpp").find("pooled_kernel"), std::string::npos);

  // The run as if interrupted: --resume explores it again, layer by layer, every candidate
  // served from the store.
  sql(dir_ / "out/results.db", "DELETE FROM run_ends");
  Result again = run("explore --resume --db out/results.db -q");
  EXPECT_EQ(again.exit_code, 0) << again.output;
  expect_all_in(again.output, {"resuming run 1 of out/results.db", "network: 3 layers", "layer 1 (conv1): 3 candidates",
                               "; 3 served from the store;", "network Pareto front"});
  EXPECT_EQ(again.output.find("0 served from the store"), std::string::npos) << again.output;
  EXPECT_EQ(rows(dir_ / "out/results.db"), 6);
}

// FSRCNN as written (a 5x5, a 1x1 and two 3x3 convolutions with biases and ReLU inside each
// kernel's map, then a pixel shuffle): after the normal form, the fast strategies (the
// register tile, the GEMM path) are offered for its 5x5 and 3x3 layers and for its 1x1
// shrinking layer, written per pixel (pointwise-windows), Winograd for its two 3x3 stride-1
// layers, with an activation (mapped: the Winograd rules' -activation variants) and without
// (subpixels); every layer of the front's fastest point validates in its host program. The
// pixel shuffle (upscaled: splits, joins and a transpose, one value for one) is fused into
// subpixels, whose strategies write each value where the shuffle puts it: the fused layer is
// offered the same fast strategies, and its points validate (before, a consumer that
// transposes was not one-to-one, and the shuffle was a layer of its own).
TEST_F(ExploreCli, FsrcnnIsOfferedTheFastStrategiesAndItsFrontValidates) {
  const std::string fsrcnn = std::string(LIFTC_SOURCE_DIR) + "/examples/superres/fsrcnn.sr";
  Result r = run(fmt::format("explore {} --pareto --evals 2 --runs 2 --jobs 2 -o out", fsrcnn));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* layer : {"layer 1/5 (features): ", "layer 2/5 (shrunk): ", "layer 3/5 (mapped): ",
                            "layer 4/5 (subpixels): ", "fused layer (subpixels+upscaled): "}) {
    std::size_t at = r.output.find(layer);
    ASSERT_NE(at, std::string::npos) << layer << "\n" << r.output;
    std::string line = r.output.substr(at, r.output.find('\n', at) - at);
    for (const char* strategy : {"conv-chw-tile,", "conv-chw-tile-m0,", "conv-gemm"})
      EXPECT_NE(line.find(strategy), std::string::npos) << strategy << " in " << line;
    // Winograd for the 3x3 stride-1 layers (mapped, subpixels) only.
    EXPECT_EQ(line.find("conv-winograd") != std::string::npos,
              std::string(layer) == "layer 3/5 (mapped): " || std::string(layer) == "layer 4/5 (subpixels): " ||
                  std::string(layer) == "fused layer (subpixels+upscaled): ")
        << line;
  }
  EXPECT_NE(r.output.find("layer 5/5 (upscaled): 1 alternative(s) of 1 strategy (id)"), std::string::npos) << r.output;

  Result host = run_front_point(*this, "fsrcnn");
  ASSERT_EQ(host.exit_code, 0) << host.output;
  expect_all_in(host.output, {"features: matches", "shrunk: matches", "mapped: matches", "upscaled: matches"});

  for (const char* strategy : {"conv-chw-tile", "conv-chw-tile-local", "conv-gemm", "conv-winograd-gemm"}) {
    SCOPED_TRACE(strategy);
    std::filesystem::remove_all(dir_ / "fused");
    Result fused = run(
        fmt::format("explore {} -s {} --fusion only --pareto --evals 2 --runs 1 --jobs 2 -o fused", fsrcnn, strategy));
    ASSERT_EQ(fused.exit_code, 0) << fused.output;
    bool validated = false;
    std::istringstream rows(read(dir_ / "fused/evaluated.csv"));
    for (std::string row; std::getline(rows, row);)
      validated = validated || (row.starts_with("subpixels+upscaled,") &&
                                (row.find(",ok,") != std::string::npos || row.find(",cut,") != std::string::npos) &&
                                row.find(fmt::format(",{},", strategy)) != std::string::npos);
    EXPECT_TRUE(validated) << read(dir_ / "fused/evaluated.csv");
  }
}

// A convolution of a plane of scalars ([H][W], no channel axis: what a pixel shuffle down to
// one channel gives) by kernels with biases, written per output channel: read as an image of
// one channel (plane-windows-as-one-channel), it takes the register tile and Winograd, whose
// points validate (before, conv-lower, conv-tiled and stencil-parametric only; a generality
// check's). So does such a convolution of a pixel shuffle of an input, which it reads through
// (a view), as one program.
TEST_F(ExploreCli, AConvolutionOfAPlaneOfScalarsTakesTheDenseStrategies) {
  const std::string plane = std::string(LIFTC_SOURCE_DIR) + "/examples/superres/conv_plane.sr";
  for (const char* strategy : {"conv-chw-tile", "conv-winograd-gemm"}) {
    SCOPED_TRACE(strategy);
    std::filesystem::remove_all(dir_ / "out");
    Result r = run(fmt::format("explore {} -s {} --search random --evals 2 --jobs 2 -o out", plane, strategy));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(validated_by(read(dir_ / "out/evaluated.csv"), strategy)) << read(dir_ / "out/evaluated.csv");
  }
  std::filesystem::remove_all(dir_ / "out");
  std::ofstream(dir_ / "shuffled_plane.sr") << R"(size H = 4, W = 4, R = 2, M = 4
input features : [[[float]4]W]H
input weights : [[[float]3]3]M
input biases : [float]M
def up = join(map(row -> map(join, transpose(row)), map2D(px -> split(R, px), features)))
def out = map((w, b) -> map2D(win -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(join(win), join(w))),
                              slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, up))), zip(weights, biases))
)";
  Result r = run("explore shuffled_plane.sr -s conv-chw-tile --search random --pareto --evals 2 --jobs 2 -o out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(validated_by(read(dir_ / "out/evaluated.csv"), "conv-chw-tile")) << read(dir_ / "out/evaluated.csv");
  expect_every_front_point_matches(*this, "shuffled_plane", "out: matches the expected values (256 values)");
}

// Convolutions of a plane written otherwise (a generality check's): per pixel with each
// window's sums joined and the products mapped, then summed, without biases; and per output
// channel with the kernels read transposed, kernel first, the bias added inside the ReLU,
// unpadded. Before, the first got conv-lower, conv-tiled and stencil-parametric, the second the
// generic strategies; now the register tile and the GEMM take both, and their points validate.
TEST_F(ExploreCli, ConvolutionsOfAPlaneWrittenOtherwiseTakeTheDenseStrategies) {
  std::ofstream(dir_ / "plane_joined.sr") << R"(size H = 6, W = 6, M = 4
input kernels : [[[float]3]3]M
input plane : [[float]W]H
def conv = map2D(win -> join(map(k -> reduce(0.0, (acc, v) -> acc + v, map((x, w) -> x * w, zip(join(win), join(k)))),
                                 kernels)),
                 slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, plane)))
)";
  std::ofstream(dir_ / "plane_transposed.sr") << R"(size H = 6, W = 6, M = 3
input kernelsT : [[[float]3]3]M
input biases : [float]M
input plane : [[float]W]H
def conv = map((k, b) -> map2D(win -> map(s -> max(s + b, 0.0),
                                          reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(join(transpose(k)), join(win)))),
                               slide2D(3, 3, 1, 1, plane)),
               zip(kernelsT, biases))
)";
  for (const char* program : {"plane_joined", "plane_transposed"})
    for (const char* strategy : {"conv-chw-tile", "conv-gemm"}) {
      SCOPED_TRACE(fmt::format("{} {}", program, strategy));
      std::filesystem::remove_all(dir_ / "out");
      Result r = run(fmt::format("explore {}.sr -s {} --search random --evals 2 --jobs 2 -o out", program, strategy));
      ASSERT_EQ(r.exit_code, 0) << r.output;
      EXPECT_TRUE(validated_by(read(dir_ / "out/evaluated.csv"), strategy)) << read(dir_ / "out/evaluated.csv");
    }
}

// The ResNet block's residual add and ReLU (block) are one-to-one over conv2: fused into it,
// a layer of its own whose points are validated against the interpreter's block. With
// --fusion only the network is conv1 and conv2+block: the front point's host program runs
// the fused layer as one kernel (conv2, the add and the ReLU), makes no conv2 buffer,
// validates, and with --repeat prints the wall time and device span of repeated runs. With --fusion on, the
// fused layer is explored beside the layers as written and the front is of both variants.
TEST_F(ExploreCli, AOneToOneLayerIsFusedIntoItsProducer) {
  const std::string resnet = std::string(LIFTC_SOURCE_DIR) + "/examples/networks/resnet_block.sr";
  Result r = run(fmt::format("explore {} -s conv-gpu --fusion only --pareto --evals 3 --runs 2 --jobs 2 -o out", resnet));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(
      r.output,
      {"fused layers, explored instead of the layers they fuse (--fusion only) (a definition one-to-one over another's "
       "output, a pointwise layer over a depthwise one, a pooling over a convolution, or a permutation of another's "
       "output or a concatenation of others' read through by its one reader, inlined into it: no buffer for that "
       "output): conv2+block",
       "fused layer (conv2+block): 6 alternative(s) of 1 strategy (conv-gpu)",
       "fused layer (conv2+block): 3 candidates", "network #1          conv1: conv-gpu #"});
  EXPECT_EQ(r.output.find("layer 2/3 (conv2)"), std::string::npos) << r.output;  // fused away: not explored
  std::string json = read(dir_ / "out/pareto.json");
  for (const char* key : {"\"fused\": [\n      {\n        \"consumer\": \"block\",\n        \"producer\": \"conv2\"",
                          "\"layer\": \"conv2+block\"", "\"buffer_bytes\": "})
    EXPECT_NE(json.find(key), std::string::npos) << key << "\n" << json;
  EXPECT_NE(read(dir_ / "out/pareto.csv").find("fused: conv2 into block"), std::string::npos);
  std::string kernels = read(dir_ / "out/front/1/kernels.cl");
  EXPECT_NE(kernels.find("kernel void block_kernel("), std::string::npos) << kernels;
  EXPECT_EQ(kernels.find("conv2"), std::string::npos) << kernels;  // no kernel writes or reads a conv2 buffer

  const fs::path project = dir_ / "out/front/1";
  ASSERT_TRUE(build_project(project)) << "see " << project << "/log.txt";
  Result host = run_shell(fmt::format("'{0}/build/resnet_block' '{1}/out/inputs' '{1}/values' --expected "
                                      "'{1}/out/expected' --repeat 5",
                                      project.string(), dir_.string()));
  ASSERT_EQ(host.exit_code, 0) << host.output;
  expect_all_in(host.output,
                {"kernel conv1_kernel: ", "kernel block_kernel: ", "conv1: matches the expected values (512 values)",
                 "block: matches the expected values (512 values)",
                 "ms per run (median of 5 runs of every kernel enqueued back to back, host clock; least ",
                 "ms per run (median of 5 more runs, device clock from the first kernel's start to the last "
                 "one's end; least "});
  EXPECT_EQ(host.output.find("conv2"), std::string::npos) << host.output;
  // The span on the device's clock is within the host's wall time of a run (medians).
  double wall = 0, span = 0;
  ASSERT_EQ(std::sscanf(host.output.c_str() + host.output.find("wall: "), "wall: %lf", &wall), 1) << host.output;
  ASSERT_EQ(std::sscanf(host.output.c_str() + host.output.find("span: "), "span: %lf", &span), 1) << host.output;
  EXPECT_GT(span, 0.0) << host.output;
  EXPECT_LE(span, wall + 0.001) << host.output;
  Result bad = run_shell(fmt::format("'{0}/build/resnet_block' '{1}/out/inputs' '{1}/values' --repeat 0",
                                     project.string(), dir_.string()));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.output.find("error: --repeat takes a whole number from 1 to 1000000, not '0'"), std::string::npos)
      << bad.output;

  // Both variants: the layers as written and the fused layer, each explored; their fronts merged.
  Result both = run(fmt::format("explore {} -s conv-gpu --pareto --evals 2 --runs 2 --jobs 2 -q --db both.db", resnet));
  ASSERT_EQ(both.exit_code, 0) << both.output;
  expect_all_in(both.output, {"fused layers, explored as alternatives", "layer 2/3 (conv2): ", "layer 3/3 (block): ",
                              "fused layer (conv2+block): ", "network Pareto front"});
  // Each layer's rows are its own: conv2+block's are not block's.
  EXPECT_EQ(rows(dir_ / "both.db"), 8);
}

// The least memory_bytes of the points of a pareto.csv (its sixth column).
double least_memory(const std::string& csv) {
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);  // the header
  double least = std::numeric_limits<double>::infinity();
  while (std::getline(lines, line)) {
    std::size_t at = 0;
    for (int column = 0; column < 5; ++column) at = line.find(',', at) + 1;
    least = std::min(least, std::stod(line.substr(at, line.find(',', at) - at)));
  }
  return least;
}

// A network with nothing to fuse: a convolution read by a pooling and by a second convolution
// (fused into either, it would be computed twice), the pooling read by nothing.
const char* const kNothingToFuse = R"(size H = 4, W = 4, C = 2
input image : [[[float]C]W]H
input w1 : [[[[float]C]3]3]C
input b1 : [float]C
input w2 : [[[[float]C]3]3]C
input b2 : [float]C
def enc = map2D(win -> join(map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(join(join(win)), join(join(w)))),
                                zip(w1, b1))),
                slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, image)))
def pooled = map2D(win -> join(map(c -> reduce(-inf, (a, v) -> max(a, v), c), transpose(join(win)))),
                   slide2D(2, 2, 2, 2, enc))
def dec = map2D(win -> join(map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(join(join(win)), join(join(w)))),
                                zip(w2, b2))),
                slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, enc)))
)";

// --fusion only on a network with nothing to fuse says why.
TEST_F(ExploreCli, FusionErrors) {
  std::ofstream(dir_ / "nothing.sr") << kNothingToFuse;
  expect(fmt::format("explore {} --fusion maybe", kVggBlock), 1, "error: --fusion: 'maybe' is not on, off or only");
  expect("explore nothing.sr --fusion only", 1,
         "error: --fusion only: no definition of nothing.sr is one-to-one over another's output (a bias, an "
         "activation, a residual add that reads it once, and nothing else reads it), a pointwise layer over a "
         "depthwise one, a pooling over a convolution (non-overlapping windows of its output, which nothing else "
         "reads), a permutation of another's output (a channel shuffle) or a concatenation of others' outputs that "
         "one definition reads once; explore it with --fusion off");
  // A fused layer without a space says so under its own label, not the name of the definition
  // its program keeps (ShuffleNet's residual add fused into the grouped 1x1 layer before it,
  // with every other fusion: "fused layer (shuffled+dw+g2+unit): not offered: layer 'unit': ...").
  const std::string shufflenet = std::string(LIFTC_SOURCE_DIR) + "/examples/networks/shufflenet_unit.sr";
  Result r = run(fmt::format("explore {} -s conv-gpu --fusion only --evals 1 --runs 1", shufflenet));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  expect_all_in(
      r.output,
      {"fused layer (shuffled+dw+g2+unit): not offered: the strategies given have no valid point (conv-gpu #1: code "
       "generation refuses this program: mapSeq runs outside every parallel map",
       "): what one of the fused definitions computes around the other's convolution (a pass reading more than its "
       "own pixel's values, say) stays outside the maps the strategies put on work-items, so no strategy takes them "
       "together and the fusion is left out",
       "error: no fused layer of the network has a space (see above); explore it with --fusion off"});
  EXPECT_EQ(r.output.find("layer 'unit'"), std::string::npos) << r.output;
}

// A network with nothing to fuse says why under --fusion on too, as --fusion only's error
// does (gen30's finding 3: before, nothing was said).
TEST_F(ExploreCli, ANetworkWithNothingToFuseSaysWhy) {
  std::ofstream(dir_ / "nothing.sr") << kNothingToFuse;
  Result r = run("explore nothing.sr -s conv-gpu --evals 1 --runs 1 --jobs 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::string note =
      "note: no fused layer: no definition of nothing.sr"
      " is one-to-one over another's output (a bias, an activation, a residual add that reads it "
      "once, and nothing else reads it), a pointwise layer over a depthwise one, a pooling over a "
      "convolution (non-overlapping windows of its output, which nothing else reads)";
  EXPECT_NE(r.output.find(note), std::string::npos) << r.output;
}

// ShuffleNet's unit with every fusion: each layer explored is reported with why it stopped;
// a layer that no variant runs (the channel shuffle over g1's groups, which the depthwise
// layer reads through) is not reported as "0 candidates ... stopped: " and "no front".
TEST_F(ExploreCli, ALayerNoVariantRunsIsNotReported) {
  const std::string shufflenet = std::string(LIFTC_SOURCE_DIR) + "/examples/networks/shufflenet_unit.sr";
  Result r = run(fmt::format("explore {} --evals 2 --runs 1 -q", shufflenet));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("layer 3 (dw): 2 candidates in "), std::string::npos) << r.output;
  for (const char* absent : {"stopped: \n", "(stopped: )", "0 candidates in"})
    EXPECT_EQ(r.output.find(absent), std::string::npos) << absent << "\n" << r.output;
}

// vgg_block's conv2 is fused into its 2x2 max pooling (conv2+pooled; --fusion only): the
// fused layer gets conv-pool-tile (not conv-gpu, whose work-items of a pooled pixel would each
// pool the channels of the others: unpooled-conv-form), the front's point runs it as one kernel that reads conv1
// and writes the pooled values (no conv2 buffer: the layer's memory is its inputs and the
// pooled output, 4896 bytes, against conv2's 6432 alone), the network's output names the
// fusion, and the host program validates conv1 and the pooled values. With --fusion on, the
// fused layer is explored beside the layers as written.
TEST_F(ExploreCli, AConvolutionIsFusedIntoItsPooling) {
  Result r = run(fmt::format("explore {} -s conv-pool-tile -s conv-gpu --fusion only --pareto --evals 3 --runs 2 --jobs 2 "
                             "-o out",
                             kVggBlock));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(
      r.output,
      {"fused layers, explored instead of the layers they fuse (--fusion only) (a definition one-to-one over another's "
       "output, a pointwise layer over a depthwise one, a pooling over a convolution, or a permutation of another's "
       "output or a concatenation of others' read through by its one reader, inlined into it: no buffer for that "
       "output): conv2+pooled",
       "fused layer (conv2+pooled): 1 alternative(s) of 1 strategy (conv-pool-tile)",
       // conv-gpu's kernel groups would pool channels other work-items compute (unpooled-conv-form)
       "note: fused layer (conv2+pooled): conv-gpu does not apply to it", "network #1          conv1: conv-gpu #"});
  EXPECT_EQ(r.output.find("layer 2/3 (conv2)"), std::string::npos) << r.output;  // fused away: not explored
  std::string csv = read(dir_ / "out/pareto.csv");
  EXPECT_NE(csv.find("fused: conv2 into pooled"), std::string::npos) << csv;
  std::string json = read(dir_ / "out/pareto.json");
  expect_all_in(json, {"\"consumer\": \"pooled\"", "\"producer\": \"conv2\"", "\"layer\": \"conv2+pooled\""});
  Result host = run_front_point(*this, "vgg_block");
  ASSERT_EQ(host.exit_code, 0) << host.output;
  expect_all_in(host.output, {"conv1: matches the expected values (512 values)",
                              "pooled: matches the expected values (128 values)"});
  EXPECT_EQ(host.output.find("conv2"), std::string::npos) << host.output;

  // conv-pool-tile alone: the fused layer's kernel writes no conv2 buffer.
  Result tile = run(fmt::format("explore {} -s conv-pool-tile --fusion only --pareto --evals 2 --runs 2 --jobs 2 -q "
                                "--db tile.db -o tile",
                                kVggBlock));
  ASSERT_EQ(tile.exit_code, 0) << tile.output;
  EXPECT_NE(tile.output.find("conv2+pooled: conv-pool-tile #1"), std::string::npos) << tile.output;
  std::string kernels = read(dir_ / "tile/front/1/kernels.cl");
  EXPECT_NE(kernels.find("kernel void pooled_kernel("), std::string::npos) << kernels;
  EXPECT_EQ(kernels.find("conv2"), std::string::npos) << kernels;

  // Both variants: the layers as written and the fused layer, each explored; their fronts merged.
  Result both = run(fmt::format("explore {} -s conv-pool-tile -s conv-gpu --pareto --evals 2 --runs 2 --jobs 2 -q --db "
                                "both.db",
                                kVggBlock));
  ASSERT_EQ(both.exit_code, 0) << both.output;
  expect_all_in(both.output, {"fused layers, explored as alternatives",
                              "layer 3/3 (pooled): ", "fused layer (conv2+pooled): ", "network Pareto front"});
}

// conv-pool-tile-rt on vgg_block.sr's fused layer conv2+pooled (issue 38): a work-item per
// sigma pooled pixels of a row and kappa kernels keeps their sums in private memory and writes
// only the pooled values; the front's kernel has no conv2 buffer and no global scratch buffer
// (the sums and their activation in private memory), and the host program validates conv1 and
// the pooled values.
TEST_F(ExploreCli, TheFusedConvolutionAndPoolingTakeARegisterTile) {
  Result r = run(fmt::format("explore {} -s conv-pool-tile-rt --fusion only --pareto --evals 3 --runs 2 --jobs 2 -o out",
                             kVggBlock));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(r.output, {"fused layer (conv2+pooled): 1 alternative(s) of 1 strategy (conv-pool-tile-rt)",
                           "conv2+pooled: conv-pool-tile-rt #1"});
  std::string kernels = read(dir_ / "out/front/1/kernels.cl");
  EXPECT_NE(kernels.find("kernel void pooled_kernel("), std::string::npos) << kernels;
  EXPECT_EQ(kernels.find("conv2"), std::string::npos) << kernels;
  EXPECT_EQ(kernels.find("gtmp"), std::string::npos) << kernels;  // the sums and their activation private, no scratch buffer
  Result host = run_front_point(*this, "vgg_block");
  ASSERT_EQ(host.exit_code, 0) << host.output;
  expect_all_in(host.output, {"conv1: matches the expected values (512 values)",
                              "pooled: matches the expected values (128 values)"});
}

// examples/conv/forms/conv_pool.sr, a convolution from 2 to 4 channels and its 2x2 max
// pooling, whose peak is the convolution's layer (its inputs and its 6x6x4 output): fused
// (conv+pooled, conv-pool-tile: no buffer for the convolution's output), the front's least
// peak memory is below the unfused network's, by the convolution's output less the pooled
// one (576 - 144 bytes), and its point is the fused one.
TEST_F(ExploreCli, TheFusedConvolutionAndPoolingPeakBelowTheUnfusedOnes) {
  const std::string net = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/forms/conv_pool.sr";
  Result fused = run(fmt::format("explore {} -s conv-pool-tile -s conv-gpu --pareto --evals 2 --runs 2 --jobs 2 -q -o out", net));
  ASSERT_EQ(fused.exit_code, 0) << fused.output;
  Result plain = run(fmt::format("explore {} -s conv-gpu --fusion off --pareto --evals 2 --runs 2 --jobs 2 -q --db off.db -o off",
                                 net));
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  std::string csv = read(dir_ / "out/pareto.csv");
  double least = least_memory(csv), unfused = least_memory(read(dir_ / "off/pareto.csv"));
  EXPECT_DOUBLE_EQ(unfused - least, 576.0 - 144.0) << csv;
  std::istringstream rows(csv);
  std::string row, header;
  std::getline(rows, header);
  bool found = false;
  while (std::getline(rows, row))
    if (row.find(fmt::format(",{},", least)) != std::string::npos) found = row.find("fused: conv into pooled") != std::string::npos;
  EXPECT_TRUE(found) << csv;
}

// examples/conv/forms/conv_pool_tile2d_layers.sr, a convolution and its 2x2 max pooling over
// the prelude's tile2D (a split and transposes, as a new user wrote it; issue 38): explore
// fuses them as a pooling over slide2D's windows (features+pooled, --fusion only), the fused
// layer takes conv-pool-tile and conv-pool-kappa, and the front's point is one kernel that
// writes no features buffer; its host program validates the pooled values.
TEST_F(ExploreCli, APoolingOverTile2DIsFusedWithItsConvolution) {
  const std::string net = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/forms/conv_pool_tile2d_layers.sr";
  Result r = run(fmt::format("explore {} -s conv-pool-tile -s conv-pool-kappa --fusion only --pareto --evals 3 --runs 2 "
                             "--jobs 2 -o out",
                             net));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(
      r.output,
      {"fused layers, explored instead of the layers they fuse (--fusion only) (a definition one-to-one over another's "
       "output, a pointwise layer over a depthwise one, a pooling over a convolution, or a permutation of another's "
       "output or a concatenation of others' read through by its one reader, inlined into it: no buffer for that "
       "output): features+pooled",
       "fused layer (features+pooled): 3 alternative(s) of 2 strategies (conv-pool-tile, conv-pool-kappa)",
       "network #1          features+pooled: conv-pool-"});
  EXPECT_EQ(read(dir_ / "out/front/1/kernels.cl").find("features"), std::string::npos);
  Result host = run_front_point(*this, "conv_pool_tile2d_layers");
  ASSERT_EQ(host.exit_code, 0) << host.output;
  EXPECT_NE(host.output.find("pooled: matches the expected values (24 values)"), std::string::npos) << host.output;
  EXPECT_EQ(host.output.find("features"), std::string::npos) << host.output;
}

// The MobileNet examples (examples/networks/mobilenet_v1_pair.sr, mobilenet_v2_block.sr),
// written as a user would: each depthwise layer is offered conv-depthwise-kappa and none of
// the dense strategies, each 1x1 layer (written per pixel) the dense ones and not
// conv-depthwise-kappa, the residual add is lowered by the fallback, and MobileNetV2's
// projection with the residual add fused is offered conv-gemm and conv-chw-tile (the
// front's point may run it, with no projected layer); every layer of the front's point
// validates in its host program (its exit status), the layers every point runs by name. A
// depthwise layer fused with its pointwise one takes none of these strategies
// (conv-depthwise-kappa: unfused-depthwise-form), so it is lowered by the fallback as a layer
// no strategy applies to, and the front's point may run it, with no depthwise layer. One row a
// network.
struct MobileNetCase {
  const char* program;
  std::vector<std::pair<std::string, std::string>> layers;  // the layer line's start, its strategies
  std::vector<std::string> validated;                       // the layer names every point's host program runs
};

void explore_mobilenet(ExploreCli& cli, const MobileNetCase& c) {
  const std::string path = std::string(LIFTC_SOURCE_DIR) + "/examples/networks/" + c.program + ".sr";
  Result r = cli.run(fmt::format(
      "explore {} -s conv-depthwise-kappa -s conv-gemm -s conv-chw-tile --pareto --evals 2 --runs 2 --jobs 2 -o out", path));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const auto& [layer, strategies] : c.layers) {
    std::size_t at = r.output.find(layer);
    ASSERT_NE(at, std::string::npos) << layer << "\n" << r.output;
    std::string line = r.output.substr(at, r.output.find('\n', at) - at);
    EXPECT_NE(line.find(strategies), std::string::npos) << strategies << " in " << line;
  }
  Result host = run_front_point(cli, c.program);
  ASSERT_EQ(host.exit_code, 0) << host.output;
  for (const auto& layer : c.validated)
    EXPECT_NE(host.output.find(layer + ": matches the expected values"), std::string::npos) << layer << "\n" << host.output;
}

TEST_F(ExploreCli, MobileNetV1PairGetsTheDepthwiseAndDenseStrategiesAndValidates) {
  explore_mobilenet(*this, {"mobilenet_v1_pair",
                            {{"layer 1/2 (depthwise): ", "of 1 strategy (conv-depthwise-kappa)"},
                             {"layer 2/2 (pointwise): ", "of 2 strategies (conv-gemm, conv-chw-tile)"},
                             {"fused layer (depthwise+pointwise): ", "of 1 strategy (lower-glb2)"}},
                            {"pointwise"}});
}

TEST_F(ExploreCli, MobileNetV2BlockGetsTheDepthwiseAndDenseStrategiesAndValidates) {
  explore_mobilenet(*this, {"mobilenet_v2_block",
                            {{"layer 1/4 (expanded): ", "of 2 strategies (conv-gemm, conv-chw-tile)"},
                             {"layer 2/4 (depthwise): ", "of 1 strategy (conv-depthwise-kappa)"},
                             {"layer 3/4 (projected): ", "of 2 strategies (conv-gemm, conv-chw-tile)"},
                             {"layer 4/4 (block): ", "of 1 strategy (lower-glb2)"},
                             {"fused layer (projected+block): ", "of 2 strategies (conv-gemm, conv-chw-tile)"},
                             {"fused layer (depthwise+projected): ", "of 1 strategy (lower-glb2)"}},
                            {"expanded", "block"}});
}

// MobileNetV1's depthwise layer is fused into the pointwise layer that reads it: the fused
// layer gets the strategies of the fused form (a work-item's private memory, a work-group's
// local memory), the front's point runs it as one kernel that writes no depthwise buffer and
// validates in its host program; its memory is the network's inputs and output alone (7040
// bytes: the 8x8x8 depthwise output is no buffer).
TEST_F(ExploreCli, ADepthwiseLayerIsFusedIntoItsPointwiseLayer) {
  const std::string v1 = std::string(LIFTC_SOURCE_DIR) + "/examples/networks/mobilenet_v1_pair.sr";
  Result r = run(fmt::format("explore {} -s conv-dw-pw-private -s conv-dw-pw-local --fusion only --pareto --evals 3 "
                             "--runs 2 --jobs 2 -o out",
                             v1));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(
      r.output,
      {"fused layers, explored instead of the layers they fuse (--fusion only) (a definition one-to-one over another's "
       "output, a pointwise layer over a depthwise one, a pooling over a convolution, or a permutation of another's "
       "output or a concatenation of others' read through by its one reader, inlined into it: no buffer for that "
       "output): depthwise+pointwise",
       "fused layer (depthwise+pointwise): 2 alternative(s) of 2 strategies (conv-dw-pw-private, conv-dw-pw-local)",
       "network #1          depthwise+pointwise: conv-dw-pw-"});
  std::string csv = read(dir_ / "out/pareto.csv");
  EXPECT_NE(csv.find("fused: depthwise into pointwise"), std::string::npos) << csv;
  EXPECT_EQ(least_memory(csv), 7040.0) << csv;
  std::string kernels = read(dir_ / "out/front/1/kernels.cl");
  EXPECT_NE(kernels.find("kernel void pointwise_kernel("), std::string::npos) << kernels;
  EXPECT_EQ(kernels.find("restrict depthwise"), std::string::npos) << kernels;  // no depthwise buffer
  Result host = run_front_point(*this, "mobilenet_v1_pair");
  ASSERT_EQ(host.exit_code, 0) << host.output;
  EXPECT_NE(host.output.find("pointwise: matches the expected values (1024 values)"), std::string::npos) << host.output;
}

// Depthwise-separable pairs written otherwise (examples/networks): the depthwise layer as the
// element-wise product of window and [3][3][C] kernels (zip2D, depthwise_separable_zip2d.sr;
// its columns zipped with the biases before the sums, depthwise_separable_bias_start.sr),
// and a channel-first pair (mobilenet_v1_pair_chw.sr: a CHW depthwise layer, the pointwise
// layer over its pixels written back to CHW). Explored on OpenCL with the fused strategies
// only (--fusion only), each is offered the fused layer with both strategies, and the
// front's point runs it as one kernel that reads no depthwise buffer and validates in its
// host program.
struct FusedPairCase {
  const char* program;
  const char* fused;     // the fused layer's title
  const char* producer;  // the depthwise layer, no buffer of the front's kernels
  std::string validated;  // the host program's line for the pointwise layer
};

void explore_fused_pair(ExploreCli& cli, const FusedPairCase& c) {
  const std::string path = std::string(LIFTC_SOURCE_DIR) + "/examples/networks/" + c.program + ".sr";
  Result r = cli.run(fmt::format(
      "explore {} -s conv-dw-pw-private -s conv-dw-pw-local --fusion only --pareto --evals 3 --runs 2 --jobs 2 -o out", path));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::string offered = fmt::format("fused layer ({}): 2 alternative(s) of 2 strategies (conv-dw-pw-private, conv-dw-pw-local)",
                                    c.fused);
  EXPECT_NE(r.output.find(offered), std::string::npos) << offered << "\n" << r.output;
  std::string kernels = cli.read(cli.dir() / "out/front/1/kernels.cl");
  EXPECT_EQ(kernels.find(fmt::format("restrict {},", c.producer)), std::string::npos) << kernels;
  EXPECT_EQ(kernels.find(fmt::format("restrict {})", c.producer)), std::string::npos) << kernels;
  Result host = run_front_point(cli, c.program);
  ASSERT_EQ(host.exit_code, 0) << host.output;
  EXPECT_NE(host.output.find(c.validated), std::string::npos) << c.validated << "\n" << host.output;
}

TEST_F(ExploreCli, ADepthwiseLayerWrittenWithZip2DIsFusedIntoItsPointwiseLayer) {
  explore_fused_pair(*this, {"depthwise_separable_zip2d", "dw+pw", "dw", "pw: matches the expected values (288 values)"});
}

// The products' columns zipped with the biases before the sums, each sum from its bias
// (depthwise_separable_bias_start.sr, a fresh writer's form; before channel-columns-with-biases
// --fusion only found no pair in it).
TEST_F(ExploreCli, ADepthwiseLayerSummedFromItsBiasesIsFusedIntoItsPointwiseLayer) {
  explore_fused_pair(*this, {"depthwise_separable_bias_start", "dw+pw", "dw", "pw: matches the expected values (288 values)"});
}

// A depthwise layer without biases whose dot products take the kernel first
// (depthwise_separable_kernel_first.sr, a second writer's form; before zero-bias-depthwise and
// kernel-operand-second-depthwise --fusion only found no pair in it).
TEST_F(ExploreCli, ADepthwiseLayerWithoutBiasesTakingTheKernelFirstIsFusedIntoItsPointwiseLayer) {
  explore_fused_pair(*this, {"depthwise_separable_kernel_first", "dw+pw", "dw", "pw: matches the expected values (1024 values)"});
}

TEST_F(ExploreCli, AChannelFirstDepthwiseLayerIsFusedIntoItsPointwiseLayer) {
  explore_fused_pair(*this,
                     {"mobilenet_v1_pair_chw", "depthwise+pointwise", "depthwise", "pointwise: matches the expected values (1024 values)"});
}

// The same pair with its pointwise layer written per output channel, a map over its (kernel,
// bias) pairs of 2D maps over the depthwise output's pixels (a generality check's channel-first
// MobileNetV2 block): before, the fused layer read each pixel inside the map over the kernels,
// recomputing the depthwise values per kernel, and only the generic strategies took it; the
// pointwise layer is now first rewritten with its kernels inside each pixel
// (pointwise-pixels-outermost).
TEST_F(ExploreCli, AChannelFirstDepthwiseLayerIsFusedIntoAPointwiseLayerWrittenPerOutputChannel) {
  explore_fused_pair(*this, {"mobilenet_v1_pair_chw_per_kernel", "depthwise+pointwise", "depthwise",
                             "pointwise: matches the expected values (512 values)"});
}

// A channel-first MobileNetV2 block without its residual add, each pointwise layer written per
// output channel with each row's sums joined in the map over the rows, and the depthwise
// layer over (plane, kernel, bias) triples (a generality check's form): the projection reads
// the depthwise output in no 2D map as written; rewritten with its kernels inside each pixel
// (pointwise-pixels-outermost) it does, and the depthwise layer is fused into it (before, no
// dw+pw fused layer was made), which conv-dw-pw-private and -local take; the front's host
// program validates.
TEST_F(ExploreCli, AChannelFirstDepthwiseLayerIsFusedIntoAPointwiseLayerWithItsRowsJoined) {
  std::ofstream(dir_ / "chw_block.sr") << R"(size C = 4, E = 8, H = 6, W = 6
input x  : [[[float]W]H]C
input w1 : [[float]C]E
input b1 : [float]E
input wd : [[[float]3]3]E
input bd : [float]E
input w2 : [[float]E]C
input b2 : [float]C
def relu6(v) = min(max(v, 0.0), 6.0)
def hwc(t) = map(transpose, transpose(t))
def dot1(b, u, v) = reduce(b, (a, p) -> a + p.0 * p.1, zip(u, v))
def expand = map((w, b) -> map(row -> join(map(px -> map(relu6, dot1(b, px, w)), row)), hwc(x)), zip(w1, b1))
def dw = map((plane, k, b) -> map(row -> join(map(win -> map(relu6, dot1(b, join(win), join(k))), row)),
                                  slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, plane))),
             zip(expand, wd, bd))
def project = map((w, b) -> map(row -> join(map(px -> dot1(b, px, w), row)), hwc(dw)), zip(w2, b2))
)";
  Result r =
      run("explore chw_block.sr -s conv-dw-pw-private -s conv-dw-pw-local -s conv-chw-tile --fusion on "
          "--search random --pareto --evals 2 --jobs 1 -o out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("fused layer (dw+project): 2 alternative(s) of 2 strategies (conv-dw-pw-private, "
                          "conv-dw-pw-local)"),
            std::string::npos)
      << r.output;
  std::string csv = read(dir_ / "out/evaluated.csv");
  EXPECT_TRUE(validated_by(csv, "conv-dw-pw-private") || validated_by(csv, "conv-dw-pw-local")) << csv;
  for (const auto& entry : std::filesystem::directory_iterator(dir_ / "out/front")) {
    Result host = run_front_point(*this, "chw_block", entry.path().filename().string());
    ASSERT_EQ(host.exit_code, 0) << host.output;
    EXPECT_NE(host.output.find("project: matches the expected values (144 values)"), std::string::npos) << host.output;
  }
}

// MobileNetV2's block, whose largest buffers are the expanded E-channel ones: with the
// depthwise layer fused into the projection (and the residual add too: the variant of every
// fusion, dw-pw-private-residual and dw-pw-local-tiles-residual) the front's least peak
// memory is below the unfused network's (whose depthwise layer holds its input and output,
// both E channels).
TEST_F(ExploreCli, TheFusedMobileNetV2BlockPeaksBelowTheUnfusedOne) {
  const std::string v2 = std::string(LIFTC_SOURCE_DIR) + "/examples/networks/mobilenet_v2_block.sr";
  Result fused = run(fmt::format(
      "explore {} -s conv-dw-pw-private -s conv-dw-pw-local --pareto --evals 2 --runs 2 --jobs 2 -o out", v2));
  ASSERT_EQ(fused.exit_code, 0) << fused.output;
  expect_all_in(fused.output,
                {"fused layer (depthwise+projected): 2 alternative(s) of 2 strategies (conv-dw-pw-private, "
                 "conv-dw-pw-local)",
                 "fused layer (projected+block): ",
                 "fused layer (depthwise+projected+block): 2 alternative(s) of 2 strategies "
                 "(conv-dw-pw-private, conv-dw-pw-local)"});
  Result plain = run(fmt::format("explore {} -s conv-lower --fusion off --pareto --evals 2 --runs 2 --jobs 2 -q --db "
                                 "off.db -o off",
                                 v2));
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  std::string csv = read(dir_ / "out/pareto.csv");
  double least = least_memory(csv), unfused = least_memory(read(dir_ / "off/pareto.csv"));
  EXPECT_LT(least, unfused) << csv;
  // The least-memory point is one with the depthwise layer fused.
  std::istringstream rows(csv);
  std::string row, header;
  std::getline(rows, header);
  bool found = false;
  while (std::getline(rows, row))
    if (row.find(fmt::format(",{},", least)) != std::string::npos) found = row.find("depthwise into ") != std::string::npos;
  EXPECT_TRUE(found) << csv;
  Result host = run_front_point(*this, "mobilenet_v2_block");
  ASSERT_EQ(host.exit_code, 0) << host.output;
  EXPECT_NE(host.output.find("block: matches the expected values"), std::string::npos) << host.output;
}

// The U-Net step (examples/networks/unet_step.sr, issue 38, item 5), written as a user would:
// its four convolutions, the one after the skip concatenation included (it reads the merged
// channels as any image), get the dense strategies; the max pooling is lowered by the
// fallback and the layout-only layer (nearest upsampling and the channel concatenation) by
// id, its parallel copy; every layer of the front's point validates in its host program.
TEST_F(ExploreCli, UNetStepGetsTheDenseStrategiesAndValidates) {
  const std::string path = std::string(LIFTC_SOURCE_DIR) + "/examples/networks/unet_step.sr";
  Result r = run(fmt::format(
      "explore {} -s conv-gemm -s conv-chw-tile --fusion off --pareto --evals 2 --runs 2 --jobs 2 -o out", path));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(r.output, {"layer 1/6 (enc1): 6 alternative(s) of 2 strategies (conv-gemm, conv-chw-tile)",
                           "layer 2/6 (enc2): 6 alternative(s) of 2 strategies (conv-gemm, conv-chw-tile)",
                           "layer 3/6 (pooled): 1 alternative(s) of 1 strategy (lower-glb2)",
                           "layer 4/6 (low): 6 alternative(s) of 2 strategies (conv-gemm, conv-chw-tile)",
                           "layer 5/6 (merged): 1 alternative(s) of 1 strategy (id)",
                           "layer 6/6 (decoded): 6 alternative(s) of 2 strategies (conv-gemm, conv-chw-tile)",
                           "note: layer 5/6 (merged): conv-gemm, conv-chw-tile do not apply to it: lowered by id",
                           "network Pareto front"});
  Result host = run_front_point(*this, "unet_step");
  ASSERT_EQ(host.exit_code, 0) << host.output;
  expect_layers_match(host.output, {"enc1", "enc2", "pooled", "low", "merged", "decoded"});
}

// The U-Net step's concatenation (the upsampled decoder features beside the encoder's skip, a
// layout of two definitions' outputs) read through by the convolution that reads it: the fused
// layer merged+decoded takes the dense strategies and Winograd, its points validate, and the
// front point's host program makes no buffer for the concatenation (before, nothing of the
// step was fused).
TEST_F(ExploreCli, UNetStepReadsItsConcatenationThrough) {
  const std::string path = std::string(LIFTC_SOURCE_DIR) + "/examples/networks/unet_step.sr";
  Result r = run(fmt::format(
      "explore {} -s conv-chw-tile -s conv-winograd-gemm --fusion only --pareto --evals 2 --jobs 2 -o out", path));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(r.output, {"fused layer (merged+decoded): 10 alternative(s) of 2 strategies (conv-chw-tile, "
                           "conv-winograd-gemm)",
                           "network Pareto front"});
  const std::string csv = read(dir_ / "out/evaluated.csv");
  EXPECT_TRUE(layer_validated_by(csv, "merged+decoded", "conv-chw-tile") ||
              layer_validated_by(csv, "merged+decoded", "conv-winograd-gemm"))
      << csv;
  EXPECT_EQ(read(dir_ / "out/pareto.json").find("\"layer\": \"merged\""), std::string::npos);
  Result host = run_front_point(*this, "unet_step");
  ASSERT_EQ(host.exit_code, 0) << host.output;
  expect_layers_match(host.output, {"enc1", "enc2", "pooled", "low", "decoded"});
  EXPECT_EQ(host.output.find("merged: "), std::string::npos) << host.output;
}

// The squeeze-and-excitation block (examples/networks/se_block.sr, issue 38): its two fully
// connected layers, matrix-vector products, are offered matvec-rows and matvec-parametric
// beside the straightforward lowerings (liftc space, the default strategies); explored with
// them alone, the pooling and the scaling go to the fallback's lowering, and every layer of
// the front's point, its matrix-vector kernels included, validates in its host program.
TEST_F(ExploreCli, SqueezeExcitationBlockGetsTheMatrixVectorStrategiesAndValidates) {
  const std::string path = std::string(LIFTC_SOURCE_DIR) + "/examples/networks/se_block.sr";
  Result space = run(fmt::format("space {} --samples 0", path));
  ASSERT_EQ(space.exit_code, 0) << space.output;
  expect_all_in(space.output, {"==== layer 2/4 (squeezed)", "== strategy matvec-rows, alternative 7 of 7",
                               "== strategy matvec-parametric, alternative 5 of 5", "==== layer 3/4 (excited)"});
  Result r = run(fmt::format("explore {} -s matvec-rows -s matvec-parametric --pareto --evals 4 --runs 2 --jobs 2 -o out", path));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(r.output, {"layer 1/4 (pooled): 1 alternative(s) of 1 strategy (lower-glb2)",
                           "layer 2/4 (squeezed): 11 alternative(s) of 2 strategies (matvec-rows, matvec-parametric)",
                           "layer 3/4 (excited): 6 alternative(s) of 2 strategies (matvec-rows, matvec-parametric)",
                           "layer 4/4 (block): 1 alternative(s) of 1 strategy (lower-glb2)", "squeezed: matvec-",
                           "excited: matvec-", "network Pareto front"});
  Result host = run_front_point(*this, "se_block");
  ASSERT_EQ(host.exit_code, 0) << host.output;
  expect_layers_match(host.output, {"pooled", "squeezed", "excited", "block"});
}

// examples/networks/`block`.sr, an SE block, explored with rows-omega: its pooling and both
// fully connected layers take its three alternatives, the scaling the fallback's lowering,
// and every layer of the front's point validates in its host program. Then the fully
// connected layer examples/`fc`.sr alone: each alternative validates, and so does its front's
// point.
void expect_rows_omega_block_and_layer(ExploreCli& cli, const std::string& block, const std::string& fc) {
  Result r = cli.run(fmt::format("explore {}/examples/networks/{}.sr -s rows-omega --pareto --evals 4 --runs 2 --jobs 2 "
                                 "-o out",
                                 LIFTC_SOURCE_DIR, block));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(r.output, {"layer 1/4 (pooled): 3 alternative(s) of 1 strategy (rows-omega)",
                           "layer 2/4 (squeezed): 3 alternative(s) of 1 strategy (rows-omega)",
                           "layer 3/4 (excited): 3 alternative(s) of 1 strategy (rows-omega)",
                           "layer 4/4 (block): 1 alternative(s) of 1 strategy (lower-glb2)", "pooled: rows-omega",
                           "squeezed: rows-omega", "excited: rows-omega", "network Pareto front"});
  Result host = run_front_point(cli, block);
  ASSERT_EQ(host.exit_code, 0) << host.output;
  expect_layers_match(host.output, {"pooled", "squeezed", "excited", "block"});

  std::filesystem::remove_all(cli.dir() / "out");
  Result m = cli.run(fmt::format("explore {}/examples/{}.sr -s rows-omega --pareto --evals 9 --runs 2 --jobs 2 -o out",
                                 LIFTC_SOURCE_DIR, fc));
  ASSERT_EQ(m.exit_code, 0) << m.output;
  EXPECT_NE(m.output.find("space: 3 alternative(s)"), std::string::npos) << m.output;
  expect_each_alternative_validated(cli.read(cli.dir() / "out/evaluated.csv"), "rows-omega", 3);
  Result fc_host = run_front_point(cli, fc);
  ASSERT_EQ(fc_host.exit_code, 0) << fc_host.output;
  EXPECT_NE(fc_host.output.find("fc: matches the expected values"), std::string::npos) << fc_host.output;
}

// The squeeze-and-excitation block with rows-omega (issue 38): its pooling (each channel's
// mean over the pixels) and its two fully connected layers are each a map over rows of sums,
// split into omega partial sums computed by a kernel of their own and summed by another
// (alternatives 1 and 2: rows or chunks on global dimension 0) or by a work-group per row
// (3); the scaling goes to the fallback's lowering. Every layer of the front's point
// validates in its host program, and so does a fully connected layer alone
// (examples/fully_connected.sr), a matrix-vector product, where each alternative validates.
TEST_F(ExploreCli, RowsOfSumsGetRowsOmegaAndValidate) {
  expect_rows_omega_block_and_layer(*this, "se_block", "fully_connected");
}

// The same block written with each fully connected layer's bias added after its sum, inside
// the activation, and the means as a pass over the channels' joined sums
// (examples/networks/se_block_bias_after_sum.sr, issue 38: max(s + q.1, 0.0), sigmoid(b + s),
// map(s -> s / float(H * W), join(...))), and a fully connected layer's tanh(s + bias)
// (examples/fully_connected_tanh.sr): normal-form makes each bias its sum's start and moves
// the division onto each sum, so the layers get rows-omega's three alternatives, as
// se_block.sr's, and the fully connected ones the matrix-vector strategies; every layer of
// the front's point validates in its host program against the program as written (the sum
// from the bias adds it first, not last: the same up to rounding), and so does each
// alternative of the tanh layer.
TEST_F(ExploreCli, BiasesAddedAfterTheSumGetRowsOmegaAndValidate) {
  const std::string path = std::string(LIFTC_SOURCE_DIR) + "/examples/networks/se_block_bias_after_sum.sr";
  Result space = run(fmt::format("space {} --samples 0", path));
  ASSERT_EQ(space.exit_code, 0) << space.output;
  expect_all_in(space.output, {"==== layer 2/4 (squeezed)", "== strategy matvec-rows, alternative 7 of 7",
                               "== strategy matvec-parametric, alternative 5 of 5", "== strategy rows-omega, alternative 3 of 3",
                               "==== layer 3/4 (excited)"});
  expect_rows_omega_block_and_layer(*this, "se_block_bias_after_sum", "fully_connected_tanh");
}

// A fully connected layer whose rows' one-element sums are not joined, [[float]1]M
// (examples/fully_connected_unjoined.sr, issue 38): the rows strategies make it split(1, ...)
// of their join at the definition's root (one-element-results-joined) and rewrite the join;
// before, it got stencil-parametric alone. Each alternative of rows-omega and matvec-rows
// validates, and so does the front's point in its host program.
TEST_F(ExploreCli, RowsWhoseOneElementSumsAreNotJoinedGetTheRowsStrategiesAndValidate) {
  Result r = run(fmt::format("explore {}/examples/fully_connected_unjoined.sr -s rows-omega -s matvec-rows --pareto "
                             "--evals 12 --runs 2 --jobs 2 -o out",
                             LIFTC_SOURCE_DIR));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("space: 10 alternative(s)"), std::string::npos) << r.output;
  std::string csv = read(dir() / "out/evaluated.csv");
  expect_each_alternative_validated(csv, "rows-omega", 3);
  expect_each_alternative_validated(csv, "matvec-rows", 7);
  Result host = run_front_point(*this, "fully_connected_unjoined");
  ASSERT_EQ(host.exit_code, 0) << host.output;
  EXPECT_NE(host.output.find("fc: matches the expected values"), std::string::npos) << host.output;
}

// A fully connected layer whose bias is added by a pass over the joined matrix-vector product,
// the biases zipped first (examples/fully_connected_bias_pass.sr, issue 38): normal-form fuses
// the pass into the map over the rows and makes each bias its sum's start; before, it got the
// generic strategies alone. Each alternative of rows-omega validates, and so does the front's
// point in its host program.
TEST_F(ExploreCli, AFullyConnectedLayerWithItsBiasAddedByAPassGetsTheRowsStrategies) {
  Result r =
      run(fmt::format("explore {}/examples/fully_connected_bias_pass.sr -s rows-omega -s matvec-parametric "
                      "--pareto --evals 10 --runs 2 --jobs 2 -o out",
                      LIFTC_SOURCE_DIR));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("space: 8 alternative(s)"), std::string::npos) << r.output;
  std::string csv = read(dir() / "out/evaluated.csv");
  expect_each_alternative_validated(csv, "rows-omega", 3);
  EXPECT_TRUE(validated_by(csv, "matvec-parametric")) << csv;
  Result host = run_front_point(*this, "fully_connected_bias_pass");
  ASSERT_EQ(host.exit_code, 0) << host.output;
  EXPECT_NE(host.output.find("fc: matches the expected values"), std::string::npos) << host.output;
}

// A program whose only other definition rearranges data (a channel concatenation, as a user
// writes before a convolution) is one convolution, not a network: explored as one program,
// its convolution's alternatives are not capped by --max-program-alternatives, which bounds
// the alternatives of several computing definitions combined (found by a user-style check:
// with the default strategies it was refused at 33 of 32).
TEST_F(ExploreCli, AConcatenationBeforeAConvolutionIsOneProgramWithoutTheNetworksCap) {
  std::ofstream(dir_ / "cat.sr") << R"(size H = 4, W = 4, A = 2, B = 2, M = 2
input u : [[[float]A]W]H
input v : [[[float]B]W]H
input cw : [[[[float](A + B)]3]3]M
input cb : [float]M
def cat = map2D(p -> concat(p.0, p.1), zip2D(u, v))
def out = map2D(win -> join(map((k, b) -> reduce(b, (acc, t) -> acc + t.0 * t.1, zip(join(join(win)), join(join(k)))), zip(cw, cb))),
                slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, cat)))
)";
  Result r = run("explore cat.sr -s conv-gpu --max-program-alternatives 2 --evals 2 --runs 2 --jobs 1 -q --db cat.db");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("alternatives combine"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("space: 4 alternative(s)"), std::string::npos) << r.output;  // of conv-gpu's 7
}

TEST_F(ExploreCli, NetworkErrors) {
  expect(fmt::format("explore {} --replay none.db", kVggBlock), 1,
         "error: --replay: " + kVggBlock +
             " is a network of 3 layers, explored layer by layer, which replay does not do yet; replay a run "
             "of --whole-program");
}

// A small network of a convolution and a layer no convolution strategy fits (a max
// pooling, an activation): `-s conv-chw-tile` explores the convolution with it and lowers
// the other layer by the fallback, saying so (the activation, one-to-one over the
// convolution, is also fused into it: a layer conv-chw-tile takes); a strategy named that
// applies to no layer is an error before any store is made.
const char* const kConvThen = R"(size C = 2, H = 4, W = 4, M = 2, K = 3
input weights : [[[[float]C]K]K]M
input biases  : [float]M
input image   : [[[float]C]W]H
def conv = map2D(win -> join(map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(join(join(win)), join(join(w)))),
                                 zip(weights, biases))),
                 slide2D(K, K, 1, 1, pad2D(1, 1, 1, 1, 0.0, image)))
)";

struct SecondLayer {
  const char* name;
  const char* definition;
};

TEST_F(ExploreCli, AStrategyNamedAppliesToTheLayersItFitsTheOthersFallBack) {
  const SecondLayer cases[] = {
      {"pool", "def pool = map2D(win -> join(map(ch -> reduce(-inf, (a, v) -> max(a, v), ch), transpose(join(win)))), "
               "slide2D(2, 2, 2, 2, conv))\n"},
      {"act", "def act = map2D(map(x -> max(x, 0.0)), conv)\n"},
  };
  for (const auto& c : cases) {
    std::ofstream(dir_ / "net.sr") << kConvThen << c.definition;
    Result r = run(fmt::format("explore net.sr -s conv-chw-tile --evals 1 --runs 1 -q --db {}.db", c.name));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (const std::string& line :
         {std::string("layer 1/2 (conv): "), std::string(" of 1 strategy (conv-chw-tile)"),
          fmt::format("layer 2/2 ({}): 1 alternative(s) of 1 strategy (lower-glb2)", c.name),
          fmt::format("note: layer 2/2 ({}): conv-chw-tile does not apply to it: lowered by lower-glb2, as a layer no "
                      "strategy applies to",
                      c.name)})
      EXPECT_NE(r.output.find(line), std::string::npos) << line << "\n" << r.output;
    // Each is also a fused layer, which the tile strategy takes: the activation is one-to-one
    // over the convolution (the activation after each sum), the 2x2 pooling reads it in
    // non-overlapping windows (each window's outputs computed inside the pooling). The
    // fastest point is either.
    std::string fused = fmt::format("fused layer (conv+{}): 2 alternative(s) of 1 strategy (conv-chw-tile)", c.name);
    EXPECT_NE(r.output.find(fused), std::string::npos) << r.output;
    bool as_written = r.output.find("conv: conv-chw-tile #") != std::string::npos &&
                      r.output.find(fmt::format("; {}: lower-glb2 #1 (", c.name)) != std::string::npos;
    bool as_fused = r.output.find(fmt::format("network #1          conv+{}: conv-chw-tile #", c.name)) != std::string::npos;
    EXPECT_TRUE(as_written || as_fused) << r.output;
    Result space = run("space net.sr -s conv-chw-tile --samples 0 --target mali-g72");
    ASSERT_EQ(space.exit_code, 0) << space.output;
    EXPECT_NE(space.output.find(fmt::format("==== layer 2/2 ({})\n// conv-chw-tile does not apply: lowered by "
                                            "lower-glb2\n\n== strategy lower-glb2, alternative 1 of 1",
                                            c.name)),
              std::string::npos)
        << space.output;
  }

  // Errors: a strategy named that applies to no layer (none of liftc's own, or a library's,
  // which a network's layers do not offer), whatever the others do.
  const struct {
    const char* strategies;
    std::string message;
  } errors[] = {
      {"-s conv-chw-tile -s matmul-parametric",
       "error: strategy `matmul-parametric` applies to no layer of net.sr (layer 'conv': strategy `matmul-parametric` "
       "does not apply to any definition of net.sr (its step `where(rows-times-columns)` applies nowhere))"},
      {"-s no-such-strategy",
       "error: strategy `no-such-strategy` applies to no layer of net.sr (layer 'conv': unknown rule or strategy "
       "`no-such-strategy`)"},
      {"-s clblast-convgemm",
       "error: strategy `clblast-convgemm` applies to no layer of net.sr (a network's layers do not offer clblast- "
       "candidates yet)"},
      {"-s conv-chw-tile -s clblast-convgemm",
       "error: strategy `clblast-convgemm` applies to no layer of net.sr (a network's layers do not offer clblast- "
       "candidates yet)"},
  };
  for (const auto& e : errors) {
    Result r = run(fmt::format("explore net.sr {} --evals 1 -q --db e.db", e.strategies));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find(e.message + "\n"), std::string::npos) << e.message << "\n" << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "e.db")) << e.strategies;
    Result space = run(fmt::format("space net.sr {} --samples 0 --target mali-g72", e.strategies));
    EXPECT_EQ(space.exit_code, 1) << space.output;
    EXPECT_NE(space.output.find(e.message + "\n"), std::string::npos) << e.message << "\n" << space.output;
  }
}

// --storage half on a network explored layer by layer: every layer's buffers (inputs,
// weights, the buffers between layers, outputs) are halves, each layer's candidates validate
// with the half tolerance, the composed front's memory is half the float front's, its host
// program stores halves and validates every layer, and its folder deploys. In one store the
// half run's rows are the layers' own, not the float run's.
TEST_F(ExploreCli, ANetworkExploredLayerByLayerStoresItsBuffersAsHalves) {
  const std::string explore =
      fmt::format("explore {} -s conv-gpu --fusion off --pareto --evals 2 --runs 1 --jobs 2 --db r.db", kVggBlock);
  Result f32 = run(explore + " -q -o f32");
  ASSERT_EQ(f32.exit_code, 0) << f32.output;
  Result f16 = run(explore + " -q --storage half -o out");
  ASSERT_EQ(f16.exit_code, 0) << f16.output;
  // Each layer's candidates ran and validated: none was served from the float run's rows.
  expect_all_in(f16.output, {"network: 3 layers, 2 of a shape of their own", "network Pareto front"});
  for (const char* layer : {"layer 1 (conv1): 2 candidates in ", "layer 3 (pooled): 2 candidates in "}) {
    std::size_t at = f16.output.find(layer);
    ASSERT_NE(at, std::string::npos) << layer << "\n" << f16.output;
    EXPECT_NE(f16.output.substr(at, f16.output.find('\n', at) - at).find("; 0 served from the store;"),
              std::string::npos)
        << f16.output;
  }
  for (const char* word : {"wrong", "failed"}) EXPECT_EQ(f16.output.find(word), std::string::npos) << f16.output;
  EXPECT_EQ(rows(dir_ / "r.db"), 8);  // 2 layers' 2 rows, in each run
  EXPECT_EQ(query(dir_ / "r.db", "SELECT count(DISTINCT program) FROM evaluations"),
            (std::vector<std::vector<std::string>>{{"4"}}));
  double half = least_memory(read(dir_ / "out/pareto.csv")), full = least_memory(read(dir_ / "f32/pareto.csv"));
  EXPECT_DOUBLE_EQ(2 * half, full) << read(dir_ / "out/pareto.csv") << read(dir_ / "f32/pareto.csv");

  std::string kernels = read(dir_ / "out/front/1/kernels.cl");
  for (const char* call : {"vload_half", "vstore_half"}) EXPECT_NE(kernels.find(call), std::string::npos) << kernels;
  std::string host = read(dir_ / "out/front/1/main.cpp");
  for (const char* buffer : {"\"image\", ", "\"w2\", ", "\"conv1\", ", "\"pooled\", "}) {
    std::size_t at = host.find(buffer);
    ASSERT_NE(at, std::string::npos) << buffer << "\n" << host;
    EXPECT_NE(host.substr(at, host.find('\n', at) - at).find("(stored as halves)"), std::string::npos) << buffer;
  }
  Result values = run_front_point(*this, "vgg_block");
  ASSERT_EQ(values.exit_code, 0) << values.output;
  expect_all_in(values.output, {"conv1: matches the expected values (512 values)",
                                "conv2: matches the expected values (512 values)",
                                "pooled: matches the expected values (128 values)"});

  // Deployed, the library's points store the same halves, and its demo validates every layer.
  Result deployed = run("deploy out -o deployed");
  ASSERT_EQ(deployed.exit_code, 0) << deployed.output;
  EXPECT_NE(read(dir_ / "deployed/points.cpp").find("(stored as halves)"), std::string::npos);
  const fs::path project = dir_ / "deployed";
  ASSERT_TRUE(build_project(project)) << "see " << project << "/log.txt";
  Result demo = run_shell(fmt::format("'{0}/build/demo' --memory-budget {1} --inputs '{2}/out/inputs' --expected "
                                      "'{2}/out/expected'",
                                      project.string(), static_cast<long>(half), dir_.string()));
  ASSERT_EQ(demo.exit_code, 0) << demo.output;
  expect_all_in(demo.output, {"conv1: matches the expected values", "conv2: matches the expected values",
                              "pooled: matches the expected values"});
}

// Under half storage a depthwise layer is fused into the pointwise one that sums its values
// as in float, and the fused layer rounds the depthwise values to halves where it keeps them
// (layers.hpp, fuse: roundHalf), as the network rounds them when it stores them: its kernels
// define liftc_round_half, and every front point's host program validates the network's
// output. MobileNetV2's block gets the fusion too.
TEST_F(ExploreCli, UnderHalfStorageADepthwiseLayerFusedIntoItsPointwiseReaderRoundsItsValues) {
  const std::string pair = std::string(LIFTC_SOURCE_DIR) + "/examples/networks/mobilenet_v1_pair.sr";
  Result only =
      run(fmt::format("explore {} -s conv-dw-pw-private --fusion only --storage half --pareto --evals 3 "
                      "--runs 1 --jobs 1 -q --db half.db -o out",
                      pair));
  ASSERT_EQ(only.exit_code, 0) << only.output;
  EXPECT_NE(only.output.find("fused layer (depthwise+pointwise)"), std::string::npos) << only.output;
  expect_each_alternative_validated(read(dir_ / "out/evaluated.csv"), "conv-dw-pw-private", 1);
  std::string kernels = read(dir_ / "out/front/1/kernels.cl");
  EXPECT_NE(kernels.find("liftc_round_half("), std::string::npos) << kernels;
  expect_every_front_point_matches(*this, "mobilenet_v1_pair", "pointwise: matches the expected values");
  const std::string mobilenet = std::string(LIFTC_SOURCE_DIR) + "/examples/networks/mobilenet_v2_block.sr";
  Result f16 =
      run(fmt::format("explore {} -s conv-lower --evals 1 --runs 1 --jobs 1 -q --db r.db --storage half", mobilenet));
  ASSERT_EQ(f16.exit_code, 0) << f16.output;
  EXPECT_NE(f16.output.find("fused layer (depthwise+projected)"), std::string::npos) << f16.output;
  EXPECT_NE(f16.output.find("fused layer (projected+block)"), std::string::npos) << f16.output;
}

// A fused layer in half: the convolution fused into its pooling (conv2+pooled, conv-pool-tile)
// stores what it reads and its output as halves, writes no conv2 buffer, and its front's host
// program validates the network's layers; its memory is half the float run's.
TEST_F(ExploreCli, AFusedLayerStoresItsBuffersAsHalves) {
  const std::string explore =
      fmt::format("explore {} -s conv-pool-tile --fusion only --pareto --evals 2 --runs 1 --jobs 2 -q", kVggBlock);
  Result f16 = run(explore + " --storage half --db half.db -o out");
  ASSERT_EQ(f16.exit_code, 0) << f16.output;
  EXPECT_NE(f16.output.find("conv2+pooled: conv-pool-tile #1"), std::string::npos) << f16.output;
  Result f32 = run(explore + " --db float.db -o f32");
  ASSERT_EQ(f32.exit_code, 0) << f32.output;
  double half = least_memory(read(dir_ / "out/pareto.csv")), full = least_memory(read(dir_ / "f32/pareto.csv"));
  EXPECT_DOUBLE_EQ(2 * half, full) << read(dir_ / "out/pareto.csv") << read(dir_ / "f32/pareto.csv");
  // The fused layer's own memory objective: 4896 bytes in float (docs/exploring.md), 2448 in half.
  std::string evaluated = read(dir_ / "out/evaluated.csv");
  std::size_t row = evaluated.find("\nconv2+pooled,");
  ASSERT_NE(row, std::string::npos) << evaluated;
  EXPECT_NE(evaluated.substr(row, evaluated.find('\n', row + 1) - row).find(",2448,conv-pool-tile,"), std::string::npos)
      << evaluated;
  std::string kernels = read(dir_ / "out/front/1/kernels.cl");
  std::size_t pooled = kernels.find("kernel void pooled_kernel(");
  ASSERT_NE(pooled, std::string::npos) << kernels;
  EXPECT_NE(kernels.find("vstore_half", pooled), std::string::npos) << kernels;
  EXPECT_EQ(kernels.find("conv2"), std::string::npos) << kernels;
  Result values = run_front_point(*this, "vgg_block");
  ASSERT_EQ(values.exit_code, 0) << values.output;
  expect_all_in(values.output, {"conv1: matches the expected values (512 values)",
                                "pooled: matches the expected values (128 values)"});
}

// A grouped convolution under half storage is split by group too (before: explored whole,
// with a note): each group's layer reads its view of the image's channels and its group's
// weights as halves and writes halves, as the network stores the grouped convolution, and
// so does their concatenation; each validates with the half tolerance, the composed front's
// memory is half the float run's, the front point's host program stores halves and
// validates every layer it runs, and deploy stores them too.
TEST_F(ExploreCli, AGroupedConvolutionSplitByGroupStoresItsBuffersAsHalves) {
  const std::string grouped = std::string(LIFTC_SOURCE_DIR) + "/examples/conv/forms/grouped.sr";
  const std::string explore =
      fmt::format("explore {} -s conv-chw-tile --search random --pareto --evals 2 --runs 1 --jobs 2", grouped);
  Result f16 = run(explore + " --storage half -o out");
  ASSERT_EQ(f16.exit_code, 0) << f16.output;
  EXPECT_EQ(f16.output.find("the grouped convolution is explored whole"), std::string::npos) << f16.output;
  expect_all_in(f16.output,
                {"conv into 2 groups (conv_g0, conv_g1) of 2 channels each",
                 "group layer (conv_g1, a group of conv): the shape of group layer (conv_g0, a group of conv): "
                 "explored once, its results taken",
                 "network Pareto front"});
  std::string csv = read(dir_ / "out/evaluated.csv");
  bool validated = false;
  std::istringstream lines(csv);
  for (std::string line; std::getline(lines, line);)
    validated = validated || (line.rfind("conv_g0,", 0) == 0 && line.find(",ok,") != std::string::npos);
  EXPECT_TRUE(validated) << csv;
  Result f32 = run(explore + " -q -o f32");
  ASSERT_EQ(f32.exit_code, 0) << f32.output;
  double half = least_memory(read(dir_ / "out/pareto.csv")), full = least_memory(read(dir_ / "f32/pareto.csv"));
  EXPECT_DOUBLE_EQ(2 * half, full) << read(dir_ / "out/pareto.csv") << read(dir_ / "f32/pareto.csv");

  std::string kernels = read(dir_ / "out/front/1/kernels.cl");
  for (const char* call : {"vload_half", "vstore_half"}) EXPECT_NE(kernels.find(call), std::string::npos) << kernels;
  std::string host = read(dir_ / "out/front/1/main.cpp");
  for (const char* buffer : {"\"image\", ", "\"weights\", ", "\"conv_g0\", ", "\"conv_g1\", ", "\"conv\", "}) {
    std::size_t at = host.find(buffer);
    ASSERT_NE(at, std::string::npos) << buffer << "\n" << host;
    EXPECT_NE(host.substr(at, host.find('\n', at) - at).find("(stored as halves)"), std::string::npos) << buffer;
  }
  Result values = run_front_point(*this, "grouped");
  ASSERT_EQ(values.exit_code, 0) << values.output;
  expect_layers_match(values.output, {"conv_g0", "conv_g1", "conv"});
  // Deployed from its folder, the library's points store the same halves.
  Result deployed = run("deploy out -o deployed");
  ASSERT_EQ(deployed.exit_code, 0) << deployed.output;
  EXPECT_NE(read(dir_ / "deployed/points.cpp").find("(stored as halves)"), std::string::npos);
}

// A fused layer that no strategy takes (a channel-first MobileNetV2 block's depthwise,
// projection and residual add, each written on its own, the add over each plane's values
// joined; gen30's form wrote it row by row, which normal-form has read since as the
// channel-last add): explore says it is not offered in terms that ask nothing of the user (before, it asked for what
// the user had written: "written as a definition of its own, it is a layer that explore fuses back"), and explores the
// network without it, whose front points validate. (Under --fusion only, FusionErrors: the same words, then the error
// that no fused layer has a space.)
TEST_F(ExploreCli, AFusedLayerNoStrategyTakesSaysSoWithoutAskingForADefinitionOfItsOwn) {
  std::ofstream(dir_ / "mbv2_chw.sr") << R"(size C = 4, E = 8, H = 6, W = 6
input inp : [[[float]W]H]C
input expW : [[float]C]E
input dwK : [[[float]3]3]E
input projW : [[float]E]C
def clip6(v) = select(v > 6.0, 6.0, select(v < 0.0, 0.0, v))
def hwc(t) = map(transpose, transpose(t))
def ex = map(w -> map(join, map2D(px -> map(clip6, reduce(0.0, (a, t) -> a + t.0 * t.1, zip(w, px))), hwc(inp))), expW)
def dwc = map((k, plane) -> map(join, map2D(win -> map(clip6, reduce(0.0, (a, t) -> a + t.0 * t.1, zip(join(k), join(win)))),
                                           slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, plane)))),
              zip(dwK, ex))
def pr = map(w -> map(join, map2D(px -> reduce(0.0, (a, t) -> a + t.0 * t.1, zip(w, px)), hwc(dwc))), projW)
def res = map((a, b) -> split(W, map((u, v) -> u + v, zip(join(a), join(b)))), zip(pr, inp))
)";
  Result r =
      run("explore mbv2_chw.sr -s conv-chw-tile -s conv-depthwise-kappa --search random --pareto --evals 2 --jobs 2 -o "
          "out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_all_in(r.output, {"fused layer (dwc+pr+res): not offered: ",
                           "so no strategy takes them together and the fusion is left out", "network Pareto front"});
  EXPECT_EQ(r.output.find("written as a definition of its own"), std::string::npos) << r.output;
  expect_every_front_point_matches(*this, "mbv2_chw", "res: matches the expected values (144 values)");
}

}  // namespace
}  // namespace liftc::explore::test
