#pragma once
// Internal: functions the generated kernels call that OpenCL C does not have, defined in
// the OpenCL C text before the kernel that calls them.
//
// A kernel's text (Kernel::source) must stand alone: a network's host program puts the
// kernels of several modules into one source (explore's compose), so two kernels may each
// carry a definition. Each is therefore wrapped in an #ifndef guard of its own, and the
// second copy is skipped by the preprocessor.

#include <set>
#include <string>

namespace liftc::codegen::detail {

/// The name of the function that rounds a float (`width` 1) or a floatN (2, 3, 4, 8, 16) to
/// the nearest half, ties to even, and reads it back as a float: `liftc_round_half`,
/// `liftc_round_half4`. The .sr builtin roundHalf; parse's reserved names keep the prefix
/// from the user's names.
std::string round_half_function(int width);

/// The guarded OpenCL C definitions of round_half_function for each width in `widths`
/// (empty: none): vstore_half[N] into a private array, then vload_half[N] back, which is
/// core OpenCL 1.2 (no cl_khr_fp16) and rounds as a half buffer's stores do.
std::string round_half_definitions(const std::set<int>& widths);

}  // namespace liftc::codegen::detail
