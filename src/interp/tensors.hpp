#pragma once
// Conversions between io::Tensor and interpreter values.

#include <string>
#include <utility>
#include <vector>

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

/// One tensor per scalar or vector component of a value whose type holds tuples, named by
/// its path of tuple indices ("0", "1.0"); arrays outside a tuple become dimensions of each
/// component's tensor, so an array of pairs gives two arrays.
std::vector<std::pair<std::string, io::Tensor>> component_tensors(const Value& v, const Layout* l);

}  // namespace liftc::interp::detail
