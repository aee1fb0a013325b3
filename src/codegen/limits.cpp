// Resource limits of a device or target, and the check of a Module against them.

#include "liftc/codegen/limits.hpp"

#include <map>

#include <fmt/format.h>

#include "liftc/support/diagnostic.hpp"

namespace liftc::codegen {

namespace {

std::string kib(std::int64_t bytes) { return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / 1024.0); }

}  // namespace

Limits limits_of(const runtime::DeviceInfo& device) {
  Limits l;
  l.what = fmt::format("device '{}'", device.name);
  l.local_bytes = static_cast<std::int64_t>(device.local_mem_bytes);
  l.max_alloc_bytes = static_cast<std::int64_t>(device.max_alloc_bytes);
  l.global_bytes = static_cast<std::int64_t>(device.global_mem_bytes);
  l.max_work_group_size = static_cast<std::int64_t>(device.max_work_group_size);
  for (std::size_t d = 0; d < 3 && d < device.max_work_item_sizes.size(); ++d)
    l.max_work_item_sizes[d] = static_cast<std::int64_t>(device.max_work_item_sizes[d]);
  return l;
}

std::vector<std::string> limit_violations(const Module& m, const Limits& limits) {
  std::vector<std::string> out;
  std::map<std::string, std::int64_t> local, priv;
  std::int64_t global = 0;
  for (const Buffer& b : m.memory.buffers) {
    std::int64_t bytes = evaluate(b.bytes, m);
    if (b.space == AddressSpace::Local) local[b.kernel] += bytes;
    if (b.space == AddressSpace::Private) priv[b.kernel] += bytes;
    if (b.space != AddressSpace::Global) continue;
    global += bytes;
    if (limits.max_alloc_bytes > 0 && bytes > limits.max_alloc_bytes)
      out.push_back(fmt::format("{} buffer '{}' takes {} bytes; {} allocates at most {} in one buffer", to_string(b.role),
                                b.name, bytes, limits.what, limits.max_alloc_bytes));
  }
  if (limits.global_bytes > 0 && global > limits.global_bytes)
    out.push_back(fmt::format("the buffers take {} bytes of global memory; {} has {}", global, limits.what,
                              limits.global_bytes));
  for (const auto& [kernel, bytes] : local)
    if (limits.local_bytes > 0 && bytes > limits.local_bytes)
      out.push_back(fmt::format("kernel '{}' needs {} of local memory per work-group; {} has {}", kernel, kib(bytes),
                                limits.what, kib(limits.local_bytes)));
  for (const auto& [kernel, bytes] : priv)
    if (limits.private_bytes > 0 && bytes > limits.private_bytes)
      out.push_back(fmt::format("kernel '{}' needs {} of private memory per work-item; at most {} is allowed", kernel,
                                kib(bytes), kib(limits.private_bytes)));
  for (const Kernel& k : m.kernels) {
    if (!k.launch.has_local()) continue;
    std::int64_t items = 1;
    for (std::size_t d = 0; d < static_cast<std::size_t>(k.launch.dims); ++d) {
      std::int64_t size = evaluate(k.launch.local[d], m);
      items *= size;
      if (limits.max_work_item_sizes[d] > 0 && size > limits.max_work_item_sizes[d])
        out.push_back(fmt::format("kernel '{}' has work-groups of {} work-items in dimension {}; {} allows {}", k.name,
                                  size, d, limits.what, limits.max_work_item_sizes[d]));
    }
    if (limits.max_work_group_size > 0 && items > limits.max_work_group_size)
      out.push_back(fmt::format("kernel '{}' has work-groups of {} work-items; {} allows {}", k.name, items, limits.what,
                                limits.max_work_group_size));
  }
  return out;
}

void check_index_range(const Module& m) {
  for (const Buffer& b : m.memory.buffers) {
    if (b.space != AddressSpace::Global) continue;
    std::int64_t n = evaluate(b.elements, m);
    if (n > kMaxIndex)
      throw Error(fmt::format("{} buffer '{}' holds {} elements; generated kernels index with a 32-bit int, which "
                              "holds at most {}",
                              to_string(b.role), b.name, n, kMaxIndex));
  }
  for (const Kernel& k : m.kernels)
    for (std::size_t d = 0; d < static_cast<std::size_t>(k.launch.dims); ++d) {
      std::int64_t n = evaluate(k.launch.global[d], m);
      if (n > kMaxIndex)
        throw Error(fmt::format("kernel '{}' has {} work-items in dimension {}; work-item ids are 32-bit ints, at most {}",
                                k.name, n, d, kMaxIndex));
    }
}

void check_limits(const Module& m, const Limits& limits) {
  std::vector<std::string> v = limit_violations(m, limits);
  if (v.empty()) return;
  throw Error(fmt::format("the generated code does not fit {}: {}", limits.what, fmt::join(v, "; ")));
}

}  // namespace liftc::codegen
