#include "liftc/io/tensor.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "liftc/support/diagnostic.hpp"

namespace liftc::io {

std::int64_t Tensor::element_count() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape)
    if (d < 0 || __builtin_mul_overflow(n, d, &n))
      throw Error(fmt::format("a tensor of shape [{}] has more elements than 64 bits count", fmt::join(shape, ", ")));
  return n;
}

}  // namespace liftc::io
