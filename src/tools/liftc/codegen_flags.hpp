#pragma once
// Flags shared by `compile` and `run`: code-generation choices and the target device.

#include <CLI/CLI.hpp>

#include "liftc/codegen/module.hpp"
#include "liftc/runtime/device.hpp"

namespace liftc::tool {

/// The code-generation flags of a command.
struct CodegenFlags {
  bool unroll = false;
  bool keep_loops = false;

  /// Options for codegen::generate, with the device's work-group limits when known.
  codegen::Options options(const runtime::DeviceInfo* device) const {
    codegen::Options o;
    o.unroll_reduce = unroll;
    o.elide_loops = !keep_loops;
    if (device) {
      o.max_work_group_size = static_cast<std::int64_t>(device->max_work_group_size);
      for (std::size_t d = 0; d < 3 && d < device->max_work_item_sizes.size(); ++d)
        o.max_work_item_sizes[d] = static_cast<std::int64_t>(device->max_work_item_sizes[d]);
    }
    return o;
  }
};

/// Registers --unroll and --keep-loops.
inline void add_codegen_flags(CLI::App& cmd, CodegenFlags& flags) {
  cmd.add_flag("--unroll", flags.unroll, "unroll the innermost reduceSeq loops with constant trip counts");
  cmd.add_flag("--keep-loops", flags.keep_loops,
               "keep mapped loops whose trip count equals the thread count (no section 5.1 elision)");
}

}  // namespace liftc::tool
