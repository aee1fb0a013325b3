#pragma once
// The index maps of the layout primitives, each written once.
//
// A layout primitive's result is its operand rearranged: reading the result at some indices
// reads the operand at others. Each function below rewrites a stack of pending indices from
// the result's to the operand's. The stack's back is the outermost dimension (the index
// consumed first); a Stack provides
//   I pop();              the outermost pending index
//   void push(I);         a new outermost index
//   int pop_component();  (zip only) the tuple component selected below the index
// The index type I is what differs between the users:
//   * std::int64_t: the interpreter loading one element (src/interp/view.cpp);
//   * AffineIndex<std::int64_t>: c + a*t along a loop, to find strided storage
//     (src/interp/view.cpp strided(), src/interp/fold.cpp);
//   * arith::Expr: code generation's symbolic index expressions (src/codegen/view.cpp);
//   * Z3 integers: the proof that the others agree (tests/ir/index_map_z3_test.cpp).
// A size S (a split factor, a row length) is whatever I multiplies, divides and subtracts:
// std::int64_t for the first two, arith::Expr for code generation.
//
// `/` and `%` are only applied to non-negative indices and positive sizes, where C's
// truncating division, arith's floor division and Z3's Euclidean division all agree.

#include <utility>

namespace liftc::ir::index_map {

/// split(n, x)[i][j] = x[i*n + j] and slide(size, step, x)[i][j] = x[i*step + j]: chunk i
/// starts at i*step (step = n for split).
template <class Stack, class S>
void chunk(Stack& s, const S& step) {
  auto i = s.pop();
  auto j = s.pop();
  s.push(i * step + j);
}

/// join(x)[i] = x[i / m][i % m], where m is the length of x's rows.
template <class Stack, class S>
void join(Stack& s, const S& m) {
  auto i = s.pop();
  s.push(i % m);
  s.push(i / m);
}

/// transpose(x)[i][j] = x[j][i].
template <class Stack>
void transpose(Stack& s) {
  auto i = s.pop();
  auto j = s.pop();
  s.push(i);
  s.push(j);
}

/// pad(left, right, v, x)[i] = x[i - left] when pad_reads_operand(i - left, length of x),
/// else v. Pushes the operand index i - left and returns it (for the bounds check).
template <class Stack, class S>
auto pad(Stack& s, const S& left) {
  auto j = s.pop() - left;
  s.push(j);
  return j;
}

/// Whether pad's operand index `j` lies inside its operand of length `n` (else the element
/// is the pad value). For an AffineIndex: for every iteration of the loop.
template <class I, class S>
auto pad_reads_operand(const I& j, const S& n) {
  return 0 <= j && j < n;
}

/// The operand position that reorder(striddenIndex(stride), x) reads for result position
/// `i`, where n is the length of x (stride divides n): i / (n/stride) + stride * (i % (n/stride)).
template <class I, class S>
I stridden_index(const I& i, const S& n, const S& stride) {
  S block = n / stride;
  return i / block + stride * (i % block);
}

/// reorder(striddenIndex(stride), x)[i] = x[stridden_index(i, n, stride)], n = length of x.
template <class Stack, class S>
void reorder(Stack& s, const S& n, const S& stride) {
  auto i = s.pop();
  s.push(stridden_index(i, n, stride));
}

/// zip(x0, ..., xk)[i].c = xc[i]: leaves i pending and returns c, the operand to read.
template <class Stack>
int zip(Stack& s) {
  auto i = s.pop();
  int c = s.pop_component();
  s.push(std::move(i));
  return c;
}

/// concat(x0, ..., xk)[i] = xc[i - start], where xc is the operand whose elements the
/// result holds from `start` (the lengths of x0 .. x(c-1) summed) on, as told by
/// concat_reads_operand. Pushes the operand index i - start and returns it.
template <class Stack, class S>
auto concat(Stack& s, const S& start) {
  auto j = s.pop() - start;
  s.push(j);
  return j;
}

/// Whether concat's result index `i` lies in the operand that starts at `start` and has
/// length `n`. For an AffineIndex: for every iteration of the loop.
template <class I, class S>
auto concat_reads_operand(const I& i, const S& start, const S& n) {
  return start <= i && i < start + n;
}

/// asVector(w, x)[i] holds x[i*w + lane] in lane `lane` (0 <= lane < w).
template <class I, class S, class L>
I as_vector(const I& i, const S& w, const L& lane) {
  return i * w + lane;
}

/// asScalar(x)[i] = lane i % w of x[i / w], where x's vectors have w lanes: pushes i / w and
/// returns the lane.
template <class Stack, class S>
auto as_scalar(Stack& s, const S& w) {
  auto i = s.pop();
  s.push(i / w);
  return i % w;
}

}  // namespace liftc::ir::index_map
