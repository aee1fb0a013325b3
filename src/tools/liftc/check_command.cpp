// `liftc check`: parse + type check, print each definition's type.

#include <algorithm>

#include <fmt/format.h>

#include "commands.hpp"
#include "liftc/interp/interp.hpp"
#include "pipeline.hpp"
#include "liftc/ir/printer.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace liftc::tool {

namespace {

struct CheckOptions {
  std::string file;
  bool print_program = false;
  bool no_prelude = false;
  SizeFlags sizes;
};

const char* describe(typecheck::Obligation::Kind k) {
  switch (k) {
    case typecheck::Obligation::Kind::Divides: return "divides";
    case typecheck::Obligation::Kind::Positive: return "positive";
    case typecheck::Obligation::Kind::NonNegative: return "non-negative";
  }
  return "?";
}

void run_check(const CheckOptions& o) {
  parse::ParseOptions parse_options;
  parse_options.with_prelude = !o.no_prelude;
  ir::Program program = parse::load_program(o.file, parse_options);
  typecheck::Checked checked = typecheck::typecheck(program);
  // With every size known (declared or given), the assumptions the types make are
  // decided, not listed.
  std::map<std::string, long long> given = o.sizes.values();
  bool all_sizes_known = std::all_of(program.sizes.begin(), program.sizes.end(), [&](const ir::SizeDecl& s) {
    return s.value.has_value() || given.count(s.name);
  });
  if (all_sizes_known) interp::check_sizes(typecheck::typecheck(ir::bind_sizes(program, given)).program);

  for (ir::SizeDecl s : checked.program.sizes) {
    if (auto it = given.find(s.name); it != given.end()) s.value = it->second;
    fmt::print("size {}\n", ir::to_string(s));
  }
  for (const auto& in : checked.program.inputs) fmt::print("input {} : {}\n", in.name, ir::to_string(in.type));
  for (const auto& f : checked.program.functions)
    if (!f.from_prelude) fmt::print("def {}({}) : function, expanded where used\n", f.name, fmt::join(f.params, ", "));
  for (const auto& d : checked.program.defs) fmt::print("def {} : {}\n", d.name, ir::to_string(d.body.type()));
  for (const auto& ob : all_sizes_known ? std::vector<typecheck::Obligation>{} : checked.obligations) {
    std::string what = ob.kind == typecheck::Obligation::Kind::Divides
                           ? fmt::format("{} divides {}", arith::to_string(ob.divisor), arith::to_string(ob.value))
                           : fmt::format("{} is {}", arith::to_string(ob.value), describe(ob.kind));
    fmt::print("assumes {} ({}, line {})\n", what, ob.what, ob.loc.line);
  }
  if (o.print_program) fmt::print("\n{}", ir::to_string(checked.program));
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto options = std::make_shared<CheckOptions>();
  CLI::App* cmd = app.add_subcommand("check", "Parse and type check an .sr program; print each definition's type");
  cmd->add_option("file", options->file, "the .sr program")->required();
  cmd->add_flag("--print", options->print_program, "also print the elaborated program (functions expanded)");
  cmd->add_flag("--no-prelude", options->no_prelude, "do not load dsl/prelude.sr");
  add_size_flags(*cmd, options->sizes);
  cmd->callback([options] { run_check(*options); });
}

}  // namespace liftc::tool
