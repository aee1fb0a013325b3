// liftc: the command-line front end. Each subcommand runs the pipeline up to its stage
// (see DESIGN.md); this file only registers them and reports errors.

#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "liftc/support/diagnostic.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "liftc: a rewrite-based compiler that generates OpenCL kernels (direct convolutions and more)\n"
      "from a functional data-parallel program (.sr), in the style of the Lift project.",
      "liftc"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "liftc 0.1");
  liftc::tool::add_check_command(app);
  liftc::tool::add_eval_command(app);
  liftc::tool::add_compile_command(app);
  liftc::tool::add_run_command(app);
  liftc::tool::add_rewrite_command(app);
  liftc::tool::add_rules_command(app);
  liftc::tool::add_devices_command(app);
  liftc::tool::add_space_command(app);
  liftc::tool::add_explore_command(app);
  liftc::tool::add_results_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const liftc::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    // Anything else is a bug in liftc, but the user still gets a message, not a crash.
    std::fprintf(stderr, "liftc: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}
