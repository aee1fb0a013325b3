#pragma once
// The liftc subcommands. Each registers its flags on a CLI11 app and runs the pipeline
// up to its stage; main.cpp only dispatches and turns liftc::Error into exit code 1.

#include <CLI/CLI.hpp>

namespace liftc::tool {

/// `liftc check F.sr`: parse and type check; print each definition's type.
void add_check_command(CLI::App& app);
/// `liftc eval F.sr`: run the reference interpreter on given or random inputs.
void add_eval_command(CLI::App& app);
/// `liftc rewrite F.sr --strategy S`: print the rewritten program(s) in .sr syntax.
void add_rewrite_command(CLI::App& app);
/// `liftc rules`: list the rewrite rules and strategies.
void add_rules_command(CLI::App& app);
/// `liftc devices`: list OpenCL platforms and devices.
void add_devices_command(CLI::App& app);
/// `liftc compile F.sr -o DIR`: kernels and a standalone host program.
void add_compile_command(CLI::App& app);
/// `liftc run F.sr`: generate, run on a device, validate, time.
void add_run_command(CLI::App& app);
/// `liftc space F.sr`: the tuning-parameter space of the rewritten alternatives on a target.
void add_space_command(CLI::App& app);

/// `liftc features F.sr -s S --params P`: what explore's cost model sees of one candidate.
void add_features_command(CLI::App& app);
/// `liftc explore F.sr`: search the tuning space on a device; the Pareto front.
void add_explore_command(CLI::App& app);
/// `liftc results DB`: list or export a results store.
void add_results_command(CLI::App& app);
/// `liftc deploy DIR -o OUT`: a front as a library that chooses its point at run time.
void add_deploy_command(CLI::App& app);
/// `liftc worker --db URL --device D`: runs the candidates explorations queue for its device.
void add_worker_command(CLI::App& app);

}  // namespace liftc::tool
