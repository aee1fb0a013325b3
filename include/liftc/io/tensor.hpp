#pragma once
// A dense host array: what .npy files hold and what the interpreter and the OpenCL
// runtime exchange. Row-major (C order), outermost dimension first.

#include <cstdint>
#include <string>
#include <vector>

namespace liftc::io {

/// Element types liftc reads and writes.
enum class DType { Float32, Int32 };

/// A dense row-major array; exactly one of f32 / i32 holds the data, by dtype.
struct Tensor {
  DType dtype = DType::Float32;
  std::vector<std::int64_t> shape;
  std::vector<float> f32;
  std::vector<std::int32_t> i32;

  /// Product of the shape (1 for a scalar, shape {}).
  std::int64_t element_count() const;
};

/// Reads a .npy file (format 1.0-3.0; little-endian <f4, <i4, and <f8 / <i8 converted
/// with a range check; C order only). Every malformed file is a liftc::Error naming the
/// file and what is wrong.
Tensor read_npy(const std::string& path);

/// Writes a .npy file (format 1.0). Writes to a temporary file and renames, so a failed
/// write never leaves a truncated file.
void write_npy(const std::string& path, const Tensor& t);

}  // namespace liftc::io
