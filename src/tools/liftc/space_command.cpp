// `liftc space F.sr`: the tuning-parameter space of each rewritten alternative on a
// target: parameters and domains, every constraint with its source, the dependency order,
// the number of valid points, and sampled points (the constraints stage).

#include <algorithm>
#include <charconv>
#include <set>

#include <fmt/format.h>

#include "commands.hpp"
#include "options.hpp"
#include "liftc/constraints/solve.hpp"
#include "liftc/explore/candidates/constraint_space.hpp"
#include "liftc/explore/products/groups.hpp"
#include "liftc/explore/products/pool_split.hpp"
#include "liftc/explore/products/residual.hpp"
#include "liftc/explore/products/layers.hpp"
#include "liftc/explore/candidates/library.hpp"
#include "liftc/explore/products/named_strategies.hpp"
#include "liftc/explore/products/network.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/rewrite/engine.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::tool {

namespace {

struct SpaceOptions {
  std::string file;
  std::vector<std::string> strategies;
  std::string target;
  std::string device;
  bool device_given = false;
  std::string samples = "10";
  std::string seed = "1";
  std::string rules_dir;
  std::size_t max_alternatives = 256;
  bool whole_program = false;
  std::string fusion = "on";
};

// The rewrites of `program` by `strategies` (a strategy the user named must apply, unless
// `not_applied` is given: a network's layer, where it is listed there); when none applies,
// the first lowering fallback that does, else the program as written, with `note` saying so.
std::vector<std::pair<std::string, rewrite::ProgramRewrite>> rewrites_of(
    const ir::Program& program, const rewrite::RuleSet& rules, const std::vector<std::string>& strategies, bool given,
    const rewrite::RewriteOptions& options, std::string& note, std::vector<explore::NotApplied>* not_applied = nullptr) {
  std::vector<std::pair<std::string, rewrite::ProgramRewrite>> rewrites;
  for (const auto& s : strategies) {
    try {
      rewrites.emplace_back(s, rewrite::rewrite_program(rules, s, program, options));
    } catch (const Error& e) {
      if (given && !not_applied) throw;  // a strategy the user named must apply
      if (given) not_applied->push_back({s, e.message(), e.loc()});
    }
  }
  if (!rewrites.empty()) return rewrites;
  std::string none = given ? fmt::format("{} {} not apply", fmt::join(strategies, ", "), strategies.size() == 1 ? "does" : "do")
                           : "no strategy of strategies.rules applies";
  if (std::optional<std::string> fallback = explore::fallback_strategy(program, rules)) {
    note = fmt::format("// {}: lowered by {}\n", none, *fallback);
    rewrites.emplace_back(*fallback, rewrite::rewrite_program(rules, *fallback, explore::fallback_form(program, rules), options));
    return rewrites;
  }
  note = fmt::format("// {}: the program as written (strategy id)\n", none);
  rewrites.emplace_back("id", rewrite::rewrite_program(rules, "id", program, options));
  return rewrites;
}

// The spaces of `rewrites` (a parameter with too many values is an error).
std::vector<constraints::Space> spaces_of(const std::vector<std::pair<std::string, rewrite::ProgramRewrite>>& rewrites,
                                          const constraints::Target& target) {
  std::vector<constraints::Space> spaces;
  for (const auto& [s, r] : rewrites) {
    for (std::size_t i = 0; i < r.programs.size(); ++i) {
      spaces.push_back(constraints::build_space(r.programs[i].program, r.programs[i].params, target));
      spaces.back().strategy = s;
      spaces.back().alternative = i + 1;
      spaces.back().alternatives = r.programs.size();
    }
  }
  return spaces;
}

std::uint64_t parse_count(const std::string& flag, const std::string& text, std::uint64_t max) {
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || v > max)
    throw Error(fmt::format("{} {}: expected a whole number from 0 to {}", flag, text, max));
  return v;
}

// `others`: whether a strategy beside it does not use emulated local memory (explore then
// draws this one less often; when none does, all are drawn equally).
void print_space(const constraints::Space& space, std::uint64_t samples, std::mt19937_64& rng, bool others) {
  using constraints::Source;
  fmt::print("\n== strategy {}, alternative {} of {}\n", space.strategy, space.alternative, space.alternatives);
  if (space.local_memory_emulated)
    fmt::print("note: its kernels use local memory, which {} emulates in global memory: no faster there than "
               "reading global memory{}\n",
               space.target.name,
               others ? fmt::format("; explore draws it {} times as often as other strategies", explore::kEmulatedLocalShare)
                      : std::string());
  if (space.params.empty()) fmt::print("parameters: none\n");
  else fmt::print("parameters (in dependency order):\n");
  std::size_t width = 10;  // the names' column: as wide as the longest (`conv_part1_local_0`)
  for (const auto& p : space.params) width = std::max(width, p.name.size());
  for (const auto& p : space.params) {
    std::string domain = p.domain.size() <= 12 ? fmt::format("{}", fmt::join(p.domain, ", "))
                                               : fmt::format("{} values, {}..{}", p.domain.size(), p.domain.front(),
                                                             p.domain.back());
    fmt::print("  {:<{}} declared {:<10} domain {{{}}}  [{}: {}]\n", p.name, width, p.declared, domain,
               constraints::to_string(p.source), p.origin);
  }
  fmt::print("constraints:\n");
  for (const auto& c : space.constraints) {
    std::string where = c.loc.known() ? fmt::format(", line {}", c.loc.line) : "";
    fmt::print("  [{}] {}  ({}{}){}\n", constraints::to_string(c.source), constraints::to_string(c), c.why, where,
               c.implied ? "  holds for every value of the domains" : "");
  }
  std::string order;
  for (const auto& p : space.params) order += (order.empty() ? "" : ", ") + p.name;
  fmt::print("order: {}\n", order.empty() ? "-" : order);
  for (const auto& [a, b] : space.edges) fmt::print("  {} after {}\n", b, a);

  constraints::Feasibility f = constraints::check_feasibility(space);
  if (f.decided && !f.feasible) {
    fmt::print("valid points: 0 (Z3: infeasible; these constraints cannot hold together:)\n");
    for (auto i : f.conflict)
      fmt::print("  [{}] {}  ({})\n", constraints::to_string(space.constraints[i].source),
                 constraints::to_string(space.constraints[i]), space.constraints[i].why);
    return;
  }
  constraints::Sampler sampler(space);
  fmt::print("valid points: {}{}\n", sampler.count_text(),
             f.decided ? "" : fmt::format(" (Z3 gave up deciding feasibility: its resource limit of {} steps reached)",
                                          constraints::kZ3FeasibilityEffort));
  if (samples == 0 || sampler.count() == 0) return;
  fmt::print("samples ({}, {}):\n", samples,
             sampler.uniform() ? "uniform over the valid points"
                               : "NOT uniform: valid points from a random search, Z3-guided where it fails; the space is "
                                 "too large to count");
  for (std::uint64_t i = 0; i < samples; ++i) {
    constraints::Assignment p = sampler.sample(rng);
    fmt::print("  {}\n", constraints::format_assignment(space, p).empty() ? "(no parameters)" : constraints::format_assignment(space, p));
  }
}

// A library candidate's space (library.hpp): CLBlast's parameters, the constraints its
// tuner puts on them, the count (enumerated) and samples.
void print_library_space(explore::LibraryAlternative& alt, std::uint64_t samples, std::mt19937_64& rng) {
  fmt::print("\n== strategy {}, alternative {} (CLBlast)\n{}", alt.strategy(), explore::alternative_number(alt),
             alt.summary());
  fmt::print("parameters (CLBlast's, set through OverrideParameters):\n");
  for (const auto& p : alt.parameters()) fmt::print("  {:<10} domain {{{}}}\n", p.name, fmt::join(p.domain, ", "));
  fmt::print("constraints (CLBlast's tuner's, and this target's limits):\n");
  for (const auto& c : alt.constraint_lines()) fmt::print("  {}\n", c);
  fmt::print("valid points: {} (exact: enumerated)\n", alt.count());
  if (samples == 0 || alt.count() == 0) return;
  fmt::print("samples ({}, uniform over the valid points):\n", samples);
  for (std::uint64_t i = 0; i < samples; ++i) fmt::print("  {}\n", explore::format_point(alt, alt.sample(rng)));
}

// "layer 2/3 (conv2)", or for a part of a grouped convolution split by group "group layer
// (conv_g0, a group of conv)", for a layer reading the groups themselves "fused layer
// (conv+next: ...)", for a reader split into the groups' epilogues "fused layer
// (conv+next_g0: ...)", for a split definition whole "fused layer (out_conv+out: ...)", for
// another fused layer of the network "fused layer (a+b: ...)" (`written`: the layers as
// written, first in `layers`; `fused`: the index of the first fused alternative, the last
// layers; `split_backs`: those of them that are a split definition whole).
std::string layer_heading(const std::vector<explore::Layer>& layers, std::size_t i, std::size_t written,
                          std::size_t fused, const std::set<std::size_t>& split_backs) {
  const explore::Layer& l = layers[i];
  if (split_backs.count(i))
    return fmt::format("fused layer ({}: the two fused back into one definition, explore's alternative to the split)",
                       explore::layer_title(l));
  if (i >= fused)
    return fmt::format("fused layer ({}: {} inlined into it, explore's alternative to the layers it fuses; --fusion "
                       "off: none)",
                       explore::layer_title(l), fmt::join(l.fused, ", "));
  if (!l.fused.empty() && !l.group_of.empty())
    return fmt::format("fused layer ({}: {} over one group of {}, on that group's channels)", explore::layer_title(l),
                       l.group_of, fmt::join(l.fused, ", "));
  if (!l.fused.empty())
    return fmt::format("fused layer ({}: it reads {}'s groups, not their concatenation)", explore::layer_title(l),
                       fmt::join(l.fused, ", "));
  if (l.group_of.empty()) return fmt::format("layer {}/{} ({})", i + 1, written, l.name);
  if (l.group_of == l.name) return fmt::format("group layer ({}: its groups' outputs joined)", l.name);
  return fmt::format("group layer ({}, a group of {})", l.name, l.group_of);
}

// Appends to `layers` (the `written` layers of `program` first) the fused layers explore
// makes of them with --fusion on (add_fused_layers: a one-to-one layer into its producer, a
// depthwise layer into its pointwise reader, a convolution into its pooling, a permutation
// read through), each once, of the shape of an earlier one where explore takes it so; and to
// `split_backs` the indices of those that are a split definition whole (a residual add or a
// pooling split off its convolution, `splits`: each its convolution and its definition).
void add_fused_alternatives(const ir::Program& program, std::size_t written,
                            const std::vector<std::pair<std::string, std::string>>& splits,
                            const rewrite::RuleSet& rules, std::vector<explore::Layer>& layers,
                            std::set<std::size_t>& split_backs) {
  std::vector<explore::Layer> all = explore::split_layers(program);
  LIFTC_ASSERT(all.size() == written, "a network's layers as written come first");
  explore::add_fused_layers(program, all, &rules);
  std::vector<std::size_t> index(all.size());  // of each layer of `all` in `layers`
  for (std::size_t i = 0; i < written; ++i) index[i] = i;
  for (std::size_t i = written; i < all.size(); ++i) {
    explore::Layer layer = all[i];
    layer.same_as = all[i].same_as == i ? layers.size() : index[all[i].same_as];
    index[i] = layers.size();
    bool split_back = std::any_of(splits.begin(), splits.end(), [&](const auto& split) {
      return layer.name == split.second && layer.fused == std::vector<std::string>{split.first};
    });
    if (split_back) split_backs.insert(layers.size());
    layers.push_back(std::move(layer));
  }
}

void run_space(const SpaceOptions& o) {
  std::uint64_t samples = parse_count("--samples", o.samples, 1000000);
  std::uint64_t seed = parse_count("--seed", o.seed, UINT64_MAX);
  if (!o.target.empty() && o.device_given) throw Error("--target and --device exclude each other: give one");
  constraints::Target target = o.target.empty()
                                   ? constraints::target_from_device(runtime::select_device(o.device))
                                   : constraints::find_target(o.target, constraints::default_targets_dir());
  rewrite::RuleSet rules = rewrite::load_rules_dir(o.rules_dir.empty() ? rewrite::default_rules_dir() : o.rules_dir);
  ir::Program program = parse::load_program(o.file);
  // A convolution and its pooling in one definition: its layers as explore searches them, the
  // convolution split off and the pooling over it (explore's fused alternative is the
  // definition whole).
  explore::PooledProgram pooled;
  if (!o.whole_program) pooled = explore::split_poolings(program, &rules);
  if (!pooled.splits.empty()) program = pooled.program;
  // A convolution whose definition adds a residual (what a pooling was split off of, too): the
  // same, the convolution split off and the add over it.
  explore::ResidualProgram residual;
  if (!o.whole_program) residual = explore::split_residuals(program, &rules);
  if (!residual.splits.empty()) program = residual.program;
  // A program of several definitions is a network: the space of each layer, as explore
  // searches it (layers of one shape once).
  std::vector<explore::Layer> layers;
  if (!o.whole_program && explore::explored_by_layer(program)) layers = explore::split_layers(program);
  // A grouped convolution split by group (explore's alternative to it whole): the layers of
  // its groups and their concatenation after those as written.
  explore::GroupedProgram grouped;
  if (!o.whole_program) grouped = explore::split_groups(program, rules);
  if (!grouped.splits.empty() && layers.empty()) layers = explore::split_layers(program);
  const std::size_t written = layers.size();
  if (!grouped.splits.empty()) explore::add_group_split_layers(grouped, layers);
  // The fused layers explore makes with --fusion on, the split definitions whole among them.
  if (o.fusion != "on" && o.fusion != "off") throw Error(fmt::format("--fusion: '{}' is not on or off", o.fusion));
  const std::size_t fused = layers.size();
  std::set<std::size_t> split_backs;
  std::vector<std::pair<std::string, std::string>> splits;
  for (const auto& s : residual.splits) splits.emplace_back(s.convolution, s.definition);
  for (const auto& s : pooled.splits) splits.emplace_back(s.convolution, s.definition);
  if (written > 0 && o.fusion == "on") add_fused_alternatives(program, written, splits, rules, layers, split_backs);
  std::vector<std::string> strategies =
      !o.strategies.empty() ? rewrite::expand_strategy_tags(rules, o.strategies)
                            : explore::default_strategies(rules, layers.empty() ? program : layers.front().program);
  // CLBlast's routines (library.hpp) are spaces of their own, not rewrites.
  bool any_library = std::any_of(strategies.begin(), strategies.end(), explore::is_library_strategy);
  bool only_library = !o.strategies.empty() && std::all_of(strategies.begin(), strategies.end(), explore::is_library_strategy);
  std::erase_if(strategies, explore::is_library_strategy);
  rewrite::RewriteOptions options;
  options.budget.max_alternatives = o.max_alternatives;

  // Rewrite and build every space first, so that an error comes before any output.
  struct Part {
    std::string heading, note;
    std::vector<constraints::Space> spaces;
  };
  std::vector<Part> parts;
  std::vector<std::unique_ptr<explore::LibraryAlternative>> library;
  if (layers.empty()) {
    Part& part = parts.emplace_back();
    // Strategies named: each named by itself must apply, one named by a tag need not (a note).
    std::vector<explore::NotApplied> not_applied;
    if (!only_library)
      part.spaces = spaces_of(rewrites_of(program, rules, strategies, !o.strategies.empty(), options, part.note,
                                          o.strategies.empty() ? nullptr : &not_applied),
                              target);
    if (!o.strategies.empty())
      for (const auto& note : explore::check_program_strategies_apply(not_applied, strategies, o.strategies))
        part.note += fmt::format("// {}\n", note);
    if (any_library || o.strategies.empty())
      library = explore::library_alternatives(program, rules, o.strategies, !o.strategies.empty(), target);
  }
  std::vector<std::vector<explore::NotApplied>> not_applied(layers.size());  // per layer: strategies named it refused
  for (std::size_t i = 0; i < layers.size(); ++i) {
    Part& part = parts.emplace_back();
    // The layer whose shape this one has, named as explore names it ("layer 1 (conv1)").
    const explore::Layer& same = layers[layers[i].same_as];
    std::string shape =
        layers[i].same_as == i ? ""
        : fmt::format(": the shape of {}, its space",
                      same.fused.empty() && same.group_of.empty()
                          ? fmt::format("layer {} ({})", layers[i].same_as + 1, same.name)
                          : layer_heading(layers, layers[i].same_as, written, fused, split_backs));
    part.heading = fmt::format("\n==== {}{}\n", layer_heading(layers, i, written, fused, split_backs), shape);
    if (layers[i].same_as != i) {
      not_applied[i] = not_applied[layers[i].same_as];
      continue;
    }
    try {
      part.spaces = spaces_of(
          rewrites_of(layers[i].program, rules, strategies, !o.strategies.empty(), options, part.note, &not_applied[i]),
          target);
    } catch (const Error& e) {
      throw Error(fmt::format("layer '{}': {}", layers[i].name, e.message()));
    }
    if (part.note.empty())
      for (const auto& n : not_applied[i]) part.note += fmt::format("// {} does not apply to this layer\n", n.strategy);
  }
  // As explore: a strategy named is an error only when it applies to no layer.
  if (!layers.empty())
    explore::check_named_strategies_apply(layers, not_applied, rewrite::expand_strategy_tags(rules, o.strategies),
                                          o.strategies);

  fmt::print("// liftc space {}: target {}\n", o.file, constraints::format_target(target));
  if (written > 1)
    fmt::print("// a network of {} layers: each layer's space (explore searches them one by one; --whole-program: "
               "the program as one)\n",
               written);
  else if (layers.empty() && !o.whole_program && explore::is_network(program))
    fmt::print("// a rewritten network (its layers share tuning parameters): the whole program's space\n");
  // Whether each of `splits` has its definition whole among the fused layers (explore's
  // alternative to the split; a channel-first convolution pooled per plane has none).
  auto all_fused_back = [&](const auto& splits) {
    return std::all_of(splits.begin(), splits.end(), [&](const auto& split) {
      return std::any_of(split_backs.begin(), split_backs.end(), [&](std::size_t i) {
        return layers[i].name == split.definition && layers[i].fused == std::vector<std::string>{split.convolution};
      });
    });
  };
  const std::string unfused = o.fusion == "off" ? "not fused back (--fusion off)" : "not fused back: no fusion takes it";
  if (!pooled.splits.empty())
    fmt::print("// a pooling split off its convolution: {}; the convolution alone takes every dense strategy: explore "
               "searches these layers, {} (--whole-program: the program as written, not split)\n",
               explore::pool_splits_text(pooled),
               all_fused_back(pooled.splits)
                   ? "and the definition whole (the convolution computed inside each pooling window) as their fused "
                     "alternative"
                   : unfused);
  if (!residual.splits.empty())
    fmt::print("// a residual add split off its convolution: {}; the convolution alone takes every dense strategy: "
               "explore searches these layers, {} (--whole-program: the program as written, not split)\n",
               explore::residual_splits_text(residual),
               all_fused_back(residual.splits) ? "and the definition whole as their fused alternative" : unfused);
  if (!grouped.splits.empty())
    fmt::print("// a grouped convolution split by group: {}; each group a dense convolution over its channels of the "
               "image (every dense strategy takes it), their outputs joined per pixel: explore searches these layers "
               "as an alternative to the convolution whole (--whole-program: the program as one, not split)\n",
               explore::group_splits_text(grouped));
  if (!explore::clblast_available()) fmt::print("// {}\n", explore::kNoClblastNote);
  std::mt19937_64 rng(seed);
  for (const auto& part : parts) {
    fmt::print("{}{}", part.heading, part.note);
    bool others = std::any_of(part.spaces.begin(), part.spaces.end(), [](const auto& s) { return !s.local_memory_emulated; }) ||
                  std::any_of(library.begin(), library.end(), [](const auto& a) { return !a->local_memory_emulated(); });
    for (const auto& space : part.spaces) print_space(space, samples, rng, others);
  }
  for (const auto& alt : library) print_library_space(*alt, samples, rng);
}

}  // namespace

void add_space_command(CLI::App& app) {
  auto o = std::make_shared<SpaceOptions>();
  CLI::App* cmd = app.add_subcommand("space", "The tuning-parameter space of a program's rewritten alternatives on a target: "
                                              "parameters, constraints with their sources, order, count, samples");
  cmd->add_option("file", o->file, "the .sr program")->required();
  cmd->add_option("--strategy,-s", o->strategies,
                  "a strategy (repeatable), or @TAG for every strategy tagged TAG (@fast, @gpu); default: every strategy of rules/strategies.rules that applies");
  cmd->add_option("--target,-t", o->target, "a target profile of rules/targets (mali-g72, mali-g76, adreno-640, adreno-650)");
  cmd->add_option("--device", o->device, "the OpenCL device whose limits to use (index or part of its name; default: the first)")
      ->each([o](const std::string&) { o->device_given = true; });
  cmd->add_option("--samples", o->samples, "valid points to sample per alternative (default 10)");
  cmd->add_option("--seed", o->seed, "seed of the sampler (default 1)");
  cmd->add_option("--rules", o->rules_dir, kRulesFlagHelp);
  cmd->add_option("--max-alternatives", o->max_alternatives, "alternatives kept per strategy (default 256)")
      ->check(integer_in(1, 1000000));
  cmd->add_flag("--whole-program", o->whole_program,
                "a network (two or more definitions that compute) as one program (default: each layer's space, as "
                "explore searches it)");
  cmd->add_option("--fusion", o->fusion,
                  "a network's fused layers (a one-to-one layer into its producer, a depthwise layer into its "
                  "pointwise reader, a convolution into its pooling), explore's alternatives to the layers they "
                  "fuse: on (default, listed after the layers, as explore --fusion on searches them) or off");
  cmd->callback([o] { run_space(*o); });
}

}  // namespace liftc::tool
