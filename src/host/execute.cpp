// Module -> runtime::LaunchPlan, and a run through the runtime.

#include "liftc/host/execute.hpp"

#include <fmt/format.h>

#include "liftc/codegen/limits.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::host {

using codegen::Buffer;
using codegen::BufferRole;
using codegen::Module;

namespace {

runtime::ElemType elem_of(const Buffer& b) {
  if (b.scalar != ir::ScalarKind::Float) return runtime::ElemType::Int32;
  return b.storage == codegen::Storage::Half ? runtime::ElemType::Half : runtime::ElemType::Float;
}

runtime::NDRange range(const std::array<arith::Expr, 3>& r, int dims, const Module& m) {
  std::vector<std::size_t> sizes;
  for (int d = 0; d < dims; ++d) sizes.push_back(static_cast<std::size_t>(codegen::evaluate(r[static_cast<std::size_t>(d)], m)));
  runtime::NDRange n;
  n.sizes = sizes;
  return n;
}

}  // namespace

runtime::LaunchPlan launch_plan(const Module& m, const io::Tensors& inputs) {
  codegen::check_index_range(m);
  runtime::LaunchPlan plan;
  plan.build_options = m.build_options;
  std::map<std::string, std::size_t> index;
  for (const auto& b : m.memory.buffers) {
    if (b.space != codegen::AddressSpace::Global) continue;
    auto count = static_cast<std::size_t>(codegen::evaluate(b.elements, m));
    runtime::BufferSpec spec;
    switch (b.role) {
      case BufferRole::Input: {
        auto it = inputs.find(b.name);
        if (it == inputs.end()) throw Error(fmt::format("no value for input '{}'", b.name));
        const io::Tensor& t = it->second;
        if (static_cast<std::size_t>(t.element_count()) != count)
          throw Error(fmt::format("input '{}' has {} elements; the program expects {}", b.name, t.element_count(), count));
        if (t.dtype == io::DType::Float32 && b.scalar == ir::ScalarKind::Float)
          spec = runtime::BufferSpec::input(b.name, t.f32, elem_of(b));  // a half buffer's rounded on upload
        else if (t.dtype == io::DType::Int32 && b.scalar != ir::ScalarKind::Float)
          spec = runtime::BufferSpec::input(b.name, t.i32);
        else
          throw Error(fmt::format("input '{}' has the wrong element type", b.name));
        break;
      }
      case BufferRole::Output: spec = runtime::BufferSpec::output(b.name, count, elem_of(b)); break;
      default: spec = runtime::BufferSpec::scratch(b.name, count, elem_of(b)); break;
    }
    index[b.name] = plan.buffers.size();
    plan.buffers.push_back(std::move(spec));
  }
  for (const auto& k : m.kernels) {
    runtime::KernelLaunch launch;
    launch.kernel = k.name;
    launch.global = range(k.launch.global, k.launch.dims, m);
    if (k.launch.has_local()) launch.local = range(k.launch.local, k.launch.dims, m);
    for (const auto& a : k.args) {
      if (a.kind == codegen::KernelArg::Kind::Buffer)
        launch.args.push_back(runtime::arg_buffer(index.at(a.name)));
      else
        launch.args.push_back(runtime::arg_int(static_cast<std::int32_t>(codegen::evaluate(arith::var(a.name), m))));
    }
    plan.kernels.push_back(std::move(launch));
  }
  return plan;
}

Execution execute(const Module& m, const io::Tensors& inputs, const runtime::Session& session,
                  const runtime::RunOptions& options) {
  codegen::check_limits(m, codegen::limits_of(session.device()));
  runtime::LaunchPlan plan = launch_plan(m, inputs);
  Execution ex;
  ex.run = runtime::run_source(session, m.source(), plan.build_options, plan, options);
  for (std::size_t i = 0; i < plan.buffers.size(); ++i) {
    const auto& spec = plan.buffers[i];
    if (!spec.read_back) continue;
    const Buffer& b = m.memory.buffer(spec.name);
    io::Tensor t;
    t.shape = b.shape;
    if (b.scalar == ir::ScalarKind::Float) {
      t.dtype = io::DType::Float32;
      t.f32 = ex.run.floats(i);
    } else {
      t.dtype = io::DType::Int32;
      t.i32 = ex.run.ints(i);
    }
    ex.outputs[b.name] = std::move(t);
  }
  return ex;
}

}  // namespace liftc::host
