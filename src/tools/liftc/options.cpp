#include "options.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include <fmt/format.h>

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

std::map<std::string, long long> parse_size_flags(const std::vector<std::string>& flags, const char* option) {
  std::map<std::string, long long> sizes;
  for (const auto& flag : flags) {
    auto [name, text] = split_assignment(flag, option);
    long long value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range)
      throw Error(fmt::format("{} {}: {} is too large (sizes fit in 64 bits)", option, name, text));
    if (ec != std::errc() || end != text.data() + text.size())
      throw Error(fmt::format("{} {}: '{}' is not an integer", option, name, text));
    if (!sizes.emplace(name, value).second) throw Error(fmt::format("{} {} is given twice", option, name));
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

CLI::Validator integer_in(long long min, long long max) {
  std::string range = max == LLONG_MAX ? fmt::format("an integer of at least {}", min)
                                       : fmt::format("an integer in {}..{}", min, max);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        long long value = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc() && end == text.data() + text.size() && value >= min && value <= max) return "";
        return fmt::format("expects {}, got '{}'", range, text);
      },
      range);
}

CLI::Validator unsigned_integer() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::uint64_t value = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc() && end == text.data() + text.size()) return "";
        return fmt::format("expects an integer in 0..{}, got '{}'", UINT64_MAX, text);
      },
      "an integer >= 0");
}

CLI::Validator finite_non_negative() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        double value = std::strtod(text.c_str(), &end);
        if (!text.empty() && end == text.c_str() + text.size() && std::isfinite(value) && value >= 0) return "";
        return fmt::format("expects a finite number >= 0, got '{}'", text);
      },
      "a finite number >= 0");
}

}  // namespace liftc::tool
