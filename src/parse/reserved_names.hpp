#pragma once
// Names a program may not give its inputs and value definitions: they name the buffers of
// the generated OpenCL kernels, so a C or OpenCL keyword, type or a built-in function the
// kernels call would make every kernel fail to build.

#include <optional>
#include <string>
#include <string_view>

namespace liftc::parse {

/// Why `name` cannot name a buffer of a generated kernel ("a keyword of OpenCL C", ...),
/// or nullopt when it can.
std::optional<std::string> reserved_in_kernels(std::string_view name);

}  // namespace liftc::parse
