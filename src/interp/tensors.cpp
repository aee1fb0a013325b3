// empty_tensor_for, random_inputs, and tensor <-> value conversions.

#include "tensors.hpp"

#include <random>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "liftc/interp/interp.hpp"
#include "liftc/support/fnv1a.hpp"
#include "view.hpp"

namespace liftc::interp {

namespace detail {

bool has_tensor_form(const Layout* l) {
  while (l->is_array()) l = l->elem;
  return l->is_leaf();
}

Value to_value(const io::Tensor& t, const Layout* l) {
  auto words = std::make_shared<std::vector<Word>>(static_cast<std::size_t>(l->words));
  const Layout* leaf = l;
  while (leaf->is_array()) leaf = leaf->elem;
  for (std::size_t i = 0; i < words->size(); ++i) {
    if (t.dtype == io::DType::Float32) (*words)[i] = std::bit_cast<Word>(t.f32[i]);
    else if (leaf->scalar == ir::ScalarKind::Bool) (*words)[i] = t.i32[i] != 0 ? 1u : 0u;
    else (*words)[i] = static_cast<Word>(t.i32[i]);
  }
  if (l->is_array()) return Value::ref(std::make_shared<DenseView>(std::move(words), l), l);
  if (l->kind == ir::TypeKind::Scalar) return Value::scalar(l->scalar, (*words)[0]);
  Value v = Value::vector(l->scalar, l->width);
  for (int i = 0; i < l->width; ++i) v.set_lane(i, (*words)[static_cast<std::size_t>(i)]);
  return v;
}

io::Tensor to_tensor(const Value& v, const Layout* l, const ir::Type& type) {
  io::Tensor t = empty_tensor_for(type, "an output");
  std::vector<Word> words(static_cast<std::size_t>(l->words));
  store(v, l, words.data());
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (t.dtype == io::DType::Float32) t.f32[i] = std::bit_cast<float>(words[i]);
    else t.i32[i] = static_cast<std::int32_t>(words[i]);
  }
  return t;
}

namespace {

// A scalar or vector leaf of a layout: the tuple indices that lead to it and its tensor.
struct Component {
  std::vector<int> path;
  io::Tensor tensor;
};

// Lists the leaves below `l`: arrays add a dimension, tuples a path step.
void list_components(const Layout* l, std::vector<int>& path, std::vector<std::int64_t>& shape,
                     std::vector<Component>& out) {
  if (l->is_array()) {
    shape.push_back(l->length);
    list_components(l->elem, path, shape, out);
    shape.pop_back();
  } else if (l->is_tuple()) {
    for (std::size_t c = 0; c < l->comps.size(); ++c) {
      path.push_back(static_cast<int>(c));
      list_components(l->comps[c], path, shape, out);
      path.pop_back();
    }
  } else {
    Component c{path, {}};
    c.tensor.shape = shape;
    if (l->kind == ir::TypeKind::Vector) c.tensor.shape.push_back(l->width);
    c.tensor.dtype = l->scalar == ir::ScalarKind::Float ? io::DType::Float32 : io::DType::Int32;
    out.push_back(std::move(c));
  }
}

// Appends the words of leaf `path` of every element below `l` (at `offset` in `words`).
void gather(const Layout* l, std::int64_t offset, const std::vector<int>& path, std::size_t step,
            const std::vector<Word>& words, std::vector<Word>& out) {
  if (l->is_array()) {
    for (std::int64_t i = 0; i < l->length; ++i) gather(l->elem, offset + i * l->elem->words, path, step, words, out);
  } else if (l->is_tuple()) {
    auto c = static_cast<std::size_t>(path[step]);
    gather(l->comps[c], offset + l->comp_offsets[c], path, step + 1, words, out);
  } else {
    out.insert(out.end(), words.begin() + offset, words.begin() + offset + l->words);
  }
}

}  // namespace

std::vector<std::pair<std::string, io::Tensor>> component_tensors(const Value& v, const Layout* l) {
  check_allocation(2 * l->words, "the tensors of a tuple-valued definition");
  std::vector<Word> words(static_cast<std::size_t>(l->words));
  store(v, l, words.data());
  std::vector<Component> components;
  std::vector<int> path;
  std::vector<std::int64_t> shape;
  list_components(l, path, shape, components);
  std::vector<std::pair<std::string, io::Tensor>> out;
  for (Component& c : components) {
    std::vector<Word> leaf;
    gather(l, 0, c.path, 0, words, leaf);
    io::Tensor& t = c.tensor;
    if (t.dtype == io::DType::Float32)
      for (Word w : leaf) t.f32.push_back(std::bit_cast<float>(w));
    else
      for (Word w : leaf) t.i32.push_back(static_cast<std::int32_t>(w));
    out.emplace_back(fmt::format("{}", fmt::join(c.path, ".")), std::move(t));
  }
  return out;
}

}  // namespace detail

io::Tensor empty_tensor_for(const ir::Type& concrete, const std::string& what) {
  io::Tensor t;
  ir::Type ty = concrete;
  while (ty.is_array()) {
    std::optional<std::int64_t> n = ty.length().constant();
    if (!n) throw Error(fmt::format("{}: type {} has the symbolic length {}; give every size a value", what,
                                    ir::to_string(concrete), arith::to_string(ty.length())));
    t.shape.push_back(*n);
    ty = ty.elem();
  }
  if (ty.is_tuple())
    throw Error(fmt::format("{}: type {} holds tuples, which have no .npy form (only arrays of scalars or vectors)",
                            what, ir::to_string(concrete)));
  if (ty.is_vector()) t.shape.push_back(ty.width());
  t.dtype = ty.scalar_kind() == ir::ScalarKind::Float ? io::DType::Float32 : io::DType::Int32;
  std::int64_t elements = 0;
  try {
    elements = t.element_count();
  } catch (const Error&) {
    throw Error(fmt::format("{}: type {} is too large: its element count does not fit in 64 bits (give smaller sizes)",
                            what, ir::to_string(concrete)));
  }
  detail::check_allocation(elements, fmt::format("{} of type {}", what, ir::to_string(concrete)));
  auto count = static_cast<std::size_t>(elements);
  if (t.dtype == io::DType::Float32) t.f32.assign(count, 0.0f);
  else t.i32.assign(count, 0);
  return t;
}

void require_tensor_inputs(const ir::Program& program) {
  for (const ir::InputDecl& in : program.inputs) {
    ir::Type element = in.type;
    while (element.is_array()) element = element.elem();
    if (!element.is_tuple()) continue;
    throw Error(fmt::format("input {} of type {} holds tuples: liftc runs programs on tensors (.npy files), which "
                            "hold arrays of scalars or vectors; declare one input per component of the tuple and zip "
                            "them where the program reads them",
                            in.name, ir::to_string(in.type)),
                in.loc);
  }
}

Tensors random_inputs(const ir::Program& checked, std::uint64_t seed) {
  Tensors out;
  for (const ir::InputDecl& in : checked.inputs) {
    io::Tensor t = empty_tensor_for(in.type, fmt::format("input '{}'", in.name));
    std::mt19937_64 rng(seed ^ fnv1a_64(in.name));  // each input its own stream, on every platform
    bool is_bool = ir::base_scalar(in.type).defined() && ir::base_scalar(in.type).scalar_kind() == ir::ScalarKind::Bool;
    for (float& f : t.f32) f = static_cast<float>(static_cast<double>(rng() >> 40) * 0x1p-23 - 1.0);  // [-1, 1)
    for (std::int32_t& i : t.i32) i = is_bool ? static_cast<std::int32_t>(rng() >> 63) : static_cast<std::int32_t>((rng() >> 11) % 17) - 8;
    out.emplace(in.name, std::move(t));
  }
  return out;
}

}  // namespace liftc::interp
