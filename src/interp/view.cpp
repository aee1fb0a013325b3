#include "view.hpp"

#include <fmt/format.h>

namespace liftc::interp::detail {

namespace {

// The layout of the leaf that `path` addresses below `l`, without consuming the path.
const Layout* descend(const Layout* l, const Path& path) {
  for (int i = 0; i < path.size(); ++i) {
    std::int64_t step = path.from_back(i);
    l = step >= 0 ? l->elem : l->comps[tuple_component(step)];
  }
  return l;
}

}  // namespace

Value DenseView::load(Path& path) const {
  const Layout* l = root_;
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
  LIFTC_ASSERT(l->is_leaf(), "a dense load ends at a scalar or vector");
  const Word* w = words_->data() + offset;
  if (l->kind == ir::TypeKind::Scalar) return Value::scalar(l->scalar, w[0]);
  Value v = Value::vector(l->scalar, l->width);
  for (int i = 0; i < l->width; ++i) v.set_lane(i, w[i]);
  return v;
}

std::int64_t DenseView::offset_of(const Value& r) const {
  const Layout* l = root_;
  std::int64_t offset = 0;
  for (int i = 0; i < r.prefix_size(); ++i) {
    std::int64_t step = r.prefix(i);
    if (step >= 0) {
      l = l->elem;
      offset += step * l->words;
    } else {
      int k = tuple_component(step);
      offset += l->comp_offsets[k];
      l = l->comps[k];
    }
  }
  return offset;
}

Value TupleView::load(Path& path) const {
  std::int64_t step = path.pop();
  LIFTC_ASSERT(step < 0 && tuple_component(step) < static_cast<int>(comps_.size()), "tuple projection of a tuple");
  return load_in(comps_[tuple_component(step)], path);
}

Value ElementsView::load(Path& path) const {
  std::int64_t i = path.pop();
  LIFTC_ASSERT(i >= 0 && i < static_cast<std::int64_t>(elems_.size()), "index within the array");
  return load_in(elems_[i], path);
}

Value PrefixView::load(Path& path) const { return load_in(base_, path); }

Value JoinView::load(Path& path) const {
  std::int64_t i = path.pop();
  path.push(i % m_);
  path.push(i / m_);
  return load_in(x_, path);
}

Value ChunkView::load(Path& path) const {
  std::int64_t i = path.pop();
  std::int64_t j = path.pop();
  path.push(i * step_ + j);
  return load_in(x_, path);
}

Value PadView::load(Path& path) const {
  std::int64_t j = path.pop() - left_;
  if (j >= 0 && j < n_) {
    path.push(j);
    return load_in(x_, path);
  }
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
  std::int64_t i = path.pop();
  std::int64_t j = path.pop();
  path.push(i);
  path.push(j);
  return load_in(x_, path);
}

ReorderView::ReorderView(Value x, std::int64_t stride, std::int64_t n) : x_(std::move(x)), s_(stride), block_(0) {
  LIFTC_ASSERT(stride >= 1 && n % stride == 0, "the reorder stride divides the array length");
  block_ = n / stride;
}

Value ReorderView::load(Path& path) const {
  std::int64_t i = path.pop();
  path.push(i / block_ + s_ * (i % block_));
  return load_in(x_, path);
}

Value ZipView::load(Path& path) const {
  std::int64_t i = path.pop();
  std::int64_t step = path.pop();
  LIFTC_ASSERT(step < 0 && tuple_component(step) < static_cast<int>(xs_.size()), "a zip element is projected");
  path.push(i);
  return load_in(xs_[tuple_component(step)], path);
}

Value AsVectorView::load(Path& path) const {
  std::int64_t i = path.pop();
  LIFTC_ASSERT(path.empty(), "asVector's elements are vectors of scalars");
  Value v = Value::vector(kind_, width_);
  for (int l = 0; l < width_; ++l) {
    Path p;
    p.push(i * width_ + l);
    v.set_lane(l, load_in(x_, p).lane(0));
  }
  return v;
}

Value AsScalarView::load(Path& path) const {
  std::int64_t i = path.pop();
  path.push(i / width_);
  Value v = load_in(x_, path);
  LIFTC_ASSERT(v.is_vector() && v.width() == width_, "asScalar reads vectors");
  return Value::scalar(v.scalar_kind(), v.lane(static_cast<int>(i % width_)));
}

}  // namespace liftc::interp::detail
