#pragma once
// Parsing of the `name=value` flags several commands share, and the validators of numeric
// flags (one-line messages that say which values are valid).

#include <climits>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace liftc::tool {

/// Parses `--size N=64` flags into a map; a malformed or repeated one is a liftc::Error
/// naming `option` (the flag the values came from: "--size" or "--params").
std::map<std::string, long long> parse_size_flags(const std::vector<std::string>& flags,
                                                  const char* option = "--size");

/// Parses `--input name=path` flags into a map; a malformed or repeated one is a liftc::Error.
std::map<std::string, std::string> parse_input_flags(const std::vector<std::string>& flags);

/// A flag that takes a whole number in min..max (written "at least min" when max is LLONG_MAX).
CLI::Validator integer_in(long long min, long long max = LLONG_MAX);

/// A flag that takes a whole number in 0..2^64-1 (a seed): "-1" is refused, not wrapped.
CLI::Validator unsigned_integer();

/// A flag that takes a finite number >= 0 (a tolerance, a time limit): not nan, inf or negative.
CLI::Validator finite_non_negative();

/// The help text of every command's --rules flag: where the rules come from without it
/// (liftc::default_rules_dir's order).
inline constexpr const char* kRulesFlagHelp =
    "folder of .rules files (default: $LIFTC_RULES, else <prefix>/share/liftc/rules of an installed liftc, else "
    "the source tree's rules/)";

}  // namespace liftc::tool
