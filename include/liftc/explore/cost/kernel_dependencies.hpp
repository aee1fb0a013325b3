#pragma once
// Which of a candidate's kernels each of its tuning parameters reaches: the parameters a
// kernel's time can depend on. The model-guided search composes points from them
// (model_search.hpp): a candidate of several kernels whose each kernel is fastest with its own
// parameters at another measured point (the Winograd transforms' work-group sizes and the
// batched multiplication's tiles, say) takes each kernel's parameters from that point.

#include <cstddef>
#include <vector>

#include "liftc/explore/cost/features.hpp"
#include "liftc/explore/search/space.hpp"

namespace liftc::explore::cost {

/// For each tuning parameter of candidate `c`'s alternative (in its order), the kernels
/// (indices in launch order) whose OpenCL C or NDRange changes when that parameter alone takes
/// a neighbouring valid value at `c`: one generation of `c` and at most two a parameter, with
/// the context's build options. A parameter that changes no kernel's text or NDRange (a build
/// option such as `mad`), or that has no valid neighbouring value there, is given every kernel:
/// it may change any. Empty when `c`'s alternative is not liftc's own kernels (a library
/// call) or `c` does not generate.
std::vector<std::vector<std::size_t>> kernel_dependencies(const Candidate& c, const FeatureContext& ctx);

}  // namespace liftc::explore::cost
