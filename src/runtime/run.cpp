// run_program: enqueue a launch plan's kernels in order, time them with profiling events,
// read outputs back and check canaries.

#include "liftc/runtime/run.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "guarded_buffer.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/support/half.hpp"
#include "session_impl.hpp"

namespace liftc::runtime {
namespace {

cl::NDRange to_cl(const NDRange& r) {
  switch (r.sizes.size()) {
    case 0: return cl::NullRange;
    case 1: return cl::NDRange(r.sizes[0]);
    case 2: return cl::NDRange(r.sizes[0], r.sizes[1]);
    case 3: return cl::NDRange(r.sizes[0], r.sizes[1], r.sizes[2]);
  }
  LIFTC_ASSERT(false, "validate_plan admits 0-3 dimensions only");
}

double median_of(std::vector<double> v) {
  LIFTC_ASSERT(!v.empty(), "at least one timed run");
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// A kernel object for one launch, with its arguments set once for all runs.
cl::Kernel make_kernel(const Program::Impl& program, const KernelLaunch& launch, const LaunchPlan& plan,
                       const std::vector<detail::GuardedBuffer>& buffers) {
  cl::Kernel kernel = detail::checked(fmt::format("creating kernel '{}'", launch.kernel),
                                      [&] { return cl::Kernel(program.program, launch.kernel.c_str()); });
  for (std::size_t a = 0; a < launch.args.size(); ++a) {
    const KernelArg& arg = launch.args[a];
    std::string what;
    if (auto* b = std::get_if<BufferArg>(&arg)) {
      what = fmt::format("buffer '{}'", plan.buffers[b->buffer].name);
    } else if (auto* i = std::get_if<IntArg>(&arg)) {
      what = fmt::format("int {}", i->value);
    } else if (auto* f = std::get_if<FloatArg>(&arg)) {
      what = fmt::format("float {}", f->value);
    } else {
      what = fmt::format("local allocation of {} bytes", std::get<LocalArg>(arg).bytes);
    }
    detail::checked(fmt::format("setting argument {} ({}) of kernel '{}'", a, what, launch.kernel), [&] {
      const auto index = static_cast<cl_uint>(a);
      if (auto* b = std::get_if<BufferArg>(&arg)) {
        kernel.setArg(index, buffers[b->buffer].data);
      } else if (auto* i = std::get_if<IntArg>(&arg)) {
        kernel.setArg(index, static_cast<cl_int>(i->value));
      } else if (auto* f = std::get_if<FloatArg>(&arg)) {
        kernel.setArg(index, static_cast<cl_float>(f->value));
      } else {
        kernel.setArg(index, cl::Local(std::get<LocalArg>(arg).bytes));
      }
    });
  }
  const auto expected = detail::checked(fmt::format("querying the arguments of kernel '{}'", launch.kernel),
                                        [&] { return kernel.getInfo<CL_KERNEL_NUM_ARGS>(); });
  if (expected != launch.args.size()) {
    throw Error(fmt::format("launch plan: kernel '{}' takes {} arguments but the plan passes {}", launch.kernel,
                            expected, launch.args.size()));
  }
  return kernel;
}

// The elements of a read-back buffer that still hold the poison value, if any.
std::optional<UnwrittenOutput> find_poison(const HostData& data, const detail::GuardedBuffer& buf) {
  UnwrittenOutput u{buf.index, buf.spec->name, 0, 0, 0};
  auto scan = [&](const auto& values) {  // guard.hpp, as liftc-runner does
    u.total = values.size();
    guard::Unwritten found = guard::unwritten(values.data(), values.size());
    u.count = found.count, u.first_index = found.first;
  };
  if (buf.spec->elem == ElemType::Half) {  // read back as floats: back to the halves, which hold kPoisonHalf
    const auto& f = std::get<std::vector<float>>(data);
    std::vector<std::uint16_t> halves(f.size());
    for (std::size_t e = 0; e < f.size(); ++e) halves[e] = half::from_float(f[e]);
    u.total = halves.size();
    guard::Unwritten found = guard::unwritten_half(halves.data(), halves.size());
    u.count = found.count, u.first_index = found.first;
  } else if (auto* f = std::get_if<std::vector<float>>(&data)) {
    scan(*f);
  }
  if (auto* i = std::get_if<std::vector<std::int32_t>>(&data)) scan(*i);
  if (u.count == 0) return std::nullopt;
  return u;
}

// What a launch refused for its resources (CL_OUT_OF_RESOURCES, CL_INVALID_WORK_GROUP_SIZE)
// can say of why: the compiled kernel's own work-group limit on the device
// (CL_KERNEL_WORK_GROUP_SIZE, lowered by its registers and local memory, which no constraint
// knows beforehand) beside the work-group asked for. Not a check before the launch: NVIDIA's
// driver reports 256 for kernels it then runs with larger work-groups.
std::string work_group_note(Session::Impl& s, const cl::Kernel& kernel, const KernelLaunch& launch, cl_int err) {
  if (launch.local.empty() || (err != CL_OUT_OF_RESOURCES && err != CL_INVALID_WORK_GROUP_SIZE)) return "";
  std::size_t limit = 0;
  try {  // the bindings throw: a query that fails leaves the launch's own error alone
    if (kernel.getWorkGroupInfo(s.device, CL_KERNEL_WORK_GROUP_SIZE, &limit) != CL_SUCCESS) return "";
  } catch (const cl::Error&) {
    return "";
  }
  return fmt::format("kernel '{}' asks for work-groups of {} work-items (local {}); compiled for this device it "
                     "reports a limit of {} (CL_KERNEL_WORK_GROUP_SIZE: its registers and local memory); a smaller "
                     "work-group may run",
                     launch.kernel, launch.local.volume(), launch.local.str(), limit);
}

}  // namespace

std::string UnwrittenOutput::str() const {
  return fmt::format("{} of {} elements of output {} '{}' were never written (the first at [{}])", count, total,
                     buffer, name, first_index);
}

std::string CanaryViolation::str() const {
  return fmt::format("out-of-bounds write {} buffer {} '{}' ({} canary bytes changed, first at {}{})",
                     side == CanarySide::Before ? "before" : "after", buffer, name, changed_bytes,
                     side == CanarySide::Before ? "canary byte " : "+", first_offset);
}

std::string RunResult::failure() const {
  std::string out;
  for (const CanaryViolation& v : canary_violations) out += (out.empty() ? "" : "; ") + v.str();
  for (const UnwrittenOutput& u : unwritten) out += (out.empty() ? "" : "; ") + u.str();
  return out;
}

const std::vector<float>& RunResult::floats(std::size_t index) const {
  if (index < outputs.size()) {
    if (auto* f = std::get_if<std::vector<float>>(&outputs[index])) return *f;
  }
  throw Error(fmt::format("buffer {} was not read back as floats", index));
}

const std::vector<std::int32_t>& RunResult::ints(std::size_t index) const {
  if (index < outputs.size()) {
    if (auto* i = std::get_if<std::vector<std::int32_t>>(&outputs[index])) return *i;
  }
  throw Error(fmt::format("buffer {} was not read back as ints", index));
}

RunResult run_program(const Session& session, const Program& program, const LaunchPlan& plan,
                      const RunOptions& options) {
  validate_plan(plan);
  if (options.warmup_runs < 0 || options.timed_runs < 1) {
    throw Error(fmt::format("run options: need warm-up runs >= 0 and timed runs >= 1 (got {} and {})",
                            options.warmup_runs, options.timed_runs));
  }
  Session::Impl& s = session.impl();
  const Program::Impl& p = program.impl();
  if (&p.session.impl() != &s) throw Error("run_program: the program was built for another session");

  std::vector<detail::GuardedBuffer> buffers =
      detail::allocate_guarded(s.context, s.queue, s.info, plan, options.canary_bytes);

  const std::size_t n = plan.kernels.size();
  std::vector<cl::Kernel> kernels;
  std::vector<std::string> enqueue_actions;
  for (const KernelLaunch& launch : plan.kernels) {
    kernels.push_back(make_kernel(p, launch, plan, buffers));
    enqueue_actions.push_back(fmt::format("enqueueing kernel '{}' with global {} local {}", launch.kernel,
                                          launch.global.str(), launch.local.str()));
  }
  std::string names;
  for (const KernelLaunch& launch : plan.kernels) names += (names.empty() ? "'" : ", '") + launch.kernel + "'";
  const std::string finish_action = fmt::format("running kernels {} to completion", names);

  // One run: every kernel in order, then wait; returns each kernel's event time in ms.
  std::vector<cl::Event> events(n);
  auto run_once = [&]() {
    for (std::size_t k = 0; k < n; ++k) {
      try {
        s.queue.enqueueNDRangeKernel(kernels[k], cl::NullRange, to_cl(plan.kernels[k].global),
                                     to_cl(plan.kernels[k].local), nullptr, &events[k]);
      } catch (const cl::Error& e) {
        detail::throw_cl_error(e.err(), e.what(), enqueue_actions[k],
                               work_group_note(s, kernels[k], plan.kernels[k], e.err()));
      }
    }
    detail::checked(finish_action, [&] { s.queue.finish(); });
    std::vector<double> ms(n);
    for (std::size_t k = 0; k < n; ++k) {
      const std::string action = fmt::format("timing kernel '{}'", plan.kernels[k].kernel);
      const cl_int status = detail::checked(
          action, [&] { return events[k].getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>(); });
      if (status < 0) detail::throw_cl_error(status, "", "running kernel '" + plan.kernels[k].kernel + "'");
      const cl_ulong start = detail::checked(action, [&] { return events[k].getProfilingInfo<CL_PROFILING_COMMAND_START>(); });
      const cl_ulong end = detail::checked(action, [&] { return events[k].getProfilingInfo<CL_PROFILING_COMMAND_END>(); });
      ms[k] = end > start ? static_cast<double>(end - start) * 1e-6 : 0.0;
    }
    return ms;
  };

  RunResult result;
  result.outputs.resize(plan.buffers.size());
  run_once();
  for (const detail::GuardedBuffer& buf : buffers) {
    if (!buf.spec->read_back) continue;
    result.outputs[buf.index] = detail::read_back(s.queue, buf);
    if (auto unwritten = find_poison(result.outputs[buf.index], buf)) result.unwritten.push_back(*unwritten);
  }
  for (int w = 1; w < options.warmup_runs; ++w) run_once();
  std::vector<std::vector<double>> per_kernel(n);
  for (int r = 0; r < options.timed_runs; ++r) {
    std::vector<double> ms = run_once();
    double total = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
      total += ms[k];
      per_kernel[k].push_back(ms[k]);
    }
    result.samples_ms.push_back(total);
  }
  result.median_ms = median_of(result.samples_ms);
  result.min_ms = *std::min_element(result.samples_ms.begin(), result.samples_ms.end());
  for (auto& samples : per_kernel) result.kernel_median_ms.push_back(median_of(samples));
  result.kernel_samples_ms = std::move(per_kernel);

  result.canary_violations = detail::check_canaries(s.queue, buffers);
  return result;
}

RunResult run_source(const Session& session, const std::string& source, const std::string& build_options,
                     const LaunchPlan& plan, const RunOptions& options) {
  return run_program(session, build_program(session, source, build_options), plan, options);
}

}  // namespace liftc::runtime
