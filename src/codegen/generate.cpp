// generate(): the planned kernels (plan_kernels), each lowered once, the memory plan and the
// launch plan.

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "liftc/codegen/limits.hpp"
#include "liftc/codegen/passes.hpp"
#include "liftc/codegen/plan.hpp"
#include "liftc/codegen/printer.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/support/half.hpp"
#include "lower.hpp"
#include "opencl_functions.hpp"

namespace liftc::codegen {

namespace {

bool holds_tuple(const ir::Type& t) {
  if (t.is_tuple()) return true;
  return t.is_array() && holds_tuple(t.elem());
}

Buffer global_buffer(const std::string& name, const ir::Type& t, BufferRole role, const SourceLoc& loc,
                     Storage storage = Storage::Native) {
  if (holds_tuple(t))
    throw Error(fmt::format("'{}' has type {}: inputs and definitions hold scalars or vectors, not tuples", name,
                            ir::to_string(t)),
                loc);
  Buffer b;
  b.name = name;
  b.space = AddressSpace::Global;
  b.role = role;
  b.scalar = element_type(t).scalar_kind();
  b.storage = storage;
  b.elements = scalar_count(t);
  b.bytes = b.elements * (storage == Storage::Half ? 2 : 4);
  b.shape = shape_of(t);
  return b;
}

// Whether every float literal under `e` is a half exactly (a pad value such as 0.0): a copy
// kernel that reads halves and writes only such values stores them exactly as halves.
bool literals_are_halves(const ir::Expr& e) {
  if (e.kind() == ir::ExprKind::Literal && e->literal.kind == ir::ScalarKind::Float) {
    const auto f = static_cast<float>(e->literal.f);
    return static_cast<double>(f) == e->literal.f && half::round(f) == f;
  }
  return std::all_of(e->args.begin(), e->args.end(), literals_are_halves);
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

}  // namespace

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

// Builds a Module kernel by kernel, as the kernel plan says.
class ModuleBuilder {
 public:
  ModuleBuilder(Module& m, const Options& options, std::set<std::string> size_names, std::set<std::string> half)
      : m_(m), options_(options), size_names_(std::move(size_names)), half_(std::move(half)) {}

  // An input buffer, visible to every later kernel.
  void input(const std::string& name, const ir::Type& t, const SourceLoc& loc) {
    m_.memory.buffers.push_back(global_buffer(name, t, BufferRole::Input, loc, storage_of(name)));
    scope_.env[name] = mem_view(std::make_shared<Memory>(Memory{name, AddressSpace::Global, t, false}));
    globals_.push_back(name);
  }

  // The planned kernel `p`, lowered once, then the kernel passes.
  void kernel(const PlannedKernel& p) {
    const std::string& name = p.buffer;
    const ir::Type& t = p.body.type();
    Buffer result = global_buffer(name, t, p.role, p.loc, p.role == BufferRole::Output ? storage_of(name) : Storage::Native);
    auto out = std::make_shared<Memory>(Memory{name, AddressSpace::Global, t, false});

    Threads threads = fit_to_device(p.threads, options_);
    detail::KernelBuilder builder(p.name, options_, threads, p.copy);
    std::set<std::string> taken{name};
    for (const auto& b : m_.memory.buffers) taken.insert(b.name);
    builder.avoid_global_names(std::move(taken));
    c::Function fn;
    fn.name = p.name;
    fn.body = builder.build(p.body, scope_, mem_view(out));

    Kernel k;
    k.name = p.name;
    k.definition = name;
    k.launch = launch_of(p, threads, options_);
    if (p.role == BufferRole::Intermediate) result.kernel = p.name;
    std::set<std::string> used;
    for (const auto& s : fn.body) used_buffers(s, used);
    // An intermediate (`<definition>_part<k>`) is stored as half only where that rounds
    // nothing: a kernel that only moves data (a pad, a layout: a copy kernel, or maps of
    // `v -> v`) of half buffers, writing only halves. One that computes stays float, as the
    // interpreter, which knows no kernel plan, computes it.
    if (p.role == BufferRole::Intermediate && (p.copy || detail::only_moves_data(p.body)) &&
        literals_are_halves(p.body)) {
      bool reads = false, all_half = true;
      for (const auto& g : globals_)
        if (used.count(g)) reads = true, all_half = all_half && m_.memory.buffer(g).storage == Storage::Half;
      if (reads && all_half && result.scalar == ir::ScalarKind::Float) {
        result.storage = Storage::Half;
        result.bytes = result.elements * 2;
      }
    }
    m_.memory.buffers.push_back(result);
    for (const auto& g : globals_) {
      if (!used.count(g)) continue;
      const Buffer& b = m_.memory.buffer(g);
      fn.params.push_back(
          c::Param{g, ir::Type::scalar(b.scalar), true, true, AddressSpace::Global, b.storage == Storage::Half});
      k.args.push_back({KernelArg::Kind::Buffer, g});
    }
    fn.params.push_back(c::Param{name, ir::Type::scalar(element_type(t).scalar_kind()), true, false,
                                 AddressSpace::Global, result.storage == Storage::Half});
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
    if (options_.dump) options_.dump("lower", p.name, print_kernel(fn));
    for (const KernelPass& pass : kernel_passes()) {
      if (!pass.enabled(options_)) continue;
      fn = pass.run(fn);
      if (options_.dump) options_.dump(pass.name, p.name, print_kernel(fn));
    }
    k.source = detail::round_half_definitions(builder.round_half_widths()) + print_kernel(fn);
    k.function = std::move(fn);
    m_.kernels.push_back(std::move(k));

    scope_.env[name] = mem_view(out);
    globals_.push_back(name);
  }

 private:
  Storage storage_of(const std::string& name) const { return half_.count(name) ? Storage::Half : Storage::Native; }

  Module& m_;
  const Options& options_;
  std::set<std::string> size_names_;
  std::set<std::string> half_;  // inputs and definitions stored as half
  detail::Scope scope_;
  std::vector<std::string> globals_;  // buffer names kernels may take, in declaration order
};

}  // namespace

StorageChoice parse_storage(const std::string& text) {
  StorageChoice choice;
  if (text == "float") return choice;
  if (text == "half") {
    choice.all_half = true;
    return choice;
  }
  const std::string prefix = "half=";
  auto bad = [&] {
    return Error(fmt::format("--storage: expected 'float', 'half' or 'half=NAME[,NAME...]' (inputs and definitions "
                             "of the program), not '{}'",
                             text));
  };
  if (text.rfind(prefix, 0) != 0 || text.size() == prefix.size()) throw bad();
  std::size_t at = prefix.size();
  for (;;) {
    std::size_t comma = text.find(',', at);
    std::string name = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char ch) {
          return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
        }))
      throw bad();
    if (std::find(choice.half.begin(), choice.half.end(), name) == choice.half.end()) choice.half.push_back(name);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return choice;
}

std::string to_string(const StorageChoice& choice) {
  if (choice.all_half) return "half";
  if (choice.half.empty()) return "float";
  return fmt::format("half={}", fmt::join(choice.half, ","));
}

std::set<std::string> half_buffers(const ir::Program& checked, const StorageChoice& choice) {
  std::set<std::string> half;
  if (!choice.any()) return half;
  std::map<std::string, ir::ScalarKind> scalars;  // every input and definition, by name
  auto note = [&](const std::string& name, const ir::Type& t) {
    if (!holds_tuple(t)) scalars[name] = element_type(t).scalar_kind();
  };
  for (const auto& in : checked.inputs) note(in.name, in.type);
  for (const auto& def : checked.defs) note(def.name, def.body.type());
  if (choice.all_half) {
    for (const auto& [name, scalar] : scalars)
      if (scalar == ir::ScalarKind::Float) half.insert(name);
    if (half.empty()) throw Error("--storage half: the program has no float input or definition to store as half");
    return half;
  }
  for (const auto& name : choice.half) {
    auto it = scalars.find(name);
    if (it == scalars.end())
      throw Error(fmt::format("--storage half={}: the program has no input or definition '{}' holding scalars or "
                              "vectors",
                              name, name));
    if (it->second != ir::ScalarKind::Float)
      throw Error(fmt::format("--storage half={}: '{}' holds int; only float buffers can be stored as half", name,
                              name));
    half.insert(name);
  }
  return half;
}

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

  KernelPlan plan = plan_kernels(checked);
  check_kernel_work_groups(plan, options);
  if (options.dump)
    for (const auto& k : plan.kernels) options.dump("plan", k.name, to_string(k));
  StorageChoice stored_half;  // the program's own choice, checked again: a name it lost is a bug
  stored_half.half.assign(checked.half.begin(), checked.half.end());
  ModuleBuilder builder(m, options, size_names, half_buffers(checked, stored_half));
  for (const auto& in : checked.inputs) {
    builder.input(in.name, in.type, in.loc);
    m.inputs.push_back(in.name);
  }
  for (const auto& k : plan.kernels) builder.kernel(k);
  for (const auto& def : checked.defs) m.outputs.push_back(def.name);
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
