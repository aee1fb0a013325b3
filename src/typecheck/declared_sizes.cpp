// A checked program's obligations at its declared sizes (see declared_sizes.hpp).

#include "liftc/typecheck/declared_sizes.hpp"

#include <map>
#include <optional>

#include <fmt/format.h>

namespace liftc::typecheck {

namespace {

// The program's sizes that have a value (`size C = 3`), not its tuning parameters.
std::map<std::string, std::int64_t> declared_values(const ir::Program& program) {
  std::map<std::string, std::int64_t> out;
  for (const auto& size : program.sizes)
    if (size.value) out.emplace(size.name, *size.value);
  return out;
}

// Whether `o` holds at `sizes`; nullopt where a size in it has no value there (a tuning
// parameter) or a division by zero leaves it undecided.
std::optional<bool> holds_at(const Obligation& o, const std::map<std::string, std::int64_t>& sizes) {
  std::optional<std::int64_t> value = arith::evaluate(o.value, sizes);
  if (!value) return std::nullopt;
  switch (o.kind) {
    case Obligation::Kind::Divides: {
      std::optional<std::int64_t> divisor = arith::evaluate(o.divisor, sizes);
      if (!divisor || *divisor < 1) return std::nullopt;
      return *value % *divisor == 0;
    }
    case Obligation::Kind::Positive: return *value >= 1;
    case Obligation::Kind::NonNegative: return *value >= 0;
  }
  return std::nullopt;
}

}  // namespace

std::vector<Obligation> denied_by_declared_sizes(const Checked& checked) {
  std::map<std::string, std::int64_t> sizes = declared_values(checked.program);
  std::vector<Obligation> out;
  for (const auto& o : checked.obligations)
    if (holds_at(o, sizes) == false) out.push_back(o);
  return out;
}

std::string at_declared_sizes(const Obligation& o, const ir::Program& program) {
  std::map<std::string, std::int64_t> sizes = declared_values(program);
  auto text = [&](const arith::Expr& e) {
    std::optional<std::int64_t> v = arith::evaluate(e, sizes);
    return v ? std::to_string(*v) : arith::to_string(e);
  };
  switch (o.kind) {
    case Obligation::Kind::Divides: return fmt::format("{} divides {} ({})", text(o.divisor), text(o.value), o.what);
    case Obligation::Kind::Positive: return fmt::format("{} >= 1 ({})", text(o.value), o.what);
    case Obligation::Kind::NonNegative: return fmt::format("{} >= 0 ({})", text(o.value), o.what);
  }
  return o.what;
}

}  // namespace liftc::typecheck
