#pragma once
// OpenCL device discovery and selection, in plain C++ types.
//
// The flattened device list enumerates platforms in the ICD loader's order and, within a
// platform, devices of every type in the driver's order; `DeviceInfo::index` is the
// position in that list and is what an integer selector refers to.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace liftc::runtime {

/// One OpenCL device and the limits constraint inference and the runtime need.
struct DeviceInfo {
  std::size_t index = 0;           ///< position in the flattened list of all devices
  std::size_t platform_index = 0;  ///< position of its platform
  std::size_t device_index = 0;    ///< position within its platform
  std::string platform_name;       ///< CL_PLATFORM_NAME, e.g. "Portable Computing Language"
  std::string platform_vendor;     ///< CL_PLATFORM_VENDOR, e.g. "The pocl project"
  std::string platform_version;    ///< CL_PLATFORM_VERSION
  std::string name;                ///< CL_DEVICE_NAME
  std::string vendor;              ///< CL_DEVICE_VENDOR
  std::string version;             ///< CL_DEVICE_VERSION, e.g. "OpenCL 3.0 PoCL ..."
  std::string driver_version;      ///< CL_DRIVER_VERSION
  std::string type;                ///< "CPU", "GPU", "ACCELERATOR", "CUSTOM" or "DEFAULT"
  std::uint32_t compute_units = 0;                 ///< CL_DEVICE_MAX_COMPUTE_UNITS
  std::size_t max_work_group_size = 0;             ///< CL_DEVICE_MAX_WORK_GROUP_SIZE
  std::vector<std::size_t> max_work_item_sizes;    ///< per dimension, CL_DEVICE_MAX_WORK_ITEM_SIZES
  std::uint64_t local_mem_bytes = 0;               ///< CL_DEVICE_LOCAL_MEM_SIZE
  bool local_mem_global = false;                   ///< CL_DEVICE_LOCAL_MEM_TYPE is CL_GLOBAL (emulated in global memory)
  std::uint64_t global_mem_bytes = 0;              ///< CL_DEVICE_GLOBAL_MEM_SIZE
  std::uint64_t max_alloc_bytes = 0;               ///< CL_DEVICE_MAX_MEM_ALLOC_SIZE
  std::uint32_t preferred_float_vector_width = 0;  ///< CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT
  std::uint32_t mem_base_addr_align_bytes = 0;     ///< CL_DEVICE_MEM_BASE_ADDR_ALIGN, in bytes
  bool profiling = false;  ///< whether a queue can time commands (CL_QUEUE_PROFILING_ENABLE)
};

/// Every device of every platform; empty (not an error) when no platform is installed.
/// Throws liftc::Error only when the OpenCL implementation itself fails.
std::vector<DeviceInfo> list_devices();

/// The device a selector names: "" = the first device; an integer = its index in
/// list_devices(); otherwise a case-insensitive substring of the platform's name, vendor or
/// version or the device's name, vendor, version or type ("nvidia", "pocl", "cpu"); the
/// first matching device wins.
/// Throws liftc::Error listing the available devices when nothing matches.
DeviceInfo select_device(const std::string& selector);

/// One line per device: "[index] platform / name (type, N CUs, wg M, local K KiB, ...)".
std::string format_device_list(const std::vector<DeviceInfo>& devices);

/// A multi-line description of every field of one device, for `liftc devices`.
std::string format_device(const DeviceInfo& device);

}  // namespace liftc::runtime
