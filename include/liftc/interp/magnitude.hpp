#pragma once
// The validation's allowance for a program through constant arrays (Winograd's
// transforms), per output element, from that element's own magnitude (magnitude.cpp).

#include "liftc/interp/interp.hpp"

namespace liftc::interp {

/// Per element of every float output, the rounding it may differ by: magnitude_tolerance
/// times that element's own magnitude (evaluate_magnitude; FLT_MAX where that is beyond a
/// float), so an element whose computation is small is held to a small allowance however
/// large another one's is.
Tensors rounding_allowance(const ir::Program& checked, const Tensors& inputs);

}  // namespace liftc::interp
