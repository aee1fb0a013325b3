// The index maps of the layout primitives (liftc/ir/index_map.hpp) proved with Z3, for every
// value in symbolic ranges (no sampling). Each map is one template, instantiated here at
// three index types, as its users instantiate it:
//   * CInt: the interpreter's std::int64_t instance, modelled as Z3 integers with C's
//     truncating `/` and `%` (the ranges keep every value far from 64-bit overflow);
//   * arith::Expr: code generation's instance, simplified as code generation emits it, then
//     read back as a Z3 integer with arith's floor semantics (../arith_z3.hpp);
//   * AffineIndex<CInt>: the interpreter's strided reads (liftc/ir/affine_index.hpp).
// For each primitive the rows prove that the Expr instance equals the int64 instance, that
// the operand index is inside the operand (split, join, slide, pad, reorder, asVector,
// asScalar), the algebra (split∘join and join∘split are the identity, transpose is an
// involution, reorder is a permutation, asScalar∘asVector is the identity), and that an
// exact AffineIndex result is, at every iteration t, the int64 instance at c + a*t.
//
// A claim is proved when `ranges ∧ ¬claim` is unsat. Z3's nonlinear integer reasoning gives
// up ("unknown", a failure here) on some claims whose sizes multiply symbolic indices; those
// rows fix the size to each value in [1, kFixedMax] (marked fixed) and are linear then.

#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <z3++.h>

#include "../arith_z3.hpp"
#include "liftc/arith/expr.hpp"
#include "liftc/ir/affine_index.hpp"
#include "liftc/ir/index_map.hpp"

namespace liftc::ir {
namespace {

namespace im = index_map;

// ---- The int64 instance: Z3 integers with C's operators ----

// A C std::int64_t as a Z3 integer: truncating division, remainder of the dividend's sign.
struct CInt {
  z3::expr e;
};
z3::expr trunc_div(const z3::expr& a, const z3::expr& b) {
  z3::expr q = z3::abs(a) / z3::abs(b);  // Euclidean = floor for non-negative operands
  return z3::ite((a >= 0) == (b > 0), q, -q);
}
CInt operator+(const CInt& a, const CInt& b) { return {a.e + b.e}; }
CInt operator-(const CInt& a, const CInt& b) { return {a.e - b.e}; }
CInt operator*(const CInt& a, const CInt& b) { return {a.e * b.e}; }
CInt operator-(const CInt& a, int k) { return {a.e - k}; }
CInt operator*(const CInt& a, int k) { return {a.e * k}; }
CInt operator/(const CInt& a, const CInt& b) { return {trunc_div(a.e, b.e)}; }
CInt operator%(const CInt& a, const CInt& b) { return {a.e - b.e * trunc_div(a.e, b.e)}; }
z3::expr operator==(const CInt& a, const CInt& b) { return a.e == b.e; }
z3::expr operator<(const CInt& a, const CInt& b) { return a.e < b.e; }
z3::expr operator<=(int k, const CInt& a) { return k <= a.e; }
z3::expr operator<=(const CInt& a, const CInt& b) { return a.e <= b.e; }

using Affine = AffineIndex<CInt, z3::expr>;

// An index stack as index_map.hpp wants it (the back is the outermost index).
template <class I>
struct Stack {
  std::vector<I> indices;
  std::vector<int> components;
  I pop() {
    I i = indices.back();
    indices.pop_back();
    return i;
  }
  void push(I i) { indices.push_back(std::move(i)); }
  int pop_component() {
    int c = components.back();
    components.pop_back();
    return c;
  }
};

// Outermost first, as one writes x[i][j].
template <class I>
Stack<I> indices(std::vector<I> outermost_first) {
  Stack<I> s;
  s.indices.assign(outermost_first.rbegin(), outermost_first.rend());
  return s;
}
template <class I>
std::vector<I> outermost_first(const Stack<I>& s) {
  return std::vector<I>(s.indices.rbegin(), s.indices.rend());
}

constexpr int kFixedMax = 12;

// Proves claims under ranges, one solver per row.
class Prover {
 public:
  Prover() : solver_(ctx) {
    z3::params p(ctx);
    p.set("timeout", 60000u);  // milliseconds; "unknown" fails the row
    solver_.set(p);
  }
  z3::context ctx;

  z3::expr var(const std::string& name) { return ctx.int_const(name.c_str()); }
  CInt cvar(const std::string& name) { return {var(name)}; }
  z3::expr from(const arith::Expr& e) { return testing::to_z3(e, ctx); }

  void prove(const std::string& what, const z3::expr& ranges, const z3::expr& claim) {
    solver_.push();
    solver_.add(ranges && !claim);
    z3::check_result r = solver_.check();
    EXPECT_EQ(r, z3::unsat) << what << (r == z3::sat ? ": counterexample\n" + solver_.get_model().to_string()
                                                     : ": Z3 gave up");
    solver_.pop();
  }

 private:
  z3::solver solver_;
};

// An index ranging over [0, n), for arith (so it simplifies as code generation's loop
// variables do) and for Z3.
arith::Expr index_var(const std::string& name, const arith::Expr& n) { return arith::var(name, 0, n - 1); }
z3::expr in(const z3::expr& i, const z3::expr& n) { return 0 <= i && i < n; }

TEST(IndexMap, SplitAndSlideChunks) {
  // slide(size, step, x) over x of length len (size <= len): chunk i < (len - size + step) /
  // step, element j < size. split(n) is the chunk with size = step = n over len = n * k.
  Prover p;
  z3::expr len = p.var("len"), size = p.var("size"), step = p.var("step"), i = p.var("i"), j = p.var("j");
  z3::expr windows = (len - size + step) / step;
  z3::expr ranges = len >= 1 && size >= 1 && size <= len && step >= 1 && in(i, windows) && in(j, size);

  auto c = indices<CInt>({{i}, {j}});
  im::chunk(c, CInt{step});
  arith::Expr L = arith::size_var("len"), Size = arith::size_var("size"), Step = arith::size_var("step");
  auto e = indices<arith::Expr>({index_var("i", (L - Size + Step) / Step), index_var("j", Size)});
  im::chunk(e, Step);
  ASSERT_EQ(c.indices.size(), 1u);
  ASSERT_EQ(e.indices.size(), 1u);
  p.prove("chunk: the Expr instance is the int64 instance", ranges, p.from(e.indices[0]) == c.indices[0].e);
  // i*step + j < len: nonlinear in i and step; fixed step.
  for (int s = 1; s <= kFixedMax; ++s)
    p.prove("slide reads inside x (step = " + std::to_string(s) + ")", ranges && step == s, in(c.indices[0].e, len));
}

TEST(IndexMap, Join) {
  // join(x) of x : [[T]m]k: i < k*m reads x[i / m][i % m].
  Prover p;
  z3::expr k = p.var("k"), m = p.var("m"), i = p.var("i");
  z3::expr ranges = k >= 1 && m >= 1 && in(i, k * m);
  auto c = indices<CInt>({{i}});
  im::join(c, CInt{m});
  arith::Expr K = arith::size_var("k"), M = arith::size_var("m");
  auto e = indices<arith::Expr>({index_var("i", K * M)});
  im::join(e, M);
  auto co = outermost_first(c);
  auto eo = outermost_first(e);
  ASSERT_EQ(co.size(), 2u);
  p.prove("join: the Expr instance is the int64 instance", ranges,
          p.from(eo[0]) == co[0].e && p.from(eo[1]) == co[1].e);
  p.prove("join reads inside x", ranges, in(co[0].e, k) && in(co[1].e, m));
}

TEST(IndexMap, SplitOfJoinAndJoinOfSplitAreIdentities) {
  Prover p;
  z3::expr k = p.var("k"), m = p.var("m"), i = p.var("i"), j = p.var("j");
  {
    // join(split(m, x))[i] = x[i]: the result index goes through join, then split.
    z3::expr ranges = k >= 1 && m >= 1 && in(i, k * m);
    auto c = indices<CInt>({{i}});
    im::join(c, CInt{m});
    im::chunk(c, CInt{m});
    p.prove("join(split(m, x))[i] = x[i]", ranges, c.indices.size() == 1 ? c.indices[0].e == i : p.ctx.bool_val(false));
    // What code generation emits for it simplifies to i itself.
    arith::Expr M = arith::size_var("m");
    auto e = indices<arith::Expr>({index_var("i", arith::size_var("k") * M)});
    im::join(e, M);
    im::chunk(e, M);
    EXPECT_EQ(arith::to_string(e.indices[0]), "i");
  }
  {
    // split(m, join(x))[i][j] = x[i][j] for j < m: (i*m + j) / m = i, (i*m + j) % m = j.
    // Nonlinear in i and m; fixed m.
    for (int fm = 1; fm <= kFixedMax; ++fm) {
      z3::expr ranges = k >= 1 && m == fm && in(i, k) && in(j, m);
      auto c = indices<CInt>({{i}, {j}});
      im::chunk(c, CInt{m});
      im::join(c, CInt{m});
      auto co = outermost_first(c);
      p.prove("split(m, join(x))[i][j] = x[i][j] (m = " + std::to_string(fm) + ")", ranges,
              co[0].e == i && co[1].e == j);
    }
  }
}

TEST(IndexMap, TransposeIsAnInvolution) {
  Prover p;
  z3::expr i = p.var("i"), j = p.var("j"), rest = p.var("rest");
  auto c = indices<CInt>({{i}, {j}, {rest}});
  im::transpose(c);
  auto once = outermost_first(c);
  p.prove("transpose(x)[i][j] = x[j][i]", p.ctx.bool_val(true), once[0].e == j && once[1].e == i && once[2].e == rest);
  im::transpose(c);
  auto twice = outermost_first(c);
  p.prove("transpose(transpose(x)) = x", p.ctx.bool_val(true), twice[0].e == i && twice[1].e == j && twice[2].e == rest);
}

TEST(IndexMap, PadReadsTheOperandExactlyInsideIt) {
  // pad(left, right, v, x) over x of length len; negative amounts crop.
  Prover p;
  z3::expr len = p.var("len"), left = p.var("left"), right = p.var("right"), i = p.var("i");
  z3::expr ranges = len >= 1 && -64 <= left && left <= 64 && -64 <= right && right <= 64 &&
                    len + left + right >= 1 && in(i, len + left + right);
  auto c = indices<CInt>({{i}});
  CInt j = im::pad(c, CInt{left});
  arith::Expr L = arith::size_var("len"), Left = arith::var("left", -64, 64), Right = arith::var("right", -64, 64);
  auto e = indices<arith::Expr>({index_var("i", L + Left + Right)});
  arith::Expr ej = im::pad(e, Left);
  p.prove("pad: the Expr instance is the int64 instance", ranges,
          p.from(ej) == j.e && p.from(e.indices[0]) == c.indices[0].e);
  p.prove("pad reads x[i - left] exactly when left <= i < left + len", ranges,
          im::pad_reads_operand(j, CInt{len}) == (left <= i && i < left + len) && j.e == i - left);
}

TEST(IndexMap, ConcatReadsTheOneOperandThatHoldsTheIndex) {
  // concat(x0, x1) over x0 of length n0 and x1 of length n1: i reads x0[i] when i < n0,
  // else x1[i - n0]; exactly one operand holds every i, and the index read is inside it.
  Prover p;
  z3::expr n0 = p.var("n0"), n1 = p.var("n1"), i = p.var("i");
  z3::expr ranges = n0 >= 1 && n1 >= 1 && in(i, n0 + n1);
  CInt zero{p.ctx.int_val(0)};
  auto c0 = indices<CInt>({{i}});
  CInt j0 = im::concat(c0, zero);
  auto c1 = indices<CInt>({{i}});
  CInt j1 = im::concat(c1, CInt{n0});
  z3::expr in0 = im::concat_reads_operand(CInt{i}, zero, CInt{n0});
  z3::expr in1 = im::concat_reads_operand(CInt{i}, CInt{n0}, CInt{n1});
  p.prove("concat: one operand holds each index", ranges, in0 != in1);
  p.prove("concat reads x0[i] below n0 and x1[i - n0] from it", ranges,
          z3::implies(in0, j0.e == i && in(j0.e, n0)) && z3::implies(in1, j1.e == i - n0 && in(j1.e, n1)));
  arith::Expr N0 = arith::size_var("n0"), N1 = arith::size_var("n1");
  auto e = indices<arith::Expr>({index_var("i", N0 + N1)});
  arith::Expr ej = im::concat(e, N0);
  p.prove("concat: the Expr instance is the int64 instance", ranges, p.from(ej) == j1.e);
}

TEST(IndexMap, ReorderIsAPermutation) {
  // reorder(striddenIndex(s), x) over x of length len = s * b. Nonlinear; fixed s (to 8:
  // each is a few hundred milliseconds of Z3).
  for (int s = 1; s <= 8; ++s) {
    Prover p;
    z3::expr b = p.var("b"), i1 = p.var("i1"), i2 = p.var("i2"), len = s * b;
    z3::expr ranges = b >= 1 && in(i1, len) && in(i2, len);
    auto map = [&](const z3::expr& i) {
      auto c = indices<CInt>({{i}});
      im::reorder(c, CInt{len}, CInt{p.ctx.int_val(s)});
      return c.indices[0].e;
    };
    std::string at = " (s = " + std::to_string(s) + ")";
    p.prove("reorder reads inside x" + at, ranges, in(map(i1), len));
    p.prove("reorder reads each element once" + at, ranges, implies(i1 != i2, map(i1) != map(i2)));

    arith::Expr B = arith::size_var("b"), Len = s * B;
    auto e = indices<arith::Expr>({index_var("i1", Len)});
    im::reorder(e, Len, arith::Expr(s));
    p.prove("reorder: the Expr instance is the int64 instance" + at, ranges, p.from(e.indices[0]) == map(i1));
  }
}

TEST(IndexMap, ZipSelectsTheComponentAndKeepsTheIndex) {
  Prover p;
  z3::expr i = p.var("i"), rest = p.var("rest");
  Stack<CInt> c = indices<CInt>({{i}, {rest}});
  c.components = {2};
  int k = im::zip(c);
  EXPECT_EQ(k, 2);
  EXPECT_TRUE(c.components.empty());
  auto co = outermost_first(c);
  p.prove("zip(x0, x1, x2)[i].2 = x2[i]", p.ctx.bool_val(true), co[0].e == i && co[1].e == rest);
}

TEST(IndexMap, AsVectorAndAsScalar) {
  // asVector(w, x) over x of length len = w * k: vector i < k, lane l < w reads x[i*w + l];
  // asScalar of x : [float<w>]k: i < k*w reads lane i % w of x[i / w].
  Prover p;
  z3::expr k = p.var("k"), w = p.var("w"), i = p.var("i"), l = p.var("l");
  arith::Expr K = arith::size_var("k"), W = arith::size_var("w");
  {
    z3::expr ranges = k >= 1 && w >= 1 && in(i, k * w);
    auto c = indices<CInt>({{i}});
    CInt lane = im::as_scalar(c, CInt{w});
    auto e = indices<arith::Expr>({index_var("i", K * W)});
    arith::Expr elane = im::as_scalar(e, W);
    p.prove("asScalar: the Expr instance is the int64 instance", ranges,
            p.from(elane) == lane.e && p.from(e.indices[0]) == c.indices[0].e);
    p.prove("asScalar reads inside x", ranges, in(c.indices[0].e, k) && in(lane.e, w));
    // asVector(w, asScalar(x))[i] lane `lane` is x[i / w] lane i % w back again.
    p.prove("asVector(w, asScalar(x)) = x", ranges, im::as_vector(c.indices[0], CInt{w}, lane).e == i);
  }
  {
    auto ev = im::as_vector(index_var("i", K), W, index_var("l", W));
    for (int fw = 1; fw <= kFixedMax; ++fw) {
      z3::expr ranges = k >= 1 && w == fw && in(i, k) && in(l, w);
      CInt x = im::as_vector(CInt{i}, CInt{w}, CInt{l});
      std::string at = " (w = " + std::to_string(fw) + ")";
      p.prove("asVector: the Expr instance is the int64 instance" + at, ranges, p.from(ev) == x.e);
      p.prove("asVector reads inside x" + at, ranges, in(x.e, k * w));
      // asScalar(asVector(w, x))[i*w + l] = x[i*w + l]
      auto c = indices<CInt>({x});
      CInt lane = im::as_scalar(c, CInt{w});
      p.prove("asScalar(asVector(w, x)) = x" + at, ranges, c.indices[0].e == i && lane.e == l);
    }
  }
}

// ---- The affine instance: an exact result is the int64 instance at every iteration ----

// An affine index c + a*t along a loop of n iterations (a >= 0, c >= 0: an index inside
// an array), the same loop for every index of one row.
struct Loop {
  Prover& p;
  z3::expr n, t;
  z3::expr ranges;
  Affine index(const std::string& name) {
    z3::expr c = p.var(name + ".c"), a = p.var(name + ".a");
    ranges = ranges && c >= 0 && a >= 0;
    return {{c}, {a}, {n}, p.ctx.bool_val(true)};
  }
  // The index at iteration t.
  CInt at(const Affine& x) { return {x.c.e + x.a.e * t}; }
};

Loop loop(Prover& p) {
  z3::expr n = p.var("n"), t = p.var("t");
  return {p, n, t, n >= 1 && in(t, n)};
}

// Whether every exact affine index of `got` is, at iteration t, the int64 index of `want`,
// with a step >= 0 (the invariant the comparisons of affine_index.hpp rely on).
z3::expr agrees(Loop& lp, const std::vector<Affine>& got, const std::vector<CInt>& want) {
  z3::expr all = lp.p.ctx.bool_val(true);
  for (std::size_t k = 0; k < got.size(); ++k)
    all = all && z3::implies(got[k].exact, lp.at(got[k]).e == want[k].e && got[k].a.e >= 0);
  return all;
}

TEST(IndexMap, AffineInstanceAgreesWithTheInt64Instance) {
  for (int fm = 1; fm <= kFixedMax; ++fm) {
    // Sizes fixed (division by a symbolic size of a symbolic product is where Z3 gives up).
    Prover p;
    std::string at = " (size = " + std::to_string(fm) + ")";
    CInt m{p.ctx.int_val(fm)};
    {
      Loop lp = loop(p);
      Affine i = lp.index("i"), j = lp.index("j");
      auto a = indices<Affine>({i, j});
      im::chunk(a, m);
      auto c = indices<CInt>({lp.at(i), lp.at(j)});
      im::chunk(c, m);
      p.prove("affine chunk" + at, lp.ranges, agrees(lp, a.indices, c.indices) && a.indices[0].exact);
    }
    {
      Loop lp = loop(p);
      Affine i = lp.index("i");
      auto a = indices<Affine>({i});
      im::join(a, m);
      auto c = indices<CInt>({lp.at(i)});
      im::join(c, m);
      p.prove("affine join" + at, lp.ranges, agrees(lp, a.indices, c.indices));
      // Exact exactly when the loop stays in one row.
      p.prove("affine join is exact within a row" + at, lp.ranges,
              a.indices[0].exact == (i.c / m == i.last() / m));
    }
    {
      Loop lp = loop(p);
      Affine i = lp.index("i");
      CInt left{p.var("left")};
      auto a = indices<Affine>({i});
      Affine j = im::pad(a, left);
      auto c = indices<CInt>({lp.at(i)});
      CInt cj = im::pad(c, left);
      z3::expr ranges = lp.ranges && -64 <= left.e && left.e <= 64;
      p.prove("affine pad" + at, ranges, lp.at(j).e == cj.e);
      p.prove("affine pad reads x at every iteration" + at, ranges,
              z3::implies(im::pad_reads_operand(j, m), im::pad_reads_operand(cj, m)));
    }
    {
      Loop lp = loop(p);
      Affine i = lp.index("i");
      CInt len{p.ctx.int_val(fm * 3)}, s{p.ctx.int_val(3)};
      auto a = indices<Affine>({i});
      im::reorder(a, len, s);
      auto c = indices<CInt>({lp.at(i)});
      im::reorder(c, len, s);
      p.prove("affine reorder" + at, lp.ranges, agrees(lp, a.indices, c.indices));
      p.prove("affine reorder of a constant index is exact" + at, lp.ranges,
              z3::implies(i.a.e == 0, a.indices[0].exact));
    }
    {
      Loop lp = loop(p);
      Affine i = lp.index("i");
      auto a = indices<Affine>({i});
      Affine lane = im::as_scalar(a, m);
      auto c = indices<CInt>({lp.at(i)});
      CInt clane = im::as_scalar(c, m);
      p.prove("affine asScalar" + at, lp.ranges, agrees(lp, {a.indices[0], lane}, {c.indices[0], clane}));
      p.prove("affine asScalar within one vector is exact" + at, lp.ranges,
              z3::implies(i.c / m == i.last() / m, a.indices[0].exact && lane.exact));
    }
  }
}

TEST(IndexMap, AffineTransposeAndZipAreExact) {
  Prover p;
  Loop lp = loop(p);
  Affine i = lp.index("i"), j = lp.index("j");
  auto a = indices<Affine>({i, j});
  im::transpose(a);
  auto c = indices<CInt>({lp.at(i), lp.at(j)});
  im::transpose(c);
  p.prove("affine transpose", lp.ranges,
          agrees(lp, a.indices, c.indices) && a.indices[0].exact && a.indices[1].exact);
  a.components = {1};
  c.components = {1};
  EXPECT_EQ(im::zip(a), im::zip(c));
  p.prove("affine zip", lp.ranges, agrees(lp, a.indices, c.indices));
}

}  // namespace
}  // namespace liftc::ir
