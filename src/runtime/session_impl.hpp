#pragma once
// The OpenCL objects behind Session and Program (internal to src/runtime).

#include <string>
#include <vector>

#include "cl.hpp"
#include "liftc/runtime/session.hpp"

namespace liftc::runtime {

/// The device, its context and the in-order profiling queue.
struct Session::Impl {
  DeviceInfo info;
  cl::Device device;
  cl::Context context;
  cl::CommandQueue queue;
};

/// A built program and what the build said.
struct Program::Impl {
  Session session;  ///< keeps the context alive as long as the program
  cl::Program program;
  std::string build_log;
  std::vector<std::string> kernel_names;
};

}  // namespace liftc::runtime
