#include "pipeline.hpp"


#include <fmt/format.h>

#include "liftc/codegen/passes.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/io/tensor.hpp"
#include "liftc/ir/expr.hpp"
#include "liftc/ir/printer.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/typecheck/typecheck.hpp"
#include "options.hpp"

namespace liftc::tool {

namespace {

// Whether `p` maps any computation onto OpenCL's work-items (mapGlb, mapWrg, mapLcl).
bool mapped_onto_opencl(const ir::Program& p) {
  for (const auto& d : p.defs)
    if (ir::contains_parallel_maps(d.body)) return true;
  return false;
}

}  // namespace

codegen::Module generate_kernels(const std::string& file, const ir::Program& checked, const codegen::Options& options) {
  try {
    return codegen::generate(checked, options);
  } catch (const Error& e) {
    if (mapped_onto_opencl(checked)) throw;
    throw Error(fmt::format("{}; {} is a high-level program: rewrite it first: liftc rewrite {} --strategy S "
                            "(liftc rules lists them)",
                            e.message(), file, file),
                e.loc());
  }
}

std::map<std::string, long long> SizeFlags::param_values() const {
  std::vector<std::string> assignments;
  std::size_t begin = 0;
  while (begin < params.size()) {
    std::size_t end = params.find(',', begin);
    if (end == std::string::npos) end = params.size();
    if (end > begin) assignments.push_back(params.substr(begin, end - begin));
    begin = end + 1;
  }
  return parse_size_flags(assignments, "--params");
}

std::map<std::string, long long> SizeFlags::values() const {
  // Each flag's mistakes are reported under its own name.
  std::map<std::string, long long> all = parse_size_flags(sizes, "--size");
  for (const auto& [name, value] : param_values())
    if (!all.emplace(name, value).second) throw Error(fmt::format("{} is given by both --size and --params", name));
  return all;
}

void DumpFlag::print(const std::string& pass, const std::string& kernel, const std::string& text) const {
  if (!wants(pass)) return;
  fmt::print("// ---- after {}{} ----\n{}{}", pass, kernel.empty() ? "" : ": " + kernel, text,
             text.empty() || text.back() == '\n' ? "" : "\n");
}

void add_dump_flag(CLI::App& cmd, DumpFlag& flag) {
  std::vector<std::string> names = codegen::pipeline_pass_names();
  names.push_back("all");
  cmd.add_option("--dump-after", flag.after,
                 fmt::format("print the program or kernels after a pass: {}", fmt::join(names, ", ")))
      ->check(CLI::IsMember(names));
}

ir::Program load_bound_program(const std::string& file, const SizeFlags& sizes, const DumpFlag& dump) {
  ir::Program program = parse::load_program(file);
  dump.print("parse", "", ir::to_string(program));
  ir::Program symbolic = typecheck::typecheck(program).program;
  dump.print("typecheck", "", ir::to_string(symbolic));
  ir::Program bound = ir::bind_sizes(program, sizes.values());
  ir::Program checked = typecheck::typecheck(bound).program;
  interp::check_sizes(checked);
  dump.print("bind-sizes", "", ir::to_string(checked));
  return checked;
}

interp::Tensors load_inputs(const ir::Program& checked, const std::vector<std::string>& input_flags,
                            std::uint64_t seed) {
  interp::require_tensor_inputs(checked);
  interp::Tensors inputs = interp::random_inputs(checked, seed);
  for (const auto& [name, path] : parse_input_flags(input_flags)) {
    if (!inputs.count(name)) throw Error(fmt::format("--input {}: the program has no input named '{}'", name, name));
    inputs[name] = io::read_npy(path);
  }
  return inputs;
}

void add_size_flags(CLI::App& cmd, SizeFlags& flags) {
  cmd.add_option("--size", flags.sizes, "give or override a size: N=64 (repeatable)");
  cmd.add_option("--params", flags.params, "tuning parameter values: theta=4,kappa=2 (sizes too)");
}

}  // namespace liftc::tool
