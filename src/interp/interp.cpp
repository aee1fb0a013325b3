// evaluate(): compile, load the inputs, evaluate each definition, collect the outputs.

#include "liftc/interp/interp.hpp"

#include <cstdlib>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "code.hpp"
#include "liftc/support/half.hpp"
#include "eval.hpp"
#include "tensors.hpp"

namespace liftc::interp {

namespace {

std::string describe(const io::Tensor& t) {
  return fmt::format("[{}] {}", fmt::join(t.shape, ", "), t.dtype == io::DType::Float32 ? "float32" : "int32");
}

// `t`'s floats rounded to the nearest halves: what a half buffer holds once `t` is stored.
io::Tensor rounded_to_half(io::Tensor t) {
  for (float& v : t.f32) v = half::round(v);
  return t;
}

// The value of input `in` from the given tensors, checked against its declared type.
detail::Value load_input(const detail::CompiledProgram::Input& in, const Tensors& inputs, bool half) {
  std::string what = fmt::format("input '{}'", in.name);
  io::Tensor expected = empty_tensor_for(in.type, what);
  auto it = inputs.find(in.name);
  if (it == inputs.end())
    throw Error(fmt::format("{} of type {} is missing (expected a tensor {})", what, ir::to_string(in.type),
                            describe(expected)));
  const io::Tensor& t = it->second;
  if (t.shape != expected.shape || t.dtype != expected.dtype)
    throw Error(fmt::format("{} of type {}: expected a tensor {}, got {}", what, ir::to_string(in.type),
                            describe(expected), describe(t)));
  std::size_t held = t.dtype == io::DType::Float32 ? t.f32.size() : t.i32.size();
  if (held != static_cast<std::size_t>(t.element_count()))
    throw Error(fmt::format("{}: the tensor holds {} values but its shape {} needs {}", what, held, describe(t),
                            t.element_count()));
  if (half) return detail::to_value(rounded_to_half(t), in.layout);
  return detail::to_value(t, in.layout);
}

}  // namespace

void check_sizes(const ir::Program& checked) { detail::compile(checked); }

Tensors evaluate(const ir::Program& checked, const Tensors& inputs, TupleOutputs tuples) {
  const std::set<std::string>& half = checked.half;
  detail::CompiledProgram program = detail::compile(checked);
  // The outermost maps run on every core (LIFTC_THREADS overrides; 1 = sequential).
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  if (const char* env = std::getenv("LIFTC_THREADS"); env && std::atoi(env) > 0) threads = static_cast<unsigned>(std::atoi(env));
  detail::Evaluator ev(program.num_slots, threads);
  for (const auto& in : program.inputs) ev.slot(in.slot) = load_input(in, inputs, half.count(in.name) > 0);

  Tensors outputs;
  for (const auto& def : program.defs) {
    for (const auto& [slot, code] : def.invariants) ev.slot(slot) = ev.eval(*code);
    detail::Value v = ev.eval(*def.body);
    if (half.count(def.name)) {  // stored as halves: later definitions read the rounded values
      LIFTC_ASSERT(detail::has_tensor_form(def.layout), "a definition stored as half holds floats, not tuples");
      io::Tensor stored = rounded_to_half(detail::to_tensor(v, def.layout, def.type));
      v = detail::to_value(stored, def.layout);
      outputs[def.name] = std::move(stored);
    } else if (detail::has_tensor_form(def.layout)) {
      outputs[def.name] = detail::to_tensor(v, def.layout, def.type);
    } else if (tuples == TupleOutputs::Components) {
      for (auto& [path, t] : detail::component_tensors(v, def.layout)) outputs[def.name + "." + path] = std::move(t);
    }
    ev.slot(def.slot) = std::move(v);
  }
  return outputs;
}

}  // namespace liftc::interp
