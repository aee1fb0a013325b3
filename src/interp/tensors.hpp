#pragma once
// Conversions between io::Tensor and interpreter values.

#include <string>

#include "layout.hpp"
#include "liftc/io/tensor.hpp"
#include "value.hpp"

namespace liftc::interp::detail {

/// Whether values of `l` map to a tensor: a scalar, a vector, or nested arrays of them.
bool has_tensor_form(const Layout* l);

/// The value of a tensor already checked against `l` (copied once into dense storage).
Value to_value(const io::Tensor& t, const Layout* l);

/// The tensor holding value `v` of layout `l` (has_tensor_form(l)), shaped like `type`.
io::Tensor to_tensor(const Value& v, const Layout* l, const ir::Type& type);

}  // namespace liftc::interp::detail
