// Running launch plans: correctness of outputs and the timing protocol.

#include <gtest/gtest.h>

#include <algorithm>

#include "liftc/runtime/run.hpp"
#include "liftc/runtime/validate.hpp"
#include "test_session.hpp"

namespace liftc::runtime {
namespace {

using testing::session;

constexpr const char* kVectorAdd = R"(
kernel void vadd(global const float* a, global const float* b, global float* c, int n) {
  int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
)";

std::vector<float> ramp(std::size_t n, float scale) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(i % 97) - 3.0f;
  return v;
}

TEST(Run, VectorAddOf1000Elements) {
  const std::size_t n = 1000;
  const std::vector<float> a = ramp(n, 0.5f), b = ramp(n, -0.25f);
  LaunchPlan plan;
  plan.buffers = {BufferSpec::input("a", a), BufferSpec::input("b", b), BufferSpec::output("c", n)};
  // global rounded up to a multiple of the local size; the kernel guards i < n.
  plan.kernels = {{"vadd", NDRange(1024), NDRange(64), {arg_buffer(0), arg_buffer(1), arg_buffer(2), arg_int(n)}}};
  const RunResult r = run_source(session(), kVectorAdd, "", plan, {.warmup_runs = 1, .timed_runs = 3});

  ASSERT_TRUE(r.ok()) << r.failure();
  std::vector<float> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = a[i] + b[i];
  const Comparison c = compare(r.floats(2), expected);
  EXPECT_TRUE(c.ok) << c.str();
  EXPECT_EQ(c.max_abs_error, 0.0);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(r.outputs[0]));  // inputs are not read back
  EXPECT_EQ(r.samples_ms.size(), 3u);
}

TEST(Run, DriverChosenLocalSizeAnd2DRange) {
  constexpr const char* src = R"(
kernel void fill(global int* out, int width) {
  out[get_global_id(1) * width + get_global_id(0)] = (int)(get_global_id(1) * 1000 + get_global_id(0));
}
)";
  const std::size_t w = 30, h = 7;
  LaunchPlan plan;
  plan.buffers = {BufferSpec::output("out", w * h, ElemType::Int32)};
  plan.kernels = {{"fill", NDRange(w, h), NDRange(), {arg_buffer(0), arg_int(w)}}};
  const RunResult r = run_source(session(), src, "", plan, {.warmup_runs = 0, .timed_runs = 1});
  ASSERT_TRUE(r.ok()) << r.failure();
  const std::vector<std::int32_t>& out = r.ints(0);
  for (std::size_t y = 0; y < h; ++y) {
    for (std::size_t x = 0; x < w; ++x) ASSERT_EQ(out[y * w + x], static_cast<int>(y * 1000 + x));
  }
  EXPECT_NE(testing::error_of([&] { r.floats(0); }).find("not read back as floats"), std::string::npos);
}

// Two kernels sharing an intermediate buffer and a local-memory reduction: checks the
// in-order chaining, local arguments, and that a sample is the sum of both kernel events.
TEST(Run, TwoKernelProgramTimesTheSumOfItsEvents) {
  constexpr const char* src = R"(
kernel void scale(global const float* in, global float* tmp, float factor) {
  int i = get_global_id(0);
  float x = in[i];
  for (int k = 0; k < 64; ++k) x = x * 0.5f + factor;   // some work so the event time is > 0
  tmp[i] = x;
}
kernel void block_sum(global const float* tmp, global float* out, local float* scratch) {
  int l = get_local_id(0);
  scratch[l] = tmp[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = get_local_size(0) / 2; s > 0; s /= 2) {
    if (l < s) scratch[l] += scratch[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) out[get_group_id(0)] = scratch[0];
}
)";
  const std::size_t n = 1 << 14, wg = 64;
  const std::vector<float> in = ramp(n, 0.01f);
  LaunchPlan plan;
  plan.buffers = {BufferSpec::input("in", in), BufferSpec::scratch("tmp", n), BufferSpec::output("out", n / wg)};
  plan.kernels = {{"scale", NDRange(n), NDRange(), {arg_buffer(0), arg_buffer(1), arg_float(1.0f)}},
                  {"block_sum", NDRange(n), NDRange(wg), {arg_buffer(1), arg_buffer(2), arg_local(wg * sizeof(float))}}};
  const Program program = build_program(session(), src, "-cl-std=CL1.2");
  EXPECT_EQ(program.kernel_names().size(), 2u);
  const RunResult r = run_program(session(), program, plan, {.warmup_runs = 2, .timed_runs = 7});
  ASSERT_TRUE(r.ok()) << r.failure();

  std::vector<float> expected(n / wg, 0.0f);
  for (std::size_t i = 0; i < n; ++i) {
    float x = in[i];
    for (int k = 0; k < 64; ++k) x = x * 0.5f + 1.0f;
    expected[i / wg] += x;
  }
  const Comparison c = compare(r.floats(2), expected, Tolerance::for_reduction(wg));
  EXPECT_TRUE(c.ok) << c.str();

  ASSERT_EQ(r.samples_ms.size(), 7u);
  ASSERT_EQ(r.kernel_median_ms.size(), 2u);
  for (double t : r.samples_ms) EXPECT_GT(t, 0.0);
  EXPECT_GT(r.kernel_median_ms[0], 0.0);
  EXPECT_GT(r.kernel_median_ms[1], 0.0);
  EXPECT_EQ(r.min_ms, *std::min_element(r.samples_ms.begin(), r.samples_ms.end()));
  EXPECT_LE(r.min_ms, r.median_ms);
  EXPECT_LE(r.median_ms, *std::max_element(r.samples_ms.begin(), r.samples_ms.end()));
  // Each sample is exactly the sum of both kernels' event times in that run.
  ASSERT_EQ(r.kernel_samples_ms.size(), 2u);
  for (std::size_t run = 0; run < r.samples_ms.size(); ++run) {
    EXPECT_DOUBLE_EQ(r.samples_ms[run], r.kernel_samples_ms[0][run] + r.kernel_samples_ms[1][run]);
    EXPECT_GT(r.kernel_samples_ms[0][run], 0.0);
    EXPECT_GT(r.kernel_samples_ms[1][run], 0.0);
  }
}

TEST(Run, InputsAreUploadedOnceAndOutputsReadAfterTheFirstRun) {
  // Each run increments the buffer in place: read back after the first run it holds 1, and
  // the first run counts as one of the warm-up runs.
  constexpr const char* src = "kernel void inc(global int* x) { x[get_global_id(0)] += 1; }";
  LaunchPlan plan;
  BufferSpec counter = BufferSpec::input("x", std::vector<std::int32_t>(16, 0));
  counter.read_back = true;
  plan.buffers = {counter};
  plan.kernels = {{"inc", NDRange(16), NDRange(4), {arg_buffer(0)}}};
  const RunResult r = run_source(session(), src, "", plan, {.warmup_runs = 2, .timed_runs = 3});
  ASSERT_TRUE(r.ok()) << r.failure();
  for (std::int32_t v : r.ints(0)) EXPECT_EQ(v, 1);
  EXPECT_EQ(r.samples_ms.size(), 3u);
}

}  // namespace
}  // namespace liftc::runtime
