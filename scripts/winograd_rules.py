#!/usr/bin/env python3
"""Writes rules/winograd.rules: the Winograd F(m x m, 3 x 3) rules for m = 2 and m = 4, and
winograd-kernel-groups (register blocking over kernels of their products, for either m) and
winograd-register-tile (register blocking over tiles and kernels, for either m); each
also as an -activation variant, for a convolution with an element-wise function (ReLU, ...)
after each kernel's sum, applied to each output value after the output transform, and as
-residual and -residual-activation variants, for a convolution with a residual epilogue (its
output combined value by value with another image: a residual add fused into it), each output
value of the output transform starting from a function of its bias and that image's value,
and an element-wise function of the sum and the value applied after it.

The transforms are Lavin and Gray's ("Fast Algorithms for Convolutional Neural Networks",
2016) B^T, G and A^T. A rule applies them to a tile as Kronecker products of constants:
vec(B^T d B) = (B^T (x) B^T) vec(d), vec(G g G^T) = (G (x) G) vec(g), vec(A^T M A) =
(A^T (x) A^T) vec(M), so each transform is one constant matrix times a flattened tile (one
reduction per row, no intermediate array). The script checks, in exact rational
arithmetic, that the three products give the 3x3 correlation of random integer tiles, and
prints each transform's growth (the largest absolute row sum), the factor the validation
tolerance scales with (src/runtime/winograd_tolerance.cpp).

Run: python3 scripts/winograd_rules.py > rules/winograd.rules
"""
from fractions import Fraction as F
import random
import sys

MATRICES = {
    2: ([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]],
        [[1, 0, 0], [F(1, 2), F(1, 2), F(1, 2)], [F(1, 2), F(-1, 2), F(1, 2)], [0, 0, 1]],
        [[1, 1, 1, 0], [0, 1, -1, -1]]),
    4: ([[4, 0, -5, 0, 1, 0], [0, -4, -4, 1, 1, 0], [0, 4, -4, -1, 1, 0], [0, -2, -1, 2, 1, 0],
         [0, 2, -1, -2, 1, 0], [0, 4, 0, -5, 0, 1]],
        [[F(1, 4), 0, 0], [F(-1, 6), F(-1, 6), F(-1, 6)], [F(-1, 6), F(1, 6), F(-1, 6)],
         [F(1, 24), F(1, 12), F(1, 6)], [F(1, 24), F(-1, 12), F(1, 6)], [0, 0, 1]],
        [[1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0], [0, 1, -1, 8, -8, 1]]),
}


def kron(a, b):
    return [[F(x) * F(y) for x in ra for y in rb] for ra in a for rb in b]


def matvec(a, v):
    return [sum(F(x) * v[i] for i, x in enumerate(row)) for row in a]


def growth(a):
    return max(sum(abs(F(x)) for x in row) for row in a)


def check(m, bb, gg, aa):
    alpha = m + 2
    for _ in range(20):
        d = [[F(random.randint(-9, 9)) for _ in range(alpha)] for _ in range(alpha)]
        g = [[F(random.randint(-9, 9)) for _ in range(3)] for _ in range(3)]
        direct = [sum(d[i + u][j + v] * g[u][v] for u in range(3) for v in range(3)) for i in range(m) for j in range(m)]
        u = matvec(gg, [x for r in g for x in r])
        v = matvec(bb, [x for r in d for x in r])
        assert matvec(aa, [p * q for p, q in zip(u, v)]) == direct, f"F({m},3) is not the correlation"


def literal(x):
    f = float(x)
    return f"{f:.1f}" if f == int(f) else f"{f:.9g}"


def array(rows, indent):
    lines = [f"array({', '.join(literal(x) for x in row)})" for row in rows]
    sep = ",\n" + " " * indent
    return "array(" + sep.join(lines) + ")"


RULE_COMMENT = """\
// Winograd F({m}x{m}, 3x3) (alpha = {alpha}): the output in {m}x{m} tiles; per tile and channel the
// input transform B^T d B as ({alpha}*{alpha} x {alpha}*{alpha} constants) times the flattened {alpha}x{alpha} tile, computed by
// its own kernel for every tile ([tile rows][tile columns][{alpha}*{alpha}][C]); the weight transform
// G g G^T per kernel and channel ([M][{alpha}*{alpha}][C]), a mapGlb inside the map over tiles that
// uses only the weights, so code generation computes it once by its own kernel; per tile and
// kernel the {alpha}*{alpha} products summed over the channels (one batched multiplication per
// (xi, nu), in private memory), then the output transform A^T M A plus the bias.
// Guard: the left side names windows with step 1 and k == 3 (K = 3, stride 1; a weight
// transform row of 9 constants is read as K*K, pad(0, k * k - 9), a pad of 0 where k is 3,
// so that it zips with the K x K kernel symbolically); the output rows and
// columns must be multiples of {m}, else slide({alpha}, {m}) does not cover the padded image and the
// result does not type check (the rule does not apply).
// Growth (largest absolute row sum) of B^T(x)B^T: {gb}, G(x)G: {gg}, A^T(x)A^T: {ga}.
"""

# The left side of the Winograd rules: the normal-form 3x3 stride-1 convolution (a 2D map
# over slide(k, 1) windows of (kernel, bias) pairs' dot products), {open}/{close} around
# each sum for the activation variants.
CONV_LHS = """\
  map(r -> map(win -> map((w, b) -> {open}reduce(b, (acc, p) -> acc + p.0 * p.1, zip(join(join(win)), join(join(w)))){close}, zip(ws, bs)), r),
      map(transpose, slide(k, 1, map(row -> slide(k, 1, row), x))))
"""

RULE = """\
rule winograd-f{m}x{m}{suffix} "Winograd F({m}x{m}, 3x3): {m}x{m} output tiles from {alpha}x{alpha} input tiles, input, weight and output transforms by constant matrices, per tile and kernel the transformed products summed over the channels{what}":
{lhs}    => join(map(tr -> map(q -> join(q), transpose(tr)),
         map(vr -> map(v ->
               map(t -> transpose(t), transpose(
                 map((u, b) ->
                       let mk = toPrivate(z -> map(uv -> reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(uv.0, uv.1)), z), zip(u, v)) in
                       split({m}, map(a -> {open}reduce(b, (acc, p) -> acc + p.0 * p.1, zip(a, join(mk))){close},
                         {aa})),
                     zip(mapGlb(1, w -> mapGlb(0, g -> join(map(c -> reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(join(c), pad(0, k * k - 9, 0.0, g))),
                                                               transpose(map(kr -> transpose(kr), w)))),
                         {gg_}), ws),
                         bs)))),
             vr),
           mapGlb(2, dr -> mapGlb(1, d -> mapGlb(0, e -> join(map(c -> reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(join(c), e)),
                                                                 transpose(map(ir -> transpose(ir), d)))),
               {bb}), dr),
             map(transpose, slide({alpha}, {m}, map(row -> slide({alpha}, {m}, row), x)))))))
    if k == 3
"""


# The left side of the residual variants: the form normal-form (residual-pass-into-windows,
# addend-into-start) and residual-windows-form leave a convolution whose output is combined
# value by value with another image xr of its shape (a residual add fused into it): a map
# over the pairs of the rows of windows and of xr's pixels, each window's map over (kernel,
# bias, value) triples, each sum starting from zs(b, c) (b + c: the add), {open}/{close}
# around each sum for a function ef of the sum and the value after it (relu(conv(x) + x)).
CONV_RESIDUAL_LHS = """\
  map((rw, ry) -> map((win, t) -> join(map((w, b, c) -> {open}reduce(zs(b, c), (acc, p) -> acc + p.0 * p.1, zip(join(join(win)), join(join(w)))){close}, zip(ws, bs, t))), zip(rw, ry)),
      zip(map(transpose, slide(k, 1, map(row -> slide(k, 1, row), x))), xr))
"""

RESIDUAL_COMMENT = """\
// The same for a convolution with a residual epilogue (issue 38): its output combined value by
// value with another image xr of its shape (a ResNet block's skip add fused into its second
// convolution), in the form normal-form leaves, each sum starting from zs(b, c) (b + c) of
// its bias and xr's value. The Winograd sum is linear in its start, so each output value of
// the output transform starts from zs of its bias and xr's value at its pixel and channel:
// xr cut into the output's m x m tiles (slide({m}, {m}): views), each tile's values per kernel
// ([M][{m}*{m}], transposes: views) zipped with the rows of A^T (x) A^T, which give the tile's
// output values in the same order. The same values up to the rounding of the additions' order.
"""

RESIDUAL_ACTIVATION_COMMENT = """\
// The same with an element-wise function ef of each sum and its residual value after the sum
// (relu(conv(x) + x), relu(conv(x)) + x, ...), applied to each output value of the output
// transform (in the same kernel, no pass of its own).
"""

RULE_RESIDUAL = """\
rule winograd-f{m}x{m}{suffix} "Winograd F({m}x{m}, 3x3): {m}x{m} output tiles from {alpha}x{alpha} input tiles, input, weight and output transforms by constant matrices, per tile and kernel the transformed products summed over the channels{what}":
{lhs}    => join(map(tr -> map(q -> join(q), transpose(tr)),
         map((vr, yr) -> map((v, yt) ->
               map(t -> map(o -> join(o), transpose(t)), transpose(
                 map((u, b, cs) ->
                       let mk = toPrivate(z -> map(uv -> reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(uv.0, uv.1)), z), zip(u, v)) in
                       split({m}, map((a, c) -> {open}reduce(zs(b, c), (acc, p) -> acc + p.0 * p.1, zip(a, join(mk))){close},
                         zip({aa}, cs))),
                     zip(mapGlb(1, w -> mapGlb(0, g -> join(map(cg -> reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(join(cg), pad(0, k * k - 9, 0.0, g))),
                                                               transpose(map(kr -> transpose(kr), w)))),
                         {gg_}), ws),
                         bs, transpose(join(yt)))))),
             zip(vr, yr)),
           zip(mapGlb(2, dr -> mapGlb(1, d -> mapGlb(0, e -> join(map(cd -> reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(join(cd), e)),
                                                                 transpose(map(ir -> transpose(ir), d)))),
               {bb}), dr),
             map(transpose, slide({alpha}, {m}, map(row -> slide({alpha}, {m}, row), x)))),
               map(transpose, slide({m}, {m}, map(row -> slide({m}, {m}, row), xr)))))))
    if k == 3
"""

GEMM_COMMENT = """\
// Winograd F({m}x{m}, 3x3) as a batched matrix multiplication: the transforms as in
// winograd-f{m}x{m}, but the {alpha}*{alpha} products of every tile and kernel are computed by a
// kernel of their own, one matrix multiplication per transform row (xi, nu), and the output
// transform by another. Four kernels, the transforms mapped by the rule (the multiplication's
// maps are left plain, for matmul-register-tile or matmul-local-tiles and the strategy to
// map):
// - the transformed input V, [alpha^2][C][T] (T = the tiles, rows joined), a work-item per
//   channel (dimension 0) and tile (1) computing all alpha^2 values of its tile from the
//   {alpha}*{alpha} input values copied into private memory once (each read once, where a
//   work-item per value read all of them for each); neighbouring work-items read
//   neighbouring channels of the HWC image. The map computes [C][T][alpha^2]; written as
//   toGlobal(ct -> transpose(map(tc -> transpose(tc), mapGlb(...))), tiles), its kernel
//   writes through those transposes (src/codegen/README.md), so V is stored [alpha^2][C][T],
//   the order the multiplication reads it in;
// - the transformed weights U, [alpha^2][M][C], the same way: a work-item per kernel (1) and
//   channel (0), its 9 weights copied into private memory; neighbouring work-items read
//   neighbouring channels of the [M][K][K][C] weights and write neighbouring addresses;
// - per transform row (a map over zip(V, U)) the multiplication of the tiles' [T][C]
//   (a transpose of V's matrix: a view) and the kernels' [M][C]: [alpha^2][T][M];
// - per tile (dimension 1) and kernel (0) the output transform A^T M A of its {alpha}*{alpha} products
//   (copied into private memory once) plus the bias, written through the views that put
//   the m x m tiles into the image.
// The tiles are split back into rows of (W' + 2 - 2) / {m} = (length(elem(x)) - 2) / {m} (x is
// the padded image). Memory: alpha^2 * (C*T + M*C + T*M) floats more than the direct
// convolution; the multiplications are {mults} of the direct convolution's.
"""

# The input tiles' and the weights' transforms (each a kernel of its own) and their products
# per transform row, summed over the channels: what the GEMM templates with and without a
# residual epilogue share.
GEMM_PRODUCTS = """\
               map(vu -> map(a -> map(u -> reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(a, u)), vu.1), transpose(vu.0)),
                 zip(toGlobal(ct -> transpose(map(tc -> transpose(tc),
                                mapGlb(0, dc -> mapGlb(1, d -> let dp = toPrivate(y -> mapSeq(z -> z, y), join(d)) in
                                                               join(mapSeq(e -> reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(dp, e)),
                                                                 {bb})), dc),
                                       ct))),
                       transpose(map(d -> transpose(map(ir -> transpose(ir), d)),
                         join(map(transpose, slide({alpha}, {m}, map(row -> slide({alpha}, {m}, row), x))))))),
                     toGlobal(mc -> transpose(map(cm -> transpose(cm),
                                mapGlb(1, wk -> mapGlb(0, w -> let wp = toPrivate(y -> mapSeq(z -> z, y), join(w)) in
                                                               join(mapSeq(g -> reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(wp, pad(0, k * k - 9, 0.0, g))),
                                                                 {gg_})), wk),
                                       mc))),
"""

GEMM = """\
rule winograd-f{m}x{m}-gemm{suffix} "Winograd F({m}x{m}, 3x3) as a batched matrix multiplication: input and weight transforms by kernels of their own, per transform row the tiles' and kernels' transformed values multiplied over the channels by a kernel of its own, then the output transform{what}":
{lhs}    => join(map(tr -> map(q -> join(q), transpose(tr)),
         split((length(elem(x)) - 2) / {m},
           mapGlb(1, pt -> map(t -> transpose(t), transpose(
                   mapGlb(0, (pk, b) -> let pp = toPrivate(y -> mapSeq(z -> z, y), pk) in
                                        split({m}, mapSeq(a -> {open_seq}reduce(b, (acc, p) -> acc + p.0 * p.1, zip(a, pp)){close},
                                          {aa})),
                          zip(pt, bs)))),
             map(pq -> transpose(pq), transpose(map(pr -> map(pm -> join(pm), pr),
""" + GEMM_PRODUCTS + """\
                       map(w -> transpose(map(kr -> transpose(kr), w)), ws)))))))))))
    if k == 3
"""


GEMM_RESIDUAL = """\
rule winograd-f{m}x{m}-gemm{suffix} "Winograd F({m}x{m}, 3x3) as a batched matrix multiplication: input and weight transforms by kernels of their own, per transform row the tiles' and kernels' transformed values multiplied over the channels by a kernel of its own, then the output transform{what}":
{lhs}    => join(map(tr -> map(q -> join(q), transpose(tr)),
         split((length(elem(x)) - 2) / {m},
           mapGlb(1, (pt, yt) -> map(t -> map(o -> join(o), transpose(t)), transpose(
                   mapGlb(0, (pk, b, cs) -> let pp = toPrivate(y -> mapSeq(z -> z, y), pk) in
                                            split({m}, mapSeq((a, c) -> {open_seq}reduce(zs(b, c), (acc, p) -> acc + p.0 * p.1, zip(a, pp)){close},
                                              zip({aa}, cs))),
                          zip(pt, bs, transpose(join(yt)))))),
             zip(map(pq -> transpose(pq), transpose(map(pr -> map(pm -> join(pm), pr),
""" + GEMM_PRODUCTS + """\
                       map(w -> transpose(map(kr -> transpose(kr), w)), ws))))))),
               join(map(transpose, slide({m}, {m}, map(row -> slide({m}, {m}, row), xr)))))))))
    if k == 3
"""


GEMM_FORM = """\
// The batched-multiplication form (either m, with or without an activation or a residual
// epilogue): the first step of conv-winograd-gemm and conv-winograd-local (strategies.rules),
// which then map or tile the multiplication. Not a strategy of strategies.rules: it is offered
// on its own to no program, its result's multiplication is not yet mapped.
strategy winograd-gemm-form "Winograd F(2x2, 3x3) or F(4x4, 3x3) as a batched matrix multiplication (the rules winograd-f2x2-gemm, -f4x4-gemm and their -activation, -residual and -residual-activation variants), {needs}" =
  topdown(winograd-f2x2-gemm | winograd-f4x4-gemm | winograd-f2x2-gemm-activation | winograd-f4x4-gemm-activation |
          winograd-f2x2-gemm-residual | winograd-f4x4-gemm-residual | winograd-f2x2-gemm-residual-activation | winograd-f4x4-gemm-residual-activation)

// The same for the direct Winograd rules (conv-winograd's first step). Its description, as
// winograd-gemm-form's, says what a convolution needs for it: a strategy that stops at the
// step says it (Engine::why_not_applied).
strategy winograd-form "Winograd F(2x2, 3x3) or F(4x4, 3x3) with the transformed products summed per tile and kernel (the rules winograd-f2x2, -f4x4 and their -activation, -residual and -residual-activation variants), {needs}" =
  topdown(winograd-f2x2 | winograd-f4x4 | winograd-f2x2-activation | winograd-f4x4-activation |
          winograd-f2x2-residual | winograd-f4x4-residual | winograd-f2x2-residual-activation | winograd-f4x4-residual-activation)

"""

# What a convolution needs for the Winograd rules, the end of the two form strategies'
# descriptions (a strategy that stops at the step says it).
NEEDS = ("which needs a convolution over 3x3 windows with stride 1 whose output sides 2 (F(2x2)) or 4 (F(4x4)) "
         "divides, and one map over (kernel, bias) pairs whose kernels read all the channels, or over (kernel, bias, "
         "value) triples where the output is combined value by value with another image of its shape (a residual add "
         "fused into the convolution) (a depthwise or grouped convolution has none, though liftc explore and liftc space "
         "split a grouped one into dense convolutions per group, which Winograd takes; a dilated window is not a 3x3 "
         "window)")

KERNEL_GROUPS_COMMENT = """\
// Register blocking over kernels (kappa) for the products of winograd-f2x2 and -f4x4, as
// kernel-groups-into-reduction for the direct convolution: each work-item computes kappa
// kernels of one tile. Per transform row (xi, nu) one reduction over the channels with kappa
// private accumulators: each transformed input value V[xi nu][c] is loaded once and
// multiplied with the kappa kernels' U[xi nu][c] (the transformed weights regrouped by
// transposes: views, no copies). The kappa x alpha^2 sums are kept in private memory
// (toPrivate), then each kernel's output transform reads its alpha^2 of them. kappa must
// divide M: a type obligation, so a constraint of the space. v cannot mention u or b (a
// pattern variable under a lambda never uses its parameters): it is the tile's transformed
// input, the same for every kernel. One rule for every m: split(m, ...) matches m.
"""

KERNEL_GROUPS = """\
rule winograd-kernel-groups{suffix}(kappa in 2..64) "kappa kernels per Winograd tile: per transform row (xi, nu) kappa private accumulators, each transformed input value loaded once for all of them, then kappa output transforms{what}":
  map((u, b) ->
        let mk = toPrivate(z -> map(uv -> reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(uv.0, uv.1)), z), zip(u, v)) in
        split(m, map(a -> {open}reduce(b, (acc, p) -> acc + p.0 * p.1, zip(a, join(mk))){close}, t)),
      ub)
    => join(map(g ->
         let mks = toPrivate(z -> map(vu -> join(reduce(map((u, b) -> 0.0, g),
                                                         (accs, q) -> map(s -> s.0 + s.1 * q.0, zip(accs, q.1)),
                                                         zip(vu.0, transpose(vu.1)))), z),
                             zip(v, transpose(map((u, b) -> u, g)))) in
         map((mk, b) -> split(m, map(a -> {open}reduce(b, (acc, p) -> acc + p.0 * p.1, zip(a, mk)){close}, t)),
             zip(transpose(mks), map((u, b) -> b, g))),
       split(kappa, ub)))
"""


KERNEL_GROUPS_RESIDUAL_COMMENT = """\
// The same after winograd-f2x2-residual and -f4x4-residual: the map over a tile's (transformed
// kernel, bias, residual values) triples, each kernel's output transform starting from zs of
// its bias and the tile's residual values of that kernel, in groups of kappa triples.
"""

KERNEL_GROUPS_RESIDUAL = """\
rule winograd-kernel-groups{suffix}(kappa in 2..64) "kappa kernels per Winograd tile: per transform row (xi, nu) kappa private accumulators, each transformed input value loaded once for all of them, then kappa output transforms{what}":
  map((u, b, cs) ->
        let mk = toPrivate(z -> map(uv -> reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(uv.0, uv.1)), z), zip(u, v)) in
        split(m, map((a, c) -> {open}reduce(zs(b, c), (acc, p) -> acc + p.0 * p.1, zip(a, join(mk))){close}, zip(t, cs))),
      ubc)
    => join(map(g ->
         let mks = toPrivate(z -> map(vu -> join(reduce(map((u, b, cs) -> 0.0, g),
                                                         (accs, q) -> map(s -> s.0 + s.1 * q.0, zip(accs, q.1)),
                                                         zip(vu.0, transpose(vu.1)))), z),
                             zip(v, transpose(map((u, b, cs) -> u, g)))) in
         map((mk, b, cs) -> split(m, map((a, c) -> {open}reduce(zs(b, c), (acc, p) -> acc + p.0 * p.1, zip(a, mk)){close}, zip(t, cs))),
             zip(transpose(mks), map((u, b, cs) -> b, g), map((u, b, cs) -> cs, g))),
       split(kappa, ubc)))
"""


REGISTER_TILE_COMMENT = """\
// A register tile for the products of winograd-f2x2 and -f4x4, as register-tile for the
// direct convolution (direct_conv.rules): each work-item computes sigma neighbouring tiles
// of a tile row times kappa kernels. Per transform row (xi, nu) one reduction over the
// channels with sigma x kappa private accumulators: per channel the sigma tiles' transformed
// input values V[xi nu][c] and the kappa kernels' transformed weights U[xi nu][c] are loaded
// once and their sigma*kappa products accumulated, so each weight value serves sigma tiles
// and each input value kappa kernels (the operands regrouped by transposes: views, no
// copies). The sigma x kappa x alpha^2 sums are kept in private memory (toPrivate, counted
// by the register budget), then each tile's and kernel's output transform reads its alpha^2
// of them. sigma must divide the tile columns and kappa M: type obligations, so constraints
// of the space. ub cannot mention v (a pattern variable under a lambda never uses its
// parameters): the transformed kernels and biases are the same for every tile. One rule
// for every m: split(m, ...) matches m.
"""

REGISTER_TILE = """\
rule winograd-register-tile{suffix}(sigma in 2..64, kappa in 1..64) "sigma tiles x kappa kernels per work-item of the Winograd products: per transform row (xi, nu) sigma x kappa private accumulators, each transformed weight value loaded once for sigma tiles and each transformed input value once for kappa kernels, then sigma x kappa output transforms{what}":
  map(v -> map(q -> transpose(q), transpose(
        map((u, b) ->
              let mk = toPrivate(z -> map(uv -> reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(uv.0, uv.1)), z), zip(u, v)) in
              split(m, map(a -> {open}reduce(b, (acc, p) -> acc + p.0 * p.1, zip(a, join(mk))){close}, t)),
            ub))),
      vr)
    => join(map(vs -> map(r -> map(q -> transpose(q), transpose(join(r))),
         transpose(map(g ->
           let mks = toPrivate(z -> map(vu -> join(reduce(map(e -> map((u, b) -> 0.0, g), vs),
                                                           (accs, c) -> map(aq -> map(s -> s.0 + s.1 * aq.1, zip(aq.0, c.1)), zip(accs, c.0)),
                                                           zip(transpose(vu.0), transpose(vu.1)))), z),
                               zip(transpose(vs), transpose(map((u, b) -> u, g)))) in
           map(mt -> map((mk, b) -> split(m, map(a -> {open}reduce(b, (acc, p) -> acc + p.0 * p.1, zip(a, mk)){close}, t)),
                         zip(transpose(mt), map((u, b) -> b, g))),
               transpose(mks)),
           split(kappa, ub)))),
       split(sigma, vr)))
"""


REGISTER_TILE_RESIDUAL_COMMENT = """\
// The same after winograd-f2x2-residual and -f4x4-residual: the map over a tile row's (tile,
// residual tile) pairs, each tile's map over (transformed kernel, bias, residual values)
// triples. The kappa kernels of a group carry each of the sigma tiles' residual values of
// theirs ([M][sigma][m*m], transposes: views), and each tile's and kernel's output transform
// starts from zs of its bias and those values.
"""

REGISTER_TILE_RESIDUAL = """\
rule winograd-register-tile{suffix}(sigma in 2..64, kappa in 1..64) "sigma tiles x kappa kernels per work-item of the Winograd products: per transform row (xi, nu) sigma x kappa private accumulators, each transformed weight value loaded once for sigma tiles and each transformed input value once for kappa kernels, then sigma x kappa output transforms{what}":
  map((v, yt) -> map(q -> map(o -> join(o), transpose(q)), transpose(
        map((u, b, cs) ->
              let mk = toPrivate(z -> map(uv -> reduce(0.0, (acc, p) -> acc + p.0 * p.1, zip(uv.0, uv.1)), z), zip(u, v)) in
              split(m, map((a, c) -> {open}reduce(zs(b, c), (acc, p) -> acc + p.0 * p.1, zip(a, join(mk))){close}, zip(t, cs))),
            zip(us, bs, transpose(join(yt)))))),
      zip(vr, yr))
    => join(map(vs -> map(r -> map(q -> map(o -> join(o), transpose(q)), transpose(join(r))),
         transpose(map(g ->
           let mks = toPrivate(z -> map(vu -> join(reduce(map(e -> map((u, b, cs) -> 0.0, g), vs),
                                                           (accs, cc) -> map(aq -> map(s -> s.0 + s.1 * aq.1, zip(aq.0, cc.1)), zip(accs, cc.0)),
                                                           zip(transpose(vu.0), transpose(vu.1)))), z),
                               zip(transpose(map((v, yt) -> v, vs)), transpose(map((u, b, cs) -> u, g)))) in
           map((mt, ct) -> map((mk, b, cs) -> split(m, map((a, c) -> {open}reduce(zs(b, c), (acc, p) -> acc + p.0 * p.1, zip(a, mk)){close}, zip(t, cs))),
                               zip(transpose(mt), map((u, b, cs) -> b, g), ct)),
               zip(transpose(mks), transpose(map((u, b, cs) -> cs, g)))),
           split(kappa, zip(us, bs, transpose(map((v, yt) -> transpose(join(yt)), vs))))))),
       split(sigma, zip(vr, yr))))
"""


ACTIVATION_COMMENT = """\
// The same with an element-wise function h (an activation: ReLU, ...) of each kernel's sum,
// applied to each output value after the output transform (in the same kernel, no pass of
// its own).
"""

# The plain rule and its activation variant: the name's suffix, the description's end, and
# what surrounds each sum (map(h, ...) on both sides; mapSeq(h, ...) where the right side
# maps everything around it itself, so that no strategy takes it for a map of work-items).
VARIANTS = [dict(suffix="", what="", open="", open_seq="", close=""),
            dict(suffix="-activation", what=", then an element-wise function of each sum", open="map(h, ",
                 open_seq="mapSeq(h, ", close=")")]

# The residual variants (their own templates and left side): the output combined value by
# value with another image, each sum starting from zs(b, c) of its bias and that image's value
# c, and in the second an element-wise function ef of each sum and c after it.
RESIDUAL = ", each output transform starting from a function of its bias and another image's value at its pixel and channel (a residual add)"
RESIDUAL_VARIANTS = [dict(suffix="-residual", what=RESIDUAL, open="", open_seq="", close=""),
                     dict(suffix="-residual-activation", what=RESIDUAL + ", then an element-wise function of each sum and that value",
                          open="map(s -> ef(s, c), ", open_seq="mapSeq(s -> ef(s, c), ", close=")")]


def write_variants(out, template, lhs="", variants=VARIANTS, comments=("", ACTIVATION_COMMENT), **fields):
    """A rule family: the plain rule and its activation variant (or the residual ones), from
    one template (and the left side `lhs`, itself a template of the variant), each after its
    comment."""
    for v, comment in zip(variants, comments):
        if comment:
            out.write("\n" + comment)
        out.write(template.format(lhs=lhs.format(**v), **fields, **v))


def main():
    out = sys.stdout
    out.write("// Winograd convolution (issue 18), derived from the normal-form direct convolution.\n"
              "// Generated by scripts/winograd_rules.py (which checks the matrices exactly); edit the\n"
              "// script, not this file. Syntax: rules/README.md. Each rule has an equivalence test\n"
              "// (tests/rules/<rule>.sr) with the Winograd tolerance.\n\n")
    transforms = {m: (kron(bt, bt), kron(g, g), kron(at, at)) for m, (bt, g, at) in MATRICES.items()}
    residual_comments = (RESIDUAL_COMMENT, RESIDUAL_ACTIVATION_COMMENT)
    for m, (bb, gg, aa) in transforms.items():
        check(m, bb, gg, aa)
        sizes = dict(m=m, alpha=m + 2, gb=literal(growth(bb)), gg=literal(growth(gg)), ga=literal(growth(aa)))
        out.write(RULE_COMMENT.format(**sizes))
        write_variants(out, RULE, lhs=CONV_LHS, **sizes, aa=array(aa, 25), gg_=array(gg, 25), bb=array(bb, 15))
        write_variants(out, RULE_RESIDUAL, lhs=CONV_RESIDUAL_LHS, variants=RESIDUAL_VARIANTS,
                       comments=tuple(c.format(m=m) for c in residual_comments),
                       **sizes, aa=array(aa, 29), gg_=array(gg, 25), bb=array(bb, 15))
        out.write("\n")
    for m, (bb, gg, aa) in transforms.items():
        alpha = m + 2
        sizes = dict(m=m, alpha=alpha, mults=f"{alpha * alpha}/{9 * m * m}")
        out.write(GEMM_COMMENT.format(**sizes))
        write_variants(out, GEMM, lhs=CONV_LHS, **sizes, aa=array(aa, 42), gg_=array(gg, 65), bb=array(bb, 65))
        write_variants(out, GEMM_RESIDUAL, lhs=CONV_RESIDUAL_LHS, variants=RESIDUAL_VARIANTS,
                       comments=tuple(c.format(m=m) for c in residual_comments),
                       **sizes, aa=array(aa, 50), gg_=array(gg, 65), bb=array(bb, 65))
        out.write("\n")
    out.write(GEMM_FORM.format(needs=NEEDS))
    out.write(KERNEL_GROUPS_COMMENT)
    write_variants(out, KERNEL_GROUPS)
    write_variants(out, KERNEL_GROUPS_RESIDUAL, variants=RESIDUAL_VARIANTS,
                   comments=(KERNEL_GROUPS_RESIDUAL_COMMENT, RESIDUAL_ACTIVATION_COMMENT))
    out.write("\n" + REGISTER_TILE_COMMENT)
    write_variants(out, REGISTER_TILE)
    write_variants(out, REGISTER_TILE_RESIDUAL, variants=RESIDUAL_VARIANTS,
                   comments=(REGISTER_TILE_RESIDUAL_COMMENT, RESIDUAL_ACTIVATION_COMMENT))


if __name__ == "__main__":
    main()
