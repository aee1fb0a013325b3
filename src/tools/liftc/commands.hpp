#pragma once
// The liftc subcommands. Each registers its flags on a CLI11 app and runs the pipeline
// up to its stage; main.cpp only dispatches and turns liftc::Error into exit code 1.

#include <CLI/CLI.hpp>

namespace liftc::tool {

/// `liftc check F.sr`: parse and type check; print each definition's type.
void add_check_command(CLI::App& app);
/// `liftc eval F.sr`: run the reference interpreter on given or random inputs.
void add_eval_command(CLI::App& app);

}  // namespace liftc::tool
