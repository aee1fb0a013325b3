// Print -> parse -> alpha-equal: for a table of programs, and for every examples/*.sr.

#include <filesystem>

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace {

using namespace liftc;
using parse::test::parse_text;

// Checks that printing `p` and parsing the text back gives the same program.
void expect_round_trip(const ir::Program& p, const std::string& name) {
  std::string printed = ir::to_string(p);
  for (bool with_prelude : {false, true}) {
    ir::Program q;
    try {
      q = parse_text(printed, with_prelude);
    } catch (const Error& e) {
      ADD_FAILURE() << name << ": printed program does not parse: " << e.what() << "\n" << printed;
      return;
    }
    ASSERT_EQ(p.sizes.size(), q.sizes.size()) << name;
    for (std::size_t i = 0; i < p.sizes.size(); ++i) {
      EXPECT_EQ(p.sizes[i].name, q.sizes[i].name) << name;
      EXPECT_EQ(p.sizes[i].value, q.sizes[i].value) << name;
    }
    ASSERT_EQ(p.inputs.size(), q.inputs.size()) << name;
    for (std::size_t i = 0; i < p.inputs.size(); ++i) {
      EXPECT_EQ(p.inputs[i].name, q.inputs[i].name) << name;
      EXPECT_EQ(ir::to_string(p.inputs[i].type), ir::to_string(q.inputs[i].type)) << name;
    }
    ASSERT_EQ(p.defs.size(), q.defs.size()) << name;
    for (std::size_t i = 0; i < p.defs.size(); ++i) {
      EXPECT_EQ(p.defs[i].name, q.defs[i].name) << name;
      EXPECT_TRUE(ir::alpha_equal(p.defs[i].body, q.defs[i].body))
          << name << ": " << p.defs[i].name << "\n  before: " << ir::to_string(p.defs[i].body)
          << "\n  after:  " << ir::to_string(q.defs[i].body);
    }
  }
}

// clang-format off
const char* const kPrograms[] = {
    "size N = 8\ninput xs : [float]N\ndef out = map(x -> x * 2.0, xs)\n",
    "size N, M = 4\ninput g : [[float]M](N*2)\ndef out = map(transpose, split(2, g))\n",
    "size N = 16\ninput xs : [float]N\ninput ys : [float]N\n"
    "def d = reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(xs, ys))\ndef e = map(x -> x + 1.0, d)\n",
    "size N\ninput v : [float4](N/4)\ninput t : ((float, int), [int]3)\ndef out = map(x -> x * 0.1, v)\n"
    "def u = (t.0.1 + 1, -(2.5), -3, 1e-07, 1e+30, -0.0)\n",
    "size N = 8\ninput xs : [float]N\n"
    "def out = mapWrg(0, mapLcl(0, x -> toPrivate(mapSeq(id), x)), split(4, xs))\n",
    "size N = 8\ninput xs : [float]N\ndef out = let y = map(neg, xs) in let y2 = y in zip(y, y2)\n",
    "size N = 8\ninput xs : [float]N\ndef out = map(x -> select(x < 0.0 || !(x > 1.0) && x != 0.5, x, -x), xs)\n",
    "size N = 8\ninput xs : [float]N\ndef out = reorder(striddenIndex(N/2), pad(-1, 2, 0.0, xs))\n",
    "size N = 8\ninput xs : [float]N\ndef out = map(x -> x * float(N) + float(N % 3), xs)\n",
    "size N = 8\ninput xs : [float]N\ndef out = map((x, y) -> ((p, q) -> p * q)(x, y), zip(xs, xs))\n",
    "size N = 8\ninput xs : [float]N\ndef out = asScalar(map(vectorize(4, x -> max(x, 0.0)), asVector(4, xs)))\n",
    // Prelude uses, expanded: the printed text needs no prelude.
    "size C = 2, H = 6, W = 6, M = 2, K = 3\n"
    "input weights : [[[[float]C]K]K]M\ninput biases : [float]M\ninput image : [[[float]C]W]H\n"
    "def conv = map2D(window -> map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1,\n"
    "                                zip(join(join(window)), join(join(w)))), zip(weights, biases)),\n"
    "                 slide2D(K, K, 1, 1, pad2D(1, 1, 1, 1, 0.0, image)))\n",
    "size H = 4, W = 4, C = 2\ninput x : [[[float](C*4)]W]H\ndef y = depthToSpace(2, C, x)\n"
    "def z = untile2D(tile2D(2, 2, map2D(sum, y)))\n",
    // concat of two and three arrays, and the prelude's nearest upsampling (issue 38, item 5).
    "size N = 4, M\ninput a : [float]N\ninput b : [float]M\ninput g : [[[float]3]N]N\n"
    "def c = concat(a, b, map(x -> x + 1.0, a))\ndef u = upsample2D(g)\n"
    "def d = map2D(p -> concat(p.0, p.1), zip2D(u, u))\n",
    // Declared ranges (the tuning parameters of a rewritten program).
    "size N = 8, r in 0..64, n in 2..8\ninput xs : [float]N\ndef out = pad(0, r, 0.0, join(split(n, xs)))\n",
    // Shadowing: a binder named like an input is renamed, not confused with it.
    "size N = 4\ninput xs : [float]N\ndef out = map(xs -> map(x -> xs, xs), split(2, xs))\n",
    // Binders renamed past globals with numeric suffixes (x -> x_2, not the global x_1).
    "size N = 4\ninput x : [float]N\ndef x_1 = x\ndef xa_1 = x\n"
    "def out = map(x -> map(x_1 -> x_1 * 2.0, x), split(2, x_1))\n",
};
// clang-format on

TEST(RoundTrip, Programs) {
  int i = 0;
  for (const char* text : kPrograms) expect_round_trip(parse_text(text), "program " + std::to_string(i++));
}

TEST(RoundTrip, Examples) {
  namespace fs = std::filesystem;
  const fs::path dir = LIFTC_EXAMPLES_DIR;
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no examples/ directory yet";
  int count = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().extension() != ".sr") continue;
    ++count;
    expect_round_trip(parse::load_program(entry.path().string()), entry.path().filename().string());
  }
  if (count == 0) GTEST_SKIP() << "no examples/*.sr yet";
}

}  // namespace
