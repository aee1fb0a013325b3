#pragma once
// Parsing of the `name=value` flags several commands share.

#include <map>
#include <string>
#include <vector>

namespace liftc::tool {

/// Parses `--size N=64` flags into a map; a malformed or repeated one is a liftc::Error.
std::map<std::string, long long> parse_size_flags(const std::vector<std::string>& flags);

/// Parses `--input name=path` flags into a map; a malformed or repeated one is a liftc::Error.
std::map<std::string, std::string> parse_input_flags(const std::vector<std::string>& flags);

}  // namespace liftc::tool
