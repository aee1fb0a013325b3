// Launch-plan values: buffer helpers, NDRange printing, and the plan's consistency check.

#include "liftc/runtime/plan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "liftc/support/diagnostic.hpp"

namespace liftc::runtime {

std::size_t elem_bytes(ElemType elem) {
  switch (elem) {
    case ElemType::Float: return sizeof(float);
    case ElemType::Int32: return sizeof(std::int32_t);
    case ElemType::Half: return 2;
  }
  LIFTC_ASSERT(false, "every ElemType has a size");
}

BufferSpec BufferSpec::input(std::string name, std::vector<float> data, ElemType elem) {
  LIFTC_ASSERT(elem != ElemType::Int32, "float host data goes into a float or half buffer");
  const std::size_t bytes = data.size() * elem_bytes(elem);
  return {std::move(name), bytes, elem, std::move(data), false};
}

BufferSpec BufferSpec::input(std::string name, std::vector<std::int32_t> data) {
  const std::size_t bytes = data.size() * sizeof(std::int32_t);
  return {std::move(name), bytes, ElemType::Int32, std::move(data), false};
}

BufferSpec BufferSpec::output(std::string name, std::size_t count, ElemType elem) {
  return {std::move(name), count * elem_bytes(elem), elem, std::monostate{}, true};
}

BufferSpec BufferSpec::scratch(std::string name, std::size_t count, ElemType elem) {
  return {std::move(name), count * elem_bytes(elem), elem, std::monostate{}, false};
}

std::size_t NDRange::volume() const {
  std::size_t v = 1;
  for (std::size_t s : sizes) v *= s;
  return v;
}

std::string NDRange::str() const {
  if (sizes.empty()) return "(driver's choice)";
  return fmt::format("({})", fmt::join(sizes, ", "));
}

namespace {

// The bytes `host` takes on the device as elements of `elem` (a half buffer's floats 2 each).
std::size_t host_bytes(const HostData& host, ElemType elem) {
  if (auto* f = std::get_if<std::vector<float>>(&host)) return f->size() * elem_bytes(elem);
  if (auto* i = std::get_if<std::vector<std::int32_t>>(&host)) return i->size() * sizeof(std::int32_t);
  return 0;
}

bool host_matches(const HostData& host, ElemType elem) {
  if (std::holds_alternative<std::monostate>(host)) return true;
  return std::holds_alternative<std::vector<float>>(host) == (elem != ElemType::Int32);
}

}  // namespace

void validate_plan(const LaunchPlan& plan) {
  for (std::size_t b = 0; b < plan.buffers.size(); ++b) {
    const BufferSpec& buf = plan.buffers[b];
    const std::string what = fmt::format("launch plan: buffer {} '{}'", b, buf.name);
    if (buf.bytes == 0) throw Error(what + " has size 0");
    if (buf.bytes % elem_bytes(buf.elem) != 0) {
      throw Error(fmt::format("{} has {} bytes, not a whole number of {}-byte elements", what, buf.bytes,
                              elem_bytes(buf.elem)));
    }
    if (!host_matches(buf.host, buf.elem)) throw Error(what + ": host data's element type differs from the buffer's");
    if (!std::holds_alternative<std::monostate>(buf.host) && host_bytes(buf.host, buf.elem) != buf.bytes) {
      throw Error(fmt::format("{} has {} bytes but {} bytes of host data", what, buf.bytes,
                              host_bytes(buf.host, buf.elem)));
    }
  }
  if (plan.kernels.empty()) throw Error("launch plan: no kernel to run");
  for (std::size_t k = 0; k < plan.kernels.size(); ++k) {
    const KernelLaunch& launch = plan.kernels[k];
    const std::string what = fmt::format("launch plan: launch {} of kernel '{}'", k, launch.kernel);
    if (launch.kernel.empty()) throw Error(fmt::format("launch plan: launch {} has no kernel name", k));
    if (launch.library)
      throw Error(fmt::format("launch plan: step {} calls {}, a library routine that only liftc-runner runs (liftc "
                              "explore); this in-process runtime runs generated kernels only",
                              k, launch.library->routine));
    const std::size_t dims = launch.global.sizes.size();
    if (dims < 1 || dims > 3) throw Error(fmt::format("{}: global size has {} dimensions (1-3 allowed)", what, dims));
    if (launch.global.volume() == 0) throw Error(fmt::format("{}: global size {} is empty", what, launch.global.str()));
    if (!launch.local.empty() && launch.local.sizes.size() != dims) {
      throw Error(fmt::format("{}: local size {} and global size {} differ in dimensions", what, launch.local.str(),
                              launch.global.str()));
    }
    for (std::size_t a = 0; a < launch.args.size(); ++a) {
      if (auto* buf = std::get_if<BufferArg>(&launch.args[a]); buf && buf->buffer >= plan.buffers.size()) {
        throw Error(fmt::format("{}: argument {} names buffer {} but the plan has {} buffers", what, a, buf->buffer,
                                plan.buffers.size()));
      }
      if (auto* local = std::get_if<LocalArg>(&launch.args[a]); local && local->bytes == 0) {
        throw Error(fmt::format("{}: argument {} is a local allocation of 0 bytes", what, a));
      }
    }
  }
}

}  // namespace liftc::runtime
