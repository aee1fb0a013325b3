// A Request's options checked and settled (settings.hpp).

#include "settings.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <thread>

#include <fmt/format.h>

#include "liftc/codegen/module.hpp"
#include "liftc/explore/store/store.hpp"
#include "liftc/runtime/validate.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::explore {

namespace {

std::uint64_t whole_number(const std::string& flag, const std::string& text, std::uint64_t min, std::uint64_t max) {
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || v < min || v > max)
    throw Error(fmt::format("{} {}: expected a whole number from {} to {}", flag, text, min, max));
  return v;
}

double positive_number(const std::string& flag, const std::string& text) {
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || !(v > 0) || !std::isfinite(v))
    throw Error(fmt::format("{} {}: expected a number of seconds greater than 0", flag, text));
  return v;
}

// The first word of a --runner command must name an executable (a path, or one on $PATH).
void check_runner_command(const std::string& command) {
  if (command.find_first_not_of(" \t") == std::string::npos) throw Error("--runner: the command is empty");
  if (runner_executable(command)) return;
  std::string word = command.substr(0, command.find_first_of(" \t"));
  if (word.find('/') != std::string::npos)
    throw Error(fmt::format("--runner '{}': {} is not an executable file", command, word));
  throw Error(fmt::format("--runner '{}': no executable '{}' (not a path, not on $PATH)", command, word));
}

void settle_search(const Request& o, Settings& s) {
  s.search = &search_kind(o.search);
  s.storage = codegen::parse_storage(o.storage);
  // --time alone: the clock is the budget. The evaluations' default of 100 ended the README's
  // `--time 120` of a VGG-16 layer after 100 candidates, 27 s on an H200 (issue 37).
  const std::string evals = !o.evals.empty() ? o.evals : o.time.empty() ? "100" : std::to_string(kUnboundedEvaluations);
  s.budget.evaluations = whole_number("--evals", evals, 1, kUnboundedEvaluations);
  if (!o.time.empty()) s.budget.seconds = positive_number("--time", o.time);
  s.seed = whole_number("--seed", o.seed, 0, UINT64_MAX);
  s.input_seed = whole_number("--input-seed", o.input_seed, 0, UINT64_MAX);
  if (!o.seeds.empty() && o.replay.empty())
    throw Error("--seeds replays the search with that many seeds against a store: give it with --replay DB");
  if (!o.seeds.empty()) s.replay_seeds = whole_number("--seeds", o.seeds, 1, 100'000);
  if (!o.max_program_alternatives.empty())
    s.max_program_alternatives = whole_number("--max-program-alternatives", o.max_program_alternatives, 1, 1'000'000);
  if (o.selection != "tournament" && o.selection != "roulette")
    throw Error(fmt::format("--selection {}: expected 'tournament' or 'roulette'", o.selection));
  s.genetic.selection = o.selection == "roulette" ? Selection::Roulette : Selection::Tournament;
  s.genetic.population = o.population.empty() ? std::clamp<std::size_t>(s.budget.evaluations / 5, 4, 24)
                                              : whole_number("--population", o.population, 2, 100000);
  s.genetic.pareto = o.pareto;
  if (o.warm_start && !s.search->population) {
    std::string names = search_names([](const SearchKind& k) { return k.population; }, false);
    throw Error(fmt::format("--warm-start seeds the {0} search's first generation: give it with --search {0}", names));
  }
  if (!o.train_dbs.empty() && s.search->name != "model")
    throw Error("--train-db trains the model-guided search's model: give it with --search model");
  for (std::size_t i = 0; i < o.train_dbs.size(); ++i)
    for (std::size_t k = 0; k < i; ++k)
      if (o.train_dbs[k] == o.train_dbs[i])  // its rows would count twice
        throw Error(fmt::format("--train-db {} is given twice", shown_store_name(o.train_dbs[i])));
}

void settle_evaluator(const Request& o, Settings& s) {
  if (!o.runner.empty()) check_runner_command(o.runner);
  s.evaluator.runner = o.runner;
  s.evaluator.isolate = o.isolate;
  s.evaluator.timeout_s = positive_number("--timeout", o.timeout);
  s.evaluator.bundle.device = o.device;
  s.evaluator.bundle.runs = static_cast<int>(whole_number("--runs", o.runs, 1, 1000));
  s.evaluator.bundle.warmup = static_cast<int>(whole_number("--warmup", o.warmup, 0, 1000));
  // As the flags' validators say; checked again for the options a --resume reads back.
  if (!(o.rtol >= 0) || !(o.atol >= 0) || !std::isfinite(o.rtol) || !std::isfinite(o.atol))
    throw Error(fmt::format("--rtol {} --atol {}: the tolerances must be finite numbers >= 0", o.rtol, o.atol));
  // Half storage: one half ulp more (runtime::Tolerance::for_half), for every output.
  s.evaluator.bundle.rtol = s.storage.any() ? runtime::Tolerance{o.rtol, o.atol}.for_half().rtol : o.rtol;
  s.evaluator.bundle.atol = o.atol;
  try {
    codegen::Options checked;
    checked.build_options = o.build_options;
    codegen::build_options(checked);  // one line, no control characters
  } catch (const Error& e) {
    throw Error(fmt::format("--build-options: {}", e.message()));
  }
  s.evaluator.build_options = o.build_options;
  s.external_workers = o.workers == "external";
  if (!o.workers.empty() && !s.external_workers) {
    try {
      s.workers = static_cast<std::size_t>(whole_number("--workers", o.workers, 1, 1024));
    } catch (const Error&) {
      throw Error(fmt::format("--workers {}: expected a number of workers from 1 to 1024, or 'external'", o.workers));
    }
  }
  // With workers, as many candidates at once as they are (external ones: give --jobs).
  s.jobs = !o.jobs.empty() ? static_cast<std::size_t>(whole_number("--jobs", o.jobs, 1, 1024))
           : s.workers > 0 ? s.workers
                           : std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace

Settings settle(const Request& r) {
  Settings s;
  settle_search(r, s);
  settle_evaluator(r, s);
  return s;
}

void require_size_values(const ir::Program& program) {
  std::vector<std::string> missing;
  SourceLoc first;
  for (const auto& s : program.sizes)
    if (!s.value) {
      if (missing.empty()) first = s.loc;
      missing.push_back(s.name);
    }
  if (missing.empty()) return;
  if (missing.size() == 1)
    throw Error(fmt::format("size {0} has no value: explore runs the program, so declare its value in the program "
                            "(size {0} = <value>); explore has no --size",
                            missing.front()),
                first);
  throw Error(fmt::format("sizes {} have no value: explore runs the program, so declare their values in the program "
                          "(size {} = <value>, ...); explore has no --size",
                          fmt::join(missing, ", "), missing.front()),
              first);
}

}  // namespace liftc::explore
