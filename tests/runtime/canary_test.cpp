// Out-of-bounds writes are caught by the canaries around every buffer and reported in the
// result, not as a crash or an exception.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "liftc/runtime/guard.hpp"
#include "liftc/runtime/run.hpp"
#include "test_session.hpp"

namespace liftc::runtime {
namespace {

using testing::session;

// Writes out[i + shift] for i in [0, n): shift > 0 overruns the end, shift < 0 the start.
constexpr const char* kShifted = R"(
kernel void shifted(global float* out, int shift) { out[(int)get_global_id(0) + shift] = 42.0f; }
)";

RunResult run_shifted(std::size_t n, int shift, std::size_t canary_bytes = 256) {
  LaunchPlan plan;
  plan.buffers = {BufferSpec::output("out", n)};
  plan.kernels = {{"shifted", NDRange(n), NDRange(), {arg_buffer(0), arg_int(shift)}}};
  return run_source(session(), kShifted, "", plan, {.warmup_runs = 0, .timed_runs = 1, .canary_bytes = canary_bytes});
}

TEST(Canary, InBoundsWritesLeaveCanariesIntact) {
  const RunResult r = run_shifted(64, 0);
  EXPECT_TRUE(r.ok()) << r.failure();
  EXPECT_EQ(r.failure(), "");
  for (float v : r.floats(0)) EXPECT_EQ(v, 42.0f);
}

TEST(Canary, WritePastTheEndIsReported) {
  const RunResult r = run_shifted(64, 3);
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.canary_violations.size(), 1u);
  const CanaryViolation& v = r.canary_violations[0];
  EXPECT_EQ(v.buffer, 0u);
  EXPECT_EQ(v.name, "out");
  EXPECT_EQ(v.side, CanarySide::After);
  EXPECT_EQ(v.first_offset, 0u);
  EXPECT_EQ(v.changed_bytes, 3 * sizeof(float));
  EXPECT_NE(r.failure().find("out-of-bounds write after buffer 0 'out'"), std::string::npos) << r.failure();
}

TEST(Canary, WriteBeforeTheStartIsReported) {
  const RunResult r = run_shifted(64, -2);
  ASSERT_EQ(r.canary_violations.size(), 1u) << r.failure();
  EXPECT_EQ(r.canary_violations[0].side, CanarySide::Before);
  EXPECT_EQ(r.canary_violations[0].changed_bytes, 2 * sizeof(float));
  EXPECT_NE(r.failure().find("out-of-bounds write before buffer 0 'out'"), std::string::npos) << r.failure();
}

TEST(Canary, DisabledCanariesReportNothing) {
  // With no guard space the kernel receives the bare buffer; a small in-bounds run is clean.
  const RunResult r = run_shifted(64, 0, 0);
  EXPECT_TRUE(r.ok());
}

// The layout and checks the runtime and liftc-runner share (liftc/runtime/guard.hpp): the
// leading canary rounded up to the device's alignment (taken as 1 to 1 MiB), none without
// a canary; the bytes changed and the first of them; the poisoned elements and the first.
TEST(Guard, TheSharedLayoutRoundsTheLeadingCanaryToTheAlignment) {
  struct Case {
    std::size_t bytes, canary, align, before, after;
  };
  const Case cases[] = {{64, 256, 128, 256, 256},   {64, 256, 4096, 4096, 256},           {64, 0, 4096, 0, 0},
                        {64, 8, 0, 8, 8},           {64, 256, std::size_t(1) << 30, std::size_t(1) << 20, 256},
                        {4, 100, 64, 128, 100}};
  for (const Case& c : cases) {
    guard::Layout l = guard::layout(c.bytes, c.canary, c.align);
    EXPECT_EQ(l.before, c.before) << c.canary << " " << c.align;
    EXPECT_EQ(l.after, c.after) << c.canary << " " << c.align;
    EXPECT_EQ(l.total(), c.before + c.bytes + c.after);
  }
}

TEST(Guard, TheSharedChecksCountWhatChangedAndNameTheFirst) {
  guard::Layout l = guard::layout(16, 8, 4);
  std::vector<std::uint32_t> whole(l.total() / 4);
  guard::fill_canaries(whole.data(), l);
  guard::fill(whole.data() + 2, 16, guard::kPoison);
  EXPECT_EQ(whole[0], kCanaryPattern);
  EXPECT_EQ(whole[2], kPoisonPattern);
  EXPECT_EQ(guard::damage(whole.data(), 8).changed_bytes, 0u);
  reinterpret_cast<unsigned char*>(whole.data())[6] ^= 1;
  guard::Damage d = guard::damage(whole.data(), 8);
  EXPECT_EQ(d.changed_bytes, 1u);
  EXPECT_EQ(d.first_offset, 6u);
  whole[3] = 0, whole[5] = 0;
  guard::Unwritten u = guard::unwritten(whole.data() + 2, 4);
  EXPECT_EQ(u.count, 2u);
  EXPECT_EQ(u.first, 0u);
}

}  // namespace
}  // namespace liftc::runtime
