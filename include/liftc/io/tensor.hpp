#pragma once
// A dense host array: what .npy files hold and what the interpreter and the OpenCL
// runtime exchange. Row-major (C order), outermost dimension first.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
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

  /// Product of the shape (1 for a scalar, shape {}); a liftc::Error when it overflows 64 bits.
  std::int64_t element_count() const;
};

/// Named dense arrays: a program's inputs or outputs (what the interpreter computes and
/// generated code is run on and checked against).
using Tensors = std::map<std::string, Tensor>;

/// The largest .npy file read_npy reads (4 GiB: a billion float32 values).
inline constexpr std::uint64_t kMaxNpyBytes = 4ull << 30;

/// Reads a .npy file (format 1.0-3.0; little-endian <f4, <i4, and <f8 / <i8 converted
/// with a range check; C order only). Every malformed file is a liftc::Error naming the
/// file and what is wrong; so is a path that is not a regular file or is larger than
/// kMaxNpyBytes.
Tensor read_npy(const std::string& path);

/// Reads the bytes of a .npy file; `path` names it in errors.
Tensor parse_npy(std::string_view bytes, const std::string& path);

/// Writes a .npy file (format 1.0). Writes to a temporary file and renames, so a failed
/// write never leaves a truncated file.
void write_npy(const std::string& path, const Tensor& t);

/// The bytes of a .npy file holding `t` (what write_npy writes).
std::string format_npy(const Tensor& t);

}  // namespace liftc::io
