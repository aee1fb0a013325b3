#pragma once
// The front half of the pipeline shared by the commands, as one readable function:
// parse -> type check (symbolic) -> bind sizes -> type check (concrete).

#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "liftc/codegen/module.hpp"
#include "liftc/interp/interp.hpp"
#include "liftc/ir/expr.hpp"

namespace liftc::tool {

/// The size/parameter flags of a command: `--size N=64` (repeatable) and
/// `--params a=1,b=2` (tuning parameters are sizes too).
struct SizeFlags {
  std::vector<std::string> sizes;
  std::string params;
  /// All of them as one map; a name given twice is a liftc::Error.
  std::map<std::string, long long> values() const;
  /// Those of --params alone.
  std::map<std::string, long long> param_values() const;
};

/// Registers --size and --params on a command.
void add_size_flags(CLI::App& cmd, SizeFlags& flags);

/// `--dump-after PASS`: print the program or the kernels after a pass of the pipeline
/// (codegen::pipeline_pass_names(), or `all`).
struct DumpFlag {
  std::string after;  // empty: no dump
  /// Whether the dump follows `pass`.
  bool wants(const std::string& pass) const { return after == "all" || after == pass; }
  /// Prints `text` under a header naming the pass (and the kernel, when given).
  void print(const std::string& pass, const std::string& kernel, const std::string& text) const;
};

/// Registers --dump-after on a command (checked against the pass names).
void add_dump_flag(CLI::App& cmd, DumpFlag& flag);

/// Loads `file`, checks it symbolically (errors read better with names), binds every size,
/// and checks it again with concrete lengths: the passes parse, typecheck and bind-sizes,
/// each printed after it ran when `dump` asks.
ir::Program load_bound_program(const std::string& file, const SizeFlags& sizes, const DumpFlag& dump = {});

/// codegen::generate(checked, options); where it fails on a high-level program (one with
/// no mapGlb, mapWrg or mapLcl: not rewritten yet), the error says to rewrite `file` first.
codegen::Module generate_kernels(const std::string& file, const ir::Program& checked, const codegen::Options& options);

/// Random inputs from `seed`, replaced by `--input name=file.npy` ones.
interp::Tensors load_inputs(const ir::Program& checked, const std::vector<std::string>& input_flags,
                            std::uint64_t seed);

}  // namespace liftc::tool
