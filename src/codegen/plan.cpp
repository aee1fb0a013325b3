// plan_kernels(): each definition split into its kernels before lowering (see plan.hpp),
// their launches and memory; launch_of() and the plan's printed form.

#include "liftc/codegen/plan.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "liftc/codegen/view.hpp"
#include "liftc/ir/printer.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/support/fnv1a.hpp"
#include "lower.hpp"

namespace liftc::codegen {

namespace {

// The OpenCL kernel computing buffer `name`: `<name>_kernel`; a long name is cut and told
// apart by a hash of the whole, as drivers fail to link very long kernel symbols.
std::string kernel_name_of(const std::string& name) {
  constexpr std::size_t kMaxPrefix = 48;
  if (name.size() <= kMaxPrefix) return name + "_kernel";
  return fmt::format("{}_{:08x}_kernel", name.substr(0, kMaxPrefix), fnv1a_32(name));
}

// The node of `e` that has `target` (by identity) among its operands; undefined when none has.
ir::Expr parent_of(const ir::Expr& e, const ir::Expr& target) {
  for (const auto& a : e->args)
    if (same_node(a, target)) return e;
  for (const auto& a : e->args) {
    ir::Expr found = parent_of(a, target);
    if (found.defined()) return found;
  }
  return {};
}

// A race's map written in the layout its reader asks for: where `part` sits under layout
// primitives (and maps of them) that make a toGlobal's function, `toGlobal(x -> views(part),
// data)`, that toGlobal is split off instead, so the part's kernel writes the map's values
// through the views (as a definition's kernel writes through the views of its result) and
// the buffer holds them in the order its reader reads them. Without the toGlobal the buffer
// keeps the map's own order and the reader reads through the views: a channel-major copy is
// made so that its reader reads it channel-major. Winograd's input transform computes all
// alpha^2 values of a tile in one work-item ([C][T][alpha^2] in the map's order), and the
// batched multiplication reads each of them M / kappa times as [alpha^2][C][T].
ir::Expr with_written_layout(const ir::Expr& body, const ir::Expr& part) {
  ir::Expr chain = part;  // part under the layout primitives whose data it is
  ir::Expr parent = parent_of(body, chain);
  for (; parent.defined() && detail::passes_dest(parent) && same_node(parent->args.back(), chain);
       parent = parent_of(body, chain))
    chain = parent;
  if (!parent.defined() || parent.kind() != ir::ExprKind::Lambda || parent->params.size() != 1) return part;
  ir::Expr to = parent_of(body, parent);
  bool written = to.defined() && detail::is_call(to, ir::Prim::ToGlobal) && same_node(to->args.front(), parent);
  return written ? to : part;
}

bool contains_reduce_seq(const ir::Expr& e) {
  if (e.kind() == ir::ExprKind::Call && e->prim == ir::Prim::ReduceSeq) return true;
  for (const auto& a : e->args)
    if (contains_reduce_seq(a)) return true;
  return false;
}

// Whether `f` is the identity function (a copy's, as toPrivate's mapSeq(y -> y)).
bool is_identity(const ir::Expr& f) {
  return f.kind() == ir::ExprKind::Lambda && f->params.size() == 1 && ir::lambda_body(f).kind() == ir::ExprKind::Var &&
         ir::lambda_body(f)->name == f->params[0];
}

// The deepest nest of sequential loops (mapSeq, reduceSeq) in `e`: where a kernel's
// arithmetic is, as its work is the product of its loops' trip counts. Structural, so that
// the constraint stage (tuning parameters unbound) and code generation (bound) agree. Two
// kinds of loop do not count, with what they nest: a loop over a constant array or a row of
// one (`rows`: the variables bound to its elements), a transform applying its matrix (a
// fixed amount of work per element: Winograd's transforms); and a copy (toPrivate's
// mapSeq of the identity).
int sequential_depth(const ir::Expr& e, std::set<std::string>& rows) {
  if (e.kind() != ir::ExprKind::Call || e->args.empty()) {
    int inner = 0;
    for (const auto& a : e->args) inner = std::max(inner, sequential_depth(a, rows));
    return inner;
  }
  const ir::Expr& data = e->args.back();
  bool over_constants = detail::is_call(data, ir::Prim::Array);
  bool loop = e->prim == ir::Prim::MapSeq || e->prim == ir::Prim::ReduceSeq;
  if (loop) {
    for (const auto& v : ir::free_vars(data)) over_constants = over_constants || rows.count(v) > 0;
    if (over_constants) return 0;
    if (e->prim == ir::Prim::MapSeq && is_identity(e->args[0])) return sequential_depth(data, rows);
  }
  // A parallel map over a constant array binds its rows.
  bool binds_rows = over_constants && ir::is_map(e->prim) && e->args[0].kind() == ir::ExprKind::Lambda &&
                    e->args[0]->params.size() == 1;
  if (binds_rows) rows.insert(e->args[0]->params[0]);
  int inner = 0;
  for (const auto& a : e->args) inner = std::max(inner, sequential_depth(a, rows));
  if (binds_rows) rows.erase(e->args[0]->params[0]);
  return inner + (loop ? 1 : 0);
}

int sequential_depth(const ir::Expr& e) {
  std::set<std::string> rows;
  return sequential_depth(e, rows);
}

// The main kernel of a definition planned into kernels [first, end): of the mapGlb kernels
// that compute (not copies), the one with the deepest nest of sequential loops, where
// another is deeper than the one the planner chose (Winograd's batched multiplication, a
// reduction nested in maps, after its transforms, single reductions, were split off).
void choose_main_kernel(std::vector<PlannedKernel>& kernels, std::size_t first) {
  std::size_t chosen = kernels.size();
  for (std::size_t i = first; i < kernels.size(); ++i)
    if (kernels[i].tuned) chosen = i;
  if (chosen == kernels.size()) return;
  std::size_t best = chosen;
  for (std::size_t i = first; i < kernels.size(); ++i)
    if (!kernels[i].copy && !kernels[i].threads.work_groups &&
        sequential_depth(kernels[i].body) > sequential_depth(kernels[best].body))
      best = i;
  kernels[chosen].tuned = false;
  kernels[best].tuned = true;
}

// Plans a program definition by definition, each into one kernel, or several where values
// cross work-items.
class Planner {
 public:
  Planner(KernelPlan& plan, std::set<std::string> size_names) : plan_(plan), size_names_(std::move(size_names)) {}

  void input(const std::string& name) { buffers_.insert(name); }

  // The kernels computing `body` into the buffer `name` (of definition `def`). Where a
  // parallel map's values would be read by other work-items of the same kernel (a race:
  // OpenCL has no barrier across work-groups), that map becomes a kernel of its own,
  // computing an intermediate buffer `<name>_part<k>` that the rest reads; a map that uses
  // variables of the code around it cannot, and is refused.
  //
  // The work-group size chosen for mapGlb kernels (Options::global_work_group, a tuning
  // parameter) applies to the definition's main kernel only (`tuned`): the one with its
  // parallel maps, which is the part split off when a layout primitive is applied to their
  // result (a crop), or the first part split off that reduces (partial sums, summed by the
  // rest), and otherwise the definition's own; plan_kernels then moves the choice to a
  // computing kernel with a deeper nest of sequential loops, if one is (choose_main_kernel).
  // Pad, layout and loop-invariant kernels split off it have other global sizes: the
  // runtime chooses theirs.
  void definition(const std::string& name, const std::string& def, ir::Expr body, const SourceLoc& loc, BufferRole role,
                  bool tuned) {
    // A kernel-level parallel map inside a function that uses nothing of it (a copy of the
    // weights in another layout, say) is the same for every work-item: computed once, by a
    // kernel of its own, before the rest.
    for (ir::Expr inv = invariant_parallel_map(body, false); inv.defined(); inv = invariant_parallel_map(body, false))
      body = split_off(name, def, body, inv, false);
    for (;;) {
      // The races first: a part split off (the pad kernel's mapGlb before a mapWrg kernel)
      // leaves the rest one scheme of parallel maps, which kernel_threads checks.
      detail::KernelScan scan = detail::scan_kernel(body, ir::contains_parallel_maps(body));
      if (!scan.race) {
        add_kernel(name, def, body, loc, role, tuned, detail::kernel_threads(body), std::move(scan));
        return;
      }
      const detail::CrossItemRead& race = *scan.race;
      ir::Expr part = race.computes_definition ? race.node : with_written_layout(body, race.node);
      std::vector<std::string> locals;
      for (const auto& v : ir::free_vars(part))
        if (!buffers_.count(v)) locals.push_back("'" + v + "'");
      if (!locals.empty() || same_node(part, body))
        throw Error(fmt::format("definition '{}': {}; {}: compute that part in a definition of its own", name,
                                race.what,
                                locals.empty() ? "it is the whole definition"
                                               : fmt::format("it uses {} of the code around it, so it cannot be "
                                                             "made a kernel of its own",
                                                             fmt::join(locals, ", "))),
                    race.node.loc());
      // The definition's computation itself, under a crop: its kernel is the main one. So is
      // the first kernel split off that reduces (the partial sums of conv-chw-omega: the
      // definition's own kernel only adds omega of them per output).
      bool is_main = race.computes_definition || same_node(race.node, detail::computing_part(body)) ||
                     (tuned && contains_reduce_seq(race.node));
      body = split_off(name, def, body, part, tuned && is_main);
      if (is_main) tuned = false;  // what is left only rearranges data
    }
  }

 private:
  // `body` with `part` computed by kernels of its own into `<name>_part<k>` and read from there.
  ir::Expr split_off(const std::string& name, const std::string& def, const ir::Expr& body, const ir::Expr& part,
                     bool tuned) {
    std::string part_name = fresh_part(name);
    definition(part_name, def, part, part.loc(), BufferRole::Intermediate, tuned);
    return ir::replace_node(body, part, ir::with_type(ir::make_var(part_name, part.loc()), part.type()));
  }

  void add_kernel(const std::string& name, const std::string& def, const ir::Expr& body, const SourceLoc& loc,
                  BufferRole role, bool tuned, const Threads& threads, detail::KernelScan scan) {
    PlannedKernel k;
    k.name = kernel_name_of(name);
    k.buffer = name;
    k.definition = def;
    k.role = role;
    k.loc = loc;
    k.body = body;
    LIFTC_ASSERT(body.type().defined(), "plan_kernels() takes a type-checked program");
    k.bytes = bytes_of(body.type());
    k.copy = !scan.writes_result;
    k.threads = k.copy ? detail::copy_threads(body.type()) : threads;
    k.tuned = tuned;
    k.buffers = std::move(scan.buffers);
    k.unrollable = std::move(scan.unrollable);
    plan_.kernels.push_back(std::move(k));
    buffers_.insert(name);
  }

  // The outermost mapGlb or mapWrg under a lambda of `e` whose free variables are all
  // buffers (inputs, earlier definitions); undefined when there is none.
  ir::Expr invariant_parallel_map(const ir::Expr& e, bool under_lambda) const {
    if (under_lambda && e.kind() == ir::ExprKind::Call &&
        (e->prim == ir::Prim::MapGlb || e->prim == ir::Prim::MapWrg)) {
      bool closed = true;
      for (const auto& v : ir::free_vars(e)) closed = closed && buffers_.count(v) > 0;
      if (closed) return e;
    }
    for (const auto& a : e->args) {
      ir::Expr found = invariant_parallel_map(a, under_lambda || e.kind() == ir::ExprKind::Lambda);
      if (found.defined()) return found;
    }
    return {};
  }

  std::string fresh_part(const std::string& name) const {
    for (int k = 1;; ++k) {
      std::string part = fmt::format("{}_part{}", name, k);
      if (!buffers_.count(part) && !size_names_.count(part)) return part;
    }
  }

  KernelPlan& plan_;
  std::set<std::string> size_names_;
  std::set<std::string> buffers_;  // inputs and the buffers of the kernels planned so far
};

std::string launch_text(const Threads& t, bool copy) {
  std::vector<std::string> global, local;
  for (int d = 0; d < std::max(1, t.dims); ++d) {
    global.push_back(arith::to_string(t.global[static_cast<std::size_t>(d)]));
    local.push_back(arith::to_string(t.local[static_cast<std::size_t>(d)]));
  }
  if (t.work_groups) return fmt::format("global {}, local {}", fmt::join(global, " x "), fmt::join(local, " x "));
  return fmt::format("global {}{}", fmt::join(global, " x "), copy ? " (a parallel copy)" : t.dims == 0 ? " (one work-item)" : "");
}

}  // namespace

arith::Expr bytes_of(const ir::Type& t) {
  if (!t.defined()) return 0;
  if (t.is_array()) return t.length() * bytes_of(t.elem());
  if (t.is_tuple()) {
    arith::Expr sum = 0;
    for (const auto& c : t.elems()) sum = sum + bytes_of(c);
    return sum;
  }
  return scalar_count(t) * 4;  // a scalar or a vector
}

KernelPlan plan_kernels(const ir::Program& checked) {
  KernelPlan plan;
  std::set<std::string> size_names;
  for (const auto& sz : checked.sizes) size_names.insert(sz.name);
  Planner planner(plan, size_names);
  for (const auto& in : checked.inputs) planner.input(in.name);
  for (const auto& def : checked.defs) {
    std::size_t first = plan.kernels.size();
    planner.definition(def.name, def.name, def.body, def.loc, BufferRole::Output, true);
    choose_main_kernel(plan.kernels, first);
  }
  return plan;
}

Launch launch_of(const PlannedKernel& k, const Threads& t, const Options& options) {
  Launch l;
  l.dims = std::max(1, t.dims);
  for (std::size_t d = 0; d < 3; ++d) {
    l.global[d] = t.global[d];
    l.local[d] = t.work_groups ? t.local[d] : arith::Expr(0);
  }
  if (t.work_groups) return l;
  // The main kernel's work-group size is global_work_group (--local); another kernel's is
  // its entry of kernel_work_groups (--kernel-local), if any. Else the runtime chooses.
  const std::array<std::int64_t, 3>* chosen = nullptr;
  if (k.tuned) {
    chosen = &options.global_work_group;
  } else if (auto it = options.kernel_work_groups.find(k.buffer); it != options.kernel_work_groups.end()) {
    chosen = &it->second;
    // A kernel's own size names its dimensions only (--local is shared by the main kernels
    // of every definition, whose dimensions differ, so a size beyond one's is not an error).
    for (std::size_t d = static_cast<std::size_t>(l.dims); d < 3; ++d)
      if (it->second[d] > 1)
        throw Error(fmt::format("work-group size {} in dimension {} for {}: the kernel has {} dimension{}",
                                it->second[d], d, k.name, l.dims, l.dims == 1 ? "" : "s"));
  }
  if (!chosen || (*chosen)[0] <= 0) return l;
  std::int64_t items = 1;
  for (std::size_t d = 0; d < static_cast<std::size_t>(l.dims); ++d) {
    std::int64_t size = std::max<std::int64_t>(1, (*chosen)[d]);
    auto global = l.global[d].constant();
    if (global && *global % size != 0)
      throw Error(fmt::format("work-group size {} does not divide {}'s global size {} in dimension {}", size, k.name,
                              *global, d));
    l.local[d] = size;
    items *= size;
  }
  if (options.max_work_group_size > 0 && items > options.max_work_group_size)
    throw Error(fmt::format("work-group of {} work-items for {}: the device allows {}", items, k.name,
                            options.max_work_group_size));
  return l;
}

void check_kernel_work_groups(const KernelPlan& plan, const Options& options) {
  // --local is shared by the main kernels of every definition, so each takes the dimensions
  // it has; a size past the dimensions of all of them sizes nothing.
  int main_dims = 0;
  std::vector<std::string> mains;  // "name (N-D)"
  for (const auto& k : plan.kernels)
    if (k.tuned && !k.threads.work_groups) {
      main_dims = std::max(main_dims, std::max(1, k.threads.dims));
      mains.push_back(fmt::format("{} {}-D", k.name, std::max(1, k.threads.dims)));
    }
  for (std::size_t d = static_cast<std::size_t>(main_dims); d < 3; ++d)
    if (options.global_work_group[d] > 1)
      throw Error(fmt::format("work-group size {} in dimension {} (--local): {}", options.global_work_group[d], d,
                              mains.empty() ? std::string("no kernel of the program takes --local (each has "
                                                          "work-groups of its own or a --kernel-local size)")
                                            : fmt::format("the kernels it sizes ({}) have at most {} dimension{}",
                                                          fmt::join(mains, ", "), main_dims, main_dims == 1 ? "" : "s")));
  for (const auto& [buffer, sizes] : options.kernel_work_groups) {
    auto k = std::find_if(plan.kernels.begin(), plan.kernels.end(), [&](const PlannedKernel& p) { return p.buffer == buffer; });
    if (k == plan.kernels.end()) {
      std::vector<std::string> names;
      for (const auto& p : plan.kernels)
        if (!p.threads.work_groups && !p.tuned) names.push_back(p.buffer);
      throw Error(fmt::format("a work-group size for {}: no kernel of the program computes it ({})", buffer,
                              names.empty() ? std::string("no kernel but a main one lacks work-groups")
                                            : fmt::format("the kernels that take one compute {}", fmt::join(names, ", "))));
    }
    if (k->threads.work_groups)
      throw Error(fmt::format("a work-group size for {}: its kernel's work-groups are its mapLcl loops", buffer));
    if (k->tuned)
      throw Error(fmt::format("a work-group size for {}: its kernel is the main one, whose size --local gives", buffer));
  }
}

std::string to_string(const PlannedKernel& k) {
  std::string text = fmt::format("// kernel {} computes {} ({}, {} bytes) of definition {}\n", k.name, k.buffer,
                                 to_string(k.role), arith::to_string(k.bytes), k.definition);
  text += fmt::format("// launch: {}{}\n", launch_text(k.threads, k.copy),
                      k.threads.work_groups ? ""
                      : k.tuned             ? "; the work-group size of mapGlb kernels (--local) applies"
                                            : fmt::format("; its work-group size: --kernel-local {}=...", k.buffer));
  for (const auto& b : k.buffers)
    text += fmt::format("// allocates {} memory for {}: {} bytes\n", codegen::to_string(b.space), b.what,
                        arith::to_string(b.bytes));
  return text + ir::to_string(k.body) + "\n";
}

}  // namespace liftc::codegen
