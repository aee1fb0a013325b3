// generate(): one kernel per definition, the memory plan and the launch plan.

#include <set>

#include <fmt/format.h>

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
  std::string text;
  for (const auto& k : kernels) text += k.source + "\n";
  return text;
}

Module generate(const ir::Program& checked, const Options& options) {
  Module m;
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

  detail::Scope scope;
  std::vector<std::string> globals;  // buffer names in declaration order
  for (const auto& in : checked.inputs) {
    m.memory.buffers.push_back(global_buffer(in.name, in.type, BufferRole::Input, in.loc));
    auto mem = std::make_shared<Memory>(Memory{in.name, AddressSpace::Global, in.type, false});
    scope.env[in.name] = mem_view(mem);
    m.inputs.push_back(in.name);
    globals.push_back(in.name);
  }

  for (const auto& def : checked.defs) {
    const ir::Type& t = def.body.type();
    LIFTC_ASSERT(t.defined(), "generate() takes a type-checked program");
    m.memory.buffers.push_back(global_buffer(def.name, t, BufferRole::Output, def.loc));
    auto out = std::make_shared<Memory>(Memory{def.name, AddressSpace::Global, t, false});

    std::string kernel_name = def.name + "_kernel";
    detail::KernelBuilder builder(kernel_name, options, detail::plan_threads(def.body, options));
    c::Function fn;
    fn.name = kernel_name;
    fn.body = builder.build(def.body, scope, mem_view(out));

    Kernel k;
    k.name = kernel_name;
    k.definition = def.name;
    k.launch = launch_of(builder.threads(), options, kernel_name);
    std::set<std::string> used;
    for (const auto& s : fn.body) used_buffers(s, used);
    for (const auto& g : globals) {
      if (!used.count(g)) continue;
      const Buffer& b = m.memory.buffer(g);
      fn.params.push_back(c::Param{g, ir::Type::scalar(b.scalar), true, true, AddressSpace::Global});
      k.args.push_back({KernelArg::Kind::Buffer, g});
    }
    fn.params.push_back(c::Param{def.name, ir::Type::scalar(element_type(t).scalar_kind()), true, false, AddressSpace::Global});
    k.args.push_back({KernelArg::Kind::Buffer, def.name});
    for (const auto& b : builder.allocations()) {
      m.memory.buffers.push_back(b);
      if (b.role != BufferRole::Intermediate) continue;
      fn.params.push_back(c::Param{b.name, ir::Type::scalar(b.scalar), true, false, AddressSpace::Global});
      k.args.push_back({KernelArg::Kind::Buffer, b.name});
    }
    std::set<std::string> sizes_used;
    for (const auto& e : c::arith_exprs(fn))
      for (const auto& v : arith::free_vars(e))
        if (size_names.count(v)) sizes_used.insert(v);
    for (std::size_t d = 0; d < 3; ++d)
      for (const auto& e : {k.launch.global[d], k.launch.local[d]})
        for (const auto& v : arith::free_vars(e)) LIFTC_ASSERT(size_names.count(v), "launch sizes depend on sizes only");
    for (const auto& v : sizes_used) {
      fn.params.push_back(c::Param{v, ir::Type::int_(), false, false, AddressSpace::Private});
      k.args.push_back({KernelArg::Kind::Size, v});
    }
    k.source = OpenCLPrinter().print(fn);
    k.function = std::move(fn);
    m.kernels.push_back(std::move(k));

    scope.env[def.name] = mem_view(out);
    m.outputs.push_back(def.name);
    globals.push_back(def.name);
  }
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
