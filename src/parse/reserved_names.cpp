// The names generated OpenCL C reserves (see reserved_names.hpp).

#include "reserved_names.hpp"

#include <array>
#include <string>

namespace liftc::parse {

namespace {

// C11's keywords and OpenCL C's (address spaces, access qualifiers, kernel), and main.
constexpr auto kKeywords = std::to_array<std::string_view>({
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
    "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
    "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while",
    "_Alignas", "_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic", "_Imaginary", "_Noreturn",
    "_Static_assert", "_Thread_local", "global", "local", "constant", "private", "kernel", "read_only",
    "write_only", "read_write", "uniform", "pipe", "bool", "true", "false", "typeof", "asm", "main", "NULL"});

// OpenCL C's other scalar and opaque types (the vector types are a base type and a width).
constexpr auto kTypes = std::to_array<std::string_view>({
    "uchar", "ushort", "uint", "ulong", "half", "quad", "size_t", "ptrdiff_t", "intptr_t", "uintptr_t",
    "image1d_t", "image1d_array_t", "image1d_buffer_t", "image2d_t", "image2d_array_t", "image2d_depth_t",
    "image3d_t", "sampler_t", "event_t", "queue_t", "clk_event_t"});
constexpr auto kVectorBases = std::to_array<std::string_view>({"char", "uchar", "short", "ushort", "int", "uint",
                                                          "long", "ulong", "float", "double", "half"});

// What the generated kernels call or name (besides the .sr builtins, which are primitives
// and cannot be redefined anyway); vloadN, vstoreN and convert_* are matched below.
constexpr auto kBuiltins = std::to_array<std::string_view>({
    "get_global_id", "get_local_id", "get_group_id", "get_global_size", "get_local_size", "get_num_groups",
    "barrier", "CLK_LOCAL_MEM_FENCE", "CLK_GLOBAL_MEM_FENCE", "INFINITY", "NAN", "fmin", "fmax", "fabs", "fmod"});

template <std::size_t N>
bool listed(const std::array<std::string_view, N>& list, std::string_view name) {
  for (std::string_view n : list)
    if (n == name) return true;
  return false;
}

// `prefix` followed by one of OpenCL's vector widths: 2, 3, 4, 8, 16.
bool prefix_and_width(std::string_view name, std::string_view prefix) {
  if (name.substr(0, prefix.size()) != prefix) return false;
  std::string_view width = name.substr(prefix.size());
  return width == "2" || width == "3" || width == "4" || width == "8" || width == "16";
}

}  // namespace

std::optional<std::string> reserved_in_kernels(std::string_view name) {
  if (listed(kKeywords, name)) return std::string("a keyword of C or OpenCL C");
  if (listed(kTypes, name)) return std::string("a type of OpenCL C");
  for (std::string_view base : kVectorBases)
    if (prefix_and_width(name, base)) return std::string("a vector type of OpenCL C");
  if (listed(kBuiltins, name) || prefix_and_width(name, "vload") || prefix_and_width(name, "vstore") ||
      name.substr(0, 8) == "convert_")
    return std::string("a built-in function or constant of OpenCL C that the generated kernels use");
  if (name == "liftc_round_half" || prefix_and_width(name, "liftc_round_half"))
    return std::string("a function the generated kernels define (roundHalf's)");
  if (name.substr(0, 2) == "__") return std::string("reserved in C (it begins with two underscores)");
  return std::nullopt;
}

}  // namespace liftc::parse
