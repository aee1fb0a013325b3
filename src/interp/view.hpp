#pragma once
// The kinds of view. Each rewrites the path it is asked to load by its primitive's index
// map (liftc/ir/index_map.hpp, where the formulas are) and forwards it to its operand (a
// Value, so an operand may itself be a part of another view). strided() and contiguous()
// push a loop's affine path or a constant path through the same maps, once per loop
// instead of once per element, to find where a loop's leaves lie in dense storage (a
// reduction then reads words instead of walking the views per element).

#include <memory>
#include <span>
#include <vector>

#include "liftc/ir/prim.hpp"
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

/// The view of layout primitive `prim` (ir::is_layout) with size arguments `sizes`, over its
/// operands' values in the order it takes them (pad: the fill, then the array), which it
/// moves from. Each layout primitive's view class lives in view.cpp, the only file that
/// names them.
std::shared_ptr<const View> layout_view(ir::Prim prim, const std::vector<std::int64_t>& sizes,
                                        std::span<Value> operands);

}  // namespace liftc::interp::detail
