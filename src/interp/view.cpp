#include "view.hpp"

#include <fmt/format.h>

#include "liftc/ir/index_map.hpp"

namespace liftc::interp::detail {

namespace index_map = ir::index_map;

namespace {

// The views of the layout primitives, built only by layout_view (at the end of this file).

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

/// concat(x0, ..., xk): x0's elements, then x1's, ...
class ConcatView final : public View {
 public:
  explicit ConcatView(std::vector<Value> xs);
  Value load(Path& path) const override;
  bool strided(AffinePath& path, Strided& out) const override;
  const Word* contiguous(Path& path) const override;

 private:
  // The operand that holds result index i (0 <= i < the result's length).
  std::size_t operand_at(std::int64_t i) const;

  std::vector<Value> xs_;
  std::vector<std::int64_t> starts_;  // where each operand's elements start in the result
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

// The layout of the leaf that `path` addresses below `l`, without consuming the path.
const Layout* descend(const Layout* l, const Path& path) {
  for (int i = 0; i < path.size(); ++i) {
    std::int64_t step = path.from_back(i);
    l = step >= 0 ? l->elem : l->comps[tuple_component(step)];
  }
  return l;
}

// Walks a constant path (consumed) down dense storage laid out by `l`: the word offset of the
// part it addresses, with `l` left at that part's layout. load, contiguous and offset_of
// all read dense storage through it.
std::int64_t dense_offset(const Layout*& l, Path& path) {
  std::int64_t offset = 0;
  while (!path.empty()) {
    std::int64_t step = path.pop();
    if (step >= 0) {
      LIFTC_ASSERT(l->is_array() && step < l->length,
                   fmt::format("index {} within an array of length {}", step, l->length));
      l = l->elem;
      offset += step * l->words;
    } else {
      int k = tuple_component(step);
      LIFTC_ASSERT(l->is_tuple() && k < static_cast<int>(l->comps.size()), "tuple projection of a tuple");
      offset += l->comp_offsets[k];
      l = l->comps[k];
    }
  }
  return offset;
}

}  // namespace

Value DenseView::load(Path& path) const {
  const Layout* l = root_;
  const Word* w = data() + dense_offset(l, path);
  LIFTC_ASSERT(l->is_leaf(), "a dense load ends at a scalar or vector");
  if (l->kind == ir::TypeKind::Scalar) return Value::scalar(l->scalar, w[0]);
  Value v = Value::vector(l->scalar, l->width);
  for (int i = 0; i < l->width; ++i) v.set_lane(i, w[i]);
  return v;
}

std::int64_t DenseView::offset_of(const Value& r) const {
  LIFTC_ASSERT(r.view().get() == this, "offset_of() of a reference into this view");
  Path whole;
  return contiguous_in(r, whole) - data();  // r's prefix walked down this storage
}

Value TupleView::load(Path& path) const {
  std::int64_t step = path.pop();
  LIFTC_ASSERT(step < 0 && tuple_component(step) < static_cast<int>(comps_.size()), "tuple projection of a tuple");
  return load_in(comps_[tuple_component(step)], path);
}

Value SingletonView::load(Path& path) const {
  std::int64_t i = path.pop();
  LIFTC_ASSERT(i == 0, "index within the array");
  return load_in(elem_, path);
}

Value PrefixView::load(Path& path) const { return load_in(base_, path); }

Value JoinView::load(Path& path) const {
  index_map::join(path, m_);
  return load_in(x_, path);
}

Value ChunkView::load(Path& path) const {
  index_map::chunk(path, step_);
  return load_in(x_, path);
}

Value PadView::load(Path& path) const {
  std::int64_t j = index_map::pad(path, left_);
  if (index_map::pad_reads_operand(j, n_)) return load_in(x_, path);
  path.pop();
  if (fill_.is_ref()) return load_in(fill_, path);  // a whole element given as the value
  const Layout* leaf = descend(elem_, path);
  if (leaf->kind == ir::TypeKind::Vector && fill_.is_scalar()) {
    Value v = Value::vector(fill_.scalar_kind(), leaf->width);
    for (int i = 0; i < leaf->width; ++i) v.set_lane(i, fill_.lane(0));
    return v;
  }
  return fill_;
}

Value TransposeView::load(Path& path) const {
  index_map::transpose(path);
  return load_in(x_, path);
}

ReorderView::ReorderView(Value x, std::int64_t stride, std::int64_t n) : x_(std::move(x)), s_(stride), n_(n) {
  LIFTC_ASSERT(stride >= 1 && n % stride == 0, "the reorder stride divides the array length");
}

Value ReorderView::load(Path& path) const {
  index_map::reorder(path, n_, s_);
  return load_in(x_, path);
}

Value ZipView::load(Path& path) const {
  int k = index_map::zip(path);
  LIFTC_ASSERT(k < static_cast<int>(xs_.size()), "a zip element is projected");
  return load_in(xs_[static_cast<std::size_t>(k)], path);
}

ConcatView::ConcatView(std::vector<Value> xs) : xs_(std::move(xs)) {
  std::int64_t start = 0;
  for (const Value& x : xs_) {
    starts_.push_back(start);
    start += x.layout()->length;
  }
}

std::size_t ConcatView::operand_at(std::int64_t i) const {
  for (std::size_t c = 0; c < xs_.size(); ++c)
    if (index_map::concat_reads_operand(i, starts_[c], xs_[c].layout()->length)) return c;
  LIFTC_ASSERT(false, fmt::format("index {} within a concat of {} elements", i, starts_.back() + xs_.back().layout()->length));
  return 0;
}

Value ConcatView::load(Path& path) const {
  std::size_t c = operand_at(path.from_back(0));
  index_map::concat(path, starts_[c]);
  return load_in(xs_[c], path);
}

Value AsVectorView::load(Path& path) const {
  std::int64_t i = path.pop();
  LIFTC_ASSERT(path.empty(), "asVector's elements are vectors of scalars");
  Value v = Value::vector(kind_, width_);
  for (int l = 0; l < width_; ++l) {
    Path p;
    p.push(index_map::as_vector(i, std::int64_t{width_}, std::int64_t{l}));
    v.set_lane(l, load_in(x_, p).lane(0));
  }
  return v;
}

Value AsScalarView::load(Path& path) const {
  std::int64_t lane = index_map::as_scalar(path, std::int64_t{width_});
  Value v = load_in(x_, path);
  LIFTC_ASSERT(v.is_vector() && v.width() == width_, "asScalar reads vectors");
  return Value::scalar(v.scalar_kind(), v.lane(static_cast<int>(lane)));
}

}  // namespace liftc::interp::detail

// ---- strided() and contiguous(): where a loop's leaves lie, resolved once per loop ----

namespace liftc::interp::detail {

namespace {

// Walks an affine path down dense storage laid out by `l` from `base`, starting at word
// offset c0 + a0 * t.
bool dense_strided(const Word* base, const Layout* l, AffinePath& path, Strided& out, std::int64_t c0 = 0,
                   std::int64_t a0 = 0) {
  if (!path.affine()) return false;
  std::int64_t c = c0, a = a0;
  while (!path.empty()) {
    AffineStep s = path.pop();
    if (l->is_array()) {
      l = l->elem;
      c += s.c * l->words;
      a += s.a * l->words;
    } else {
      LIFTC_ASSERT(l->is_tuple() && s.a == 0, "a tuple projection is a constant step");
      int k = tuple_component(s.c);
      c += l->comp_offsets[k];
      l = l->comps[k];
    }
  }
  if (!l->is_leaf()) return false;
  out = {base + c, a, l};
  return true;
}

// The start of the whole of `v` when it is stored contiguously, else nullptr.
const Word* contiguous_whole(const Value& v) {
  Path p;
  return contiguous_in(v, p);
}

}  // namespace

bool join_within_row(AffinePath& path, std::int64_t m, AffineStep& across) {
  if (path.empty()) return false;
  if ((path.top() / m).exact) {
    index_map::join(path, m);
    return true;
  }
  across = path.pop();
  return false;
}

bool join_across(const Word* base, const Layout* elem, AffineStep across, AffinePath& path, Strided& out) {
  return base != nullptr && dense_strided(base, elem, path, out, across.c * elem->words, across.a * elem->words);
}

bool pad_within(AffinePath& path, std::int64_t left, std::int64_t n) {
  return !path.empty() && index_map::pad_reads_operand(index_map::pad(path, left), n);
}

bool DenseView::strided(AffinePath& path, Strided& out) const { return dense_strided(data(), root_, path, out); }
const Word* DenseView::contiguous(Path& path) const {
  const Layout* l = root_;
  return data() + dense_offset(l, path);
}

bool TupleView::strided(AffinePath& path, Strided& out) const {
  if (path.empty()) return false;
  return strided_in(comps_[static_cast<std::size_t>(path.pop_component())], path, out);
}
const Word* TupleView::contiguous(Path& path) const {
  if (path.empty()) return nullptr;
  return contiguous_in(comps_[tuple_component(path.pop())], path);
}

bool SingletonView::strided(AffinePath& path, Strided& out) const {
  if (path.empty()) return false;
  AffineStep s = path.pop();
  if (s.a != 0 && path.trip_count() > 1) return false;  // one element: i stays 0
  return strided_in(elem_, path, out);
}
const Word* SingletonView::contiguous(Path& path) const {
  if (path.empty()) return nullptr;
  path.pop();
  return contiguous_in(elem_, path);
}

bool PrefixView::strided(AffinePath& path, Strided& out) const { return strided_in(base_, path, out); }
const Word* PrefixView::contiguous(Path& path) const { return contiguous_in(base_, path); }

bool JoinView::strided(AffinePath& path, Strided& out) const {
  AffineStep across = path.step(-1, 0);
  if (join_within_row(path, m_, across)) return strided_in(x_, path, out);
  return across.c >= 0 && join_across(contiguous_whole(x_), x_.layout()->elem->elem, across, path, out);
}
const Word* JoinView::contiguous(Path& path) const {
  if (path.empty()) return contiguous_whole(x_);  // x's rows back to back are the join
  index_map::join(path, m_);
  return contiguous_in(x_, path);
}

bool ChunkView::strided(AffinePath& path, Strided& out) const {
  if (path.size() < 2) return false;
  index_map::chunk(path, step_);
  return strided_in(x_, path, out);
}
const Word* ChunkView::contiguous(Path& path) const {
  if (path.size() >= 2) {
    index_map::chunk(path, step_);
    return contiguous_in(x_, path);
  }
  const Word* base = contiguous_whole(x_);
  if (base == nullptr) return nullptr;
  if (path.empty()) return size_ == step_ ? base : nullptr;  // split's chunks are back to back
  return base + path.pop() * step_ * x_.layout()->elem->words;  // one chunk
}

bool PadView::strided(AffinePath& path, Strided& out) const {
  return pad_within(path, left_, n_) && strided_in(x_, path, out);
}
const Word* PadView::contiguous(Path& path) const {
  if (path.empty()) return nullptr;
  if (!index_map::pad_reads_operand(index_map::pad(path, left_), n_)) return nullptr;
  return contiguous_in(x_, path);
}

bool TransposeView::strided(AffinePath& path, Strided& out) const {
  if (path.size() < 2) return false;
  index_map::transpose(path);
  return strided_in(x_, path, out);
}
const Word* TransposeView::contiguous(Path& path) const {
  if (path.size() < 2) return nullptr;
  index_map::transpose(path);
  return contiguous_in(x_, path);
}

// Affine only while the index stays in one block of n / s (a constant index, say); else a
// gather, and the path is no longer affine.
bool ReorderView::strided(AffinePath& path, Strided& out) const {
  if (path.empty()) return false;
  index_map::reorder(path, n_, s_);
  return strided_in(x_, path, out);
}
const Word* ReorderView::contiguous(Path& path) const {
  if (path.empty()) return nullptr;
  index_map::reorder(path, n_, s_);
  return contiguous_in(x_, path);
}

bool ZipView::strided(AffinePath& path, Strided& out) const {
  if (path.size() < 2) return false;
  int k = index_map::zip(path);
  return strided_in(xs_[static_cast<std::size_t>(k)], path, out);
}
const Word* ZipView::contiguous(Path& path) const {
  if (path.size() < 2) return nullptr;
  int k = index_map::zip(path);
  return contiguous_in(xs_[static_cast<std::size_t>(k)], path);
}

// Strided while every iteration reads one operand.
bool ConcatView::strided(AffinePath& path, Strided& out) const {
  if (path.empty()) return false;
  const AffineStep i = path.top();
  for (std::size_t c = 0; c < xs_.size(); ++c) {
    if (!index_map::concat_reads_operand(i, starts_[c], xs_[c].layout()->length)) continue;
    index_map::concat(path, starts_[c]);
    return strided_in(xs_[c], path, out);
  }
  return false;
}
const Word* ConcatView::contiguous(Path& path) const {
  if (path.empty()) return nullptr;  // the operands are stored apart
  std::size_t c = operand_at(path.from_back(0));
  index_map::concat(path, starts_[c]);
  return contiguous_in(xs_[c], path);
}

// asVector's vectors are assembled from scalars and asScalar's scalars are lanes: their
// elements are not leaves of x, but the whole of either is x's words.
bool AsVectorView::strided(AffinePath&, Strided&) const { return false; }
const Word* AsVectorView::contiguous(Path& path) const { return path.empty() ? contiguous_whole(x_) : nullptr; }
bool AsScalarView::strided(AffinePath&, Strided&) const { return false; }
const Word* AsScalarView::contiguous(Path& path) const { return path.empty() ? contiguous_whole(x_) : nullptr; }

std::shared_ptr<const View> layout_view(ir::Prim prim, const std::vector<std::int64_t>& sizes,
                                        std::span<Value> operands) {
  Value& x = operands.back();  // the array every layout primitive but zip and concat takes last
  switch (prim) {
    case ir::Prim::Zip:
      return std::make_shared<ZipView>(
          std::vector<Value>(std::make_move_iterator(operands.begin()), std::make_move_iterator(operands.end())));
    case ir::Prim::Concat:
      return std::make_shared<ConcatView>(
          std::vector<Value>(std::make_move_iterator(operands.begin()), std::make_move_iterator(operands.end())));
    case ir::Prim::Split: return std::make_shared<ChunkView>(std::move(x), sizes[0], sizes[0]);
    case ir::Prim::Slide: return std::make_shared<ChunkView>(std::move(x), sizes[0], sizes[1]);
    case ir::Prim::Join: {
      std::int64_t m = x.layout()->elem->length;
      return std::make_shared<JoinView>(std::move(x), m);
    }
    case ir::Prim::Pad: {
      const Layout* xl = x.layout();
      return std::make_shared<PadView>(std::move(x), sizes[0], xl->length, std::move(operands[0]), xl->elem);
    }
    case ir::Prim::Transpose: return std::make_shared<TransposeView>(std::move(x));
    case ir::Prim::Reorder: {
      std::int64_t n = x.layout()->length;
      return std::make_shared<ReorderView>(std::move(x), sizes[0], n);
    }
    case ir::Prim::AsVector: {
      ir::ScalarKind k = x.layout()->elem->scalar;
      return std::make_shared<AsVectorView>(std::move(x), static_cast<int>(sizes[0]), k);
    }
    case ir::Prim::AsScalar: {
      int w = x.layout()->elem->width;
      return std::make_shared<AsScalarView>(std::move(x), w);
    }
    case ir::Prim::Map: case ir::Prim::Reduce: case ir::Prim::Id: case ir::Prim::Array: case ir::Prim::MapWrg:
    case ir::Prim::MapLcl: case ir::Prim::MapGlb: case ir::Prim::MapSeq: case ir::Prim::ReduceSeq:
    case ir::Prim::ToGlobal: case ir::Prim::ToLocal: case ir::Prim::ToPrivate: case ir::Prim::Vectorize:
    case ir::Prim::Dot: LIFTC_SCALAR_BUILTIN_CASES
      break;
  }
  LIFTC_ASSERT(false, fmt::format("'{}' is a layout primitive", ir::signature(prim).name));
  return {};
}

}  // namespace liftc::interp::detail
