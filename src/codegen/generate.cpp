// generate(): one kernel per definition, the memory plan and the launch plan.

#include <set>

#include <fmt/format.h>

#include "liftc/codegen/limits.hpp"
#include "liftc/codegen/passes.hpp"
#include "liftc/codegen/printer.hpp"
#include "liftc/support/diagnostic.hpp"
#include "lower.hpp"

namespace liftc::codegen {

namespace {

bool holds_tuple(const ir::Type& t) {
  if (t.is_tuple()) return true;
  return t.is_array() && holds_tuple(t.elem());
}

std::vector<std::int64_t> shape_of(const ir::Type& t) {
  std::vector<std::int64_t> shape;
  ir::Type u = t;
  while (u.is_array()) {
    auto n = u.length().constant();
    if (!n) return {};
    shape.push_back(*n);
    u = u.elem();
  }
  if (u.is_vector()) shape.push_back(u.width());
  return shape;
}

Buffer global_buffer(const std::string& name, const ir::Type& t, BufferRole role, const SourceLoc& loc) {
  if (holds_tuple(t))
    throw Error(fmt::format("'{}' has type {}: inputs and definitions hold scalars or vectors, not tuples", name,
                            ir::to_string(t)),
                loc);
  Buffer b;
  b.name = name;
  b.space = AddressSpace::Global;
  b.role = role;
  b.scalar = element_type(t).scalar_kind();
  b.elements = scalar_count(t);
  b.bytes = b.elements * 4;
  b.shape = shape_of(t);
  return b;
}

// Names of the buffers a kernel body loads from or stores to.
void used_buffers(const c::Stmt& s, std::set<std::string>& out) {
  std::function<void(const c::Expr&)> on_expr = [&](const c::Expr& e) {
    if (!e) return;
    if (e->kind == c::ExprKind::Load) out.insert(e->text);
    for (const auto& a : e->args) on_expr(a);
  };
  on_expr(s->value);
  on_expr(s->start);
  on_expr(s->step);
  if (s->kind == c::StmtKind::Store) out.insert(s->name);
  for (const auto& b : s->body) used_buffers(b, out);
}

bool contains_reduce_seq(const ir::Expr& e) {
  if (e.kind() == ir::ExprKind::Call && e->prim == ir::Prim::ReduceSeq) return true;
  for (const auto& a : e->args)
    if (contains_reduce_seq(a)) return true;
  return false;
}

Launch launch_of(const detail::Threads& t, const Options& options, const std::string& kernel) {
  Launch l;
  l.dims = std::max(1, t.dims);
  for (std::size_t d = 0; d < 3; ++d) {
    l.global[d] = t.global[d];
    l.local[d] = t.work_groups ? t.local[d] : arith::Expr(0);
  }
  if (t.work_groups || options.global_work_group[0] <= 0) return l;
  std::int64_t items = 1;
  for (std::size_t d = 0; d < static_cast<std::size_t>(l.dims); ++d) {
    std::int64_t size = std::max<std::int64_t>(1, options.global_work_group[d]);
    auto global = l.global[d].constant();
    if (global && *global % size != 0)
      throw Error(fmt::format("work-group size {} does not divide {}'s global size {} in dimension {}", size, kernel,
                              *global, d));
    l.local[d] = size;
    items *= size;
  }
  if (options.max_work_group_size > 0 && items > options.max_work_group_size)
    throw Error(fmt::format("work-group of {} work-items for {}: the device allows {}", items, kernel,
                            options.max_work_group_size));
  return l;
}

}  // namespace

const char* to_string(BufferRole r) {
  switch (r) {
    case BufferRole::Input: return "input";
    case BufferRole::Output: return "output";
    case BufferRole::Intermediate: return "intermediate";
    case BufferRole::Local: return "local";
    case BufferRole::Private: return "private";
  }
  return "?";
}

bool Launch::has_local() const { return local[0] != arith::Expr(0); }

std::string Module::source() const {
  // OpenCL C lets the compiler contract `a * b + c` into one fused multiply-add by default
  // (FP_CONTRACT is on), which rounds once instead of twice: unless the module asks for it
  // (the mad tuning parameter), the kernels are built with contraction off, so a point with
  // mad=0 computes exactly the products and sums the program wrote.
  std::string text = contract ? "" : "#pragma OPENCL FP_CONTRACT OFF\n\n";
  for (const auto& k : kernels) text += k.source + "\n";
  return text;
}

namespace {

// The OpenCL kernel computing definition `name`: `<name>_kernel`; a long name is cut and
// told apart by a hash of the whole, as drivers fail to link very long kernel symbols.
std::string kernel_name_of(const std::string& name) {
  constexpr std::size_t kMaxPrefix = 48;
  if (name.size() <= kMaxPrefix) return name + "_kernel";
  std::uint32_t hash = 2166136261u;  // FNV-1a
  for (unsigned char c : name) hash = (hash ^ c) * 16777619u;
  return fmt::format("{}_{:08x}_kernel", name.substr(0, kMaxPrefix), hash);
}

// Replaces the node `target` (by identity) inside `e` with `replacement`.
ir::Expr replace_node(const ir::Expr& e, const ir::Expr& target, const ir::Expr& replacement) {
  if (same_node(e, target)) return replacement;
  std::vector<ir::Expr> args;
  args.reserve(e->args.size());
  for (const auto& a : e->args) args.push_back(replace_node(a, target, replacement));
  return ir::with_args(e, std::move(args));
}

// Builds a Module definition by definition, each into one kernel, or several where values
// cross work-items.
class ModuleBuilder {
 public:
  ModuleBuilder(Module& m, const Options& options, std::set<std::string> size_names)
      : m_(m), options_(options), size_names_(std::move(size_names)) {}

  // An input buffer, visible to every later kernel.
  void input(const std::string& name, const ir::Type& t, const SourceLoc& loc) {
    m_.memory.buffers.push_back(global_buffer(name, t, BufferRole::Input, loc));
    scope_.env[name] = mem_view(std::make_shared<Memory>(Memory{name, AddressSpace::Global, t, false}));
    globals_.push_back(name);
  }

  // The kernels computing `body` into the global buffer `name`. Where a parallel map's
  // values would be read by other work-items of the same kernel (a race: OpenCL has no
  // barrier across work-groups), that map becomes a kernel of its own, computing an
  // intermediate buffer `<name>_part<k>` that the rest reads; a map that uses variables of
  // the code around it cannot, and is refused.
  //
  // The work-group size chosen for mapGlb kernels (Options::global_work_group, a tuning
  // parameter) applies to the definition's main kernel only: the one with its parallel maps,
  // which is the part split off when a layout primitive is applied to their result (a crop),
  // or the first part split off that reduces (partial sums, summed by the rest), and
  // otherwise the definition's own. Pad, layout and loop-invariant kernels split off it
  // have other global sizes: the runtime chooses theirs (`work_group` false).
  void definition(const std::string& name, ir::Expr body, const SourceLoc& loc, BufferRole role,
                  bool work_group = true) {
    // A kernel-level parallel map inside a function that uses nothing of it (a copy of the
    // weights in another layout, say) is the same for every work-item: computed once, by a
    // kernel of its own, before the rest.
    for (ir::Expr inv = invariant_parallel_map(body, false); inv.defined(); inv = invariant_parallel_map(body, false))
      body = hoist(name, body, inv, false);
    for (;;) {
      try {
        kernel(name, body, loc, role, work_group);
        return;
      } catch (const detail::CrossItemRead& race) {
        std::vector<std::string> locals;
        for (const auto& v : ir::free_vars(race.node))
          if (!scope_.env.count(v)) locals.push_back("'" + v + "'");
        if (!locals.empty() || same_node(race.node, body))
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
                       (work_group && contains_reduce_seq(race.node));
        body = hoist(name, body, race.node, work_group && is_main);
        if (is_main) work_group = false;  // what is left only rearranges data
      }
    }
  }

 private:
  // `body` with `part` computed by a kernel of its own into `<name>_part<k>` and read from
  // there.
  ir::Expr hoist(const std::string& name, const ir::Expr& body, const ir::Expr& part, bool work_group) {
    std::string part_name = fresh_part(name);
    definition(part_name, part, part.loc(), BufferRole::Intermediate, work_group);
    return replace_node(body, part, ir::with_type(ir::make_var(part_name, part.loc()), part.type()));
  }

  // The outermost mapGlb or mapWrg under a lambda of `e` whose free variables are all
  // buffers (inputs, earlier definitions); undefined when there is none.
  ir::Expr invariant_parallel_map(const ir::Expr& e, bool under_lambda) const {
    if (under_lambda && e.kind() == ir::ExprKind::Call &&
        (e->prim == ir::Prim::MapGlb || e->prim == ir::Prim::MapWrg)) {
      bool closed = true;
      for (const auto& v : ir::free_vars(e)) closed = closed && scope_.env.count(v) > 0;
      if (closed) return e;
    }
    for (const auto& a : e->args) {
      ir::Expr found = invariant_parallel_map(a, under_lambda || e.kind() == ir::ExprKind::Lambda);
      if (found.defined()) return found;
    }
    return {};
  }

  std::string fresh_part(const std::string& name) {
    for (int k = 1;; ++k) {
      std::string part = fmt::format("{}_part{}", name, k);
      if (!scope_.env.count(part) && !size_names_.count(part)) return part;
    }
  }

  // One kernel computing `body` into buffer `name`; leaves the module unchanged on failure.
  void kernel(const std::string& name, const ir::Expr& body, const SourceLoc& loc, BufferRole role, bool work_group) {
    const ir::Type& t = body.type();
    LIFTC_ASSERT(t.defined(), "generate() takes a type-checked program");
    Buffer result = global_buffer(name, t, role, loc);
    auto out = std::make_shared<Memory>(Memory{name, AddressSpace::Global, t, false});

    std::string kernel_name = kernel_name_of(name);
    detail::KernelBuilder builder(kernel_name, options_, detail::plan_threads(body, options_));
    c::Function fn;
    fn.name = kernel_name;
    fn.body = builder.build(body, scope_, mem_view(out));

    Kernel k;
    k.name = kernel_name;
    k.definition = name;
    Options own = options_;
    if (!work_group) own.global_work_group = {0, 0, 0};
    k.launch = launch_of(builder.threads(), own, kernel_name);
    if (role == BufferRole::Intermediate) result.kernel = kernel_name;
    m_.memory.buffers.push_back(result);
    std::set<std::string> used;
    for (const auto& s : fn.body) used_buffers(s, used);
    for (const auto& g : globals_) {
      if (!used.count(g)) continue;
      const Buffer& b = m_.memory.buffer(g);
      fn.params.push_back(c::Param{g, ir::Type::scalar(b.scalar), true, true, AddressSpace::Global});
      k.args.push_back({KernelArg::Kind::Buffer, g});
    }
    fn.params.push_back(c::Param{name, ir::Type::scalar(element_type(t).scalar_kind()), true, false, AddressSpace::Global});
    k.args.push_back({KernelArg::Kind::Buffer, name});
    for (const auto& b : builder.allocations()) {
      m_.memory.buffers.push_back(b);
      if (b.role != BufferRole::Intermediate) continue;
      fn.params.push_back(c::Param{b.name, ir::Type::scalar(b.scalar), true, false, AddressSpace::Global});
      k.args.push_back({KernelArg::Kind::Buffer, b.name});
    }
    std::set<std::string> sizes_used;
    for (const auto& e : c::arith_exprs(fn))
      for (const auto& v : arith::free_vars(e))
        if (size_names_.count(v)) sizes_used.insert(v);
    for (std::size_t d = 0; d < 3; ++d)
      for (const auto& e : {k.launch.global[d], k.launch.local[d]})
        for (const auto& v : arith::free_vars(e)) LIFTC_ASSERT(size_names_.count(v), "launch sizes depend on sizes only");
    for (const auto& v : sizes_used) {
      fn.params.push_back(c::Param{v, ir::Type::int_(), false, false, AddressSpace::Private});
      k.args.push_back({KernelArg::Kind::Size, v});
    }
    // The kernel passes keep the buffers and sizes the kernel uses, so its parameters are
    // known before they run.
    if (options_.dump) options_.dump("lower", kernel_name, print_kernel(fn));
    for (const KernelPass& pass : kernel_passes()) {
      if (!pass.enabled(options_)) continue;
      fn = pass.run(fn);
      if (options_.dump) options_.dump(pass.name, kernel_name, print_kernel(fn));
    }
    k.source = print_kernel(fn);
    k.function = std::move(fn);
    m_.kernels.push_back(std::move(k));

    scope_.env[name] = mem_view(out);
    globals_.push_back(name);
  }

  Module& m_;
  const Options& options_;
  std::set<std::string> size_names_;
  detail::Scope scope_;
  std::vector<std::string> globals_;  // buffer names kernels may take, in declaration order
};

}  // namespace

std::string build_options(const Options& options) {
  for (std::size_t i = 0; i < options.build_options.size(); ++i) {
    auto ch = static_cast<unsigned char>(options.build_options[i]);
    if (ch < 0x20 || ch == 0x7f)
      throw Error(fmt::format("the build options contain a control character (byte 0x{:02x} at offset {}); give them "
                              "on one line",
                              ch, i));
  }
  std::string out = options.mad ? "-cl-mad-enable" : "";
  std::size_t begin = options.build_options.find_first_not_of(' ');
  if (begin != std::string::npos) {
    std::size_t end = options.build_options.find_last_not_of(' ');
    out += (out.empty() ? "" : " ") + options.build_options.substr(begin, end - begin + 1);
  }
  return out;
}

Module generate(const ir::Program& checked, const Options& options) {
  Module m;
  m.build_options = build_options(options);
  m.contract = options.mad;
  bool bound = true;
  for (const auto& sz : checked.sizes) {
    if (sz.value)
      m.sizes[sz.name] = *sz.value;
    else
      bound = false;
  }
  if (!bound) m.sizes.clear();
  std::set<std::string> size_names;
  for (const auto& sz : checked.sizes) size_names.insert(sz.name);

  ModuleBuilder builder(m, options, size_names);
  for (const auto& in : checked.inputs) {
    builder.input(in.name, in.type, in.loc);
    m.inputs.push_back(in.name);
  }
  for (const auto& def : checked.defs) {
    builder.definition(def.name, def.body, def.loc, BufferRole::Output);
    m.outputs.push_back(def.name);
  }
  if (bound) check_index_range(m);
  return m;
}

std::int64_t evaluate(const arith::Expr& e, const Module& m, const std::map<std::string, std::int64_t>& extra) {
  std::map<std::string, std::int64_t> values = m.sizes;
  for (const auto& [k, v] : extra) values[k] = v;
  auto r = arith::evaluate(e, values);
  if (!r) {
    auto vars = arith::free_vars(e);
    throw Error(fmt::format("cannot evaluate {}: give a value to {}", arith::to_string(e), fmt::join(vars, ", ")));
  }
  return *r;
}

}  // namespace liftc::codegen
