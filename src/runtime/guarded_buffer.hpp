#pragma once
// Device buffers with canary regions around them (internal to src/runtime).
//
// Layout of one allocation:  [ before | data (spec.bytes) | after ]
//  * `after` is RunOptions::canary_bytes;
//  * `before` is canary_bytes rounded up to the device's base-address alignment, so the
//    data region can be a sub-buffer (clCreateSubBuffer requires an aligned origin); the
//    kernels receive that sub-buffer, whose index 0 is the first data byte, so a write to
//    index -1 lands in the before-canary and a write past the end in the after-canary.
// Both regions hold kCanaryPattern; the data region holds the host data or kPoisonPattern.
// The layout, the patterns and their checks are liftc/runtime/guard.hpp's, which
// liftc-runner uses too.

#include <cstddef>
#include <vector>

#include "cl.hpp"
#include "liftc/runtime/plan.hpp"
#include "liftc/runtime/run.hpp"

namespace liftc::runtime::detail {

/// One plan buffer on the device, with its canaries.
struct GuardedBuffer {
  const BufferSpec* spec = nullptr;
  std::size_t index = 0;   ///< position in the plan's buffer table
  std::size_t before = 0;  ///< canary bytes before the data
  std::size_t after = 0;   ///< canary bytes after the data
  cl::Buffer whole;        ///< the allocation, canaries included
  cl::Buffer data;         ///< what kernels receive: the data region (== whole if no before-canary)
};

/// Allocates every buffer of `plan` with canaries and uploads host data, poison and
/// patterns (blocking). Throws liftc::Error naming the buffer on any OpenCL failure.
std::vector<GuardedBuffer> allocate_guarded(const cl::Context& context, const cl::CommandQueue& queue,
                                            const DeviceInfo& device, const LaunchPlan& plan,
                                            std::size_t canary_bytes);

/// Reads every canary back and reports the damaged ones.
std::vector<CanaryViolation> check_canaries(const cl::CommandQueue& queue, const std::vector<GuardedBuffer>& buffers);

/// Reads the data region of `buffer` back as its element type.
HostData read_back(const cl::CommandQueue& queue, const GuardedBuffer& buffer);

}  // namespace liftc::runtime::detail
