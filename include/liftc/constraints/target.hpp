#pragma once
// Target profiles: the hardware limits constraint inference needs, from a profile file
// (rules/targets/*.target: Mali-G72, Mali-G76, Adreno 640, Adreno 650, ...) or from a live
// OpenCL device's queries. See rules/targets/README.md for the file format and sources.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "liftc/runtime/device.hpp"

namespace liftc::constraints {

/// The limits of one target device.
struct Target {
  std::string name;         // "mali-g72", or "device 0" for a live device
  std::string description;  // "Arm Mali-G72 MP12 (Bifrost), HiSilicon Kirin 970"
  std::string origin;       // the profile file, or "OpenCL device queries"
  bool live = false;        // read from an attached OpenCL device
  std::int64_t max_work_group_size = 0;                 // work-items per work-group
  std::array<std::int64_t, 3> max_work_item_sizes{};    // work-items per work-group, per dimension
  std::int64_t local_mem_bytes = 0;                     // local memory per work-group
  bool local_mem_global = false;                        // local memory is emulated in global memory
  std::int64_t preferred_vector_width = 0;              // preferred float vector width
  std::int64_t compute_units = 0;                       // shader cores / compute units
  std::int64_t global_mem_bytes = 0;                    // global memory
  std::int64_t max_alloc_bytes = 0;                     // largest single buffer
  std::int64_t private_mem_bytes = 0;                   // private arrays per work-item (registers); 0: no limit
  std::vector<std::string> sources;                     // where the figures come from
};

/// The profiles folder: liftc::default_targets_dir() ($LIFTC_TARGETS, else targets/ of the rules folder).
std::string default_targets_dir();

/// Reads one profile file; a malformed one is a liftc::Error at file:line:col.
Target load_target_file(const std::string& path);

/// Every *.target file of `dir`, in name order.
std::vector<Target> load_targets(const std::string& dir);

/// The profile called `name` in `dir`; a liftc::Error listing the known names otherwise.
Target find_target(const std::string& name, const std::string& dir);

/// The target a live OpenCL device describes (its queries).
Target target_from_device(const runtime::DeviceInfo& device);

/// One line: "mali-g72  Arm Mali-G72 MP12 ...: wg 384 (384, 384, 384), local 32 KiB (global memory), ...".
std::string format_target(const Target& t);

}  // namespace liftc::constraints
