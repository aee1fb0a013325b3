#pragma once
// A Session is one device with its context and in-order, profiling command queue; a
// Program is OpenCL C source built for a session's device. Both are cheap handles
// (shared pimpl) so the OpenCL headers stay out of every other stage.

#include <memory>
#include <string>
#include <vector>

#include "liftc/runtime/device.hpp"

namespace liftc::runtime {

/// One OpenCL device, its context and an in-order command queue with profiling enabled.
class Session {
 public:
  /// Opens the device `selector` names (see select_device); throws liftc::Error when no
  /// device matches, the device cannot time commands, or OpenCL refuses the context/queue.
  explicit Session(const std::string& selector = "");

  /// The limits and names of the session's device.
  const DeviceInfo& device() const;

  /// Implementation detail (OpenCL objects); defined in src/runtime only.
  struct Impl;
  /// Implementation detail, for the runtime's own source files.
  Impl& impl() const { return *impl_; }

 private:
  std::shared_ptr<Impl> impl_;
};

/// OpenCL C source built for one session's device.
class Program {
 public:
  /// The compiler's log of the successful build (warnings); often empty.
  const std::string& build_log() const;
  /// The names of the kernels the program defines, as the driver reports them.
  const std::vector<std::string>& kernel_names() const;

  /// Implementation detail (the cl::Program); defined in src/runtime only.
  struct Impl;
  /// Implementation detail, for the runtime's own source files.
  Impl& impl() const { return *impl_; }
  /// Wraps a built program; used by build_program.
  explicit Program(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<Impl> impl_;
};

/// Builds `source` with the OpenCL compiler `options` ("-cl-fast-relaxed-math ...").
/// `purpose` completes the sentence "building program for ..." in error messages (e.g.
/// "kernel 'conv'"); when empty, the kernel names found in the source are used.
/// A failed build throws liftc::Error with the OpenCL error name and the full build log.
Program build_program(const Session& session, const std::string& source, const std::string& options = "",
                      const std::string& purpose = "");

}  // namespace liftc::runtime
