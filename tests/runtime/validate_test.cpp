// The tolerance checker: one line a case.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "liftc/runtime/validate.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::runtime {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(Validate, ElementTable) {
  struct Case {
    float actual, expected;
    bool match;
  };
  // Default tolerance: |a - b| <= 1e-4 + 1e-3 * |b|.
  const Case cases[] = {
      {1.0f, 1.0f, true},
      {1.0009f, 1.0f, true},       // 9e-4 <= 1.1e-3
      {1.002f, 1.0f, false},       // 2e-3 > 1.1e-3
      {1000.9f, 1000.0f, true},    // relative part dominates
      {1002.0f, 1000.0f, false},
      {5e-5f, 0.0f, true},         // absolute part near zero
      {2e-4f, 0.0f, false},
      {-1.0f, 1.0f, false},
      {kNaN, kNaN, true},          // NaN expected and produced
      {kNaN, 1.0f, false},         // NaN where a number is expected
      {1.0f, kNaN, false},         // a number where NaN is expected
      {kInf, kInf, true},
      {-kInf, kInf, false},
      {1e30f, kInf, false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(compare({c.actual}, {c.expected}).ok, c.match) << c.actual << " vs " << c.expected;
  }
}

TEST(Validate, StatisticsAndFirstMismatch) {
  const std::vector<float> expected = {1.0f, 2.0f, 3.0f, 4.0f, 0.0f};
  const std::vector<float> actual = {1.0f, 2.5f, 3.0f, 4.0004f, kNaN};
  const Comparison c = compare(actual, expected);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.mismatches, 2u);  // [1] and the NaN at [4]; [3] is within tolerance
  ASSERT_TRUE(c.first_mismatch.has_value());
  EXPECT_EQ(*c.first_mismatch, 1u);
  EXPECT_EQ(c.first_actual, 2.5f);
  EXPECT_EQ(c.first_expected, 2.0f);
  EXPECT_NEAR(c.max_abs_error, 0.5, 1e-6);
  EXPECT_NEAR(c.max_rel_error, 0.25, 1e-6);
  EXPECT_NE(c.str().find("2 of 5 values differ, first at [1]: got 2.5 expected 2"), std::string::npos) << c.str();
}

// Issue 36 item 2: a per-element allowance (a Winograd program's rounding) adds to element
// i's tolerance alone: 100 off is allowed where the allowance is 387, not beside it.
TEST(Validate, AnAllowanceIsPerElement) {
  const std::vector<float> expected = {1e6f, 1.0f, 2.0f};
  const std::vector<float> allowance = {387.0f, 1e-4f, 0.0f};
  const Tolerance tight{1e-6, 1e-4};  // 1 at 1e6: 100 off is past the tolerance alone
  EXPECT_TRUE(compare({1e6f + 100.0f, 1.0f, 2.0f}, expected, tight, allowance).ok);
  const Comparison c = compare({1e6f + 100.0f, 101.0f, 102.0f}, expected, tight, allowance);
  EXPECT_EQ(c.mismatches, 2u);
  ASSERT_TRUE(c.first_mismatch.has_value());
  EXPECT_EQ(*c.first_mismatch, 1u);
  EXPECT_FALSE(compare({1e6f + 100.0f, 1.0f, 2.0f}, expected, tight).ok);  // without it, the tolerance alone
  try {
    compare({1.0f}, {1.0f}, tight, allowance);
    ADD_FAILURE() << "an allowance of 3 values for 1 was taken";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "the validation's allowance has 3 values for 1 expected ones");
  }
}

TEST(Validate, SizeMismatchIsAFailure) {
  const Comparison c = compare({1.0f, 2.0f}, {1.0f, 2.0f, 3.0f});
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.mismatches, 0u);
  EXPECT_NE(c.str().find("size mismatch: got 2 values, expected 3"), std::string::npos) << c.str();
}

TEST(Validate, AgreementReportsOk) {
  const Comparison c = compare({1.0f, -2.0f}, {1.0f, -2.0f});
  EXPECT_TRUE(c.ok);
  EXPECT_FALSE(c.first_mismatch.has_value());
  EXPECT_NE(c.str().find("ok: 2 values"), std::string::npos) << c.str();
}

TEST(Validate, ReductionToleranceGrowsWithLength) {
  const Tolerance t1 = Tolerance::for_reduction(1);
  const Tolerance t576 = Tolerance::for_reduction(576);  // a 3x3x64 convolution window
  EXPECT_DOUBLE_EQ(t1.rtol, 1e-4);
  EXPECT_DOUBLE_EQ(t576.rtol, 24e-4);
  EXPECT_DOUBLE_EQ(t576.atol, 24e-5);
  EXPECT_TRUE(compare({1.002f}, {1.0f}, t576).ok);
  EXPECT_FALSE(compare({1.002f}, {1.0f}, t1).ok);
  EXPECT_DOUBLE_EQ(Tolerance::for_reduction(0).rtol, 1e-4);
}

}  // namespace
}  // namespace liftc::runtime
