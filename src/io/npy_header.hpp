#pragma once
// The header of a .npy file: a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
// parsed from and printed to text. Internal to liftc_io.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace liftc::io::detail {

/// The three keys every .npy header holds.
struct NpyHeader {
  std::string descr;  // numpy dtype string, e.g. "<f4"
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
};

/// Parses the header dict; a malformed one is a liftc::Error "<path>: <what is wrong>".
NpyHeader parse_npy_header(std::string_view text, const std::string& path);

/// Prints the dict as numpy does, without the padding and the final newline.
std::string format_npy_header(const NpyHeader& h);

}  // namespace liftc::io::detail
