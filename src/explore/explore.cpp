// explore::run, the facade (explore.hpp): one exploration from its Request to the front.
// The order matters to a user: options, program and rules are checked before a device is
// asked; device, target and space before a store is written; the run is stored before its
// first candidate, so an interrupted run can be resumed.

#include "liftc/explore/explore.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "liftc/constraints/target.hpp"
#include "liftc/explore/candidates/constraint_space.hpp"
#include "liftc/explore/candidates/library.hpp"
#include "liftc/explore/cost/features.hpp"
#include "liftc/explore/cost/kernel_dependencies.hpp"
#include "liftc/explore/evaluation/evaluate.hpp"
#include "liftc/explore/evaluation/generation_memo.hpp"
#include "liftc/explore/evaluation/local_workers.hpp"
#include "liftc/explore/products/groups.hpp"
#include "liftc/explore/products/pool_split.hpp"
#include "liftc/explore/products/residual.hpp"
#include "liftc/explore/products/named_strategies.hpp"
#include "liftc/explore/products/network.hpp"
#include "liftc/explore/products/output.hpp"
#include "liftc/explore/search/transfer.hpp"
#include "liftc/explore/search/warm_start.hpp"
#include "liftc/explore/store/replay_benchmark.hpp"
#include "liftc/explore/store/session.hpp"
#include "liftc/explore/store/stored_target.hpp"
#include "liftc/interp/interp.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/rewrite/load.hpp"
#include "liftc/support/data_dir.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/support/interrupt_cleanup.hpp"
#include "liftc/typecheck/typecheck.hpp"
#include "report.hpp"
#include "settings.hpp"

namespace liftc::explore {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// One exploration under way: what run() has settled so far.
struct Exploration {
  Exploration(Request request, Reporter& reporter) : o(std::move(request)), out(reporter) {}

  Request o;
  Reporter& out;
  std::string db;
  std::string shown_db;  // db as messages show it (no password: shown_store_name)
  // The store of a resumed run is opened first (its options are in it) and kept open, with
  // the run locked, until the run ends.
  std::unique_ptr<Store> store;
  std::optional<ResumedRun> resumed;
  Settings s;
  std::string rules_dir;
  rewrite::RuleSet rules;
  ir::Program program;
  bool network = false;  // a program of several definitions, explored layer by layer
  std::vector<Layer> layers;            // the definitions as written, then the fused layers
  std::vector<NetworkVariant> variants;  // of a network: as written, and fused (add_fused_layers)
  GroupedProgram grouped;  // the program with its grouped convolutions split by group (none: no splits)
  ResidualProgram residual;  // the program with its convolutions' residual adds split off (none: no splits)
  PooledProgram pooled;      // that program with its convolutions' poolings split off (none: no splits)
  // What a flag kept from a split (takes_split): "--whole-program: the convolution with its
  // pooling"; said again where no strategy takes the program as written.
  std::vector<std::string> unsplit;
  std::vector<std::string> strategies;
  std::FILE* progress = nullptr;

  void say(const std::string& text) { out.print(text); }
};

// --db, else DIR/results.db with -o, else ./liftc-results.db.
std::string store_path(const Request& o) {
  if (!o.db.empty()) return o.db;
  return o.out_dir.empty() ? "liftc-results.db" : (fs::path(o.out_dir) / "results.db").string();
}

fs::path canonical(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? fs::path(path) : p;
}

// The last unfinished run of the store, locked (resume_last_run); its options are read
// into x.o (all but those of this command that are not stored). A liftc::Error also when
// the program the user names is another one.
void resume(Exploration& x) {
  if (!is_database_url(x.db) && !fs::exists(x.db))
    throw Error(fmt::format("--resume: no results store at {} (give --db FILE)", x.shown_db));
  x.store = Store::open(x.db);
  ResumedRun last = resume_last_run(*x.store);
  Request stored = x.o;
  read_stored(x.shown_db, last.id, [&] { request_from_json(last.config, stored); });
  if (!x.o.file.empty() && canonical(x.o.file) != canonical(stored.file))
    throw Error(fmt::format("--resume: the run in {} explores {}, not {}", x.shown_db, stored.file, x.o.file));
  stored.rules_dir = x.o.rules_dir.empty()
                         ? read_stored(x.shown_db, last.id, [&] { return last.config.at("rules_dir").get<std::string>(); })
                         : x.o.rules_dir;
  // Not stored: where results go and how.
  stored.out_dir = x.o.out_dir, stored.db = x.o.db, stored.force = x.o.force, stored.quiet = x.o.quiet;
  stored.jobs = x.o.jobs, stored.isolate = x.o.isolate, stored.workers = x.o.workers, stored.resume = true;
  // A tuning database's URL is stored without its password (request_to_json): given again.
  if (!x.o.train_dbs.empty()) {
    if (shown_store_names(x.o.train_dbs) != stored.train_dbs)
      throw Error(fmt::format("--resume: run {} of {} trained its model on {}, not {}", last.id, x.shown_db,
                              stored.train_dbs.empty() ? "no tuning database"
                                                       : fmt::format("{}", fmt::join(stored.train_dbs, ", ")),
                              fmt::join(shown_store_names(x.o.train_dbs), ", ")));
    stored.train_dbs = x.o.train_dbs;
  } else {
    for (const auto& db : stored.train_dbs)
      if (password_hidden(db))
        throw Error(fmt::format("--resume: run {} of {} trains its model on the tuning database {}, whose password is "
                                "not stored; give its databases again with --train-db",
                                last.id, x.shown_db, db));
  }
  x.o = stored;
  x.say(fmt::format("resuming run {} of {} (started {})\n", last.id, x.shown_db, last.started));
  x.resumed = last;
}

// --storage half: the program's buffers stored as halves; a network's layers (split_layers,
// its fused layers) each store what it reads and its definition as the network does.
// The split-off convolutions (NAME_conv of split_poolings and split_residuals) are not stored
// as halves: the definition as written adds, pools or activates their float values before it
// rounds, so each is a float buffer and the split program computes what the program does. The
// splits' programs, which add_split_references interprets against the program's reference,
// store the same names as halves.
void store_as_half(Exploration& x) {
  x.program.half = codegen::half_buffers(typecheck::typecheck(x.program).program, x.s.storage);
  for (const auto& s : x.pooled.splits) x.program.half.erase(s.convolution);
  for (const auto& s : x.residual.splits) x.program.half.erase(s.convolution);
  x.pooled.program.half = x.program.half;
  x.residual.program.half = x.program.half;
}

// CLBlast's routines take float buffers: with half storage no library candidate is offered,
// and one named is an error.
void drop_library_strategies(Exploration& x) {
  for (const std::string& given : x.o.strategies)
    if (given.rfind("clblast-", 0) == 0)
      throw Error(fmt::format("--storage {}: strategy {} calls CLBlast, whose routines take float buffers, not "
                              "halves; leave it out or explore with --storage float",
                              x.o.storage, given));
  std::erase_if(x.strategies, [](const std::string& name) { return name.rfind("clblast-", 0) == 0; });
}

// The definitions of the network as written.
std::size_t written_layers(const Exploration& x) {
  return static_cast<std::size_t>(
      std::count_if(x.layers.begin(), x.layers.end(), [](const Layer& l) { return written_layer(l); }));
}

// Why a network has no fused layer: what each kind of fusion needs, which no definition of
// `file` is.
std::string no_fusion_text(const std::string& file) {
  return fmt::format(
      "no definition of {} is one-to-one over another's output (a bias, an activation, a residual "
      "add that reads it once, and nothing else reads it), a pointwise layer over a depthwise one, a "
      "pooling over a convolution (non-overlapping windows of its output, which nothing else reads), "
      "a permutation of another's output (a channel shuffle) or a concatenation of others' outputs that one "
      "definition reads once",
      file);
}

// --fusion: a network's fused layers and variants beside its layers as written (on), none
// (off), or the network with every fusion alone (only). With none to make, on says why (a
// U-Net step's convolution read by its pooling and its concatenation, say), only refuses.
void fuse_layers(Exploration& x) {
  if (x.o.fusion != "on" && x.o.fusion != "off" && x.o.fusion != "only")
    throw Error(fmt::format("--fusion: '{}' is not on, off or only", x.o.fusion));
  if (!x.network || x.o.fusion == "off") return;
  x.variants = add_fused_layers(x.program, x.layers, &x.rules);
  if (x.o.fusion == "on") {
    // A program explore split (a pooling or residual add off its convolution) says so itself:
    // "not fused back: no fusion takes it".
    if (x.variants.size() == 1 && x.pooled.splits.empty() && x.residual.splits.empty())
      x.say(fmt::format("note: no fused layer: {}\n", no_fusion_text(x.o.file)));
    return;
  }
  if (x.variants.size() == 1)
    throw Error(fmt::format("--fusion only: {}; explore it with --fusion off", no_fusion_text(x.o.file)));
  x.variants.erase(x.variants.begin(), x.variants.end() - 1);  // the last: every fusion
}

// A grouped convolution's dense convolutions per group (split_groups), a variant of their
// own beside the program as written (and its fusions). A program with one makes a network of
// its layers: the grouped convolution whole is one variant, its groups and their
// concatenation another. With --storage half each group stores what it reads and writes as
// the network stores the grouped convolution's values.
void split_grouped(Exploration& x) {
  // --fusion only explores the network with every fusion alone: no variant of the layers as written.
  if (x.o.whole_program || x.o.fusion == "only") return;
  x.grouped = split_groups(x.program, x.rules);
  if (x.grouped.splits.empty()) return;
  // A replay and a warm start take one program's space, not a network's. With half storage
  // the groups and their concatenation are stored as the network stores the grouped
  // convolution (split_groups carries ir::Program::half to them).
  if (!x.network && (!x.o.replay.empty() || x.o.warm_start)) {
    x.say(fmt::format("note: {}: the grouped convolution is explored whole, not also split by group (explore without "
                      "it to search its groups too)\n",
                      x.o.replay.empty() ? std::string("--warm-start") : std::string("--replay")));
    x.grouped = {};
    return;
  }
  if (!x.network) {
    x.network = true;
    x.layers = split_layers(x.program);
  }
  if (x.variants.empty()) {
    x.variants.emplace_back();
    for (std::size_t i = 0; i < x.layers.size(); ++i) x.variants[0].layers.push_back(i);
  }
  for (auto& v : add_group_split_layers(x.grouped, x.layers)) x.variants.push_back(std::move(v));
}

// The flag that explores a split definition as written (split_residual_adds, split_poolings):
// --whole-program, a replay or a warm start; empty: none.
std::string unsplit_by(const Exploration& x) {
  if (x.o.whole_program) return "--whole-program";
  if (!x.o.replay.empty()) return "--replay";
  return x.o.warm_start ? "--warm-start" : "";
}

// Whether explore takes a split of a convolution's definition (`what`: "its residual add"):
// not under unsplit_by's flags, where it says that it explores the definition as written.
bool takes_split(Exploration& x, const std::string& what) {
  std::string flag = unsplit_by(x);
  if (flag.empty()) return true;
  x.say(fmt::format("note: {}: the convolution with {} is explored as written, not also split (explore without it to "
                    "search the convolution alone too)\n",
                    flag, what));
  x.unsplit.push_back(fmt::format("{}: the convolution with {}", flag, what));
  return false;
}

// A convolution whose definition then adds a residual (split_residuals): the program explored
// with it split into the convolution and the element-wise layer over it, which the
// one-to-one fusion fuses back as an alternative (fuse_layers). Not with --whole-program,
// a replay or a warm start, which take the program as written.
void split_residual_adds(Exploration& x) {
  ResidualProgram split = split_residuals(x.program, &x.rules);
  if (split.splits.empty() || !takes_split(x, "its residual add")) return;
  x.residual = std::move(split);
  x.program = x.residual.program;
}

// A convolution and its pooling over non-overlapping windows of its output in one
// definition (split_poolings): the program explored with it split into the convolution and
// the pooling over it, which the convolution-pooling fusion fuses back as an alternative
// (fuse_layers). Before split_residual_adds, which splits a residual add off what it pools.
// Not with --whole-program, a replay or a warm start, which take the program as
// written.
void split_conv_poolings(Exploration& x) {
  PooledProgram split = split_poolings(x.program, &x.rules);
  if (split.splits.empty() || !takes_split(x, "its pooling")) return;
  x.pooled = std::move(split);
  x.program = x.pooled.program;
}

// Options, rules and program, checked; strategies chosen. Nothing is asked of a device.
void load(Exploration& x) {
  if (x.o.file.empty()) throw Error("explore: give the .sr program to explore");
  x.s = settle(x.o);
  x.rules_dir = x.o.rules_dir.empty() ? rewrite::default_rules_dir() : x.o.rules_dir;
  x.rules = rewrite::load_rules_dir(x.rules_dir);
  // -s @fast: the strategies tagged fast. x.o.strategies keeps the tags (stored with the run):
  // a strategy named by a tag need not apply (named_strategies.hpp).
  std::vector<std::string> named = rewrite::expand_strategy_tags(x.rules, x.o.strategies);
  x.program = parse::load_program(x.o.file);
  require_size_values(x.program);  // before a store is made
  interp::require_tensor_inputs(x.program);  // before a store is made or a space built
  // The pooling first: what it pools may be a convolution with a residual add, which
  // split_residual_adds then splits.
  split_conv_poolings(x);
  split_residual_adds(x);
  x.network = !x.o.whole_program && explored_by_layer(x.program);
  store_as_half(x);
  if (x.network) x.layers = split_layers(x.program);
  fuse_layers(x);
  split_grouped(x);
  x.strategies =
      x.o.strategies.empty() ? default_strategies(x.rules, x.network ? x.layers.front().program : x.program) : named;
  if (x.s.storage.any()) drop_library_strategies(x);
  x.progress = x.o.quiet ? nullptr : x.out.progress();
}

// What a candidate's point says without its kernels (cost::point_features).
NamedFeatures point_named_features(const cost::FeatureContext& ctx, const Candidate& c) {
  const Alternative& alt = *ctx.space->alternatives[c.alternative];
  std::vector<std::pair<std::string, std::int64_t>> params;
  for (std::size_t i = 0; i < alt.parameters().size() && i < c.point.size(); ++i)
    params.emplace_back(alt.parameters()[i].name, c.point[i]);
  cost::FeatureVector f = cost::point_features(ctx.strategies, alt.strategy(), alternative_number(alt), params);
  return {std::move(f.names), std::move(f.values)};
}

// --train-db's stores, opened (one that does not exist is an error), in the order given.
struct TuningDatabases {
  std::vector<std::unique_ptr<Store>> opened;
  std::vector<const Store*> stores() const {
    std::vector<const Store*> out;
    for (const auto& s : opened) out.push_back(s.get());
    return out;
  }
};

TuningDatabases open_tuning_databases(const std::vector<std::string>& names) {
  TuningDatabases dbs;
  for (const auto& name : names) dbs.opened.push_back(Store::open_existing(name));
  return dbs;
}

// What the model learns from before the first measurement: --train-db's stores, else the
// run's own store, of which only the rows of earlier runs (`t.before_run`).
std::pair<std::vector<const Store*>, std::vector<std::string>> model_databases(const Exploration& x,
                                                                                const TuningDatabases& train,
                                                                                std::int64_t run, TransferTarget& t) {
  if (!train.opened.empty()) return {train.stores(), x.o.train_dbs};
  t.before_run = run;
  return {{x.store.get()}, {x.db}};
}

// The model-guided search's candidates generated once for their features and their
// evaluation (null for another search). A random draw's kept generation waits for its
// features until it is told: after at most the loop's window (8 rounds) and the search's lag
// (6 rounds), each round adding a round's shortlist and its random draws; the first round is
// --population. So 16 rounds and a population keep them all: at most 280 generations with 16
// jobs, 152 with 2 (--population is 24 at most unless given).
std::shared_ptr<GenerationMemo> model_generations(const Exploration& x, const CandidateSpace& space) {
  if (x.s.search->name != "model") return nullptr;
  std::size_t round = std::max<std::size_t>(x.s.jobs, 8);
  return std::make_shared<GenerationMemo>(space, x.s.evaluator.build_options, 16 * round + x.s.genetic.population);
}

// What the model-guided search sees and starts from (nothing for another search):
// - every candidate's features from the kernels it would run (cost::candidate_features,
//   memoized; a candidate whose kernels do not generate: what its point says). They cost a
//   generation each (3-5 ms on PoCL's host, about 7 ms for VGG-16 layer 5 on the H200's),
//   so a round's 256 proposals are first ranked by a second model on what their points say,
//   and only the best round's worth get them (4 rounds' worth took 30% of a 60 s loop
//   there, above the 20% the model may take, and halved the evaluations per second); with
//   `generations` (a run on a device: null in a replay) each candidate is generated once
//   for its features and its evaluation;
// - the tuning databases' rows of other programs, shapes and devices (`dbs`; none: empty),
//   trained on before the first measurement, and the nearest shapes' best points mapped
//   into `space`, after the seeds.
// `s` is x.s for a program, a copy of it for each layer of a network (`label`: the layer's
// name, which its line about the database starts with).
void model_inputs(Exploration& x, Settings& s, const CandidateSpace& space, const constraints::Target& target,
                  const std::vector<const Store*>& dbs, const std::vector<std::string>& db_names, TransferTarget t,
                  std::shared_ptr<GenerationMemo> generations = nullptr, const std::string& label = "") {
  if (s.search->name != "model") return;
  auto ctx = std::make_shared<cost::FeatureContext>(cost::feature_context(space, x.rules, target, x.o.build_options));
  ctx->generations = std::move(generations);
  s.reused_by_evaluator = [memo = ctx->generations] {
    constexpr auto evaluator = static_cast<std::size_t>(GenerationMemo::User::Evaluator);
    return memo ? memo->stats().saved_s[evaluator] : 0.0;
  };
  s.features = caching([ctx](const Candidate& c) {
    try {
      cost::FeatureVector f = cost::candidate_features(c, *ctx);
      return NamedFeatures{std::move(f.names), std::move(f.values)};
    } catch (const Error&) {
      return point_named_features(*ctx, c);
    }
  });
  s.shortlist_features = [ctx](const Candidate& c) { return point_named_features(*ctx, c); };
  s.kernel_reach = [ctx](const Candidate& c) { return cost::kernel_dependencies(c, *ctx); };
  // One round's worth gets the code features (a generation each, 6-7 ms on the H200's host):
  // with two rounds' worth, once rounds no longer waited for their slowest candidate
  // (rounds.hpp, the lag), features took 35-47% of VGG-16 layer 5's 120 s loop.
  s.shortlist = std::max<std::size_t>(s.jobs, 8);
  if (dbs.empty()) return;
  t.strategies = ctx->strategies;
  s.transfer = transfer_rows(dbs, t);
  std::vector<Candidate> nearest = nearest_shape_seeds(dbs, t, space, s.genetic.population);
  s.genetic.seeds.insert(s.genetic.seeds.end(), nearest.begin(), nearest.end());
  if (s.transfer.groups.empty() && nearest.empty()) return;  // a store of this program alone
  x.say(fmt::format("{}tuning database {}: {} row(s) of {} other program(s) or device(s) train the model before the first "
                    "measurement; {} best point(s) of the nearest shapes start its first round\n",
                    label, fmt::join(shown_store_names(db_names), ", "), s.transfer.features.size(),
                    s.transfer.groups.size(), nearest.size()));
}

// The program's space (build_candidate_space). Where none is left and a flag kept a
// convolution from its split (takes_split), the error says that first, in the user's terms: code
// generation's reason is about the definition as written.
CandidateSpace spoken_space(Exploration& x, const constraints::Target& target, std::vector<std::string>* skipped) {
  try {
    // Strategies named: each named by itself must apply, one named by a tag need not.
    std::vector<NotApplied> not_applied;
    bool given = !x.o.strategies.empty();
    CandidateSpace space = build_candidate_space(x.program, x.rules, x.strategies, given, target, skipped,
                                                 given ? &not_applied : nullptr, x.s.max_program_alternatives);
    if (given) {
      std::vector<std::string> tried = x.strategies;
      std::erase_if(tried, is_library_strategy);
      for (const auto& note : check_program_strategies_apply(not_applied, tried, x.o.strategies))
        x.say(fmt::format("note: {}\n", note));
    }
    return space;
  } catch (const Error& e) {
    if (x.unsplit.empty()) throw;
    throw Error(
        fmt::format("{} is explored as written, in one definition, which the strategies do not take here; "
                    "explore without the flag to split it into layers that they take ({})",
                    fmt::join(x.unsplit, "; "), e.message()));
  }
}

// Replay: the search against a store's results instead of a device; the space is the
// recorded run's (its target).
void replay(Exploration& x) {
  if (x.network)
    throw Error(fmt::format("--replay: {} is a network of {} layers, explored layer by layer, which replay does not do "
                            "yet; replay a run of --whole-program",
                            x.o.file, written_layers(x)));
  auto recorded = Store::open_existing(x.o.replay);
  std::string hash = problem_hash(x.o.file, x.s.input_seed, x.s.storage);
  constraints::Target target =
      replayed_run(*recorded, hash, fmt::format("{} (input seed {})", x.o.file, x.s.input_seed)).second;
  CandidateSpace space = spoken_space(x, target, nullptr);
  // Replayed rounds are as large as --jobs asks, one job when it is not given (the loop
  // itself replays one candidate at a time).
  if (x.o.jobs.empty()) x.s.jobs = 1;
  // A tuning database only with --train-db: the replayed store holds the program's own rows.
  TransferTarget t;
  t.program_hash = hash;
  for (const auto& e : recorded->evaluations())
    if (e.program == hash) {
      t.device = e.device, t.shapes = e.shapes;
      break;
    }
  TuningDatabases train = open_tuning_databases(x.o.train_dbs);
  model_inputs(x, x.s, space, target, train.stores(), x.o.train_dbs, t);
  if (x.s.replay_seeds > 0) {
    MakeSearch seeded = [&x](CandidateSpace& sp, std::uint64_t seed) {
      Settings t = x.s;
      t.seed = seed;
      return t.make_search(sp);
    };
    x.say(format_replay_benchmark(replay_benchmark(*recorded, hash, space, x.o.search, seeded, x.s.seed,
                                                   x.s.replay_seeds, x.s.budget.evaluations)));
    return;
  }
  auto search = x.s.make_search(space);
  std::size_t missing = 0;
  LoopResult r = explore_loop(*search, replay_rows(*recorded, hash, space, missing), x.s.budget, x.progress);
  x.say(summary_text(r, space));
  x.say(fmt::format("replayed {} candidate(s) from {}; {} not in the store (told to the search as failures)\n",
                    r.explored.size(), x.o.replay, missing));
  if (std::string verdict = replay_verdict(r, best_stored_time(*recorded, hash)); !verdict.empty())
    x.say(verdict + "\n");
  x.say(front_text(r, space, front_of(r.explored), x.o.pareto));
}

// A runner that answers, and the target of the constraints: asked before anything is written.
struct Device {
  DeviceReport report;
  constraints::Target target;
};

Device probe(Exploration& x) {
  Device d{probe_device(x.s.evaluator), {}};
  d.target = x.o.target.empty() ? d.report.target()
                                : constraints::find_target(x.o.target, constraints::default_targets_dir());
  x.say(fmt::format("device: {} (driver {}){}\n", d.report.name, d.report.driver,
                    x.o.runner.empty() ? "" : fmt::format(", through --runner {}", x.o.runner)));
  x.say(fmt::format("constraints target: {}\n", constraints::format_target(d.target)));
  return d;
}

CandidateSpace program_space(Exploration& x, const constraints::Target& target) {
  std::vector<std::string> skipped;
  CandidateSpace space = spoken_space(x, target, &skipped);
  if (!clblast_available()) x.say(fmt::format("{}\n", kNoClblastNote));
  double total = 0;
  for (const auto& a : space.alternatives) total += a->count();
  x.say(fmt::format("space: {} alternative(s), about {:.4g} valid points{}\n", space.alternatives.size(), total,
                    skipped.empty() ? "" : fmt::format(" ({} without a valid point left out)", skipped.size())));
  if (std::string note = emulated_local_note(space, target.name); !note.empty()) x.say(fmt::format("note: {}\n", note));
  return space;
}

NetworkOptions network_options(Exploration& x) {
  NetworkOptions n;
  n.strategies = x.strategies;
  n.strategies_given = !x.o.strategies.empty();
  n.given = x.o.strategies;
  n.budget = x.s.budget;
  n.jobs = x.s.jobs;
  n.evaluator = x.s.evaluator;
  n.progress = x.progress;
  n.report = [&x](const std::string& line) { x.say(line + "\n"); };
  return n;
}

NetworkExploration layer_spaces(Exploration& x, const NetworkOptions& n, const constraints::Target& target) {
  std::size_t shapes = 0, written = 0;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < x.layers.size(); ++i) {
    if (!written_layer(x.layers[i])) continue;
    ++written;
    shapes += x.layers[i].same_as == i;
    names.push_back(x.layers[i].same_as == i
                        ? x.layers[i].name
                        : fmt::format("{} (as {})", x.layers[i].name, x.layers[x.layers[i].same_as].name));
  }
  if (written == 1)  // a program of one grouped convolution, explored whole and split by group
    x.say(fmt::format("program: 1 layer, explored with its own space and reference ({}): {}\n", budget_text(x.s.budget),
                      fmt::join(names, ", ")));
  else
    x.say(
        fmt::format("network: {} layers, {} of a shape of their own, each explored with its own space and reference "
                    "({} each): {}\n",
                    written, shapes, budget_text(x.s.budget), fmt::join(names, ", ")));
  // Whether the split definition `definition` is explored whole too: its fused layer, the
  // convolution `convolution` taken back in (--fusion on, where the fusion takes it).
  auto fused_back = [&](const std::string& definition, const std::string& convolution) {
    return std::any_of(x.layers.begin(), x.layers.end(), [&](const Layer& l) {
      return l.name == definition && l.fused == std::vector<std::string>{convolution};
    });
  };
  const std::string unfused = x.o.fusion == "off" ? "not fused back (--fusion off)" : "not fused back: no fusion takes it";
  if (!x.pooled.splits.empty()) {
    bool all = std::all_of(x.pooled.splits.begin(), x.pooled.splits.end(),
                           [&](const PoolSplit& s) { return fused_back(s.definition, s.convolution); });
    x.say(fmt::format("pooling split off its convolution, each explored as a layer of its own (the convolution alone "
                      "takes every dense strategy; {}): {}\n",
                      all ? "the two fused back, the convolution computed inside each pooling window, are the alternative"
                          : unfused,
                      pool_splits_text(x.pooled)));
  }
  if (!x.residual.splits.empty()) {
    bool all = std::all_of(x.residual.splits.begin(), x.residual.splits.end(),
                           [&](const ResidualSplit& s) { return fused_back(s.definition, s.convolution); });
    x.say(fmt::format("residual add split off its convolution, each explored as a layer of its own (the convolution "
                      "alone takes every dense strategy; {}): {}\n",
                      all ? "the add over it fused back in is the alternative" : unfused,
                      residual_splits_text(x.residual)));
  }
  if (!x.grouped.splits.empty())
    x.say(fmt::format("grouped convolution split by group, explored as an alternative (each group a dense convolution "
                      "over its channels of the image, which every dense strategy takes; their outputs joined per "
                      "pixel): {}\n",
                      group_splits_text(x.grouped)));
  std::vector<std::string> fused;
  for (const Layer& layer : x.layers)
    if (!layer.fused.empty()) fused.push_back(layer_title(layer));
  if (!fused.empty())
    x.say(
        fmt::format("fused layers, explored {} (a definition one-to-one over another's output, a pointwise "
                    "layer over a depthwise one, a pooling over a convolution, or a permutation of another's "
                    "output or a concatenation of others' read through by its one reader, inlined into it: no "
                    "buffer for that output): {}\n",
                    x.o.fusion == "only" ? "instead of the layers they fuse (--fusion only)" : "as alternatives",
                    fmt::join(fused, ", ")));
  return network_spaces(std::move(x.layers), std::move(x.variants), x.rules, target, n);
}

// The run in the store: the resumed one, or a new one with every option that redoes it.
std::int64_t begin_run(Exploration& x, const Problem& problem, const constraints::Target& target,
                       const std::string& rules_identity) {
  if (x.resumed) return x.resumed->id;
  json config = request_to_json(x.o);
  config["file"] = fs::absolute(x.o.file).lexically_normal().string();  // --resume from any folder finds it
  config["program"] = problem.program_hash;
  config["rules_dir"] = fs::absolute(x.rules_dir).lexically_normal().string();
  config["rules"] = rules_identity;
  config["target_profile"] = target_to_json(target);
  return x.store->begin_run(config["file"].get<std::string>(), config.dump(-1, ' ', false, json::error_handler_t::replace));
}

// The -o folder's line on the allowance/ folders of `points` front points.
std::string allowance_hint(const std::string& out_dir, std::size_t points) {
  return fmt::format(
      ", and --allowance {}/front/RANK/allowance for the {} point(s) that have one: they compute "
      "through constant arrays, Winograd's, and were validated with that rounding allowed",
      out_dir, points);
}

// The outcome of a network's exploration: each layer's, the composed front, the -o folder.
void report_network(Exploration& x, const NetworkExploration& net, const Problem& problem, std::int64_t run) {
  x.say(layers_text(net, x.s.jobs));
  std::vector<Evaluation> rows = network_rows(net, problem, run);
  if (rows.empty()) {
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
      if (!net.results[i]) continue;  // a layer no variant runs
      const LayerResult& r = *net.results[i];
      if (r.front.empty())
        throw Error(fmt::format("no network point: {} has no front: {}", layer_label(net, i),
                                no_front_reason(r.loop, r.space)));
    }
    throw Error("no network point: the layers' fronts compose to none");
  }
  if (!x.o.pareto) rows.resize(1);
  x.say(fmt::format("{} (time: the layers' times summed; memory: the peak, each buffer held from the first kernel that "
                    "uses it to the last, as its host program holds it), {} "
                    "point(s):\n{}",
                    x.o.pareto ? "network Pareto front" : "fastest network point", rows.size(), front_table(rows)));
  if (x.o.out_dir.empty()) return;
  NetworkExploration written = net;
  written.front.resize(rows.size());
  std::size_t allowed =
      write_network_outputs(x.o.out_dir, written, problem, run, fs::path(x.o.file).stem().string(), x.o.build_options);
  x.say(
      fmt::format("wrote {}: front/1..{} (kernels.cl and a host program running every layer each), inputs/ and "
                  "expected/ (the network's inputs and every layer's interpreter values: PROGRAM {}/inputs OUT "
                  "--expected {}/expected validates every layer{}), pareto.csv, pareto.json, evaluated.csv\n",
                  x.o.out_dir, rows.size(), x.o.out_dir, x.o.out_dir,
                  allowed ? allowance_hint(x.o.out_dir, allowed) : std::string()));
}

// The -o folder of a whole program's exploration: the front (or its fastest point alone
// without --pareto), fastest first.
void write_front(Exploration& x, const CandidateSpace& space, const LoopResult& r, std::vector<std::size_t> front,
                 const Problem& problem, Evaluator& evaluator) {
  auto faster = [&](std::size_t a, std::size_t b) { return r.explored[a].evaluation.time_ms < r.explored[b].evaluation.time_ms; };
  if (!x.o.pareto && !front.empty()) front = {*std::min_element(front.begin(), front.end(), faster)};
  std::sort(front.begin(), front.end(), faster);
  std::vector<const interp::Tensors*> allowances;
  for (std::size_t i : front) allowances.push_back(evaluator.allowance(r.explored[i].candidate));
  write_outputs(x.o.out_dir, space, r.explored, front, allowances, problem, fs::path(x.o.file).stem().string(),
                x.o.build_options);
  std::size_t library = 0, allowed = 0;
  for (std::size_t i : front) library += is_library_strategy(r.explored[i].evaluation.strategy);
  for (const interp::Tensors* a : allowances) allowed += a != nullptr;
  x.say(fmt::format(
      "wrote {}: front/1..{} (kernels.cl and a host program each{}), inputs/ and expected/ (the program's inputs and "
      "the interpreter's outputs: PROGRAM {}/inputs OUT --expected {}/expected validates a point{}), pareto.csv, "
      "pareto.json, evaluated.csv (plot: python3 {} {})\n",
      x.o.out_dir, front.size(),
      library ? fmt::format("; README.txt and plan.json instead for the {} CLBlast point(s)", library) : std::string(),
      x.o.out_dir, x.o.out_dir, allowed ? allowance_hint(x.o.out_dir, allowed) : std::string(), plot_script(),
      x.o.out_dir));
}

// Records that `run` ended; with workers, its queue rows and the shared files only it used
// go (its outcomes are in the store's rows).
void end_run(Exploration& x, std::int64_t run) {
  x.store->end_run(run);
  if (x.s.evaluator.queue) x.s.evaluator.queue->end_run(run);
}

// A whole program's exploration: the loop over its space, then its front and -o folder.
void explore_program(Exploration& x, CandidateSpace& space, const Problem& problem, const DeviceReport& device,
                     std::int64_t run, const constraints::Target& target) {
  EvaluatorOptions evaluating = x.s.evaluator;
  std::shared_ptr<GenerationMemo> generations = model_generations(x, space);
  evaluating.generations = generations;
  Evaluator evaluator(problem, space, *x.store, run, device, evaluating);
  if (x.o.warm_start) {
    x.s.genetic.seeds = stored_seeds(*x.store, problem.program_hash, device.name, run, space, x.s.genetic.population);
    x.say(fmt::format("warm start: {} point(s) of earlier runs of this program on {} in {}\n",
                      x.s.genetic.seeds.size(), device.name, x.shown_db));
  }
  // The tuning database: --train-db, else the run's own store (its rows of earlier runs).
  TransferTarget t{problem.program_hash, device.name, problem.shapes};
  TuningDatabases train = open_tuning_databases(x.o.train_dbs);
  auto [dbs, names] = model_databases(x, train, run, t);
  model_inputs(x, x.s, space, target, dbs, names, t, generations);
  auto search = x.s.make_search(space);
  StartFn start = [&](const Candidate& c) { return evaluator.start(c); };
  LoopResult r = explore_loop(*search, start, x.s.budget, x.s.jobs, x.progress);
  evaluator.add_cut_reasons(r);
  end_run(x, run);
  say_on_interrupt("");
  if (std::string line = search->report(); !line.empty()) x.say(line + "\n");
  if (generations) x.say(format_generation_stats(generations->stats(), generations->capacity()) + "\n");

  x.say(summary_text(r, space));
  x.say(fmt::format("{} job(s): {:.2f} evaluations/s; per candidate: {}\n", x.s.jobs,
                    r.seconds > 0 ? double(r.explored.size()) / r.seconds : 0.0, evaluator.times().text()));
  std::vector<std::size_t> front = front_of(r.explored);
  if (!front.empty()) x.say(front_text(r, space, front, x.o.pareto));
  if (!x.o.out_dir.empty()) write_front(x, space, r, front, problem, evaluator);
  if (front.empty()) throw Error(fmt::format("no front: {}", no_front_reason(r, space)));
}

void explore_on_device(Exploration& x) {
  if (x.o.warm_start && x.network)
    throw Error(fmt::format("--warm-start: {} is a network of {} layers, explored layer by layer, which a warm start "
                            "does not seed yet; warm-start a run of --whole-program or of one layer",
                            x.o.file, written_layers(x)));
  // What identifies the program and the rules: a resumed run must explore the same ones.
  std::string rules_identity = rules_hash(x.rules);
  if (x.resumed)
    check_resumed(*x.resumed, x.shown_db, x.o.file, problem_hash(x.o.file, x.s.input_seed, x.s.storage), x.rules_dir, rules_identity);
  // --workers: the queue first (a SQLite store has none: refused before a device is asked).
  if (!x.o.workers.empty()) x.s.evaluator.queue = Queue::open(x.db, fmt::format("--workers {}", x.o.workers));
  std::optional<OutputLock> output_lock;
  if (!x.o.out_dir.empty()) output_lock.emplace(check_output_dir(x.o.out_dir, x.o.force));
  WorkFolder work(x.db);
  x.s.evaluator.work_dir = work.path();

  // Device, target and space first: a runner that does not answer or a strategy that does
  // not apply is reported before anything is written.
  Device device = probe(x);
  // The serving runners open the device while the space, the reference and the run are made
  // (ServePool::warm, with the probe's bundle): on an H200, 32 runners opening it at once
  // took 5-9 s each, which a first layer's search spent waiting. Workers open their own. No
  // more runners than candidates: `--evals 1` opens the device once.
  if (!x.s.evaluator.queue && x.s.workers == 0 && !x.s.external_workers)
    if (std::shared_ptr<ServePool> pool = serving_pool(x.s.evaluator)) {
      std::size_t runners = std::min(x.s.jobs, std::max<std::size_t>(x.s.budget.evaluations, 1));
      pool->warm(runners, probe_bundle_dir(x.s.evaluator), x.s.evaluator.timeout_s);
      x.s.evaluator.pool = std::move(pool);
    }
  CandidateSpace space;
  NetworkOptions options;
  NetworkExploration net;
  if (x.network) {
    options = network_options(x);
    net = layer_spaces(x, options, device.target);
  } else {
    space = program_space(x, device.target);
  }

  if (!x.store) x.store = Store::open(x.db);
  x.say(fmt::format("results store: {}\n", x.shown_db));
  Problem problem = load_problem(x.o.file, x.s.input_seed, *x.store, x.s.storage);
  x.say(fmt::format("reference: {}\n", problem.reference_from_store
                                           ? std::string("from the store")
                                           : fmt::format("the interpreter took {:.2f} s", problem.reference_seconds)));
  // In the order of the splits: the pooling's first (the residual add its split-off part may
  // be is split next, checked against that part's value), then the residual's (a grouped
  // convolution split by group may be the convolution a residual add was split off:
  // split_grouped runs on that program, whose value it adds).
  add_pool_split_references(problem, x.pooled);
  add_residual_references(problem, x.residual);
  if (x.network) add_group_references(problem, x.grouped);
  std::int64_t run = begin_run(x, problem, device.target, rules_identity);
  // Interrupted (Ctrl-C, SIGTERM), the run stays unfinished in the store: say how to go on.
  // --jobs and -o are not stored with the run: the command gives them again as given.
  say_on_interrupt(fmt::format("liftc explore: interrupted; `liftc explore --resume --db {}{}{}{}` continues run {}\n",
                               x.shown_db, x.o.jobs.empty() ? "" : " --jobs " + x.o.jobs,
                               x.o.workers.empty() ? "" : " --workers " + x.o.workers,
                               x.o.out_dir.empty() ? "" : " -o " + x.o.out_dir, run));
  std::optional<LocalWorkers> workers;
  if (x.s.workers > 0) {
    workers.emplace(x.s.workers, x.db, x.s.evaluator, work.path());
    x.s.evaluator.queue_check = [&workers] { workers->check(); };
    x.say(fmt::format("workers: {} local liftc worker process(es), candidates queued in {}\n", x.s.workers, x.shown_db));
  } else if (x.s.external_workers) {
    x.say(fmt::format("workers: external; candidates queued in {} for `liftc worker --db {} ...` on a device {} "
                      "(driver {})\n",
                      x.shown_db, x.shown_db, device.report.name, device.report.driver));
  }
  if (x.network) options.evaluator = x.s.evaluator;  // with the workers' check
  if (!x.network) return explore_program(x, space, problem, device.report, run, device.target);
  // Each layer's search, and the model-guided search's inputs of that layer: its own
  // features, and the tuning database's rows of other programs (the other layers' among
  // them, where an earlier run or --train-db holds them) and nearest shapes' points.
  TuningDatabases train = open_tuning_databases(x.o.train_dbs);
  options.make_search = [&](CandidateSpace& sp, const Problem& layer, const std::string& label) {
    Settings s = x.s;
    TransferTarget t{layer.program_hash, device.report.name, layer.shapes};
    auto [dbs, names] = model_databases(x, train, run, t);
    std::shared_ptr<GenerationMemo> generations = model_generations(x, sp);
    model_inputs(x, s, sp, device.target, dbs, names, t, generations, label + ": ");
    return NetworkOptions::LayerSearch{s.make_search(sp), generations};
  };
  explore_network(net, problem, *x.store, run, device.report, options);
  end_run(x, run);
  say_on_interrupt("");
  report_network(x, net, problem, run);
}

}  // namespace

void run(Request request, Reporter& report) {
  if (request.resume && !request.replay.empty()) throw Error("--resume and --replay exclude each other");
  if (!request.workers.empty() && !request.replay.empty())
    throw Error("--workers runs candidates on workers; --replay runs none (it reads a store's results)");
  Exploration x(std::move(request), report);
  x.db = store_path(x.o);
  x.shown_db = shown_store_name(x.db);
  if (x.o.resume) resume(x);
  load(x);
  if (!x.o.replay.empty()) return replay(x);
  explore_on_device(x);
}

}  // namespace liftc::explore
