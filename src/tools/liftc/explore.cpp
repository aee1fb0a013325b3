// `liftc explore F.sr`: search the rewritten programs' parameter spaces on a device
// (random or genetic/NSGA-II), every evaluation watched in a runner process and recorded
// in a SQLite store; print the Pareto front of time against memory and write its kernels,
// host programs and tables. `--resume` continues an interrupted run; `--replay DB` runs a
// search against a store's results instead of a device.

#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "commands.hpp"
#include "liftc/codegen/module.hpp"
#include "liftc/constraints/target.hpp"
#include "liftc/explore/candidates/constraint_space.hpp"
#include "liftc/explore/evaluation/evaluate.hpp"
#include "liftc/explore/search/loop.hpp"
#include "liftc/explore/search/registry.hpp"
#include "liftc/explore/candidates/library.hpp"
#include "liftc/explore/products/network.hpp"
#include "liftc/explore/products/output.hpp"
#include "liftc/explore/store/session.hpp"
#include "liftc/explore/store/stored_target.hpp"
#include "liftc/explore/search/warm_start.hpp"
#include "liftc/explore/evaluation/worker.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/rewrite/load.hpp"
#include "liftc/support/data_dir.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/support/file.hpp"
#include "liftc/support/interrupt_cleanup.hpp"
#include "options.hpp"

namespace liftc::tool {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Everything a run depends on; stored with the run so --resume can redo it.
struct ExploreOptions {
  std::string file;
  std::vector<std::string> strategies;
  std::string target, device, search = "random", evals = "100", time, seed = "1", input_seed = "0";
  std::string runner, timeout = "60", runs = "5", warmup = "1", population, selection = "tournament";
  std::string build_options;
  std::string max_program_alternatives;  // --whole-program: the bound on its alternatives ("" = the default)
  double rtol = 1e-3, atol = 1e-3;
  bool pareto = false;
  bool whole_program = false;  // a program of several definitions explored as one, not layer by layer
  bool warm_start = false;     // generation 0 seeded with the store's fastest points (warm_start.hpp)
  // Not stored: where results go and how. (The rules folder and what identifies the
  // program and the rules are stored besides the options: see run_explore.)
  std::string out_dir, db, replay, rules_dir, jobs;
  bool force = false, resume = false, quiet = false, isolate = false;
};

json to_json(const ExploreOptions& o) {
  return {{"file", o.file},       {"strategies", o.strategies}, {"target", o.target},   {"device", o.device},
          {"search", o.search},   {"evals", o.evals},           {"time", o.time},       {"seed", o.seed},
          {"input_seed", o.input_seed}, {"runner", o.runner},   {"timeout", o.timeout}, {"runs", o.runs},
          {"warmup", o.warmup},   {"population", o.population}, {"selection", o.selection},
          {"rtol", o.rtol},       {"atol", o.atol},             {"pareto", o.pareto},
          {"build_options", o.build_options}, {"whole_program", o.whole_program}, {"warm_start", o.warm_start},
          {"max_program_alternatives", o.max_program_alternatives}};
}

// Throws nlohmann::json's exceptions on a config that lacks a key or has a wrong type:
// read_stored turns them into the store's damage.
void from_json(const json& j, ExploreOptions& o) {
  o.file = j.at("file");
  o.strategies = j.at("strategies").get<std::vector<std::string>>();
  for (auto [key, field] : std::initializer_list<std::pair<const char*, std::string*>>{
           {"target", &o.target}, {"device", &o.device}, {"search", &o.search}, {"evals", &o.evals},
           {"time", &o.time}, {"seed", &o.seed}, {"input_seed", &o.input_seed}, {"runner", &o.runner},
           {"timeout", &o.timeout}, {"runs", &o.runs}, {"warmup", &o.warmup}, {"population", &o.population},
           {"selection", &o.selection}})
    *field = j.at(key).get<std::string>();
  o.rtol = j.at("rtol");
  o.atol = j.at("atol");
  o.pareto = j.at("pareto");
  o.build_options = j.value("build_options", "");  // stores written before --build-options lack it
  o.whole_program = j.value("whole_program", false);  // nor before networks were explored by layer
  o.warm_start = j.value("warm_start", false);        // nor before --warm-start
  o.max_program_alternatives = j.value("max_program_alternatives", "");  // nor before --max-program-alternatives
}

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
  if (explore::runner_executable(command)) return;
  std::string word = command.substr(0, command.find_first_of(" \t"));
  if (word.find('/') != std::string::npos)
    throw Error(fmt::format("--runner '{}': {} is not an executable file", command, word));
  throw Error(fmt::format("--runner '{}': no executable '{}' (not a path, not on $PATH)", command, word));
}

// explore runs the program on inputs of its sizes, and has no --size flag (its runs are
// stored and resumed by the program file's text): every size needs its value in the program.
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

// The settled values of the options, checked.
struct Settings {
  explore::Budget budget;
  std::uint64_t seed = 1, input_seed = 0;
  explore::GeneticOptions genetic;
  const explore::SearchKind* search = nullptr;  // from the registry (registry.hpp)
  explore::EvaluatorOptions evaluator;
  std::size_t jobs = 1;  // candidates evaluated at once
  std::size_t max_program_alternatives = explore::kDefaultMaxProgramAlternatives;
};

Settings settle(const ExploreOptions& o) {
  Settings s;
  s.search = &explore::search_kind(o.search);
  s.budget.evaluations = whole_number("--evals", o.evals, 1, 10'000'000);
  if (!o.time.empty()) s.budget.seconds = positive_number("--time", o.time);
  s.seed = whole_number("--seed", o.seed, 0, UINT64_MAX);
  s.input_seed = whole_number("--input-seed", o.input_seed, 0, UINT64_MAX);
  if (!o.max_program_alternatives.empty())
    s.max_program_alternatives = whole_number("--max-program-alternatives", o.max_program_alternatives, 1, 1'000'000);
  if (o.selection != "tournament" && o.selection != "roulette")
    throw Error(fmt::format("--selection {}: expected 'tournament' or 'roulette'", o.selection));
  s.genetic.selection = o.selection == "roulette" ? explore::Selection::Roulette : explore::Selection::Tournament;
  s.genetic.population = o.population.empty()
                             ? std::clamp<std::size_t>(s.budget.evaluations / 5, 4, 24)
                             : whole_number("--population", o.population, 2, 100000);
  s.genetic.pareto = o.pareto;
  if (o.warm_start && !s.search->population) {
    std::string names = explore::search_names([](const explore::SearchKind& k) { return k.population; }, false);
    throw Error(fmt::format("--warm-start seeds the {0} search's first generation: give it with --search {0}", names));
  }
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
  s.evaluator.bundle.rtol = o.rtol;
  s.evaluator.bundle.atol = o.atol;
  try {
    codegen::Options checked;
    checked.build_options = o.build_options;
    codegen::build_options(checked);  // one line, no control characters
  } catch (const Error& e) {
    throw Error(fmt::format("--build-options: {}", e.message()));
  }
  s.evaluator.build_options = o.build_options;
  s.jobs = o.jobs.empty() ? std::max(1u, std::thread::hardware_concurrency())
                          : static_cast<std::size_t>(whole_number("--jobs", o.jobs, 1, 1024));
  return s;
}

std::unique_ptr<explore::Search> make_search(const Settings& s, explore::CandidateSpace& space) {
  return s.search->make(space, {s.seed, s.genetic});
}

// The last unfinished run of `store`, locked (explore::resume_last_run); its options are
// read into `o` (all but those of this command that are not stored). A liftc::Error also
// when the program the user names is another one.
explore::ResumedRun resume_run(ExploreOptions& o, explore::Store& store) {
  const std::string& db = store.path();
  explore::ResumedRun last = explore::resume_last_run(store);
  ExploreOptions stored = o;
  explore::read_stored(db, last.id, [&] { from_json(last.config, stored); });
  auto canonical = [](const std::string& path) {
    std::error_code ec;
    fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
    return ec ? fs::path(path) : p;
  };
  if (!o.file.empty() && canonical(o.file) != canonical(stored.file))
    throw Error(fmt::format("--resume: the run in {} explores {}, not {}", db, stored.file, o.file));
  stored.rules_dir = o.rules_dir.empty()
                         ? explore::read_stored(db, last.id, [&] { return last.config.at("rules_dir").get<std::string>(); })
                         : o.rules_dir;
  // Not stored: where results go and how.
  stored.out_dir = o.out_dir, stored.db = o.db, stored.force = o.force, stored.quiet = o.quiet;
  stored.jobs = o.jobs, stored.isolate = o.isolate, stored.resume = true;
  o = stored;
  fmt::print("resuming run {} of {} (started {})\n", last.id, db, last.started);
  return last;
}

void print_summary(const explore::LoopResult& r, const explore::CandidateSpace& space) {
  std::map<std::string, std::size_t> by_status;
  std::size_t served = 0;
  for (const auto& x : r.explored) ++by_status[x.evaluation.status], served += x.served;
  std::string statuses;
  for (const auto& [s, n] : by_status) statuses += fmt::format("{}{} {}", statuses.empty() ? "" : ", ", n, s);
  fmt::print("{} candidates in {:.1f} s ({}); {} served from the store; stopped: {}\n", r.explored.size(), r.seconds,
             statuses.empty() ? "none" : statuses, served, r.stop);
  for (const auto& x : r.explored)
    if (!explore::status_valid(x.evaluation.status) && x.evaluation.status != "missing") {
      fmt::print("first failure: {} {} [{}]: {}\n", space.alternatives[x.candidate.alternative]->label(),
                 x.evaluation.point, x.evaluation.status, x.evaluation.reason.substr(0, 500));
      break;
    }
}

// Prints the front; without one, a liftc::Error saying why (nothing validated is no
// success: the command exits non-zero).
void print_front(const explore::LoopResult& r, const explore::CandidateSpace& space, const std::vector<std::size_t>& front,
                 bool pareto) {
  std::vector<explore::Evaluation> rows;
  for (std::size_t i : front) rows.push_back(r.explored[i].evaluation);
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.time_ms < b.time_ms; });
  if (rows.empty()) throw Error(fmt::format("no front: {}", explore::no_front_reason(r, space)));
  if (pareto) {
    fmt::print("Pareto front (time against memory; a point is dominated only beyond the measured spread), {} point(s):\n",
               rows.size());
    fmt::print("{}", explore::front_table(rows));
  } else {
    fmt::print("fastest:\n{}", explore::front_table({rows.front()}));
  }
}

// Replay: the search against a store's results instead of a device; the space is the
// recorded run's (its target).
void run_replay(const ExploreOptions& o, const Settings& s, const rewrite::RuleSet& rules, const ir::Program& program,
                const std::vector<std::string>& strategies, std::FILE* progress) {
  auto replay = explore::Store::open_existing(o.replay);
  std::string hash = explore::problem_hash(o.file, s.input_seed);
  constraints::Target target =
      explore::replayed_run(*replay, hash, fmt::format("{} (input seed {})", o.file, s.input_seed)).second;
  explore::CandidateSpace space = explore::build_candidate_space(program, rules, strategies, !o.strategies.empty(), target,
                                                                 nullptr, nullptr, s.max_program_alternatives);
  auto search = make_search(s, space);
  std::fflush(stdout);
  std::size_t missing = 0;
  explore::LoopResult r =
      explore::explore_loop(*search, explore::replay_rows(*replay, hash, space, missing), s.budget, progress);
  print_summary(r, space);
  fmt::print("replayed {} candidate(s) from {}; {} not in the store (told to the search as failures)\n",
             r.explored.size(), o.replay, missing);
  if (std::string verdict = explore::replay_verdict(r, explore::best_stored_time(*replay, hash)); !verdict.empty())
    fmt::print("{}\n", verdict);
  print_front(r, space, explore::front_of(r.explored), o.pareto);
}

// The outcome of a network's exploration: each layer's, the composed front, the -o folder.
void report_network(const ExploreOptions& o, const Settings& s, const explore::NetworkExploration& net,
                    const explore::Problem& problem, std::int64_t run) {
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    if (net.layers[i].same_as != i) continue;
    const explore::LayerResult& r = *net.results[i];
    fmt::print("layer {} ({}): ", i + 1, net.layers[i].name);
    print_summary(r.loop, r.space);
    fmt::print("  {} job(s): {:.2f} evaluations/s; per candidate: {}\n", s.jobs,
               r.loop.seconds > 0 ? double(r.loop.explored.size()) / r.loop.seconds : 0.0, r.times.text());
    std::vector<explore::Evaluation> rows;
    for (std::size_t k : r.front) rows.push_back(r.loop.explored[k].evaluation);
    if (rows.empty()) fmt::print("  no front: {}\n", explore::no_front_reason(r.loop, r.space));
    else fmt::print("{}", explore::front_table(rows));
  }
  std::vector<explore::Evaluation> rows = explore::network_rows(net, problem, run);
  if (rows.empty()) {
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
      const explore::LayerResult& r = *net.results[net.layers[i].same_as];
      if (r.front.empty())
        throw Error(fmt::format("no network point: layer {} ({}) has no front: {}", i + 1, net.layers[i].name,
                                explore::no_front_reason(r.loop, r.space)));
    }
    throw Error("no network point: the layers' fronts compose to none");
  }
  if (!o.pareto) rows.resize(1);
  fmt::print("{} (time: the layers' times summed; memory: the peak, each buffer freed after its last reader), {} "
             "point(s):\n",
             o.pareto ? "network Pareto front" : "fastest network point", rows.size());
  fmt::print("{}", explore::front_table(rows));
  if (o.out_dir.empty()) return;
  explore::NetworkExploration out = net;
  out.front.resize(rows.size());
  explore::write_network_outputs(o.out_dir, out, problem, run, fs::path(o.file).stem().string(), o.build_options);
  fmt::print("wrote {}: front/1..{} (kernels.cl and a host program running every layer each), inputs/ and expected/ "
             "(the network's inputs and every layer's interpreter values: PROGRAM {}/inputs OUT --expected "
             "{}/expected validates every layer), pareto.csv, pareto.json, evaluated.csv\n",
             o.out_dir, rows.size(), o.out_dir, o.out_dir);
}

void run_explore(ExploreOptions o) {
  if (o.resume && !o.replay.empty()) throw Error("--resume and --replay exclude each other");
  std::string db = o.db.empty() ? (o.out_dir.empty() ? "liftc-results.db" : (fs::path(o.out_dir) / "results.db").string()) : o.db;
  // The store of a resumed run is opened first (its options are in it) and kept open, with
  // the run locked, until the run ends.
  std::unique_ptr<explore::Store> store;
  std::optional<explore::ResumedRun> resumed;
  if (o.resume) {
    if (!fs::exists(db)) throw Error(fmt::format("--resume: no results store at {} (give --db FILE)", db));
    store = std::make_unique<explore::Store>(db);
    resumed = resume_run(o, *store);
  }
  if (o.file.empty()) throw Error("explore: give the .sr program to explore");
  Settings s = settle(o);
  std::string rules_dir = o.rules_dir.empty() ? rewrite::default_rules_dir() : o.rules_dir;
  rewrite::RuleSet rules = rewrite::load_rules_dir(rules_dir);
  ir::Program program = parse::load_program(o.file);
  require_size_values(program);  // before a store is made
  // A program of several definitions is a network: explored layer by layer.
  bool network = !o.whole_program && explore::explored_by_layer(program);
  std::vector<explore::Layer> layers;
  if (network) layers = explore::split_layers(program);
  std::vector<std::string> strategies =
      o.strategies.empty() ? explore::default_strategies(rules, network ? layers.front().program : program) : o.strategies;
  std::FILE* progress = o.quiet ? nullptr : stderr;
  if (!o.replay.empty() && network)
    throw Error(fmt::format("--replay: {} is a network of {} layers, explored layer by layer, which replay does not do "
                            "yet; replay a run of --whole-program",
                            o.file, layers.size()));
  if (!o.replay.empty()) return run_replay(o, s, rules, program, strategies, progress);
  if (o.warm_start && network)
    throw Error(fmt::format("--warm-start: {} is a network of {} layers, explored layer by layer, which a warm start "
                            "does not seed yet; warm-start a run of --whole-program or of one layer",
                            o.file, layers.size()));

  // What identifies the program and the rules: a resumed run must explore the same ones.
  std::string rules_identity = explore::rules_hash(rules);
  if (resumed)
    explore::check_resumed(*resumed, db, o.file, explore::problem_hash(o.file, s.input_seed), rules_dir, rules_identity);
  std::optional<explore::OutputLock> output_lock;
  if (!o.out_dir.empty()) output_lock.emplace(explore::check_output_dir(o.out_dir, o.force));
  explore::WorkFolder work(db);
  s.evaluator.work_dir = work.path();

// Device, target and space first: a runner that does not answer or a strategy that does
  // not apply is reported before anything is written.
  explore::DeviceReport device = explore::probe_device(s.evaluator);
  constraints::Target target = o.target.empty() ? device.target()
                                                : constraints::find_target(o.target, constraints::default_targets_dir());
  fmt::print("device: {} (driver {}){}\n", device.name, device.driver,
             o.runner.empty() ? "" : fmt::format(", through --runner {}", o.runner));
  fmt::print("constraints target: {}\n", constraints::format_target(target));
  std::vector<std::string> skipped;
  explore::CandidateSpace space;
  explore::NetworkOptions network_options;
  explore::NetworkExploration net;
  if (network) {
    std::size_t shapes = 0;
    std::vector<std::string> names;
    for (std::size_t i = 0; i < layers.size(); ++i) {
      shapes += layers[i].same_as == i;
      names.push_back(layers[i].same_as == i ? layers[i].name
                                             : fmt::format("{} (as {})", layers[i].name, layers[layers[i].same_as].name));
    }
    fmt::print("network: {} layers, {} of a shape of their own, each explored with its own space and reference "
               "({} evaluations each): {}\n",
               layers.size(), shapes, s.budget.evaluations, fmt::join(names, ", "));
    explore::NetworkOptions& n = network_options;
    n.strategies = strategies;
    n.strategies_given = !o.strategies.empty();
    n.budget = s.budget;
    n.jobs = s.jobs;
    n.evaluator = s.evaluator;
    n.make_search = [&s](explore::CandidateSpace& sp) { return make_search(s, sp); };
    n.progress = progress;
    n.report = [](const std::string& line) {
      fmt::print("{}\n", line);
      std::fflush(stdout);
    };
    net = explore::network_spaces(std::move(layers), rules, target, n);
  } else {
    space = explore::build_candidate_space(program, rules, strategies, !o.strategies.empty(), target, &skipped, nullptr,
                                           s.max_program_alternatives);
    if (!explore::clblast_available()) fmt::print("{}\n", explore::kNoClblastNote);
    double total = 0;
    for (const auto& a : space.alternatives) total += a->count();
    fmt::print("space: {} alternative(s), about {:.4g} valid points{}\n", space.alternatives.size(), total,
               skipped.empty() ? "" : fmt::format(" ({} without a valid point left out)", skipped.size()));
    if (std::string note = explore::emulated_local_note(space, target.name); !note.empty())
      fmt::print("note: {}\n", note);
  }

  if (!store) store = std::make_unique<explore::Store>(db);
  fmt::print("results store: {}\n", db);
  explore::Problem problem = explore::load_problem(o.file, s.input_seed, *store);
  fmt::print("reference: {}\n", problem.reference_from_store
                                    ? std::string("from the store")
                                    : fmt::format("the interpreter took {:.2f} s", problem.reference_seconds));

  std::int64_t run = resumed ? resumed->id : -1;
  if (run < 0) {
    json config = to_json(o);
    config["file"] = fs::absolute(o.file).lexically_normal().string();  // --resume from any folder finds it
    config["program"] = problem.program_hash;
    config["rules_dir"] = fs::absolute(rules_dir).lexically_normal().string();
    config["rules"] = rules_identity;
    config["target_profile"] = explore::target_to_json(target);
    run = store->begin_run(config["file"].get<std::string>(),
                           config.dump(-1, ' ', false, json::error_handler_t::replace));
  }
  // Interrupted (Ctrl-C, SIGTERM), the run stays unfinished in the store: say how to go on.
  // --jobs and -o are not stored with the run: the command gives them again as given.
  say_on_interrupt(fmt::format("liftc explore: interrupted; `liftc explore --resume --db {}{}{}` continues run {}\n", db,
                               o.jobs.empty() ? "" : " --jobs " + o.jobs, o.out_dir.empty() ? "" : " -o " + o.out_dir,
                               run));
  if (network) {
    explore::explore_network(net, problem, *store, run, device, network_options);
    store->end_run(run);
    say_on_interrupt("");
    return report_network(o, s, net, problem, run);
  }
  explore::Evaluator evaluator(problem, space, *store, run, device, s.evaluator);
  if (o.warm_start) {
    s.genetic.seeds = explore::stored_seeds(*store, problem.program_hash, device.name, run, space, s.genetic.population);
    fmt::print("warm start: {} point(s) of earlier runs of this program on {} in {}\n", s.genetic.seeds.size(),
               device.name, db);
  }
  auto search = make_search(s, space);
  std::fflush(stdout);  // the progress line on stderr follows what was printed so far
  explore::StartFn start = [&](const explore::Candidate& c) { return evaluator.start(c); };
  explore::LoopResult r = explore::explore_loop(*search, start, s.budget, s.jobs, progress);
  store->end_run(run);
  say_on_interrupt("");

  print_summary(r, space);
  fmt::print("{} job(s): {:.2f} evaluations/s; per candidate: {}\n", s.jobs,
             r.seconds > 0 ? double(r.explored.size()) / r.seconds : 0.0, evaluator.times().text());
  std::vector<std::size_t> front = explore::front_of(r.explored);
  if (!front.empty()) print_front(r, space, front, o.pareto);
  if (!o.out_dir.empty()) {
    if (!o.pareto && !front.empty()) {
      // Without --pareto the output is the fastest point alone.
      std::size_t fastest = front.front();
      for (std::size_t i : front)
        if (r.explored[i].evaluation.time_ms < r.explored[fastest].evaluation.time_ms) fastest = i;
      front = {fastest};
    }
    std::sort(front.begin(), front.end(), [&](std::size_t a, std::size_t b) {
      return r.explored[a].evaluation.time_ms < r.explored[b].evaluation.time_ms;
    });
    explore::write_outputs(o.out_dir, space, r.explored, front, problem, fs::path(o.file).stem().string(),
                           o.build_options);
    std::size_t library = 0;
    for (std::size_t i : front) library += explore::is_library_strategy(r.explored[i].evaluation.strategy);
    fmt::print("wrote {}: front/1..{} (kernels.cl and a host program each{}), inputs/ and expected/ (the program's "
               "inputs and the interpreter's outputs: PROGRAM {}/inputs OUT --expected {}/expected validates a point), "
               "pareto.csv, pareto.json, evaluated.csv (plot: python3 {} {})\n",
               o.out_dir, front.size(),
               library ? fmt::format("; README.txt and plan.json instead for the {} CLBlast point(s)", library) : std::string(),
               o.out_dir, o.out_dir, plot_script(), o.out_dir);
  }
  if (front.empty()) throw Error(fmt::format("no front: {}", explore::no_front_reason(r, space)));
}

}  // namespace

void add_explore_command(CLI::App& app) {
  auto o = std::make_shared<ExploreOptions>();
  CLI::App* cmd = app.add_subcommand(
      "explore", "Search the tuning space on a device (random or genetic/NSGA-II); print and write the Pareto front");
  cmd->add_option("file", o->file, "the .sr program (optional with --resume)");
  cmd->add_option("--strategy,-s", o->strategies, "a strategy (repeatable); default: those of rules/strategies.rules that apply");
  cmd->add_option("--target,-t", o->target, "a target profile for the constraints (default: the device's own limits)");
  cmd->add_option("--device", o->device, "the device the runner uses (index or part of its name; default: the first)");
  cmd->add_option("--search", o->search, explore::search_help());
  cmd->add_option("--evals", o->evals, "budget: candidates to evaluate (default 100)");
  cmd->add_option("--time", o->time, "budget: seconds of wall time (default: no limit)");
  cmd->add_option("--seed", o->seed, "seed of the search: the same seed gives the same candidates (default 1)");
  cmd->add_option("--input-seed", o->input_seed, "seed of the random inputs (default 0)");
  cmd->add_flag("--pareto", o->pareto, "optimize time and memory (NSGA-II for genetic); print and write the front");
  cmd->add_flag("--whole-program", o->whole_program,
                "explore a network (two or more definitions that compute) as one program (default: layer by layer, "
                "each layer with its own space and reference, the network's front composed from theirs)");
  cmd->add_flag("--warm-start", o->warm_start,
                "genetic: start the first generation from the fastest validated points that earlier runs stored for "
                "this program on this device (up to a population of them; the store is --db)");
  cmd->add_option("--max-program-alternatives", o->max_program_alternatives,
                  fmt::format("--whole-program: the most alternatives of the whole program, over its strategies "
                              "(default {}; each definition's alternatives combine)",
                              explore::kDefaultMaxProgramAlternatives));
  cmd->add_option("--population", o->population, "genetic: individuals per generation (default evals/5, 4..24)");
  cmd->add_option("--selection", o->selection, "genetic: tournament or roulette (default tournament)");
  cmd->add_option("-o,--output", o->out_dir, "write the front's kernels and host programs, pareto.csv/json, evaluated.csv");
  cmd->add_flag("--force", o->force, "overwrite an earlier exploration's files in the -o folder");
  cmd->add_option("--db", o->db, "the results store (default DIR/results.db with -o, else ./liftc-results.db)");
  cmd->add_flag("--resume", o->resume, "continue the store's last unfinished run (its options are read back)");
  cmd->add_option("--replay", o->replay, "run the search against a store's results instead of a device");
  cmd->add_option("--runner", o->runner, "run each bundle with `CMD BUNDLE_DIR` (e.g. scripts/adb_runner.sh) instead of liftc-runner");
  cmd->add_option("--jobs,-j", o->jobs,
                  "candidates evaluated at once: generated and built in parallel, timed one at a time (default: "
                  "the number of hardware threads)");
  cmd->add_flag("--isolate", o->isolate,
                "run every candidate in a fresh liftc-runner process (default: one serving runner per job, which "
                "keeps its OpenCL context from one candidate to the next)");
  cmd->add_option("--timeout", o->timeout, "seconds a candidate may run before the watchdog kills it (default 60)");
  cmd->add_option("--runs", o->runs, "timed runs per candidate (default 5; the median is kept)");
  cmd->add_option("--warmup", o->warmup, "untimed runs first (default 1: the validated run)");
  cmd->add_option("--build-options", o->build_options,
                  "more OpenCL compiler options for every candidate, e.g. \"-cl-fast-relaxed-math\" (after the mad "
                  "parameter's -cl-mad-enable; the front's host programs use them too)");
  cmd->add_option("--rtol", o->rtol, "relative tolerance of the validation (default 1e-3)")->check(finite_non_negative());
  cmd->add_option("--atol", o->atol, "absolute tolerance of the validation (default 1e-3)")->check(finite_non_negative());
  cmd->add_option("--rules", o->rules_dir, kRulesFlagHelp);
  cmd->add_flag("--quiet,-q", o->quiet, "no progress line");
  cmd->callback([o] { run_explore(*o); });
}

}  // namespace liftc::tool
