#pragma once
// The one integer division of liftc's sizes and constraints: floor division, which rounds
// toward -infinity, and its remainder, which is 0 or has the divisor's sign. arith folds
// and evaluates `/` and `%` with it, the constraint stage evaluates constraints with it and
// encodes it for Z3 (whose own div is Euclidean). See src/arith/README.md.

#include <cstdint>

namespace liftc::arith {

/// floor(a / b); b != 0. INT64_MIN / -1 is a liftc::Error (integer overflow).
std::int64_t floor_div(std::int64_t a, std::int64_t b);
/// a - b * floor_div(a, b): 0 or of the divisor's sign; b != 0.
std::int64_t floor_mod(std::int64_t a, std::int64_t b);

}  // namespace liftc::arith
