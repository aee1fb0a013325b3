#include "value.hpp"

#include <cstring>

#include <fmt/format.h>

#include "view.hpp"

namespace liftc::interp::detail {

Value Value::sub_ref(std::int64_t step, const Layout* part) const {
  LIFTC_ASSERT(is_ref() && !part->is_leaf(), "sub_ref of a reference, to an array or tuple part");
  Value r;
  if (prefix_size_ < kPrefixCapacity) {
    r = *this;
  } else {
    r = ref(std::make_shared<PrefixView>(*this), layout_);
  }
  r.u_.prefix[r.prefix_size_++] = step;
  r.layout_ = part;
  return r;
}

Value load_in(const Value& v, Path& path) {
  if (!v.is_ref()) {
    LIFTC_ASSERT(path.empty(), "a path ends at a scalar or vector");
    return v;
  }
  for (int i = v.prefix_size() - 1; i >= 0; --i) path.push(v.prefix(i));
  return v.view()->load(path);
}

bool strided_in(const Value& v, AffinePath& path, Strided& out) {
  if (!v.is_ref()) return false;
  for (int i = v.prefix_size() - 1; i >= 0; --i) path.push(path.step(v.prefix(i), 0));
  return path.affine() && v.view()->strided(path, out);
}

const Word* contiguous_in(const Value& v, Path& path) {
  if (!v.is_ref()) return nullptr;
  for (int i = v.prefix_size() - 1; i >= 0; --i) path.push(v.prefix(i));
  return v.view()->contiguous(path);
}

Value element(const Value& array, std::int64_t i) {
  const Layout* l = array.layout();
  LIFTC_ASSERT(array.is_ref() && l->is_array(), "element() of an array");
  LIFTC_ASSERT(i >= 0 && i < l->length, fmt::format("index {} within an array of length {}", i, l->length));
  if (!l->elem->is_leaf()) return array.sub_ref(i, l->elem);
  Path p;
  p.push(i);
  return load_in(array, p);
}

Value component(const Value& tuple, int k) {
  const Layout* l = tuple.layout();
  LIFTC_ASSERT(tuple.is_ref() && l->is_tuple() && k >= 0 && k < static_cast<int>(l->comps.size()),
               "component() of a tuple, in range");
  const Layout* c = l->comps[k];
  if (!c->is_leaf()) return tuple.sub_ref(tuple_step(k), c);
  Path p;
  p.push(tuple_step(k));
  return load_in(tuple, p);
}

void store(const Value& v, const Layout* layout, Word* dst) {
  switch (v.kind()) {
    case Value::Kind::Scalar:
      LIFTC_ASSERT(layout->kind == ir::TypeKind::Scalar, "a scalar is stored where a scalar goes");
      dst[0] = v.lane(0);
      return;
    case Value::Kind::Vector:
      LIFTC_ASSERT(layout->kind == ir::TypeKind::Vector && layout->width == v.width(),
                   "a vector is stored where a vector of its width goes");
      for (int i = 0; i < v.width(); ++i) dst[i] = v.lane(i);
      return;
    case Value::Kind::Ref:
      break;
  }
  LIFTC_ASSERT(v.layout()->words == layout->words, "a reference is stored where its type goes");
  if (const DenseView* d = v.view()->as_dense()) {
    std::memcpy(dst, d->data() + d->offset_of(v), static_cast<std::size_t>(layout->words) * sizeof(Word));
    return;
  }
  if (layout->is_array()) {
    for (std::int64_t j = 0; j < layout->length; ++j) store(element(v, j), layout->elem, dst + j * layout->elem->words);
  } else {
    for (std::size_t k = 0; k < layout->comps.size(); ++k)
      store(component(v, static_cast<int>(k)), layout->comps[k], dst + layout->comp_offsets[k]);
  }
}

}  // namespace liftc::interp::detail
