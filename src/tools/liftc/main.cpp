// liftc: the command-line front end. Each subcommand runs the pipeline up to its stage
// (see DESIGN.md); this file only registers them and reports errors.

#include <csignal>
#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "liftc/support/diagnostic.hpp"

int main(int argc, char** argv) {
  // Over a file-size limit (`ulimit -f`) a write fails with EFBIG, which liftc reports as
  // an error like a full disk; the default SIGXFSZ would kill liftc mid-write instead,
  // leaving temporary folders and a half-written store behind.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{
      "liftc: a rewrite-based compiler that generates OpenCL kernels (direct convolutions and more)\n"
      "from a functional data-parallel program (.sr), in the style of the Lift project.",
      "liftc"};
  app.require_subcommand(1);
  // This help lists the commands; each command's own lists its flags.
  app.footer("Each command's arguments and flags: liftc COMMAND --help (e.g. liftc explore --help).");
  app.set_version_flag("--version", "liftc 0.1");
  liftc::tool::add_check_command(app);
  liftc::tool::add_eval_command(app);
  liftc::tool::add_compile_command(app);
  liftc::tool::add_run_command(app);
  liftc::tool::add_rewrite_command(app);
  liftc::tool::add_rules_command(app);
  liftc::tool::add_devices_command(app);
  liftc::tool::add_space_command(app);
  liftc::tool::add_features_command(app);
  liftc::tool::add_explore_command(app);
  liftc::tool::add_results_command(app);
  liftc::tool::add_deploy_command(app);
  liftc::tool::add_worker_command(app);

  // A flag error is one line, "error: --runs: expects ...", and exit code 1 like any other
  // user error; --help and --version still print and exit 0.
  app.failure_message([](const CLI::App*, const CLI::Error& e) { return std::string("error: ") + e.what() + "\n"; });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;
  } catch (const liftc::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    // Sizes are checked against memory where values are allocated; this is the backstop.
    std::fprintf(stderr, "error: out of memory (are the sizes or inputs too large for this machine?)\n");
    return 1;
  } catch (const std::exception& e) {
    // Anything else is a bug in liftc, but the user still gets a message, not a crash.
    std::fprintf(stderr, "liftc: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}
