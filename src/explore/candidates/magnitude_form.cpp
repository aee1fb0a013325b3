// The program on which a computation through constant arrays has its magnitude interpreted.

#include "liftc/explore/candidates/magnitude_form.hpp"

#include <functional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "liftc/rewrite/strategy.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::explore {

std::string constant_arrays_of(const ir::Program& p) {
  std::string text;
  std::function<void(const ir::Expr&)> walk = [&](const ir::Expr& e) {
    if (auto values = ir::constant_array_values(e)) {
      text += fmt::format("[{}]", fmt::join(*values, ","));
      return;
    }
    for (const ir::Expr& a : e->args) walk(a);
  };
  for (const auto& d : p.defs) walk(d.body);
  return text;
}

std::map<std::string, ir::Program> magnitude_forms(const rewrite::RuleSet& rules, const std::string& strategy,
                                                   const ir::Program& program) {
  std::map<std::string, ir::Program> forms;
  const rewrite::NamedStrategy* named = rules.strategy(strategy);
  if (!named) return forms;
  // fallback(s1 ; s2 ; ..., t): the sequence is what the strategy does where it applies.
  const rewrite::Strategy* body = &named->body;
  while (body->kind == rewrite::StrategyKind::Fallback) body = &body->args[0];
  if (body->kind != rewrite::StrategyKind::Seq) return forms;
  // Strict prefixes only: the whole sequence is the alternatives themselves.
  for (std::size_t steps = 1; steps < body->args.size() && forms.empty(); ++steps) {
    rewrite::Strategy prefix{rewrite::StrategyKind::Seq, "", {body->args.begin(), body->args.begin() + steps}, {}, {}, {}};
    rewrite::ProgramRewrite r;
    try {
      r = rewrite::rewrite_program(rules, rewrite::to_string(prefix), program);
    } catch (const Error&) {
      continue;  // a prefix that applies nowhere has no arrays to find
    }
    for (auto& alternative : r.programs)
      if (std::string key = constant_arrays_of(alternative.program);
          !key.empty() && alternative.params.empty() && !forms.count(key))
        forms.emplace(std::move(key), std::move(alternative.program));
  }
  return forms;
}

}  // namespace liftc::explore
