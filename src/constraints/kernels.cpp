// The kernels of a low-level program, symbolic in its tuning parameters: thread counts as
// codegen's plan_threads computes them (Lift's Table 1) and the buffers its allocation
// rule makes (lower_loops.cpp). codegen::generate itself needs constant sizes for local and
// private arrays, so the expressions are derived here from the IR; the tests check them
// against generate()'s memory plan and launch plan at sampled points.

#include <algorithm>
#include <functional>

#include "internal.hpp"

namespace liftc::constraints::detail {

namespace {

using ir::Prim;
using codegen::AddressSpace;

// A loop around the node being visited.
struct Loop {
  Prim prim;
  arith::Expr extent;
};

arith::Expr scalars(const ir::Type& t) {
  if (!t.defined()) return 0;
  if (t.is_array()) return t.length() * scalars(t.elem());
  if (t.is_vector()) return t.width();
  if (t.is_tuple()) {
    arith::Expr sum = 0;
    for (const auto& c : t.elems()) sum = sum + scalars(c);
    return sum;
  }
  return 1;
}

bool contains_reduce_seq(const ir::Expr& e) {
  if (e.kind() == ir::ExprKind::Call && e->prim == Prim::ReduceSeq) return true;
  for (const auto& a : e->args)
    if (contains_reduce_seq(a)) return true;
  return false;
}

// Primitives whose data operand's value is written where their own result goes.
bool writes_through(Prim p) {
  switch (p) {
    case Prim::Join: case Prim::Split: case Prim::Transpose: case Prim::AsScalar: case Prim::AsVector:
    case Prim::Reorder: case Prim::Id:
    case Prim::Map:  // a map left in a low-level program only rearranges data: a view
      return true;
    case Prim::Reduce: case Prim::Zip: case Prim::Slide: case Prim::Pad: case Prim::MapWrg: case Prim::MapLcl:
    case Prim::MapGlb: case Prim::MapSeq: case Prim::ReduceSeq: case Prim::ToGlobal: case Prim::ToLocal:
    case Prim::ToPrivate: case Prim::Vectorize: case Prim::Dot: case Prim::Add: case Prim::Sub: case Prim::Mul:
    case Prim::Div: case Prim::Mod: case Prim::Neg: case Prim::Lt: case Prim::Le: case Prim::Gt: case Prim::Ge:
    case Prim::Eq: case Prim::Ne: case Prim::And: case Prim::Or: case Prim::Not: case Prim::Select:
    case Prim::Min: case Prim::Max: case Prim::Exp: case Prim::Sqrt: case Prim::Abs: case Prim::Exp2:
    case Prim::Log: case Prim::Log2: case Prim::Log10: case Prim::Rsqrt: case Prim::Sin: case Prim::Cos:
    case Prim::Tan: case Prim::Asin: case Prim::Acos: case Prim::Atan: case Prim::Sinh: case Prim::Cosh:
    case Prim::Tanh: case Prim::Floor: case Prim::Ceil: case Prim::Round: case Prim::Trunc: case Prim::ToFloat:
    case Prim::SizeValue:
      return false;
  }
  LIFTC_ASSERT(false, "the switch above lists every primitive");
  return false;
}

struct Walker {
  KernelShape& k;
  std::vector<Loop> loops;
  std::array<std::optional<arith::Expr>, 3> wrg, lcl, glb;
  // Variables bound by the lambdas and lets around the node being visited.
  std::vector<std::string> bound;
  // The first parallel map split off because other work-items read it that reduces
  // (codegen's main kernel then: partial sums whose sums the definition's kernel adds).
  ir::Expr reducing_part;

  // Whether codegen computes the parallel map `e` by a kernel of its own (generate.cpp):
  // one inside a function that uses nothing of it (loop-invariant), or one whose values
  // other work-items read (`in_data`: it is in the data operand of a parallel map, and not
  // that map's same-kind producer `same_item`). Its work-items are not this kernel's.
  bool split_off(const ir::Expr& e, bool in_data, const ir::ExprNode* same_item) const {
    if (e->prim != Prim::MapGlb && e->prim != Prim::MapWrg) return false;
    if (in_data && e.get() != same_item) return true;
    if (bound.empty()) return false;
    for (const auto& v : ir::free_vars(e))
      if (std::find(bound.begin(), bound.end(), v) != bound.end()) return false;
    return true;
  }

  arith::Expr product_of(bool (*pick)(Prim)) const {
    arith::Expr p = 1;
    for (const auto& l : loops)
      if (pick(l.prim)) p = p * l.extent;
    return p;
  }

  // New memory for a value of type `t` in `space`: one region per enclosing parallel loop
  // whose work-items share that memory (codegen's allocation rule); private memory is not
  // a target limit here.
  void allocate(const ir::Type& t, AddressSpace space, const std::string& what) {
    if (space == AddressSpace::Global)
      k.global_buffers.emplace_back(what, bytes_of(t) * product_of([](Prim q) {
                                      return q == Prim::MapGlb || q == Prim::MapWrg || q == Prim::MapLcl;
                                    }));
    if (space == AddressSpace::Local)
      k.local_buffers.emplace_back(what, bytes_of(t) * product_of([](Prim q) { return q == Prim::MapLcl; }));
  }

  // `spine`: the node's value is written where its consumer says (the kernel's output, a
  // map's element, a toX's memory), so it needs no memory of its own. Off the spine, a
  // map's value is new memory in the space of the enclosing toX (global by default).
  void walk(const ir::Expr& e, bool spine, AddressSpace space, bool in_data = false,
            const ir::ExprNode* same_item = nullptr) {
    if (e.kind() == ir::ExprKind::Lambda) {
      bound.insert(bound.end(), e->params.begin(), e->params.end());
      walk(ir::lambda_body(e), spine, space);
      bound.resize(bound.size() - e->params.size());
      return;
    }
    if (e.kind() == ir::ExprKind::Let) {
      walk(e->args[0], false, space, in_data, same_item);
      bound.push_back(e->name);
      walk(e->args[1], spine, space, in_data, same_item);
      bound.pop_back();
      return;
    }
    if (e.kind() != ir::ExprKind::Call) {
      for (const auto& a : e->args) walk(a, false, space, in_data, same_item);
      return;
    }
    Prim p = e->prim;
    if (split_off(e, in_data, same_item)) {
      // Its result is a global buffer this kernel reads; its work is another kernel's.
      k.global_buffers.emplace_back(std::string(ir::signature(p).name) + " (a kernel of its own)", bytes_of(e.type()));
      if (in_data && !reducing_part.defined() && contains_reduce_seq(e)) reducing_part = e;
      // The global memory that kernel allocates, and the kernels split off it in turn (the
      // pad kernel under the partial sums of conv-chw-omega), are global memory too.
      KernelShape other;
      Walker w{other, {}, {}, {}, {}, {}, {}};
      w.walk(e, true, AddressSpace::Global);
      k.global_buffers.insert(k.global_buffers.end(), other.global_buffers.begin(), other.global_buffers.end());
      return;
    }
    const auto& sig = ir::signature(p);
    AddressSpace inner = space;
    bool writes = spine;  // whether the function operand writes where this value goes
    if (p == Prim::ToLocal || p == Prim::ToPrivate || p == Prim::ToGlobal) {
      inner = p == Prim::ToLocal ? AddressSpace::Local : p == Prim::ToPrivate ? AddressSpace::Private : AddressSpace::Global;
      if (!spine || inner != AddressSpace::Global) allocate(e.type(), inner, std::string(ir::signature(p).name));
      writes = true;
    } else if (ir::is_map(p) && p != Prim::Map) {
      if (!spine) allocate(e.type(), space, std::string(ir::signature(p).name));
      writes = true;
    } else if (p == Prim::ReduceSeq) {
      writes = true;  // the function's value goes into the accumulator (private variables or array)
    } else {
      writes = false;
    }
    if (p == Prim::ReduceSeq && !contains_reduce_seq(e->args[1])) k.unrollable.push_back(e->args[2].type().length());
    bool mapped = p == Prim::MapGlb || p == Prim::MapWrg || p == Prim::MapLcl;
    if (mapped) {
      auto d = static_cast<std::size_t>(e->sizes[0].constant().value_or(0));
      const arith::Expr& n = e->args[1].type().length();
      auto& slot = p == Prim::MapGlb ? glb[d] : p == Prim::MapWrg ? wrg[d] : lcl[d];
      slot = slot ? arith::max(*slot, n) : n;
    }
    // The data operand of a parallel map: parallel maps in it are other kernels' unless one
    // is its producer of the same kind and dimension (codegen's same-item case).
    const ir::ExprNode* producer = nullptr;
    if (mapped) {
      ir::Expr m = ir::producing_map(e->args[1]);
      if (m.defined() && m->prim == p && ir::map_dimension(m) == ir::map_dimension(e)) {
        const ir::Expr& body = ir::lambda_body(m->args[0]);
        if (p == Prim::MapWrg || !ir::contains_parallel_maps(body)) producer = m.get();
      }
    }
    for (std::size_t i = 0; i < e->args.size(); ++i) {
      int fun = sig.variadic ? 0 : (i < sig.operands.size() ? sig.operands[i] : 0);
      bool loops_here = fun > 0 && (ir::is_map(p) || ir::is_reduce(p));
      if (loops_here) loops.push_back({p, e->args.back().type().length()});
      if (fun > 0) walk(e->args[i], writes, inner);
      else if (mapped) walk(e->args[i], spine && writes_through(p), space, true, producer);
      else walk(e->args[i], spine && writes_through(p), space, in_data, same_item);
      if (loops_here) loops.pop_back();
    }
  }
};

}  // namespace

arith::Expr bytes_of(const ir::Type& t) { return scalars(t) * 4; }

std::vector<KernelShape> kernel_shapes(const ir::Program& program) {
  std::vector<KernelShape> out;
  for (const auto& def : program.defs) {
    KernelShape k;
    k.name = def.name;
    Walker w{k, {}, {}, {}, {}, {}, {}};
    w.walk(def.body, true, AddressSpace::Global);
    if (w.reducing_part.defined()) {
      // The launch modelled is the main kernel's (generate.cpp): that split-off part's.
      KernelShape part;
      Walker pw{part, {}, {}, {}, {}, {}, {}};
      pw.walk(w.reducing_part, true, AddressSpace::Global);
      w.wrg = pw.wrg;
      w.lcl = pw.lcl;
      w.glb = pw.glb;
    }
    k.work_groups = false;
    int dims = 0;
    for (std::size_t d = 0; d < 3; ++d) {
      if (w.wrg[d] || w.lcl[d]) k.work_groups = true;
      if (w.wrg[d] || w.lcl[d] || w.glb[d]) dims = static_cast<int>(d) + 1;
    }
    if (k.work_groups) {
      for (std::size_t d = 0; d < 3; ++d) {
        k.local[d] = w.lcl[d].value_or(1);
        k.global[d] = w.wrg[d].value_or(1) * k.local[d];
      }
    } else if (dims > 0) {
      for (std::size_t d = 0; d < 3; ++d) k.global[d] = w.glb[d].value_or(1);
    } else if (!ir::contains_parallel_maps(def.body) && ir::only_rearranges(def.body)) {
      // A copy kernel over up to three outer dimensions, the innermost on dimension 0.
      std::vector<arith::Expr> levels;
      for (ir::Type t = def.body.type(); t.is_array() && levels.size() < 3; t = t.elem()) levels.push_back(t.length());
      for (std::size_t i = 0; i < levels.size(); ++i) k.global[i] = levels[levels.size() - 1 - i];
      dims = static_cast<int>(levels.size());
    }
    k.dims = std::max(dims, 1);
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace liftc::constraints::detail
