#pragma once
// Readable names for parameterised tests: GoogleTest prints a struct parameter as its raw
// bytes ("16-byte object <72-1F ...>"), which says nothing when a case fails and changes
// from build to build. `readable_name(i, "conv-chw", "conv/conv_small.sr")` gives
// "3_conv_chw_conv_conv_small_sr": the case's index (unique) and its text, with every
// character GoogleTest does not allow in a name made '_', at most 60 of them.

#include <cctype>
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>

namespace liftc::testing {

inline std::string readable_name(std::size_t index, std::initializer_list<std::string_view> parts) {
  std::string name = std::to_string(index);
  for (std::string_view part : parts) {
    name += '_';
    for (char c : part) {
      bool keep = std::isalnum(static_cast<unsigned char>(c)) != 0;
      if (keep) name += c;
      else if (name.back() != '_') name += '_';
      if (name.size() >= 60) return name;
    }
  }
  while (name.back() == '_') name.pop_back();
  return name;
}

}  // namespace liftc::testing
