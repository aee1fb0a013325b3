#pragma once
// The one place liftc includes the Khronos C++ bindings. Every runtime source file that
// talks to OpenCL includes this header (never <CL/opencl.hpp> directly), so the target
// and minimum versions and the exception mode are the same everywhere. Not installed:
// public headers keep OpenCL types out (pimpl), so other stages never see this.

#define CL_HPP_TARGET_OPENCL_VERSION 300
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_HPP_ENABLE_EXCEPTIONS
#define CL_TARGET_OPENCL_VERSION 300  // for <CL/cl.h>, included before opencl.hpp below

#include <CL/cl.h>

#include <cstdio>
#include <vector>

// Debian's opencl-clhpp-headers 3.0~2023.02.06 calls cl::detail::getContextPlatformVersion
// when TARGET >= 200 and MINIMUM < 200 (to choose clCreateCommandQueue or
// clCreateCommandQueueWithProperties at run time) but only defines it when MINIMUM < 120,
// so MINIMUM = 120 does not compile. Upstream fixed the guard later; until then this is
// the same function: the context's platform version, major << 16 | minor.
namespace cl::detail {
static cl_uint getContextPlatformVersion(cl_context context) {
  std::size_t size = 0;
  if (clGetContextInfo(context, CL_CONTEXT_DEVICES, 0, nullptr, &size) != CL_SUCCESS || size == 0) return 0;
  std::vector<cl_device_id> devices(size / sizeof(cl_device_id));
  clGetContextInfo(context, CL_CONTEXT_DEVICES, size, devices.data(), nullptr);
  cl_platform_id platform = nullptr;
  clGetDeviceInfo(devices[0], CL_DEVICE_PLATFORM, sizeof(platform), &platform, nullptr);
  char version[256] = {};
  clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof(version) - 1, version, nullptr);
  unsigned major = 0, minor = 0;
  if (std::sscanf(version, "OpenCL %u.%u", &major, &minor) != 2) return 0;
  return (major << 16) | minor;
}
}  // namespace cl::detail

#include <CL/opencl.hpp>

#include <string>
#include <utility>

#include "liftc/runtime/cl_error.hpp"
#include "liftc/runtime/device.hpp"

namespace liftc::runtime::detail {

/// Throws liftc::Error "<action>: <CL_NAME> (<code>) from <clFunction>[\n<extra>]".
[[noreturn]] void throw_cl_error(int code, const char* function, const std::string& action,
                                 const std::string& extra = {});

/// Runs `f`; turns a cl::Error it throws into liftc::Error naming `action`.
template <class F>
decltype(auto) checked(const std::string& action, F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const cl::Error& e) {
    throw_cl_error(e.err(), e.what(), action);
  }
}

/// The device and its platform as OpenCL objects, plus the queried limits.
struct DeviceHandle {
  cl::Platform platform;
  cl::Device device;
  DeviceInfo info;
};

/// Every device of every platform, in list_devices() order.
std::vector<DeviceHandle> enumerate_devices();

/// The device `selector` picks (see select_device in device.hpp).
DeviceHandle select_device_handle(const std::string& selector);

}  // namespace liftc::runtime::detail
