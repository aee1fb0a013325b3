#include "pipeline.hpp"

#include <fmt/format.h>

#include "liftc/io/tensor.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/typecheck/typecheck.hpp"
#include "options.hpp"

namespace liftc::tool {

std::map<std::string, long long> SizeFlags::values() const {
  std::vector<std::string> assignments;
  std::size_t begin = 0;
  while (begin < params.size()) {
    std::size_t end = params.find(',', begin);
    if (end == std::string::npos) end = params.size();
    if (end > begin) assignments.push_back(params.substr(begin, end - begin));
    begin = end + 1;
  }
  // Each flag's mistakes are reported under its own name.
  std::map<std::string, long long> all = parse_size_flags(sizes, "--size");
  for (const auto& [name, value] : parse_size_flags(assignments, "--params"))
    if (!all.emplace(name, value).second) throw Error(fmt::format("{} is given by both --size and --params", name));
  return all;
}

ir::Program load_bound_program(const std::string& file, const SizeFlags& sizes) {
  ir::Program program = parse::load_program(file);
  typecheck::typecheck(program);
  ir::Program bound = ir::bind_sizes(program, sizes.values());
  ir::Program checked = typecheck::typecheck(bound).program;
  interp::check_sizes(checked);
  return checked;
}

interp::Tensors load_inputs(const ir::Program& checked, const std::vector<std::string>& input_flags,
                            std::uint64_t seed) {
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
