// Views and their resolution into index expressions (see view.hpp).

#include "liftc/codegen/view.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "liftc/ir/index_map.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::codegen {

ViewKind View::kind() const { return node_->kind; }
const ir::Type& View::type() const { return node_->type; }

namespace {

View make(ViewKind k, ir::Type t, std::vector<View> children = {}, std::vector<arith::Expr> sizes = {}) {
  ViewNode n;
  n.kind = k;
  n.type = std::move(t);
  n.children = std::move(children);
  n.sizes = std::move(sizes);
  return View(std::make_shared<const ViewNode>(std::move(n)));
}

const ir::Type& array_of(const View& v, const char* what) {
  LIFTC_ASSERT(v.type().is_array(), fmt::format("{} of a view of type {}", what, ir::to_string(v.type())));
  return v.type();
}

}  // namespace

arith::Expr scalar_count(const ir::Type& t) {
  switch (t.kind()) {
    case ir::TypeKind::Scalar: return 1;
    case ir::TypeKind::Vector: return t.width();
    case ir::TypeKind::Array: return t.length() * scalar_count(t.elem());
    case ir::TypeKind::Tuple: break;
  }
  throw Error(fmt::format("a value of type {} cannot be stored as one buffer", ir::to_string(t)));
}

ir::Type element_type(const ir::Type& t) { return t.is_array() ? element_type(t.elem()) : t; }

View mem_view(std::shared_ptr<const Memory> m) {
  ViewNode n;
  n.kind = ViewKind::Mem;
  n.type = m->type;
  n.memory = std::move(m);
  return View(std::make_shared<const ViewNode>(std::move(n)));
}

View value_view(c::Expr v) {
  ViewNode n;
  n.kind = ViewKind::Value;
  n.type = v->type;
  n.value = std::move(v);
  return View(std::make_shared<const ViewNode>(std::move(n)));
}

View access(View v, arith::Expr i) {
  ir::Type t = array_of(v, "access").elem();
  return make(ViewKind::Access, t, {std::move(v)}, {std::move(i)});
}

View split(arith::Expr n, View v) {
  const ir::Type& t = array_of(v, "split");
  ir::Type r = ir::Type::array(ir::Type::array(t.elem(), n), t.length() / n);
  return make(ViewKind::Split, r, {std::move(v)}, {std::move(n)});
}

View join(View v) {
  const ir::Type& t = array_of(v, "join");
  LIFTC_ASSERT(t.elem().is_array(), "join of a 2D array");
  ir::Type r = ir::Type::array(t.elem().elem(), t.length() * t.elem().length());
  return make(ViewKind::Join, r, {std::move(v)});
}

View slide(arith::Expr size, arith::Expr step, View v) {
  const ir::Type& t = array_of(v, "slide");
  ir::Type r = ir::Type::array(ir::Type::array(t.elem(), size), (t.length() - size + step) / step);
  return make(ViewKind::Slide, r, {std::move(v)}, {std::move(size), std::move(step)});
}

View pad(arith::Expr left, arith::Expr right, c::Expr value, View v) {
  const ir::Type& t = array_of(v, "pad");
  ir::Type r = ir::Type::array(t.elem(), t.length() + left + right);
  ViewNode n;
  n.kind = ViewKind::Pad;
  n.type = r;
  n.children = {std::move(v)};
  n.sizes = {std::move(left), std::move(right)};
  n.value = std::move(value);
  return View(std::make_shared<const ViewNode>(std::move(n)));
}

View transpose(View v) {
  const ir::Type& t = array_of(v, "transpose");
  LIFTC_ASSERT(t.elem().is_array(), "transpose of a 2D array");
  ir::Type r = ir::Type::array(ir::Type::array(t.elem().elem(), t.length()), t.elem().length());
  return make(ViewKind::Transpose, r, {std::move(v)});
}

View reorder(arith::Expr stride, View v) {
  ir::Type t = array_of(v, "reorder");
  return make(ViewKind::Reorder, t, {std::move(v)}, {std::move(stride)});
}

View zip(std::vector<View> vs, std::optional<ir::Type> type) {
  if (!type) {
    std::vector<ir::Type> elems;
    for (const auto& v : vs) elems.push_back(array_of(v, "zip").elem());
    type = ir::Type::array(ir::Type::tuple(elems), vs[0].type().length());
  }
  return make(ViewKind::Zip, *type, std::move(vs));
}

View concat(std::vector<View> vs) {
  arith::Expr length = 0;
  for (const auto& v : vs) length = length + array_of(v, "concat").length();
  ir::Type t = ir::Type::array(vs[0].type().elem(), length);
  return make(ViewKind::Concat, std::move(t), std::move(vs));
}

View tuple(std::vector<View> vs) {
  std::vector<ir::Type> elems;
  for (const auto& v : vs) elems.push_back(v.type());
  return make(ViewKind::Tuple, ir::Type::tuple(elems), std::move(vs));
}

View get(View v, int i) {
  LIFTC_ASSERT(v.type().is_tuple(), "get of a tuple view");
  if (v.kind() == ViewKind::Tuple) return v->children[static_cast<std::size_t>(i)];
  ir::Type t = v.type().elems()[static_cast<std::size_t>(i)];
  ViewNode n;
  n.kind = ViewKind::Get;
  n.type = t;
  n.children = {std::move(v)};
  n.component = i;
  return View(std::make_shared<const ViewNode>(std::move(n)));
}

View as_vector(int width, View v) {
  const ir::Type& t = array_of(v, "asVector");
  LIFTC_ASSERT(t.elem().is_scalar(), "asVector of an array of scalars");
  ir::Type r = ir::Type::array(ir::Type::vector(t.elem().scalar_kind(), width), t.length() / width);
  return make(ViewKind::AsVector, r, {std::move(v)}, {arith::Expr(width)});
}

View as_scalar(View v) {
  const ir::Type& t = array_of(v, "asScalar");
  LIFTC_ASSERT(t.elem().is_vector(), "asScalar of an array of vectors");
  ir::Type r = ir::Type::array(ir::Type::scalar(t.elem().scalar_kind()), t.length() * t.elem().width());
  return make(ViewKind::AsScalar, r, {std::move(v)});
}

View map_view(View v, ir::Type elem_type, std::function<View(const View&)> f) {
  ir::Type r = ir::Type::array(std::move(elem_type), array_of(v, "map").length());
  ViewNode n;
  n.kind = ViewKind::Map;
  n.type = r;
  n.children = {std::move(v)};
  n.fn = std::move(f);
  return View(std::make_shared<const ViewNode>(std::move(n)));
}

View layout_view(const ir::Expr& e, std::vector<View> operands) {
  const auto& z = e->sizes;
  View& x = operands.back();  // the array every layout primitive but zip and concat takes last
  switch (e->prim) {
    case ir::Prim::Zip: return zip(std::move(operands));
    case ir::Prim::Concat: return concat(std::move(operands));
    case ir::Prim::Split: return split(z[0], std::move(x));
    case ir::Prim::Join: return join(std::move(x));
    case ir::Prim::Slide: return slide(z[0], z[1], std::move(x));
    case ir::Prim::Pad: {
      const View& value = operands[0];
      if (!value.type().is_scalar() && !value.type().is_vector())
        throw Error("pad: the padding value must be a scalar", e.loc());
      return pad(z[0], z[1], read(value), std::move(x));
    }
    case ir::Prim::Transpose: return transpose(std::move(x));
    case ir::Prim::Reorder: return reorder(z[0], std::move(x));
    case ir::Prim::AsVector: {
      auto w = z[0].constant();
      if (!w) throw Error("asVector: the vector width must be a constant", e.loc());
      return as_vector(static_cast<int>(*w), std::move(x));
    }
    case ir::Prim::AsScalar: return as_scalar(std::move(x));
    case ir::Prim::Map: case ir::Prim::Reduce: case ir::Prim::Id: case ir::Prim::Array: case ir::Prim::MapWrg:
    case ir::Prim::MapLcl: case ir::Prim::MapGlb: case ir::Prim::MapSeq: case ir::Prim::ReduceSeq:
    case ir::Prim::ToGlobal: case ir::Prim::ToLocal: case ir::Prim::ToPrivate: case ir::Prim::Vectorize:
    case ir::Prim::Dot: LIFTC_SCALAR_BUILTIN_CASES
      break;
  }
  LIFTC_ASSERT(false, fmt::format("'{}' is a layout primitive", ir::signature(e->prim).name));
  return {};
}

View operand_dest_view(const ir::Expr& e, View dest) {
  switch (e->prim) {
    case ir::Prim::Split: return join(std::move(dest));
    case ir::Prim::Join: return split(e->args[0].type().elem().length(), std::move(dest));
    case ir::Prim::Transpose: return transpose(std::move(dest));
    // reorder(striddenIndex(n/s)) undoes reorder(striddenIndex(s)) over n elements.
    case ir::Prim::Reorder: return reorder(e.type().length() / e->sizes[0], std::move(dest));
    case ir::Prim::AsVector: return as_scalar(std::move(dest));
    case ir::Prim::AsScalar: return as_vector(e->args[0].type().elem().width(), std::move(dest));
    case ir::Prim::Zip: case ir::Prim::Concat: case ir::Prim::Slide: case ir::Prim::Pad: case ir::Prim::Map:
    case ir::Prim::Reduce: case ir::Prim::Id: case ir::Prim::Array: case ir::Prim::MapWrg: case ir::Prim::MapLcl: case ir::Prim::MapGlb:
    case ir::Prim::MapSeq: case ir::Prim::ReduceSeq: case ir::Prim::ToGlobal: case ir::Prim::ToLocal:
    case ir::Prim::ToPrivate: case ir::Prim::Vectorize: case ir::Prim::Dot: LIFTC_SCALAR_BUILTIN_CASES
      break;
  }
  LIFTC_ASSERT(false, fmt::format("'{}' is an invertible layout primitive", ir::signature(e->prim).name));
  return {};
}

View single(View v) {
  ir::Type t = ir::Type::array(v.type(), 1);  // before v is moved: argument order is unspecified
  return make(ViewKind::Single, t, {std::move(v)});
}

namespace {

namespace index_map = ir::index_map;

// What a walk down a view has pending: array indices (back = the outermost dimension of
// the view being visited), tuple components, and vector reinterpretation.
struct State {
  std::vector<arith::Expr> indices;
  std::vector<int> components;
  int width = 0;                    // asVector: load this many scalars
  std::optional<arith::Expr> lane;  // asScalar: one lane of a vector element
  // asVector: the lane variable (0..width-1) in the indices, so that the memory offset
  // tells whether the lanes are contiguous; it is set to 0 where the load is emitted.
  std::optional<arith::Expr> vector_lane;

  // The index stack of ir/index_map.hpp.
  arith::Expr pop() {
    LIFTC_ASSERT(!indices.empty(), "an array view is indexed before it is read");
    arith::Expr i = indices.back();
    indices.pop_back();
    return i;
  }
  void push(arith::Expr i) { indices.push_back(std::move(i)); }
  int pop_component() {
    LIFTC_ASSERT(!components.empty(), "a tuple is read one component at a time");
    int c = components.back();
    components.pop_back();
    return c;
  }
};

// e for lane 0 of the vector being read.
arith::Expr at_lane0(const arith::Expr& e, const State& s) {
  if (!s.vector_lane) return e;
  return arith::substitute(e, {{s.vector_lane->name(), arith::Expr(0)}});
}

// Where a walk ends: a memory location, or an expression (a value, or a padded read).
struct Place {
  std::shared_ptr<const Memory> memory;  // set for a location
  arith::Expr offset;                    // in scalars
  int width = 1;
  ir::Type type;                         // of the value read or written
  c::Expr expr;                          // set for an expression
  bool scattered = false;                // a vector read whose lanes are not consecutive in memory
};

c::Expr to_expr(const Place& p) {
  if (p.expr) return p.expr;
  if (p.memory->variable) return c::name(p.memory->name, p.type);
  return c::load(p.memory->name, p.offset, p.width, p.type);
}

c::Expr broadcast(const c::Expr& v, const ir::Type& t) {
  if (t.is_vector() && !v->type.is_vector()) return c::cast(t, v);
  return v;
}

Place resolve(const View& v, State s, bool for_write);

Place resolve_mem(const Memory& m, State& s) {
  Place p;
  ir::Type t = m.type;
  arith::Expr offset = 0;
  for (int k = 0; k < m.work_item_dims; ++k) {
    s.pop();
    t = t.elem();
  }
  while (t.is_array()) {
    offset = offset + s.pop() * scalar_count(t.elem());
    t = t.elem();
  }
  LIFTC_ASSERT(s.indices.empty() && s.components.empty(), "a walk ends at memory with every index used");
  if (s.lane) {
    LIFTC_ASSERT(t.is_vector(), "asScalar reads a lane of a vector");
    if (m.variable) {
      auto k = s.lane->constant();
      if (!k) throw Error(fmt::format("a lane of private vector '{}' is selected by a run-time index", m.name));
      p.expr = c::lane(c::name(m.name, t), static_cast<int>(*k));
      return p;
    }
    offset = offset + *s.lane;
    t = ir::Type::scalar(t.scalar_kind());
  }
  if (s.width > 0) {
    LIFTC_ASSERT(t.is_scalar(), "asVector loads scalars");
    t = ir::Type::vector(t.scalar_kind(), s.width);
    // vloadN reads N consecutive scalars: lane k must be at offset + k.
    arith::Expr first = at_lane0(offset, s);
    if (s.vector_lane && offset - first != *s.vector_lane) p.scattered = true;
    offset = first;
  }
  p.offset = offset;
  p.type = t;
  p.width = t.is_vector() ? t.width() : 1;
  return p;
}

Place resolve(const View& v, State s, bool for_write) {
  const ViewNode& n = *v.operator->();
  switch (n.kind) {
    case ViewKind::Mem: {
      Place p = resolve_mem(*n.memory, s);
      p.memory = n.memory;
      return p;
    }
    case ViewKind::Value: {
      if (for_write) throw Error("cannot write into a computed value");
      LIFTC_ASSERT(s.indices.empty() && s.components.empty(), "a value is read whole");
      Place p;
      p.type = n.type;
      p.expr = n.value;
      if (s.lane) {
        auto k = s.lane->constant();
        if (!k) throw Error("a lane of a computed vector is selected by a run-time index");
        p.expr = c::lane(n.value, static_cast<int>(*k));
      }
      return p;
    }
    case ViewKind::Access:
      s.push(n.sizes[0]);
      return resolve(n.children[0], std::move(s), for_write);
    case ViewKind::Split:
      index_map::chunk(s, n.sizes[0]);
      return resolve(n.children[0], std::move(s), for_write);
    case ViewKind::Join:
      index_map::join(s, n.children[0].type().elem().length());
      return resolve(n.children[0], std::move(s), for_write);
    case ViewKind::Slide:
      if (for_write) throw Error("cannot write through slide: its windows overlap");
      index_map::chunk(s, n.sizes[1]);
      return resolve(n.children[0], std::move(s), for_write);
    case ViewKind::Pad: {
      if (for_write) throw Error("cannot write through pad");
      arith::Expr k = index_map::pad(s, n.sizes[0]);
      arith::Expr len = n.children[0].type().length();
      // The lanes of a vector read take one bounds check when they fall into one element of
      // the padded dimension (float4 reads of C-channel pixels, 4 | C); else they are gathered.
      arith::Expr k0 = at_lane0(k, s);
      Place inner = resolve(n.children[0], s, false);
      if (k0 != k) inner.scattered = true;
      k = k0;
      // An index provably outside the array (a constant lane past a short array, as in
      // dot-lanes' accumulator [z, 0, 0, 0]) is the pad value: no check, no read.
      if (arith::provably_less(k, arith::Expr(0)) || arith::provably_nonnegative(k - len)) {
        Place p;
        p.type = inner.type;
        p.expr = broadcast(n.value, inner.type);
        return p;
      }
      c::Expr read = to_expr(inner);
      c::Expr cond;
      auto conj = [&](c::Expr e) { cond = cond ? c::binary("&&", cond, e, ir::Type::int_()) : e; };
      if (!arith::provably_nonnegative(k)) conj(c::binary(">=", c::index(k), c::int_lit(0), ir::Type::int_()));
      if (!arith::provably_less(k, len)) conj(c::binary("<", c::index(k), c::index(len), ir::Type::int_()));
      if (!cond) return inner;
      Place p;
      p.type = inner.type;
      p.expr = c::ternary(cond, read, broadcast(n.value, inner.type));
      p.scattered = inner.scattered;
      return p;
    }
    case ViewKind::Transpose:
      index_map::transpose(s);
      return resolve(n.children[0], std::move(s), for_write);
    case ViewKind::Reorder:
      // A permutation: writing element i writes the same place reading it reads.
      index_map::reorder(s, n.type.length(), n.sizes[0]);
      return resolve(n.children[0], std::move(s), for_write);
    case ViewKind::Zip: {
      int c = index_map::zip(s);
      return resolve(n.children[static_cast<std::size_t>(c)], std::move(s), for_write);
    }
    case ViewKind::Concat: {
      if (for_write) throw Error("cannot write through concat");
      // The operands the index may fall into, by the loops' ranges; a bounds check selects
      // among them only where more than one remains. The lanes of a vector read take one
      // check when they fall into one operand (float4 reads of pixels whose channel counts
      // are multiples of 4); else they are gathered, as across a pad's edge.
      const arith::Expr i = s.pop();
      const arith::Expr i0 = at_lane0(i, s);
      struct Candidate {
        Place place;
        arith::Expr end;  // where the operand's elements end in the result
      };
      std::vector<Candidate> candidates;
      arith::Expr start = 0;
      for (const View& x : n.children) {
        arith::Expr end = start + x.type().length();
        bool outside = arith::provably_less(i0, start) || arith::provably_nonnegative(i0 - end);
        if (!outside) {
          State at = s;
          at.push(i);
          index_map::concat(at, start);
          // Within its branch the index is in [0, length): 0 for an operand of one element
          // (then the concat of one-element arrays that nearest upsampling is reads one place).
          if (x.type().length().constant() == 1) at.indices.back() = arith::Expr(0);
          candidates.push_back({resolve(x, std::move(at), false), end});
          if (i0 != i) candidates.back().place.scattered = true;
          if (arith::provably_nonnegative(i0 - start) && arith::provably_less(i0, end)) break;
        }
        start = end;
      }
      LIFTC_ASSERT(!candidates.empty(), "a concat's index falls into one of its operands");
      auto same_place = [](const Place& a, const Place& b) {
        return !a.expr && !b.expr && a.memory == b.memory && a.offset == b.offset && a.width == b.width &&
               a.type == b.type && a.scattered == b.scattered;
      };
      bool one_place = std::all_of(candidates.begin(), candidates.end(),
                                   [&](const Candidate& c) { return same_place(c.place, candidates.front().place); });
      if (candidates.size() == 1 || one_place) return candidates.front().place;
      // i < end(0) ? x0 : i < end(1) ? x1 : ... : the last candidate, built from the back.
      Place p = candidates.back().place;
      c::Expr chosen = to_expr(p);
      for (std::size_t k = candidates.size() - 1; k-- > 0;) {
        const Candidate& cand = candidates[k];
        c::Expr below = c::binary("<", c::index(i0), c::index(cand.end), ir::Type::int_());
        chosen = c::ternary(below, to_expr(cand.place), chosen);
        p.scattered = p.scattered || cand.place.scattered;
      }
      p.memory = nullptr;
      p.expr = chosen;
      return p;
    }
    case ViewKind::Tuple: {
      int c = s.pop_component();
      return resolve(n.children[static_cast<std::size_t>(c)], std::move(s), for_write);
    }
    case ViewKind::Get:
      s.components.push_back(n.component);
      return resolve(n.children[0], std::move(s), for_write);
    case ViewKind::AsVector: {
      arith::Expr i = s.pop();
      if (s.lane) {  // asScalar(asVector(x)): one scalar of x
        s.push(index_map::as_vector(i, n.sizes[0], *s.lane));
        s.lane.reset();
        return resolve(n.children[0], std::move(s), for_write);
      }
      const int w = static_cast<int>(*n.sizes[0].constant());
      State vec = s;
      vec.vector_lane = arith::var("lane$", arith::Expr(0), arith::Expr(w - 1));
      vec.push(index_map::as_vector(i, arith::Expr(w), *vec.vector_lane));
      vec.width = w;
      Place p = resolve(n.children[0], vec, for_write);
      if (!p.scattered) return p;
      if (for_write) throw Error(fmt::format("cannot write a float{} whose lanes are not consecutive in memory", w));
      // Lanes that are not consecutive in memory (a column of a matrix, a window across a pad
      // edge): read each lane as a scalar and build the vector.
      std::vector<c::Expr> lanes;
      for (int k = 0; k < w; ++k) {
        State one = s;
        one.push(index_map::as_vector(i, arith::Expr(w), arith::Expr(k)));
        lanes.push_back(to_expr(resolve(n.children[0], std::move(one), false)));
      }
      Place gathered;
      gathered.type = ir::Type::vector(lanes.front()->type.scalar_kind(), w);
      gathered.expr = c::vector(gathered.type, std::move(lanes));
      return gathered;
    }
    case ViewKind::AsScalar: {
      s.lane = index_map::as_scalar(s, arith::Expr(n.children[0].type().elem().width()));
      return resolve(n.children[0], std::move(s), for_write);
    }
    case ViewKind::Map: {
      arith::Expr i = s.pop();
      return resolve(n.fn(access(n.children[0], i)), std::move(s), for_write);
    }
    case ViewKind::Single:
      s.pop();
      return resolve(n.children[0], std::move(s), for_write);
  }
  LIFTC_ASSERT(false, "every view kind is resolved");
  return {};
}

}  // namespace

c::Expr read(const View& v) {
  LIFTC_ASSERT(v.type().is_scalar() || v.type().is_vector(),
               fmt::format("read() of a view of type {}", ir::to_string(v.type())));
  return to_expr(resolve(v, State{}, false));
}

c::Stmt write(const View& dest, const c::Expr& value) {
  Place p = resolve(dest, State{}, true);
  if (p.expr) throw Error("cannot write into a computed value");
  if (p.memory->variable) return c::assign(p.memory->name, value);
  return c::store(p.memory->name, p.offset, p.width, ir::Type::scalar(p.type.scalar_kind()), broadcast(value, p.type));
}

std::vector<c::Stmt> write_value(const View& dest, const View& src) {
  if (dest.type().is_tuple()) {
    std::vector<c::Stmt> out;
    for (std::size_t i = 0; i < dest.type().elems().size(); ++i) {
      auto part = write_value(get(dest, static_cast<int>(i)), get(src, static_cast<int>(i)));
      out.insert(out.end(), part.begin(), part.end());
    }
    return out;
  }
  return {write(dest, read(src))};
}

std::shared_ptr<const Memory> underlying_memory(const View& v) {
  switch (v.kind()) {
    case ViewKind::Mem: return v->memory;
    case ViewKind::Value: return nullptr;
    case ViewKind::Zip:
    case ViewKind::Tuple: {
      std::shared_ptr<const Memory> m;
      for (const auto& c : v->children) {
        auto cm = underlying_memory(c);
        if (!cm) return nullptr;
        if (!m) m = cm;
      }
      return m;
    }
    case ViewKind::Concat: return nullptr;  // written through nowhere: each element is in one of several
    case ViewKind::Map:
    case ViewKind::Access: case ViewKind::Split: case ViewKind::Join: case ViewKind::Slide: case ViewKind::Pad:
    case ViewKind::Transpose: case ViewKind::Reorder: case ViewKind::Get: case ViewKind::AsVector:
    case ViewKind::AsScalar: case ViewKind::Single:
      return underlying_memory(v->children[0]);
  }
  LIFTC_ASSERT(false, "every view kind has an underlying memory or none");
  return nullptr;
}

bool is_value(const View& v) {
  if (v.kind() == ViewKind::Value) return true;
  if (v.kind() == ViewKind::Tuple) {
    for (const auto& c : v->children)
      if (!is_value(c)) return false;
    return true;
  }
  return false;
}

}  // namespace liftc::codegen
