// liftc-runner BUNDLE_DIR: runs one candidate bundle on an OpenCL device and prints one
// JSON object on stdout (the protocol is in README.md). Standalone on purpose: OpenCL's C
// API and the C++ standard library only, so it cross-compiles with the Android NDK and
// runs on a phone while the compiler and the search run on a laptop.
// liftc-runner --serve: the same for every bundle folder read from stdin (one a line), one
// answer line each, keeping the device's context and queue from one bundle to the next.
//
// Steps: read bundle.txt; open the device; build kernels.cl; allocate every buffer with
// canary regions around it (inputs uploaded, outputs and scratch poisoned with a NaN);
// run the kernels once and read the outputs back (the validated run: unwritten elements
// and mismatches against expected/ are failures); when that run, timed as the sum of its
// kernels' profiling events, is over the bundle's cut-off, stop there; otherwise run
// warm-up and timed runs, each timed the same way, and stop timing after the first timed
// run when it is over the cut-off; check the canaries; print the result. A run whose
// kernels are still running kStopGraceMs after their time passed the cut-off is not waited
// for: the answer says so (`"stopped":true`, cut) and the runner exits at once (it cannot
// stop a kernel; its process's end does, on PoCL and NVIDIA's driver).
// A `library` line is a CLBlast routine's call in the same sequence (README.md, "Library
// calls"); a runner built without CLBlast answers such a bundle with status build.
// With a `lock` file, every kernel execution (the validated run, the warm-up and timed
// runs) holds an exclusive flock on it, so parallel runners never time concurrently.

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "bundle_reader.hpp"
#include "live_cutoff.hpp"
#include "liftc/runtime/guard.hpp"
#include "liftc/support/half.hpp"
#ifdef LIFTC_RUNNER_CLBLAST
#include <clblast_c.h>
#endif

namespace {

using namespace liftc_runner;
namespace guard = liftc::guard;  // canaries and poison, the runtime's (liftc/runtime/guard.hpp)

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += static_cast<char>(c);
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else out += static_cast<char>(c);
  }
  return out + "\"";
}

// The machine's architecture as uname(2) names it ("aarch64", "x86_64"), as a JSON string:
// every answer names where it ran. Made once, before any bundle, so that the fixed answer
// of a runner out of memory can print it too.
const std::string& machine_json() {
  static const std::string machine = [] {
    struct utsname u {};
    return json_string(uname(&u) == 0 && u.machine[0] != '\0' ? u.machine : "unknown");
  }();
  return machine;
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string json_numbers(const std::vector<double>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + json_number(v[i]);
  return out + "]";
}

std::string device_string(cl_device_id d, cl_device_info what) {
  std::size_t n = 0;
  clGetDeviceInfo(d, what, 0, nullptr, &n);
  std::string s(n, '\0');
  clGetDeviceInfo(d, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

template <typename T>
T device_value(cl_device_id d, cl_device_info what) {
  T v{};
  clGetDeviceInfo(d, what, sizeof v, &v, nullptr);
  return v;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The device `selector` names, as liftc does: "" the first, an index, or part of a name.
cl_device_id pick_device(const std::string& selector) {
  cl_uint np = 0;
  if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0) throw Failure{"runner", "no OpenCL platform"};
  std::vector<cl_platform_id> platforms(np);
  clGetPlatformIDs(np, platforms.data(), nullptr);
  std::uint64_t index = 0, wanted = 0;
  bool numeric = device_index(selector, wanted);
  for (cl_platform_id p : platforms) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS) continue;
    std::vector<cl_device_id> devices(nd);
    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, devices.data(), nullptr);
    std::size_t n = 0;
    clGetPlatformInfo(p, CL_PLATFORM_NAME, 0, nullptr, &n);
    std::string platform(n, '\0');
    clGetPlatformInfo(p, CL_PLATFORM_NAME, n, platform.data(), nullptr);
    for (cl_device_id d : devices) {
      std::string text = lower(platform + " " + device_string(d, CL_DEVICE_NAME) + " " +
                               device_string(d, CL_DEVICE_VENDOR) + " " + device_string(d, CL_DEVICE_VERSION));
      if (selector.empty() || (numeric && wanted == index) ||
          (!numeric && text.find(lower(selector)) != std::string::npos))
        return d;
      ++index;
    }
  }
  throw Failure{"runner", "no OpenCL device matches '" + selector + "'"};
}

std::string cl_failure(const char* what, cl_int err) { return std::string(what) + " failed with OpenCL error " + std::to_string(err); }

// The OpenCL objects kept from one bundle to the next in --serve mode: the device a
// selector picked, its description, its context and its profiling queue.
struct Session {
  std::string selector;  // the bundle's `device` line that picked `device`
  cl_device_id device = nullptr;
  std::string device_json;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  // Whether the driver reports a kernel running (CL_RUNNING): PoCL does, after it has
  // compiled the kernel for its work-group size at its first launch; NVIDIA's goes from
  // CL_SUBMITTED to CL_COMPLETE. Unknown until an event was seen in either way.
  enum class Running { Unknown, Reported, Skipped } running = Running::Unknown;

  // Whether a bundle asking for `wanted` can run on what is open already.
  bool serves(const std::string& wanted) const { return queue != nullptr && selector == wanted; }
  void close() {
#ifdef LIFTC_RUNNER_CLBLAST
    CLBlastClearCache();  // CLBlast's compiled programs hold the context
#endif
    if (queue) clReleaseCommandQueue(queue);
    if (context) clReleaseContext(context);
    queue = nullptr, context = nullptr, device = nullptr;
    running = Running::Unknown;
    selector.clear(), device_json.clear();
  }
  Session() = default;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() { close(); }
};

// One device buffer with its canary regions: [before][data][after] in one allocation (guard.hpp).
struct Guarded : guard::Layout {
  cl_mem whole = nullptr, data = nullptr;
};

// Milliseconds on the monotonic clock (CLOCK_MONOTONIC: the same for every process of a machine).
double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Where a runner's time went: named phases in order, and the intervals it held the lock.
struct Phases {
  std::vector<std::pair<std::string, double>> ms;
  std::vector<std::pair<double, double>> locked;  // [acquired, released] in now_ms()
  double lock_wait_ms = 0;
  double mark = now_ms();
  // Closes the phase that ran since the last mark.
  void end(const std::string& name) {
    double t = now_ms();
    ms.emplace_back(name, t - mark);
    mark = t;
  }
};

// An exclusive flock on the bundle's lock file while in scope (no-op without one).
class DeviceLock {
 public:
  DeviceLock(const std::string& path, Phases& phases) : phases_(phases) {
    if (path.empty()) return;
    fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd_ < 0) throw Failure{"runner", "cannot open the lock file " + path + ": " + std::strerror(errno)};
    double asked = now_ms();
    if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK) throw Failure{"runner", "cannot lock " + path + ": " + std::strerror(errno)};
      // Another runner is timing: these lines tell explore's watchdog not to count the wait.
      std::fputs("liftc-runner: waiting for the device lock\n", stderr);
      while (flock(fd_, LOCK_EX) != 0)
        if (errno != EINTR) throw Failure{"runner", "cannot lock " + path + ": " + std::strerror(errno)};
      std::fputs("liftc-runner: holding the device lock\n", stderr);
    }
    acquired_ = now_ms();
    phases_.lock_wait_ms += acquired_ - asked;
  }
  // The runner stopped waiting for kernels that still run: the lock stays held until the
  // process ends (its descriptor closes then), so that no other runner times beside them.
  void hold_until_exit() {
    if (fd_ >= 0) phases_.locked.emplace_back(acquired_, now_ms());
    fd_ = -1;
  }
  ~DeviceLock() {
    if (fd_ < 0) return;
    phases_.locked.emplace_back(acquired_, now_ms());
    close(fd_);  // releases the lock
  }
  DeviceLock(const DeviceLock&) = delete;
  DeviceLock& operator=(const DeviceLock&) = delete;

 private:
  Phases& phases_;
  int fd_ = -1;
  double acquired_ = 0;
};

struct Result {
  std::string status = "ok", reason;
  std::vector<double> samples;
  std::vector<double> kernel_ms;  // medians per kernel
  bool cut = false;
  bool stopped = false;  // cut while its kernels still ran: the runner exits after its answer
  std::size_t workspace_bytes = 0;  // device memory the library calls allocate themselves (the most of any)
  double max_abs_error = 0;
  std::size_t mismatches = 0;
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// One bundle on an open session's context and queue; its program, kernels and buffers
// are released when it ends (the context and queue are the session's).
class Runner {
 public:
  Runner(const Bundle& b, Session& session, Phases& phases)
      : b_(b), cutoff_(b.cutoff_ms, b.live_factor, b.live_memory, b.live_path), session_(session),
        device_(session.device), context_(session.context), queue_(session.queue), phases_(phases) {}
  ~Runner() {
    if (stopped_) return;  // kernels still run on these buffers: the process ends next
    clFinish(queue_);  // nothing of this bundle is left queued when its buffers go
    for (auto& g : buffers_) {
      if (g.data) clReleaseMemObject(g.data);
      if (g.whole) clReleaseMemObject(g.whole);
    }
    for (cl_kernel k : kernels_)
      if (k) clReleaseKernel(k);
    if (program_) clReleaseProgram(program_);
  }
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  Result run() {
    Result r;
    if (b_.kernels.empty()) return r;  // a probe: the device is all the caller wants
    build();
    r.workspace_bytes = workspace_bytes_;
    phases_.end("build");
    allocate();
    clFinish(queue_);
    phases_.end("upload");
    if (prime_library_calls()) phases_.end("library_build");
    std::vector<double> first_times;
    {
      // The validated run executes kernels too: a concurrent one would disturb another
      // runner's timed runs, so it holds the lock (its checking below does not).
      DeviceLock lock(b_.lock, phases_);
      if (!run_once(&first_times)) return stopped(r, lock, first_times, "the validated run", "first_run");
      phases_.end("first_run");
    }
    validate(r);
    phases_.end("validate");
    if (r.status != "ok") return r;
    // A candidate whose validated run is already over the cut-off is not run again: its one
    // sample is that run (cold, so if anything slower than a warm one). On a GPU the slow
    // candidates of a search cost most of its device time, twice before this.
    double first_sum = 0;
    for (double t : first_times) first_sum += t;
    if (first_sum > cutoff_.now()) {
      r.cut = true;
      r.samples.push_back(first_sum);
      r.kernel_ms = first_times;
      check_canaries(r);
      phases_.end("canaries");
      return r;
    }
    std::vector<std::vector<double>> per_kernel(b_.kernels.size());
    {  // warm-up and timed runs hold the lock; the canary check after them does not
      DeviceLock lock(b_.lock, phases_);
      for (int i = 1; i < b_.warmup; ++i) {
        std::vector<double> times;
        if (!run_once(&times)) return stopped(r, lock, times, "a warm-up run", "timed_runs");
      }
      for (int i = 0; i < b_.runs; ++i) {
        std::vector<double> times;
        double span = 0;
        if (!run_once(&times, &span)) return stopped(r, lock, times, "a timed run", "timed_runs");
        // A sample is the run's span, not its kernels' sum: the gaps between a candidate's
        // kernels are paid by a deployed program too (several microseconds each on NVIDIA's
        // OpenCL), so that a point of fewer kernels is not ranked behind one of more whose
        // kernels alone are faster. The sum is its floor (clocks that disagree by a tick).
        double sum = 0;
        for (std::size_t k = 0; k < times.size(); ++k) sum += times[k], per_kernel[k].push_back(times[k]);
        double sample = std::max(span, sum);
        r.samples.push_back(sample);
        if (i == 0 && sample > cutoff_.now() && b_.runs > 1) {
          r.cut = true;
          break;
        }
      }
      phases_.end("timed_runs");
    }
    for (auto& k : per_kernel) r.kernel_ms.push_back(median(k));
    check_canaries(r);
    phases_.end("canaries");
    return r;
  }

 private:
  // The answer of a run given up on: cut, its one sample the time its kernels had taken
  // (over the cut-off), the lock held until the process ends.
  Result stopped(Result r, DeviceLock& lock, const std::vector<double>& times, const char* which, const char* phase) {
    phases_.end(phase);
    lock.hold_until_exit();
    stopped_ = true;
    double sum = 0;
    for (double t : times) sum += t;
    r.status = "ok";
    r.cut = r.stopped = true;
    r.samples = {sum};
    r.kernel_ms = times;
    r.reason = std::string("stopped waiting for ") + which + " after " + json_number(sum) + " ms of its kernels" +
               (std::string(which) == "the validated run" ? " (not validated)" : "");
    return r;
  }

  // The status of `e`, or an error status.
  static cl_int status_of(cl_event e) {
    cl_int s = CL_COMPLETE;
    cl_int err = clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, nullptr);
    return err != CL_SUCCESS ? err : s;
  }

  // How long a run whose count passed the cut-off is still waited for (host time from that
  // moment) before the runner gives up on it and exits. A run that ends within it is a cut
  // like one over the cut-off after it ended (its times measured, the validated run
  // checked), and the serving runner goes on in its context; one given up on costs the next
  // candidate a fresh runner, which opens the device again: on an H200 with 32 runners
  // opening it at once, 5-9 s each, and a cut layer's candidates were a third of them fresh.
  // The device stays locked while it is waited for, as it does while an ending process's
  // kernels are stopped.
  static constexpr double kStopGraceMs = 100;

  // Waits for a run's steps in order while their time stays within the cut-off: a completed
  // step counts its event time (`time_of`), the step in progress the host time since it was
  // first seen running: since CL_RUNNING where the driver reports it (on PoCL a kernel is
  // CL_SUBMITTED while it is compiled for its work-group size), else since CL_SUBMITTED
  // (NVIDIA), since its marker ended for a library call. Until the session knows which, a
  // step counts from CL_RUNNING only. Returns false when the count passed the cut-off with
  // kernels still running kStopGraceMs later; `times` then holds what each step counted.
  bool wait_within_cutoff(const std::vector<cl_event>& events, const std::vector<cl_event>& before,
                          std::vector<double>& times) {
    times.assign(events.size(), 0.0);
    double counted = 0;
    double over_since = -1;  // when the count first passed the cut-off (now_ms)
    for (std::size_t k = 0; k < events.size(); ++k) {
      double since = -1;      // when the step was first seen running (now_ms)
      double submitted = -1;  // when it was last seen CL_SUBMITTED, if that was its last status
      for (int polls = 0;; ++polls) {
        double now = now_ms();
        cl_int s = status_of(events[k]);
        if (s < 0) return true;  // a failed command: clFinish reports it
        if (s == CL_COMPLETE) {
          times[k] = time_of(events[k], before[k]);
          counted += times[k];
          // A kernel that ran longer than since it was last seen CL_SUBMITTED (by a millisecond:
          // not a moment of a driver that sets a start before it reports CL_RUNNING) was
          // running then: the driver does not report CL_RUNNING.
          if (submitted >= 0 && !before[k] && times[k] > now_ms() - submitted + 1.0 &&
              session_.running == Session::Running::Unknown)
            session_.running = Session::Running::Skipped;
          break;
        }
        submitted = s == CL_SUBMITTED ? now : -1;
        if (s == CL_RUNNING) session_.running = Session::Running::Reported;
        bool started = s == CL_RUNNING ||
                       (s == CL_SUBMITTED && session_.running == Session::Running::Skipped) ||
                       (before[k] && status_of(before[k]) == CL_COMPLETE);
        if (started && since < 0) since = now;
        if (since >= 0) {
          times[k] = now_ms() - since;
          if (counted + times[k] > cutoff_.now()) {
            if (over_since < 0) over_since = now;
            if (now - over_since > kStopGraceMs) {
              times.resize(k + 1);
              return false;
            }
          }
        }
        // Polled often at first (a fast kernel is not slowed much), then every millisecond.
        usleep(polls < 20 ? 50 : polls < 100 ? 200 : 1000);
      }
    }
    return true;
  }

  // From the start of a completed step (a kernel's event start, a library call's marker's
  // end: its own event is its last kernel's) to the end of a completed step `last`, in ms: a
  // step's time (`last` the step itself), or a run's span (from its first step to its last).
  static double time_of(cl_event event, cl_event marker, cl_event last = nullptr) {
    cl_ulong start = 0, end = 0;
    if (marker) clGetEventProfilingInfo(marker, CL_PROFILING_COMMAND_END, sizeof start, &start, nullptr);
    else clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr);
    clGetEventProfilingInfo(last ? last : event, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr);
    return end > start ? double(end - start) * 1e-6 : 0.0;
  }

  void build() {
    // Every library call's tuning parameters are set first: CLBlast compiles its kernels with
    // them at the call (a combination it refuses is this bundle's build failure).
    for (const auto& k : b_.kernels)
      if (!k.library.empty()) prepare_library_call(k);
    bool any_kernel = std::any_of(b_.kernels.begin(), b_.kernels.end(), [](const KernelDesc& k) { return k.library.empty(); });
    kernels_.assign(b_.kernels.size(), nullptr);
    if (!any_kernel) return;  // only library calls: kernels.cl is not built
    std::string source = read_small_file(b_.dir + "/kernels.cl", kMaxKernelSourceBytes, "kernels.cl");
    const char* text = source.c_str();
    std::size_t length = source.size();
    cl_int err = CL_SUCCESS;
    program_ = clCreateProgramWithSource(context_, 1, &text, &length, &err);
    if (err != CL_SUCCESS) throw Failure{"build", cl_failure("clCreateProgramWithSource", err)};
    err = clBuildProgram(program_, 1, &device_, b_.build_options.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) {
      std::size_t n = 0;
      clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
      std::string log(n, '\0');
      clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
      std::string with = b_.build_options.empty() ? "" : " with options '" + b_.build_options + "'";
      throw Failure{"build", cl_failure("clBuildProgram", err) + with + ": " + log.substr(0, 2000)};
    }
    for (std::size_t i = 0; i < b_.kernels.size(); ++i) {
      const KernelDesc& k = b_.kernels[i];
      if (!k.library.empty()) continue;
      cl_kernel kernel = clCreateKernel(program_, k.name.c_str(), &err);
      if (err != CL_SUCCESS) throw Failure{"build", cl_failure(("clCreateKernel(" + k.name + ")").c_str(), err)};
      kernels_[i] = kernel;
    }
  }

#ifdef LIFTC_RUNNER_CLBLAST
  static std::string clblast_failure(const std::string& what, CLBlastStatusCode s) {
    return "CLBlast " + what + " failed with status " + std::to_string(static_cast<int>(s)) +
           (s == CLBlastMissingOverrideParameter ? " (a tuning parameter is missing)"
            : s == CLBlastOpenCLBuildProgramFailure ? " (CLBlast's kernel does not compile with these parameters)"
            : s == CLBlastInvalidLocalThreadsDim || s == CLBlastInvalidLocalThreadsTotal
                ? " (the work-group the parameters ask for is invalid on this device)"
            : s == CLBlastInvalidLocalMemUsage ? " (the parameters need more local memory than the device has)"
                                               : "");
  }

  // Sets the call's tuning parameters (one CLBlastOverrideParameters per kernel named) and
  // asks CLBlast for the temporary buffer it will allocate itself.
  void prepare_library_call(const KernelDesc& k) {
    std::vector<std::string> kernels;
    for (const auto& p : k.params)
      if (std::find(kernels.begin(), kernels.end(), p.kernel) == kernels.end()) kernels.push_back(p.kernel);
    for (const auto& kernel : kernels) {
      std::vector<const char*> names;
      std::vector<std::size_t> values;
      for (const auto& p : k.params)
        if (p.kernel == kernel) names.push_back(p.name.c_str()), values.push_back(static_cast<std::size_t>(p.value));
      CLBlastStatusCode s = CLBlastOverrideParameters(device_, kernel.c_str(), CLBlastPrecisionSingle, names.size(),
                                                      names.data(), values.data());
      if (s != CLBlastSuccess) throw Failure{"build", clblast_failure("OverrideParameters(" + kernel + ")", s)};
    }
    if (k.library == "clblast-gemm") {
      std::size_t m = k.sizes[0], n = k.sizes[1], kk = k.sizes[2], bytes = 0;
      CLBlastStatusCode s = CLBlastSGemmTempBufferSize(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, m,
                                                       n, kk, 0, kk, 0, n, 0, n, &queue_, &bytes);
      if (s != CLBlastSuccess) throw Failure{"build", clblast_failure("SGemmTempBufferSize", s)};
      workspace_bytes_ = std::max(workspace_bytes_, bytes);
    }
    // Sconvgemm allocates nothing in CLBlast 1.5.3: its single-kernel method reads the
    // image in place (src/explore/README.md, "Library candidates").
  }

  // Enqueues the library call `k` (its buffers are the call's args) with `event` its last kernel's.
  void call_library(const KernelDesc& k, cl_event* event) {
    cl_mem a = buffers_[k.args[0].buffer].data, b = buffers_[k.args[1].buffer].data, c = buffers_[k.args[2].buffer].data;
    const auto& s = k.sizes;
    CLBlastStatusCode status = CLBlastSuccess;
    if (k.library == "clblast-convgemm") {
      // liftc's convolutions multiply each window by a kernel as written: cross-correlation.
      status = CLBlastSconvgemm(CLBlastKernelModeCrossCorrelation, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8],
                                s[9], s[10], s[11], s[12], a, 0, b, 0, c, 0, &queue_, event);
    } else {
      status = CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, s[0], s[1], s[2], 1.0f, a, 0,
                            s[2], b, 0, s[1], 0.0f, c, 0, s[1], &queue_, event);
    }
    // Parameters CLBlast's kernel cannot be built or launched with are a verdict on this
    // candidate (build); anything else is the call failing (run: the context is reopened).
    bool refused = status == CLBlastOpenCLBuildProgramFailure || status == CLBlastInvalidLocalThreadsDim ||
                   status == CLBlastInvalidLocalThreadsTotal || status == CLBlastInvalidLocalMemUsage;
    if (status != CLBlastSuccess) throw Failure{refused ? "build" : "run", clblast_failure(k.library, status)};
  }
#else
  [[noreturn]] void prepare_library_call(const KernelDesc& k) {
    throw Failure{"build", "this liftc-runner was built without CLBlast: it cannot call " + k.library};
  }
  void call_library(const KernelDesc&, cl_event*) {}
#endif

  // CLBlast compiles a routine's kernels at its first call (a minute for Convgemm under
  // PoCL): each library call is made once here, untimed and without the lock, so that the
  // validated run and the timed runs time the kernels only; then every output and scratch
  // buffer is poisoned again, so the validated run's checks are as for kernels. False when
  // there is no library call.
  bool prime_library_calls() {
    bool any = false;
    for (const auto& k : b_.kernels) {
      if (k.library.empty()) continue;
      any = true;
      cl_event event = nullptr;
      call_library(k, &event);
      if (event) clReleaseEvent(event);
    }
    if (!any) return false;
    cl_int err = clFinish(queue_);
    if (err != CL_SUCCESS) throw Failure{"run", cl_failure("clFinish", err)};
    for (std::size_t i = 0; i < b_.buffers.size(); ++i) {
      if (b_.buffers[i].role == "input") continue;
      err = b_.buffers[i].half ? clEnqueueFillBuffer(queue_, buffers_[i].data, &guard::kPoisonHalf,
                                                     sizeof guard::kPoisonHalf, 0, buffers_[i].bytes, 0, nullptr, nullptr)
                               : clEnqueueFillBuffer(queue_, buffers_[i].data, &guard::kPoison, sizeof guard::kPoison, 0,
                                                     buffers_[i].bytes, 0, nullptr, nullptr);
      if (err != CL_SUCCESS) throw Failure{"run", cl_failure("clEnqueueFillBuffer", err)};
    }
    err = clFinish(queue_);
    if (err != CL_SUCCESS) throw Failure{"run", cl_failure("clFinish", err)};
    return true;
  }

  void allocate() {
    // The reader caps the canary at 1 MiB, guard::layout the alignment.
    std::size_t align = device_value<cl_uint>(device_, CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8;
    cl_ulong max_alloc = device_value<cl_ulong>(device_, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    for (const auto& d : b_.buffers) {
      Guarded g;
      static_cast<guard::Layout&>(g) = guard::layout(d.element_bytes() * d.count, b_.canary, align);  // at most 2^40: the reader caps the count
      std::size_t total = g.total();
      // Asked before any host memory is: a bundle asking for more than the device can
      // allocate is the device's refusal (as clCreateBuffer's would be), not an exhausted host.
      if (total > max_alloc)
        throw Failure{"run", "buffer '" + d.name + "' needs " + std::to_string(total) +
                                 " bytes with its canaries, more than the device allocates at once (" +
                                 std::to_string(max_alloc) + ")"};
      std::vector<std::uint32_t> host(total / 4 + 1);
      guard::fill_canaries(host.data(), g);
      char* data = reinterpret_cast<char*>(host.data()) + g.before;
      if (d.role == "input" && d.half) {  // the file holds f32: each rounded to its nearest half
        std::vector<float> values(d.count);
        read_exact_file(b_.dir + "/inputs/" + d.name + ".bin", reinterpret_cast<char*>(values.data()), 4 * d.count,
                        "inputs/" + d.name + ".bin");
        for (std::size_t e = 0; e < d.count; ++e) {
          std::uint16_t h = liftc::half::from_float(values[e]);
          std::memcpy(data + 2 * e, &h, 2);
        }
      } else if (d.role == "input") {
        read_exact_file(b_.dir + "/inputs/" + d.name + ".bin", data, g.bytes, "inputs/" + d.name + ".bin");
      } else {
        guard::fill(data, g.bytes, d.half ? guard::kPoisonHalfWord : guard::kPoison);
      }
      cl_int err = CL_SUCCESS;
      g.whole = clCreateBuffer(context_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, total, host.data(), &err);
      if (err != CL_SUCCESS) throw Failure{"run", cl_failure(("clCreateBuffer(" + d.name + ")").c_str(), err)};
      cl_buffer_region region{g.before, g.bytes};
      g.data = clCreateSubBuffer(g.whole, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
      if (err != CL_SUCCESS) throw Failure{"run", cl_failure(("clCreateSubBuffer(" + d.name + ")").c_str(), err)};
      buffers_.push_back(g);
    }
    cl_ulong local_mem = device_value<cl_ulong>(device_, CL_DEVICE_LOCAL_MEM_SIZE);
    for (std::size_t k = 0; k < b_.kernels.size(); ++k) {
      if (!b_.kernels[k].library.empty()) continue;  // a library call's buffers are its call's arguments
      const auto& args = b_.kernels[k].args;
      for (std::size_t i = 0; i < args.size(); ++i) {
        const ArgDesc& a = args[i];
        cl_int err = CL_SUCCESS;
        auto index = static_cast<cl_uint>(i);
        switch (a.kind) {
          case ArgDesc::Kind::Buffer:
            err = clSetKernelArg(kernels_[k], index, sizeof(cl_mem), &buffers_[a.buffer].data);
            break;
          case ArgDesc::Kind::Int: {
            cl_int v = a.int_value;
            err = clSetKernelArg(kernels_[k], index, sizeof v, &v);
            break;
          }
          case ArgDesc::Kind::Float: {
            cl_float v = a.float_value;
            err = clSetKernelArg(kernels_[k], index, sizeof v, &v);
            break;
          }
          case ArgDesc::Kind::Local:
            if (a.local_bytes > local_mem)
              throw Failure{"run", "argument " + std::to_string(i) + " of " + b_.kernels[k].name + " asks for " +
                                       std::to_string(a.local_bytes) + " bytes of local memory; the device has " +
                                       std::to_string(local_mem)};
            err = clSetKernelArg(kernels_[k], index, a.local_bytes, nullptr);
            break;
        }
        if (err != CL_SUCCESS)
          throw Failure{"run", cl_failure(("clSetKernelArg(" + b_.kernels[k].name + ", " + std::to_string(i) + ")").c_str(), err)};
      }
    }
  }

  // What a launch refused for its resources (CL_OUT_OF_RESOURCES, CL_INVALID_WORK_GROUP_SIZE)
  // can say of why: the compiled kernel's own work-group limit (CL_KERNEL_WORK_GROUP_SIZE,
  // lowered by its registers and local memory, which no constraint knows beforehand) beside
  // the work-group asked for. Not a check before the launch: NVIDIA's driver reports 256 for
  // kernels it then runs with larger work-groups.
  std::string work_group_note(const KernelDesc& d, cl_kernel kernel, cl_int err) const {
    if (d.local[0] == 0 || (err != CL_OUT_OF_RESOURCES && err != CL_INVALID_WORK_GROUP_SIZE)) return "";
    std::size_t limit = 0;
    if (clGetKernelWorkGroupInfo(kernel, device_, CL_KERNEL_WORK_GROUP_SIZE, sizeof limit, &limit, nullptr) != CL_SUCCESS)
      return "";
    std::size_t asked = 1;
    std::string shape;
    for (unsigned i = 0; i < d.dims; ++i) {
      asked *= d.local[i];
      shape += (i ? "x" : "") + std::to_string(d.local[i]);
    }
    return " (work-groups of " + std::to_string(asked) + " (" + shape + ") work-items; compiled for this device the " +
           "kernel reports a limit of " + std::to_string(limit) +
           ", CL_KERNEL_WORK_GROUP_SIZE: its registers and local memory; a smaller work-group may run)";
  }

  // Enqueues every kernel once and waits; `times` (when given) gets each kernel's event time.
  // A library call may enqueue several kernels and gives the event of its last one only, so
  // it is timed from a marker enqueued before it to the end of that last kernel. `span`
  // (when given) gets the run's time on the device's clock, from its first step's start to
  // its last step's end: the kernels and the gaps between them. With a cut-off, false when
  // it stopped waiting (wait_within_cutoff; `times` gets what it counted).
  bool run_once(std::vector<double>* times, double* span = nullptr) {
    std::vector<cl_event> events(b_.kernels.size(), nullptr), before(b_.kernels.size(), nullptr);
    auto fail = [&](const Failure& f) {  // the events go with a failure too (a serving runner goes on)
      for (auto* list : {&events, &before})
        for (cl_event e : *list)
          if (e) clReleaseEvent(e);
      return f;
    };
    for (std::size_t k = 0; k < b_.kernels.size(); ++k) {
      const KernelDesc& d = b_.kernels[k];
      if (!d.library.empty()) {
        cl_int err = clEnqueueMarkerWithWaitList(queue_, 0, nullptr, &before[k]);
        if (err != CL_SUCCESS) throw fail({"run", cl_failure("clEnqueueMarkerWithWaitList", err)});
        try {
          call_library(d, &events[k]);
        } catch (const Failure& f) {
          throw fail(f);
        }
        continue;
      }
      bool has_local = d.local[0] != 0;
      cl_int err = clEnqueueNDRangeKernel(queue_, kernels_[k], d.dims, nullptr, d.global, has_local ? d.local : nullptr,
                                          0, nullptr, &events[k]);
      if (err != CL_SUCCESS)
        throw fail({"run", cl_failure(("clEnqueueNDRangeKernel(" + d.name + ")").c_str(), err) + work_group_note(d, kernels_[k], err)});
    }
    if ((std::isfinite(cutoff_.now()) || cutoff_.live()) && times) {
      cl_int err = clFlush(queue_);
      if (err != CL_SUCCESS) throw fail({"run", cl_failure("clFlush", err)});
      std::vector<double> counted;
      if (!wait_within_cutoff(events, before, counted)) {
        *times = counted;
        return false;  // the events stay: their kernels run until the process ends
      }
    }
    cl_int err = clFinish(queue_);
    if (err != CL_SUCCESS) throw fail({"run", cl_failure("clFinish", err)});
    if (span && !events.empty()) *span = time_of(events.front(), before.front(), events.back());
    for (std::size_t k = 0; k < events.size(); ++k) {
      if (times) times->push_back(time_of(events[k], before[k]));
      if (before[k]) clReleaseEvent(before[k]);
      clReleaseEvent(events[k]);
    }
    return true;
  }

  std::vector<std::uint32_t> read_whole(std::size_t i) {
    const Guarded& g = buffers_[i];
    std::vector<std::uint32_t> host((g.before + g.bytes + g.after) / 4 + 1, 0);
    cl_int err = clEnqueueReadBuffer(queue_, g.whole, CL_TRUE, 0, g.before + g.bytes + g.after, host.data(), 0, nullptr, nullptr);
    if (err != CL_SUCCESS) throw Failure{"run", cl_failure("clEnqueueReadBuffer", err)};
    return host;
  }

  void validate(Result& r) {
    for (std::size_t i = 0; i < b_.buffers.size(); ++i) {
      const BufferDesc& d = b_.buffers[i];
      if (d.role != "output") continue;
      std::vector<std::uint32_t> whole = read_whole(i);
      const char* got = reinterpret_cast<const char*>(whole.data()) + buffers_[i].before;
      guard::Unwritten unwritten = d.half ? guard::unwritten_half(got, d.count) : guard::unwritten(got, d.count);
      if (unwritten.count) {
        r.status = "unwritten";
        r.reason = std::to_string(unwritten.count) + " of " + std::to_string(d.count) + " elements of output '" +
                   d.name + "' were never written (the first at [" + std::to_string(unwritten.first) + "])";
        return;
      }
      std::string path = b_.dir + "/expected/" + d.name + ".bin", shown = "expected/" + d.name + ".bin";
      if (!regular_file_exists(path, shown)) continue;  // nothing to compare with
      std::string raw(4 * d.count, '\0');
      read_exact_file(path, raw.data(), raw.size(), shown);
      std::vector<float> allowance = read_allowance(d);
      std::size_t bad = 0, first_bad = 0;
      double got_first = 0, want_first = 0;
      for (std::size_t e = 0; e < d.count; ++e) {
        double a, w;
        if (d.half) {  // the half read back exactly as a float; expected/ holds f32
          std::uint16_t ha;
          float fw;
          std::memcpy(&ha, got + 2 * e, 2);
          std::memcpy(&fw, raw.data() + 4 * e, 4);
          a = liftc::half::to_float(ha), w = fw;
        } else if (d.is_float) {
          float fa, fw;
          std::memcpy(&fa, got + 4 * e, 4);
          std::memcpy(&fw, raw.data() + 4 * e, 4);
          a = fa, w = fw;
        } else {
          std::int32_t ia, iw;
          std::memcpy(&ia, got + 4 * e, 4);
          std::memcpy(&iw, raw.data() + 4 * e, 4);
          a = ia, w = iw;
        }
        bool match;
        if (std::isnan(w) || std::isnan(a)) match = std::isnan(w) && std::isnan(a);
        else if (std::isinf(w) || std::isinf(a)) match = a == w;
        else {
          double err = std::fabs(a - w);
          r.max_abs_error = std::max(r.max_abs_error, err);
          double allowed = b_.atol + b_.rtol * std::fabs(w) + (allowance.empty() ? 0.0 : allowance[e]);
          match = d.is_float ? err <= allowed : a == w;
        }
        if (!match && bad++ == 0) first_bad = e, got_first = a, want_first = w;
      }
      r.mismatches += bad;
      if (bad) {
        r.status = "wrong";
        r.reason = std::to_string(bad) + " of " + std::to_string(d.count) + " values of '" + d.name +
                   "' differ from the interpreter, first at [" + std::to_string(first_bad) + "]: got " +
                   json_number(got_first) + " expected " + json_number(want_first);
        return;
      }
    }
  }

  // The per-element allowance of output `d` (allowance/NAME.bin: one finite f32 >= 0 per
  // element), empty when it has none.
  std::vector<float> read_allowance(const BufferDesc& d) {
    std::vector<float> allowance;
    if (!d.allowance) return allowance;
    allowance.resize(d.count);
    std::string shown = "allowance/" + d.name + ".bin";
    read_exact_file(b_.dir + "/" + shown, reinterpret_cast<char*>(allowance.data()), 4 * d.count, shown);
    for (std::size_t e = 0; e < d.count; ++e)
      if (!(std::isfinite(allowance[e]) && allowance[e] >= 0))
        throw Failure{"runner", shown + ": element [" + std::to_string(e) + "] is " +
                                    (std::isnan(allowance[e]) ? std::string("nan")
                                     : std::isinf(allowance[e]) ? std::string(allowance[e] > 0 ? "inf" : "-inf")
                                                                 : json_number(allowance[e])) +
                                    ", not a finite number >= 0"};
    return allowance;
  }

  void check_canaries(Result& r) {
    for (std::size_t i = 0; i < b_.buffers.size(); ++i) {
      const Guarded& g = buffers_[i];
      std::vector<std::uint32_t> whole = read_whole(i);
      const char* bytes = reinterpret_cast<const char*>(whole.data());
      guard::Damage before = guard::damage(bytes, g.before), after = guard::damage(bytes + g.before + g.bytes, g.after);
      if (before.changed_bytes || after.changed_bytes) {
        r.status = "canary";
        r.reason = "out-of-bounds write " + std::string(before.changed_bytes ? "before" : "after") + " buffer '" +
                   b_.buffers[i].name + "' (" + std::to_string(before.changed_bytes + after.changed_bytes) +
                   " canary bytes changed)";
        return;
      }
    }
  }

  const Bundle& b_;
  Cutoff cutoff_;  // the bundle's cut-off, lowered as the explorer validates faster points
  Session& session_;
  bool stopped_ = false;  // a run was given up on: its kernels still run
  cl_device_id device_;
  cl_context context_;
  cl_command_queue queue_;
  Phases& phases_;
  cl_program program_ = nullptr;
  std::vector<cl_kernel> kernels_;
  std::vector<Guarded> buffers_;
  std::size_t workspace_bytes_ = 0;  // what the library calls allocate themselves
};

std::string device_json(cl_device_id d) {
  std::size_t sizes[3] = {0, 0, 0};
  clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof sizes, sizes, nullptr);
  std::ostringstream s;
  s << "{\"name\":" << json_string(device_string(d, CL_DEVICE_NAME))
    << ",\"vendor\":" << json_string(device_string(d, CL_DEVICE_VENDOR))
    << ",\"version\":" << json_string(device_string(d, CL_DEVICE_VERSION))
    << ",\"driver\":" << json_string(device_string(d, CL_DRIVER_VERSION))
    << ",\"compute_units\":" << device_value<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS)
    << ",\"max_work_group_size\":" << device_value<std::size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE)
    << ",\"max_work_item_sizes\":[" << sizes[0] << "," << sizes[1] << "," << sizes[2] << "]"
    << ",\"local_mem_bytes\":" << device_value<cl_ulong>(d, CL_DEVICE_LOCAL_MEM_SIZE)
    << ",\"local_mem_global\":" << (device_value<cl_device_local_mem_type>(d, CL_DEVICE_LOCAL_MEM_TYPE) == CL_GLOBAL ? "true" : "false")
    << ",\"global_mem_bytes\":" << device_value<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE)
    << ",\"max_alloc_bytes\":" << device_value<cl_ulong>(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE)
    << ",\"preferred_vector_width\":" << device_value<cl_uint>(d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT) << "}";
  return s.str();
}

// Opens the device `selector` names in `session`, or keeps what is open when the session
// serves it already (returns true then). Sets `device` as soon as a device is picked.
bool open_session(Session& session, const std::string& selector, Phases& phases, std::string& device) {
  if (session.serves(selector)) {
    device = session.device_json;
    phases.end("platform");
    phases.end("context");
    return true;
  }
  session.close();
  session.device = pick_device(selector);
  session.device_json = device = device_json(session.device);
  phases.end("platform");
  cl_int err = CL_SUCCESS;
  session.context = clCreateContext(nullptr, 1, &session.device, nullptr, nullptr, &err);
  if (err != CL_SUCCESS) {
    session.close();
    throw Failure{"run", cl_failure("clCreateContext", err)};
  }
  session.queue = clCreateCommandQueue(session.context, session.device, CL_QUEUE_PROFILING_ENABLE, &err);
  if (err != CL_SUCCESS) {
    session.close();
    throw Failure{"run", cl_failure("clCreateCommandQueue", err)};
  }
  session.selector = selector;
  phases.end("context");
  return false;
}

// One bundle's answer line (a bundle that fails is answered too: see run_bundle).
struct Answer {
  std::string line;  // the JSON object and a newline
  int code = 0;      // the exit code of a one-shot runner: 1 for status "runner"
  bool exit_now = false;  // kernels still run (Result::stopped): exit after the answer, without cleaning up
};

// Runs the bundle in `dir` on `session` (opened or kept); `serve` adds the fields of
// --serve mode (pid, reused_context) to the answer.
Answer run_bundle(const std::string& dir, Session& session, bool serve) {
  std::string device;
  Result r;
  Answer answer;
  Phases phases;
  double started = phases.mark;
  bool reused = false, probe = false;
  auto fail = [&](const Failure& f) {
    r.status = f.status;
    r.reason = f.reason;
    answer.code = f.status == "runner" ? 1 : 0;
  };
  try {
    Bundle b = read_bundle(dir);
    phases.end("read_bundle");
    probe = b.kernels.empty();
    reused = open_session(session, b.device, phases, device);
    Runner runner(b, session, phases);
    r = runner.run();
  } catch (const Failure& f) {
    fail(f);
  } catch (const std::bad_alloc&) {
    // The device accepted the sizes but this machine cannot hold the host copies.
    fail({"run", "the runner ran out of host memory for this bundle's buffers"});
  } catch (const std::exception& e) {
    fail({"runner", std::string("the runner failed: ") + e.what()});
  }
  // An OpenCL call failed: the context may be unusable (a kernel fault on a GPU), so the
  // next bundle opens a fresh one.
  if (r.status == "run") session.close();
  std::vector<double> sorted = r.samples;
  std::sort(sorted.begin(), sorted.end());
  std::ostringstream out;
  const double none = std::nan("");  // printed as null: no samples, no median
  out << "{\"protocol\":1,\"machine\":" << machine_json() << ",\"status\":" << json_string(r.status)
      << ",\"reason\":" << json_string(r.reason);
  if (probe) out << ",\"probe\":true";
  out << ",\"device\":" << (device.empty() ? "null" : device) << ",\"samples_ms\":" << json_numbers(r.samples)
      << ",\"median_ms\":" << json_number(sorted.empty() ? none : median(r.samples))
      << ",\"min_ms\":" << json_number(sorted.empty() ? none : sorted.front())
      << ",\"max_ms\":" << json_number(sorted.empty() ? none : sorted.back())
      << ",\"kernel_median_ms\":" << json_numbers(r.kernel_ms) << ",\"cut\":" << (r.cut ? "true" : "false")
      << (r.stopped ? ",\"stopped\":true" : "")
      << ",\"workspace_bytes\":" << r.workspace_bytes << ",\"mismatches\":" << r.mismatches << ",\"max_abs_error\":" << json_number(r.max_abs_error);
  out << ",\"started_ms\":" << json_number(started) << ",\"phases_ms\":{";
  for (std::size_t i = 0; i < phases.ms.size(); ++i)
    out << (i ? "," : "") << json_string(phases.ms[i].first) << ":" << json_number(phases.ms[i].second);
  out << "},\"lock_wait_ms\":" << json_number(phases.lock_wait_ms) << ",\"locked_ms\":[";
  for (std::size_t i = 0; i < phases.locked.size(); ++i)
    out << (i ? "," : "") << "[" << json_number(phases.locked[i].first) << "," << json_number(phases.locked[i].second) << "]";
  out << "]";
  if (serve) out << ",\"pid\":" << getpid() << ",\"reused_context\":" << (reused ? "true" : "false");
  out << "}\n";
  answer.line = out.str();
  answer.exit_now = r.stopped;
  return answer;
}

// Ends the process after an answer whose kernels still run: no OpenCL object is released
// and no destructor runs (releasing a buffer or the context would wait for the kernels);
// the process's end stops them and releases the device lock.
[[noreturn]] void exit_after_answer(int code) {
  std::fflush(stdout);
  _exit(code);
}

// --serve: a bundle folder per line of stdin, an answer line per bundle on stdout; the
// session stays open between bundles. Ends with 0 at the end of stdin.
int serve() {
  Session session;
  for (std::string dir; std::getline(std::cin, dir);) {
    if (!dir.empty() && dir.back() == '\r') dir.pop_back();
    if (dir.empty()) continue;
    try {
      Answer answer = run_bundle(dir, session, true);
      std::fputs(answer.line.c_str(), stdout);
      if (answer.exit_now) exit_after_answer(0);
    } catch (...) {
      // run_bundle answers every failure of the bundle itself; this is what is left (no
      // memory even for the answer): a fixed line, a fresh session, and the next bundle.
      session.close();
      std::printf("{\"protocol\":1,\"machine\":%s,\"status\":\"runner\",\"reason\":\"the runner could not answer "
                  "this bundle\",\"device\":null,\"samples_ms\":[],\"pid\":%d,\"reused_context\":false}\n",
                  machine_json().c_str(), static_cast<int>(getpid()));
    }
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  machine_json();
  if (argc == 2 && std::string(argv[1]) == "--serve") return serve();
  if (argc != 2 || std::string(argv[1]) == "--help") {
    std::fprintf(stderr,
                 "usage: liftc-runner BUNDLE_DIR\n(runs one liftc candidate bundle; prints its result as JSON)\n"
                 "       liftc-runner --serve\n(runs the bundle folder of every line of stdin; prints a JSON line each)\n");
    return 2;
  }
  Session session;
  Answer answer;
  try {
    answer = run_bundle(argv[1], session, false);
  } catch (...) {  // as in serve(): no memory even for the answer
    std::printf("{\"protocol\":1,\"machine\":%s,\"status\":\"runner\",\"reason\":\"the runner could not answer "
                "this bundle\",\"device\":null,\"samples_ms\":[]}\n",
                machine_json().c_str());
    std::fflush(stdout);
    return 1;
  }
  std::fputs(answer.line.c_str(), stdout);
  if (answer.exit_now) exit_after_answer(answer.code);
  std::fflush(stdout);
  return answer.code;
}
