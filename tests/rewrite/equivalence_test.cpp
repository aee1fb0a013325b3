// Every rule of rules/ preserves meaning: for each, a small program it applies to is
// interpreted on random sizes, tuning parameters and data before and after one
// application, and the outputs agree. A rule without a case here fails CoverageIsComplete.

#include <set>

#include <gtest/gtest.h>

#include "harness.hpp"

namespace liftc::rewrite::test {
namespace {

struct RuleCase {
  const char* rule;
  const char* program;  // .sr text; symbolic sizes get random values
};

const char* const kVec = "size N\ninput x : [float]N\ninput y : [float]N\n";
const char* const kMat = "size N, M\ninput x : [[float]M]N\n";

std::string with(const char* header, const char* def) { return std::string(header) + def; }

// The normal-form 3x3, stride 1, padding 1 convolution (rules/normalize.rules) at random
// sizes: the Winograd rules' left side.
const char* const kConv3x3 =
    "size H, W, C, M\ninput weights : [[[[float]C]3]3]M\ninput biases : [float]M\ninput image : [[[float]C]W]H\n"
    "def out = map2D(window -> map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(join(join(window)), join(join(w)))), "
    "zip(weights, biases)), slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, image)))";

// winograd-kernel-groups' left side: the map over (transformed kernel, bias) pairs of one
// tile, each pair's alpha^2 channel sums in private memory, then the output transform (here
// an input t instead of winograd-f2x2's constants: any matrix, so the default agreement).
const char* const kWinogradProducts =
    "size A, C, M, R\ninput v : [[float]C]A\ninput us : [[[float]C]A]M\ninput bs : [float]M\ninput t : [[float]A]R\n"
    "def out = map((u, b) -> let mk = toPrivate(z -> map(uv -> reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(uv.0, uv.1)), z), "
    "zip(u, v)) in split(2, map(a -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(a, join(mk))), t)), zip(us, bs))";

// kConv3x3 with a leaky ReLU after each sum: the Winograd activation variants' left side.
const char* const kConv3x3Activation =
    "size H, W, C, M\ninput weights : [[[[float]C]3]3]M\ninput biases : [float]M\ninput image : [[[float]C]W]H\n"
    "def out = map2D(window -> map((w, b) -> map(v -> select(v > 0.0, v, 0.1 * v), reduce(b, (acc, p) -> acc + p.0 * p.1, "
    "zip(join(join(window)), join(join(w))))), zip(weights, biases)), slide2D(3, 3, 1, 1, pad2D(1, 1, 1, 1, 0.0, image)))";

// kWinogradProducts with a ReLU after each output value: winograd-kernel-groups-activation's left side.
const char* const kWinogradProductsActivation =
    "size A, C, M, R\ninput v : [[float]C]A\ninput us : [[[float]C]A]M\ninput bs : [float]M\ninput t : [[float]A]R\n"
    "def out = map((u, b) -> let mk = toPrivate(z -> map(uv -> reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(uv.0, uv.1)), z), "
    "zip(u, v)) in split(2, map(a -> map(x -> max(x, 0.0), reduce(b, (acc, p) -> acc + p.0 * p.1, zip(a, join(mk)))), t)), "
    "zip(us, bs))";

// winograd-register-tile's left side: the map over the tiles of one tile row, per tile the
// map over (transformed kernel, bias) pairs as winograd-f2x2 writes it (kWinogradProducts'
// body; t any matrix, so the default agreement).
const char* const kWinogradTiles =
    "size A, C, M, R, N\ninput vr : [[[float]C]A]N\ninput us : [[[float]C]A]M\ninput bs : [float]M\ninput t : [[float]A]R\n"
    "def out = map(v -> map(q -> transpose(q), transpose(map((u, b) -> let mk = toPrivate(z -> map(uv -> reduce(0.0, "
    "(acc, p) -> acc + p.0 * p.1, zip(uv.0, uv.1)), z), zip(u, v)) in split(2, map(a -> reduce(b, (acc, p) -> acc + p.0 * p.1, "
    "zip(a, join(mk))), t)), zip(us, bs)))), vr)";

// kWinogradTiles with a ReLU after each output value: winograd-register-tile-activation's left side.
const char* const kWinogradTilesActivation =
    "size A, C, M, R, N\ninput vr : [[[float]C]A]N\ninput us : [[[float]C]A]M\ninput bs : [float]M\ninput t : [[float]A]R\n"
    "def out = map(v -> map(q -> transpose(q), transpose(map((u, b) -> let mk = toPrivate(z -> map(uv -> reduce(0.0, "
    "(acc, p) -> acc + p.0 * p.1, zip(uv.0, uv.1)), z), zip(u, v)) in split(2, map(a -> map(x -> max(x, 0.0), reduce(b, "
    "(acc, p) -> acc + p.0 * p.1, zip(a, join(mk)))), t)), zip(us, bs)))), vr)";

// matmul-register-tile's left side: rows of x times rows of us, each sum from one start z
// (here an input, not 0.0: any start the rows do not mention).
const char* const kMatmul =
    "size N, C, M\ninput x : [[float]C]N\ninput us : [[float]C]M\ninput z : float\n"
    "def out = map(a -> map(u -> reduce(z, (acc, p) -> acc + p.0 * p.1, zip(a, u)), us), x)";

// matmul-chunk-to-local's left side: a reduction over pairs of matrix chunks ([N][CH] and
// [N][CH]), each step adding the products of the chunk's rows to an N x N accumulator.
const char* const kMatmulChunks =
    "size K, N, CH\ninput xs : [[[float]CH]N]K\ninput ys : [[[float]CH]N]K\ninput z : [[float]N]N\n"
    "def out = reduce(z, (a, c) -> map((ar, xr) -> join(map((ae, yr) -> reduce(ae, (s, p) -> s + p.0 * p.1, zip(xr, yr)), "
    "zip(ar, c.1))), zip(a, c.0)), zip(xs, ys))";

const std::vector<std::pair<std::string, std::string>>& cases() {
  static const std::vector<std::pair<std::string, std::string>> table = {
      // algorithmic.rules
      {"split-join", with(kVec, "def out = map(a -> a * 2.0 + 1.0, x)")},
      {"join-split", with(kVec, "def out = join(map(map(a -> a + 1.0), split(4, x)))")},
      {"join-split-id", with(kVec, "def out = join(split(3, x))")},
      {"map-join", with(kMat, "def out = map(a -> a * 3.0, join(x))")},
      {"transpose-transpose", with(kMat, "def out = transpose(transpose(x))")},
      {"map-transpose", with(kMat, "def out = map(map(a -> a - 1.0), transpose(x))")},
      {"map-id", with(kVec, "def out = map(a -> a, x)")},
      {"zip-map", with(kVec, "def out = map(p -> p.0 * p.1, zip(map(a -> a + 1.0, x), map(b -> b * 2.0, y)))")},
      {"reduce-split", with(kVec, "def out = reduce(0.5, (acc, p) -> acc + p.0 * p.1, zip(x, y))")},
      {"reorder-stride", with(kVec, "def out = map(a -> a * a + 1.0, x)")},
      {"hoist-kernels", "size N, M, P\ninput x : [[float]M]N\ninput ks : [float]P\ninput bs : [float]P\n"
                        "def out = map(r -> map(v -> map((k, b) -> v * k + b, zip(ks, bs)), r), x)"},
      // fusion.rules
      {"map-fusion", with(kVec, "def out = map(a -> a * 2.0, map(b -> b + 1.0, x))")},
      {"reduce-map-fusion", with(kVec, "def out = reduce(0.0, (acc, v) -> acc + v, map(b -> b * b, x))")},
      {"map-join-fusion", with(kMat, "def out = map(a -> max(a, 0.0), join(map(r -> map(b -> b * 2.0 - 1.0, r), x)))")},
      // vectorize.rules
      {"vectorize", with(kVec, "def out = map(a -> a * 2.0 + 1.0, x)")},
      {"dot-product", with(kVec, "def out = reduce(0.25, (acc, p) -> acc + p.0 * p.1, zip(x, y))")},
      {"dot-lanes", with(kVec, "def out = reduce(0.25, (acc, p) -> acc + p.0 * p.1, zip(x, y))")},
      // opencl.rules
      {"map-to-mapGlb", with(kMat, "def out = map(r -> map(a -> a + 1.0, r), x)")},
      {"map-to-mapWrg", with(kMat, "def out = map(r -> map(a -> a + 1.0, r), x)")},
      {"map-to-mapLcl", with(kMat, "def out = map(r -> map(a -> a + 1.0, r), x)")},
      {"map-to-mapSeq", with(kVec, "def out = map(a -> a + 1.0, x)")},
      {"reduce-to-reduceSeq", with(kVec, "def out = reduce(0.0, (acc, v) -> acc + v, x)")},
      {"mapSeq-to-private", with(kVec, "def out = mapSeq(a -> a + 1.0, x)")},
      {"mapLcl-to-local", with(kVec, "def out = mapLcl(0, a -> a + 1.0, x)")},
      {"mapGlb-to-global", with(kVec, "def out = mapGlb(0, a -> a + 1.0, x)")},
      {"mapWrg-to-global", with(kMat, "def out = mapWrg(0, r -> mapLcl(0, a -> a + 1.0, r), x)")},
      {"let-private", with(kVec, "def out = mapSeq(a -> a * 2.0, x)")},
      // tiling.rules
      {"slide-tiling", with(kVec, "def out = map(w -> reduce(0.0, (acc, v) -> acc + v, w), slide(3, 1, x))")},
      {"pad-for-tiling", with(kVec, "def out = map(w -> reduce(0.0, (acc, v) -> acc + v, w), slide(3, 2, x))")},
      {"slide2D-tiling", with(kMat, "def out = map2D(w -> reduce(0.0, (acc, v) -> acc + v, join(w)), slide2D(3, 3, 1, 1, x))")},
      {"tile-to-local", "size N, C\ninput x : [[[float]C]N]N\n"
                        "def out = mapLcl(1, r -> mapLcl(0, w -> reduceSeq(0.0, (a, v) -> a + v, join(join(w))), r), "
                        "map(q -> transpose(q), slide(3, 1, map(p -> slide(3, 1, p), x))))"},
      // direct_conv.rules
      {"reduce-nest", "size N, M, C\ninput x : [[[float]C]M]N\ninput y : [[[float]C]M]N\n"
                      "def out = reduce(0.5, (acc, p) -> acc + p.0 * p.1, zip(join(join(x)), join(join(y))))"},
      {"pad2D-chw-kernel", "size N, M, C\ninput x : [[[float]C]M]N\n"
                           "def out = map(r -> map(px -> map(v -> v * 2.0, px), r), pad2D(1, 2, 2, 1, 0.0, x))"},
      {"register-tile", "size N, C, P\ninput x : [[[[float]C]3]3]N\ninput ws : [[[[float]C]3]3]P\ninput bs : [float]P\n"
                        "def out = map(win -> map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, "
                        "zip(join(join(win)), join(join(w)))), zip(ws, bs)), x)"},
      {"register-tile-activation", "size N, C, P\ninput x : [[[[float]C]3]3]N\ninput ws : [[[[float]C]3]3]P\ninput bs : [float]P\n"
                                   "def out = map(win -> map((w, b) -> map(v -> max(v, 0.0), reduce(b, (acc, p) -> acc + p.0 * p.1, "
                                   "zip(join(join(win)), join(join(w))))), zip(ws, bs)), x)"},
      {"tile-weights-private", "size N, P\ninput x : [float]N\ninput ws : [float]P\n"
                               "def out = mapSeq(a -> mapSeq(kq -> kq.0 * a.1 + kq.1, zip(a.0, ws)), "
                               "zip(map(v -> map(k -> v + k, ws), x), x))"},
      {"tile-kernels-vectorize", "size N, P\ninput x : [float]N\ninput ws : [float]P\n"
                                 "def out = mapSeq(a -> mapSeq(kq -> kq.0 * a.1 + kq.1, zip(a.0, ws)), "
                                 "zip(map(v -> map(k -> v + k, ws), x), x))"},
      {"weights-kernel-minor", "size N, C, P\ninput x : [[[float]C]3]3\ninput ws : [[[[float]C]3]3]P\ninput bs : [float]P\n"
                               "def out = map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, "
                               "zip(join(join(x)), join(join(w)))), zip(ws, bs))"},
      {"dot-operands-in-order", with(kVec, "def out = reduce(0.5, (acc, p) -> acc + p.1 * p.0, zip(x, y))")},
      {"kernels-activation-out", "size N, P\ninput x : [float]N\ninput ws : [[float]N]P\ninput bs : [float]P\n"
                                 "def out = map((w, b) -> map(v -> max(v, 0.0), reduce(b, (acc, p) -> acc + p.0 * p.1, "
                                 "zip(x, w))), zip(ws, bs))"},
      {"kernel-groups-into-reduction", "size N, C, P\ninput x : [[[float]C]N]N\ninput ws : [[[[float]C]N]N]P\ninput bs : [float]P\n"
                                       "def out = map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, "
                                       "zip(join(join(x)), join(join(w)))), zip(ws, bs))"},
      // partial_sums.rules (C is a multiple of omega in some instances, others are infeasible
      // and drawn again: the harness solves the split's divisibility)
      {"reduce-channel-chunks", "size N, M, C\ninput x : [[[float]C]M]N\ninput y : [[[float]C]M]N\n"
                                "def out = reduce(0.5, (acc, p) -> acc + p.0 * p.1, zip(join(join(x)), join(join(y))))"},
      {"map2D-flatten", with(kMat, "def out = map(r -> map(a -> a * 2.0 + 1.0, r), x)")},
      {"partial-sums-out", "size N, P, Q\ninput x : [[float]Q]N\ninput ws : [[float]Q]P\ninput bs : [float]P\n"
                           "def out = map(win -> map((w, b) -> reduce(b, (a, e) -> a + e, join(map(c -> "
                           "reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(win, c)), split(Q, w)))), zip(ws, bs)), x)"},
      {"partial-sums-out-activation", "size N, P, Q\ninput x : [[float]Q]N\ninput ws : [[float]Q]P\ninput bs : [float]P\n"
                                      "def out = map(win -> map((w, b) -> map(v -> max(v, 0.0), reduce(b, (a, e) -> a + e, "
                                      "join(map(c -> reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(win, c)), split(Q, w))))), "
                                      "zip(ws, bs)), x)"},
      {"reduceSeq-init-private", with(kMat, "def out = mapGlb(0, r -> reduceSeq(mapSeq(a -> 0.0, split(M, r)), "
                                            "(acc, v) -> mapSeq(t -> t + v, acc), r), x)")},
      {"reduce-channel-chunks-kappa", "size N, M, C, P\ninput x : [[[float]C]M]N\ninput y : [[[[float]P]C]M]N\n"
                                      "input z : [float]P\n"
                                      "def out = reduce(z, (accs, q) -> map(t -> t.0 + q.0 * t.1, zip(accs, q.1)), "
                                      "zip(join(join(x)), join(join(y))))"},
      {"partial-sums-out-kappa", "size N, P, Q\ninput x : [[float]Q]N\ninput ws : [[float]Q]P\ninput bs : [float]P\n"
                                 "def out = map(win -> join(map(g -> split(1, join(reduce(map((w, b) -> b, g), "
                                 "(a, e) -> map(t -> t.0 + t.1, zip(a, e)), join(map(v -> split(2, map((w, b) -> v * b, g)), win))))), "
                                 "split(2, zip(ws, bs)))), x)"},
      {"partial-sums-out-kappa-activation", "size N, P, Q\ninput x : [[float]Q]N\ninput ws : [[float]Q]P\ninput bs : [float]P\n"
                                            "def out = map(win -> join(map(g -> map(y -> map(v -> max(v, 0.0), y), split(1, join("
                                            "reduce(map((w, b) -> b, g), (a, e) -> map(t -> t.0 + t.1, zip(a, e)), "
                                            "join(map(v -> split(2, map((w, b) -> v * b - 1.0, g)), win)))))), split(2, zip(ws, bs)))), x)"},
      {"group-activation-seq", with(kVec, "def out = map(y -> map(v -> max(v, 0.0), y), split(1, x))")},
      {"reduce-accumulate-seq", "size N, P\ninput x : [float]N\ninput z : [float]P\n"
                                "def out = reduce(z, (a, e) -> map(t -> t * e, a), x)"},
      {"map-one-to-mapSeq", with(kVec, "def out = map(v -> v * 3.0, reduce(0.0, (acc, a) -> acc + a, x))")},
      // shapes.rules (they rewrite nothing: the case shows each matches its shape)
      {"kernel-pairs", "size N, C, P\ninput x : [float]C\ninput ws : [[float]C]P\ninput bs : [float]P\n"
                       "def out = map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(x, w)), zip(ws, bs))"},
      {"kernel-groups", "size C, P\ninput x : [float]C\ninput ws : [[float]C]P\ninput bs : [float]P\n"
                        "def out = map(g -> map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(x, w)), g), "
                        "split(2, zip(ws, bs)))"},
      {"channel-kernels", "size C, K\ninput x : [[float]K]C\ninput ws : [[float]K]C\ninput bs : [float]C\n"
                          "def out = map(t -> reduce(t.1, (acc, p) -> acc + p.0 * p.1, zip(t.2, t.0)), zip(ws, bs, x))"},
      {"channel-kernel-groups", "size K\ninput x : [[float]K]4\ninput ws : [[float]K]4\ninput bs : [float]4\n"
                                "def out = map(g -> map(t -> reduce(t.1, (acc, p) -> acc + p.0 * p.1, zip(t.2, t.0)), g), "
                                "split(2, zip(ws, bs, x)))"},
      {"windows-2D", with(kMat, "def out = map2D(w -> reduce(0.0, (acc, v) -> acc + v, join(w)), slide2D(3, 3, 1, 1, x))")},
      // normalize.rules
      {"let-inline-layout", with(kMat, "def out = let t = transpose(x) in map(p -> map(q -> q.0 * q.1 + 1.0, zip(p.0, p.1)), zip(t, t))")},
      {"let-inline-once", with(kVec, "def out = let s = reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(x, y)) in map(v -> v + 1.0, s)")},
      {"sum-of-sums", "size N, M, C\ninput x : [[[float]C]M]N\ninput y : [[[float]C]M]N\n"
                      "def out = reduce(0.5, (acc, v) -> acc + v, join(map((u, v) -> reduce(0.0, (c, p) -> c + p.0 * p.1, "
                      "zip(join(u), join(v))), zip(x, y))))"},
      {"join-of-joins", "size N, M, C\ninput x : [[[float]C]M]N\ndef out = join(map(r -> join(r), x))"},
      {"mac-acc-left", with(kVec, "def out = reduce(0.5, (acc, p) -> p.1 * p.0 + acc, zip(x, y))")},
      {"kernel-operand-second", "size C, P\ninput x : [[[float]C]2]2\ninput ws : [[[[float]C]2]2]P\ninput bs : [float]P\n"
                                "def out = map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(join(join(w)), join(join(x)))), "
                                "zip(ws, bs))"},
      {"kernel-operand-second-activation", "size C, P\ninput x : [[[float]C]2]2\ninput ws : [[[[float]C]2]2]P\ninput bs : [float]P\n"
                                           "def out = map((w, b) -> map(v -> max(v, 0.0), reduce(b, (acc, p) -> acc + p.0 * p.1, "
                                           "zip(join(join(w)), join(join(x))))), zip(ws, bs))"},
      {"kernel-operand-second-no-bias", "size C, P\ninput x : [[[float]C]2]2\ninput ws : [[[[float]C]2]2]P\n"
                                        "def out = map(w -> reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(join(join(w)), join(join(x)))), ws)"},
      {"kernel-operand-second-no-bias-activation",
       "size C, P\ninput x : [[[float]C]2]2\ninput ws : [[[[float]C]2]2]P\n"
       "def out = map(w -> map(v -> max(v, 0.0), reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(join(join(w)), join(join(x))))), ws)"},
      {"kernel-transpose-out-of-pairs",
       "size C, P\ninput x : [[[float]C]3]2\ninput ws : [[[[float]C]2]3]P\ninput bs : [float]P\n"
       "def out = map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(join(join(x)), join(join(transpose(w))))), zip(ws, bs))"},
      {"kernel-transpose-out-of-pairs-activation",
       "size C, P\ninput x : [[[float]C]3]2\ninput ws : [[[[float]C]2]3]P\ninput bs : [float]P\n"
       "def out = map((w, b) -> map(v -> max(v, 0.0), reduce(b, (acc, p) -> acc + p.0 * p.1, zip(join(join(x)), "
       "join(join(transpose(w)))))), zip(ws, bs))"},
      {"kernel-channels-last-out-of-pairs",
       "size C, P\ninput x : [[[float]C]3]2\ninput ws : [[[[float]3]2]C]P\ninput bs : [float]P\n"
       "def out = map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(join(join(x)), join(join(map(transpose, transpose(w)))))), "
       "zip(ws, bs))"},
      {"kernel-channels-last-out-of-pairs-activation",
       "size C, P\ninput x : [[[float]C]3]2\ninput ws : [[[[float]3]2]C]P\ninput bs : [float]P\n"
       "def out = map((w, b) -> map(v -> min(max(v, 0.0), 6.0), reduce(b, (acc, p) -> acc + p.0 * p.1, zip(join(join(x)), "
       "join(join(map(transpose, transpose(w))))))), zip(ws, bs))"},
      {"window-flatten-order", "size N, M, C\ninput x : [[[float]C]M]N\ninput y : [[[float]C]M]N\n"
                               "def out = reduce(0.5, (acc, p) -> acc + p.0 * p.1, zip(join(join(transpose(x))), join(join(transpose(y)))))"},
      {"bias-add-left", with(kVec, "def out = map(s -> s + 2.0, reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(x, y)))")},
      {"bias-left-in-relu", "size N, P\ninput x : [float]N\ninput ws : [[float]N]P\ninput bs : [float]P\n"
                            "def out = map((w, b) -> map(s -> max(s + b, 0.0), reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(x, w))), "
                            "zip(ws, bs))"},
      {"bias-out-of-relu", "size N, P\ninput x : [float]N\ninput ws : [[float]N]P\ninput bs : [float]P\n"
                           "def out = map((w, b) -> map(s -> max(b + s, 0.0), reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(x, w))), "
                           "zip(ws, bs))"},
      {"bias-left-in-clamp", "size N, P\ninput x : [float]N\ninput ws : [[float]N]P\ninput bs : [float]P\n"
                             "def out = map((w, b) -> map(s -> min(max(s + b, 0.0), 6.0), reduce(0.0, (acc, p) -> acc + p.0 * p.1, "
                             "zip(x, w))), zip(ws, bs))"},
      {"bias-out-of-clamp", "size N, P\ninput x : [float]N\ninput ws : [[float]N]P\ninput bs : [float]P\n"
                            "def out = map((w, b) -> map(s -> min(max(b + s, -0.5), 0.5), reduce(0.0, (acc, p) -> acc + p.0 * p.1, "
                            "zip(x, w))), zip(ws, bs))"},
      {"bias-out-of-leaky", "size N, P\ninput x : [float]N\ninput ws : [[float]N]P\ninput bs : [float]P\n"
                            "def out = map((w, b) -> map(s -> select(s + b > 0.0, s + b, 0.1 * (s + b)), reduce(0.0, (acc, p) -> "
                            "acc + p.0 * p.1, zip(x, w))), zip(ws, bs))"},
      {"bias-out-of-leaky-left", "size N, P\ninput x : [float]N\ninput ws : [[float]N]P\ninput bs : [float]P\n"
                                 "def out = map((w, b) -> map(s -> select(b + s > 0.0, b + s, 0.2 * (b + s)), reduce(0.0, (acc, p) -> "
                                 "acc + p.0 * p.1, zip(x, w))), zip(ws, bs))"},
      {"bias-into-reduce", "size N, P\ninput x : [float]N\ninput ws : [[float]N]P\ninput bs : [float]P\n"
                           "def out = map((w, b) -> map(s -> b + s, reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(x, w))), zip(ws, bs))"},
      {"zero-bias", "size C, P\ninput x : [[[float]C]2]2\ninput ws : [[[[float]C]2]2]P\n"
                    "def out = map(w -> reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(join(join(x)), join(join(w)))), ws)"},
      {"zero-bias-activation", "size C, P\ninput x : [[[float]C]2]2\ninput ws : [[[[float]C]2]2]P\n"
                               "def out = map(w -> map(v -> max(v, 0.0), reduce(0.0, (acc, p) -> acc + p.0 * p.1, "
                               "zip(join(join(x)), join(join(w))))), ws)"},
      {"relu-operands", with(kVec, "def out = map(a -> max(0.0, a - 0.5), x)")},
      {"relu-select", with(kVec, "def out = map(a -> select(a - 0.5 > 0.0, a - 0.5, 0.0), x)")},
      {"relu-select-flipped", with(kVec, "def out = map(a -> select(0.0 < a - 0.5, a - 0.5, 0.0), x)")},
      {"relu-select-ge", with(kVec, "def out = map(a -> select(a - 0.5 >= 0.0, a - 0.5, 0.0), x)")},
      {"relu-select-ge-flipped", with(kVec, "def out = map(a -> select(0.0 <= a - 0.5, a - 0.5, 0.0), x)")},
      {"biases-second", "size N, P\ninput x : [float]N\ninput ws : [[float]N]P\ninput bs : [float]P\n"
                        "def out = map((b, w) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(x, w)), zip(bs, ws))"},
      {"activation-into-kernels", "size N, P\ninput x : [float]N\ninput ws : [[float]N]P\ninput bs : [float]P\n"
                                  "def out = map(v -> max(v, 0.0), join(map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, "
                                  "zip(x, w)), zip(ws, bs))))"},
      {"pointwise-windows", "size N, M, C, P\ninput x : [[[float]C]M]N\ninput ws : [[float]C]P\ninput bs : [float]P\n"
                            "def out = map2D(px -> map((w, b) -> map(v -> max(v, 0.0), reduce(b, (acc, p) -> acc + p.0 * p.1, "
                            "zip(w, px))), zip(ws, bs)), x)"},
      {"pointwise-windows-no-bias", "size N, M, C, P\ninput x : [[[float]C]M]N\ninput ws : [[float]C]P\n"
                                    "def out = map2D(px -> map(w -> reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(px, w)), ws), x)"},
      // a 2 x 3 window, so that the kernels' split follows the rows, then the columns
      {"flat-kernels-blocks", "size H, W, C, P\ninput x : [[[float]C]W]H\ninput ws : [[float](6*C)]P\ninput bs : [float]P\n"
                              "def out = map2D(win -> map((w, b) -> map(v -> max(v, 0.0), reduce(b, (acc, p) -> acc + p.0 * p.1, "
                              "zip(join(join(win)), w))), zip(ws, bs)), slide2D(2, 3, 1, 1, x))"},
      {"flat-kernels-blocks-no-bias", "size H, W, C, P\ninput x : [[[float]C]W]H\ninput ws : [[float](6*C)]P\n"
                                      "def out = map2D(win -> map(w -> reduce(0.0, (acc, p) -> acc + p.0 * p.1, "
                                      "zip(join(join(win)), w)), ws), slide2D(2, 3, 1, 1, x))"},
      {"activation-pass-into-windows", "size N, M, C, P\ninput x : [[[float]C]M]N\ninput ws : [[float]C]P\ninput bs : [float]P\n"
                                       "def out = map2D(q -> map(v -> max(v, 0.0), q), map2D(px -> join(map((w, b) -> "
                                       "reduce(b, (acc, p) -> acc + p.0 * p.1, zip(px, w)), zip(ws, bs))), x))"},
      {"activation-pass-into-windows-unjoined", "size N, M, C, P\ninput x : [[[float]C]M]N\ninput ws : [[float]C]P\ninput bs : [float]P\n"
                                                "def out = map2D(q -> map(s -> map(v -> select(v > 0.0, v, 0.1 * v), s), q), "
                                                "map2D(px -> map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(px, w)), zip(ws, bs)), x))"},
      {"bias-pass-into-windows", "size N, M, C, P\ninput x : [[[float]C]M]N\ninput ws : [[float]C]P\ninput bs : [float]P\n"
                                 "def out = map2D(q -> map((s, b) -> max(s + b, 0.0), zip(q, bs)), map2D(px -> join(map(w -> "
                                 "reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(px, w)), ws)), x))"},
      {"bias-pass-into-windows-join", "size N, M, C, P\ninput x : [[[float]C]M]N\ninput ws : [[float]C]P\ninput bs : [float]P\n"
                                      "def out = map2D(q -> map((s, b) -> max(s + b, 0.0), zip(join(q), bs)), map2D(px -> map(w -> "
                                      "reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(px, w)), ws), x))"},
      {"activation-pass-into-windows-join", "size N, M, C, P\ninput x : [[[float]C]M]N\ninput ws : [[float]C]P\ninput bs : [float]P\n"
                                            "def out = map2D(q -> map(v -> max(v, 0.0), join(q)), map2D(px -> map((w, b) -> "
                                            "reduce(b, (acc, p) -> acc + p.0 * p.1, zip(px, w)), zip(ws, bs)), x))"},
      {"join-out-of-windows", "size N, M, C, P\ninput x : [[[float]C]M]N\ninput ws : [[float]C]P\ninput bs : [float]P\n"
                              "def out = map2D(px -> join(map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, zip(px, w)), "
                              "zip(ws, bs))), x)"},
      {"flattened-1x1-windows", "size N, M, C, P, K = 1\ninput x : [[[float]C]M]N\ninput y : [[[float]C]K]K\n"
                                "def out = map(r -> map(c -> reduce(0.5, (acc, p) -> acc + p.0 * p.1, zip(c, join(join(y)))), "
                                "map(win -> join(join(win)), r)), slide2D(K, K, 2, 1, x))"},
      {"rows-times-columns", "size N, M, K\ninput a : [[float]K]N\ninput b : [[float]M]K\n"
                             "def out = map(r -> join(map(c -> reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(r, c)), transpose(b))), a)"},
      // library.rules (shapes: the case shows each matches its shape)
      {"library-conv2d", "size H, W, C, M\ninput x : [[[float]C]W]H\ninput ws : [[[[float]C]3]3]M\ninput bs : [float]M\n"
                         "def out = map(row -> map(window -> map((w, b) -> reduce(b, (acc, q) -> acc + q.0 * q.1, "
                         "zip(join(join(window)), join(join(w)))), zip(ws, bs)), row), map(y -> transpose(y), "
                         "slide(3, 1, map(r -> slide(3, 1, r), pad(1, 1, 0.0, map(r -> pad(1, 1, 0.0, r), x))))))"},
      {"library-conv2d-activation", "size H, W, C, M\ninput x : [[[float]C]W]H\ninput ws : [[[[float]C]3]3]M\ninput bs : [float]M\n"
                                    "def out = map(row -> map(window -> map((w, b) -> map(v -> max(v, 0.0), reduce(b, "
                                    "(acc, q) -> acc + q.0 * q.1, zip(join(join(window)), join(join(w))))), zip(ws, bs)), row), "
                                    "map(y -> transpose(y), slide(3, 2, map(r -> slide(3, 2, r), pad(0, 0, 0.0, "
                                    "map(r -> pad(0, 0, 0.0, r), x))))))"},
      {"library-zero-pad2d", with(kMat, "def out = pad(2, 2, 0.0, map(r -> pad(2, 2, 0.0, r), x))")},
      {"library-joined-channels", "size N, M, P\ninput x : [[[[float]1]P]M]N\ndef out = map(r -> map(q -> join(q), r), x)"},
      {"library-matmul", "size N, M, K\ninput a : [[float]K]N\ninput b : [[float]M]K\n"
                         "def out = map(r -> join(map(c -> reduce(0.0, (acc, q) -> acc + q.0 * q.1, zip(r, c)), transpose(b))), a)"},
      // gemm_conv.rules
      {"window-flatten", "size N, C, P\ninput x : [[[[float]C]3]2]N\ninput ws : [[[[float]C]3]2]P\ninput bs : [float]P\n"
                         "def out = map(win -> map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, "
                         "zip(join(join(win)), join(join(w)))), zip(ws, bs)), x)"},
      {"window-flatten-activation", "size N, C, P\ninput x : [[[[float]C]3]2]N\ninput ws : [[[[float]C]3]2]P\ninput bs : [float]P\n"
                                    "def out = map(win -> map((w, b) -> map(v -> max(v, 0.0), reduce(b, (acc, p) -> acc + p.0 * p.1, "
                                    "zip(join(join(win)), join(join(w))))), zip(ws, bs)), x)"},
      {"im2col-kernel", "size N, M, C\ninput x : [[[[[float]C]3]2]M]N\ninput y : [[[float]C]3]2\n"
                        "def out = map(r -> map(c -> reduce(0.5, (acc, p) -> acc + p.0 * p.1, zip(c, join(join(y)))), "
                        "map(win -> join(join(win)), r)), x)"},
      // local_tiles.rules
      // a 3 x 2 window: kernel sizes that differ between rows and columns
      {"conv-block-chunks", "size N, C, P\ninput x : [[[float]C]N]N\ninput ws : [[[[float]C]2]3]P\ninput bs : [float]P\n"
                            "def out = map2D(win -> map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, "
                            "zip(join(join(win)), join(join(w)))), zip(ws, bs)), slide2D(3, 2, 1, 1, x))"},
      {"conv-block-rows-split", "size N, C, P\ninput x : [[[float]C]N]N\ninput ws : [[[[float]C]3]2]P\ninput bs : [float]P\n"
                                "def out = map2D(win -> map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, "
                                "zip(join(join(win)), join(join(w)))), zip(ws, bs)), slide2D(2, 3, 1, 1, x))"},
      {"conv-block-rows-split-activation", "size N, C, P\ninput x : [[[float]C]N]N\ninput ws : [[[[float]C]3]3]P\ninput bs : [float]P\n"
                                           "def out = map2D(win -> map((w, b) -> map(v -> max(v, 0.0), reduce(b, (acc, p) -> acc + p.0 * p.1, "
                                           "zip(join(join(win)), join(join(w))))), zip(ws, bs)), slide2D(3, 3, 1, 1, x))"},
      {"register-tile-acc",
       "size N, C, P, Q\ninput a : [[float]P]N\ninput xs : [[[[[float]C]3]3]N]Q\ninput ys : [[[[[float]C]3]3]P]Q\n"
       "def out = join(reduce(a, (accs, c) -> map(aw -> join(map((am, w) -> reduce(am, "
       "(acc, p) -> acc + p.0 * p.1, zip(join(join(aw.1)), join(join(w)))), zip(aw.0, c.1))), zip(accs, c.0)), zip(xs, ys)))"},
      {"register-tile-acc-strided",
       "size N, C, P, Q\ninput a : [[float]P]N\ninput xs : [[[[[float]C]3]3]N]Q\ninput ys : [[[[[float]C]3]3]P]Q\n"
       "def out = join(reduce(a, (accs, c) -> map(aw -> join(map((am, w) -> reduce(am, "
       "(acc, p) -> acc + p.0 * p.1, zip(join(join(aw.1)), join(join(w)))), zip(aw.0, c.1))), zip(accs, c.0)), zip(xs, ys)))"},
      {"conv-block-chunks-activation", "size N, C, P\ninput x : [[[float]C]N]N\ninput ws : [[[[float]C]3]3]P\ninput bs : [float]P\n"
                                       "def out = map2D(win -> map((w, b) -> map(v -> max(v, 0.0), reduce(b, (acc, p) -> acc + p.0 * p.1, "
                                       "zip(join(join(win)), join(join(w))))), zip(ws, bs)), slide2D(3, 3, 1, 1, x))"},
      {"register-tile-acc-activation",
       "size N, C, P, Q\ninput a : [[float]P]N\ninput xs : [[[[[float]C]3]3]N]Q\ninput ys : [[[[[float]C]3]3]P]Q\n"
       "def out = map(map(v -> max(v, 0.0)), join(reduce(a, (accs, c) -> map(aw -> join(map((am, w) -> reduce(am, "
       "(acc, p) -> acc + p.0 * p.1, zip(join(join(aw.1)), join(join(w)))), zip(aw.0, c.1))), zip(accs, c.0)), zip(xs, ys))))"},
      {"conv-chunk-to-local", "size N, C, P\ninput z : [float]P\ninput xs : [[[[float]C]3]3]N\ninput ys : [[[[[float]C]3]3]P]N\n"
                              "def out = reduce(z, (a, c) -> join(map((am, w) -> reduce(am, (s, p) -> s + p.0 * p.1, "
                              "zip(join(join(c.0)), join(join(w)))), zip(a, c.1))), zip(xs, ys))"},
      {"gemm-register-tile", "size N, J, P\ninput x : [[float]J]N\ninput ws : [[[[float]J]1]1]P\ninput bs : [float]P\n"
                             "def out = map(c -> map((w, b) -> reduce(b, (acc, p) -> acc + p.0 * p.1, "
                             "zip(c, join(join(w)))), zip(ws, bs)), x)"},
      {"gemm-register-tile-activation", "size N, J, P\ninput x : [[float]J]N\ninput ws : [[[[float]J]1]1]P\ninput bs : [float]P\n"
                                        "def out = map(c -> map((w, b) -> map(v -> max(v, 0.0), reduce(b, (acc, p) -> acc + p.0 * p.1, "
                                        "zip(c, join(join(w))))), zip(ws, bs)), x)"},
      {"matmul-register-tile", kMatmul},
      {"matmul-register-tile-strided", kMatmul},
      {"matmul-local-tiles", kMatmul},
      {"matmul-chunk-to-local", kMatmulChunks},
      // winograd.rules
      {"winograd-f2x2", kConv3x3},
      {"winograd-f4x4", kConv3x3},
      {"winograd-kernel-groups", kWinogradProducts},
      {"winograd-f2x2-activation", kConv3x3Activation},
      {"winograd-f4x4-activation", kConv3x3Activation},
      {"winograd-kernel-groups-activation", kWinogradProductsActivation},
      {"winograd-register-tile", kWinogradTiles},
      {"winograd-register-tile-activation", kWinogradTilesActivation},
      {"winograd-f2x2-gemm", kConv3x3},
      {"winograd-f4x4-gemm", kConv3x3},
      {"winograd-f2x2-gemm-activation", kConv3x3Activation},
      {"winograd-f4x4-gemm-activation", kConv3x3Activation},
  };
  return table;
}

class RulePreservesMeaning : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(RulePreservesMeaning, OnRandomInstances) {
  const auto& [rule, text] = GetParam();
  ASSERT_NE(library().rule(rule), nullptr) << "no rule " << rule << " in rules/";
  Equivalence e =
      check_equivalence(program(text), "topdown(" + rule + ")", 4, std::hash<std::string>{}(rule));
  EXPECT_TRUE(e.failure.empty()) << rule << ": " << e.failure;
  EXPECT_GE(e.alternatives, 1);
  EXPECT_EQ(e.infeasible, 0);
  EXPECT_GE(e.instances, e.alternatives);
}

INSTANTIATE_TEST_SUITE_P(Rules, RulePreservesMeaning, ::testing::ValuesIn(cases()),
                         [](const auto& info) {
                           std::string n = info.param.first;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

TEST(RuleCoverage, CoverageIsComplete) {
  std::set<std::string> tested;
  for (const auto& c : cases()) tested.insert(c.first);
  for (const auto& r : library().rules) EXPECT_TRUE(tested.count(r.name)) << "rule " << r.name << " has no equivalence test";
}

}  // namespace
}  // namespace liftc::rewrite::test
