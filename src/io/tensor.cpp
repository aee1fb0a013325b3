#include "liftc/io/tensor.hpp"

namespace liftc::io {

std::int64_t Tensor::element_count() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

}  // namespace liftc::io
