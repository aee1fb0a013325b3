// `liftc devices`: OpenCL platforms and devices with the limits liftc uses.

#include <fmt/format.h>

#include "commands.hpp"
#include "liftc/constraints/target.hpp"
#include "liftc/runtime/device.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::tool {

void add_devices_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("devices", "List OpenCL platforms and devices with their limits");
  cmd->callback([] {
    auto devices = runtime::list_devices();
    if (devices.empty()) throw Error("no OpenCL platform found (is an ICD such as pocl-opencl-icd installed?)");
    fmt::print("{}", runtime::format_device_list(devices));
    // The built-in target profiles (`liftc space --target NAME`).
    std::string dir = constraints::default_targets_dir();
    fmt::print("\ntarget profiles ({}):\n", dir);
    for (const auto& t : constraints::load_targets(dir)) fmt::print("  {}\n", constraints::format_target(t));
  });
}

}  // namespace liftc::tool
