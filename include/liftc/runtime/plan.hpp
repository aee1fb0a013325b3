#pragma once
// A launch plan: the device buffers a program needs and the kernels to enqueue, in order,
// with their NDRanges and arguments. Code generation produces one next to the OpenCL C
// source; run_program (run.hpp) executes it. Plain values, no OpenCL types.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

namespace liftc::runtime {

/// The element type of a buffer on the device. Half: floats stored as IEEE halves (2 bytes);
/// its host data and read-back values are floats, rounded to nearest even on upload
/// (liftc/support/half.hpp) and converted exactly on read-back.
enum class ElemType { Float, Int32, Half };

/// Host data to upload into a buffer (none, floats or 32-bit ints).
using HostData = std::variant<std::monostate, std::vector<float>, std::vector<std::int32_t>>;

/// One device buffer of the plan's buffer table.
struct BufferSpec {
  std::string name;                 ///< for messages ("out", "tmp0")
  std::size_t bytes = 0;            ///< size the kernels may access (> 0)
  ElemType elem = ElemType::Float;  ///< element type of `host` and of the read-back values
  HostData host;                    ///< uploaded once before the first run; none = zero-filled
  bool read_back = false;           ///< read back into RunResult::outputs after the last run

  /// An input buffer holding `data` (as floats, or as halves when `elem` is Half).
  static BufferSpec input(std::string name, std::vector<float> data, ElemType elem = ElemType::Float);
  /// An input buffer holding `data`.
  static BufferSpec input(std::string name, std::vector<std::int32_t> data);
  /// A zero-initialised output buffer of `count` elements, read back after the run.
  static BufferSpec output(std::string name, std::size_t count, ElemType elem = ElemType::Float);
  /// A zero-initialised intermediate buffer of `count` elements, not read back.
  static BufferSpec scratch(std::string name, std::size_t count, ElemType elem = ElemType::Float);
};

/// A 1-3 dimensional NDRange; an empty one (as a local size) lets the driver choose.
struct NDRange {
  std::vector<std::size_t> sizes;  ///< one entry per dimension

  NDRange() = default;
  /// A 1D range.
  NDRange(std::size_t x) : sizes{x} {}
  /// A 2D range.
  NDRange(std::size_t x, std::size_t y) : sizes{x, y} {}
  /// A 3D range.
  NDRange(std::size_t x, std::size_t y, std::size_t z) : sizes{x, y, z} {}

  /// No sizes: as a local size, "let the driver choose".
  bool empty() const { return sizes.empty(); }
  /// Total number of work-items (1 for an empty range).
  std::size_t volume() const;
  /// "(1024)", "(64, 8)", or "(driver's choice)" when empty.
  std::string str() const;
};

/// A kernel argument that is a buffer of the plan's buffer table.
struct BufferArg {
  std::size_t buffer = 0;  ///< index into LaunchPlan::buffers
};
/// A kernel argument that is an `int` scalar.
struct IntArg {
  std::int32_t value = 0;
};
/// A kernel argument that is a `float` scalar.
struct FloatArg {
  float value = 0.0f;
};
/// A kernel argument that is a `__local` allocation of `bytes` bytes.
struct LocalArg {
  std::size_t bytes = 0;
};
/// One kernel argument.
using KernelArg = std::variant<BufferArg, IntArg, FloatArg, LocalArg>;

/// Argument helpers: arg_buffer(i), arg_int(n), arg_float(x), arg_local(bytes).
inline KernelArg arg_buffer(std::size_t index) { return BufferArg{index}; }
/// An `int` scalar argument.
inline KernelArg arg_int(std::int32_t value) { return IntArg{value}; }
/// A `float` scalar argument.
inline KernelArg arg_float(float value) { return FloatArg{value}; }
/// A `__local` allocation argument of `bytes` bytes.
inline KernelArg arg_local(std::size_t bytes) { return LocalArg{bytes}; }

/// A library routine's call in a plan's sequence (CLBlast's, through liftc-runner; the
/// bundle's `library` line, src/runner/README.md): the routine, its size arguments and the
/// tuning parameters it sets first (kernel, name, value); its buffers are the launch's args.
struct LibraryCall {
  std::string routine;              ///< "clblast-convgemm", "clblast-gemm"
  std::vector<std::int64_t> sizes;  ///< the routine's size arguments, in its order
  std::vector<std::tuple<std::string, std::string, std::int64_t>> parameters;  ///< (kernel, name, value)
};

/// One kernel enqueue, or (with `library`) a library routine's call.
struct KernelLaunch {
  std::string kernel;          ///< kernel function name in the program
  NDRange global;              ///< global size, 1-3 dimensions
  NDRange local;               ///< local size, same dimensions as `global`, or empty
  std::vector<KernelArg> args;  ///< in parameter order
  std::optional<LibraryCall> library = std::nullopt;  ///< set: this step calls a library routine (its buffers are `args`), not a kernel
};

/// The buffers and the kernels, enqueued in order, that make up one run of a program.
struct LaunchPlan {
  std::vector<BufferSpec> buffers;      ///< the buffer table BufferArg indexes
  std::vector<KernelLaunch> kernels;    ///< enqueued in this order on the in-order queue
  std::string build_options;            ///< OpenCL compiler options of the kernels' source ("-cl-mad-enable")
};

/// Byte size of one element of `elem` on the device (2 for Half).
std::size_t elem_bytes(ElemType elem);

/// Checks the plan's own consistency (sizes, dimensions, buffer indices, host data sizes);
/// throws liftc::Error naming the first problem. run_program calls it.
void validate_plan(const LaunchPlan& plan);

}  // namespace liftc::runtime
