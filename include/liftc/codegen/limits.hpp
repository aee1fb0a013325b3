#pragma once
// The resource limits a generated Module must fit before it is built: local and private
// memory per kernel, buffer sizes, work-group sizes. They come from the device that runs
// the kernels (limits_of) or, for a target that is not attached, from its profile. A module
// that does not fit is refused with every reason, never handed to a driver that may abort.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "liftc/codegen/module.hpp"
#include "liftc/runtime/device.hpp"

namespace liftc::codegen {

/// Private memory per work-item liftc allows (OpenCL has no query for it): arrays beyond
/// this spill out of registers on GPUs and overflow the work-group's stack on CPU drivers.
inline constexpr std::int64_t kDefaultPrivateBytes = 16 * 1024;

/// Resource limits of a device or target; 0 means "no limit known".
struct Limits {
  std::string what;                        ///< for messages: "device 'NVIDIA H100'"
  std::int64_t local_bytes = 0;            ///< local memory per work-group
  std::int64_t private_bytes = kDefaultPrivateBytes;  ///< private memory per work-item
  std::int64_t max_alloc_bytes = 0;        ///< one buffer
  std::int64_t global_bytes = 0;           ///< all buffers together
  std::int64_t max_work_group_size = 0;    ///< work-items per work-group
  std::array<std::int64_t, 3> max_work_item_sizes{0, 0, 0};  ///< per dimension
};

/// The limits of an OpenCL device, from its queries.
Limits limits_of(const runtime::DeviceInfo& device);

/// Every way `m` (sizes bound) exceeds `limits`, one sentence each, naming the kernel or
/// buffer; empty when it fits.
std::vector<std::string> limit_violations(const Module& m, const Limits& limits);

/// Throws liftc::Error listing limit_violations(m, limits) when there are any.
void check_limits(const Module& m, const Limits& limits);

/// The largest index an OpenCL `int` holds: generated kernels index buffers and number
/// work-items with `int`, so no buffer may hold more elements and no NDRange be larger.
inline constexpr std::int64_t kMaxIndex = 2147483647;

/// Throws liftc::Error when a global buffer of `m` (sizes bound) holds more than kMaxIndex
/// elements or a kernel's NDRange has more than kMaxIndex work-items in a dimension:
/// their indices would wrap in `int`.
void check_index_range(const Module& m);

}  // namespace liftc::codegen
