// scan_kernel(): what lowering a body as one kernel will do, found from the IR alone,
// before anything is lowered: where each value is written (the destination a consumer
// gives, or memory allocated), the memory allocated, and the first parallel map whose
// values other work-items would read (and the private arrays of a work-item); and what lowering cannot do at all (a high-level
// reduce or computing map, mapped primitives nested wrongly), refused here as errors. It follows the KernelBuilder's walk (lower.cpp,
// lower_loops.cpp) step by step, in the same order, through the same decisions
// (passes_dest, same_item_producer, the allocation rule); the builder asserts where the
// scan said it would find no race, so a disagreement is an internal error, not a wrong
// kernel or a wrong space.

#include <algorithm>

#include <fmt/format.h>

#include "lower.hpp"

namespace liftc::codegen::detail {

namespace {

// Checks where a mapped primitive may appear; a liftc::Error at the node otherwise.
void check_nesting(const ir::Expr& e, int dim, const std::vector<Loop>& loops) {
  std::string what = fmt::format("{}({})", ir::signature(e->prim).name, dim);
  switch (e->prim) {
    case ir::Prim::MapWrg:
      if (inside(loops, LoopKind::Lcl) || inside(loops, LoopKind::Glb))
        throw Error(what + " is inside a mapLcl or mapGlb: work-groups are the outermost level", e.loc());
      if (inside(loops, LoopKind::Wrg, dim)) throw Error(what + " is inside another mapWrg of the same dimension", e.loc());
      return;
    case ir::Prim::MapLcl:
      if (!inside(loops, LoopKind::Wrg))
        throw Error(what + " is not inside a mapWrg: local work-items need an enclosing mapWrg", e.loc());
      if (inside(loops, LoopKind::Lcl, dim)) throw Error(what + " is inside another mapLcl of the same dimension", e.loc());
      return;
    case ir::Prim::MapGlb:
      if (inside(loops, LoopKind::Glb, dim)) throw Error(what + " is inside another mapGlb of the same dimension", e.loc());
      return;
    LIFTC_LAYOUT_PRIM_CASES case ir::Prim::Map: case ir::Prim::Reduce: case ir::Prim::Id: case ir::Prim::Array:
    case ir::Prim::MapSeq: case ir::Prim::ReduceSeq: case ir::Prim::ToGlobal: case ir::Prim::ToLocal:
    case ir::Prim::ToPrivate: case ir::Prim::Vectorize: case ir::Prim::Dot: LIFTC_SCALAR_BUILTIN_CASES
      return;
  }
}

// What compiling a node gives, as far as the plan needs it: whether its value went into the
// destination it was given, and whether it is a value (a scalar computed in place, which
// `id` does not copy into memory).
struct Scanned {
  bool in_dest = false;
  bool value = false;
};

class Scanner {
 public:
  KernelScan out;

  // The KernelBuilder's compile(): `dest` is the address space of the destination given,
  // `space` the enclosing toX's.
  Scanned compile(const ir::Expr& e, std::optional<AddressSpace> dest, std::optional<AddressSpace> space) {
    if (out.race) return {};
    switch (e.kind()) {
      case ir::ExprKind::Var: {
        auto it = values_.find(e->name);
        return {false, it != values_.end() && it->second};
      }
      case ir::ExprKind::Literal: return {false, true};
      case ir::ExprKind::Lambda: throw Error("a function is used where a value is expected", e.loc());
      case ir::ExprKind::Apply: {
        std::vector<bool> args;
        for (std::size_t i = 1; i < e->args.size(); ++i) args.push_back(compile(e->args[i], {}, space).value);
        return apply(e->args[0], args, dest, space);
      }
      case ir::ExprKind::Tuple: {
        bool value = true;
        for (const auto& a : e->args) value = compile(a, {}, space).value && value;
        return {false, value};
      }
      case ir::ExprKind::Get: return {false, compile(ir::get_tuple(e), {}, space).value};
      case ir::ExprKind::Let: {
        Scanned v = compile(ir::let_value(e), {}, space);
        // A computed value goes into private variables (compile_let): only literals and
        // sizes stay values.
        const ir::Expr& value = ir::let_value(e);
        bool simple = value.kind() == ir::ExprKind::Literal ||
                      (value.kind() == ir::ExprKind::Call && value->prim == ir::Prim::SizeValue) ||
                      value.kind() == ir::ExprKind::Var;
        return bind({e->name}, {v.value && simple}, [&] { return compile(ir::let_body(e), dest, space); });
      }
      case ir::ExprKind::Call: return compile_call(e, dest, space);
    }
    return {};
  }

 private:
  Scanned apply(const ir::Expr& lambda, const std::vector<bool>& args, std::optional<AddressSpace> dest,
                std::optional<AddressSpace> space) {
    if (lambda.kind() != ir::ExprKind::Lambda) return {};
    std::vector<bool> values(lambda->params.size(), false);
    if (args.size() == values.size()) values = args;
    return bind(lambda->params, values, [&] { return compile(ir::lambda_body(lambda), dest, space); });
  }

  template <class F>
  Scanned bind(const std::vector<std::string>& names, const std::vector<bool>& values, F&& body) {
    std::vector<std::pair<std::string, std::optional<bool>>> saved;
    for (std::size_t i = 0; i < names.size(); ++i) {
      auto it = values_.find(names[i]);
      saved.emplace_back(names[i], it == values_.end() ? std::nullopt : std::optional<bool>(it->second));
      values_[names[i]] = values[i];
    }
    Scanned r = body();
    for (auto it = saved.rbegin(); it != saved.rend(); ++it) {
      if (it->second)
        values_[it->first] = *it->second;
      else
        values_.erase(it->first);
    }
    return r;
  }

  Scanned compile_call(const ir::Expr& e, std::optional<AddressSpace> dest, std::optional<AddressSpace> space) {
    ir::Prim p = e->prim;
    if (ir::is_layout(p)) {
      // compile_layout: the operand written through the layout first; when it did not
      // write there, every operand compiled again without a destination.
      if (dest && passes_dest(e) && compile(e->args.back(), dest, space).in_dest) return {true, false};
      for (const auto& a : e->args) compile(a, {}, space);
      return {};
    }
    switch (p) {
      case ir::Prim::Map: {
        // A map that only rearranges data is a view (its function holds no loops).
        if (compile(e->args[1], dest && passes_dest(e) ? dest : std::nullopt, space).in_dest) return {true, false};
        if (!out.race && !ir::only_rearranges(ir::lambda_body(e->args[0])))
          throw Error("map computes values but is not mapped onto OpenCL: use mapGlb, mapWrg/mapLcl or mapSeq", e.loc());
        return {};
      }
      case ir::Prim::MapWrg: case ir::Prim::MapLcl: case ir::Prim::MapGlb: case ir::Prim::MapSeq:
        return compile_map(e, dest, space);
      case ir::Prim::ReduceSeq: return compile_reduce(e, dest, space);
      case ir::Prim::ToGlobal: case ir::Prim::ToLocal: case ir::Prim::ToPrivate: {
        AddressSpace to = space_of(p);
        bool x = compile(e->args[1], {}, space).value;
        return apply(e->args[0], {x}, dest == to ? dest : std::nullopt, to);
      }
      case ir::Prim::Id: {
        if (compile(e->args[0], {}, space).value) return {false, true};
        if (dest) return {true, false};
        allocate(e.type(), space.value_or(AddressSpace::Global), "id");
        return {};
      }
      case ir::Prim::Vectorize: {
        bool x = compile(e->args[1], {}, space).value;
        return apply(e->args[0], {x}, {}, space);
      }
      case ir::Prim::Array: return {false, false};  // a constant array: memory, read like an input
      case ir::Prim::Reduce:
        throw Error("reduce is not lowered: use reduceSeq (inside a mapped or sequential loop) to generate code", e.loc());
      LIFTC_LAYOUT_PRIM_CASES case ir::Prim::Dot: LIFTC_SCALAR_BUILTIN_CASES
        for (const auto& a : e->args) compile(a, {}, space);
        return {false, true};
    }
    LIFTC_ASSERT(false, "the switch above lists every primitive");
    return {false, true};
  }

  // compile_map: the data operand, then memory when no destination is given, then the
  // function per element; a parallel map whose allocated values other work-items read is
  // the race.
  Scanned compile_map(const ir::Expr& e, std::optional<AddressSpace> dest, std::optional<AddressSpace> space) {
    LoopKind kind = loop_kind(e->prim);
    int dim = ir::map_dimension(e);
    check_nesting(e, dim, loops_);
    if (kind == LoopKind::Seq) check_redundant(e);
    if (kind != LoopKind::Seq) {
      ir::Expr producer = same_item_producer(e);
      if (producer.defined()) same_item_.insert(producer.get());
      ir::Expr parts = own_parts_reader(loops_, e);
      if (parts.defined()) own_parts_read_.insert(parts.get());
    }
    compile(e->args[1], {}, space);
    if (out.race) return {};
    if (kind == LoopKind::Glb && dest && writes_a_sequential_maps_memory()) {
      // Each work-item of this mapGlb writes its elements of memory that a mapSeq around it
      // allocated, whose reader (after the mapSeq) then runs in every work-item of the
      // dimension and reads every element: no barrier orders work-items of a global dimension.
      out.race = CrossItemRead{e, fmt::format("the values that mapGlb({}) computes inside a sequential loop (mapSeq) are "
                                              "read, with the loop's other values, by other work-items of the same "
                                              "kernel, with no synchronisation between them (a data race)",
                                              dim)};
      return {};
    }
    AddressSpace where = dest ? *dest : space.value_or(AddressSpace::Global);
    if (!dest) allocate(e.type(), where, ir::signature(e->prim).name);
    // A sequential map's own memory: what the parallel maps inside it write into, through
    // sequential maps that write into it too (a mapSeq given a destination is part of it).
    bool own_memory = !dest || kind != LoopKind::Seq;
    if (own_memory) allocations_.push_back({!dest && kind == LoopKind::Seq, loops_.size()});
    loops_.push_back({kind, dim, {}, e->args[1].type().length()});
    apply(e->args[0], {false}, where, space);
    loops_.pop_back();
    if (own_memory) allocations_.pop_back();
    if (out.race || dest || kind == LoopKind::Seq) return {dest.has_value(), false};
    bool work_group_barrier = kind == LoopKind::Lcl && !inside(loops_, LoopKind::Lcl);
    if (!same_item_.count(e.get()) && !work_group_barrier)
      out.race = CrossItemRead{e, fmt::format("the values that {}({}) computes are read by other work-items of the same "
                                              "kernel, with no synchronisation between them (a data race)",
                                              ir::signature(e->prim).name, ir::map_dimension(e))};
    return {};
  }

  // compile_reduce: the data, the initial value, an array accumulator in memory, the
  // function per element.
  Scanned compile_reduce(const ir::Expr& e, std::optional<AddressSpace> dest, std::optional<AddressSpace> space) {
    check_redundant(e);
    compile(e->args[2], {}, space);
    compile(e->args[0], {}, space);
    if (out.race) return {};
    ir::Type acc = e.type().elem();
    std::optional<AddressSpace> acc_space;
    const ir::Expr& f = e->args[1];
    ir::Expr inner;  // the reduceSeq of the step function that may accumulate in this accumulator
    if (acc.is_array()) {
      bool shared = work_group_accumulator(loops_, f);
      // As KernelBuilder::compile_reduce: each work-item's own part in its private memory,
      // else a work-group's accumulator in local memory, else in place in the enclosing
      // private accumulator, else private.
      WorkItemParts parts;
      if (shared && (dest || own_parts_read_.count(e.get())) && !element_type(acc).is_tuple())
        parts = work_item_parts(loops_, f);
      if (!parts.dims.empty()) {
        acc_space = AddressSpace::Private;
        allocate(work_item_part(acc, parts.dims.size()), AddressSpace::Private, "reduceSeq");
        inner = parts.in_place;
      } else {
        acc_space = shared ? AddressSpace::Local : space.value_or(AddressSpace::Private);
        if (!(in_place_.count(e.get()) && dest && *acc_space == AddressSpace::Private))
          allocate(acc, *acc_space, "reduceSeq");
        if (shared) allocate(acc, AddressSpace::Local, "reduceSeq step");  // the step's values
        inner = *acc_space == AddressSpace::Private ? in_place_reduce(e) : ir::Expr();
      }
      if (inner.defined()) in_place_.insert(inner.get());
    }
    if (f.kind() == ir::ExprKind::Lambda && !contains_loops(ir::lambda_body(f)))
      out.unrollable.push_back(e->args[2].type().length());
    loops_.push_back({LoopKind::Seq, 0, {}, e->args[2].type().length()});
    allocations_.push_back({false, loops_.size()});  // the step writes into the accumulator, not a mapSeq's memory
    apply(f, {false, false}, acc_space, space);
    allocations_.pop_back();
    loops_.pop_back();
    if (inner.defined()) in_place_.erase(inner.get());
    return {dest.has_value(), false};
  }

  // Whether the destination given here is (part of) memory that the innermost map or
  // reduction around allocated for its values, a mapSeq's, with only sequential loops
  // between: its elements are written here, per work-item of a parallel map, and read
  // whole after the mapSeq.
  bool writes_a_sequential_maps_memory() const {
    if (allocations_.empty() || !allocations_.back().sequential_map) return false;
    return std::all_of(loops_.begin() + static_cast<std::ptrdiff_t>(allocations_.back().depth), loops_.end(),
                       [](const Loop& l) { return l.kind == LoopKind::Seq; });
  }

  // The allocation rule of KernelBuilder::allocate: one region per enclosing parallel loop
  // whose work-items share the memory (every parallel loop for global memory, mapLcl
  // loops for local memory, none for a work-item's private memory).
  void allocate(const ir::Type& t, AddressSpace space, std::string_view what) {
    arith::Expr regions = 1;
    for (const auto& l : loops_)
      if (region_per_iteration(l, space)) regions = regions * l.extent;
    out.buffers.push_back({std::string(what), space, bytes_of(t) * regions});
  }

  // A sequential loop of a kernel with work-items, outside every one of its parallel maps:
  // every work-item would run all of it (the fused layer map(f, zip(conv, x)) lowered with
  // only its outer map on work-items computed the whole convolution in each, thousands of
  // times over, into one buffer they all wrote). Refused, as a point that cannot be a fast
  // kernel and races on its buffer; the strategies that map the computation onto
  // work-items (after normal-form) give the kernel.
  void check_redundant(const ir::Expr& e) const {
    if (!parallel || inside(loops_, LoopKind::Glb) || inside(loops_, LoopKind::Wrg)) return;
    throw Error(fmt::format("{} runs outside every parallel map of a kernel with work-items: each work-item would "
                            "compute all of it (map it onto work-items, or into a kernel of its own)",
                            ir::signature(e->prim).name),
                e.loc());
  }

 public:
  bool parallel = false;  // the kernel has parallel maps (scan_kernel's argument)

 private:
  std::vector<Loop> loops_;  // their index variables are not needed here
  // Per map and reduction being compiled that writes into memory of its own (not a mapSeq
  // given a destination), innermost last: whether it is a mapSeq that allocated memory for
  // its values, and the depth of loops_ at its loop.
  struct Allocation {
    bool sequential_map = false;
    std::size_t depth = 0;
  };
  std::vector<Allocation> allocations_;
  std::map<std::string, bool> values_;  // variables bound to values (vs. memory)
  std::set<const ir::ExprNode*> same_item_;
  std::set<const ir::ExprNode*> in_place_;  // reduceSeqs accumulating in the enclosing one's private accumulator
  std::set<const ir::ExprNode*> own_parts_read_;  // reduceSeqs whose parts only their owners read (own_parts_reader)
};

}  // namespace

bool passes_dest(const ir::Expr& e) {
  if (e.kind() != ir::ExprKind::Call) return false;
  switch (e->prim) {
    LIFTC_LAYOUT_PRIM_CASES
      return ir::is_invertible_layout(e->prim);
    case ir::Prim::Map: {
      const ir::Expr& f = e->args[0];
      return f.kind() == ir::ExprKind::Lambda && f->params.size() == 1 && writes_through(ir::lambda_body(f), f->params[0]);
    }
    case ir::Prim::Reduce: case ir::Prim::Id: case ir::Prim::Array: case ir::Prim::MapWrg: case ir::Prim::MapLcl:
    case ir::Prim::MapGlb: case ir::Prim::MapSeq: case ir::Prim::ReduceSeq: case ir::Prim::ToGlobal:
    case ir::Prim::ToLocal: case ir::Prim::ToPrivate: case ir::Prim::Vectorize: case ir::Prim::Dot:
    LIFTC_SCALAR_BUILTIN_CASES
      return false;
  }
  LIFTC_ASSERT(false, "the switch above lists every primitive");
  return false;
}

bool writes_through(const ir::Expr& body, const std::string& param) {
  if (body.kind() == ir::ExprKind::Var) return body->name == param;
  if (body.kind() != ir::ExprKind::Call) return false;
  return passes_dest(body) && writes_through(body->args.back(), param);
}

bool chains_writes(ir::Prim p) {
  return p == ir::Prim::Map || ir::is_invertible_layout(p);
}

ir::Expr same_item_producer(const ir::Expr& map) {
  ir::Expr producer = ir::producing_map(map->args[1]);
  if (!producer.defined() || producer->prim != map->prim || ir::map_dimension(producer) != ir::map_dimension(map))
    return {};
  // A mapWrg's own work-items are synchronised by the barrier after it; any other parallel
  // map inside the producer writes element i on work-items that are not this one.
  if (map->prim == ir::Prim::MapWrg || !ir::contains_parallel_maps(ir::lambda_body(producer->args[0]))) return producer;
  return {};
}

// Accumulating in place. reduce-nest turns a reduction over joined rows into a reduction
// over the rows whose step reduces one row into the accumulator:
//   reduceSeq(z, (acc, rows) -> join(mapSeq(s -> reduceSeq(s, g, zip(rows.0, rows.1)), acc)), ...)
// Lowered literally, each inner reduceSeq copies its initial value `s` (an element of the
// outer accumulator) into an accumulator of its own, and at its end copies the result into
// its destination, which is that same element (join and mapSeq write element j of their
// result where element j of `acc` is). A register tile nested three deep held three copies.
// Updating `s` where it lies instead gives the same values when (1) the destination is
// exactly the memory `s` is read from (the join/mapSeq shape above guarantees it: element j
// is read and written at the same place, and no other element), (2) nothing else reads that
// memory while the inner reduction runs — the accumulator is not free in g or ys, so only
// the step function's accumulator parameter reaches it, and iteration j of the mapSeq reads
// element j only — and (3) the memory is private to the work-item, so no other work-item can
// observe the intermediate values (lowering and the scan check this where they apply it).
// After the inner reduction the memory holds its result, as it would after the copy.
ir::Expr in_place_reduce(const ir::Expr& outer) {
  auto is_var = [](const ir::Expr& e, const std::string& name) { return e.kind() == ir::ExprKind::Var && e->name == name; };
  const ir::Expr& step = outer->args[1];
  if (step.kind() != ir::ExprKind::Lambda || step->params.size() != 2) return {};
  const std::string& acc = step->params[0];
  const ir::Expr& body = ir::lambda_body(step);
  if (!is_call(body, ir::Prim::Join)) return {};
  const ir::Expr& x = body->args[0];
  ir::Expr inner;
  std::string init;  // the variable the inner reduction starts from: acc, or the map's element of it
  if (is_call(x, ir::Prim::ReduceSeq)) {
    inner = x;
    init = acc;
  } else if (is_call(x, ir::Prim::MapSeq) && is_var(x->args[1], acc) && x->args[0].kind() == ir::ExprKind::Lambda &&
             x->args[0]->params.size() == 1 && is_call(ir::lambda_body(x->args[0]), ir::Prim::ReduceSeq)) {
    inner = ir::lambda_body(x->args[0]);
    init = x->args[0]->params[0];
  } else {
    return {};
  }
  if (!is_var(inner->args[0], init) || !inner.type().elem().is_array()) return {};
  for (const ir::Expr& part : {inner->args[1], inner->args[2]})
    for (const auto& v : ir::free_vars(part))
      if (v == acc || v == init) return {};
  return inner;
}

KernelScan scan_kernel(const ir::Expr& body, bool parallel) {
  Scanner s;
  s.parallel = parallel;
  s.out.writes_result = s.compile(body, AddressSpace::Global, std::nullopt).in_dest;
  if (!s.out.race && !s.out.writes_result && parallel)
    s.out.race = CrossItemRead{computing_part(body),
                               "the value of this definition is not written by its parallel maps (a layout primitive "
                               "is applied to their result)",
                               true};
  return s.out;
}

}  // namespace liftc::codegen::detail
