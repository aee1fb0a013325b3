// Strategies: combinators, traversals, budgets, the trace, the normal form and the forms of
// a convolution. Each named strategy's equivalence test is a text file of tests/rules/.


#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <string_view>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "forms.hpp"
#include "harness.hpp"
#include "liftc/interp/interp.hpp"
#include "liftc/ir/printer.hpp"
#include "liftc/parse/parse.hpp"

namespace liftc::rewrite::test {
namespace {

const char* const kMaps = "size N\ninput x : [float]N\ndef out = map(a -> a + 1.0, map(b -> b * 2.0, map(c -> c - 3.0, x)))";

std::string rewrite_one(const std::string& text, const std::string& strategy, RewriteOptions o = {}) {
  ProgramRewrite r = rewrite_program(library(), strategy, program(text), o);
  EXPECT_EQ(r.programs.size(), 1u);
  return ir::to_string(r.programs.at(0).program.defs.back().body);
}

TEST(Strategy, NormalizeReachesAFixedPoint) {
  ProgramRewrite r = rewrite_program(library(), "normalize(map-fusion)", program(kMaps));
  EXPECT_EQ(r.stop, StopReason::FixedPoint);
  EXPECT_EQ(r.steps, 2);
  EXPECT_EQ(ir::to_string(r.programs[0].program.defs[0].body), "map(y -> (y - 3.0) * 2.0 + 1.0, x)");
}

TEST(Strategy, StepBudgetStopsWithProgress) {
  RewriteOptions o;
  o.budget.max_steps = 1;
  ProgramRewrite r = rewrite_program(library(), "normalize(map-fusion)", program(kMaps), o);
  EXPECT_EQ(r.stop, StopReason::StepLimit);
  EXPECT_EQ(r.steps, 1);
}

TEST(Strategy, NodeBudget) {
  RewriteOptions o;
  o.budget.max_nodes = 12;
  ProgramRewrite r = rewrite_program(library(), "repeat(topdown(split-join))", program(kMaps), o);
  EXPECT_EQ(r.stop, StopReason::NodeLimit);
}

TEST(Strategy, ChoicesAndTraversals) {
  EXPECT_EQ(rewrite_one(kMaps, "fail <+ topdown(map-to-mapSeq)"), "mapSeq(a -> a + 1.0, map(b -> b * 2.0, map(c -> c - 3.0, x)))");
  EXPECT_EQ(rewrite_one(kMaps, "bottomup(map-to-mapSeq)"), "map(a -> a + 1.0, map(b -> b * 2.0, mapSeq(c -> c - 3.0, x)))");
  EXPECT_EQ(rewrite_one(kMaps, "everywhere(map-to-mapSeq)"), "mapSeq(a -> a + 1.0, mapSeq(b -> b * 2.0, mapSeq(c -> c - 3.0, x)))");
  EXPECT_EQ(rewrite_one(kMaps, "at(1, map-to-mapSeq)"), "map(a -> a + 1.0, mapSeq(b -> b * 2.0, map(c -> c - 3.0, x)))");
  EXPECT_EQ(rewrite_one(kMaps, "try(transpose-transpose)"), "map(a -> a + 1.0, map(b -> b * 2.0, map(c -> c - 3.0, x)))");
  EXPECT_EQ(rewrite_one(kMaps, "topdown(map-to-mapGlb[2])"), "mapGlb(2, a -> a + 1.0, map(b -> b * 2.0, map(c -> c - 3.0, x)))");
  EXPECT_EQ(rewrite_one(kMaps, "topdown(split-join[4])"),
            "join(map(y -> map(a -> a + 1.0, y), split(4, map(b -> b * 2.0, map(c -> c - 3.0, x)))))");
}

// Locating by structure: where(s) tests a shape without rewriting (unless(s) its absence),
// body(s) steps into a map's function, fallback(s, t) takes t where s fails.
TEST(Strategy, StructuralCombinators) {
  const RuleSet& lib = library();
  const char* kConv = "size N, C, P\ninput x : [[float]C]N\ninput ws : [[float]C]P\ninput bs : [float]P\n"
                      "def out = map(px -> map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(px, w)), zip(ws, bs)), x)";
  // The map over (kernel, bias) pairs, found by its shape (it is not the first map).
  EXPECT_EQ(rewrite_one(kConv, "topdown(where(kernel-pairs) ; map-to-mapSeq)"),
            "map(px -> mapSeq((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(px, w)), zip(ws, bs)), x)");
  EXPECT_EQ(rewrite_one(kConv, "where(kernel-pairs) <+ id"), rewrite_one(kConv, "id"));
  EXPECT_THROW(rewrite_program(lib, "where(kernel-pairs)", program(kConv)), Error);  // the root is not that shape
  // unless(s), where's negation: the focus unchanged where s fails, no result where s succeeds.
  EXPECT_EQ(rewrite_one(kConv, "unless(kernel-pairs)"), rewrite_one(kConv, "id"));
  EXPECT_THROW(rewrite_program(lib, "body(unless(kernel-pairs))", program(kConv)), Error);  // the pairs' map
  EXPECT_EQ(rewrite_one(kConv, "body(unless(kernel-pairs) <+ map-to-mapSeq)"),
            "map(px -> mapSeq((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(px, w)), zip(ws, bs)), x)");
  EXPECT_EQ(rewrite_one(kConv, "body(map-to-mapSeq)"),
            "map(px -> mapSeq((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(px, w)), zip(ws, bs)), x)");
  EXPECT_THROW(rewrite_program(lib, "body(map-to-mapSeq)", program(kMaps)), Error);  // a + 1.0 is no map
  // fallback: the second strategy where the first fails; a program only the fallback
  // rewrites is not one the strategy applies to.
  const char* kTwo = "size N, C, P\ninput x : [[float]C]N\ninput ws : [[float]C]P\ninput bs : [float]P\n"
                     "def conv = map(px -> map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(px, w)), zip(ws, bs)), x)\n"
                     "def act = map(r -> map(v -> max(v, 0.0), join(r)), conv)";
  ProgramRewrite r = rewrite_program(lib, "fallback(topdown(where(kernel-pairs) ; map-to-mapSeq), topdown(map-to-mapGlb[0]))",
                                     program(kTwo));
  ASSERT_EQ(r.programs.size(), 1u);
  EXPECT_EQ(r.fallen_back, std::vector<std::string>{"act"});
  EXPECT_TRUE(r.unchanged.empty());
  EXPECT_EQ(ir::to_string(r.programs[0].program.defs[1].body), "mapGlb(0, r -> map(v -> max(v, 0.0), join(r)), conv)");
  // Only kept evaluations count: a fallback inside `where` (a test) or in a `<+` branch that
  // fails says nothing of the definition; `conv`'s fallback record is that of the branch taken.
  ProgramRewrite nested = rewrite_program(
      lib, "(where(fallback(fail, id)) ; fail) <+ fallback(topdown(where(kernel-pairs) ; map-to-mapSeq), id)", program(kTwo));
  EXPECT_EQ(nested.fallen_back, std::vector<std::string>{"act"});
  ProgramRewrite tested = rewrite_program(lib, "where(fallback(fail, id)) ; topdown(map-to-mapGlb[0])", program(kTwo));
  EXPECT_TRUE(tested.fallen_back.empty());
  try {
    rewrite_program(lib, "fallback(topdown(where(kernel-pairs)), lower-seq)", program(kMaps));
    ADD_FAILURE() << "a program rewritten only by the fallback";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not apply to any definition"), std::string::npos) << e.what();
  }
}

// Why a strategy does not apply: the step of its sequence that found nothing to rewrite,
// of the outermost fallback whose first strategy failed (not a step of the fallback's
// second one), or of the strategy itself; per definition, and in the error when no
// definition is rewritten.
TEST(Strategy, SaysWhichStepOfItsSequenceAppliedNowhere) {
  const RuleSet& lib = library();
  const char* kTwo = "size N, C, P\ninput x : [[float]C]N\ninput ws : [[float]C]P\ninput bs : [float]P\n"
                     "def conv = map(px -> map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(px, w)), zip(ws, bs)), x)\n"
                     "def act = map(r -> map(v -> max(v, 0.0), join(r)), conv)";
  ProgramRewrite r = rewrite_program(
      lib, "fallback(id ; topdown(where(kernel-pairs)) ; topdown(map-to-mapSeq), topdown(map-to-mapGlb[0]) ; (fail <+ id))",
      program(kTwo));
  EXPECT_EQ(r.fallen_back, std::vector<std::string>{"act"});
  EXPECT_EQ(r.why_not, (std::map<std::string, std::string>{{"act", "its step `topdown(where(kernel-pairs))` applies nowhere"}}));
  // A composite step (a choice of sequences) that found nothing: the step inside it that
  // stopped its sequence, not the whole choice.
  ProgramRewrite inner = rewrite_program(
      lib, "fallback(id ; ((id ; topdown(where(kernel-pairs))) | fail), topdown(map-to-mapGlb[0]))", program(kTwo));
  EXPECT_EQ(inner.why_not.at("act"), "its step `topdown(where(kernel-pairs))` applies nowhere");
  ProgramRewrite plain = rewrite_program(lib, "topdown(where(kernel-pairs)) ; topdown(map-to-mapSeq)", program(kTwo));
  EXPECT_EQ(plain.unchanged, std::vector<std::string>{"act"});
  EXPECT_EQ(plain.why_not.at("act"), "its step `topdown(where(kernel-pairs))` applies nowhere");
  try {
    rewrite_program(lib, "fallback(id ; topdown(where(kernel-pairs)), lower-seq)", program(kMaps));
    ADD_FAILURE() << "a program rewritten only by the fallback";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not apply to any definition of <test> (its step "
                                         "`topdown(where(kernel-pairs))` applies nowhere)"),
              std::string::npos)
        << e.what();
  }
}

// normal-form (rules/normalize.rules) brings each form of a convolution of
// examples/conv/forms/ to a fixed point within its budgets, and is idempotent: run again on
// its own result it changes nothing (zero rule applications). Forms that are written
// differently but compute the same convolution reach the same program.
TEST(NormalForm, ReachesAFixedPointAndIsIdempotent) {
  namespace fs = std::filesystem;
  int forms = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(LIFTC_EXAMPLES_DIR) / "conv" / "forms")) {
    SCOPED_TRACE(entry.path().filename().string());
    ProgramRewrite once = rewrite_program(library(), "normal-form", parse::load_program(entry.path().string()));
    ASSERT_EQ(once.programs.size(), 1u);
    EXPECT_EQ(once.stop, StopReason::FixedPoint);
    ProgramRewrite twice = rewrite_program(library(), "normal-form", once.programs[0].program);
    EXPECT_EQ(twice.steps, 0);
    EXPECT_EQ(ir::to_string(twice.programs[0].program), ir::to_string(once.programs[0].program));
    ++forms;
  }
  EXPECT_GE(forms, 12);
  // The same convolution written four ways, one normal form (bound names aside).
  auto normal = [](const std::string& form) {
    ProgramRewrite r = rewrite_program(library(), "normal-form",
                                       parse::load_program(std::string(LIFTC_EXAMPLES_DIR) + "/conv/forms/" + form));
    return r.programs.at(0).program.defs.back().body;
  };
  ir::Expr relu = normal("relu_max_0x.sr");
  EXPECT_TRUE(ir::alpha_equal(normal("bias_after_relu.sr"), relu));
  EXPECT_TRUE(ir::alpha_equal(normal("swapped_acc_right.sr"), normal("flatten_order.sr")));
  EXPECT_TRUE(ir::alpha_equal(normal("relu_select_bias_inside.sr"), relu));
  EXPECT_TRUE(ir::alpha_equal(normal("relu_select_flipped.sr"), relu));
  EXPECT_TRUE(ir::alpha_equal(normal("relu_pass_unjoined.sr"), relu));
  // A pass that joins each pixel's unjoined kernel results itself (map(h, join(px)) or
  // zip(join(px), biases)): fused as relu_pass.sr, whose pass reads joined channels (found
  // by a generality check: such a program was offered the local-tile and Winograd-local
  // strategies with no valid point).
  auto normal_text = [](const std::string& def) {
    const std::string header = "size C = 2, H = 6, W = 6, M = 4, K = 3\ninput weights : [[[[float]C]K]K]M\n"
                               "input biases : [float]M\ninput image : [[[float]C]W]H\n";
    return rewrite_program(library(), "normal-form", program(header + def)).programs.at(0).program.defs.back().body;
  };
  const std::string windows = "slide2D(K, K, 1, 1, pad2D(1, 1, 1, 1, 0.0, image))";
  EXPECT_TRUE(ir::alpha_equal(
      normal_text("def conv = map2D(px -> map(v -> max(v, 0.0), join(px)), map2D(window -> map((w, b) -> reduce(b, "
                  "(acc, p) -> acc + p.0 * p.1, zip(join(join(window)), join(join(w)))), zip(weights, biases)), " + windows + "))"),
      normal("relu_pass.sr")));
  EXPECT_TRUE(ir::alpha_equal(
      normal_text("def conv = map2D(px -> map((v, b) -> max(v + b, 0.0), zip(join(px), biases)), map2D(window -> map(w -> "
                  "reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(join(join(window)), join(join(w)))), weights), " + windows + "))"),
      normal("relu_pass.sr")));
  // ReLU6 of the sum plus the bias (found by a generality check: such a program was offered
  // no Winograd or GEMM strategy): as relu6_clamp.sr, the bias the sum's start.
  EXPECT_TRUE(ir::alpha_equal(
      normal_text("def conv = map2D(window -> map((w, b) -> map(s -> min(max(s + b, 0.0), 6.0), reduce(0.0, (acc, p) -> "
                  "acc + p.0 * p.1, zip(join(join(window)), join(join(w))))), zip(weights, biases)), " + windows + ")"),
      normal("relu6_clamp.sr")));
  // A leaky ReLU around the sum plus the bias, either order: as leaky_select.sr.
  for (const char* sum : {"s + b", "b + s"})
    EXPECT_TRUE(ir::alpha_equal(
        normal_text(fmt::format("def conv = map2D(window -> map((w, b) -> map(s -> select({0} > 0.0, {0}, 0.1 * ({0})), "
                                "reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(join(join(window)), join(join(w))))), "
                                "zip(weights, biases)), {1})",
                                sum, windows)),
        normal("leaky_select.sr")))
        << sum;
  // Products summed separately, nested sums, (bias, kernel) pairs and a let of the padded
  // image: the canonical form.
  ir::Expr canonical = normal("let_padded.sr");
  for (const char* form : {"sum_of_products.sr", "sum_of_products_bias_start.sr", "nested_sums.sr", "bias_first_pairs.sr"}) {
    SCOPED_TRACE(form);
    EXPECT_TRUE(ir::alpha_equal(normal(form), canonical));
  }
  EXPECT_TRUE(ir::alpha_equal(normal("chw_let_transposed.sr"), normal("chw_oihw.sr")));
  // The weights rearranged inside the map over (kernel, bias) pairs instead of in a let
  // (found by a generality check: the Winograd and tiled strategies refused it).
  const std::string chw = "size C = 2, H = 6, W = 6, M = 4, K = 3\ninput weights : [[[[float]K]K]C]M\n"
                          "input biases : [float]M\ninput image : [[[float]W]H]C\n"
                          "def conv = let img = map(transpose, transpose(image)) in map2D(window -> map((w, b) -> "
                          "reduce(b, (acc, p) -> acc + p.0 * p.1, zip(join(join(window)), join(join(map(transpose, "
                          "transpose(w)))))), zip(weights, biases)), slide2D(K, K, 1, 1, pad2D(1, 1, 1, 1, 0.0, img)))";
  EXPECT_TRUE(ir::alpha_equal(rewrite_program(library(), "normal-form", program(chw)).programs.at(0).program.defs.back().body,
                              normal("chw_let_transposed.sr")));
}

// A named step's description says what a convolution needs for it (Engine::why_not_applied):
// the Winograd strategies on a form that cannot take them say why in a user's terms, with
// the step that found nothing. One row a (form, strategy, step).
TEST(Strategy, ANamedStepThatAppliesNowhereSaysWhatItNeeds) {
  const std::string needs =
      "which needs a convolution over 3x3 windows with stride 1 whose output sides 2 (F(2x2)) or 4 (F(4x4)) divides, "
      "and one map over (kernel, bias) pairs whose kernels read all the channels, or over (kernel, bias, value) "
      "triples where the output is combined value by value with another image of its shape (a residual add fused "
      "into the convolution) (a depthwise or grouped convolution has none, though liftc explore and liftc space "
      "split a grouped one into dense convolutions per group, which Winograd takes; a dilated window is not a 3x3 "
      "window)";
  const std::string direct =
      "its step `winograd-form` applies nowhere: Winograd F(2x2, 3x3) or F(4x4, 3x3) with the transformed products "
      "summed per tile and kernel (the rules winograd-f2x2, -f4x4 and their -activation, -residual and "
      "-residual-activation variants), " + needs;
  const std::string gemm =
      "its step `winograd-gemm-form` applies nowhere: Winograd F(2x2, 3x3) or F(4x4, 3x3) as a batched matrix "
      "multiplication (the rules winograd-f2x2-gemm, -f4x4-gemm and their -activation, -residual and "
      "-residual-activation variants), " + needs;
  struct Case {
    const char* form;
    const char* strategy;
    const std::string& why;
  };
  for (const Case& c : {Case{"stride2.sr", "conv-winograd", direct}, Case{"stride2.sr", "conv-winograd-gemm", gemm},
                        Case{"k5_odd.sr", "conv-winograd-local", gemm}, Case{"depthwise.sr", "conv-winograd", direct},
                        Case{"depthwise_chw.sr", "conv-winograd-gemm", gemm}, Case{"grouped.sr", "conv-winograd-local", gemm},
                        Case{"dilated.sr", "conv-winograd", direct}, Case{"dilated.sr", "conv-winograd-gemm", gemm}}) {
    SCOPED_TRACE(std::string(c.form) + " " + c.strategy);
    try {
      rewrite_program(library(), c.strategy, program(example(std::string("conv/forms/") + c.form)));
      ADD_FAILURE() << "the strategy applied";
    } catch (const Error& e) {
      EXPECT_EQ(e.message(), "strategy `" + std::string(c.strategy) + "` does not apply to any definition of <test> (" +
                                 c.why + ")");
    }
  }
}

// The same for the register tile, the kernel-minor copy, the kernel groups, the local-memory
// blocks and the im2col matrix on a depthwise convolution (its kernels read one channel each)
// and a dilated one (its windows a view of wider ones, which the kernel-minor copy does not
// take; conv-chw-tile-local's and conv-chw-tile-split's blocks do): each strategy stops at its
// named step, which says what it needs and which strategy a depthwise convolution takes.
TEST(Strategy, DepthwiseAndDilatedConvolutionsAreToldWhatTheFastStrategiesNeed) {
  const std::string pairs =
      "which needs a map over (kernel, bias) pairs whose kernels read all the channels of a window (a depthwise "
      "convolution's kernels read one channel each: its strategy is conv-depthwise-kappa, offered where normal-form finds "
      "its map over (kernel, bias, channel) triples; a grouped convolution's pairs sit in a map over the groups: "
      "conv-chw-kappa, conv-gpu and conv-naive put the groups on global dimension 2, and liftc explore and liftc space "
      "also split it into one dense convolution per group, which the dense strategies take)";
  const std::string windows = pairs + ", directly in the 2D map over slide2D's windows themselves (a dilated window is a "
                                      "view of wider ones)";
  struct Case {
    const char* form;
    const char* strategy;
    std::string why;
  };
  const std::vector<Case> cases = {
      {"depthwise.sr", "conv-chw-tile",
       "its step `register-tile-form` applies nowhere: sigma windows x kappa kernels per reduction (register-tile, "
       "register-tile-activation, register-tile-residual, register-tile-residual-activation), which needs a map over "
       "(kernel, bias) pairs whose kernels read all the channels of a window, or over (kernel, bias, value) triples where "
       "the output is combined value by value with another image (a residual add fused into the convolution)" +
           pairs.substr(pairs.find(" (a depthwise"))},
      {"depthwise_chw.sr", "conv-chw-omega-kappa",
       "its step `kernel-groups-form` applies nowhere: kappa kernels per reduction (kernel-groups-into-reduction), " + pairs},
      {"depthwise.sr", "conv-gemm",
       "its step `im2col-form` applies nowhere: the windows read as rows of the im2col matrix (window-flatten, "
       "window-flatten-activation, window-flatten-residual, window-flatten-residual-activation), which needs a map over "
       "(kernel, bias) pairs whose kernels read all the channels of a window, or over (kernel, bias, value) triples where "
       "the output is combined value by value with another image (a residual add fused into the convolution)" +
           pairs.substr(pairs.find(" (a depthwise"))},
      {"dilated.sr", "conv-chw-tile-m0",
       "its step `kernel-minor-weights` applies nowhere: the weights of the map over (kernel, bias) pairs read from a "
       "kernel-minor copy (weights-kernel-minor, -residual), which needs a map over (kernel, bias) pairs whose kernels "
       "read all the channels of a window, or over (kernel, bias, value) triples where the output is combined value by "
       "value with another image (a residual add fused into the convolution)" +
           windows.substr(windows.find(" (a depthwise"))},
      {"depthwise.sr", "conv-chw-tile-local",
       "its step `block-chunks-form` applies nowhere: a work-group per block of windows x kernels, the channels in chunks "
       "(conv-block-chunks, -activation, -dilated, -dilated-activation, -residual, -residual-activation), which needs a "
       "map over (kernel, bias) pairs whose kernels read all the channels of a window, or over (kernel, bias, value) "
       "triples where the output is combined value by value with another image (a residual add fused into the "
       "convolution; an activation after it that reads the sum alone, relu(conv(x) + x), not relu(conv(x)) + x)" +
           pairs.substr(pairs.find(" (a depthwise")) +
           ", directly in the 2D map over slide2D's windows themselves or over dilated views of them (every e-th row and "
           "d-th column of each, as normal-form's dilated-windows-out leaves them)"},
      {"depthwise.sr", "conv-chw-tile-split",
       "its step `block-rows-split-form` applies nowhere: a work-group per block of output rows x kernels x group of "
       "channels (conv-block-rows-split, -activation, -dilated, -dilated-activation, -residual, -residual-activation), "
       "which needs a map over (kernel, bias) pairs whose kernels read all the channels of a window, or over (kernel, "
       "bias, value) triples where the output is combined value by value with another image (a residual add fused into "
       "the convolution)" +
           pairs.substr(pairs.find(" (a depthwise")) +
           ", directly in the 2D map over slide2D's windows themselves or over dilated views of them (every e-th row and "
           "d-th column of each, as normal-form's dilated-windows-out leaves them)"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.form) + " " + c.strategy);
    try {
      rewrite_program(library(), c.strategy, program(example(std::string("conv/forms/") + c.form)));
      ADD_FAILURE() << "the strategy applied";
    } catch (const Error& e) {
      EXPECT_EQ(e.message(), "strategy `" + std::string(c.strategy) + "` does not apply to any definition of <test> (" +
                                 c.why + ")");
    }
  }
}

// conv-depthwise-kappa, conv-depthwise-tile and conv-depthwise-local on a convolution that is
// not depthwise (a dense one, a grouped one) stop at their named step, which says what a
// depthwise convolution is and how it may be written (the forms normal-form recognises), and
// where a dense or grouped one goes instead.
TEST(Strategy, AConvolutionThatIsNotDepthwiseIsToldWhatTheDepthwiseStrategiesNeed) {
  const std::string depthwise =
      "which needs a depthwise convolution: each channel convolved with its own kernel, a map over (kernel, "
      "bias, channel window) triples";
  const std::string written =
      " (written per pixel over zip(weights, biases, channels), channel-first over each "
      "channel's windows (a 2D map over them, map2D, each output pixel's one-element result joined into its row or not), "
      "with the pairs or triples in any order or nested, the windows and kernels [K][K] blocks or "
      "columns of flattened HWC blocks, or each window times [K][K][C] kernels element-wise, zip2D, summed per channel; "
      "m kernels a channel, [C][m][K][K] weights, a channel multiplier; dilated windows, join(slide(1, d, ...))); "
      "a dense convolution's kernels read all the channels (";
  struct Case {
    const char* strategy;
    std::string why;
  };
  for (const Case& c :
       {Case{"conv-depthwise-kappa", "its step `depthwise-channel-groups-form` applies nowhere: kappa channels per reduction "
                                     "(depthwise-channel-groups, -activation), " + depthwise + written +
                                         "its strategies are the conv-chw and conv-gemm ones) and a grouped convolution's a "
                                         "group of them"},
        Case{"conv-depthwise-tile", "its step `depthwise-register-tile-form` applies nowhere: sigma windows x kappa channels "
                                    "per reduction (depthwise-register-tile, -activation), " + depthwise +
                                        " directly in the map over a row's windows" + written +
                                        "its register tile is conv-chw-tile's) and a grouped convolution's a group of them"},
        Case{"conv-depthwise-local",
             "its step `depthwise-local-tiles-form` applies nowhere: a work-group per block of tau windows of a row (or of "
             "eta rows) x gamma channels with its input tile in local memory (depthwise-local-tiles, -activation, or -2d, "
             "-2d-activation), " + depthwise +
                 " directly in the 2D map over slide2D's windows (written per pixel over zip(weights, biases, channels), "
                 "channel-first over each channel's windows (a 2D map over them, map2D, each output pixel's one-element "
                 "result joined into its row or not), with the pairs or triples in any order or nested, the windows "
                 "and kernels [K][K] blocks or columns of flattened HWC blocks, or each window times [K][K][C] kernels "
                 "element-wise, zip2D, summed per channel; dilated windows, join(slide(1, d, ...)), the tiles those of the "
                 "wider windows), one kernel a channel (m kernels a channel, [C][m][K][K] weights, a channel multiplier: "
                 "conv-depthwise-tile and conv-depthwise-kappa); a dense convolution's kernels read all the channels (its "
                 "local-memory tiles are conv-chw-tile-local's) and a grouped convolution's a group of them"}})
    for (const char* form : {"conv/conv_small.sr", "conv/forms/grouped.sr"}) {
      SCOPED_TRACE(std::string(c.strategy) + " " + form);
      try {
        rewrite_program(library(), c.strategy, program(example(form)));
        ADD_FAILURE() << "the strategy applied";
      } catch (const Error& e) {
        EXPECT_EQ(e.message(), fmt::format("strategy `{}` does not apply to any definition of <test> ({})", c.strategy, c.why));
      }
    }
}

// The strategies of a depthwise convolution fused with its pointwise one (explore's fused
// layer; rules/depthwise_pointwise.rules) on a program that is not one (a depthwise
// convolution alone, a dense one, the pointwise layer alone) stop at their named step, which
// says what the fused definition is and where it comes from. One row a (program, strategy).
TEST(Strategy, AProgramThatIsNotDepthwiseThenPointwiseIsToldWhatTheFusedStrategiesNeed) {
  const std::string needs =
      "which needs a depthwise convolution fused with the pointwise (1x1) one that reads it: a 2D map over windows whose "
      "function lets the window's depthwise values (a map over (kernel, bias, channel window) triples) and computes the "
      "pointwise sums from them (a map over (kernel, bias) pairs), each sum possibly combined with another image's value "
      "(a residual add); explore makes it of a network's depthwise layer and its pointwise consumer (--fusion on or "
      "only; under --storage half it rounds the depthwise values to halves, roundHalf, as the network stores them), "
      "HWC or channel-first (inside the transposes back to CHW)";
  const std::string priv = "its step `dw-pw-private-form` applies nowhere: the depthwise values of a window in private "
                           "memory (dw-pw-private, -residual, -chw), " + needs;
  const std::string local = "its step `dw-pw-local-form` applies nowhere: a work-group per tile of windows with their "
                            "depthwise values in local memory (dw-pw-local-tiles, -residual, -chw), " + needs;
  const std::string pointwise = "size H = 4, W = 4, C = 8, M = 4\ninput image : [[[float]C]W]H\ninput pw_w : "
                                "[[float]C]M\ninput pw_b : [float]M\ndef pw = map2D(px -> join(map((w, b) -> reduce(b, "
                                "(acc, p) -> acc + p.0 * p.1, zip(px, w)), zip(pw_w, pw_b))), image)";
  struct Case {
    std::string program;
    const char* strategy;
    const std::string& why;
  };
  for (const Case& c : {Case{example("conv/forms/depthwise.sr"), "conv-dw-pw-private", priv},
                        Case{example("conv/conv_small.sr"), "conv-dw-pw-local", local},
                        Case{pointwise, "conv-dw-pw-private", priv}, Case{pointwise, "conv-dw-pw-local", local}}) {
    SCOPED_TRACE(c.strategy);
    try {
      rewrite_program(library(), c.strategy, program(c.program));
      ADD_FAILURE() << "the strategy applied";
    } catch (const Error& e) {
      EXPECT_EQ(e.message(), "strategy `" + std::string(c.strategy) + "` does not apply to any definition of <test> (" +
                                 c.why + ")");
    }
  }
}

// conv-depthwise-kappa on a depthwise convolution fused with its pointwise one (explore's fused
// layers, HWC, channel-first, with the residual add; the add written in one definition) stops
// at unfused-depthwise-form, which says why (its channel groups on work-items would compute
// the let's values that the others read) and names the fused strategies. Before that step it
// was offered them with no valid point (code generation refused every one: a data race).
TEST(Strategy, ADepthwiseConvolutionFusedWithItsPointwiseOneIsToldConvDepthwiseKappaIsNotForIt) {
  const std::string why =
      "its step `unfused-depthwise-form` applies nowhere: a depthwise convolution whose channels' values are not "
      "let-bound for a pointwise one (no dw-pw-values), which conv-depthwise-kappa needs to put its channel groups on "
      "work-items of global dimension 2: a depthwise convolution fused with its pointwise one lets each window's "
      "depthwise values and reads all of them in every pointwise sum, values that work-items of other channel groups "
      "would compute (a data race); its strategies are conv-dw-pw-private and conv-dw-pw-local";
  for (const char* form : {"conv/fused/depthwise_pointwise.sr", "conv/fused/depthwise_pointwise_chw.sr",
                           "conv/fused/depthwise_pointwise_residual.sr",
                           "conv/forms/depthwise_pointwise_residual_zip2d.sr",
                           "conv/forms/depthwise_pointwise_residual_pair.sr",
                           "conv/forms/depthwise_pointwise_residual_value_first.sr"}) {
    SCOPED_TRACE(form);
    try {
      rewrite_program(library(), "conv-depthwise-kappa", program(example(form)));
      ADD_FAILURE() << "the strategy applied";
    } catch (const Error& e) {
      EXPECT_EQ(e.message(), "strategy `conv-depthwise-kappa` does not apply to any definition of <test> (" + why + ")");
    }
    EXPECT_FALSE(rewrite_program(library(), "conv-dw-pw-private", program(example(form))).programs.empty());
  }
}

// conv-pool-tile, conv-pool-kappa and conv-pool-tile-rt (rules/conv_pool.rules) on a program that is not a
// convolution fused with its pooling (a convolution alone, a depthwise one; its pooling as a
// second definition, over slide2D's windows or tile2D's tiles, which explore fuses; a 3x3
// pooling with stride 2, whose windows overlap) stop at their named step, which says what the
// fused form is and where it comes from. One row a program.
TEST(Strategy, AProgramThatIsNotAConvolutionAndItsPoolingIsToldWhatConvPoolTileNeeds) {
  const std::string why =
      "its step `conv-pool-form` applies nowhere: each pooling window's convolution outputs in a work-item's private "
      "memory (pool-window-private), which needs a convolution fused with the pooling that reads it: a 2D map over "
      "non-overlapping windows (2x2 with stride 2, any p x q with steps p and q, or tile2D's p x q tiles) of a "
      "convolution's output, in one definition (normal-form computes the convolution's outputs inside each pooling "
      "window, pool-windows-of-conv) or as two layers that explore fuses (--fusion on or only) when nothing else reads "
      "the convolution's output";
  const std::string kappa_why =
      "its step `pool-channels-form` applies nowhere: the pooling per channel outside the convolution's kernels "
      "(pool-channels-out, -unjoined), which needs a convolution fused with the pooling that reads it (as "
      "conv-pool-form) whose pooling reduces each channel over the window (a max or average pooling: map(c -> reduce(..., "
      "c), transpose(join(window))), its one-element results joined per pooled pixel or not, or map(ch -> reduce(..., "
      "join(ch)), transpose(map(transpose, window)))) and whose convolution computes one sum per (kernel, bias) pair, "
      "with an activation after it or none";
  const std::string rt_why =
      "its step `pool-register-tile-form` applies nowhere: sigma pooled pixels x kappa kernels per reduction step "
      "(pool-register-tile, -unjoined, -blocks), which needs a convolution fused with the pooling that reads it (as "
      "conv-pool-form) whose pooling reduces each channel over the window (a max or average pooling: map(c -> reduce(..., "
      "c), transpose(join(window))), its one-element results joined per pooled pixel or not, or map(ch -> reduce(..., "
      "join(ch)), transpose(map(transpose, window)))) and whose convolution computes, per (kernel, bias) pair, one "
      "multiply-accumulate from the bias over the window and the kernel flattened (reduce(b, (acc, p) -> acc + p.0 * "
      "p.1, zip(join(join(window)), join(join(w))))), with an activation after it or none";
  for (const std::string& text : {example("conv/conv_small.sr"), example("conv/forms/depthwise.sr")}) {
    try {
      rewrite_program(library(), "conv-pool-kappa", program(text));
      ADD_FAILURE() << "the strategy applied";
    } catch (const Error& e) {
      EXPECT_EQ(e.message(), "strategy `conv-pool-kappa` does not apply to any definition of <test> (" + kappa_why + ")");
    }
    try {
      rewrite_program(library(), "conv-pool-tile-rt", program(text));
      ADD_FAILURE() << "the strategy applied";
    } catch (const Error& e) {
      EXPECT_EQ(e.message(), "strategy `conv-pool-tile-rt` does not apply to any definition of <test> (" + rt_why + ")");
    }
  }
  std::string overlapping = example("conv/forms/conv_pool_one_definition.sr");
  overlapping.replace(overlapping.find("slide2D(2, 2, 2, 2,"), 19, "slide2D(3, 3, 2, 2,");
  struct Case {
    std::string program;
    std::string why;  // per definition where there are two
  };
  for (const Case& c : {Case{example("conv/conv_small.sr"), why}, Case{overlapping, why},
                        Case{example("conv/forms/conv_pool.sr"), "conv: " + why + "; pooled: " + why},
                        Case{example("conv/forms/conv_pool_tile2d_layers.sr"), "features: " + why + "; pooled: " + why}}) {
    try {
      rewrite_program(library(), "conv-pool-tile", program(c.program));
      ADD_FAILURE() << "the strategy applied";
    } catch (const Error& e) {
      EXPECT_EQ(e.message(), "strategy `conv-pool-tile` does not apply to any definition of <test> (" + c.why + ")");
    }
  }
}

// rows-omega is offered only where a definition is rows of sums at its root (the SE block's
// pooling, a matrix-vector product): a convolution, a matrix product, a max pooling per
// channel (its reduction is no sum) and a pooling over windows are told what it needs.
TEST(Strategy, WhatIsNotRowsOfSumsIsToldWhatRowsOmegaNeeds) {
  const std::string why =
      "its step `row-partial-sums-form` applies nowhere: each row's sum as omega partial sums over strided chunks "
      "(reduce-split-strided), computed by a kernel of their own and summed after (row-partial-sums-out, -activation, "
      "row-pair-partial-sums-out, -activation) or by a work-group per row, which needs a definition whose value is the "
      "join of a map over rows or "
      "(row, bias) pairs (or that map, its one-element sums not joined), each a sum (a + reduction: a channel over the pixels, a row's multiply-accumulate with a "
      "vector) from a start that no row changes or from its bias, an element-wise function after it or none (a "
      "convolution's sums sit in its map over windows: its omega partial sums are conv-chw-omega's; a matrix "
      "product's in its map over each row's columns: matmul-parametric splits them)";
  const std::string max_rows = R"(size H = 4, W = 4, C = 8
input image : [[[float]C]W]H
def pooled = join(map(ch -> reduce(-1000000.0, (acc, v) -> max(acc, v), ch), transpose(join(image))))
)";
  for (const std::string& text : {example("conv/conv_small.sr"), example("matmul.sr"), example("maxpool_floor.sr"), max_rows}) {
    try {
      rewrite_program(library(), "rows-omega", program(text));
      ADD_FAILURE() << "the strategy applied\n" << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.message(), "strategy `rows-omega` does not apply to any definition of <test> (" + why + ")");
    }
  }
  // Where it applies: three alternatives per definition of rows of sums (rows or chunks on
  // global dimension 0, or a work-group per row), two for rows without a function after their
  // sums (matvec_no_bias.sr's output layer: no work-group per row), combined over a program's
  // definitions; the same where each layer adds its bias after the sum, inside its activation
  // (normal-form makes it the sum's start: bias-into-reduce-activation), and where the rows'
  // one-element sums are not joined (one-element-results-joined: split(1, ...) of their join),
  // and where the bias is added by a pass over the joined sums (bias-pass-into-rows-values-first).
  for (const auto& [file, alternatives] :
       std::vector<std::pair<const char*, std::size_t>>{{"fully_connected.sr", 3},
                                                        {"matvec_no_bias.sr", 6},
                                                        {"networks/se_block.sr", 27},
                                                        {"fully_connected_tanh.sr", 3},
                                                        {"networks/se_block_bias_after_sum.sr", 27},
                                                        {"fully_connected_unjoined.sr", 3},
                                                        {"fully_connected_bias_pass.sr", 3}})
    EXPECT_EQ(rewrite_program(library(), "rows-omega", program(example(file))).programs.size(), alternatives) << file;
}

// The strategies whose kernels or work-groups cover the whole image, on a convolution and its
// pooling in one definition, stop at unpooled-conv-form, which says why and names the
// strategy that takes it.
TEST(Strategy, AConvolutionAndItsPoolingInOneDefinitionIsToldWhyTheWholeImageStrategiesDoNotApply) {
  const std::string why =
      "its step `unpooled-conv-form` applies nowhere: a convolution whose outputs are computed over the whole image (no "
      "pooled-conv-windows), which partial sums, im2col and local-memory tiles computed by kernels or work-groups of "
      "their own need, and kernels or channel groups put on a global dimension of their own (conv-naive, conv-gpu, "
      "conv-gpu-k0, conv-depthwise-kappa: each work-item would pool channels other work-items compute): a convolution fused with the pooling that reads it (a 2D map over non-overlapping windows of its "
      "output, in one definition or as two layers explore fuses) computes its outputs inside each pooling window, by a "
      "work-item each; its strategies are conv-pool-tile, conv-pool-kappa and conv-pool-tile-rt (a convolution pooled "
      "in its own definition is split by liftc explore into the convolution, which every dense strategy takes, and the "
      "pooling over it, with the two fused back as an alternative)";
  for (const char* strategy : {"conv-local", "conv-chw-tile-local", "conv-chw-tile-split", "conv-chw-omega-kappa",
                               "conv-gemm", "conv-winograd-local"}) {
    SCOPED_TRACE(strategy);
    try {
      rewrite_program(library(), strategy, program(example("conv/forms/conv_pool_one_definition.sr")));
      ADD_FAILURE() << "the strategy applied";
    } catch (const Error& e) {
      EXPECT_EQ(e.message(), "strategy `" + std::string(strategy) + "` does not apply to any definition of <test> (" +
                                 why + ")");
    }
  }
  // A depthwise convolution and its 2x2 max pooling in one definition: conv-depthwise-kappa's
  // channel groups on a global dimension of their own would each pool the channels of the
  // others inside the pooling window's sequential loop (code generation refused it: "the
  // values that mapGlb(2) computes inside a sequential loop (mapSeq) are read, with the
  // loop's other values, by other work-items"); it is told why as the others are.
  try {
    rewrite_program(library(), "conv-depthwise-kappa", program(R"(size C = 4, H = 6, W = 6
input image : [[[float]C]W]H
input kernels : [[[float]3]3]C
input biases : [float]C
def pooled = map2D(win -> join(map(c -> reduce(-inf, (a, v) -> max(a, v), c), transpose(join(win)))),
  slide2D(2, 2, 2, 2, map2D(w -> join(map((k, b, ch) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(join(ch), join(k))),
                                          zip(kernels, biases, transpose(map(transpose, w))))),
                            slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, image)))))
)"));
    ADD_FAILURE() << "conv-depthwise-kappa applied";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "strategy `conv-depthwise-kappa` does not apply to any definition of <test> (" + why + ")");
  }
}

// Every form of examples/conv/forms/ is offered the strategies conv/conv_small.sr is, except
// the pairs forms_not_offered() lists with their reason (rules/README.md's table), and is
// offered the strategies of its own kind that forms_only_offered() lists (conv-depthwise-kappa,
// conv-depthwise-tile and, but for a channel multiplier, conv-depthwise-local for the depthwise forms,
// conv-pool-tile, conv-pool-kappa and conv-pool-tile-rt for the pooled forms (conv_pool_one_definition.sr,
// conv_pool_joined.sr, conv_pool_tile2d.sr, _let.sr), conv-dw-pw-private and conv-dw-pw-local
// for depthwise_pointwise_residual_zip2d.sr, _pair.sr and _value_first.sr, stencil1d-tiled for
// conv1d.sr and conv1d_joined_relu.sr, 1-D stencils; conv_small.sr, a dense convolution alone, is offered none).
TEST(Forms, OfferedTheStrategiesOfTheCanonicalConvolution) {
  std::vector<std::string> canonical = offered_strategies(example("conv/conv_small.sr"));
  EXPECT_GE(canonical.size(), 16u);
  std::vector<std::string> forms = conv_forms();
  EXPECT_GE(forms.size(), 12u);
  for (const auto& form : forms) {
    SCOPED_TRACE(form);
    std::vector<std::string> want;
    for (const auto& s : canonical)
      if (std::none_of(forms_not_offered().begin(), forms_not_offered().end(),
                       [&](const NotOffered& n) { return form == n.form && s == n.strategy; }))
        want.push_back(s);
    for (const OnlyOffered& o : forms_only_offered())
      if (form == o.form) want.push_back(o.strategy);
    std::vector<std::string> got = offered_strategies(example("conv/forms/" + form));
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want);
  }
}

// Every strategy a form of examples/conv/forms/ is not offered (forms_not_offered(), and
// conv-depthwise-kappa, conv-depthwise-tile and conv-depthwise-local for every form that is not
// depthwise (conv-depthwise-local for a channel multiplier's too), conv-pool-tile,
// conv-pool-kappa and conv-pool-tile-rt for every form that is not a convolution and its pooling in one definition,
// conv-dw-pw-private and conv-dw-pw-local for every form that is not a depthwise convolution fused
// with its pointwise one) is refused with a reason in a
// user's terms: the step that applied nowhere is a named one, whose description says what a
// convolution needs for it ("... which needs a convolution over 3x3 windows with stride 1 ..."),
// never a rewrite expression such as `topdown(hoist-kernels)` or `where(windows-2D)`.
TEST(Forms, EveryStrategyNotOfferedSaysWhyInAUsersTerms) {
  const std::regex named_step("its step `[A-Za-z0-9-]+` applies nowhere: \\S");
  std::vector<std::pair<std::string, std::string>> refused;
  for (const NotOffered& n : forms_not_offered()) refused.emplace_back(n.form, n.strategy);
  for (const auto& form : conv_forms())
    for (const char* own : {"conv-depthwise-kappa", "conv-depthwise-tile", "conv-depthwise-local", "conv-pool-tile",
                            "conv-pool-kappa", "conv-pool-tile-rt", "conv-dw-pw-private", "conv-dw-pw-local"})
      if (std::none_of(forms_only_offered().begin(), forms_only_offered().end(),
                       [&](const OnlyOffered& o) { return o.form == form && std::string_view(o.strategy) == own; }))
        refused.emplace_back(form, own);
  EXPECT_GE(refused.size(), 100u);
  for (const auto& [form, strategy] : refused) {
    SCOPED_TRACE(form + " " + strategy);
    try {
      rewrite_program(library(), strategy, program(example("conv/forms/" + form)));
      ADD_FAILURE() << "the strategy applied";
    } catch (const Error& e) {
      EXPECT_TRUE(std::regex_search(e.message(), named_step)) << e.message();
    }
  }
}

// liftc explore interprets a Winograd program's magnitude (its computation on absolute
// values, which sets the validation's allowance) once per strategy and set of constant
// arrays, on the alternative with the fewest tuning parameters (Evaluator::
// magnitude_allowance): alternatives that regroup and map the same sums give the same
// magnitude. conv-winograd-gemm on conv_small.sr: F(2x2) (alternatives 1-3: one product per
// work-item, a register tile, a dealt-out tile) and F(4x4) (4-6), and conv-winograd-local's
// F(2x2) and F(4x4) (local-memory blocks), each transform's alike to float rounding, and
// the two transforms' magnitudes apart.
TEST(WinogradMagnitude, AlternativesWithTheSameTransformsHaveTheSameMagnitude) {
  ir::Program original = program(example("conv/conv_small.sr"));
  RewriteOptions options;
  options.budget.max_alternatives = 16;
  std::vector<RewrittenProgram> alternatives = rewrite_program(library(), "conv-winograd-gemm", original, options).programs;
  for (auto& p : rewrite_program(library(), "conv-winograd-local", original, options).programs)
    alternatives.push_back(std::move(p));
  ASSERT_EQ(alternatives.size(), 8u);
  std::mt19937_64 rng(5);
  interp::Tensors inputs;
  std::vector<double> largest;
  for (const auto& alt : alternatives) {
    std::vector<Instance> found = instances(original, alt, 1, rng);
    ASSERT_EQ(found.size(), 1u);
    if (inputs.empty()) inputs = interp::random_inputs(found[0].original, 9);
    double most = 0;
    for (const auto& [name, t] : interp::evaluate_magnitude(found[0].rewritten, inputs))
      for (float v : t.f32) most = std::max(most, static_cast<double>(v));
    largest.push_back(most);
  }
  for (std::size_t a : {1u, 2u, 4u, 5u, 6u, 7u}) {
    const std::size_t first = a == 6 ? 0 : a == 7 ? 3 : a < 3 ? 0 : 3;
    EXPECT_NEAR(largest[a], largest[first], 1e-5 * largest[first]) << "alternative " << a + 1;
  }
  EXPECT_GT(std::abs(largest[3] - largest[0]), 1e-3 * largest[0]);
}

TEST(Strategy, ExhaustiveChoiceKeepsEveryAlternative) {
  ProgramRewrite r = rewrite_program(library(), "anywhere(map-to-mapSeq) | anywhere(map-fusion)", program(kMaps));
  EXPECT_EQ(r.programs.size(), 5u);
}

TEST(Strategy, TraceLogsEachRuleAsItFires) {
  std::vector<std::string> lines;
  RewriteOptions o;
  o.trace = [&](const std::string& l) { lines.push_back(l); };
  rewrite_program(library(), "normalize(map-fusion)", program(kMaps), o);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("[out] map-fusion at root: ", 0), 0u) << lines[0];
}

TEST(Strategy, FailingEverywhereIsAnError) {
  EXPECT_THROW(rewrite_program(library(), "transpose-transpose", program(kMaps)), Error);
}

}  // namespace
}  // namespace liftc::rewrite::test
