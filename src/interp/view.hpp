#pragma once
// The kinds of view. Each rewrites the path it is asked to load by its primitive's index
// map (liftc/ir/index_map.hpp, where the formulas are) and forwards it to its operand (a
// Value, so an operand may itself be a part of another view). strided() and contiguous()
// push a loop's affine path or a constant path through the same maps, once per loop
// instead of once per element, to find where a loop's leaves lie in dense storage (a
// reduction then reads words instead of walking the views per element).

#include <memory>
#include <vector>

#include "value.hpp"

namespace liftc::interp::detail {

// What strided() does besides the index maps, shared by the views and by the reduction
// that resolves its operand's expression without building the views
// (Evaluator::strided_code).

/// join (rows of `m`): true when every iteration stays in one row (join's map applied);
/// else false with the popped step in `across` (then strided only when the rows are back
/// to back: see join_across). `across` is left alone when the path is empty.
bool join_within_row(AffinePath& path, std::int64_t m, AffineStep& across);
/// join across rows stored back to back from `base` (rows of elements of layout `elem`).
bool join_across(const Word* base, const Layout* elem, AffineStep across, AffinePath& path, Strided& out);
/// pad(left, ..., x) with x of length n: true when no iteration reads the fill (pad's map
/// applied); false when one does or the path is empty.
bool pad_within(AffinePath& path, std::int64_t left, std::int64_t n);

/// Materialized data: a dense buffer of words laid out by `root`.
class DenseView final : public View {
 public:
  DenseView(std::shared_ptr<const std::vector<Word>> words, const Layout* root)
      : words_(std::move(words)), root_(root) {}
  Value load(Path& path) const override;
  bool strided(AffinePath& path, Strided& out) const override;
  const Word* contiguous(Path& path) const override;
  const DenseView* as_dense() const override { return this; }
  /// The word offset of the part that reference `r` (whose view is this one) selects.
  std::int64_t offset_of(const Value& r) const;
  const Word* data() const { return words_->data(); }

 private:
  std::shared_ptr<const std::vector<Word>> words_;
  const Layout* root_;
};

/// A tuple built by a Tuple expression: its components as values.
class TupleView final : public View {
 public:
  explicit TupleView(std::vector<Value> comps) : comps_(std::move(comps)) {}
  Value load(Path& path) const override;
  bool strided(AffinePath& path, Strided& out) const override;
  const Word* contiguous(Path& path) const override;

 private:
  std::vector<Value> comps_;
};

/// An array of one element given as a value (the result of a reduction).
class SingletonView final : public View {
 public:
  explicit SingletonView(Value elem) : elem_(std::move(elem)) {}
  Value load(Path& path) const override;
  bool strided(AffinePath& path, Strided& out) const override;
  const Word* contiguous(Path& path) const override;

 private:
  Value elem_;
};

/// A reference whose prefix outgrew Value's inline capacity, as a view of its own.
class PrefixView final : public View {
 public:
  explicit PrefixView(Value base) : base_(std::move(base)) {}
  Value load(Path& path) const override;
  bool strided(AffinePath& path, Strided& out) const override;
  const Word* contiguous(Path& path) const override;

 private:
  Value base_;
};

/// join(x): x's rows concatenated; `row_length` is m.
class JoinView final : public View {
 public:
  JoinView(Value x, std::int64_t row_length) : x_(std::move(x)), m_(row_length) {}
  Value load(Path& path) const override;
  bool strided(AffinePath& path, Strided& out) const override;
  const Word* contiguous(Path& path) const override;

 private:
  Value x_;
  std::int64_t m_;
};

/// split(n, x) and slide(size, step, x): chunk i starts at i * step and holds `size`
/// elements (size = step = n for split).
class ChunkView final : public View {
 public:
  ChunkView(Value x, std::int64_t size, std::int64_t step) : x_(std::move(x)), size_(size), step_(step) {}
  Value load(Path& path) const override;
  bool strided(AffinePath& path, Strided& out) const override;
  const Word* contiguous(Path& path) const override;

 private:
  Value x_;
  std::int64_t size_, step_;
};

/// pad(left, right, value, x); negative amounts crop.
class PadView final : public View {
 public:
  PadView(Value x, std::int64_t left, std::int64_t x_length, Value fill, const Layout* elem)
      : x_(std::move(x)), left_(left), n_(x_length), fill_(std::move(fill)), elem_(elem) {}
  Value load(Path& path) const override;
  bool strided(AffinePath& path, Strided& out) const override;
  const Word* contiguous(Path& path) const override;

 private:
  Value x_;
  std::int64_t left_, n_;
  Value fill_;
  const Layout* elem_;
};

/// transpose(x).
class TransposeView final : public View {
 public:
  explicit TransposeView(Value x) : x_(std::move(x)) {}
  Value load(Path& path) const override;
  bool strided(AffinePath& path, Strided& out) const override;
  const Word* contiguous(Path& path) const override;

 private:
  Value x_;
};

/// reorder(striddenIndex(s), x) over an array of length n (s divides n).
class ReorderView final : public View {
 public:
  ReorderView(Value x, std::int64_t stride, std::int64_t n);
  Value load(Path& path) const override;
  bool strided(AffinePath& path, Strided& out) const override;
  const Word* contiguous(Path& path) const override;

 private:
  Value x_;
  std::int64_t s_, n_;
};

/// zip(x1, ..., xk).
class ZipView final : public View {
 public:
  explicit ZipView(std::vector<Value> xs) : xs_(std::move(xs)) {}
  Value load(Path& path) const override;
  bool strided(AffinePath& path, Strided& out) const override;
  const Word* contiguous(Path& path) const override;

 private:
  std::vector<Value> xs_;
};

/// asVector(v, x) over an array of scalars of `kind`.
class AsVectorView final : public View {
 public:
  AsVectorView(Value x, int width, ir::ScalarKind kind) : x_(std::move(x)), width_(width), kind_(kind) {}
  Value load(Path& path) const override;
  bool strided(AffinePath& path, Strided& out) const override;
  const Word* contiguous(Path& path) const override;

 private:
  Value x_;
  int width_;
  ir::ScalarKind kind_;
};

/// asScalar(x) over an array of vectors of `width` lanes.
class AsScalarView final : public View {
 public:
  AsScalarView(Value x, int width) : x_(std::move(x)), width_(width) {}
  Value load(Path& path) const override;
  bool strided(AffinePath& path, Strided& out) const override;
  const Word* contiguous(Path& path) const override;

 private:
  Value x_;
  int width_;
};

}  // namespace liftc::interp::detail
