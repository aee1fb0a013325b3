// The memory plan's footprints.

#include <fmt/format.h>

#include "liftc/codegen/module.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::codegen {

arith::Expr MemoryPlan::global_bytes() const {
  arith::Expr total = 0;
  for (const auto& b : buffers)
    if (b.space == AddressSpace::Global) total = total + b.bytes;
  return total;
}

namespace {

// The largest per-kernel sum of the buffers in `space`.
arith::Expr per_kernel_max(const std::vector<Buffer>& buffers, AddressSpace space) {
  std::map<std::string, arith::Expr> per_kernel;
  for (const auto& b : buffers)
    if (b.space == space) per_kernel[b.kernel] = per_kernel[b.kernel] + b.bytes;
  arith::Expr most = 0;
  for (const auto& [k, bytes] : per_kernel) most = arith::max(most, bytes);
  return most;
}

}  // namespace

arith::Expr MemoryPlan::local_bytes() const { return per_kernel_max(buffers, AddressSpace::Local); }

arith::Expr MemoryPlan::private_bytes() const { return per_kernel_max(buffers, AddressSpace::Private); }

const Buffer& MemoryPlan::buffer(const std::string& name) const {
  for (const auto& b : buffers)
    if (b.name == name) return b;
  throw Error(fmt::format("the memory plan has no buffer '{}'", name));
}

}  // namespace liftc::codegen
