// Loading rule files: the library loads; files that must fail, with their messages.

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "harness.hpp"

namespace liftc::rewrite::test {
namespace {

TEST(Load, LibraryLoads) {
  const RuleSet& set = library();
  EXPECT_GE(set.rules.size(), 20u);
  EXPECT_EQ(set.files.size(), 18u);  // algorithmic, conv_pool, depthwise_local, depthwise_pointwise, direct_conv, fusion, gemm_conv, library, local_tiles, normalize, opencl, partial_sums, rows, shapes, strategies, tiling, vectorize, winograd
  const Rule* sj = set.rule("split-join");
  ASSERT_NE(sj, nullptr);
  ASSERT_EQ(sj->params.size(), 1u);
  EXPECT_EQ(sj->params[0].min, 2);
  EXPECT_EQ(sj->params[0].max, 64);
  EXPECT_EQ(sj->vars.at("f"), VarKind::Function);
  EXPECT_EQ(sj->vars.at("x"), VarKind::Expr);
  EXPECT_FALSE(sj->description.empty());
}

struct BadFile {
  const char* text;
  const char* message;  // expected in what(): "line:col: error: message"
};

// One line per case: a rule file that must not load, and where and why.
const BadFile kBad[] = {
    {"rule r: map(f, x) => map(f, y)", "1:29: error: unbound variable `y` on the right side"},
    {"rule r: map(f, x) => mop(f, x)", "1:22: error: unknown primitive or function variable `mop`"},
    {"rule r: split(x, y, z) => x", "1:9: error: split takes 1 operand after 1 size argument, got 2"},
    {"rule r: map(f, x, x) => x", "1:9: error: map takes 2 operands, got 3"},
    {"rule r: split(x) => x", "1:9: error: split takes 1 operand after 1 size argument, got 0"},
    {"rule r: join(x) => x\nrule r: join(y) => y", "2:1: error: duplicate name `r`"},
    {"rule r: join(x) => x\nstrategy s = topdown(q)", "2:22: error: unknown rule or strategy `q`"},
    {"rule r: join(x) => x\nstrategy s = r ; s", "2:1: error: strategy `s` refers to itself"},
    {"rule r: map(f, x) => map(f, f)", "1:29: error: `f` is a function variable; it cannot be used as a value"},
    {"rule r(n): join(split(n, x)) => split(n, x)", "1:23: error: `n` is a fresh parameter of the rule; it cannot occur on the left"},
    {"rule r: map(f, x) => x if scalar(z)", "1:34: error: `z` is not an expression variable of the left side"},
    {"rule r: map(f, x) => map(h, x)", "1:26: error: unbound variable `h` on the right side"},
    {"rule r: join(x) => x\nstrategy s = topdown[4](r)", "2:14: error: topdown takes no fixed parameters"},
    {"rule r: map(f, x) => x if layout(y)", "1:34: error: layout(f) needs a function or expression variable of the left side"},
    {"rule r: split(n, x) => x if layout(n)", "1:36: error: layout(f) needs a function or expression variable of the left side"},
    {"rule r: map(f, x) => x if cheap(f)", "1:27: error: expected a condition: scalar(T)"},
    {"rule r(choose d): map(f, x) => mapGlb(d, f, x)", "1:8: error: choice parameter `d` needs its values"},
    {"rule r: map(f, x) => x =>", "1:24: error: expected `rule` or `strategy`"},
    {"rule r: map(f x) => x", "1:15: error: expected `)`"},
    {"rule r(n in 5..2): join(x) => x", "1:13: error: empty range 5..2"},
    {"rule r: join(x) => x\nstrategy s = topdown(r, r)", "2:14: error: topdown takes one strategy, got 2"},
    {"rule r: join(x) => x\nstrategy s = fallback(r)", "2:14: error: fallback takes two strategies, got 1"},
    {"rule r: join(x) => x\nstrategy s = fallback[1](r, r)", "2:14: error: fallback takes no fixed parameters"},
    {"rule r: join(x) => x\nstrategy s = where(r, r)", "2:14: error: where takes one strategy, got 2"},
    {"rule where: join(x) => x", "1:1: error: `where` is a strategy combinator, not a free name"},
    {"rule r(n in 2..8): map(f, x) => join(map(map(f), split(n, x)))\nstrategy s = r[9]",
     "2:14: error: 9 is not a value of parameter `n` of rule `r`"},
    {"rule try: join(x) => x", "1:1: error: `try` is a strategy combinator"},
    {"rule r: x => x", "1:9: error: the left side of a rule must be a primitive call or a let"},
    {"rule r: map(x -> g(x, x), y) => y",
     "1:23: error: on the left, function variable `g` may only be applied to distinct lambda parameters or to one "
     "expression over them"},
    {"rule r: map(x -> g(y + 1.0), y) => y",
     "1:20: error: on the left, function variable `g` may only be applied to distinct lambda parameters or to one "
     "expression over them"},
    // Size arguments and guards, read by parse::read_size as a program's sizes are.
    {"rule r: split(n + 1, x) => x", "1:15: error: a size argument on the left must be a variable or a constant"},
    {"rule r: split(-n, x) => x", "1:15: error: a size argument on the left must be a variable or a constant"},
    {"rule r: split(n, x) => split(n < 2, x)", "1:32: error: `<` is not a size operator"},
    {"rule r: split(n, x) => split(!n, x)", "1:30: error: expected a size: an integer, a size variable or + - * / % of them"},
    {"rule r: split(n, x) => split(m, x)", "1:30: error: unbound variable `m` on the right side"},
    {"rule r: split(n, x) => split(length(y), x)", "1:30: error: in a size, only length(x) or length(elem(x)) of an expression variable x can be called"},
    {"rule r: split(n, x) => split(4 / 0, x)", "1:32: error: division by zero in size expression `4/0`"},
    {"rule r: split(n, x) => x if n / 2 > 1", "1:29: error: `/` is not allowed in a guard's size"},
    {"rule r: split(n, x) => x if -n > 1", "1:29: error: expected a size: an integer, a size variable, length(T), or + - * of them"},
    {"rule r: split(n, x) => x if n > m", "1:33: error: `m` is not a size variable of the left side"},
    // Tags of a strategy: names in brackets before its description.
    {"rule r: join(x) => x\nstrategy s [] = r", "2:13: error: expected tag (a name, e.g. fast)"},
    {"rule r: join(x) => x\nstrategy s [fast gpu] = r", "2:18: error: expected `]`"},
    {"rule r: join(x) => x\nstrategy s [1x] = r", "2:13: error: expected tag (a name, e.g. fast)"},
};

TEST(Load, BadFilesFailWithTheirMessage) {
  for (const auto& c : kBad) {
    RuleSet set;
    try {
      add_rules(set, std::make_shared<const SourceFile>(SourceFile{"bad.rules", c.text}));
      ADD_FAILURE() << "loaded: " << c.text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("bad.rules:") + c.message), std::string::npos)
          << "for: " << c.text << "\ngot: " << e.what();
    }
  }
}

// A rule file larger than a program may be is refused, naming it, before it is read.
TEST(Load, AHugeRuleFileIsAClearError) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("liftc_huge_rules_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    std::ofstream out(dir / "huge.rules");
    out << "rule r: map(f, x) => map(f, x)\n";
  }
  fs::resize_file(dir / "huge.rules", (64ull << 20) + 1);  // sparse: no 64 MiB written
  try {
    load_rules_dir(dir.string());
    ADD_FAILURE() << "a 64 MiB rule file was read";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("huge.rules"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("rule file"), std::string::npos) << e.message();
  }
  fs::remove_all(dir);
}

// A strategy's tags, `strategy s [fast, gpu] "..." = ...`: kept in file order, shown by
// `liftc rules`, and `-s @tag` names every strategy that carries the tag
// (expand_strategy_tags), each once, in the rules' order; a tag none carries is refused
// with the tags there are.
TEST(Load, StrategyTagsSelectStrategies) {
  RuleSet set;
  add_rules(set, std::make_shared<const SourceFile>(SourceFile{"t.rules",
      "rule r: join(x) => x\n"
      "strategy a [fast, gpu] \"first\" = r\n"
      "strategy b \"untagged\" = r\n"
      "strategy c [gpu] = r\n"}));
  ASSERT_EQ(set.strategies.size(), 3u);
  EXPECT_EQ(set.strategies[0].tags, (std::vector<std::string>{"fast", "gpu"}));
  EXPECT_EQ(set.strategies[0].description, "first");
  EXPECT_TRUE(set.strategies[1].tags.empty());
  EXPECT_EQ(set.strategies[2].tags, (std::vector<std::string>{"gpu"}));
  EXPECT_EQ(expand_strategy_tags(set, {"@gpu"}), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(expand_strategy_tags(set, {"b", "@fast", "a", "@gpu"}), (std::vector<std::string>{"b", "a", "c"}));
  EXPECT_EQ(expand_strategy_tags(set, {}), std::vector<std::string>{});
  try {
    expand_strategy_tags(set, {"@quick"});
    ADD_FAILURE() << "an unknown tag expanded";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "strategy tag '@quick': no strategy of the rules carries it (their tags: @fast, @gpu)");
  }
  // The library's: the eight fast strategies of the benchmarks, each also for GPUs.
  std::vector<std::string> fast = expand_strategy_tags(library(), {"@fast"});
  EXPECT_EQ(fast, (std::vector<std::string>{"conv-chw-tile", "conv-chw-tile-m0", "conv-chw-tile-local", "conv-chw-tile-split",
                                            "conv-chw-omega-kappa", "conv-gemm", "conv-winograd-gemm", "conv-winograd-local"}));
  for (const auto& name : fast) {
    const auto& tags = library().strategy(name)->tags;
    EXPECT_NE(std::find(tags.begin(), tags.end(), "gpu"), tags.end()) << name;
  }
}

TEST(Load, StrategySyntax) {
  Strategy s = parse_strategy(library(), "topdown(split-join[4]) ; try(map-fusion) <+ anywhere(vectorize) | at(0.1, id)");
  EXPECT_EQ(to_string(s), "((topdown(split-join[4]) ; try(map-fusion) <+ anywhere(vectorize)) | at(0.1, id))");
}

}  // namespace
}  // namespace liftc::rewrite::test
