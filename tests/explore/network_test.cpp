// Networks without a device: the composition of layer fronts (against hand cases and the
// brute-force front of every combination), the liveness of a network's buffers, and the
// layers of a program (what each reads, which have the same shape, renaming).

#include <algorithm>
#include <cmath>
#include <ostream>
#include <random>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "liftc/codegen/module.hpp"
#include "liftc/explore/products/compose.hpp"
#include "liftc/explore/products/layers.hpp"
#include "liftc/interp/interp.hpp"
#include "liftc/ir/printer.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/rewrite/engine.hpp"
#include "liftc/rewrite/load.hpp"
#include "liftc/typecheck/typecheck.hpp"
#include "../readable_name.hpp"

namespace liftc::explore {
namespace {

const double kInf = std::numeric_limits<double>::infinity();

// A layer point: time, spread, memory.
Objectives pt(double time, double memory, double spread = 0) { return {time, spread, memory}; }

// An expected network point: time, memory, the choice per layer.
struct Expected {
  double time, memory;
  std::vector<std::size_t> choice;
};

struct ComposeCase {
  const char* what;
  std::vector<LayerFront> layers;
  std::vector<Expected> front;  // fastest first
};
void PrintTo(const ComposeCase& c, std::ostream* os) { *os << c.what; }

class Compose : public ::testing::TestWithParam<ComposeCase> {};

TEST_P(Compose, Table) {
  const ComposeCase& c = GetParam();
  std::vector<NetworkPoint> got = compose_fronts(c.layers);
  ASSERT_EQ(got.size(), c.front.size()) << c.what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_DOUBLE_EQ(got[i].objectives.time_ms, c.front[i].time) << c.what << " point " << i;
    EXPECT_DOUBLE_EQ(got[i].objectives.memory, c.front[i].memory) << c.what << " point " << i;
    EXPECT_EQ(got[i].choice, c.front[i].choice) << c.what << " point " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Network, Compose,
    ::testing::Values(
        ComposeCase{"one layer: its front, its memory plus what is alive across it",
                    {{{pt(1, 100), pt(3, 50)}, 10}},
                    {{1, 110, {0}}, {3, 60, {1}}}},
        ComposeCase{"times add; memory is the peak over the layers, not the sum",
                    {{{pt(1, 100), pt(3, 50)}, 10}, {{pt(2, 80)}, 0}},
                    {{3, 110, {0, 0}}, {5, 80, {1, 0}}}},
        ComposeCase{"a combination no faster and no smaller than another is pruned",
                    {{{pt(1, 100), pt(1.5, 100)}, 0}, {{pt(1, 50)}, 0}},
                    {{2, 100, {0, 0}}}},
        ComposeCase{"a later layer's peak hides an earlier layer's memory saving",
                    {{{pt(1, 100), pt(2, 40)}, 0}, {{pt(1, 120)}, 0}},
                    {{2, 120, {0, 0}}}},
        ComposeCase{"the resident bytes of a layer count in its peak only",
                    {{{pt(1, 50), pt(2, 30)}, 100}, {{pt(1, 100), pt(4, 60)}, 0}},
                    {{2, 150, {0, 0}}, {3, 130, {1, 0}}}},
        ComposeCase{"every trade-off of two layers (2 x 2 combinations, 3 on the front)",
                    {{{pt(1, 100), pt(2, 60)}, 0}, {{pt(1, 90), pt(3, 70)}, 0}},
                    {{2, 100, {0, 0}}, {3, 90, {1, 0}}, {5, 70, {1, 1}}}},
        ComposeCase{"combinations of equal objectives: the first is kept",
                    {{{pt(1, 10), pt(2, 10)}, 0}, {{pt(2, 10), pt(1, 10)}, 0}},
                    {{2, 10, {0, 1}}}},
        ComposeCase{"a failed point takes no part", {{{pt(kInf, 1), pt(2, 30)}, 0}}, {{2, 30, {1}}}},
        ComposeCase{"a layer without a valid point: no network point", {{{pt(1, 10)}, 0}, {{}, 0}}, {}},
        ComposeCase{"no layers: no network point", {}, {}}),
    [](const auto& info) { return testing::readable_name(info.index, {info.param.what}); });

TEST(Compose, SpreadsAdd) {
  std::vector<NetworkPoint> got = compose_fronts({{{pt(1, 10, 0.25)}, 0}, {{pt(2, 10, 0.5)}, 0}});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_DOUBLE_EQ(got[0].objectives.spread_ms, 0.75);
}

// Pruning while composing must give the front of every combination.
TEST(Compose, EqualsTheBruteForceFrontOfEveryCombination) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> time(1, 20), memory(1, 20), count(1, 4), resident(0, 10);
  for (int round = 0; round < 300; ++round) {
    std::vector<LayerFront> layers(static_cast<std::size_t>(count(rng)));
    for (auto& l : layers) {
      l.resident_bytes = resident(rng);
      for (int k = count(rng); k > 0; --k) l.points.push_back(pt(time(rng), memory(rng)));
    }
    // Every combination, then the points no other dominates (of equal ones, one).
    std::vector<Objectives> all = {Objectives{}};
    for (const auto& l : layers) {
      std::vector<Objectives> next;
      for (const auto& a : all)
        for (const auto& p : l.points) next.push_back(pt(a.time_ms + p.time_ms, std::max(a.memory, p.memory + l.resident_bytes)));
      all = next;
    }
    std::set<std::pair<double, double>> want;
    for (const auto& a : all) {
      bool dominated = std::any_of(all.begin(), all.end(), [&](const Objectives& b) {
        return b.time_ms <= a.time_ms && b.memory <= a.memory && (b.time_ms < a.time_ms || b.memory < a.memory);
      });
      if (!dominated) want.insert({a.time_ms, a.memory});
    }
    std::set<std::pair<double, double>> got;
    for (const auto& p : compose_fronts(layers)) {
      got.insert({p.objectives.time_ms, p.objectives.memory});
      // The choice is a real combination with those objectives.
      double t = 0, m = 0;
      for (std::size_t i = 0; i < layers.size(); ++i) {
        t += layers[i].points[p.choice[i]].time_ms;
        m = std::max(m, layers[i].points[p.choice[i]].memory + layers[i].resident_bytes);
      }
      EXPECT_EQ(t, p.objectives.time_ms);
      EXPECT_EQ(m, p.objectives.memory);
    }
    EXPECT_EQ(got, want) << "round " << round;
    EXPECT_EQ(compose_fronts(layers).size(), want.size()) << "round " << round;
  }
}

struct LivenessCase {
  const char* what;
  std::vector<LayerBuffers> layers;
  std::map<std::string, double> bytes;
  std::vector<double> resident;
};
void PrintTo(const LivenessCase& c, std::ostream* os) { *os << c.what; }

class Liveness : public ::testing::TestWithParam<LivenessCase> {};

TEST_P(Liveness, Table) {
  const LivenessCase& c = GetParam();
  EXPECT_EQ(resident_bytes(c.layers, c.bytes), c.resident) << c.what;
}

INSTANTIATE_TEST_SUITE_P(
    Network, Liveness,
    ::testing::Values(
        LivenessCase{"a chain: the next layer's weights are uploaded when it runs, the first layer's inputs freed after it",
                     {{{"x", "w1"}, "a"}, {{"a", "w2"}, "b"}},
                     {{"x", 10}, {"w1", 1}, {"w2", 2}, {"a", 5}, {"b", 6}},
                     {0, 0}},
        LivenessCase{"a skip connection keeps the block's input alive across the middle layer",
                     {{{"x"}, "a"}, {{"a"}, "b"}, {{"b", "x"}, "c"}},
                     {{"x", 10}, {"a", 3}, {"b", 4}, {"c", 5}},
                     {0, 10, 0}},
        LivenessCase{"an output no later layer reads is read back and freed after its layer",
                     {{{"x"}, "a"}, {{"x"}, "b"}, {{"x"}, "c"}},
                     {{"x", 10}, {"a", 3}, {"b", 4}, {"c", 5}},
                     {0, 0, 0}},
        LivenessCase{"an output is freed after its last reader, not its first",
                     {{{"x"}, "a"}, {{"a"}, "b"}, {{"b"}, "c"}, {{"a", "c"}, "d"}},
                     {{"x", 10}, {"a", 3}, {"b", 4}, {"c", 5}, {"d", 6}},
                     {0, 0, 3, 0}},
        LivenessCase{"a network input a later layer reads first is alive across the layers before it only from then",
                     {{{"x"}, "a"}, {{"a"}, "b"}, {{"b", "y"}, "c"}, {{"c", "y"}, "d"}},
                     {{"x", 10}, {"y", 7}, {"a", 3}, {"b", 4}, {"c", 5}, {"d", 6}},
                     {0, 0, 0, 0}}),
    [](const auto& info) { return testing::readable_name(info.index, {info.param.what}); });

// One layer's kernels: each buffer (name, bytes, whether it is the network's), and per
// kernel the buffers it names.
struct LayerPeakCase {
  const char* what;
  LayerSteps steps;
  std::vector<LayerBuffers> layers;  // the network
  std::size_t layer;                 // which of them `steps` is
  double peak;
};
void PrintTo(const LayerPeakCase& c, std::ostream* os) { *os << c.what; }

class LayerPeak : public ::testing::TestWithParam<LayerPeakCase> {};

TEST_P(LayerPeak, Table) {
  const LayerPeakCase& c = GetParam();
  EXPECT_EQ(layer_peak(c.steps, c.layers, c.layer), c.peak) << c.what;
}

// A convolution that pads its image in a kernel of its own (conv-chw-tile-local's
// `out_part1`), then convolves the padded image: image 10, padded 16, weights 5, output 8.
const LayerSteps kPadded = {{{"image", 10, true}, {"out_part1", 16, false}, {"w", 5, true}, {"out", 8, true}},
                            {{0, 1}, {2, 1, 3}}};

INSTANTIATE_TEST_SUITE_P(
    Network, LayerPeak,
    ::testing::Values(
        LayerPeakCase{"each buffer from the first kernel that names it to the last: the image is freed once padded, the "
                      "weights and output made for the convolution (not all four, 39)",
                      kPadded, {{{"image", "w"}, "out"}}, 0, 29},
        LayerPeakCase{"an input an earlier layer wrote is alive from the layer's start",
                      kPadded, {{{"x"}, "image"}, {{"image", "w"}, "out"}}, 1, 29},
        LayerPeakCase{"an input a later layer reads is alive to the layer's end",
                      kPadded, {{{"image", "w"}, "out"}, {{"out", "image"}, "y"}}, 0, 39},
        LayerPeakCase{"weights an earlier layer read are alive from the layer's start",
                      kPadded, {{{"w"}, "x"}, {{"image", "w"}, "out"}}, 1, 31},
        LayerPeakCase{"an output a later layer reads stays alive through the layer's later kernels",
                      LayerSteps{{{"x", 10, true}, {"a", 4, true}, {"a_part1", 6, false}},
                                 {{0, 1}, {0, 2}}},
                      {{{"x"}, "a"}, {{"a"}, "b"}}, 0, 20},
        LayerPeakCase{"a layer's own intermediate is never alive beyond its kernels, whatever the network names",
                      LayerSteps{{{"x", 10, true}, {"b", 6, false}, {"a", 4, true}}, {{0, 1}, {0, 2}}},
                      {{{"x"}, "a"}, {{"a"}, "b"}}, 0, 16}),
    [](const auto& info) { return testing::readable_name(info.index, {info.param.what}); });

ir::Program parse(const std::string& text) {
  return parse::parse_program(std::make_shared<const SourceFile>(SourceFile{"net.sr", text}));
}

const std::string kHeader = R"(
size H = 6, W = 6, C = 2, D = 3
input image : [[[float]C]W]H
input wa : [[[[float]C]3]3]C
input ba : [float]C
input wb : [[[[float]C]3]3]C
input bb : [float]C
input wc : [[[[float]C]3]3]D
input bc : [float]D
)";

// A 3x3 convolution of `in` with kernels `w` and biases `b`, its variables named after `v`.
std::string conv(const std::string& in, const std::string& w, const std::string& b, const std::string& v = "p") {
  return "map2D(win -> join(map((k, c) -> reduce(c, (acc, " + v + ") -> acc + " + v + ".0 * " + v +
         ".1, zip(join(join(win)), join(join(k)))), zip(" + w + ", " + b + "))), slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, "
         "0.0, " + in + ")))";
}

struct LayersCase {
  const char* what;
  std::string defs;
  std::vector<std::vector<std::string>> reads;  // per layer
  std::vector<std::size_t> same_as;
};
void PrintTo(const LayersCase& c, std::ostream* os) { *os << c.what; }

class Layers : public ::testing::TestWithParam<LayersCase> {};

TEST_P(Layers, Table) {
  const LayersCase& c = GetParam();
  std::vector<Layer> layers = split_layers(parse(kHeader + c.defs));
  ASSERT_EQ(layers.size(), c.reads.size()) << c.what;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    EXPECT_EQ(layers[i].reads, c.reads[i]) << c.what << " layer " << i;
    EXPECT_EQ(layers[i].same_as, c.same_as[i]) << c.what << " layer " << i;
    ASSERT_EQ(layers[i].program.defs.size(), 1u);
    EXPECT_EQ(layers[i].program.defs[0].name, layers[i].name);
    ASSERT_EQ(layers[i].program.inputs.size(), c.reads[i].size());
    for (std::size_t k = 0; k < c.reads[i].size(); ++k) EXPECT_EQ(layers[i].program.inputs[k].name, c.reads[i][k]);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Network, Layers,
    ::testing::Values(
        LayersCase{"two convolutions of one shape, the second reading the first: explored once",
                   "def a = " + conv("image", "wa", "ba") + "\ndef b = " + conv("a", "wb", "bb", "q"),
                   {{"wa", "ba", "image"}, {"wb", "bb", "a"}},
                   {0, 0}},
        LayersCase{"the same body reading other sizes is another shape",
                   "def a = " + conv("image", "wa", "ba") + "\ndef c = " + conv("image", "wc", "bc"),
                   {{"wa", "ba", "image"}, {"wc", "bc", "image"}},
                   {0, 1}},
        LayersCase{"the same inputs in another order are another shape (the body differs)",
                   "def a = " + conv("image", "wa", "ba") +
                       "\ndef b = map2D(win -> join(map((c, k) -> reduce(c, (acc, p) -> acc + p.0 * p.1, "
                       "zip(join(join(win)), join(join(k)))), zip(bb, wb))), slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, "
                       "0.0, a)))",
                   {{"wa", "ba", "image"}, {"bb", "wb", "a"}},
                   {0, 1}},
        LayersCase{"a layer reading two earlier values and an input (a skip connection)",
                   "def a = " + conv("image", "wa", "ba") + "\ndef b = " + conv("a", "wb", "bb") +
                       "\ndef s = map((r, t) -> map((x, y) -> map((u, v) -> u + v, zip(x, y)), zip(r, t)), zip(b, image))",
                   {{"wa", "ba", "image"}, {"wb", "bb", "a"}, {"b", "image"}},
                   {0, 0, 2}}),
    [](const auto& info) { return testing::readable_name(info.index, {info.param.what}); });

TEST(Layers, ANetworkHasTwoDefinitionsThatCompute) {
  struct Case {
    const char* what;
    std::string defs;
    bool network;
  };
  for (const Case& c : std::vector<Case>{
           {"two convolutions", "def a = " + conv("image", "wa", "ba") + "\ndef b = " + conv("a", "wb", "bb"), true},
           {"one convolution", "def a = " + conv("image", "wa", "ba"), false},
           {"a convolution and a layout of it (stencil2d's map(join, sums))",
            "def a = " + conv("image", "wa", "ba") + "\ndef b = map(join, a)", false},
           {"a convolution and an element-wise addition (a skip connection)",
            "def a = " + conv("image", "wa", "ba") +
                "\ndef s = map((r, t) -> map((x, y) -> map((u, v) -> u + v, zip(x, y)), zip(r, t)), zip(a, image))",
            true}})
    EXPECT_EQ(is_network(parse(kHeader + c.defs)), c.network) << c.what;
}

TEST(Layers, RenamedAfterItsShapeIsTheOtherLayer) {
  std::vector<Layer> layers =
      split_layers(parse(kHeader + "def a = " + conv("image", "wa", "ba") + "\ndef b = " + conv("a", "wb", "bb", "q")));
  ASSERT_EQ(layers[1].same_as, 0u);
  ir::Program renamed = rename_layer(layers[0].program, layers[0], layers[1]);
  EXPECT_EQ(renamed.defs[0].name, "b");
  ASSERT_EQ(renamed.inputs.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) EXPECT_EQ(renamed.inputs[k].name, layers[1].reads[k]);
  EXPECT_TRUE(ir::alpha_equal(renamed.defs[0].body, layers[1].program.defs[0].body))
      << ir::to_string(renamed.defs[0].body) << "\n" << ir::to_string(layers[1].program.defs[0].body);
}

TEST(Layers, ReadsOfASwappedShapeAreRenamedTogether) {
  // b reads (wb, bb, a) where a read (wa, ba, image): renaming a's body to b's names
  // replaces every name at once, even where one's new name is another's old one.
  Layer from{"a", {}, {"x", "y"}, 0};
  Layer to{"b", {}, {"y", "x"}, 0};
  ir::Program p = parse("size N = 4\ninput x : [float]N\ninput y : [float]N\ndef a = map((u, v) -> u - v, zip(x, y))");
  ir::Program r = rename_layer(p, from, to);
  ir::Program want = parse("size N = 4\ninput x : [float]N\ninput y : [float]N\ndef b = map((u, v) -> u - v, zip(y, x))");
  EXPECT_TRUE(ir::alpha_equal(r.defs[0].body, want.defs[0].body)) << ir::to_string(r.defs[0].body);
}

// Which definitions are one-to-one over another's output, and so fused into it.
struct FusionCase {
  const char* what;
  std::string defs;
  std::vector<std::pair<std::string, std::string>> fusions;  // (producer, consumer)
};
void PrintTo(const FusionCase& c, std::ostream* os) { *os << c.what; }

class Fusions : public ::testing::TestWithParam<FusionCase> {};

// The (producer, consumer) pairs of `fusions`, each of `kind`, are the case's.
void expect_fusions(const std::vector<Fusion>& fusions, FusionKind kind, const FusionCase& c) {
  std::vector<std::pair<std::string, std::string>> got;
  for (const Fusion& f : fusions) {
    got.emplace_back(f.producer, f.consumer);
    EXPECT_EQ(f.kind, kind) << c.what;
  }
  EXPECT_EQ(got, c.fusions) << c.what;
}

TEST_P(Fusions, Table) {
  expect_fusions(one_to_one_fusions(parse(kHeader + GetParam().defs)), FusionKind::OneToOne, GetParam());
}

const std::string kSkipAdd =
    "map((r, t) -> map((x, y) -> map((u, v) -> max(u + v, 0.0), zip(x, y)), zip(r, t)), zip(b, image))";

INSTANTIATE_TEST_SUITE_P(
    Network, Fusions,
    ::testing::Values(
        FusionCase{"a residual add and ReLU over a convolution's output (a ResNet block)",
                   "def a = " + conv("image", "wa", "ba") + "\ndef b = " + conv("a", "wb", "bb") + "\ndef s = " + kSkipAdd,
                   {{"b", "s"}}},
        FusionCase{"an activation pass (ReLU6 as a clamp)",
                   "def a = " + conv("image", "wa", "ba") + "\ndef r = map2D(px -> map(v -> min(max(v, 0.0), 6.0), px), a)",
                   {{"a", "r"}}},
        FusionCase{"a bias pass: the biases are of another shape, the output of the producer's",
                   "def a = " + conv("image", "wa", "ba") +
                       "\ndef r = map2D(px -> map((v, c) -> v + c, zip(px, bb)), a)",
                   {{"a", "r"}}},
        FusionCase{"a 2x2 max pooling is not one-to-one (windows, a reduction)",
                   "def a = " + conv("image", "wa", "ba") +
                       "\ndef p = map2D(win -> map(ch -> reduce(-inf, (m, v) -> max(m, v), join(ch)), "
                       "transpose(map(transpose, win))), slide2D(2, 2, 2, 2, a))",
                   {}},
        FusionCase{"a producer another definition also reads is kept (fusing would compute it twice)",
                   "def a = " + conv("image", "wa", "ba") + "\ndef b = " + conv("a", "wb", "bb") +
                       "\ndef r = map2D(px -> map(v -> max(v, 0.0), px), a)",
                   {}},
        FusionCase{"a consumer reading its producer twice is not fused",
                   "def a = " + conv("image", "wa", "ba") +
                       "\ndef r = map((x, y) -> map((p, q) -> map((u, v) -> u * v, zip(p, q)), zip(x, y)), zip(a, a))",
                   {}},
        FusionCase{"a convolution over a convolution is not one-to-one",
                   "def a = " + conv("image", "wa", "ba") + "\ndef b = " + conv("a", "wb", "bb"), {}}),
    [](const auto& info) { return testing::readable_name(info.index, {info.param.what}); });

// The ResNet block of examples/networks: conv2 fused into block computes what the network
// does, value for value (the same arithmetic in the same order), and is an alternative.
TEST(Fusion, TheFusedResnetBlockInterpretsAsTheNetwork) {
  ir::Program network = parse::load_program(std::string(LIFTC_SOURCE_DIR) + "/examples/networks/resnet_block.sr");
  std::vector<Fusion> fusions = one_to_one_fusions(network);
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(fusions[0].producer, "conv2");
  EXPECT_EQ(fusions[0].consumer, "block");
  ir::Program fused = typecheck::typecheck(ir::bind_sizes(fuse(network, fusions[0]), {})).program;
  ASSERT_EQ(fused.defs.size(), 2u);
  ir::Program checked = typecheck::typecheck(ir::bind_sizes(network, {})).program;
  interp::Tensors inputs = interp::random_inputs(checked, 7);
  interp::Tensors want = interp::evaluate(checked, inputs), got = interp::evaluate(fused, inputs);
  ASSERT_TRUE(got.count("block") && want.count("block"));
  EXPECT_EQ(got.at("block").f32, want.at("block").f32);
  EXPECT_FALSE(got.at("block").f32.empty());
  EXPECT_EQ(got.count("conv2"), 0u);

  std::vector<Layer> layers = split_layers(network);
  std::vector<NetworkVariant> variants = add_fused_layers(network, layers);
  ASSERT_EQ(layers.size(), 4u);
  EXPECT_EQ(layer_title(layers[3]), "conv2+block");
  EXPECT_EQ(layers[3].reads, (std::vector<std::string>{"w2", "b2", "conv1", "image"}));
  EXPECT_EQ(layers[3].same_as, 3u);
  ASSERT_EQ(variants.size(), 2u);
  EXPECT_EQ(variants[0].layers, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(variants[1].layers, (std::vector<std::size_t>{0, 3}));
}

// Which definitions that only rearrange are read through by their one reader: a channel
// shuffle between two convolutions, a transposed output, a concatenation of two definitions'
// outputs; not one of an input, nor one two definitions read, nor one its reader reads twice,
// nor one that computes.
struct LayoutCase {
  const char* what;
  std::string defs;
  std::vector<std::pair<std::string, std::string>> fusions;  // (producer, consumer)
};
void PrintTo(const LayoutCase& c, std::ostream* os) { *os << c.what; }

class LayoutFusions : public ::testing::TestWithParam<LayoutCase> {};

TEST_P(LayoutFusions, Table) {
  std::vector<std::pair<std::string, std::string>> got;
  for (const Fusion& f : layout_fusions(parse(kHeader + GetParam().defs))) {
    got.emplace_back(f.producer, f.consumer);
    EXPECT_EQ(f.kind, FusionKind::Layout);
  }
  EXPECT_EQ(got, GetParam().fusions);
}

INSTANTIATE_TEST_SUITE_P(
    Network, LayoutFusions,
    ::testing::Values(
        LayoutCase{"a channel shuffle between two convolutions",
                   "def a = " + conv("image", "wa", "ba") + "\ndef s = map2D(px -> join(transpose(split(1, px))), a)" +
                       "\ndef b = " + conv("s", "wb", "bb"),
                   {{"s", "b"}}},
        LayoutCase{"a transposed output read by a convolution",
                   "def a = " + conv("image", "wa", "ba") + "\ndef t = transpose(a)\ndef b = " + conv("t", "wb", "bb"),
                   {{"t", "b"}}},
        LayoutCase{"a padding holds more values than it reads: kept",
                   "def a = " + conv("image", "wa", "ba") +
                       "\ndef q = pad2D(1, 1, 1, 1, 0.0, a)\ndef b = map2D(win -> "
                       "join(map((k, c) -> reduce(c, (acc, p) -> acc + p.0 * p.1, zip(join(join(win)), "
                       "join(join(k)))), zip(wb, "
                       "bb))), slide2D(3, 3, 1, 1, q))",
                   {}},
        LayoutCase{"a layout of an input is no layer's output: kept",
                   "def q = map2D(px -> join(transpose(split(1, px))), image)\ndef b = " + conv("q", "wb", "bb"),
                   {}},
        LayoutCase{"a concatenation of two definitions' pixels (U-Net's) read through",
                   "def a = " + conv("image", "wa", "ba") + "\ndef b = " + conv("image", "wb", "bb") +
                       "\ndef m = map2D(p -> concat(p.0, p.1), zip2D(a, b))\ndef c = map2D(px -> map(v -> max(v, 0.0), "
                       "px), m)",
                   {{"m", "c"}}},
        LayoutCase{"a concatenation with an input is kept",
                   "def a = " + conv("image", "wa", "ba") +
                       "\ndef m = map2D(p -> concat(p.0, p.1), zip2D(a, image))\ndef c = map2D(px -> map(v -> max(v, "
                       "0.0), px), m)",
                   {}},
        LayoutCase{"a layout two definitions read is kept",
                   "def a = " + conv("image", "wa", "ba") + "\ndef s = map2D(px -> join(transpose(split(1, px))), a)" +
                       "\ndef b = " + conv("s", "wb", "bb") + "\ndef c = " + conv("s", "wa", "ba"),
                   {}},
        LayoutCase{"a layout its reader reads twice is kept",
                   "def a = " + conv("image", "wa", "ba") + "\ndef s = map2D(px -> join(transpose(split(1, px))), a)" +
                       "\ndef r = map((x, y) -> map((p, q) -> map((u, v) -> u + v, zip(p, q)), zip(x, y)), zip(s, s))",
                   {}},
        LayoutCase{"an activation computes: not a layout",
                   "def a = " + conv("image", "wa", "ba") + "\ndef r = map2D(px -> map(v -> max(v, 0.0), px), a)" +
                       "\ndef b = " + conv("r", "wb", "bb"),
                   {}}),
    [](const auto& info) { return testing::readable_name(info.index, {info.param.what}); });

// ShuffleNet's channel shuffle read through by the depthwise layer after it: the fused
// variant's depthwise layer reads the grouped layer's output through the shuffle (a view),
// computes what the network does, value for value, and is a depthwise convolution still
// (normal-form, then conv-depthwise-kappa applies); the shuffle has no layer of its own and is
// fused into nothing else.
TEST(Fusion, TheChannelShuffleIsReadThroughByTheDepthwiseLayer) {
  ir::Program network = parse::load_program(std::string(LIFTC_SOURCE_DIR) + "/examples/networks/shufflenet_unit.sr");
  std::vector<Fusion> fusions = layout_fusions(network);
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(fusions[0].producer, "shuffled");
  EXPECT_EQ(fusions[0].consumer, "dw");
  ir::Program fused = typecheck::typecheck(ir::bind_sizes(fuse(network, fusions[0]), {})).program;
  ir::Program checked = typecheck::typecheck(ir::bind_sizes(network, {})).program;
  interp::Tensors inputs = interp::random_inputs(checked, 7);
  interp::Tensors want = interp::evaluate(checked, inputs), got = interp::evaluate(fused, inputs);
  for (const char* d : {"dw", "unit"}) {
    ASSERT_TRUE(got.count(d) && want.count(d)) << d;
    EXPECT_FALSE(got.at(d).f32.empty()) << d;
    EXPECT_EQ(got.at(d).f32, want.at(d).f32) << d;
  }
  EXPECT_EQ(got.count("shuffled"), 0u);

  static const rewrite::RuleSet rules = rewrite::load_rules_dir(std::string(LIFTC_SOURCE_DIR) + "/rules");
  std::vector<Layer> layers = split_layers(network);
  add_fused_layers(network, layers, &rules);
  auto dw = std::find_if(layers.begin(), layers.end(), [](const Layer& l) { return layer_title(l) == "shuffled+dw"; });
  ASSERT_NE(dw, layers.end());
  // The shuffle is read through, not fused into the grouped layer before it (g1+shuffled:
  // a convolution followed by a permutation, which no strategy but id took).
  EXPECT_TRUE(std::none_of(layers.begin(), layers.end(), [](const Layer& l) { return layer_title(l) == "g1+shuffled"; }));
  rewrite::RewriteOptions o;
  o.budget.max_alternatives = 1;
  EXPECT_FALSE(rewrite::rewrite_program(rules, "conv-depthwise-kappa", dw->program, o).programs.empty());
}

// A network without a one-to-one consumer has one variant: its layers as written.
TEST(Fusion, ANetworkWithoutOneToOneLayersHasOneVariant) {
  ir::Program network = parse(kHeader + "def a = " + conv("image", "wa", "ba") + "\ndef b = " + conv("a", "wb", "bb"));
  std::vector<Layer> layers = split_layers(network);
  std::vector<NetworkVariant> variants = add_fused_layers(network, layers);
  EXPECT_EQ(layers.size(), 2u);
  ASSERT_EQ(variants.size(), 1u);
  EXPECT_EQ(variants[0].layers, (std::vector<std::size_t>{0, 1}));
}

// Which pointwise layers read a depthwise layer's pixels, and so take it in (MobileNet's DW+PW).
const rewrite::RuleSet& library() {
  static const rewrite::RuleSet rules = rewrite::load_rules_dir(std::string(LIFTC_SOURCE_DIR) + "/rules");
  return rules;
}

const std::string kDwHeader = R"(
size H = 6, W = 6, C = 4, M = 3
input image : [[[float]C]W]H
input dw_w : [[[float]3]3]C
input dw_b : [float]C
input pw_w : [[float]C]M
input pw_b : [float]M
input wd : [[[[float]C]3]3]C
input bd : [float]C
input dk : [[[float]C]3]3
input chw : [[[float]W]H]C
)";

// A depthwise layer written as the element-wise product of each window and [3][3][C] kernels
// (zip2D), each channel's sum, the biases zipped after the sums, ReLU6.
std::string depthwise_zip2d(const std::string& in) {
  return "map2D(win -> map((s, b) -> min(max(s + b, 0.0), 6.0), zip(join(map(sum, transpose(join(map2D(xk -> map(ab -> "
         "ab.0 * ab.1, zip(xk.0, xk.1)), zip2D(win, dk)))))), dw_b)), slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, " + in + ")))";
}

// The same products' columns zipped with the biases before the sums, each sum started at
// its bias, ReLU (a fresh writer's MobileNet depthwise layer, depthwise_columns_bias_start.sr).
std::string depthwise_bias_start(const std::string& in) {
  return "map2D(win -> join(map((taps, b) -> map(r -> max(r, 0.0), reduce(b, (a, t) -> a + t, taps)), "
         "zip(transpose(join(map2D((x, k) -> map((u, v) -> u * v, zip(x, k)), zip2D(win, dk)))), dw_b))), "
         "slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, " + in + ")))";
}

// A depthwise layer written channel-first over a CHW image (depthwise_chw.sr's form), ReLU.
std::string depthwise_chw(const std::string& in) {
  return "map((w, b, ch) -> map2D(win -> map(v -> max(v, 0.0), reduce(b, (acc, p) -> acc + p.0 * p.1, zip(join(win), "
         "join(w)))), slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, ch))), zip(dw_w, dw_b, " + in + "))";
}

// A pointwise layer over the pixels of a CHW image of one-element values (a channel-first
// depthwise layer's), its output brought back to CHW.
std::string pointwise_chw(const std::string& in) {
  return "transpose(map(transpose, map2D(px -> join(map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(join(px), w)), "
         "zip(pw_w, pw_b))), map(transpose, transpose(" + in + ")))))";
}

// A channel-first depthwise layer written with each plane's rows joined (map(join, map2D(..))).
std::string depthwise_chw_rows_joined(const std::string& in) {
  return "map((w, b, ch) -> map(join, map2D(win -> map(v -> max(v, 0.0), reduce(b, (acc, p) -> acc + p.0 * p.1, "
         "zip(join(win), join(w)))), slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, ch)))), zip(dw_w, dw_b, " + in + "))";
}

// A pointwise layer over the pixels of a CHW image (each pixel's channels), its output
// brought back to CHW.
std::string pointwise_chw_pixels(const std::string& in) {
  return "transpose(map(transpose, map2D(px -> join(map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(px, w)), "
         "zip(pw_w, pw_b))), map(transpose, transpose(" + in + ")))))";
}

std::string depthwise(const std::string& in) {
  return "map2D(win -> join(map((w, b, x) -> map(v -> max(v, 0.0), reduce(b, (acc, p) -> acc + p.0 * p.1, "
         "zip(join(x), join(w)))), zip(dw_w, dw_b, transpose(map(transpose, win))))), "
         "slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, " + in + ")))";
}

std::string pointwise(const std::string& in) {
  return "map2D(px -> join(map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(px, w)), zip(pw_w, pw_b))), " + in + ")";
}

class DepthwisePointwise : public ::testing::TestWithParam<FusionCase> {};

TEST_P(DepthwisePointwise, Table) {
  expect_fusions(depthwise_pointwise_fusions(parse(kDwHeader + GetParam().defs), library()),
                 FusionKind::DepthwisePointwise, GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Network, DepthwisePointwise,
    ::testing::Values(
        FusionCase{"a depthwise layer and the pointwise layer that reads it (MobileNetV1's pair)",
                   "def d = " + depthwise("image") + "\ndef p = " + pointwise("d"), {{"d", "p"}}},
        FusionCase{"a dense 3x3 convolution is not depthwise: each kernel reads every channel",
                   "def d = " + conv("image", "wd", "bd") + "\ndef p = " + pointwise("d"), {}},
        FusionCase{"a 3x3 convolution over a depthwise layer reads windows, not pixels",
                   "def d = " + depthwise("image") + "\ndef e = " + conv("d", "wd", "bd"), {}},
        FusionCase{"an activation over a depthwise layer is one-to-one (its epilogue), not pointwise",
                   "def d = " + depthwise("image") + "\ndef r = map2D(px -> map(v -> min(v, 6.0), px), d)", {}},
        FusionCase{"a depthwise layer another definition also reads is kept",
                   "def d = " + depthwise("image") + "\ndef p = " + pointwise("d") + "\ndef q = " + pointwise("d"), {}},
        FusionCase{"a depthwise layer written as the element-wise product of window and kernels (zip2D), its pointwise layer",
                   "def d = " + depthwise_zip2d("image") + "\ndef p = " + pointwise("d"), {{"d", "p"}}},
        FusionCase{"a depthwise layer whose products' columns are zipped with the biases, each sum from its bias, its pointwise layer",
                   "def d = " + depthwise_bias_start("image") + "\ndef p = " + pointwise("d"), {{"d", "p"}}},
        FusionCase{"a channel-first depthwise layer and the pointwise layer over its pixels, written back to CHW",
                   "def d = " + depthwise_chw("chw") + "\ndef p = " + pointwise_chw("d"), {{"d", "p"}}},
        FusionCase{"a channel-first depthwise layer with its rows joined and the pointwise layer over its pixels",
                   "def d = " + depthwise_chw_rows_joined("chw") + "\ndef p = " + pointwise_chw_pixels("d"), {{"d", "p"}}},
        FusionCase{"a pointwise layer over a network input has no producer to take in",
                   "def p = " + pointwise("image") + "\ndef q = " + depthwise("image"), {}}),
    [](const auto& info) { return testing::readable_name(info.index, {info.param.what}); });

// Interprets `network` and `fused` on the same random inputs: `out`'s values equal.
void expect_same_values(const ir::Program& network, const ir::Program& fused, const std::string& out) {
  ir::Program checked = typecheck::typecheck(ir::bind_sizes(network, {})).program;
  ir::Program fused_checked = typecheck::typecheck(ir::bind_sizes(fused, {})).program;
  interp::Tensors inputs = interp::random_inputs(checked, 11);
  interp::Tensors want = interp::evaluate(checked, inputs), got = interp::evaluate(fused_checked, inputs);
  ASSERT_TRUE(got.count(out) && want.count(out)) << out;
  EXPECT_FALSE(got.at(out).f32.empty());
  EXPECT_EQ(got.at(out).f32, want.at(out).f32) << out;
}

// MobileNetV1's pair (examples/networks): the fused layer lets each window's depthwise
// values and computes the pointwise sums from them, value for value what the two layers
// compute (the same sums in the same order), and is an alternative of the network.
TEST(DepthwisePointwiseFusion, TheFusedMobileNetV1PairInterpretsAsTheNetwork) {
  ir::Program network = parse::load_program(std::string(LIFTC_SOURCE_DIR) + "/examples/networks/mobilenet_v1_pair.sr");
  EXPECT_TRUE(one_to_one_fusions(network).empty());
  std::vector<Fusion> fusions = layer_fusions(network, &library());
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(fusions[0].producer, "depthwise");
  EXPECT_EQ(fusions[0].consumer, "pointwise");
  ir::Program fused = fuse(network, fusions[0]);
  ASSERT_EQ(fused.defs.size(), 1u);
  std::string text = ir::to_string(fused.defs[0].body);
  EXPECT_NE(text.find("let pixel = join(map((w, b, x) ->"), std::string::npos) << text;
  EXPECT_EQ(text.find("depthwise"), std::string::npos) << text;  // no buffer of it read
  expect_same_values(network, fused, "pointwise");

  std::vector<Layer> layers = split_layers(network);
  std::vector<NetworkVariant> variants = add_fused_layers(network, layers, &library());
  ASSERT_EQ(layers.size(), 3u);
  EXPECT_EQ(layer_title(layers[2]), "depthwise+pointwise");
  EXPECT_EQ(layers[2].reads, (std::vector<std::string>{"dw_w", "dw_b", "pw_w", "pw_b", "image"}));
  ASSERT_EQ(variants.size(), 2u);
  EXPECT_EQ(variants[1].layers, (std::vector<std::size_t>{2}));
  ASSERT_EQ(variants[1].fusions.size(), 1u);
  EXPECT_EQ(variants[1].fusions[0].kind, FusionKind::DepthwisePointwise);
  // Without the rules (no normal form to tell a depthwise layer by) there is no such fusion.
  std::vector<Layer> plain = split_layers(network);
  EXPECT_EQ(add_fused_layers(network, plain).size(), 1u);
}

// A channel-first depthwise layer written with each plane's rows joined, and the pointwise
// layer over its pixels: its normal form joins each pixel's results after the 2D map over
// windows (joined-rows-into-pixels), which the fusion reads as the join in the window's
// function (windows_map); the fused layer computes the network's values bit for bit.
TEST(DepthwisePointwiseFusion, AChannelFirstPairWithItsRowsJoinedFusesToTheNetworksValues) {
  ir::Program network =
      parse(kDwHeader + "def d = " + depthwise_chw_rows_joined("chw") + "\ndef p = " + pointwise_chw_pixels("d"));
  std::vector<Fusion> fusions = depthwise_pointwise_fusions(network, library());
  ASSERT_EQ(fusions.size(), 1u);
  ir::Program fused = fuse(network, fusions[0]);
  ASSERT_EQ(fused.defs.size(), 1u);
  EXPECT_NE(ir::to_string(fused.defs[0].body).find("let px = join(map((w, b, "), std::string::npos)
      << ir::to_string(fused.defs[0].body);
  expect_same_values(network, fused, "p");
}

// Under half storage the network rounds the depthwise values to halves when it stores them,
// and the pointwise sums read those: the fused layer rounds each where it keeps it
// (roundHalf), so it computes the network's values bit for bit. Fused without the rounding,
// it does not.
TEST(DepthwisePointwiseFusion, UnderHalfStorageTheFusedLayerRoundsTheDepthwiseValuesAsTheNetworkStoresThem) {
  ir::Program network = parse::load_program(std::string(LIFTC_SOURCE_DIR) + "/examples/networks/mobilenet_v1_pair.sr");
  ir::Program half = network;
  for (const auto& i : network.inputs) half.half.insert(i.name);
  for (const auto& d : network.defs) half.half.insert(d.name);
  std::vector<Fusion> fusions = layer_fusions(half, &library());
  ASSERT_EQ(fusions.size(), 1u);
  ir::Program fused = fuse(half, fusions[0]);
  EXPECT_EQ(fused.half, (std::set<std::string>{"image", "dw_w", "dw_b", "pw_w", "pw_b", "pointwise"}));
  std::string text = ir::to_string(fused.defs[0].body);
  EXPECT_NE(text.find("roundHalf(max("), std::string::npos) << text;
  expect_same_values(half, fused, "pointwise");
  // The same fusion of the network in float, its inputs and output then stored as halves:
  // the depthwise values are not rounded, and some outputs differ.
  ir::Program unrounded = fuse(network, fusions[0]);
  EXPECT_EQ(ir::to_string(unrounded.defs[0].body).find("roundHalf"), std::string::npos);
  unrounded.half = fused.half;
  ir::Program checked = typecheck::typecheck(ir::bind_sizes(half, {})).program;
  interp::Tensors inputs = interp::random_inputs(checked, 11);
  EXPECT_NE(interp::evaluate(typecheck::typecheck(ir::bind_sizes(unrounded, {})).program, inputs).at("pointwise").f32,
            interp::evaluate(checked, inputs).at("pointwise").f32);
}

// Interprets `network` and `fused` on the same random inputs: `out`'s values equal up to
// float rounding (normal-form may reassociate a sum: the bias as its start).
void expect_close_values(const ir::Program& network, const ir::Program& fused, const std::string& out) {
  ir::Program checked = typecheck::typecheck(ir::bind_sizes(network, {})).program;
  ir::Program fused_checked = typecheck::typecheck(ir::bind_sizes(fused, {})).program;
  interp::Tensors inputs = interp::random_inputs(checked, 11);
  interp::Tensors want = interp::evaluate(checked, inputs), got = interp::evaluate(fused_checked, inputs);
  ASSERT_TRUE(got.count(out) && want.count(out)) << out;
  ASSERT_EQ(got.at(out).f32.size(), want.at(out).f32.size()) << out;
  EXPECT_FALSE(got.at(out).f32.empty());
  for (std::size_t i = 0; i < want.at(out).f32.size(); ++i)
    EXPECT_NEAR(got.at(out).f32[i], want.at(out).f32[i], 1e-5 * (1 + std::abs(want.at(out).f32[i]))) << out << "[" << i << "]";
}

// Depthwise-separable pairs written otherwise (examples/networks): the depthwise layer as
// the element-wise product of window and [3][3][C] kernels (zip2D), and a channel-first
// pair (a CHW depthwise layer, the pointwise layer over its pixels written back to CHW).
// Each is one fusion of the depthwise layer into the pointwise one, whose fused layer lets
// each window's depthwise values, joined (the channel-first layer's one-element values
// joined, the pointwise sums reading them as they read join(pixel)), reads no depthwise
// buffer and computes what the network does; the channel-first one inside the transposes
// back to CHW, value for value (the same sums in the same order).
struct WrittenOtherwise {
  const char* network;
  const char* producer;
  const char* consumer;
  const char* let;   // the start of the fused layer's text from its let
  bool exact;        // values equal, not only up to rounding
};

void PrintTo(const WrittenOtherwise& c, std::ostream* os) { *os << c.network; }

class DepthwisePointwiseWrittenOtherwise : public ::testing::TestWithParam<WrittenOtherwise> {};

TEST_P(DepthwisePointwiseWrittenOtherwise, IsFusedAndInterpretsAsTheNetwork) {
  const WrittenOtherwise& c = GetParam();
  ir::Program network = parse::load_program(std::string(LIFTC_SOURCE_DIR) + "/examples/networks/" + c.network);
  std::vector<Fusion> fusions = layer_fusions(network, &library());
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(fusions[0].kind, FusionKind::DepthwisePointwise);
  EXPECT_EQ(fusions[0].producer + " into " + fusions[0].consumer, std::string(c.producer) + " into " + c.consumer);
  ir::Program fused = fuse(network, fusions[0]);
  ASSERT_EQ(fused.defs.size(), 1u);
  std::string text = ir::to_string(fused.defs[0].body);
  EXPECT_NE(text.find(c.let), std::string::npos) << text;
  std::vector<std::string> reads = ir::free_vars(fused.defs[0].body);
  EXPECT_EQ(std::count(reads.begin(), reads.end(), c.producer), 0) << text;  // no buffer of it read
  if (c.exact)
    expect_same_values(network, fused, c.consumer);
  else
    expect_close_values(network, fused, c.consumer);
}

INSTANTIATE_TEST_SUITE_P(
    Network, DepthwisePointwiseWrittenOtherwise,
    ::testing::Values(WrittenOtherwise{"depthwise_separable_zip2d.sr", "dw", "pw", "let px = join(map((v, c, u) ->", false},
                      WrittenOtherwise{"depthwise_separable_kernel_first.sr", "dw", "pw",
                                       "let px = join(map((w, b, c) -> map(v -> max(v, 0.0), reduce(b, (a, p) -> a + p.0 * p.1, "
                                       "zip(join(c), join(w)))), zip(dw_w, let zero = 0.0 in map(k -> zero, dw_w), ",
                                       true},
                      WrittenOtherwise{"mobilenet_v1_pair_chw.sr", "depthwise", "pointwise",
                                       "transpose(map(x -> transpose(x), map(row -> map(window -> let pixel = "
                                       "join(map((w, b, x) -> map(v -> max(v, 0.0), reduce(b, (acc, p) -> acc + p.0 * p.1, "
                                       "zip(join(x), join(w)))), zip(dw_w, dw_b, transpose(map(t -> transpose(t), window))))) in "
                                       "join(map((w, b) -> map(v -> max(v, 0.0), reduce(b, (acc, p) -> acc + p.0 * p.1, zip(pixel, w)))",
                                       true}),
    [](const auto& info) { return testing::readable_name(info.index, {info.param.network}); });

// MobileNetV2's block: the depthwise layer into the projection, the residual add into the
// projection (one-to-one), and both; each variant interprets as the network. In the variant
// with the depthwise layer fused, the expanded E-channel depthwise output is no buffer: the
// peak of its buffers alive across a layer (resident_bytes plus what the layer reads and
// writes) is below the unfused network's, whose largest buffers are the two E-channel ones:
// by the depthwise output (H x W x E) less the projection's output (H x W x C), which the
// fused layer writes where the depthwise layer wrote its own, and less the projection's
// weights and biases (C x E + C), which the fused layer reads and the unfused network
// uploads only for its projection, after the depthwise layer.
TEST(DepthwisePointwiseFusion, TheMobileNetV2BlockFusedHoldsNoDepthwiseBuffer) {
  ir::Program network = parse::load_program(std::string(LIFTC_SOURCE_DIR) + "/examples/networks/mobilenet_v2_block.sr");
  std::vector<Fusion> fusions = layer_fusions(network, &library());
  ASSERT_EQ(fusions.size(), 2u);
  EXPECT_EQ(fusions[0].producer + " into " + fusions[0].consumer, "projected into block");
  EXPECT_EQ(fusions[1].producer + " into " + fusions[1].consumer, "depthwise into projected");
  expect_same_values(network, fuse(network, fusions[1]), "projected");
  expect_same_values(network, fuse(fuse(network, fusions[0]), layer_fusions(fuse(network, fusions[0]), &library()).at(0)),
                     "block");

  std::vector<Layer> layers = split_layers(network);
  std::vector<NetworkVariant> variants = add_fused_layers(network, layers, &library());
  ASSERT_EQ(variants.size(), 4u);  // as written, each fusion alone, both
  std::vector<std::string> titles;
  for (std::size_t i : variants[3].layers) titles.push_back(layer_title(layers[i]));
  EXPECT_EQ(titles, (std::vector<std::string>{"expanded", "depthwise+projected+block"}));

  ir::Program checked = typecheck::typecheck(ir::bind_sizes(network, {})).program;
  interp::Tensors inputs = interp::random_inputs(checked, 3), values = interp::evaluate(checked, inputs);
  std::map<std::string, double> bytes;
  for (const auto* t : {&inputs, &values})
    for (const auto& [name, v] : *t) bytes[name] = 4.0 * static_cast<double>(v.f32.size());
  auto peak = [&](const NetworkVariant& v) {
    std::vector<LayerBuffers> buffers;
    for (std::size_t i : v.layers) buffers.push_back({layers[i].reads, layers[i].name});
    std::vector<double> resident = resident_bytes(buffers, bytes);
    double most = 0;
    for (std::size_t j = 0; j < buffers.size(); ++j) {
      double own = bytes.at(buffers[j].writes);
      for (const auto& r : buffers[j].reads) own += bytes.at(r);
      most = std::max(most, resident[j] + own);
    }
    return most;
  };
  EXPECT_DOUBLE_EQ(peak(variants[0]) - peak(variants[2]), 4.0 * (8 * 8 * (24 - 4) - (4 * 24 + 4)));  // H W (E - C) - (C E + C)
  EXPECT_LT(peak(variants[3]), peak(variants[0]));
}


// Which poolings read a convolution's output in non-overlapping windows, and so take it in
// (conv_pool_fusions). kHeader's 6x6 images; `pool(k, s, in)`: a k x k max pooling with
// stride s of `in`, per channel.
std::string pool(int k, int s, const std::string& in) {
  return fmt::format("map2D(win -> map(ch -> reduce(-inf, (m, v) -> max(m, v), join(ch)), transpose(map(transpose, "
                     "win))), slide2D({0}, {0}, {1}, {1}, {2}))",
                     k, s, in);
}

// The same pooling over the prelude's tile2D(th, tw, in): non-overlapping th x tw tiles.
std::string tiles_pool(int th, int tw, const std::string& in) {
  return fmt::format("map2D(win -> map(ch -> reduce(-inf, (m, v) -> max(m, v), join(ch)), transpose(map(transpose, "
                     "win))), tile2D({}, {}, {}))",
                     th, tw, in);
}

class ConvPool : public ::testing::TestWithParam<FusionCase> {};

TEST_P(ConvPool, Table) {
  expect_fusions(conv_pool_fusions(parse(kHeader + GetParam().defs), library()), FusionKind::ConvPool, GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Network, ConvPool,
    ::testing::Values(
        FusionCase{"a 2x2 max pooling with stride 2 of a convolution's output",
                   "def a = " + conv("image", "wa", "ba") + "\ndef p = " + pool(2, 2, "a"), {{"a", "p"}}},
        FusionCase{"a 3x3 max pooling with stride 3 (non-overlapping windows of any size)",
                   "def a = " + conv("image", "wa", "ba") + "\ndef p = " + pool(3, 3, "a"), {{"a", "p"}}},
        FusionCase{"an average pooling (any function of the window)",
                   "def a = " + conv("image", "wa", "ba") +
                       "\ndef p = map2D(win -> map(ch -> reduce(0.0, (m, v) -> m + 0.25 * v, join(ch)), "
                       "transpose(map(transpose, win))), slide2D(2, 2, 2, 2, a))",
                   {{"a", "p"}}},
        FusionCase{"a 2x2 max pooling over tile2D's tiles (a split and transposes: the same non-overlapping windows)",
                   "def a = " + conv("image", "wa", "ba") + "\ndef p = " + tiles_pool(2, 2, "a"), {{"a", "p"}}},
        FusionCase{"a 2x3 max pooling over tile2D's tiles (any p x q tiles whose sizes divide the sides)",
                   "def a = " + conv("image", "wa", "ba") + "\ndef p = " + tiles_pool(2, 3, "a"), {{"a", "p"}}},
        FusionCase{"tile2D's 1x2 tiles of one row are no pooling of windows",
                   "def a = " + conv("image", "wa", "ba") + "\ndef p = " + tiles_pool(1, 2, "a"), {}},
        FusionCase{"a 3x3 pooling with stride 2 overlaps: each output would be computed for every window holding it",
                   "def a = " + conv("image", "wa", "ba") + "\ndef p = " + pool(3, 2, "a"), {}},
        FusionCase{"a 1x1 window with stride 1 is no pooling", "def a = " + conv("image", "wa", "ba") + "\ndef p = " + pool(1, 1, "a"),
                   {}},
        FusionCase{"a convolution read by the pooling and by another layer is kept (U-Net's skip connection)",
                   "def a = " + conv("image", "wa", "ba") + "\ndef p = " + pool(2, 2, "a") + "\ndef b = " + conv("a", "wb", "bb"),
                   {}},
        FusionCase{"a pooling of a network input has no producer to take in",
                   "def p = " + pool(2, 2, "image") + "\ndef r = map2D(px -> map(v -> map(x -> max(x, 0.0), v), px), p)", {}},
        FusionCase{"a pooling of a definition that is not a 2D map (an upsampling) is not a convolution's",
                   "def a = " + conv("image", "wa", "ba") + "\ndef u = upsample2D(a)\ndef p = " + pool(2, 2, "u"), {}}),
    [](const auto& info) { return testing::readable_name(info.index, {info.param.what}); });

// vgg_block (examples/networks): conv2 fused into its pooling computes what the network does,
// value for value (each pooled value the maximum of the same sums), is the variant with the
// layer conv2+pooled, and its layer reads conv1, not conv2. unet_step's enc2 is read by the
// pooling and by the concatenation: no fusion of it.
TEST(ConvPoolFusion, TheFusedVggBlockInterpretsAsTheNetwork) {
  ir::Program network = parse::load_program(std::string(LIFTC_SOURCE_DIR) + "/examples/networks/vgg_block.sr");
  EXPECT_TRUE(one_to_one_fusions(network).empty());
  std::vector<Fusion> fusions = layer_fusions(network, &library());
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(fusions[0].producer + " into " + fusions[0].consumer, "conv2 into pooled");
  EXPECT_EQ(fusions[0].kind, FusionKind::ConvPool);
  ir::Program fused = fuse(network, fusions[0]);
  ASSERT_EQ(fused.defs.size(), 2u);
  expect_same_values(network, fused, "pooled");

  std::vector<Layer> layers = split_layers(network);
  std::vector<NetworkVariant> variants = add_fused_layers(network, layers, &library());
  ASSERT_EQ(layers.size(), 4u);
  EXPECT_EQ(layer_title(layers[3]), "conv2+pooled");
  EXPECT_EQ(layers[3].reads, (std::vector<std::string>{"w2", "b2", "conv1"}));
  ASSERT_EQ(variants.size(), 2u);
  EXPECT_EQ(variants[1].layers, (std::vector<std::size_t>{0, 3}));
  // Without the rules (no normal form to tell a convolution by) there is no such fusion.
  std::vector<Layer> plain = split_layers(network);
  EXPECT_EQ(add_fused_layers(network, plain).size(), 1u);

  // U-Net's enc2 is read by its pooling and by the concatenation: not fused into the pooling
  // (it would be computed twice); the concatenation is read through by the decoder.
  ir::Program unet = parse::load_program(std::string(LIFTC_SOURCE_DIR) + "/examples/networks/unet_step.sr");
  std::vector<Fusion> unet_fusions = layer_fusions(unet, &library());
  ASSERT_EQ(unet_fusions.size(), 1u);
  EXPECT_EQ(unet_fusions[0].producer, "merged");
  EXPECT_EQ(unet_fusions[0].consumer, "decoded");
  EXPECT_EQ(unet_fusions[0].kind, FusionKind::Layout);
}

// examples/conv/forms/conv_pool.sr (a convolution from C = 2 to M = 4 channels, then its 2x2
// max pooling): fused, the convolution's output (6x6x4) is no buffer, and the network's peak
// (the buffers alive across a layer, resident_bytes, with what the layer reads and writes)
// falls from the convolution layer's (its inputs and 6x6x4 output) to the fused layer's (the
// same inputs and the 3x3x4 pooled output): by 6*6*4 - 3*3*4 floats.
TEST(ConvPoolFusion, TheFusedConvPoolHoldsNoConvolutionBuffer) {
  ir::Program network = parse::load_program(std::string(LIFTC_SOURCE_DIR) + "/examples/conv/forms/conv_pool.sr");
  std::vector<Layer> layers = split_layers(network);
  std::vector<NetworkVariant> variants = add_fused_layers(network, layers, &library());
  ASSERT_EQ(variants.size(), 2u);
  EXPECT_EQ(layer_title(layers.at(variants[1].layers.at(0))), "conv+pooled");
  expect_same_values(network, fuse(network, variants[1].fusions.at(0)), "pooled");

  ir::Program checked = typecheck::typecheck(ir::bind_sizes(network, {})).program;
  interp::Tensors inputs = interp::random_inputs(checked, 3), values = interp::evaluate(checked, inputs);
  std::map<std::string, double> bytes;
  for (const auto* t : {&inputs, &values})
    for (const auto& [name, v] : *t) bytes[name] = 4.0 * static_cast<double>(v.f32.size());
  auto peak = [&](const NetworkVariant& v) {
    std::vector<LayerBuffers> buffers;
    for (std::size_t i : v.layers) buffers.push_back({layers[i].reads, layers[i].name});
    std::vector<double> resident = resident_bytes(buffers, bytes);
    double most = 0;
    for (std::size_t j = 0; j < buffers.size(); ++j) {
      double own = bytes.at(buffers[j].writes);
      for (const auto& r : buffers[j].reads) own += bytes.at(r);
      most = std::max(most, resident[j] + own);
    }
    return most;
  };
  EXPECT_DOUBLE_EQ(peak(variants[0]) - peak(variants[1]), 4.0 * (6 * 6 * 4 - 3 * 3 * 4));
}

// examples/conv/forms/conv_pool_tile2d_layers.sr: the pooling over tile2D(2, 2, features) (a
// split and transposes, as a new user wrote it) is fused with the convolution as slide2D's
// windows are, the fused layer computes what the network does, value for value, and
// normal-form brings it to the form conv-pool-tile, conv-pool-kappa and conv-pool-tile-rt take.
TEST(ConvPoolFusion, APoolingOverTile2DIsFusedAsOverSlide2D) {
  ir::Program network = parse::load_program(std::string(LIFTC_SOURCE_DIR) + "/examples/conv/forms/conv_pool_tile2d_layers.sr");
  std::vector<Fusion> fusions = layer_fusions(network, &library());
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(fusions[0].producer + " into " + fusions[0].consumer, "features into pooled");
  EXPECT_EQ(fusions[0].kind, FusionKind::ConvPool);
  ir::Program fused = fuse(network, fusions[0]);
  ASSERT_EQ(fused.defs.size(), 1u);
  expect_same_values(network, fused, "pooled");
  for (const char* strategy : {"conv-pool-tile", "conv-pool-kappa", "conv-pool-tile-rt"}) {
    SCOPED_TRACE(strategy);
    EXPECT_FALSE(rewrite::rewrite_program(library(), strategy, typecheck::typecheck(fused).program).programs.empty());
  }
}

// `network` with its buffers stored as `storage` says (--storage half, half=a,...).
ir::Program stored(ir::Program network, const std::string& storage) {
  network.half = codegen::half_buffers(typecheck::typecheck(network).program, codegen::parse_storage(storage));
  return network;
}

// `layer`'s program lowered by conv-naive (no tuning parameters) and generated.
codegen::Module naive_module(const ir::Program& layer) {
  rewrite::RewriteOptions o;
  o.budget.max_alternatives = 1;
  ir::Program lowered = rewrite::rewrite_program(library(), "conv-naive", layer, o).programs.at(0).program;
  return codegen::generate(typecheck::typecheck(ir::bind_sizes(lowered, {})).program);
}

// A network explored layer by layer with --storage half: each layer stores what it reads and
// its definition as the network does, and generates vload_half/vstore_half for them.
TEST(Layers, EachLayerStoresItsBuffersAsTheNetworkDoes) {
  const std::string defs = "def a = " + conv("image", "wa", "ba") + "\ndef b = " + conv("a", "wb", "bb", "q");
  std::vector<Layer> layers = split_layers(stored(parse(kHeader + defs), "half"));
  ASSERT_EQ(layers.size(), 2u);
  EXPECT_EQ(layers[0].program.half, (std::set<std::string>{"wa", "ba", "image", "a"}));
  EXPECT_EQ(layers[1].program.half, (std::set<std::string>{"wb", "bb", "a", "b"}));
  EXPECT_EQ(layers[1].same_as, 0u);  // stored alike: one shape
  codegen::Module m = naive_module(layers[1].program);
  for (const auto& name : {"wb", "bb", "a", "b"})
    EXPECT_EQ(m.memory.buffer(name).storage, codegen::Storage::Half) << name;
  EXPECT_NE(m.source().find("vload_half"), std::string::npos) << m.source();
  EXPECT_NE(m.source().find("vstore_half"), std::string::npos) << m.source();
  // Renamed after the shape it was explored as, its halves are its own names.
  EXPECT_EQ(rename_layer(layers[0].program, layers[0], layers[1]).half, layers[1].program.half);

  // Some buffers as halves: a layer reading a half where another of its shape reads a float
  // is another shape (its kernels read it otherwise).
  std::vector<Layer> some = split_layers(stored(parse(kHeader + defs), "half=a"));
  EXPECT_EQ(some[0].program.half, (std::set<std::string>{"a"}));
  EXPECT_EQ(some[1].program.half, (std::set<std::string>{"a"}));
  EXPECT_EQ(some[1].same_as, 1u);
  EXPECT_TRUE(split_layers(parse(kHeader + defs))[1].program.half.empty());
}

// A fused layer stores as the network does what it reads and its definition; the producer
// fused into it has no buffer, and no half of its name.
TEST(Layers, AFusedLayerStoresItsBuffersAsTheNetworkDoes) {
  ir::Program network =
      stored(parse::load_program(std::string(LIFTC_SOURCE_DIR) + "/examples/networks/resnet_block.sr"), "half");
  std::vector<Layer> layers = split_layers(network);
  add_fused_layers(network, layers);
  ASSERT_EQ(layers.size(), 4u);
  ASSERT_EQ(layer_title(layers[3]), "conv2+block");
  EXPECT_EQ(layers[3].program.half, (std::set<std::string>{"w2", "b2", "conv1", "image", "block"}));
  codegen::Module m = naive_module(layers[3].program);
  EXPECT_EQ(m.memory.buffer("block").storage, codegen::Storage::Half);
  EXPECT_EQ(m.memory.buffer("conv1").storage, codegen::Storage::Half);
}

}  // namespace
}  // namespace liftc::explore
