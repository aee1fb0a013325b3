// reduce's fold over strided dense leaves with a float-arithmetic body: the inner loop of
// every convolution, stencil and matrix product, without Values or view walks.

#include <algorithm>
#include <array>
#include <bit>
#include <optional>

#include "eval.hpp"
#include "liftc/ir/index_map.hpp"
#include "view.hpp"

namespace liftc::interp::detail {

namespace index_map = ir::index_map;

bool Evaluator::strided_code(const Code& c, AffinePath& path, Strided& out) {
  if (c.op == Op::Var) return strided_in(frame_[static_cast<std::size_t>(c.slot)], path, out);
  if (c.op != Op::Call) return false;
  const auto& a = c.args;
  switch (c.prim) {
    // The views' strided(), on expressions (view.cpp): the same index maps and helpers.
    case ir::Prim::Zip: {
      if (path.size() < 2) return false;
      int k = index_map::zip(path);
      return strided_code(*a[static_cast<std::size_t>(k)], path, out);
    }
    case ir::Prim::Join: {
      const Code& x = *a[0];
      AffineStep across = path.step(-1, 0);
      if (join_within_row(path, x.layout->elem->length, across)) return strided_code(x, path, out);
      Path whole;
      return across.c >= 0 && join_across(contiguous_code(x, whole), x.layout->elem->elem, across, path, out);
    }
    case ir::Prim::Split:
    case ir::Prim::Slide:
      if (path.size() < 2) return false;
      index_map::chunk(path, c.prim == ir::Prim::Split ? c.sizes[0] : c.sizes[1]);
      return strided_code(*a[0], path, out);
    case ir::Prim::Pad: return pad_within(path, c.sizes[0], a[1]->layout->length) && strided_code(*a[1], path, out);
    case ir::Prim::Transpose:
      if (path.size() < 2) return false;
      index_map::transpose(path);
      return strided_code(*a[0], path, out);
    case ir::Prim::Id: return strided_code(*a[0], path, out);
    // Evaluated instead: the rest of the layout primitives (view.cpp has their strided()),
    // and everything that computes.
    case ir::Prim::Concat: case ir::Prim::Reorder: case ir::Prim::AsVector: case ir::Prim::AsScalar:
    case ir::Prim::Array: case ir::Prim::Map: case ir::Prim::Reduce: case ir::Prim::MapWrg: case ir::Prim::MapLcl:
    case ir::Prim::MapGlb: case ir::Prim::MapSeq: case ir::Prim::ReduceSeq: case ir::Prim::ToGlobal:
    case ir::Prim::ToLocal: case ir::Prim::ToPrivate: case ir::Prim::Vectorize: case ir::Prim::Dot:
    LIFTC_SCALAR_BUILTIN_CASES
      return false;
  }
  return false;
}

const Word* Evaluator::contiguous_code(const Code& c, Path& path) {
  if (c.op == Op::Var) return contiguous_in(frame_[static_cast<std::size_t>(c.slot)], path);
  if (c.op != Op::Call) return nullptr;
  const Code& x = *c.args[0];
  switch (c.prim) {
    // The views' contiguous() (view.cpp), on expressions.
    case ir::Prim::Join:
      if (path.empty()) return contiguous_code(x, path);  // x's rows back to back are the join
      index_map::join(path, x.layout->elem->length);
      return contiguous_code(x, path);
    case ir::Prim::Split:  // whole or down to an element
      if (path.empty()) return contiguous_code(x, path);
      if (path.size() < 2) return nullptr;
      index_map::chunk(path, c.sizes[0]);
      return contiguous_code(x, path);
    case ir::Prim::Id: return contiguous_code(x, path);
    // Evaluated instead.
    case ir::Prim::Zip: case ir::Prim::Concat: case ir::Prim::Slide: case ir::Prim::Pad: case ir::Prim::Transpose:
    case ir::Prim::Reorder: case ir::Prim::AsVector: case ir::Prim::AsScalar: case ir::Prim::Array:
    case ir::Prim::Map: case ir::Prim::Reduce: case ir::Prim::MapWrg: case ir::Prim::MapLcl:
    case ir::Prim::MapGlb: case ir::Prim::MapSeq: case ir::Prim::ReduceSeq: case ir::Prim::ToGlobal:
    case ir::Prim::ToLocal: case ir::Prim::ToPrivate: case ir::Prim::Vectorize: case ir::Prim::Dot:
    LIFTC_SCALAR_BUILTIN_CASES
      return nullptr;
  }
  return nullptr;
}

bool Evaluator::reduce_strided(const Code& f, float& acc, std::int64_t n, const Value* xs, const Code* xs_code) {
  if (f.float_body.empty() || f.params.size() != 2 || n == 0) return false;
  auto is_float = [](const Layout* l) { return l->kind == ir::TypeKind::Scalar && l->scalar == ir::ScalarKind::Float; };

  // The element's float leaves: the element itself, or each component of a tuple element.
  constexpr int kMaxColumns = 8;
  struct Column {
    int slot;
    const Word* base;
    std::int64_t stride;
  };
  std::array<Column, kMaxColumns> cols;
  int ncols = 0;
  auto resolve = [&](int slot, const Layout* leaf, std::optional<int> component_index) {
    if (!is_float(leaf) || ncols == kMaxColumns) return false;
    AffinePath path(n);
    if (component_index) path.push(path.step(tuple_step(*component_index), 0));
    path.push(path.step(0, 1));  // element i
    Strided s;
    if (!(xs ? strided_in(*xs, path, s) : strided_code(*xs_code, path, s)) || !is_float(s.leaf)) return false;
    cols[static_cast<std::size_t>(ncols++)] = {slot, s.base, s.stride};
    return true;
  };
  const Layout* elem = (xs ? xs->layout() : xs_code->layout)->elem;
  const std::vector<int>& comps = f.param_comps[1];
  if (comps.empty()) {
    if (!resolve(f.params[1], elem, std::nullopt)) return false;
  } else {
    for (std::size_t k = 0; k < comps.size(); ++k)
      if (!resolve(comps[k], elem->comps[k], static_cast<int>(k))) return false;
  }

  // The body with its operands resolved: the accumulator, a column, or a constant (a
  // literal, or a variable bound outside the loop, which the loop does not change).
  using K = FoldInstr::Kind;
  std::vector<FoldInstr>& prog = fold_program_;
  prog.clear();
  for (const FloatInstr& in : f.float_body) {
    switch (in.kind) {
      case FloatInstr::Kind::Slot: {
        if (in.slot == f.params[0]) {
          prog.push_back({K::Acc, 0, 0.f});
          break;
        }
        int col = -1;
        for (int k = 0; k < ncols; ++k)
          if (cols[static_cast<std::size_t>(k)].slot == in.slot) col = k;
        if (col >= 0) {
          prog.push_back({K::Col, col, 0.f});
          break;
        }
        const Value& v = frame_[static_cast<std::size_t>(in.slot)];
        if (!v.is_scalar() || v.scalar_kind() != ir::ScalarKind::Float) return false;
        prog.push_back({K::Const, 0, v.as_float()});
        break;
      }
      case FloatInstr::Kind::Const: prog.push_back({K::Const, 0, in.value}); break;
      case FloatInstr::Kind::Add: prog.push_back({K::Add, 0, 0.f}); break;
      case FloatInstr::Kind::Sub: prog.push_back({K::Sub, 0, 0.f}); break;
      case FloatInstr::Kind::Mul: prog.push_back({K::Mul, 0, 0.f}); break;
      case FloatInstr::Kind::Div: prog.push_back({K::Div, 0, 0.f}); break;
    }
  }
  auto load = [&](int col, std::int64_t i) {
    const Column& c = cols[static_cast<std::size_t>(col)];
    return std::bit_cast<float>(c.base[i * c.stride]);
  };

  float a = acc;
  // The two folds of every convolution and stencil, as plain loops: acc + x * y, acc + x.
  auto is = [&](std::initializer_list<K> kinds) {
    return prog.size() == kinds.size() && std::equal(kinds.begin(), kinds.end(), prog.begin(),
                                                     [](K k, const FoldInstr& in) { return in.kind == k; });
  };
  if (is({K::Acc, K::Col, K::Col, K::Mul, K::Add})) {
    const Column &x = cols[static_cast<std::size_t>(prog[1].col)], &y = cols[static_cast<std::size_t>(prog[2].col)];
    for (std::int64_t i = 0; i < n; ++i)
      a = a + std::bit_cast<float>(x.base[i * x.stride]) * std::bit_cast<float>(y.base[i * y.stride]);
  } else if (is({K::Acc, K::Col, K::Add})) {
    const Column& x = cols[static_cast<std::size_t>(prog[1].col)];
    for (std::int64_t i = 0; i < n; ++i) a = a + std::bit_cast<float>(x.base[i * x.stride]);
  } else {
    for (std::int64_t i = 0; i < n; ++i) {
      float st[kFloatStackDepth];
      int sp = 0;
      for (const FoldInstr& in : prog) {
        switch (in.kind) {
          case K::Acc: st[sp++] = a; break;
          case K::Col: st[sp++] = load(in.col, i); break;
          case K::Const: st[sp++] = in.value; break;
          case K::Add: --sp; st[sp - 1] = st[sp - 1] + st[sp]; break;
          case K::Sub: --sp; st[sp - 1] = st[sp - 1] - st[sp]; break;
          case K::Mul: --sp; st[sp - 1] = st[sp - 1] * st[sp]; break;
          case K::Div: --sp; st[sp - 1] = st[sp - 1] / st[sp]; break;
        }
      }
      a = st[0];
    }
  }
  acc = a;
  return true;
}

}  // namespace liftc::interp::detail
