// `liftc space F.sr`: the tuning-parameter space of each rewritten alternative on a
// target: parameters and domains, every constraint with its source, the dependency order,
// the number of valid points, and sampled points (the constraints stage).

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "commands.hpp"
#include "options.hpp"
#include "liftc/constraints/solve.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/rewrite/engine.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::tool {

namespace {

struct SpaceOptions {
  std::string file;
  std::vector<std::string> strategies;
  std::string target;
  std::string device;
  bool device_given = false;
  std::string samples = "10";
  std::string seed = "1";
  std::string rules_dir;
  std::size_t max_alternatives = 256;
};

std::uint64_t parse_count(const std::string& flag, const std::string& text, std::uint64_t max) {
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || v > max)
    throw Error(fmt::format("{} {}: expected a whole number from 0 to {}", flag, text, max));
  return v;
}

void print_space(const constraints::Space& space, std::uint64_t samples, std::mt19937_64& rng) {
  using constraints::Source;
  fmt::print("\n== strategy {}, alternative {} of {}\n", space.strategy, space.alternative, space.alternatives);
  if (space.params.empty()) fmt::print("parameters: none\n");
  else fmt::print("parameters (in dependency order):\n");
  for (const auto& p : space.params) {
    std::string domain = p.domain.size() <= 12 ? fmt::format("{}", fmt::join(p.domain, ", "))
                                               : fmt::format("{} values, {}..{}", p.domain.size(), p.domain.front(),
                                                             p.domain.back());
    fmt::print("  {:<10} declared {:<10} domain {{{}}}  [{}: {}]\n", p.name, p.declared, domain,
               constraints::to_string(p.source), p.origin);
  }
  fmt::print("constraints:\n");
  for (const auto& c : space.constraints) {
    std::string where = c.loc.known() ? fmt::format(", line {}", c.loc.line) : "";
    fmt::print("  [{}] {}  ({}{}){}\n", constraints::to_string(c.source), constraints::to_string(c), c.why, where,
               c.implied ? "  holds for every value of the domains" : "");
  }
  std::string order;
  for (const auto& p : space.params) order += (order.empty() ? "" : ", ") + p.name;
  fmt::print("order: {}\n", order.empty() ? "-" : order);
  for (const auto& [a, b] : space.edges) fmt::print("  {} after {}\n", b, a);

  constraints::Feasibility f = constraints::check_feasibility(space);
  if (f.decided && !f.feasible) {
    fmt::print("valid points: 0 (Z3: infeasible; these constraints cannot hold together:)\n");
    for (auto i : f.conflict)
      fmt::print("  [{}] {}  ({})\n", constraints::to_string(space.constraints[i].source),
                 constraints::to_string(space.constraints[i]), space.constraints[i].why);
    return;
  }
  constraints::Sampler sampler(space);
  fmt::print("valid points: {}{}\n", sampler.count_text(),
             f.decided ? "" : fmt::format(" (Z3 gave up deciding feasibility: its resource limit of {} steps reached)",
                                          constraints::kZ3FeasibilityEffort));
  if (samples == 0 || sampler.count() == 0) return;
  fmt::print("samples ({}, {}):\n", samples,
             sampler.uniform() ? "uniform over the valid points"
                               : "NOT uniform: valid points from a random search, Z3-guided where it fails; the space is "
                                 "too large to count");
  for (std::uint64_t i = 0; i < samples; ++i) {
    constraints::Point p = sampler.sample(rng);
    fmt::print("  {}\n", constraints::format_point(space, p).empty() ? "(no parameters)" : constraints::format_point(space, p));
  }
}

void run_space(const SpaceOptions& o) {
  std::uint64_t samples = parse_count("--samples", o.samples, 1000000);
  std::uint64_t seed = parse_count("--seed", o.seed, UINT64_MAX);
  if (!o.target.empty() && o.device_given) throw Error("--target and --device exclude each other: give one");
  constraints::Target target = o.target.empty()
                                   ? constraints::target_from_device(runtime::select_device(o.device))
                                   : constraints::find_target(o.target, constraints::default_targets_dir());
  rewrite::RuleSet rules = rewrite::load_rules_dir(o.rules_dir.empty() ? rewrite::default_rules_dir() : o.rules_dir);
  ir::Program program = parse::load_program(o.file);
  std::vector<std::string> strategies = o.strategies.empty() ? rewrite::default_strategies(rules) : o.strategies;

  // Rewrite first, so that an error comes before any output.
  rewrite::RewriteOptions options;
  options.budget.max_alternatives = o.max_alternatives;
  std::vector<std::pair<std::string, rewrite::ProgramRewrite>> rewrites;
  for (const auto& s : strategies) {
    try {
      rewrites.emplace_back(s, rewrite::rewrite_program(rules, s, program, options));
    } catch (const Error&) {
      if (!o.strategies.empty()) throw;  // a strategy the user named must apply
    }
  }
  std::string note;
  if (rewrites.empty()) {
    note = "// no strategy of strategies.rules applies: the program as written (strategy id)\n";
    rewrites.emplace_back("id", rewrite::rewrite_program(rules, "id", program, options));
  }

  // The spaces too (a parameter with too many values is an error), before any output.
  std::vector<constraints::Space> spaces;
  for (const auto& [s, r] : rewrites) {
    for (std::size_t i = 0; i < r.programs.size(); ++i) {
      spaces.push_back(constraints::build_space(r.programs[i].program, r.programs[i].params, target));
      spaces.back().strategy = s;
      spaces.back().alternative = i + 1;
      spaces.back().alternatives = r.programs.size();
    }
  }

  fmt::print("// liftc space {}: target {}\n{}", o.file, constraints::format_target(target), note);
  std::mt19937_64 rng(seed);
  for (const auto& space : spaces) print_space(space, samples, rng);
}

}  // namespace

void add_space_command(CLI::App& app) {
  auto o = std::make_shared<SpaceOptions>();
  CLI::App* cmd = app.add_subcommand("space", "The tuning-parameter space of a program's rewritten alternatives on a target: "
                                              "parameters, constraints with their sources, order, count, samples");
  cmd->add_option("file", o->file, "the .sr program")->required();
  cmd->add_option("--strategy,-s", o->strategies,
                  "a strategy (repeatable); default: every strategy of rules/strategies.rules that applies");
  cmd->add_option("--target,-t", o->target, "a target profile of rules/targets (mali-g72, mali-g76, adreno-640, adreno-650)");
  cmd->add_option("--device", o->device, "the OpenCL device whose limits to use (index or part of its name; default: the first)")
      ->each([o](const std::string&) { o->device_given = true; });
  cmd->add_option("--samples", o->samples, "valid points to sample per alternative (default 10)");
  cmd->add_option("--seed", o->seed, "seed of the sampler (default 1)");
  cmd->add_option("--rules", o->rules_dir, "folder of .rules files (default: $LIFTC_RULES, else the source tree's rules/)");
  cmd->add_option("--max-alternatives", o->max_alternatives, "alternatives kept per strategy (default 256)")
      ->check(integer_in(1, 1000000));
  cmd->callback([o] { run_space(*o); });
}

}  // namespace liftc::tool
