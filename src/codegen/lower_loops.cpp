// Lowering of the loops: mapped and sequential maps, reduceSeq, toGlobal/toLocal/toPrivate,
// memory allocation, copies, barriers; and the kernel body as a whole.

#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "liftc/support/diagnostic.hpp"
#include "lower.hpp"

namespace liftc::codegen::detail {

namespace {

const char* loop_name(LoopKind k) {
  switch (k) {
    case LoopKind::Wrg: return "wg";
    case LoopKind::Lcl: return "l";
    case LoopKind::Glb: return "g";
    case LoopKind::Seq: return "i";
  }
  return "i";
}

// The type `t` with its innermost tuple replaced by component `c`.
ir::Type component_type(const ir::Type& t, std::size_t c) {
  if (t.is_array()) return ir::Type::array(component_type(t.elem(), c), t.length());
  return t.elems()[c];
}

}  // namespace

LoopKind loop_kind(ir::Prim p) {
  return p == ir::Prim::MapWrg   ? LoopKind::Wrg
         : p == ir::Prim::MapLcl ? LoopKind::Lcl
         : p == ir::Prim::MapGlb ? LoopKind::Glb
                                 : LoopKind::Seq;
}

AddressSpace space_of(ir::Prim to) {
  return to == ir::Prim::ToGlobal ? AddressSpace::Global
         : to == ir::Prim::ToLocal ? AddressSpace::Local
                                   : AddressSpace::Private;
}

bool region_per_iteration(const Loop& l, AddressSpace space) {
  return (space == AddressSpace::Global && l.kind != LoopKind::Seq) || (space == AddressSpace::Local && l.kind == LoopKind::Lcl);
}

bool inside(const std::vector<Loop>& loops, LoopKind k, int dim) {
  for (const auto& l : loops)
    if (l.kind == k && (dim < 0 || l.dim == dim)) return true;
  return false;
}

bool work_group_accumulator(const std::vector<Loop>& loops, const ir::Expr& f) {
  if (!inside(loops, LoopKind::Wrg) || inside(loops, LoopKind::Lcl) || f.kind() != ir::ExprKind::Lambda) return false;
  // The step's value (under its lets and the layout primitives applied to it) is a mapLcl's.
  ir::Expr body = ir::lambda_body(f);
  while (body.kind() == ir::ExprKind::Let) body = ir::let_body(body);
  ir::Expr producer = ir::producing_map(computing_part(body));
  return producer.defined() && producer->prim == ir::Prim::MapLcl;
}

namespace {

// Whether `e` reads variable `name` (component < 0) or component `component` of tuple
// variable `name` (the whole tuple counts: it holds the component), where `name` is free.
bool reads_part(const ir::Expr& e, const std::string& name, int component) {
  switch (e.kind()) {
    case ir::ExprKind::Var: return e->name == name;
    case ir::ExprKind::Literal: return false;
    case ir::ExprKind::Get: {
      const ir::Expr& t = ir::get_tuple(e);
      if (component >= 0 && t.kind() == ir::ExprKind::Var && t->name == name) return e->index == component;
      return reads_part(t, name, component);
    }
    case ir::ExprKind::Lambda:
      if (std::find(e->params.begin(), e->params.end(), name) != e->params.end()) return false;
      return reads_part(ir::lambda_body(e), name, component);
    case ir::ExprKind::Let:
      return reads_part(ir::let_value(e), name, component) ||
             (e->name != name && reads_part(ir::let_body(e), name, component));
    case ir::ExprKind::Apply: case ir::ExprKind::Call: case ir::ExprKind::Tuple:
      return std::any_of(e->args.begin(), e->args.end(), [&](const ir::Expr& a) { return reads_part(a, name, component); });
  }
  return true;
}

bool is_part(const ir::Expr& e, const std::string& name, int component) {
  if (component < 0) return e.kind() == ir::ExprKind::Var && e->name == name;
  return e.kind() == ir::ExprKind::Get && e->index == component && ir::get_tuple(e).kind() == ir::ExprKind::Var &&
         ir::get_tuple(e)->name == name;
}

}  // namespace

WorkItemParts work_item_parts(const std::vector<Loop>& loops, const ir::Expr& f) {
  if (!work_group_accumulator(loops, f) || f->params.size() != 2) return {};
  ir::Expr body = ir::lambda_body(f);
  std::string name = f->params[0];  // the accumulator, then the tuple holding its part
  int component = -1;
  while (body.kind() == ir::ExprKind::Let) {
    if (reads_part(ir::let_value(body), name, component) || body->name == name) return {};
    body = ir::let_body(body);
  }
  WorkItemParts parts;
  ir::Expr fn;
  while (is_call(body, ir::Prim::MapLcl)) {
    const ir::Expr& data = body->args[1];
    fn = body->args[0];
    int dim = ir::map_dimension(body);
    if (!is_call(data, ir::Prim::Zip) || !is_part(data->args[0], name, component) ||
        fn.kind() != ir::ExprKind::Lambda || fn->params.size() != 1 || only_moves_data(fn) ||
        std::find(parts.dims.begin(), parts.dims.end(), dim) != parts.dims.end() || reads_part(fn, name, component) ||
        std::any_of(data->args.begin() + 1, data->args.end(), [&](const ir::Expr& a) { return reads_part(a, name, component); }))
      break;
    parts.dims.push_back(dim);
    name = fn->params[0];
    component = 0;
    body = ir::lambda_body(fn);
  }
  if (parts.dims.empty() || is_call(body, ir::Prim::MapLcl)) return {};
  // The innermost function `p -> join(reduceSeq(p.0, g, ys))`: the reduction starts from the
  // work-item's part and is written back to it, which nothing else reads meanwhile. Or, as
  // reduce-nest writes a reduction over rows n times, `p -> join^(n+1)(reduceSeq(b, g, ys))`
  // with b = map(e -> .. map(e -> p.0, y_n) .., y_1), each y_i of length 1: the part as
  // [1]..[1][part], which the n + 1 joins write back to where it is.
  int joins = 0;
  ir::Expr r = body;
  while (is_call(r, ir::Prim::Join)) r = r->args[0], ++joins;
  if (joins > 0 && is_call(r, ir::Prim::ReduceSeq) && r.type().elem().is_array() &&
      !reads_part(r->args[1], name, component) && !reads_part(r->args[2], name, component)) {
    ir::Expr init = r->args[0];
    int levels = 0;
    while (is_call(init, ir::Prim::Map) &&
           init->args[0].kind() == ir::ExprKind::Lambda && init->args[0]->params.size() == 1 &&
           init.type().length().constant() == std::optional<std::int64_t>(1) &&
           !reads_part(ir::lambda_body(init->args[0]), init->args[0]->params[0], -1) &&
           !reads_part(init->args[1], name, component)) {
      init = ir::lambda_body(init->args[0]);
      ++levels;
    }
    if (levels == joins - 1 && is_part(init, name, component)) parts.in_place = r;
  }
  return parts;
}

ir::Type work_item_part(ir::Type t, std::size_t dims) {
  for (std::size_t k = 0; k < dims; ++k) t = t.elem();
  return t;
}

ir::Expr own_parts_reader(const std::vector<Loop>& loops, const ir::Expr& map) {
  if (!is_call(map, ir::Prim::MapLcl) || inside(loops, LoopKind::Lcl) || !is_call(map->args[1], ir::Prim::Join)) return {};
  const ir::Expr& r = map->args[1]->args[0];
  if (!is_call(r, ir::Prim::ReduceSeq)) return {};
  WorkItemParts parts = work_item_parts(loops, r->args[1]);
  if (parts.dims.empty()) return {};
  ir::Expr m = map;
  for (std::size_t k = 0; k < parts.dims.size(); ++k) {
    if (!is_call(m, ir::Prim::MapLcl) || ir::map_dimension(m) != parts.dims[k]) return {};
    const ir::Expr& fn = m->args[0];
    if (fn.kind() != ir::ExprKind::Lambda || fn->params.size() != 1) return {};
    if (k + 1 == parts.dims.size()) break;
    const ir::Expr& next = ir::lambda_body(fn);
    const std::string& p = fn->params[0];
    if (!is_call(next, ir::Prim::MapLcl) || next->args[1].kind() != ir::ExprKind::Var || next->args[1]->name != p ||
        reads_part(next->args[0], p, -1))
      return {};
    m = next;
  }
  return r;
}

ir::Expr computing_part(const ir::Expr& e) {
  if (e.kind() != ir::ExprKind::Call || !ir::is_layout(e->prim)) return e;
  const ir::Expr* computing = nullptr;
  for (const auto& a : e->args) {
    if (!contains_loops(a)) continue;
    if (computing) return e;  // more than one computed operand (a zip): no single part
    computing = &a;
  }
  return computing ? computing_part(*computing) : e;
}

namespace {

// Whether the last thing `stmts` do is a barrier (directly, or as the last statement of a
// loop that runs at least once).
bool ends_with_barrier(const std::vector<c::Stmt>& stmts) {
  if (stmts.empty()) return false;
  const c::StmtNode& last = *stmts.back();
  if (last.kind == c::StmtKind::Barrier) return true;
  if (last.kind != c::StmtKind::For || !last.start || last.start->kind != c::ExprKind::Index) return false;
  auto start = last.start->index.constant();
  auto end = last.end.constant();
  return start && end && *start < *end && ends_with_barrier(last.body);
}

}  // namespace

void KernelBuilder::loop(LoopKind kind, int dim, const arith::Expr& extent, const Scope& s, bool unroll,
                         const std::function<void(const Scope&, const arith::Expr&)>& body) {
  std::string name = fresh(loop_name(kind));
  arith::Expr var = arith::var(name, 0, extent - 1);
  Scope inner = s;
  inner.loops.push_back(Loop{kind, dim, var, extent});
  auto nested = [&](const arith::Expr& index) {
    blocks_.emplace_back();
    body(inner, index);
    std::vector<c::Stmt> stmts = std::move(blocks_.back());
    blocks_.pop_back();
    return stmts;
  };
  if (kind == LoopKind::Seq) {
    // Write after read across iterations: when an iteration writes memory of the work-group
    // through a work-group-level mapLcl, the next iteration writes it again while other
    // work-items may still read what this one wrote (the barrier after the writes only
    // orders writes before reads). An iteration that does not end with a barrier gets one.
    auto separate_iterations = [&](std::vector<c::Stmt>& stmts, int writes_before) {
      if (group_writes_ != writes_before && !ends_with_barrier(stmts))
        stmts.push_back(c::barrier(true, group_writes_global_));
    };
    auto n = extent.constant();
    if (unroll && n && *n <= 64) {
      for (std::int64_t k = 0; k < *n; ++k) {
        int writes_before = group_writes_;
        inner.loops.back().var = arith::Expr(k);
        body(inner, arith::Expr(k));
        if (k + 1 < *n) separate_iterations(blocks_.back(), writes_before);
      }
      return;
    }
    if (n && *n == 1) {
      body(inner, arith::Expr(0));
      return;
    }
    int writes_before = group_writes_;
    std::vector<c::Stmt> stmts = nested(var);
    separate_iterations(stmts, writes_before);
    emit(c::for_loop(name, c::int_lit(0), extent, c::int_lit(1), std::move(stmts)));
    return;
  }
  auto d = static_cast<std::size_t>(dim);
  arith::Expr threads = kind == LoopKind::Wrg ? threads_.groups[d] : kind == LoopKind::Lcl ? threads_.local[d] : threads_.global[d];
  c::WorkItemFn fn = kind == LoopKind::Wrg ? c::WorkItemFn::GroupId : kind == LoopKind::Lcl ? c::WorkItemFn::LocalId : c::WorkItemFn::GlobalId;
  c::Expr id = c::work_item(fn, dim);
  if (options_.elide_loops && extent == threads) {
    emit(c::decl(name, ir::Type::int_(), AddressSpace::Private, std::nullopt, id));
    body(inner, var);
    return;
  }
  if (options_.elide_loops && arith::provably_less(extent, threads + 1)) {
    emit(c::decl(name, ir::Type::int_(), AddressSpace::Private, std::nullopt, id));
    emit(c::if_then(c::binary("<", c::name(name, ir::Type::int_()), c::index(extent), ir::Type::bool_()), nested(var)));
    return;
  }
  emit(c::for_loop(name, id, extent, c::index(threads), nested(var)));
}

View KernelBuilder::joined_element(const View& src, const arith::Expr& i) {
  if (src.kind() != ViewKind::Join || i.constant()) return access(src, i);
  // Element i of join(v) is v[i / m][i % m]: both computed once, here, into variables, so
  // that the loops of the work-item (a reduction over the element, say) index with them
  // instead of dividing in every iteration (a map over the joined rows and columns of an
  // image: the pixel's row and column).
  const View& rows = src->children[0];
  arith::Expr m = rows.type().elem().length();
  std::string row = fresh("row"), col = fresh("col");
  emit(c::decl(row, ir::Type::int_(), AddressSpace::Private, std::nullopt, c::index(i / m)));
  emit(c::decl(col, ir::Type::int_(), AddressSpace::Private, std::nullopt, c::index(i % m)));
  return access(access(rows, arith::var(row, 0, rows.type().length() - 1)), arith::var(col, 0, m - 1));
}

Result KernelBuilder::compile_map(const ir::Expr& e, const Scope& s, const std::optional<View>& dest) {
  ir::Prim p = e->prim;
  int dim = ir::map_dimension(e);
  LoopKind kind = loop_kind(p);
  if (kind != LoopKind::Seq) {
    // A producer of the same kind and dimension over the same range writes element i on the
    // work-item that reads it here.
    ir::Expr producer = same_item_producer(e);
    if (producer.defined()) same_item_producers_.insert(producer.get());
    // A reduction whose work-items' own parts this map reads each on its owner.
    ir::Expr parts = own_parts_reader(s.loops, e);
    if (parts.defined()) own_parts_read_.insert(parts.get());
  }
  View src = compile(e->args[1], s, std::nullopt).view;
  bool allocated = !dest.has_value();
  View out = dest ? *dest : allocate(e.type(), s.space.value_or(AddressSpace::Global), s, "tmp");
  const ir::Expr& f = e->args[0];
  bool group_level = kind == LoopKind::Lcl && !inside(s.loops, LoopKind::Lcl);
  bool in_sequential = std::any_of(s.loops.begin(), s.loops.end(), [](const Loop& l) { return l.kind == LoopKind::Seq; });
  auto memory = underlying_memory(out);
  if (group_level && (!memory || memory->space != AddressSpace::Private)) {
    // The enclosing sequential loops end each iteration with a barrier (see loop()).
    ++group_writes_;
    group_writes_global_ = group_writes_global_ || (memory && memory->space == AddressSpace::Global);
  }
  loop(kind, dim, src.type().length(), s, false, [&](const Scope& in, const arith::Expr& i) {
    View d = access(out, i);
    Result r = apply(f, {kind == LoopKind::Seq ? access(src, i) : joined_element(src, i)}, in, d);
    if (!r.in_dest) copy(r.view, d, in);
  });
  if (allocated && kind != LoopKind::Seq) {
    // Work-items other than the writers read this memory after the loop. That is only
    // safe where a barrier can separate them: a work-group's own mapLcl (below), or a
    // mapWrg read by the same work-group.
    bool same_item = same_item_producers_.count(e.get()) > 0;
    bool work_group_barrier = kind == LoopKind::Lcl && !inside(s.loops, LoopKind::Lcl);
    LIFTC_ASSERT(same_item || work_group_barrier,
                 "the kernel plan separates every parallel map whose values other work-items read (scan_kernel)");
    if (same_item && kind == LoopKind::Wrg) {
      auto m = underlying_memory(out);
      emit(c::barrier(true, m && m->space == AddressSpace::Global));
    }
  }
  if (group_level && (allocated || in_sequential)) {
    // Read after write: other work-items read what this mapLcl wrote (an intermediate, or
    // memory of an enclosing sequential loop: inside or around the work-group maps, the
    // same work-group runs every iteration).
    emit(c::barrier(true, memory && memory->space == AddressSpace::Global));
  }
  return {out, !allocated};
}

Result KernelBuilder::compile_reduce(const ir::Expr& e, const Scope& s, const std::optional<View>& dest) {
  const ir::Expr& f = e->args[1];
  View src = compile(e->args[2], s, std::nullopt).view;
  View init = compile(e->args[0], s, std::nullopt).view;
  ir::Type acc_type = e.type().elem();
  bool array_acc = acc_type.is_array();
  // An accumulator that the work-group's work-items update together (each its part, through
  // a mapLcl) is in local memory: in private memory each would hold only its own updates.
  // It is initialised, and finally copied out, by them together, with a barrier after.
  bool shared = array_acc && work_group_accumulator(s.loops, f);
  // Unless each work-item updates a part of its own: then each keeps its part in private
  // memory (registers) from the first step to the last, and copies it in and out itself.
  WorkItemParts parts;
  if (shared && (dest || own_parts_read_.count(e.get())) && !element_type(acc_type).is_tuple())
    parts = work_item_parts(s.loops, f);
  // One part per work-item needs a work-group as large as the mapLcls: a work-group fitted
  // to a device's smaller limits (fit_to_device) strides over them. The space's constraints
  // keep its points within the limits, so the plan (kernel_scan.cpp) assumes it.
  ir::Type level = acc_type;
  for (int d : parts.dims) {
    if (!arith::provably_less(level.length(), threads_.local[static_cast<std::size_t>(d)] + 1)) parts = {};
    if (parts.dims.empty()) break;
    level = level.elem();
  }
  bool own_parts = !parts.dims.empty();
  View acc, next;
  // In place in the enclosing reduceSeq's private accumulator (in_place_reduce, which says
  // why that is safe): no copy in, no copy out.
  bool in_place = array_acc && !shared && in_place_reduces_.count(e.get()) && dest &&
                  s.space.value_or(AddressSpace::Private) == AddressSpace::Private;
  if (own_parts) {
    acc = allocate(acc_type, AddressSpace::Private, s, "acc", static_cast<int>(parts.dims.size()));
    work_item_copy(init, acc, parts.dims, s);
  } else if (shared) {
    acc = allocate(acc_type, AddressSpace::Local, s, "acc");
    work_group_copy(init, acc, s);
    // A step may read elements of the accumulator that other work-items write (a sum of all
    // of it, say): it writes its values into a buffer of their own, and after a barrier the
    // work-group copies them into the accumulator.
    next = allocate(acc_type, AddressSpace::Local, s, "next");
  } else if (in_place) {
    // The initial value is the memory written (in_place_reduce), or a work-item's own part
    // broadcast as [1]..[1][part] (work_item_parts): then the destination, the same part
    // seen through the joins that write it back, is the accumulator.
    View part = access(*dest, 0);
    auto m = underlying_memory(part);
    bool broadcast = init.kind() == ViewKind::Map;
    LIFTC_ASSERT(m && m->space == AddressSpace::Private && (broadcast || m == underlying_memory(init)),
                 "a reduceSeq accumulating in place starts from the private memory it writes (in_place_reduce)");
    acc = broadcast ? part : init;
  } else if (array_acc) {
    acc = allocate(acc_type, s.space.value_or(AddressSpace::Private), s, "acc");
    copy(init, acc, s);
  } else {
    acc = variables(init, "acc");
  }
  // The reduceSeq of the step function that may accumulate in `acc`, while the step is lowered.
  ir::Expr inner;
  if (own_parts) {
    inner = parts.in_place;
  } else if (array_acc) {
    auto m = underlying_memory(acc);
    if (m && m->space == AddressSpace::Private) inner = in_place_reduce(e);
  }
  if (inner.defined()) in_place_reduces_.insert(inner.get());
  const arith::Expr& n = src.type().length();
  bool unroll = options_.unroll_reduce && !contains_loops(ir::lambda_body(f));
  loop(LoopKind::Seq, 0, n, s, unroll, [&](const Scope& in, const arith::Expr& i) {
    if (next.defined()) {
      Result r = apply(f, {acc, access(src, i)}, in, next);
      if (blocks_.back().empty() || blocks_.back().back()->kind != c::StmtKind::Barrier) emit(c::barrier(true, false));
      work_group_copy(r.in_dest ? next : r.view, acc, in);
      return;
    }
    Result r = apply(f, {acc, access(src, i)}, in, array_acc ? std::optional<View>(acc) : std::nullopt);
    if (array_acc) {
      if (!r.in_dest) copy(r.view, acc, in);
    } else if (acc_type.is_tuple()) {
      emit(write_value(acc, variables(r.view, "next")));  // every component from the old accumulator
    } else {
      emit(write_value(acc, r.view));
    }
  });
  if (inner.defined()) in_place_reduces_.erase(inner.get());
  if (!dest) return {single(acc), false};
  View d0 = access(*dest, 0);
  if (in_place) return {*dest, true};
  if (own_parts) {
    work_item_copy(acc, d0, parts.dims, s);
    // As work_group_copy: what other work-items may read next is written before they do.
    auto m = underlying_memory(d0);
    bool global = !m || m->space == AddressSpace::Global;
    ++group_writes_;
    group_writes_global_ = group_writes_global_ || global;
    emit(c::barrier(true, global));
  } else if (shared)
    work_group_copy(acc, d0, s);
  else if (array_acc)
    copy(acc, d0, s);
  else
    emit(write_value(d0, acc));
  return {*dest, true};
}

Result KernelBuilder::compile_to(const ir::Expr& e, const Scope& s, const std::optional<View>& dest) {
  AddressSpace space = space_of(e->prim);
  View x = compile(e->args[1], s, std::nullopt).view;
  Scope inner = s;
  inner.space = space;
  std::optional<View> d;
  if (dest) {
    auto m = underlying_memory(*dest);
    if (m && m->space == space) d = dest;
  }
  return apply(e->args[0], {x}, inner, d);
}

void KernelBuilder::copy(const View& src, const View& dest, const Scope& s) {
  if (!dest.type().is_array()) {
    emit(write_value(dest, src));
    return;
  }
  loop(LoopKind::Seq, 0, dest.type().length(), s, false,
       [&](const Scope& in, const arith::Expr& i) { copy(access(src, i), access(dest, i), in); });
}

void KernelBuilder::work_group_copy(const View& src, const View& dest, const Scope& s) {
  LIFTC_ASSERT(dest.type().is_array(), "a work-group copy copies an array");
  // The work-item's flat index in its work-group, and the work-group's size.
  c::Expr flat = c::work_item(c::WorkItemFn::LocalId, 0);
  arith::Expr items = threads_.local[0];
  for (int d = 1; d < 3; ++d) {
    const arith::Expr& n = threads_.local[static_cast<std::size_t>(d)];
    if (n.constant() == std::optional<std::int64_t>(1)) continue;
    flat = c::binary("+", flat, c::binary("*", c::index(items), c::work_item(c::WorkItemFn::LocalId, d), ir::Type::int_()),
                     ir::Type::int_());
    items = items * n;
  }
  std::string name = fresh("l");
  const arith::Expr& extent = dest.type().length();
  Scope inner = s;
  inner.loops.push_back(Loop{LoopKind::Lcl, 0, arith::var(name, 0, extent - 1), extent});
  blocks_.emplace_back();
  copy(access(src, inner.loops.back().var), access(dest, inner.loops.back().var), inner);
  std::vector<c::Stmt> body = std::move(blocks_.back());
  blocks_.pop_back();
  emit(c::for_loop(name, flat, extent, c::index(items), std::move(body)));
  // Others read what this work-item wrote (a barrier orders it), and in a sequential loop
  // the next iteration's writes wait for this one's reads (loop()).
  auto m = underlying_memory(dest);
  bool global = m && m->space == AddressSpace::Global;
  ++group_writes_;
  group_writes_global_ = group_writes_global_ || global;
  emit(c::barrier(true, global));
}

void KernelBuilder::work_item_copy(const View& src, const View& dest, const std::vector<int>& dims, const Scope& s) {
  if (dims.empty()) {
    copy(src, dest, s);
    return;
  }
  std::vector<int> rest(dims.begin() + 1, dims.end());
  loop(LoopKind::Lcl, dims[0], dest.type().length(), s, false,
       [&](const Scope& in, const arith::Expr& i) { work_item_copy(access(src, i), access(dest, i), rest, in); });
}

View KernelBuilder::allocate(const ir::Type& t, AddressSpace space, const Scope& s, const std::string& hint,
                             int work_item_dims) {
  LIFTC_ASSERT(work_item_dims == 0 || (space == AddressSpace::Private && !element_type(t).is_tuple()),
               "work-items' own parts are private arrays of one scalar kind (work_item_parts)");
  if (t.is_tuple()) {
    std::vector<View> parts;
    for (const auto& c : t.elems()) parts.push_back(allocate(c, space, s, hint));
    return tuple(std::move(parts));
  }
  if (element_type(t).is_tuple()) {
    std::vector<View> parts;
    for (std::size_t c = 0; c < element_type(t).elems().size(); ++c) parts.push_back(allocate(component_type(t, c), space, s, hint));
    return zip(std::move(parts), t);
  }
  // One region per enclosing parallel loop whose work-items share this memory.
  std::vector<Loop> regions;
  for (const auto& l : s.loops)
    if (region_per_iteration(l, space)) regions.push_back(l);
  ir::Type full = t;
  for (auto it = regions.rbegin(); it != regions.rend(); ++it) full = ir::Type::array(full, it->extent);

  auto m = std::make_shared<Memory>();
  const char* prefix = space == AddressSpace::Global ? "g" : space == AddressSpace::Local ? "lmem" : "pmem";
  m->name = fresh(fmt::format("{}{}", prefix, hint));
  while (space == AddressSpace::Global && taken_globals_.count(m->name)) m->name = fresh(fmt::format("{}{}", prefix, hint));
  m->space = space;
  m->type = full;
  m->work_item_dims = work_item_dims;
  ir::Type stored = work_item_part(full, static_cast<std::size_t>(work_item_dims));  // a work-item's part, or all
  m->variable = space == AddressSpace::Private && !stored.is_array();
  Buffer b;
  b.name = m->name;
  b.space = space;
  b.role = space == AddressSpace::Global ? BufferRole::Intermediate : space == AddressSpace::Local ? BufferRole::Local : BufferRole::Private;
  b.scalar = element_type(full).scalar_kind();
  b.elements = scalar_count(stored);
  b.bytes = b.elements * 4;
  b.kernel = kernel_;
  allocations_.push_back(b);
  if (space != AddressSpace::Global && !b.elements.constant())
    throw Error(fmt::format("{} memory '{}' needs a constant size, not {}: bind the sizes", to_string(space), m->name,
                            arith::to_string(b.elements)));
  ir::Type scalar = ir::Type::scalar(b.scalar);
  // Arrays in local and private memory are declared at the kernel's start, not where they are
  // first written: an array has no initial value either way, and NVIDIA's OpenCL compiler
  // (H200, driver 580) miscompiled a private array declared after a loop that filled another
  // (MobileNetV2's depthwise values and their pointwise sums, conv-dw-pw-private with a
  // residual add: wrong values unless built with -cl-opt-disable; docs/results.md).
  if (m->variable)
    emit(c::decl(m->name, stored, space, std::nullopt, nullptr));
  else if (space == AddressSpace::Local || space == AddressSpace::Private)
    start_decls_.push_back(c::decl(m->name, scalar, space, b.elements, nullptr));

  View v = mem_view(m);
  for (const auto& l : regions) v = access(v, l.var);
  return v;
}

std::vector<c::Stmt> KernelBuilder::build(const ir::Expr& body, const Scope& scope, const View& dest) {
  blocks_.assign(1, {});
  Result r = compile(body, scope, dest);
  LIFTC_ASSERT(r.in_dest != copy_, "the kernel plan knows which bodies only rearrange data (scan_kernel)");
  if (copy_) {
    // A definition that only rearranges data: a parallel copy over its (up to) three outer
    // dimensions, as the plan's threads say (copy_threads).
    int levels = 0;
    for (ir::Type t = dest.type(); t.is_array() && levels < 3; t = t.elem()) ++levels;
    std::function<void(const View&, const View&, const Scope&, int)> copy_level = [&](const View& src, const View& dst,
                                                                                       const Scope& in, int level) {
      if (level == levels) {
        copy(src, dst, in);
        return;
      }
      loop(LoopKind::Glb, levels - 1 - level, dst.type().length(), in, false, [&](const Scope& s, const arith::Expr& i) {
        copy_level(access(src, i), access(dst, i), s, level + 1);
      });
    };
    copy_level(r.view, dest, scope, 0);
  }
  std::vector<c::Stmt> out = start_decls_;
  out.insert(out.end(), blocks_[0].begin(), blocks_[0].end());
  return out;
}

}  // namespace liftc::codegen::detail
