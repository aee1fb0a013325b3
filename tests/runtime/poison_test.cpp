// Every output and scratch buffer starts as poison (kPoisonPattern, a NaN), and the first run
// is the one read back: a kernel that reads data before it is written, or leaves outputs
// unwritten, cannot pass because an earlier run left the right values behind.

#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

#include "liftc/runtime/run.hpp"
#include "test_session.hpp"

namespace liftc::runtime {
namespace {

using testing::session;

// Writes only the even elements.
constexpr const char* kEvenOnly = R"(
kernel void even_only(global float* out) { int i = (int)get_global_id(0); if (i % 2 == 0) out[i] = 1.0f; }
)";

// Reads tmp before writing it: right only when an earlier run filled tmp.
constexpr const char* kStale = R"(
kernel void stale(global const float* in, global float* out, global float* tmp) {
  int i = (int)get_global_id(0);
  out[i] = tmp[i];
  tmp[i] = in[i];
}
)";

TEST(Poison, OutputElementsNeverWrittenAreReported) {
  LaunchPlan plan;
  plan.buffers = {BufferSpec::output("out", 16)};
  plan.kernels = {{"even_only", NDRange(16), NDRange(), {arg_buffer(0)}}};
  const RunResult r = run_source(session(), kEvenOnly, "", plan, {.warmup_runs = 0, .timed_runs = 1});
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.unwritten.size(), 1u);
  EXPECT_EQ(r.unwritten[0].count, 8u);
  EXPECT_EQ(r.unwritten[0].total, 16u);
  EXPECT_EQ(r.unwritten[0].first_index, 1u);
  EXPECT_NE(r.failure().find("8 of 16 elements of output 0 'out' were never written"), std::string::npos) << r.failure();
}

TEST(Poison, StaleScratchIsSeenEvenAfterWarmUpRuns) {
  LaunchPlan plan;
  plan.buffers = {BufferSpec::input("in", std::vector<float>(32, 5.0f)), BufferSpec::output("out", 32),
                  BufferSpec::scratch("tmp", 32)};
  plan.kernels = {{"stale", NDRange(32), NDRange(), {arg_buffer(0), arg_buffer(1), arg_buffer(2)}}};
  const RunResult r = run_source(session(), kStale, "", plan, {.warmup_runs = 3, .timed_runs = 2});
  // The outputs are the first run's: the poison read from tmp, not the 5.0 later runs give.
  for (float v : r.floats(1)) EXPECT_TRUE(std::isnan(v)) << v;
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.samples_ms.size(), 2u);
}

TEST(Poison, ThePoisonIsANanNoArithmeticProduces) {
  float f;
  std::memcpy(&f, &kPoisonPattern, sizeof f);
  EXPECT_TRUE(std::isnan(f));
  EXPECT_NE(kPoisonPattern, 0x7FC00000u);  // the canonical quiet NaN arithmetic gives
  EXPECT_NE(kPoisonPattern, kCanaryPattern);
}

}  // namespace
}  // namespace liftc::runtime
