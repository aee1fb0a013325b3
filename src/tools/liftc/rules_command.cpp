// `liftc rules`: lists the loaded rules and strategies with a one-line description each.

#include <fmt/format.h>

#include "commands.hpp"
#include "liftc/rewrite/load.hpp"
#include "options.hpp"

namespace liftc::tool {

namespace {

struct RulesCommandOptions {
  std::string rules_dir;
};

std::string params_of(const rewrite::Rule& r) {
  std::vector<std::string> out;
  for (const auto& p : r.params) {
    std::string domain;
    if (!p.values.empty() && p.kind == rewrite::RuleParam::Kind::Choice && p.min && p.max &&
        static_cast<std::int64_t>(p.values.size()) == *p.max - *p.min + 1 && p.values.front() == *p.min)
      domain = fmt::format(" in {}..{}", *p.min, *p.max);
    else if (!p.values.empty()) domain = fmt::format(" in {{{}}}", fmt::join(p.values, ", "));
    else if (p.min && p.max) domain = fmt::format(" in {}..{}", *p.min, *p.max);
    out.push_back(fmt::format("{}{}{}", p.kind == rewrite::RuleParam::Kind::Choice ? "choose " : "", p.name, domain));
  }
  return out.empty() ? "" : fmt::format("({})", fmt::join(out, ", "));
}

void run_rules(const RulesCommandOptions& o) {
  rewrite::RuleSet set = rewrite::load_rules_dir(o.rules_dir.empty() ? rewrite::default_rules_dir() : o.rules_dir);
  std::string file;
  for (const auto& r : set.rules) {
    std::string f = r.loc.file ? r.loc.file->path : "";
    if (f != file) fmt::print("{}{}\n", file.empty() ? "" : "\n", file = f);
    fmt::print("  rule {}{}: {}\n", r.name, params_of(r), r.description);
  }
  fmt::print("\nstrategies\n");
  for (const auto& s : set.strategies)
    fmt::print("  strategy {}{}: {}\n", s.name, s.tags.empty() ? "" : fmt::format(" [{}]", fmt::join(s.tags, ", ")),
               s.description);
}

}  // namespace

void add_rules_command(CLI::App& app) {
  auto o = std::make_shared<RulesCommandOptions>();
  CLI::App* cmd = app.add_subcommand("rules", "List the rewrite rules and strategies with a one-line description each");
  cmd->add_option("--rules", o->rules_dir, kRulesFlagHelp);
  cmd->callback([o] { run_rules(*o); });
}

}  // namespace liftc::tool
