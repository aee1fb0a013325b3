#include "options.hpp"

#include <charconv>

#include "liftc/support/diagnostic.hpp"

namespace liftc::tool {

namespace {

// Splits "name=value" at the first '='; both sides must be non-empty.
std::pair<std::string, std::string> split_assignment(const std::string& flag, const char* option) {
  auto eq = flag.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == flag.size())
    throw Error(std::string(option) + " expects name=value, got '" + flag + "'");
  return {flag.substr(0, eq), flag.substr(eq + 1)};
}

}  // namespace

std::map<std::string, long long> parse_size_flags(const std::vector<std::string>& flags) {
  std::map<std::string, long long> sizes;
  for (const auto& flag : flags) {
    auto [name, text] = split_assignment(flag, "--size");
    long long value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size())
      throw Error("--size " + name + ": '" + text + "' is not an integer");
    if (!sizes.emplace(name, value).second) throw Error("--size " + name + " is given twice");
  }
  return sizes;
}

std::map<std::string, std::string> parse_input_flags(const std::vector<std::string>& flags) {
  std::map<std::string, std::string> inputs;
  for (const auto& flag : flags) {
    auto [name, path] = split_assignment(flag, "--input");
    if (!inputs.emplace(name, path).second) throw Error("--input " + name + " is given twice");
  }
  return inputs;
}

}  // namespace liftc::tool
