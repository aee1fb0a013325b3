#pragma once
// Flags shared by `compile` and `run`: code-generation choices and the target device.

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "liftc/codegen/module.hpp"
#include "liftc/runtime/device.hpp"

namespace liftc::tool {

/// The code-generation flags of a command.
struct CodegenFlags {
  bool unroll = false;
  bool keep_loops = false;
  std::vector<std::int64_t> local;  // --local: work-group size of mapGlb-only kernels
  bool mad = false;                 // --mad: build with -cl-mad-enable
  std::string build_options;        // --build-options: more OpenCL compiler options
  bool no_hoist = false;            // --no-hoist: keep loop-invariant code in its loop
  bool no_vector_stores = false;    // --no-vector-stores: copy loops store one scalar at a time

  /// Options for codegen::generate, with the device's work-group limits when known.
  codegen::Options options(const runtime::DeviceInfo* device) const {
    codegen::Options o;
    o.unroll_reduce = unroll;
    o.elide_loops = !keep_loops;
    o.mad = mad;
    o.build_options = build_options;
    o.hoist = !no_hoist;
    o.vector_stores = !no_vector_stores;
    for (std::size_t d = 0; d < local.size() && d < 3; ++d) o.global_work_group[d] = local[d];
    if (device) {
      o.max_work_group_size = static_cast<std::int64_t>(device->max_work_group_size);
      for (std::size_t d = 0; d < 3 && d < device->max_work_item_sizes.size(); ++d)
        o.max_work_item_sizes[d] = static_cast<std::int64_t>(device->max_work_item_sizes[d]);
    }
    return o;
  }
};

/// Registers --unroll, --local, --keep-loops, --mad, --build-options, --no-hoist and
/// --no-vector-stores.
inline void add_codegen_flags(CLI::App& cmd, CodegenFlags& flags) {
  cmd.add_flag("--unroll", flags.unroll, "unroll the innermost reduceSeq loops with constant trip counts");
  cmd.add_option("--local", flags.local,
                 "work-group size of kernels that only use mapGlb, per dimension: --local 32,4 (default: the "
                 "OpenCL runtime chooses)")
      ->delimiter(',')
      ->expected(1, 3)
      ->check(CLI::Range(1, 1 << 20));
  cmd.add_flag("--keep-loops", flags.keep_loops,
               "keep mapped loops whose trip count equals the thread count (no section 5.1 elision)");
  cmd.add_flag("--mad", flags.mad,
               "build with -cl-mad-enable: a*b + c may become one multiply-add (faster; rounds differently)");
  cmd.add_option("--build-options", flags.build_options,
                 "more OpenCL compiler options, e.g. \"-cl-fast-relaxed-math\" (the host program uses them too)");
  cmd.add_flag("--no-hoist", flags.no_hoist, "keep loop-invariant expressions inside their loops (no hoisting)");
  cmd.add_flag("--no-vector-stores", flags.no_vector_stores,
               "store the values of a copy loop into a global buffer one at a time (no vstoreN)");
}

}  // namespace liftc::tool
