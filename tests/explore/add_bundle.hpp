#pragma once
// A small bundle for runner tests: out = a + b over 64 floats, the kernel body given by
// the test (so it can compute wrong values, skip elements, write out of bounds, hang or crash).

#include <string>
#include <vector>

#include "liftc/interp/interp.hpp"
#include "liftc/runtime/plan.hpp"

namespace liftc::explore::test {

inline constexpr std::size_t kN = 64;

// out = a + b, written by `body` (the line inside the kernel, `i` the work-item).
inline std::string add_kernel(const std::string& body) {
  return "__kernel void add(__global const float* a, __global const float* b, __global float* out, int n) {\n"
         "  int i = get_global_id(0);\n  " + body + "\n}\n";
}

inline runtime::LaunchPlan add_plan() {
  runtime::LaunchPlan plan;
  std::vector<float> a(kN), b(kN);
  for (std::size_t i = 0; i < kN; ++i) a[i] = float(i), b[i] = 0.5f * float(i);
  plan.buffers.push_back(runtime::BufferSpec::input("a", a));
  plan.buffers.push_back(runtime::BufferSpec::input("b", b));
  plan.buffers.push_back(runtime::BufferSpec::output("out", kN));
  runtime::KernelLaunch k;
  k.kernel = "add";
  k.global = runtime::NDRange(kN);
  k.args = {runtime::arg_buffer(0), runtime::arg_buffer(1), runtime::arg_buffer(2), runtime::arg_int(int(kN))};
  plan.kernels.push_back(k);
  return plan;
}

inline interp::Tensors expected_sum() {
  interp::Tensors t;
  t["out"].shape = {std::int64_t(kN)};
  for (std::size_t i = 0; i < kN; ++i) t["out"].f32.push_back(1.5f * float(i));
  return t;
}

// What a runner answers for a kernel body: a table the one-shot and the serving runner share.
struct ProtocolCase {
  const char* what;
  const char* body;
  const char* status;
  const char* reason;  // part of the reason ("" when ok)
};

inline constexpr ProtocolCase kProtocolCases[] = {
    {"right values", "if (i < n) out[i] = a[i] + b[i];", "ok", ""},
    {"wrong values", "if (i < n) out[i] = a[i] - b[i];", "wrong", "differ from the interpreter, first at [1]"},
    {"half unwritten", "if (i < n / 2) out[i] = a[i] + b[i];", "unwritten", "32 of 64 elements of output 'out'"},
    {"out of bounds", "if (i < n) out[i] = a[i] + b[i]; if (i == 0) out[n + 2] = 1.0f;", "canary",
     "out-of-bounds write after buffer 'out'"},
    {"does not compile", "out[i] = undefined_thing;", "build", "clBuildProgram"},
};

// Kernel bodies that do not answer: the watchdog's business.
inline constexpr const char* kHangingBody = "volatile int spin = 1; while (spin) { } out[i] = 0.0f;";
inline constexpr const char* kCrashingBody = "*((__global volatile int*)16) = 1; out[i] = 0.0f;";

}  // namespace liftc::explore::test
