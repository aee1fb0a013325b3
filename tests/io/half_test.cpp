// Half conversion (liftc/support/half.hpp): every half round-trips, known floats round to
// nearest even, and a sweep of floats lands on the nearest half.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "liftc/support/half.hpp"

namespace {

using liftc::half::from_float;
using liftc::half::to_float;

float from_bits(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

bool is_nan_half(std::uint16_t h) { return (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0; }

TEST(Half, EveryHalfRoundTripsThroughFloat) {
  for (std::uint32_t h = 0; h <= 0xFFFFu; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    const float f = to_float(bits);
    if (is_nan_half(bits)) {
      EXPECT_TRUE(std::isnan(f)) << std::hex << h;
      EXPECT_TRUE(is_nan_half(from_float(f))) << std::hex << h;
      EXPECT_EQ(from_float(f), bits | 0x200u) << std::hex << h;  // quiet, the payload kept
      continue;
    }
    EXPECT_EQ(from_float(f), bits) << std::hex << h << " = " << f;
  }
}

TEST(Half, ToFloatGivesTheValueOfEachKind) {
  struct Case { std::uint16_t h; float want; };
  const Case cases[] = {
      {0x0000, 0.0f},          {0x3C00, 1.0f},         {0xC000, -2.0f},        {0x7BFF, 65504.0f},
      {0x0001, 0x1p-24f},      {0x03FF, 0x3FFp-24f},   {0x0400, 0x1p-14f},     {0x3555, 0x1.554p-2f},
      {0x7C00, std::numeric_limits<float>::infinity()}, {0xFC00, -std::numeric_limits<float>::infinity()},
  };
  for (const Case& c : cases) EXPECT_EQ(to_float(c.h), c.want) << std::hex << c.h;
  EXPECT_TRUE(std::signbit(to_float(0x8000)));
}

TEST(Half, FromFloatRoundsToNearestEven) {
  struct Case { float f; std::uint16_t want; const char* what; };
  const Case cases[] = {
      {1.0f, 0x3C00, "one"},
      {-2.0f, 0xC000, "minus two"},
      {0.1f, 0x2E66, "0.1 rounds down"},
      {1.0f / 3.0f, 0x3555, "a third"},
      {1.0f + 0x1p-11f, 0x3C00, "a tie rounds to the even 1.0"},
      {1.0f + 3 * 0x1p-11f, 0x3C02, "a tie rounds to the even 1+2^-9"},
      {1.0f + 0x1p-11f + 0x1p-20f, 0x3C01, "just above a tie rounds up"},
      {65504.0f, 0x7BFF, "the largest half"},
      {65519.0f, 0x7BFF, "below the tie with infinity"},
      {65520.0f, 0x7C00, "the tie past the largest half overflows to inf"},
      {1e6f, 0x7C00, "overflow to inf"},
      {-1e6f, 0xFC00, "overflow to -inf"},
      {std::numeric_limits<float>::infinity(), 0x7C00, "inf"},
      {-std::numeric_limits<float>::infinity(), 0xFC00, "-inf"},
      {0x1p-14f, 0x0400, "the smallest normal"},
      {0x1p-14f - 0x1p-25f, 0x0400, "a subnormal's tie rounding up into the normals (0x3FF is odd)"},
      {0x1p-24f, 0x0001, "the smallest subnormal"},
      {0x1p-25f, 0x0000, "half the smallest subnormal: a tie to the even zero"},
      {0x1.8p-25f, 0x0001, "three quarters of the smallest subnormal"},
      {3 * 0x1p-25f, 0x0002, "a subnormal tie to the even 2"},
      {5 * 0x1p-25f, 0x0002, "a subnormal tie to the even 2, from above"},
      {0x3FFp-24f, 0x03FF, "the largest subnormal"},
      {1e-10f, 0x0000, "underflow to zero"},
      {-1e-10f, 0x8000, "underflow to minus zero"},
      {from_bits(0x00000001u), 0x0000, "a float subnormal"},
      {-0.0f, 0x8000, "minus zero"},
  };
  for (const Case& c : cases) EXPECT_EQ(from_float(c.f), c.want) << c.what << " (" << c.f << ")";
  EXPECT_TRUE(is_nan_half(from_float(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(is_nan_half(from_float(from_bits(0x7F800001u)))) << "a signalling NaN with a low payload";
  EXPECT_TRUE(is_nan_half(from_float(-std::numeric_limits<float>::quiet_NaN())));
}

// Every 64th float bit pattern (2^26 floats, all exponents and signs): the half chosen is
// at least as near as both of its neighbours, and of two equally near ones the even one.
TEST(Half, FromFloatChoosesTheNearestHalfOverASweepOfFloats) {
  for (std::uint64_t b = 0; b <= 0xFFFFFFFFull; b += 64) {
    const float f = from_bits(static_cast<std::uint32_t>(b));
    if (std::isnan(f)) continue;
    const std::uint16_t h = from_float(f);
    const double got = to_float(h);
    if (std::isinf(got)) {
      ASSERT_GE(std::fabs(static_cast<double>(f)), 65520.0) << f;
      continue;
    }
    const double err = std::fabs(got - f);
    for (int step : {-1, 1}) {
      const std::uint16_t mag = h & 0x7FFFu;
      if (mag == 0 && step < 0) continue;   // the other side of zero is the other sign
      if (mag == 0x7BFF && step > 0) continue;
      const std::uint16_t other = static_cast<std::uint16_t>((h & 0x8000u) | (mag + step));
      const double other_err = std::fabs(static_cast<double>(to_float(other)) - f);
      ASSERT_LE(err, other_err) << "float " << f << " gave " << std::hex << h;
      if (err == other_err) {
        ASSERT_EQ(h & 1u, 0u) << "a tie went to the odd half for " << f;
      }
    }
  }
}

}  // namespace
