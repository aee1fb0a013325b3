// `liftc worker --db URL [--device D] [--runner CMD] [--timeout S] [--lease S]`: a worker of
// the work queue in a PostgreSQL store (explore/evaluation/queue_worker.hpp): it runs the
// candidates that `liftc explore --workers` queue for its device kind until SIGINT or
// SIGTERM, which stop it cleanly (its candidate goes back to the queue; exit code 0).
// `liftc worker --list --db URL` lists the store's workers instead: who works, on what.

#include <cmath>
#include <cstdio>

#include <fmt/format.h>

#include "commands.hpp"
#include "liftc/explore/evaluation/queue_worker.hpp"
#include "liftc/explore/store/queue.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::tool {

void add_worker_command(CLI::App& app) {
  auto o = std::make_shared<explore::QueueWorkerOptions>();
  auto quiet = std::make_shared<bool>(false);
  auto list = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "worker", "Run the candidates that explorations (liftc explore --workers) queue in a PostgreSQL store for this "
                "device, until SIGINT or SIGTERM");
  cmd->add_option("--db", o->db,
                  "the PostgreSQL store explorations queue in (postgresql://USER@HOST/DATABASE; or $LIFTC_WORKER_DB, "
                  "which keeps a password in it off the command line)")
      ->envname("LIFTC_WORKER_DB")
      ->required();
  cmd->add_option("--device", o->device, "the device the runner uses (index or part of its name; default: the first)");
  cmd->add_option("--runner", o->runner,
                  "run each bundle with `CMD BUNDLE_DIR` (e.g. scripts/adb_runner.sh SERIAL) instead of a serving "
                  "liftc-runner");
  cmd->add_option("--timeout", o->probe_timeout_s,
                  "seconds the device probe may take (default 60; a candidate runs under its exploration's --timeout)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--lease", o->lease_s,
                  "seconds a claim holds without a heartbeat (default 30, renewed every third of it): a worker "
                  "killed is noticed this late, and its candidate runs elsewhere")
      ->check(CLI::Range(1.0, 86400.0));
  cmd->add_flag("--quiet,-q", *quiet, "print nothing but errors");
  cmd->add_flag("--list", *list,
                "list the store's workers (host, pid, device, candidates done, what each does now) instead of "
                "working");
  cmd->callback([o, quiet, list] {
    if (*list) {
      fmt::print("{}", explore::workers_table(explore::Queue::open(o->db, "liftc worker --list --db")->workers()));
      return;
    }
    if (!*quiet)
      o->say = [](const std::string& line) {
        fmt::print("{}\n", line);
        std::fflush(stdout);
      };
    explore::run_queue_worker(*o);
  });
}

}  // namespace liftc::tool
