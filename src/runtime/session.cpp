// Session: opening a device with a context and an in-order profiling queue.

#include <fmt/format.h>

#include "liftc/support/diagnostic.hpp"
#include "session_impl.hpp"

namespace liftc::runtime {

Session::Session(const std::string& selector) : impl_(std::make_shared<Impl>()) {
  detail::DeviceHandle handle = detail::select_device_handle(selector);
  impl_->info = std::move(handle.info);
  impl_->device = handle.device;
  const std::string where = fmt::format("device [{}] '{}'", impl_->info.index, impl_->info.name);
  if (!impl_->info.profiling) {
    throw Error(fmt::format("{} cannot time commands (no CL_QUEUE_PROFILING_ENABLE); liftc needs event "
                            "profiling to measure kernels",
                            where));
  }
  impl_->context = detail::checked("creating an OpenCL context for " + where,
                                   [&] { return cl::Context(impl_->device); });
  // In order (no CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE): the kernels of one program run
  // one after the other, which the timing (sum of kernel events) relies on.
  impl_->queue = detail::checked("creating a profiling command queue for " + where, [&] {
    return cl::CommandQueue(impl_->context, impl_->device, CL_QUEUE_PROFILING_ENABLE);
  });
}

const DeviceInfo& Session::device() const { return impl_->info; }

}  // namespace liftc::runtime
