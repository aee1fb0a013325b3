#pragma once
// The C++ text every generated host shares (namespace liftc_host): the plan types that
// plan_tables() fills, .npy reading and writing, the output check, choosing a device, and
// building and running a plan on the OpenCL C API. The standalone host program embeds it
// in its main.cpp; a deployed front keeps it as liftc_host.hpp for its library and demo.

#include <string>

namespace liftc::codegen {

/// The shared host text: includes, then namespace liftc_host (every function inline).
std::string host_support_text();

}  // namespace liftc::codegen
