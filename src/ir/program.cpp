// Whole-program utilities: binding sizes to values.

#include "liftc/ir/program.hpp"

#include <fmt/format.h>

namespace liftc::ir {

namespace {

// The option that gives `s` a value: a size declared with a range is a tuning parameter (a
// rewritten program declares each one so), which commands take with --params; --size gives
// a program size.
const char* option_of(const SizeDecl& s) { return s.min ? "--params" : "--size"; }

std::string no_value_hint(const SizeDecl& s) {
  std::string what = s.min ? fmt::format("tuning parameter {} (in {}..{})", s.name, *s.min, *s.max) : "size " + s.name;
  return fmt::format("{} has no value: give it with {} {}=<value>", what, option_of(s), s.name);
}

// Why `value` is not a value of size `s`, if it is not.
std::optional<std::string> out_of_range(const SizeDecl& s, long long value) {
  if (s.admits(value)) return std::nullopt;
  if (!s.min) return std::string("sizes are at least 1");
  return fmt::format("{} ranges over {}..{}", s.name, *s.min, *s.max);
}

}  // namespace

Program bind_sizes(const Program& p, const std::map<std::string, long long>& overrides) {
  for (const auto& [name, value] : overrides) {
    bool declared = false;
    for (const auto& s : p.sizes) declared = declared || s.name == name;
    if (!declared) {
      std::vector<std::string> sizes, params;
      for (const auto& s : p.sizes) (s.min ? params : sizes).push_back(s.name);
      auto list = [](const std::vector<std::string>& v) {
        return v.empty() ? std::string("none") : fmt::format("{}", fmt::join(v, ", "));
      };
      throw Error(fmt::format("{}={}: the program declares no size or tuning parameter {} (its sizes: {}; its tuning "
                              "parameters: {})",
                              name, value, name, list(sizes), list(params)));
    }
  }
  Program out = p;
  std::map<std::string, arith::Expr> bindings;
  for (auto& s : out.sizes) {
    if (auto it = overrides.find(s.name); it != overrides.end()) {
      if (auto why = out_of_range(s, it->second))
        throw Error(fmt::format("{} {}={}: {}", option_of(s), s.name, it->second, *why));
      s.value = it->second;
    }
    if (!s.value) throw Error(no_value_hint(s), s.loc);
    if (auto why = out_of_range(s, *s.value)) throw Error(fmt::format("size {} = {}: {}", s.name, *s.value, *why), s.loc);
    bindings[s.name] = arith::Expr(static_cast<std::int64_t>(*s.value));
  }
  for (auto& in : out.inputs) in.type = substitute_sizes(in.type, bindings);
  for (auto& d : out.defs) d.body = substitute_sizes(d.body, bindings);
  return out;
}

std::vector<std::string> declared_names(const Program& p) {
  std::vector<std::string> out;
  for (const auto& s : p.sizes) out.push_back(s.name);
  for (const auto& i : p.inputs) out.push_back(i.name);
  for (const auto& d : p.defs) out.push_back(d.name);
  return out;
}

std::map<std::string, std::int64_t> size_values(const Program& p) {
  std::map<std::string, std::int64_t> values;
  for (const auto& s : p.sizes) {
    LIFTC_ASSERT(s.value.has_value(), no_value_hint(s) + " (size_values needs a program after bind_sizes)");
    values[s.name] = *s.value;
  }
  return values;
}

}  // namespace liftc::ir
