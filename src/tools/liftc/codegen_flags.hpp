#pragma once
// Flags shared by `compile` and `run`: code-generation choices and the target device.

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "liftc/codegen/module.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/runtime/device.hpp"

namespace liftc::tool {

/// `PART=a[,b[,c]]` of --kernel-local: the buffer a kernel computes and its work-group size
/// (each size 1..2^20, unnamed dimensions 1); nullopt when malformed.
inline std::optional<std::pair<std::string, std::array<std::int64_t, 3>>> parse_kernel_local(const std::string& text) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) return std::nullopt;
  std::string name = text.substr(0, eq);
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return std::nullopt;
  std::array<std::int64_t, 3> sizes{1, 1, 1};
  std::size_t d = 0, at = eq + 1;
  for (;; ++d) {
    std::size_t comma = text.find(',', at);
    std::string field = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (d == 3 || field.empty() || field.size() > 7 ||
        !std::all_of(field.begin(), field.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt;
    sizes[d] = std::stoll(field);
    if (sizes[d] < 1 || sizes[d] > (1 << 20)) return std::nullopt;
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return std::make_pair(name, sizes);
}

/// The code-generation flags of a command.
struct CodegenFlags {
  bool unroll = false;
  bool keep_loops = false;
  std::vector<std::int64_t> local;  // --local: work-group size of mapGlb-only kernels
  std::vector<std::string> kernel_local;  // --kernel-local: PART=a[,b[,c]], another mapGlb kernel's
  bool mad = false;                 // --mad: build with -cl-mad-enable
  std::string build_options;        // --build-options: more OpenCL compiler options
  bool no_hoist = false;            // --no-hoist: keep loop-invariant code in its loop
  bool no_vector_stores = false;    // --no-vector-stores: copy loops store one scalar at a time
  std::string storage = "float";    // --storage: float, half or half=NAME,... (codegen::parse_storage)

  /// `checked` with the buffers --storage stores as half (ir::Program::half); a liftc::Error
  /// for a bad --storage (a name the program lacks, an int buffer).
  ir::Program with_storage(ir::Program checked) const {
    checked.half = codegen::half_buffers(checked, codegen::parse_storage(storage));
    return checked;
  }

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
    for (const auto& text : kernel_local) {
      auto [name, sizes] = *parse_kernel_local(text);  // the option's check accepted it
      if (!o.kernel_work_groups.emplace(name, sizes).second)
        throw Error(fmt::format("--kernel-local gives {} twice", name));
    }
    if (device) {
      o.max_work_group_size = static_cast<std::int64_t>(device->max_work_group_size);
      for (std::size_t d = 0; d < 3 && d < device->max_work_item_sizes.size(); ++d)
        o.max_work_item_sizes[d] = static_cast<std::int64_t>(device->max_work_item_sizes[d]);
    }
    return o;
  }
};

/// The help of --storage (compile, run and explore).
inline constexpr const char* kStorageHelp =
    "how float inputs and definitions are stored: 'float' (default), 'half' (every float one) or "
    "'half=NAME[,NAME...]' (those named): as IEEE halves read by vload_half and written by vstore_half (core "
    "OpenCL 1.2, no cl_khr_fp16), the arithmetic in float; the interpreter rounds at the same points";

/// Registers --unroll, --local, --kernel-local, --keep-loops, --mad, --build-options, --no-hoist,
/// --no-vector-stores and --storage.
inline void add_codegen_flags(CLI::App& cmd, CodegenFlags& flags) {
  cmd.add_flag("--unroll", flags.unroll, "unroll the innermost reduceSeq loops with constant trip counts");
  cmd.add_option("--local", flags.local,
                 "work-group size of kernels that only use mapGlb, per dimension: --local 32,4 (default: the "
                 "OpenCL runtime chooses)")
      ->delimiter(',')
      ->expected(1, 3)
      ->check(CLI::Range(1, 1 << 20));
  cmd.add_option("--kernel-local", flags.kernel_local,
                 "work-group size of another kernel without work-groups, by the buffer it computes: "
                 "--kernel-local conv_part1=8,16 for conv_part1_kernel; repeat it for more kernels (default: the "
                 "OpenCL runtime chooses)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->check([](const std::string& text) {
        return parse_kernel_local(text) ? std::string()
                                        : "expected PART=a[,b[,c]] (conv_part1=8,16), each size 1..1048576 (leave "
                                          "a kernel out for the runtime's choice), not '" + text + "'";
      });
  cmd.add_flag("--keep-loops", flags.keep_loops,
               "keep mapped loops whose trip count equals the thread count (no section 5.1 elision)");
  cmd.add_flag("--mad", flags.mad,
               "build with -cl-mad-enable: a*b + c may become one multiply-add (faster; rounds differently)");
  cmd.add_option("--build-options", flags.build_options,
                 "more OpenCL compiler options, e.g. \"-cl-fast-relaxed-math\" (the host program uses them too)");
  cmd.add_flag("--no-hoist", flags.no_hoist, "keep loop-invariant expressions inside their loops (no hoisting)");
  cmd.add_flag("--no-vector-stores", flags.no_vector_stores,
               "store the values of a copy loop into a global buffer one at a time (no vstoreN)");
  cmd.add_option("--storage", flags.storage, kStorageHelp)->default_val("float");
}

}  // namespace liftc::tool
