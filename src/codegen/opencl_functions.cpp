// Functions the generated kernels call that OpenCL C does not have (opencl_functions.hpp).

#include "opencl_functions.hpp"

#include <fmt/format.h>

#include "liftc/support/diagnostic.hpp"

namespace liftc::codegen::detail {

std::string round_half_function(int width) {
  LIFTC_ASSERT(width == 1 || width == 2 || width == 3 || width == 4 || width == 8 || width == 16,
               "roundHalf takes a float or an OpenCL float vector");
  return width == 1 ? std::string("liftc_round_half") : fmt::format("liftc_round_half{}", width);
}

std::string round_half_definitions(const std::set<int>& widths) {
  std::string text;
  for (int width : widths) {
    std::string name = round_half_function(width);
    std::string n = width == 1 ? "" : std::to_string(width);
    std::string guard = "LIFTC_ROUND_HALF" + n;
    // The halves' 16 bits in a private ushort array, which a half pointer may address
    // without cl_khr_fp16 (half is a storage format there, read and written only by
    // vload_half and vstore_half).
    text += fmt::format(
        "#ifndef {guard}\n"
        "#define {guard}\n"
        "float{n} {name}(float{n} x) {{\n"
        "  ushort bits[{count}];\n"
        "  vstore_half{n}(x, 0, (half*)bits);\n"
        "  return vload_half{n}(0, (const half*)bits);\n"
        "}}\n"
        "#endif\n\n",
        fmt::arg("guard", guard), fmt::arg("n", n), fmt::arg("name", name), fmt::arg("count", width));
  }
  return text;
}

}  // namespace liftc::codegen::detail
