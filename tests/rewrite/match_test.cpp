// The matcher: binding-aware matching, every position, alternatives, the type check of results.

#include <gtest/gtest.h>

#include "harness.hpp"
#include "liftc/ir/printer.hpp"

namespace liftc::rewrite::test {
namespace {

// The typed body of the single definition of `text`, and its scope.
struct Typed {
  ir::Expr body;
  typecheck::TypeEnv env;
};

Typed typed(const std::string& text) {
  typecheck::Checked c = typecheck::typecheck(program(text));
  Typed t{c.program.defs.back().body, {}};
  for (const auto& in : c.program.inputs) t.env[in.name] = in.type;
  return t;
}

std::vector<std::string> rewrite_root(const std::string& rule, const std::string& text) {
  Typed t = typed(text);
  FreshNames names;
  std::vector<std::string> out;
  for (const auto& a : apply_rule(*library().rule(rule), t.body, t.env, names)) out.push_back(ir::to_string(a.result));
  return out;
}

const char* const kVec = "size N\ninput x : [float]N\n";

TEST(Match, FusionIsCaptureAvoiding) {
  // f's body mentions an outer `y`; the fused lambda's parameter must not capture it.
  auto r = rewrite_root("map-fusion", std::string(kVec) + "input s : [float]N\n"
                                      "def out = map(y -> map(a -> a + y, map(b -> b * 2.0, s)), x)");
  EXPECT_TRUE(r.empty());  // the rule applies below the root, not at it
  Typed t = typed(std::string(kVec) + "def out = map(a -> a + 1.0, map(b -> b * 2.0, x))");
  FreshNames names;
  auto apps = apply_rule(*library().rule("map-fusion"), t.body, t.env, names);
  ASSERT_EQ(apps.size(), 1u);
  EXPECT_EQ(ir::to_string(apps[0].result), "map(y -> y * 2.0 + 1.0, x)");
}

TEST(Match, PartialApplicationMatchesItsEtaForm) {
  auto r = rewrite_root("join-split", std::string(kVec) + "def out = join(map(map(a -> a + 1.0), split(4, x)))");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], "map(a -> a + 1.0, x)");
}

TEST(Match, HigherOrderPatternBindsTheBody) {
  auto r = rewrite_root("reduce-map-fusion",
                        std::string(kVec) + "def out = reduce(0.0, (acc, v) -> acc + v, map(b -> b * b, x))");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], "reduce(0.0, (a, e) -> a + e * e, x)");
}

// `h(s + b)` on the left: h is the body abstracted over every copy of the sum plus the
// bias; a body that uses the sum elsewhere, or whose copy a lambda of its own captures, does
// not match.
TEST(Match, AnAbstractionPatternBindsTheBodyOverEveryCopy) {
  const std::string rows = std::string(kVec) + "input b : float\n";
  auto at = [&](const char* body) {
    return rewrite_root("bias-into-reduce-activation",
                        rows + "def out = map(s -> " + body + ", reduce(0.0, (acc, v) -> acc + v * v, x))");
  };
  EXPECT_EQ(at("tanh(s + b)"), (std::vector<std::string>{"map(v -> tanh(v), reduce(b, (a, e) -> a + e * e, x))"}));
  EXPECT_EQ(at("select(s + b > 0.0, s + b, 0.1 * (s + b))"),
            (std::vector<std::string>{"map(v -> select(v > 0.0, v, 0.1 * v), reduce(b, (a, e) -> a + e * e, x))"}));
  EXPECT_TRUE(at("(s + b) * s").empty());
  EXPECT_TRUE(at("s + 1.0 + s").empty());
  EXPECT_TRUE(at("reduce(0.0, (acc, s) -> acc + (s + b), x)").empty());  // its s is the inner lambda's
}

TEST(Match, FreshParametersAreUniqueAndRanged) {
  Typed t = typed(std::string(kVec) + "def out = map(a -> a, x)");
  FreshNames names;
  names.reserve("n_N_1");
  auto apps = apply_rule(*library().rule("split-join"), t.body, t.env, names);
  ASSERT_EQ(apps.size(), 1u);
  ASSERT_EQ(apps[0].params.size(), 1u);
  EXPECT_EQ(apps[0].params[0].name, "n_N_2");
  EXPECT_EQ(to_string(apps[0].params[0]), "n_N_2 in 2..64 (split-join)");
}

// A fresh parameter is named after the rule's parameter and the sizes of the length it
// acts on; a program gets the same names in every alternative, numbered only where one
// place is tiled twice.
TEST(Match, ParameterNamesSayWhereTheRuleActs) {
  struct Case {
    const char* program;
    const char* strategy;
    std::vector<std::string> names;  // of every alternative
  };
  const std::vector<Case> cases = {
      {"size N\ninput x : [float]N\ndef out = map(a -> a, x)", "split-join", {"n_N"}},
      {"size N, M\ninput x : [[float]M]N\ndef out = map(r -> map(a -> a, r), x)", "at(0.0, split-join) ; split-join",
       {"n_M", "n_N"}},
      {"size N\ninput x : [float]N\ndef out = map(a -> a, x)", "split-join ; at(0, split-join)", {"n_N_1", "n_N_2"}},
      {"input x : [float]8\ndef out = map(a -> a, x)", "split-join", {"n"}},
      {"size N, M\ninput x : [[float]M]N\ndef out = map(r -> reduce(0.0, (a, e) -> a + e, r), x)",
       "(id | split-join[4]) ; topdown(reduce-split)", {"omega_M"}},
      // through join(join(w)) the rule acts on the arrays joined: the C channels
      {"size N, M, C\ninput x : [[[float]C]M]N\ninput y : [[[float]C]M]N\n"
       "def out = reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(join(join(x)), join(join(y))))",
       "reduce-channel-chunks", {"omega_C"}},
  };
  for (const auto& c : cases) {
    RewriteOptions options;
    options.budget.max_alternatives = 16;
    auto r = rewrite_program(library(), c.strategy, program(c.program), options);
    ASSERT_FALSE(r.programs.empty()) << c.program;
    if (std::string(c.strategy).find('|') != std::string::npos) {
      EXPECT_GT(r.programs.size(), 1u);
    }
    for (const auto& alt : r.programs) {
      std::vector<std::string> names;
      for (const auto& p : alt.params) names.push_back(p.name);
      std::sort(names.begin(), names.end());
      auto expected = c.names;
      std::sort(expected.begin(), expected.end());
      EXPECT_EQ(names, expected) << c.program << " with " << c.strategy;
    }
  }
}

TEST(Match, ChoiceParametersGiveOneResultPerValue) {
  auto r = rewrite_root("map-to-mapGlb", std::string(kVec) + "def out = map(a -> a + 1.0, x)");
  EXPECT_EQ(r, (std::vector<std::string>{"mapGlb(0, a -> a + 1.0, x)", "mapGlb(1, a -> a + 1.0, x)",
                                         "mapGlb(2, a -> a + 1.0, x)"}));
}

TEST(Match, GuardsLookAtFunctions) {
  // A map that only rearranges data stays a map (a view in code generation).
  const char* const kRows = "size N, M\ninput x : [[float]M]N\n";
  EXPECT_TRUE(rewrite_root("map-to-mapSeq", std::string(kRows) + "def out = map(r -> transpose(split(2, r)), x)").empty());
  EXPECT_TRUE(rewrite_root("map-to-mapGlb", std::string(kRows) + "def out = map(r -> map(a -> a, r), x)").empty());
  EXPECT_EQ(rewrite_root("map-to-mapSeq", std::string(kRows) + "def out = map(r -> zip(r, map(a -> a * 2.0, r)), x)").size(), 1u);
  EXPECT_TRUE(rewrite_root("map-to-mapSeq", std::string(kRows) + "def out = map(r -> pad(1, 1, 0.0, r), x)").empty());
  EXPECT_EQ(rewrite_root("map-to-mapSeq", std::string(kRows) + "def out = map(r -> map(a -> 1.0, r), x)").size(), 1u);
  EXPECT_EQ(rewrite_root("map-to-mapSeq", std::string(kRows) + "def out = map(r -> map(a -> a * 2.0, r), x)").size(), 1u);
}

// once(g): a let whose name its body uses once, outside any function of the body, is
// inlined; one used twice, or once inside a function (which would compute the value once per
// call), is kept; a shadowed name is not a use (the lambda that shadows it is renamed).
TEST(Match, OnceGuardsCountUsesOutsideFunctions) {
  const char* const kVec = "size N\ninput x : [float]N\n";
  const std::string sum = "reduce(0.0, (a, v) -> a + v, x)";
  EXPECT_EQ(rewrite_root("let-inline-once", std::string(kVec) + "def out = let s = " + sum + " in map(v -> v * 2.0, s)"),
            (std::vector<std::string>{"map(v -> v * 2.0, " + sum + ")"}));
  EXPECT_TRUE(rewrite_root("let-inline-once", std::string(kVec) + "def out = let s = " + sum + " in zip(s, s)").empty());
  EXPECT_TRUE(
      rewrite_root("let-inline-once", std::string(kVec) + "def out = let s = " + sum + " in map(v -> map(t -> t + v, s), x)").empty());
  EXPECT_EQ(rewrite_root("let-inline-once", std::string(kVec) + "def out = let s = " + sum +
                                                " in join(map(s -> map(t -> t * 2.0, s), split(1, s)))"),
            (std::vector<std::string>{"join(map(s_1 -> map(t -> t * 2.0, s_1), split(1, " + sum + ")))"}));
}

TEST(Match, LayoutGuardsLookAtExpressions) {
  // let-inline-layout inlines a let whose value only rearranges data, wherever its name is
  // used (twice here), and keeps one whose value computes.
  const char* const kRows = "size N, M\ninput x : [[float]M]N\n";
  EXPECT_EQ(rewrite_root("let-inline-layout", std::string(kRows) + "def out = let t = pad(1, 1, 0.0, transpose(x)) in zip(t, t)"),
            (std::vector<std::string>{"zip(pad(1, 1, 0.0, transpose(x)), pad(1, 1, 0.0, transpose(x)))"}));
  EXPECT_TRUE(rewrite_root("let-inline-layout", std::string(kRows) + "def out = let t = map(r -> map(a -> a * 2.0, r), x) in zip(t, t)")
                  .empty());
  EXPECT_TRUE(rewrite_root("let-inline-layout", std::string(kRows) + "def out = let t = pad(1, 1, 1.0 + 1.0, x) in zip(t, t)").empty());
  // The value's free `x` is not captured by a lambda parameter of the body named `x`.
  EXPECT_EQ(rewrite_root("let-inline-layout", std::string(kRows) + "def out = let t = transpose(x) in map(x -> map(a -> a + 1.0, x), t)"),
            (std::vector<std::string>{"map(x_1 -> map(a -> a + 1.0, x_1), transpose(x))"}));
}

TEST(Match, GuardsLookAtTypes) {
  // vectorize needs scalar elements.
  EXPECT_TRUE(rewrite_root("vectorize", "size N\ninput x : [[float]4]N\ndef out = map(r -> r, x)").empty());
  EXPECT_EQ(rewrite_root("vectorize", std::string(kVec) + "def out = map(a -> a, x)").size(), 4u);
}

TEST(Match, GuardsCompareElementLengths) {
  // reduce-channel-chunks pairs the same channel of the same position: windows whose
  // joined lengths agree but whose shapes differ are left alone (length(elem(x)) guards).
  const std::string dot = "def out = reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(join(join(x)), join(join(y))))";
  EXPECT_TRUE(rewrite_root("reduce-channel-chunks", "input x : [[[float]4]2]3\ninput y : [[[float]2]4]3\n" + dot).empty());
  EXPECT_TRUE(rewrite_root("reduce-channel-chunks", "input x : [[[float]4]2]3\ninput y : [[[float]4]3]2\n" + dot).empty());
  EXPECT_EQ(rewrite_root("reduce-channel-chunks", "input x : [[[float]4]2]3\ninput y : [[[float]4]2]3\n" + dot).size(), 1u);
}

TEST(Match, SizeGuardsUndecidedSymbolicallyAreDecidedAtTheDeclaredSizes) {
  // `k == 1` of slide(K, ...): K = 1 holds only where the program declares it so.
  RuleSet lib = rules_of("rule unit-window: slide(k, s, x) => slide(k, s, x) if k == 1\n");
  auto applies = [&](const std::string& sizes, const std::string& k) {
    std::string text = sizes + "\ninput x : [float]N\ndef out = map(w -> reduce(0.0, (a, v) -> a + v, w), slide(" + k + ", 1, x))";
    try {
      rewrite_program(lib, "topdown(unit-window)", program(text));
      return true;
    } catch (const Error&) {
      return false;  // applies to no definition
    }
  };
  EXPECT_TRUE(applies("size N = 8, K = 1", "K"));
  EXPECT_FALSE(applies("size N = 8, K = 3", "K"));
  EXPECT_FALSE(applies("size N, K", "K"));  // no value: not provable
  EXPECT_TRUE(applies("size N", "1"));      // equal symbolically
}

TEST(Match, SizeGuardsHoldAtTheProgramsDeclaredSizes) {
  // `k == 3` on slide(K, ...): not for a symbolic K, but where the program says size K = 3
  // (the Winograd rules' guard); not where it says 5.
  RuleSet set;
  add_rules(set, std::make_shared<const SourceFile>(
                     SourceFile{"t.rules", "rule three: slide(k, 1, x) => slide(k, 1, x) if k == 3"}));
  Typed t = typed("size N, K\ninput x : [float]N\ndef out = slide(K, 1, x)");
  FreshNames names;
  EXPECT_TRUE(apply_rule(set.rules[0], t.body, t.env, names).empty());
  EXPECT_EQ(apply_rule(set.rules[0], t.body, t.env, names, {}, {}, {{"K", arith::Expr(3)}}).size(), 1u);
  EXPECT_TRUE(apply_rule(set.rules[0], t.body, t.env, names, {}, {}, {{"K", arith::Expr(5)}}).empty());
}

// pad-split-take-first reads every d-th element as join(slide(1, d, x)) only where that is
// the same: the padding at the end and d - 1 long (exactly the last chunk's dropped values),
// each chunk cropped at its end to its first element. One line a case.
TEST(Match, PadSplitTakeFirstDropsOnlyThePadding) {
  auto rw = [](const std::string& n, const std::string& body) {
    return rewrite_root("pad-split-take-first", "input x : [float]" + n + "\ndef out = " + body);
  };
  EXPECT_EQ(rw("7", "join(map(c -> pad(0, -2, 0.0, c), split(3, pad(0, 2, 1.0, x))))"),
            (std::vector<std::string>{"join(slide(1, 3, x))"}));
  EXPECT_EQ(rw("5", "join(map(c -> pad(0, -1, 0.0, c), split(2, pad(0, 1, 0.0, x))))"),
            (std::vector<std::string>{"join(slide(1, 2, x))"}));
  // A padding of 1 < d - 1: the last chunk drops x's element 7 too; slide(1, 3) of 8 elements is not strict.
  EXPECT_TRUE(rw("8", "join(map(c -> pad(0, -2, 0.0, c), split(3, pad(0, 1, 0.0, x))))").empty());
  // Each chunk's first two elements kept, or its last one.
  EXPECT_TRUE(rw("7", "join(map(c -> pad(0, -1, 0.0, c), split(3, pad(0, 2, 0.0, x))))").empty());
  EXPECT_TRUE(rw("7", "join(map(c -> pad(-2, 0, 0.0, c), split(3, pad(0, 2, 0.0, x))))").empty());
  // The padding at the front: the padding would be kept, x's elements dropped.
  EXPECT_TRUE(rw("7", "join(map(c -> pad(0, -2, 0.0, c), split(3, pad(2, 0, 0.0, x))))").empty());
  EXPECT_TRUE(rw("7", "join(map(c -> pad(0, -2, 0.0, c), split(3, pad(1, 1, 0.0, x))))").empty());
  // The same guard for arrays' first elements.
  EXPECT_EQ(rewrite_root("pad-split-take-first-element",
                         "input x : [[float]4]5\ndef out = map(c -> join(pad(0, -1, 0.0, c)), split(2, pad(0, 1, 0.0, x)))"),
            (std::vector<std::string>{"join(slide(1, 2, x))"}));
  EXPECT_TRUE(rewrite_root("pad-split-take-first-element",
                           "input x : [[float]4]6\ndef out = map(c -> join(pad(0, -1, 0.0, c)), split(2, pad(0, 0, 0.0, x)))")
                  .empty());
}

// pad-split-transpose-take-first reads every d-th element kept as the first row of the
// transposed chunks as join(slide(1, d, x)) under pad-split-take-first's guard: the padding at
// the end and d - 1 long, the first of the d rows kept. phase-windows-interleaved reads the
// phases' windows as one slide's only where each phase is slid by 1. One line a case.
TEST(Match, TransposedChunksAndPhasesAreDilatedOnlyWhereTheSame) {
  auto rw = [](const std::string& rule, const std::string& type, const std::string& body) {
    return rewrite_root(rule, "input x : " + type + "\ndef out = " + body);
  };
  const std::string t = "pad-split-transpose-take-first";
  EXPECT_EQ(rw(t, "[float]7", "join(pad(0, -2, 0.0, transpose(split(3, pad(0, 2, 1.0, x)))))"),
            (std::vector<std::string>{"join(slide(1, 3, x))"}));
  EXPECT_EQ(rw(t, "[[float]4]5", "join(pad(0, -1, 0.0, transpose(split(2, pad(0, 1, 0.0, x)))))"),
            (std::vector<std::string>{"join(slide(1, 2, x))"}));
  // A padding of 1 < d - 1: slide(1, 3) of 8 elements is not strict.
  EXPECT_TRUE(rw(t, "[float]8", "join(pad(0, -2, 0.0, transpose(split(3, pad(0, 1, 0.0, x)))))").empty());
  // The first two rows kept (every third element, then the ones after them), or the last row.
  EXPECT_TRUE(rw(t, "[float]7", "join(pad(0, -1, 0.0, transpose(split(3, pad(0, 2, 0.0, x)))))").empty());
  EXPECT_TRUE(rw(t, "[float]7", "join(pad(-2, 0, 0.0, transpose(split(3, pad(0, 2, 0.0, x)))))").empty());
  // The padding at the front: the first row would be the padding's.
  EXPECT_TRUE(rw(t, "[float]7", "join(pad(0, -2, 0.0, transpose(split(3, pad(2, 0, 0.0, x)))))").empty());
  const std::string p = "phase-windows-interleaved";
  EXPECT_EQ(rw(p, "[float]12", "join(transpose(map(ph -> slide(3, 1, ph), transpose(split(2, x)))))"),
            (std::vector<std::string>{"map(w -> join(slide(1, 2, w)), slide(5, 1, x))"}));
  EXPECT_EQ(rw(p, "[[float]4]9", "join(transpose(map(ph -> slide(2, 1, ph), transpose(split(3, x)))))"),
            (std::vector<std::string>{"map(w -> join(slide(1, 3, w)), slide(4, 1, x))"}));
  // Each phase slid by 2: windows 0, 1, 4, 5, 8, 9 of slide(5, 1, x), no one slide's.
  EXPECT_TRUE(rw(p, "[float]14", "join(transpose(map(ph -> slide(3, 2, ph), transpose(split(2, x)))))").empty());
}

TEST(Match, ResultsThatDoNotTypeCheckAreDropped) {
  // reduce-split's partial sums start at 0.0: not for an int reduction.
  EXPECT_TRUE(rewrite_root("reduce-split", "size N\ninput x : [int]N\ndef out = reduce(0, (a, v) -> a + v, x)").empty());
}

TEST(Match, NonLinearPatternsNeedEqualOperands) {
  RuleSet set;
  add_rules(set, std::make_shared<const SourceFile>(SourceFile{"t.rules", "rule same: zip(x, x) => map(e -> (e, e), x)"}));
  Typed t = typed(std::string(kVec) + "input y : [float]N\ndef out = zip(x, x)");
  FreshNames names;
  EXPECT_EQ(apply_rule(set.rules[0], t.body, t.env, names).size(), 1u);
  Typed u = typed(std::string(kVec) + "input y : [float]N\ndef out = zip(x, y)");
  EXPECT_TRUE(apply_rule(set.rules[0], u.body, u.env, names).empty());
}

// A rule may mention concat (issue 38, item 5): a map distributes over it, and its operands
// are matched in order.
TEST(Match, RulesMentionConcat) {
  RuleSet set;
  add_rules(set, std::make_shared<const SourceFile>(
                     SourceFile{"t.rules", "rule map-concat: concat(map(f, a), map(f, b)) => map(f, concat(a, b))"}));
  Typed t = typed(std::string(kVec) + "input y : [float]N\ndef out = concat(map(a -> a * 2.0, x), map(a -> a * 2.0, y))");
  FreshNames names;
  auto apps = apply_rule(set.rules[0], t.body, t.env, names);
  ASSERT_EQ(apps.size(), 1u);
  EXPECT_EQ(ir::to_string(apps[0].result), "map(a -> a * 2.0, concat(x, y))");
  Typed u = typed(std::string(kVec) + "input y : [float]N\ndef out = concat(map(a -> a * 2.0, x), map(a -> a * 3.0, y))");
  EXPECT_TRUE(apply_rule(set.rules[0], u.body, u.env, names).empty());
}

TEST(Match, ReluSelectNeedsTheSameValueTwice) {
  EXPECT_EQ(rewrite_root("relu-select", "input a : float\ndef out = select(a + 1.0 > 0.0, a + 1.0, 0.0)"),
            (std::vector<std::string>{"max(a + 1.0, 0.0)"}));
  EXPECT_TRUE(rewrite_root("relu-select", "input a : float\ndef out = select(a + 1.0 > 0.0, a + 2.0, 0.0)").empty());
  EXPECT_TRUE(rewrite_root("relu-select", "input a : float\ndef out = select(a > 0.0, a, 0.5)").empty());
}

TEST(Match, EveryPositionIsEnumerated) {
  Typed t = typed("size N, M\ninput x : [[float]M]N\ndef out = map(r -> map(a -> a + 1.0, r), map(r -> map(b -> b * 2.0, r), x))");
  Engine engine(library(), {});
  auto ps = engine.positions(*library().rule("map-fusion"), t.body, t.env);
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(to_string(ps[0]), "root");
  auto maps = engine.positions(*library().rule("map-to-mapSeq"), t.body, t.env);
  EXPECT_EQ(maps.size(), 4u);
}

}  // namespace
}  // namespace liftc::rewrite::test
