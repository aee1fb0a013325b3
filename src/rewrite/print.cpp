// Printing strategies and tuning parameters in rule-file syntax.

#include <fmt/format.h>

#include "liftc/rewrite/rule.hpp"
#include "liftc/rewrite/strategy.hpp"

namespace liftc::rewrite {

std::string to_string(const TuningParam& p) {
  std::string domain;
  if (!p.values.empty()) domain = fmt::format(" in {{{}}}", fmt::join(p.values, ", "));
  else if (p.min && p.max) domain = fmt::format(" in {}..{}", *p.min, *p.max);
  return fmt::format("{}{} ({})", p.name, domain, p.rule);
}

std::string to_string(const Strategy& s) {
  auto unary = [&](const char* name) { return fmt::format("{}({})", name, to_string(s.args[0])); };
  // An n-ary node; a sequence inside a sequence is parenthesised to keep its grouping.
  auto operands = [&](const char* op, bool parenthesised) {
    std::string out;
    for (std::size_t i = 0; i < s.args.size(); ++i) {
      std::string a = to_string(s.args[i]);
      if (!parenthesised && s.args[i].kind == StrategyKind::Seq) a = "(" + a + ")";
      out += (i ? op : "") + a;
    }
    return parenthesised ? "(" + out + ")" : out;
  };
  switch (s.kind) {
    case StrategyKind::Rule:
      return s.fixed.empty() ? s.name : fmt::format("{}[{}]", s.name, fmt::join(s.fixed, ", "));
    case StrategyKind::Named: return s.name;
    case StrategyKind::Id: return "id";
    case StrategyKind::Fail: return "fail";
    case StrategyKind::Seq: return operands(" ; ", false);
    case StrategyKind::LeftChoice: return operands(" <+ ", true);
    case StrategyKind::AllChoice: return operands(" | ", true);
    case StrategyKind::Try: return unary("try");
    case StrategyKind::Repeat: return unary("repeat");
    case StrategyKind::TopDown: return unary("topdown");
    case StrategyKind::BottomUp: return unary("bottomup");
    case StrategyKind::Everywhere: return unary("everywhere");
    case StrategyKind::Anywhere: return unary("anywhere");
    case StrategyKind::Normalize: return unary("normalize");
    case StrategyKind::At: return fmt::format("at({}, {})", fmt::join(s.path, "."), to_string(s.args[0]));
    case StrategyKind::Where: return unary("where");
    case StrategyKind::Unless: return unary("unless");
    case StrategyKind::Body: return unary("body");
    case StrategyKind::Fallback: return fmt::format("fallback({}, {})", to_string(s.args[0]), to_string(s.args[1]));
  }
  return "?";
}

}  // namespace liftc::rewrite
