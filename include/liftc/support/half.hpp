#pragma once
// IEEE 754 binary16 ("half") storage: conversion between float and the 16 bits of a half,
// rounding to nearest, ties to even, as OpenCL's vstore_half does by default (`_rte`)
// and as vload_half reads (exactly). Standard C++17 only, header-only: the interpreter,
// the runtime and liftc-runner (which builds on its own, for a phone) include it, and
// the generated host program carries the same two functions (src/emit/templates).
//
// Half storage keeps arithmetic in float: a half buffer holds values rounded once, where
// they are stored (an input when it is uploaded, a definition's value when it is
// written), and is read back exactly.

#include <cstdint>
#include <cstring>

namespace liftc::half {

/// The float a half's 16 bits stand for (exact: every half is a float).
inline float to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1Fu;
  std::uint32_t mantissa = h & 0x3FFu;
  std::uint32_t bits;
  if (exponent == 0x1Fu) {
    bits = sign | 0x7F800000u | (mantissa << 13);  // inf, or NaN with its payload kept
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);  // rebias 15 -> 127
  } else if (mantissa == 0) {
    bits = sign;  // a signed zero
  } else {
    // A subnormal half: mantissa * 2^-24, normalised for float.
    int e = 113;  // the exponent field of 2^-14 in float, before shifting the mantissa up
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --e;
    }
    bits = sign | (static_cast<std::uint32_t>(e) << 23) | ((mantissa & 0x3FFu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// The half nearest to `f` (ties to even): beyond the largest half (65504) rounds to
/// infinity, below the smallest subnormal (2^-24) to a signed zero; a NaN stays a quiet NaN
/// with the top of its payload.
inline std::uint16_t from_float(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t exponent = (bits >> 23) & 0xFFu;
  const std::uint32_t mantissa = bits & 0x7FFFFFu;
  if (exponent == 0xFFu) {
    if (mantissa == 0) return sign | 0x7C00u;                                   // inf
    return static_cast<std::uint16_t>(sign | 0x7E00u | (mantissa >> 13));       // quiet NaN
  }
  const int e = static_cast<int>(exponent) - 127 + 15;  // the half's biased exponent
  if (e >= 0x1F) return sign | 0x7C00u;                 // too large: inf
  // The value's significand with its implicit bit (24 bits), and how many low bits the
  // half drops: 13 for a normal half, more for a subnormal one.
  std::uint32_t significand = mantissa | (exponent != 0 ? 0x800000u : 0);
  int shift = 13;
  if (e <= 0) {
    shift = 14 - e;               // a subnormal half's unit is 2^-24
    if (shift > 24) return sign;  // below half the smallest subnormal (float subnormals too): zero
  }
  const std::uint32_t kept = significand >> shift;
  const std::uint32_t rest = significand & ((1u << shift) - 1);
  const std::uint32_t halfway = 1u << (shift - 1);
  std::uint32_t rounded = kept + ((rest > halfway || (rest == halfway && (kept & 1u))) ? 1u : 0u);
  if (e <= 0) return static_cast<std::uint16_t>(sign | rounded);  // a carry into 0x400 makes the smallest normal
  // Normal: `rounded` holds the implicit bit at 0x400; a carry to 0x800 moves to the next
  // exponent (and past the largest finite, to inf, as the sum below gives: 0x7C00).
  return static_cast<std::uint16_t>(sign | ((static_cast<std::uint32_t>(e) << 10) + (rounded - 0x400u)));
}

/// `f` rounded to the nearest half, as a float: what a half buffer holds after storing `f`.
inline float round(float f) { return to_float(from_float(f)); }

}  // namespace liftc::half
