// The prelude elaborates by itself and in use; every function is listed as from_prelude.

#include <gtest/gtest.h>

#include "test_util.hpp"

namespace {

using namespace liftc;
using parse::test::parse_text;

TEST(Prelude, ParsesAlone) {
  ir::Program p = parse_text(parse::prelude_text(), /*with_prelude=*/false);
  EXPECT_TRUE(p.defs.empty());
  EXPECT_GE(p.functions.size(), 10u);
}

TEST(Prelude, EveryFunctionExpands) {
  const std::string text =
      "size H = 8, W = 8, C = 2\n"
      "input g : [[float]W]H\n"
      "input x : [[[float](C*4)]W]H\n"
      "input cube : [[[float]C]W]H\n"
      "def a = map2D(v -> v * 2.0, g)\n"
      "def b = zip2D(g, g)\n"
      "def c = slide2D(3, 3, 1, 1, g)\n"
      "def d = pad2D(1, 1, 1, 1, 0.0, g)\n"
      "def e = transposeInner(cube)\n"
      "def f = untile2D(tile2D(2, 4, g))\n"
      "def h = flatten2D(g)\n"
      "def i = map(r -> sum(r), g)\n"
      "def j = map(r -> innerProduct(r, r), g)\n"
      "def k = depthToSpace(2, C, x)\n"
      "def l = map(r -> upsample(r), g)\n"
      "def m = upsample2D(cube)\n";
  ir::Program p = parse_text(text);
  EXPECT_EQ(p.defs.size(), 12u);
  std::vector<std::string> used;
  for (const auto& f : p.functions) {
    EXPECT_TRUE(f.from_prelude) << f.name;
    EXPECT_NE(text.find(f.name + "("), std::string::npos) << "prelude function " << f.name << " is not tested";
  }
}

TEST(Prelude, ProgramDefinitionsShadowIt) {
  ir::Program p = parse_text("input g : [[float]4]4\ndef sum(x) = x\ndef out = map2D(v -> sum(v), g)\n");
  EXPECT_EQ(ir::to_string(p.defs[0].body), "map(row -> map(v -> v, row), g)");
}

TEST(Prelude, PositionsPointAtTheUsersCall) {
  ir::Program p = parse_text("input g : [[float]4]4\ndef out = map2D(v -> v, g)\n");
  const ir::Expr& body = p.defs[0].body;
  EXPECT_EQ(body.loc().line, 2);
  EXPECT_EQ(body.loc().col, 11);
  EXPECT_EQ(body.loc().file->path, "t.sr");
}

}  // namespace
