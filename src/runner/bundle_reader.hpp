#pragma once
// liftc-runner's reader of a candidate bundle's bundle.txt (the format is in README.md) and
// of the files beside it. Strict on purpose: the text may come from anywhere (a copied
// folder, a phone), so every number is read whole and range-checked, every line has
// exactly its words, and sizes are capped here (the device's own limits are checked when
// the runner allocates), so that a bad bundle is a Failure with status "runner", never a
// crash, an abort or an allocation that cannot succeed. A library call's sizes are checked
// against its buffers and its tuning parameters against CLBlast's domains and constraints
// (liftc/runtime/library_call.hpp, the table explore searches), before CLBlast sees them. Standard C++ and POSIX only, like
// runner.cpp (it builds with the Android NDK), and free of OpenCL so a fuzzer can call it.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace liftc_runner {

/// A failure that ends a bundle with a status ("runner", "run", ...) and a one-line reason.
struct Failure {
  std::string status, reason;
};

/// Caps on what a bundle may ask for, before the device is asked (README.md lists them).
inline constexpr std::size_t kMaxBundleTextBytes = 4u << 20;          // bundle.txt
inline constexpr std::size_t kMaxKernelSourceBytes = 64u << 20;       // kernels.cl
// 1 TiB of 4-byte elements (less where size_t is 32 bits: 4 x count plus canaries must fit)
inline constexpr std::uint64_t kMaxBufferElements =
    SIZE_MAX / 8 < (std::uint64_t(1) << 38) ? SIZE_MAX / 8 : std::uint64_t(1) << 38;
inline constexpr std::uint64_t kMaxCanaryBytes = 1u << 20;
inline constexpr std::uint64_t kMaxRuns = 1000000;                    // warmup and runs each
inline constexpr std::uint64_t kMaxWorkSize = 0xFFFFFFFFu;            // a global or local size per dimension
inline constexpr std::uint64_t kMaxLocalArgBytes = 0x7FFFFFFFu;       // arg local (the device's limit is checked too)

/// One buffer: `count` elements (f32 or i32, 4 bytes; f16, floats stored as 2-byte halves,
/// whose input and expected files still hold f32) in the role input, output or scratch.
struct BufferDesc {
  std::string name;
  bool is_float = true;
  bool half = false;  // f16: on the device 2 bytes an element, converted from and to f32 (liftc/support/half.hpp)
  std::size_t count = 0;
  std::string role;
  bool allowance = false;  // an f32 output with allowance/NAME.bin: per element, what it may differ by beyond the tolerance

  /// The bytes of one element on the device.
  std::size_t element_bytes() const { return half ? 2 : 4; }
};

/// One kernel argument, in order.
struct ArgDesc {
  enum class Kind { Buffer, Int, Float, Local } kind = Kind::Int;
  std::size_t buffer = 0;      // Buffer: the index of a buffer line before it
  std::int32_t int_value = 0;  // Int
  float float_value = 0;       // Float
  std::size_t local_bytes = 0; // Local: bytes of __local memory (> 0)
};

/// A tuning parameter a library call sets for one of its library's kernels first.
struct ParamDesc {
  std::string kernel, name;  // "Xconvgemm", "WGD"
  std::uint64_t value = 0;
};

/// One kernel launch: its name, dimensions, global and local sizes (local all 0: the
/// driver's choice) and arguments; or, when `library` is set, a library routine's call
/// (its sizes, its buffers as `args`, the tuning parameters it sets first).
struct KernelDesc {
  std::string library;                // "" for a kernel of kernels.cl; else "clblast-convgemm", "clblast-gemm"
  std::vector<std::uint64_t> sizes;   // a library call's size arguments
  std::vector<ParamDesc> params;      // a library call's tuning parameters
  int line = 0;                       // a library call's line in bundle.txt (for its messages)
  std::string name;
  unsigned dims = 1;
  std::size_t global[3] = {1, 1, 1};
  std::size_t local[3] = {0, 0, 0};
  std::vector<ArgDesc> args;
};

/// What bundle.txt asks for.
struct Bundle {
  std::string dir;
  std::string device;
  std::string lock;  // a file to flock around kernel executions ("" = none)
  int warmup = 1, runs = 5;
  double cutoff_ms = 0;
  // live_cutoff FACTOR MEMORY PATH: the explorer's file of validated points (live_cutoff.hpp);
  // an empty path: none.
  double live_factor = 0;
  std::uint64_t live_memory = 0;
  std::string live_path;
  double rtol = 1e-3, atol = 1e-3;
  std::size_t canary = 256;
  std::string build_options;  // the OpenCL compiler options ("-cl-mad-enable")
  std::vector<BufferDesc> buffers;
  std::vector<KernelDesc> kernels;
};

/// Parses the text of a bundle.txt (`where`, e.g. "DIR/bundle.txt", starts its messages);
/// a Failure with status "runner" naming the line when it is malformed.
Bundle parse_bundle(const std::string& text, const std::string& where);

/// Reads DIR/bundle.txt (a regular file of at most kMaxBundleTextBytes) and parses it.
Bundle read_bundle(const std::string& dir);

/// The whole of `path`, which must be a regular file of at most `max_bytes`; a Failure
/// with status "runner" otherwise. `shown` is the name used in messages.
std::string read_small_file(const std::string& path, std::size_t max_bytes, const std::string& shown);

/// Reads `path`, which must be a regular file of exactly `bytes` bytes, into `into`; a
/// Failure with status "runner" otherwise.
void read_exact_file(const std::string& path, char* into, std::size_t bytes, const std::string& shown);

/// Whether `path` exists (a Failure with status "runner" when it exists but is not a regular file).
bool regular_file_exists(const std::string& path, const std::string& shown);

/// `selector` as a device index: true with `index` set when it is all digits and fits.
/// A selector of digits too large for any index is an index that matches no device.
bool device_index(const std::string& selector, std::uint64_t& index);

}  // namespace liftc_runner
