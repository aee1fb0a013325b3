// build_program: compiling OpenCL C source for a session's device.

#include <regex>

#include <fmt/format.h>

#include "liftc/support/diagnostic.hpp"
#include "session_impl.hpp"

namespace liftc::runtime {
namespace {

// "kernel 'a', 'b'" from the `kernel void name(` declarations in the source, so a build
// error says which kernels it was for even before the driver could parse them.
std::string describe_kernels(const std::string& source) {
  static const std::regex kernel_decl(R"((?:__)?kernel\s+(?:__attribute__\s*\(\(.*?\)\)\s*)?void\s+(\w+))");
  std::string names;
  int count = 0;
  for (auto it = std::sregex_iterator(source.begin(), source.end(), kernel_decl); it != std::sregex_iterator();
       ++it, ++count) {
    names += fmt::format("{}'{}'", count == 0 ? "" : ", ", (*it)[1].str());
  }
  if (count == 0) return "a program without kernels";
  return fmt::format("{} {}", count == 1 ? "kernel" : "kernels", names);
}

std::vector<std::string> split_names(const std::string& joined) {
  std::vector<std::string> names;
  std::size_t start = 0;
  while (start <= joined.size()) {
    std::size_t end = joined.find(';', start);
    if (end == std::string::npos) end = joined.size();
    if (end > start) names.push_back(joined.substr(start, end - start));
    start = end + 1;
  }
  return names;
}

}  // namespace

const std::string& Program::build_log() const { return impl_->build_log; }

const std::vector<std::string>& Program::kernel_names() const { return impl_->kernel_names; }

Program build_program(const Session& session, const std::string& source, const std::string& options,
                      const std::string& purpose) {
  Session::Impl& s = session.impl();
  auto impl = std::make_shared<Program::Impl>(Program::Impl{session, {}, {}, {}});
  const std::string action =
      fmt::format("building program for {} on device '{}'{}", purpose.empty() ? describe_kernels(source) : purpose,
                  s.info.name, options.empty() ? "" : fmt::format(" with options '{}'", options));

  impl->program = detail::checked(action, [&] { return cl::Program(s.context, source); });
  auto log_of = [&]() -> std::string {
    try {
      return impl->program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(s.device);
    } catch (const cl::Error& e) {
      return fmt::format("(build log unavailable: {})", cl_error_name(e.err()));
    }
  };
  try {
    impl->program.build(std::vector<cl::Device>{s.device}, options.c_str());
  } catch (const cl::Error& e) {
    std::string log = log_of();
    while (!log.empty() && (log.back() == '\n' || log.back() == '\0')) log.pop_back();
    detail::throw_cl_error(e.err(), e.what(), action, "build log:\n" + (log.empty() ? "(empty)" : log));
  }
  impl->build_log = log_of();
  while (!impl->build_log.empty() && impl->build_log.back() == '\0') impl->build_log.pop_back();
  impl->kernel_names = split_names(detail::checked(
      action + " (listing its kernels)", [&] { return impl->program.getInfo<CL_PROGRAM_KERNEL_NAMES>(); }));
  return Program(std::move(impl));
}

}  // namespace liftc::runtime
