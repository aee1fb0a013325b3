// Device discovery (list_devices) and selection by a string selector (select_device).

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "cl.hpp"
#include "liftc/runtime/device.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::runtime {
namespace {

std::string type_name(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return "GPU";
  if (type & CL_DEVICE_TYPE_CPU) return "CPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "ACCELERATOR";
  if (type & CL_DEVICE_TYPE_CUSTOM) return "CUSTOM";
  return "DEFAULT";
}

// OpenCL strings sometimes carry a trailing NUL or blanks; strip them.
std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\0' || std::isspace(static_cast<unsigned char>(s.back())))) s.pop_back();
  return s;
}

std::string lowered(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

DeviceInfo query(const cl::Platform& platform, const cl::Device& device) {
  DeviceInfo d;
  d.platform_name = trimmed(platform.getInfo<CL_PLATFORM_NAME>());
  d.platform_vendor = trimmed(platform.getInfo<CL_PLATFORM_VENDOR>());
  d.platform_version = trimmed(platform.getInfo<CL_PLATFORM_VERSION>());
  d.name = trimmed(device.getInfo<CL_DEVICE_NAME>());
  d.vendor = trimmed(device.getInfo<CL_DEVICE_VENDOR>());
  d.version = trimmed(device.getInfo<CL_DEVICE_VERSION>());
  d.driver_version = trimmed(device.getInfo<CL_DRIVER_VERSION>());
  d.type = type_name(device.getInfo<CL_DEVICE_TYPE>());
  d.compute_units = device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
  d.max_work_group_size = device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  for (cl::size_type s : device.getInfo<CL_DEVICE_MAX_WORK_ITEM_SIZES>()) d.max_work_item_sizes.push_back(s);
  d.local_mem_bytes = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  d.local_mem_global = device.getInfo<CL_DEVICE_LOCAL_MEM_TYPE>() == CL_GLOBAL;
  d.global_mem_bytes = device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
  d.max_alloc_bytes = device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
  d.preferred_float_vector_width = device.getInfo<CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT>();
  d.mem_base_addr_align_bytes = device.getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN>() / 8;
  d.profiling = (device.getInfo<CL_DEVICE_QUEUE_ON_HOST_PROPERTIES>() & CL_QUEUE_PROFILING_ENABLE) != 0;
  return d;
}

bool matches(const DeviceInfo& d, const std::string& needle) {
  for (const std::string* field :
       {&d.platform_name, &d.platform_vendor, &d.platform_version, &d.name, &d.vendor, &d.version, &d.type}) {
    if (lowered(*field).find(needle) != std::string::npos) return true;
  }
  return false;
}

std::string available(const std::vector<detail::DeviceHandle>& handles) {
  std::vector<DeviceInfo> infos;
  for (const auto& h : handles) infos.push_back(h.info);
  std::string list = format_device_list(infos);
  if (!list.empty() && list.back() == '\n') list.pop_back();
  return list;
}

}  // namespace

namespace detail {

std::vector<DeviceHandle> enumerate_devices() {
  // The C API is used for the counts: the ICD loader answers CL_PLATFORM_NOT_FOUND_KHR
  // when nothing is installed and a platform answers CL_DEVICE_NOT_FOUND when it has no
  // device; both mean "none", not a failure.
  cl_uint platform_count = 0;
  cl_int err = clGetPlatformIDs(0, nullptr, &platform_count);
  if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (err == CL_SUCCESS && platform_count == 0)) return {};
  if (err != CL_SUCCESS) throw_cl_error(err, "clGetPlatformIDs", "listing OpenCL platforms");

  std::vector<cl::Platform> platforms;
  checked("listing OpenCL platforms", [&] { cl::Platform::get(&platforms); });

  std::vector<DeviceHandle> handles;
  for (std::size_t p = 0; p < platforms.size(); ++p) {
    cl_uint device_count = 0;
    err = clGetDeviceIDs(platforms[p](), CL_DEVICE_TYPE_ALL, 0, nullptr, &device_count);
    if (err == CL_DEVICE_NOT_FOUND || device_count == 0) continue;
    const std::string action = fmt::format("listing the devices of OpenCL platform {}", p);
    if (err != CL_SUCCESS) throw_cl_error(err, "clGetDeviceIDs", action);
    std::vector<cl::Device> devices;
    checked(action, [&] { platforms[p].getDevices(CL_DEVICE_TYPE_ALL, &devices); });
    for (std::size_t d = 0; d < devices.size(); ++d) {
      DeviceInfo info = checked(fmt::format("querying device {} of OpenCL platform {}", d, p),
                                [&] { return query(platforms[p], devices[d]); });
      info.index = handles.size();
      info.platform_index = p;
      info.device_index = d;
      handles.push_back({platforms[p], devices[d], std::move(info)});
    }
  }
  return handles;
}

DeviceHandle select_device_handle(const std::string& selector) {
  std::vector<DeviceHandle> handles = enumerate_devices();
  if (handles.empty()) {
    throw Error(fmt::format(
        "no OpenCL device found (selector '{}'): no platform with a device is installed; "
        "check the ICD loader (/etc/OpenCL/vendors, OCL_ICD_FILENAMES) and `clinfo -l`",
        selector));
  }
  if (selector.empty()) return handles.front();

  std::size_t index = 0;
  const char* end = selector.data() + selector.size();
  if (auto [ptr, ec] = std::from_chars(selector.data(), end, index); ec == std::errc{} && ptr == end) {
    if (index < handles.size()) return handles[index];
    throw Error(fmt::format("no OpenCL device with index {} ({} available):\n{}", index, handles.size(),
                            available(handles)));
  }

  const std::string needle = lowered(selector);
  for (const DeviceHandle& h : handles) {
    if (matches(h.info, needle)) return h;
  }
  throw Error(fmt::format(
      "no OpenCL device matches '{}' (a device index, or a case-insensitive part of a platform or "
      "device name, vendor, version or type); available:\n{}",
      selector, available(handles)));
}

}  // namespace detail

std::vector<DeviceInfo> list_devices() {
  std::vector<DeviceInfo> infos;
  for (auto& h : detail::enumerate_devices()) infos.push_back(std::move(h.info));
  return infos;
}

DeviceInfo select_device(const std::string& selector) { return detail::select_device_handle(selector).info; }

std::string format_device_list(const std::vector<DeviceInfo>& devices) {
  std::string out;
  for (const DeviceInfo& d : devices) {
    out += fmt::format("  [{}] {} / {} ({}, {} CUs, work-group {}, local {} KiB, global {} MiB)\n", d.index,
                       d.platform_name, d.name, d.type, d.compute_units, d.max_work_group_size,
                       d.local_mem_bytes / 1024, d.global_mem_bytes / (1024 * 1024));
  }
  if (devices.empty()) out = "  (none)\n";
  return out;
}

std::string format_device(const DeviceInfo& d) {
  std::string sizes;
  for (std::size_t i = 0; i < d.max_work_item_sizes.size(); ++i) {
    sizes += (i == 0 ? "" : " x ") + std::to_string(d.max_work_item_sizes[i]);
  }
  return fmt::format(
      "[{}] {} (platform {}: {}, {})\n"
      "  vendor:                 {}\n"
      "  version:                {} (driver {})\n"
      "  type:                   {}\n"
      "  compute units:          {}\n"
      "  max work-group size:    {}\n"
      "  max work-item sizes:    {}\n"
      "  local memory:           {} bytes\n"
      "  global memory:          {} bytes\n"
      "  max allocation:         {} bytes\n"
      "  preferred float vector: {}\n"
      "  base address alignment: {} bytes\n"
      "  profiling:              {}\n",
      d.index, d.name, d.platform_index, d.platform_name, d.platform_vendor, d.vendor, d.version,
      d.driver_version, d.type, d.compute_units, d.max_work_group_size, sizes, d.local_mem_bytes,
      d.global_mem_bytes, d.max_alloc_bytes, d.preferred_float_vector_width, d.mem_base_addr_align_bytes,
      d.profiling ? "yes" : "no");
}

}  // namespace liftc::runtime
