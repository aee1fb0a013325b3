// `liftc rewrite F.sr --strategy S`: applies a strategy of the rule library and prints the
// rewritten program(s) in .sr syntax, with their tuning parameters.

#include <algorithm>

#include <fmt/format.h>

#include "commands.hpp"
#include "options.hpp"
#include "liftc/ir/printer.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/rewrite/engine.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/typecheck/declared_sizes.hpp"

namespace liftc::tool {

namespace {

struct RewriteCommandOptions {
  std::string file;
  std::string strategy;
  std::string rules_dir;
  bool all = false;
  std::size_t alternative = 0;  // 1-based; 0: the first the program's sizes allow (or every one with --all)
  bool trace = false;
  long max_steps = 100000;
  long max_nodes = rewrite::Budget{}.max_nodes;  // what the .sr reader accepts, so the output reads back
  double max_seconds = 30.0;
  std::size_t max_alternatives = 256;
};

// `text` on one line: a strategy expression written over several lines (a shell's quotes
// keep its line breaks) would end the header's `//` comment and the output would not
// read back as a program. Its `//` comments go (joined, they would swallow the lines after
// them); a `/* */` one stays, whole on the line.
std::string one_line(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n' && text[i + 1] != '\r') ++i;
      continue;
    }
    bool space = c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == '\v' || c == ' ';
    if (!space) out += c;
    else if (!out.empty() && out.back() != ' ') out += ' ';
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

void run_rewrite(const RewriteCommandOptions& o) {
  rewrite::RuleSet rules = rewrite::load_rules_dir(o.rules_dir.empty() ? rewrite::default_rules_dir() : o.rules_dir);
  ir::Program program = parse::load_program(o.file);
  rewrite::RewriteOptions options;
  options.budget.max_steps = o.max_steps;
  options.budget.max_nodes = o.max_nodes;
  options.budget.max_seconds = o.max_seconds;
  // Every alternative, also without --all: the one printed is the first the program's sizes allow.
  options.budget.max_alternatives = std::max(o.max_alternatives, o.alternative);
  if (o.trace) options.trace = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };

  rewrite::ProgramRewrite r = rewrite::rewrite_program(rules, o.strategy, program, options);
  if (o.alternative > r.programs.size())
    throw Error(fmt::format("--alternative {}: the strategy gives {} alternative(s)", o.alternative, r.programs.size()));
  fmt::print("// liftc rewrite {} --strategy '{}': {} rule applications, stopped at {}\n", one_line(o.file),
             one_line(o.strategy), r.steps, rewrite::to_string(r.stop));
  auto why = [&](const std::string& d) { return r.why_not.count(d) ? " (" + one_line(r.why_not.at(d)) + ")" : std::string(); };
  for (const auto& d : r.unchanged) fmt::print("// the strategy does not apply to definition {}{}\n", d, why(d));
  for (const auto& d : r.fallen_back) fmt::print("// definition {}: rewritten by the fallback only{}\n", d, why(d));
  // Why each alternative has no valid point at the program's declared sizes, where its types
  // need what they deny (a vector width that does not divide a window); empty where it may have one.
  std::vector<std::string> denied;
  for (const auto& p : r.programs) {
    std::vector<typecheck::Obligation> no = typecheck::denied_by_declared_sizes(typecheck::typecheck(p.program));
    denied.push_back(no.empty() ? std::string()
                                : "has no valid point: its types need " + typecheck::at_declared_sizes(no.front(), p.program));
  }
  std::size_t first = 0;
  if (o.alternative) {
    first = o.alternative - 1;
  } else if (!o.all) {
    // The first alternative the sizes allow (the first of all where none does).
    while (first < r.programs.size() && !denied[first].empty()) ++first;
    if (first == r.programs.size()) first = 0;
    if (first > 0) {
      fmt::print("// alternative {} of {}, the first the program's sizes allow (--all prints every one):\n", first + 1,
                 r.programs.size());
      for (std::size_t i = 0; i < first; ++i) fmt::print("// alternative {} {}\n", i + 1, denied[i]);
    }
  }
  std::size_t last = o.all ? r.programs.size() : first + 1;
  for (std::size_t i = first; i < last; ++i) {
    const auto& p = r.programs[i];
    if (o.all) fmt::print("\n// ---- alternative {} of {}\n", i + 1, r.programs.size());
    if (!denied[i].empty() && (o.all || o.alternative || first == 0)) fmt::print("// this alternative {}\n", denied[i]);
    for (const auto& t : p.params) fmt::print("// tuning parameter {}\n", rewrite::to_string(t));
    fmt::print("{}", ir::to_string(p.program));
  }
}

}  // namespace

void add_rewrite_command(CLI::App& app) {
  auto o = std::make_shared<RewriteCommandOptions>();
  CLI::App* cmd = app.add_subcommand("rewrite", "Rewrite a program with a strategy of the rule library; print it in .sr syntax");
  cmd->add_option("file", o->file, "the .sr program")->required();
  cmd->add_option("--strategy,-s", o->strategy, "a strategy or rule name, or a strategy expression such as 'normalize(map-fusion)'")
      ->required();
  cmd->add_option("--rules", o->rules_dir, kRulesFlagHelp);
  cmd->add_flag("--all", o->all,
                "print every alternative an exhaustive strategy produces (default: the first the program's sizes allow)");
  cmd->add_option("--alternative", o->alternative, "print only alternative N (1-based, in the order --all lists them)")
      ->check(integer_in(1, 1000000))
      ->excludes("--all");
  cmd->add_flag("--trace", o->trace, "log each rule as it fires (to stderr)");
  cmd->add_option("--max-steps", o->max_steps, "stop after this many rule applications")->check(integer_in(0));
  cmd->add_option("--max-nodes", o->max_nodes, "stop when the program grows past this many IR nodes")
      ->check(integer_in(1));
  cmd->add_option("--max-seconds", o->max_seconds, "stop after this much time")->check(finite_non_negative());
  cmd->add_option("--max-alternatives", o->max_alternatives,
                  "alternatives kept (with --all; without it, those the first the program's sizes allow is chosen from)")
      ->check(integer_in(1, 1000000));
  cmd->callback([o] { run_rewrite(*o); });
}

}  // namespace liftc::tool
