// `liftc explore F.sr`: the flags of an exploration into an explore::Request, and its
// report on stdout (the progress line on stderr). explore::run (src/explore/explore.cpp)
// does the rest: the search on a device, every evaluation watched in a runner process and
// recorded in the results store, the Pareto front of time against memory and the -o files;
// `--resume` continues an interrupted run, `--replay DB` runs a search against a store.

#include <cstdio>

#include <fmt/format.h>

#include "codegen_flags.hpp"
#include "commands.hpp"
#include "liftc/explore/candidates/constraint_space.hpp"
#include "liftc/explore/explore.hpp"
#include "liftc/explore/search/registry.hpp"
#include "options.hpp"

namespace liftc::tool {

namespace {

// The report on stdout, flushed at each print: the progress line on stderr comes after it.
class StdoutReporter : public explore::Reporter {
 public:
  void print(std::string_view text) override {
    fmt::print("{}", text);
    std::fflush(stdout);
  }
  std::FILE* progress() override { return stderr; }
};

}  // namespace

void add_explore_command(CLI::App& app) {
  auto o = std::make_shared<explore::Request>();
  CLI::App* cmd = app.add_subcommand(
      "explore",
      "Search the tuning space on a device (model-guided by default, random or genetic/NSGA-II); print and write the "
      "Pareto front");
  cmd->add_option("file", o->file, "the .sr program (optional with --resume)");
  cmd->add_option("--strategy,-s", o->strategies,
                  "a strategy (repeatable), or @TAG for every strategy tagged TAG (@fast, @gpu: `liftc rules` shows the tags); default: those of rules/strategies.rules that apply");
  cmd->add_option("--target,-t", o->target, "a target profile for the constraints (default: the device's own limits)");
  cmd->add_option("--device", o->device, "the device the runner uses (index or part of its name; default: the first)");
  cmd->add_option("--search", o->search, explore::search_help());
  cmd->add_option(
      "--evals", o->evals,
      "budget: candidates to evaluate (default 100; with --time and no --evals, none: the clock ends the run)");
  cmd->add_option("--time", o->time,
                  "budget: seconds of the search loop's wall time (the device probe, space and reference before it are "
                  "not counted; default: no limit)");
  cmd->add_option("--seed", o->seed, "seed of the search: the same seed gives the same candidates (default 1)");
  cmd->add_option("--input-seed", o->input_seed, "seed of the random inputs (default 0)");
  cmd->add_flag("--pareto", o->pareto, "optimize time and memory (NSGA-II for genetic); print and write the front");
  cmd->add_flag("--whole-program", o->whole_program,
                "explore a network (two or more definitions that compute) as one program (default: layer by layer, "
                "each layer with its own space and reference, the network's front composed from theirs)");
  cmd->add_flag("--warm-start", o->warm_start,
                "genetic, model: start the first generation from the fastest validated points that earlier runs stored for "
                "this program on this device (up to a population of them; the store is --db)");
  cmd->add_option("--fusion", o->fusion,
                  "a network explored layer by layer: 'on' (default) also explores each definition that is one-to-one "
                  "over another's output (a bias, an activation, a residual add) fused into it, as alternatives of "
                  "the network's front; 'off' the layers as written only; 'only' the fused network only");
  cmd->add_option("--max-program-alternatives", o->max_program_alternatives,
                  fmt::format("--whole-program: the most alternatives of the whole program, over its strategies "
                              "(default {}; each definition's alternatives combine)",
                              explore::kDefaultMaxProgramAlternatives));
  cmd->add_option("--population", o->population, "genetic: individuals per generation; model: its first round, before the model ranks (default evals/5, 4..24)");
  cmd->add_option("--selection", o->selection, "genetic: tournament or roulette (default tournament)");
  cmd->add_option("-o,--output", o->out_dir, "write the front's kernels and host programs, pareto.csv/json, evaluated.csv");
  cmd->add_flag("--force", o->force, "overwrite an earlier exploration's files in the -o folder");
  cmd->add_option("--db", o->db, "the results store (default DIR/results.db with -o, else ./liftc-results.db)");
  cmd->add_flag("--resume", o->resume, "continue the store's last unfinished run (its options are read back)");
  cmd->add_option("--replay", o->replay, "run the search against a store's results instead of a device");
  cmd->add_option("--train-db", o->train_dbs,
                  "model: train the model first on the rows of other programs, shapes and devices of this store (a "
                  "SQLite path or a postgresql:// URL), and start from the nearest shapes' best points; repeatable, "
                  "the stores' rows together (default: --db)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--seeds", o->seeds,
                  "with --replay: replay the search with N seeds (--seed, --seed + 1, ...) and print the median best "
                  "found against the number of measurements and the median measurements to within 5% and 10% of the "
                  "store's best");
  cmd->add_option("--runner", o->runner, "run each bundle with `CMD BUNDLE_DIR` (e.g. scripts/adb_runner.sh) instead of liftc-runner");
  cmd->add_option("--jobs,-j", o->jobs,
                  "candidates evaluated at once: generated and built in parallel, timed one at a time (default: "
                  "the number of hardware threads)");
  cmd->add_option("--workers", o->workers,
                  "run the candidates on `liftc worker` processes through a work queue in the --db PostgreSQL store: "
                  "N starts N workers here (with --runner and --device) and stops them at the end; 'external' only "
                  "queues, for workers started elsewhere (give --jobs as many as they are)");
  cmd->add_flag("--isolate", o->isolate,
                "run every candidate in a fresh liftc-runner process (default: one serving runner per job, which "
                "keeps its OpenCL context from one candidate to the next)");
  cmd->add_option("--timeout", o->timeout, "seconds a candidate may run before the watchdog kills it (default 60)");
  cmd->add_option("--runs", o->runs, "timed runs per candidate (default 5; the median is kept)");
  cmd->add_option("--warmup", o->warmup, "untimed runs first (default 1: the validated run)");
  cmd->add_option("--build-options", o->build_options,
                  "more OpenCL compiler options for every candidate, e.g. \"-cl-fast-relaxed-math\" (after the mad "
                  "parameter's -cl-mad-enable; the front's host programs use them too)");
  cmd->add_option("--storage", o->storage, kStorageHelp);
  cmd->add_option("--rtol", o->rtol, "relative tolerance of the validation (default 1e-3; with --storage half, 2^-10 "
                                     "more)")->check(finite_non_negative());
  cmd->add_option("--atol", o->atol, "absolute tolerance of the validation (default 1e-3)")->check(finite_non_negative());
  cmd->add_option("--rules", o->rules_dir, kRulesFlagHelp);
  cmd->add_flag("--quiet,-q", o->quiet, "no progress line");
  cmd->callback([o] {
    StdoutReporter report;
    explore::run(*o, report);
  });
}

}  // namespace liftc::tool
