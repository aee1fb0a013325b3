#pragma once
// Comparing a device result against the reference interpreter's values.
//
// Element i matches when |a - b| <= atol + rtol * |b| (a = actual, b = expected), the
// numpy.isclose rule, plus a per-element allowance where one is given (a Winograd
// program's rounding, which grows with that element's own magnitude). NaN matches only NaN (a kernel that should produce NaN and does is
// right; a NaN where a number is expected, or the reverse, is a mismatch); an infinity
// matches only the same infinity.
//
// Defaults: rtol = 1e-3, atol = 1e-4 — loose enough for float sums reassociated by
// tiling/vectorisation over a few hundred terms of unit-scale inputs, tight enough to catch
// a wrong index. Tolerance::for_reduction(n) scales both by sqrt(n), the typical growth
// of rounding error when n terms are summed in a different order (rtol = 1e-4*sqrt(n),
// atol = 1e-5*sqrt(n), never below 1e-5 and 1e-6).

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace liftc::runtime {

/// The acceptance rule |a - b| <= atol + rtol * |b|.
struct Tolerance {
  double rtol = 1e-3;  ///< relative part, scaled by |expected|
  double atol = 1e-4;  ///< absolute part, for values near zero

  /// A tolerance for results that each sum `reduction_length` products (see above).
  static Tolerance for_reduction(std::size_t reduction_length);

  /// This tolerance for an output stored as half (`--storage half`): rtol + 2^-10, one half
  /// ulp relative, atol unchanged. The interpreter rounds where the device stores halves,
  /// so the two differ only where the float sums before the rounding differ (within this
  /// tolerance) and land on either side of a rounding boundary: the adjacent half, at most
  /// 2^-10 * |value| away.
  Tolerance for_half() const { return {rtol + kHalfRtol, atol}; }

  /// One half ulp, relative: 2^-10.
  static constexpr double kHalfRtol = 1.0 / 1024.0;
};

/// The outcome of compare(): mismatch statistics over all elements.
struct Comparison {
  bool ok = false;                           ///< sizes equal and no element mismatched
  std::size_t size_actual = 0;               ///< number of elements compared from the result
  std::size_t size_expected = 0;             ///< number of reference elements
  std::size_t mismatches = 0;                ///< elements outside the tolerance (NaN rules included)
  std::optional<std::size_t> first_mismatch;  ///< index of the first one
  float first_actual = 0.0f;    ///< the result's value at first_mismatch
  float first_expected = 0.0f;  ///< the reference value at first_mismatch
  double max_abs_error = 0.0;  ///< max |a - b| over finite pairs
  double max_rel_error = 0.0;  ///< max |a - b| / |b| over finite pairs with b != 0

  /// "ok: 1000 values, max abs error 1e-07, ..." or "3 of 1000 values differ, first at
  /// [17]: got 1.5 expected 2; max abs error ...".
  std::string str() const;
};

/// Compares `actual` against `expected` element by element under `tol`. With `allowance`
/// (one value >= 0 per expected element, e.g. interp::rounding_allowance), element i may
/// also differ by allowance[i]: |a - b| <= atol + rtol * |b| + allowance[i]. An allowance of
/// another length than `expected` is a liftc::Error.
Comparison compare(const std::vector<float>& actual, const std::vector<float>& expected, const Tolerance& tol = {},
                   std::span<const float> allowance = {});

}  // namespace liftc::runtime
