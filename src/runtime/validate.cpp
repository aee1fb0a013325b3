// compare(): float results against reference values under a relative+absolute tolerance.

#include "liftc/runtime/validate.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "liftc/support/diagnostic.hpp"

namespace liftc::runtime {

Tolerance Tolerance::for_reduction(std::size_t reduction_length) {
  const double root = std::sqrt(static_cast<double>(std::max<std::size_t>(reduction_length, 1)));
  return {std::max(1e-4 * root, 1e-5), std::max(1e-5 * root, 1e-6)};
}

namespace {

// Whether one pair is acceptable, by the rules in validate.hpp.
bool close(double a, double b, const Tolerance& tol, double allowance) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::fabs(a - b) <= tol.atol + tol.rtol * std::fabs(b) + allowance;
}

}  // namespace

Comparison compare(const std::vector<float>& actual, const std::vector<float>& expected, const Tolerance& tol,
                   std::span<const float> allowance) {
  if (!allowance.empty() && allowance.size() != expected.size())
    throw Error(fmt::format("the validation's allowance has {} values for {} expected ones", allowance.size(),
                            expected.size()));
  Comparison c;
  c.size_actual = actual.size();
  c.size_expected = expected.size();
  const std::size_t n = std::min(actual.size(), expected.size());
  for (std::size_t i = 0; i < n; ++i) {
    const double a = actual[i];
    const double b = expected[i];
    if (std::isfinite(a) && std::isfinite(b)) {
      const double abs_err = std::fabs(a - b);
      c.max_abs_error = std::max(c.max_abs_error, abs_err);
      if (b != 0.0) c.max_rel_error = std::max(c.max_rel_error, abs_err / std::fabs(b));
    }
    if (!close(a, b, tol, allowance.empty() ? 0.0 : static_cast<double>(allowance[i]))) {
      if (!c.first_mismatch) {
        c.first_mismatch = i;
        c.first_actual = actual[i];
        c.first_expected = expected[i];
      }
      ++c.mismatches;
    }
  }
  c.ok = actual.size() == expected.size() && c.mismatches == 0;
  return c;
}

std::string Comparison::str() const {
  if (size_actual != size_expected) {
    return fmt::format("size mismatch: got {} values, expected {}{}", size_actual, size_expected,
                       mismatches > 0 ? fmt::format(" ({} of the common prefix also differ)", mismatches) : "");
  }
  const std::string stats =
      fmt::format("max abs error {:.3g}, max rel error {:.3g}", max_abs_error, max_rel_error);
  if (ok) return fmt::format("ok: {} values, {}", size_actual, stats);
  std::string first;
  if (first_mismatch) {
    first = fmt::format(", first at [{}]: got {} expected {}", *first_mismatch, first_actual, first_expected);
  }
  return fmt::format("{} of {} values differ{}; {}", mismatches, size_actual, first, stats);
}

}  // namespace liftc::runtime
