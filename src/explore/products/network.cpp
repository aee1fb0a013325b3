// A network explored layer by layer, its composed front, and one point's code as one Module.

#include "liftc/explore/products/network.hpp"

#include "liftc/explore/products/groups.hpp"
#include "liftc/explore/products/named_strategies.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "liftc/codegen/host_plan.hpp"
#include "liftc/codegen/plan.hpp"
#include "liftc/explore/candidates/constraint_space.hpp"
#include "liftc/explore/candidates/library.hpp"
#include "liftc/explore/candidates/magnitude_form.hpp"
#include "liftc/interp/magnitude.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace liftc::explore {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// A layer module's kernels as its host program runs them (codegen::host_plan): each global
// buffer, a network input or definition where `network` has its bytes (else the layer's own
// intermediate), and the buffers each kernel's arguments name.
LayerSteps layer_steps(const codegen::Module& m, const std::map<std::string, double>& network) {
  codegen::HostPlan plan = codegen::host_plan(m);
  LayerSteps out;
  for (const codegen::HostBuffer& b : plan.buffers) {
    bool shared = b.role != codegen::HostRole::Scratch;
    LIFTC_ASSERT(!shared || network.count(b.name) != 0, "a layer's inputs and output are the network's inputs and definitions");
    LIFTC_ASSERT(!shared || network.at(b.name) == static_cast<double>(b.elements * b.element_bytes()),
                 "a layer stores a network value as the network does");
    out.buffers.push_back({b.name, static_cast<double>(b.elements * b.element_bytes()), shared});
  }
  for (const codegen::HostStage& stage : plan.stages)
    for (const codegen::HostKernel& k : stage.kernels) {
      std::vector<std::size_t>& named = out.kernels.emplace_back();
      for (const codegen::HostArg& a : k.args)
        if (a.buffer >= 0) named.push_back(static_cast<std::size_t>(a.buffer));
    }
  return out;
}

// The strategies of `space`'s alternatives, each once, in order.
std::vector<std::string> strategies_of(const CandidateSpace& space) {
  std::vector<std::string> out;
  for (const auto& a : space.alternatives)
    if (std::find(out.begin(), out.end(), a->strategy()) == out.end()) out.push_back(a->strategy());
  return out;
}

// The layer's space: every strategy of `o` that applies, or a fallback. Named strategies
// that do not apply are listed in the result's not_applied (`named`: those of liftc's own).
std::shared_ptr<LayerResult> layer_space(const Layer& layer, const std::string& label, const rewrite::RuleSet& rules,
                                         const constraints::Target& target, const NetworkOptions& o,
                                         const std::vector<std::string>& named) {
  auto r = std::make_shared<LayerResult>();
  auto begin = std::chrono::steady_clock::now();
  r->space = o.strategies_given ? build_candidate_space(layer.program, rules, named, true, target, &r->skipped,
                                                        &r->not_applied)
                                : build_candidate_space(layer.program, rules, o.strategies, false, target, &r->skipped);
  // A network point's code is one Module of every layer's kernels (network_module):
  // library candidates are not composed into it yet, so a layer does not offer them.
  auto& alts = r->space.alternatives;
  alts.erase(std::remove_if(alts.begin(), alts.end(), [](const auto& a) { return !is_constraint_alternative(*a); }),
             alts.end());
  if (alts.empty()) throw Error("only clblast- strategies apply, and a network's layers do not offer them yet");
  r->space_seconds = seconds_since(begin);
  if (o.report) {
    double total = 0;
    for (const auto& a : r->space.alternatives) total += a->count();
    std::vector<std::string> strategies = strategies_of(r->space);
    o.report(fmt::format("{}: {} alternative(s) of {} ({}), about {:.4g} valid points, built in {:.1f} s{}", label,
                         r->space.alternatives.size(),
                         strategies.size() == 1 ? "1 strategy" : fmt::format("{} strategies", strategies.size()),
                         fmt::join(strategies, ", "), total, r->space_seconds,
                         r->skipped.empty() ? "" : fmt::format(" ({} without a valid point left out)", r->skipped.size())));
  }
  return r;
}

// Searches the layer's space with its own Evaluator, in a work folder of its own.
// Its runners are `pool`'s, the network's.
void explore_layer(LayerResult& r, const std::string& label, Store& store, std::int64_t run, const DeviceReport& device,
                   const NetworkOptions& o, const std::string& work_dir, const std::shared_ptr<ServePool>& pool) {
  NetworkOptions::LayerSearch made = o.make_search(r.space, r.problem, label);
  std::unique_ptr<Search>& search = made.search;
  EvaluatorOptions eo = o.evaluator;
  eo.work_dir = work_dir;
  eo.pool = pool;
  eo.generations = made.generations;
  std::error_code ec;
  std::filesystem::create_directories(work_dir, ec);
  if (ec) throw Error(fmt::format("cannot create the work folder {}: {}", work_dir, ec.message()));
  Evaluator evaluator(r.problem, r.space, store, run, device, eo);
  StartFn start = [&](const Candidate& c) { return evaluator.start(c); };
  if (o.progress) std::fflush(stdout);
  r.loop = explore_loop(*search, start, o.budget, o.jobs, o.progress, label);
  evaluator.add_cut_reasons(r.loop);
  r.front = front_of(r.loop.explored);
  std::stable_sort(r.front.begin(), r.front.end(), [&](std::size_t a, std::size_t b) {
    return r.loop.explored[a].evaluation.time_ms < r.loop.explored[b].evaluation.time_ms;
  });
  r.times = evaluator.times();
  r.search_report = search->report();
}

}  // namespace

std::string layer_label(const NetworkExploration& net, std::size_t i) {
  const Layer& layer = net.layers[i];
  if (!layer.fused.empty()) return fmt::format("fused layer ({})", layer_title(layer));
  if (layer.group_of == layer.name) return fmt::format("group layer ({}: its groups' outputs joined)", layer.name);
  if (!layer.group_of.empty()) return fmt::format("group layer ({}, a group of {})", layer.name, layer.group_of);
  std::size_t written = std::count_if(net.layers.begin(), net.layers.end(), [](const Layer& l) { return written_layer(l); });
  return fmt::format("layer {}/{} ({})", i + 1, written, net.layers[i].name);
}

const std::vector<std::size_t>& point_layers(const NetworkExploration& net, const NetworkPoint& point) {
  return net.variants.at(point.variant).layers;
}

std::string fusions_text(const NetworkExploration& net, const NetworkPoint& point) {
  std::vector<std::string> out;
  for (const Fusion& f : net.variants.at(point.variant).fusions)
    out.push_back(fmt::format("{} into {}", f.producer, f.consumer));
  std::vector<std::string> split;  // the grouped convolutions the point runs by group
  std::vector<std::string> epilogues;  // the readers it runs in each group's epilogue ("conv+block")
  for (std::size_t i : point_layers(net, point)) {
    const Layer& l = net.layers[i];
    if (l.group_of.empty()) continue;
    if (!l.fused.empty()) {
      std::string each = fmt::format("{}+{}", fmt::join(l.fused, "+"), l.group_of);
      if (std::find(epilogues.begin(), epilogues.end(), each) == epilogues.end()) epilogues.push_back(each);
    } else if (l.name != l.group_of || std::none_of(net.layers.begin(), net.layers.end(), [&](const Layer& o) {
                 return o.group_of == l.group_of && !o.fused.empty();
               })) {
      if (std::find(split.begin(), split.end(), l.group_of) == split.end()) split.push_back(l.group_of);
    }
  }
  for (const std::string& g : split) out.push_back(fmt::format("{} split by group", g));
  for (const std::string& e : epilogues) out.push_back(fmt::format("{} split by group", e));
  for (std::size_t i : point_layers(net, point)) {  // a layer reading a split convolution's groups itself
    const Layer& l = net.layers[i];
    bool reads_groups = l.group_of.empty() && !l.fused.empty() &&
                        std::find(split.begin(), split.end(), l.fused.front()) != split.end();
    if (reads_groups) out.push_back(fmt::format("{}'s groups read by {}", fmt::join(l.fused, ", "), l.name));
    // Titled after the groups it reads (groups.cpp: the convolution whole was fused into it too).
    bool reads_parts = l.group_of.empty() && !l.fused.empty() && std::any_of(net.layers.begin(), net.layers.end(), [&](const Layer& o) {
                         return o.name == l.fused.front() && !o.group_of.empty() && o.group_of != o.name && o.fused.empty();
                       });
    if (reads_parts) out.push_back(fmt::format("{} read by {}", fmt::join(l.fused, ", "), l.name));
  }
  return fmt::format("{}", fmt::join(out, ", "));
}

namespace {

// Reports that grouped convolution whole `i` takes none of the strategies named, saying of
// each whether its groups take it (their first layer's space: the groups differ only in what
// they crop), so that this line and a group layer's own refusal agree (a 1x1 convolution's
// groups refuse Winograd as the whole does).
void report_whole_not_offered(const NetworkExploration& net, std::size_t i, const std::vector<std::string>& named,
                              const NetworkOptions& o) {
  const Layer& whole = net.layers[i];
  auto group = std::find_if(net.layers.begin(), net.layers.end(), [&](const Layer& l) {
    return l.group_of == whole.name && l.name != whole.name && l.fused.empty();
  });
  const std::shared_ptr<LayerResult> groups =
      group == net.layers.end() ? nullptr : net.results[static_cast<std::size_t>(group - net.layers.begin())];
  std::vector<std::string> taken, refused;
  for (const std::string& s : named) {
    bool takes = groups && std::none_of(groups->not_applied.begin(), groups->not_applied.end(),
                                        [&](const NotApplied& n) { return n.strategy == s; });
    (takes ? taken : refused).push_back(s);
  }
  auto verb = [](const std::vector<std::string>& v) { return v.size() == 1 ? "does" : "do"; };
  if (!taken.empty())
    o.report(fmt::format("{}: not offered: {} {} not apply to the grouped convolution whole (its groups, dense "
                         "convolutions, take {})",
                         layer_label(net, i), fmt::join(taken, ", "), verb(taken), taken.size() == 1 ? "it" : "them"));
  if (!refused.empty())
    o.report(fmt::format("{}: not offered: {} {} not apply to the grouped convolution whole, nor to its groups (dense "
                         "convolutions: the group layer's reason is given for it)",
                         layer_label(net, i), fmt::join(refused, ", "), verb(refused)));
}

}  // namespace

NetworkExploration network_spaces(std::vector<Layer> layers, std::vector<NetworkVariant> variants,
                                  const rewrite::RuleSet& rules, const constraints::Target& target,
                                  const NetworkOptions& o) {
  NetworkExploration net;
  net.rules = &rules;
  net.layers = std::move(layers);
  net.variants = std::move(variants);
  if (net.variants.empty()) {
    net.variants.emplace_back();
    for (std::size_t i = 0; i < net.layers.size(); ++i) net.variants[0].layers.push_back(i);
  }
  net.results.resize(net.layers.size());
  // The layers some variant runs, and the first of each one's shape.
  std::set<std::size_t> used;
  for (const auto& v : net.variants)
    for (std::size_t i : v.layers) used.insert({i, net.layers[i].same_as});
  // The layers do not offer library candidates (layer_space says why).
  std::vector<std::string> named = o.strategies;
  std::erase_if(named, is_library_strategy);
  std::vector<std::size_t> whole_not_offered;  // grouped convolutions whole that none of `named` takes
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    const Layer& layer = net.layers[i];
    if (!used.count(i)) continue;  // --fusion only: a definition fused away
    if (layer.same_as != i) {
      net.results[i] = net.results[layer.same_as];
      if (o.report && net.results[i])
        o.report(fmt::format("{}: the shape of {}: explored once, its results taken", layer_label(net, i),
                             written_layer(net.layers[layer.same_as])
                                 ? fmt::format("layer {} ({})", layer.same_as + 1, net.layers[layer.same_as].name)
                                 : layer_label(net, layer.same_as)));
      continue;
    }
    // A grouped convolution split by group (groups.hpp) is an alternative, and so is the
    // grouped convolution whole: either may go.
    // (Not a reader split into the groups' epilogues, whose parts are fused layers: it is no
    // grouped convolution.)
    bool split = written_layer(layer) && std::any_of(net.layers.begin(), net.layers.end(), [&](const Layer& l) {
                   return l.group_of == layer.name && l.name != layer.name && l.fused.empty();
                 });
    if (written_layer(layer) && !split) {
      try {
        net.results[i] = layer_space(layer, layer_label(net, i), rules, target, o, named);
      } catch (const Error& e) {
        throw Error(fmt::format("layer '{}': {}", layer.name, e.message()));
      }
      continue;
    }
    // A fused layer (or a grouped convolution whole) is an alternative: without a space of its
    // own, its variants go, and its label says which it is (not the name of the definition a
    // fused layer's program keeps, its consumer's).
    try {
      net.results[i] = layer_space(layer, layer_label(net, i), rules, target, o, named);
    } catch (const Error& e) {
      // A fused layer's refusal asks nothing of the user: its definitions are written on their own.
      std::string why = e.message();
      if (std::size_t at = why.find(kAroundConvolutionHint); !layer.fused.empty() && at != std::string::npos)
        why.replace(at, kAroundConvolutionHint.size(), kFusedLayerRefusalHint);
      if (o.report) o.report(fmt::format("{}: not offered: {}", layer_label(net, i), why));
    }
    // A grouped convolution whole that none of the strategies named takes: lowered by a
    // fallback, which nobody asked for; its groups' variant runs instead (reported once the
    // groups' spaces say which of the strategies they take).
    if (split && net.results[i] && o.strategies_given && !named.empty() && net.results[i]->not_applied.size() == named.size()) {
      whole_not_offered.push_back(i);
      net.results[i] = nullptr;
    }
  }
  if (o.report)
    for (std::size_t i : whole_not_offered) report_whole_not_offered(net, i, named, o);
  std::erase_if(net.variants, [&](const NetworkVariant& v) {
    return std::any_of(v.layers.begin(), v.layers.end(), [&](std::size_t i) { return !net.results[i]; });
  });
  // A layer whose every variant went with another layer's missing space is explored by none
  // (ShuffleNet's shuffle over g1's groups, once the variant of every fusion went).
  std::set<std::size_t> kept;
  for (const auto& v : net.variants)
    for (std::size_t i : v.layers) kept.insert({i, net.layers[i].same_as});
  for (std::size_t i = 0; i < net.layers.size(); ++i)
    if (!kept.count(i)) net.results[i] = nullptr;
  if (net.variants.empty())
    throw Error(std::any_of(net.layers.begin(), net.layers.end(), [](const Layer& l) { return !l.group_of.empty(); })
                    ? "neither the grouped convolution whole nor its groups have a space (see above)"
                    : "no fused layer of the network has a space (see above); explore it with --fusion off");
  if (o.strategies_given) {
    std::vector<Layer> offered;
    std::vector<std::vector<NotApplied>> not_applied;
    for (std::size_t i = 0; i < net.layers.size(); ++i)
      if (net.results[i]) {
        offered.push_back(net.layers[i]);
        not_applied.push_back(net.results[i]->not_applied);
      }
    check_named_strategies_apply(offered, not_applied, o.strategies, o.given);
  }
  // Which strategies named each layer of a new shape goes without.
  for (std::size_t i = 0; i < net.layers.size() && o.report; ++i) {
    if (net.layers[i].same_as != i || !net.results[i] || net.results[i]->not_applied.empty()) continue;
    const LayerResult& r = *net.results[i];
    std::vector<std::string> names;
    for (const auto& n : r.not_applied) names.push_back(n.strategy);
    o.report(fmt::format("note: {}: {} {} not apply to it{}", layer_label(net, i), fmt::join(names, ", "),
                         names.size() == 1 ? "does" : "do",
                         names.size() == named.size()
                             ? fmt::format(": lowered by {}, as a layer no strategy applies to",
                                           fmt::join(strategies_of(r.space), ", "))
                             : std::string()));
  }
  return net;
}

void explore_network(NetworkExploration& net, const Problem& network, Store& store, std::int64_t run,
                     const DeviceReport& device, const NetworkOptions& o) {
  const std::size_t n = net.layers.size();
  if (net.variants.empty()) {
    net.variants.emplace_back();
    for (std::size_t i = 0; i < n; ++i) net.variants[0].layers.push_back(i);
  }
  // One set of serving runners for every layer: each keeps its device open from one layer's
  // candidates to the next's. Opening it is the slow part of a runner's start (on an H200
  // with 32 jobs starting at once, 5-9 s each), and a layer given a few seconds of search
  // spent a third of them waiting for its own runners to open the device again.
  std::shared_ptr<ServePool> pool = o.evaluator.pool ? o.evaluator.pool : serving_pool(o.evaluator);
  std::set<std::size_t> run_by_some;  // the layers (first of their shape) some variant runs
  for (const auto& v : net.variants)
    for (std::size_t i : v.layers) run_by_some.insert(net.layers[i].same_as);
  for (std::size_t i : run_by_some) {
    LayerResult& r = *net.results[i];
    r.problem = layer_problem(network, net.layers[i]);
    std::string dir = (std::filesystem::path(o.evaluator.work_dir) / fmt::format("layer-{}", i + 1)).string();
    explore_layer(r, layer_label(net, i), store, run, device, o, dir, pool);
  }

  // The bytes of each value (2 an element where the network stores it as halves, as its
  // layers do); per variant, what each of its layers reads and writes.
  std::set<std::string> half;
  for (const Layer& layer : net.layers) half.insert(layer.program.half.begin(), layer.program.half.end());
  std::map<std::string, double> bytes;
  for (const auto* values : {&network.inputs, &network.reference})
    for (const auto& [name, t] : *values)
      bytes[name] = (half.count(name) ? 2.0 : 4.0) * static_cast<double>(t.element_count());
  std::vector<NetworkPoint> points;
  net.resident.clear();
  net.layer_peaks.clear();
  std::map<std::pair<std::size_t, std::size_t>, LayerSteps> steps;  // per layer and index into its front
  for (std::size_t v = 0; v < net.variants.size(); ++v) {
    std::vector<LayerBuffers> buffers;
    for (std::size_t i : net.variants[v].layers) buffers.push_back({net.layers[i].reads, net.layers[i].name});
    net.resident.push_back(resident_bytes(buffers, bytes));
    net.layer_peaks.emplace_back();
    std::vector<LayerFront> fronts;
    for (std::size_t j = 0; j < buffers.size(); ++j) {
      const std::size_t i = net.variants[v].layers[j];
      const LayerResult& r = *net.results[i];
      LayerFront f;
      f.resident_bytes = net.resident[v][j];
      std::vector<double>& peaks = net.layer_peaks[v].emplace_back();
      for (std::size_t k = 0; k < r.front.size(); ++k) {
        const Explored& x = r.loop.explored[r.front[k]];
        Objectives o = outcome_of(x.evaluation).objectives;
        // Its memory in the network: its own buffers' peak, as its host program holds them.
        auto [at, fresh] = steps.try_emplace({i, k});
        if (fresh) at->second = layer_steps(layer_module(net, i, x, ""), bytes);
        o.memory = layer_peak(at->second, buffers, j);
        peaks.push_back(o.memory);
        f.points.push_back(o);
      }
      fronts.push_back(std::move(f));
    }
    for (NetworkPoint& p : compose_fronts(fronts)) {
      p.variant = v;
      points.push_back(std::move(p));
    }
  }
  net.front = merge_fronts(std::move(points));
}

const Explored& chosen(const NetworkExploration& net, const NetworkPoint& point, std::size_t layer) {
  const LayerResult& r = *net.results[point_layers(net, point).at(layer)];
  return r.loop.explored[r.front[point.choice[layer]]];
}

namespace {

// `m`'s symbolic sizes evaluated with its own size values: merged modules need none.
std::array<arith::Expr, 3> constants(const std::array<arith::Expr, 3>& r, const codegen::Module& m) {
  return {arith::Expr(codegen::evaluate(r[0], m)), arith::Expr(codegen::evaluate(r[1], m)),
          arith::Expr(codegen::evaluate(r[2], m))};
}

// A name no buffer of `net` has and that is not `reserved` (the network's inputs and
// definitions, which later layers add): `name`, else `name_2`, `name_3`, ...
std::string fresh_buffer_name(const codegen::Module& net, const std::set<std::string>& reserved,
                              const std::string& name) {
  auto taken = [&](const std::string& n) {
    return reserved.count(n) != 0 || std::any_of(net.memory.buffers.begin(), net.memory.buffers.end(),
                                                 [&](const codegen::Buffer& x) { return x.name == n; });
  };
  std::string out = name;
  for (int k = 2; taken(out); ++k) out = fmt::format("{}_{}", name, k);
  return out;
}

// Appends layer module `m` to `net`. A buffer the layer reads that an earlier layer wrote
// (or another layer read: a network input) is that buffer; the layer's own intermediate
// buffers are its own, renamed where an earlier layer's have the same name (two layers'
// strategies name their scratch alike) or a network value has it (a split kernel's
// `a_part1` beside a definition `a_part1`), and its kernels' arguments with them.
void append(codegen::Module& net, const codegen::Module& m, const std::set<std::string>& reserved) {
  std::map<std::string, std::string> renamed;
  for (const auto& b : m.memory.buffers) {
    if (b.space != codegen::AddressSpace::Global) continue;
    codegen::Buffer c = b;
    c.elements = arith::Expr(codegen::evaluate(b.elements, m));
    c.bytes = arith::Expr(codegen::evaluate(b.bytes, m));
    auto same = std::find_if(net.memory.buffers.begin(), net.memory.buffers.end(),
                             [&](const codegen::Buffer& x) { return x.name == b.name; });
    if (same != net.memory.buffers.end() && b.role == codegen::BufferRole::Input) {
      // An earlier layer's output (or a network input another layer read) read again.
      LIFTC_ASSERT(codegen::evaluate(same->bytes, net) == codegen::evaluate(c.bytes, net),
                   "a buffer two layers share is an earlier layer's output or a network input, of one size");
      continue;
    }
    bool clashes = same != net.memory.buffers.end() ||
                   (b.role == codegen::BufferRole::Intermediate && reserved.count(b.name) != 0);
    LIFTC_ASSERT(!clashes || b.role == codegen::BufferRole::Intermediate,
                 "a layer's output is its definition, which no other layer computes");
    if (clashes) c.name = renamed[b.name] = fresh_buffer_name(net, reserved, b.name);
    net.memory.buffers.push_back(std::move(c));
    if (b.role == codegen::BufferRole::Input) net.inputs.push_back(b.name);
  }
  for (const auto& k : m.kernels) {
    codegen::Kernel c = k;
    c.launch.global = constants(k.launch.global, m);
    c.launch.local = constants(k.launch.local, m);
    // Each layer keeps the contraction it was measured with.
    c.source = fmt::format("#pragma OPENCL FP_CONTRACT {}\n{}", m.contract ? "ON" : "OFF", k.source);
    for (auto& a : c.args)
      if (auto it = renamed.find(a.name); a.kind == codegen::KernelArg::Kind::Buffer && it != renamed.end())
        a.name = it->second;
    for (const auto& a : k.args) {
      if (a.kind != codegen::KernelArg::Kind::Size) continue;
      std::int64_t v = codegen::evaluate(arith::var(a.name), m);
      auto [it, fresh] = net.sizes.emplace(a.name, v);
      if (!fresh && it->second != v)
        throw Error(fmt::format("kernel {} takes size {} = {}, which an earlier layer's kernel takes as {}", k.name,
                                a.name, v, it->second));
    }
    net.kernels.push_back(std::move(c));
  }
  net.outputs.insert(net.outputs.end(), m.outputs.begin(), m.outputs.end());
}

// A layer explored under another's name takes that exploration's point: the parameters
// that are a kernel's own work-group size name the other layer's parts (`conv1_part1`).
// The renamed program plans the same kernels in the same order, under its own names.
void rename_kernel_parts(constraints::Space& renamed, const constraints::Space& explored) {
  if (explored.kernel_work_group_params.empty()) return;
  auto plan_of = [](const ir::Program& p) { return codegen::plan_kernels(typecheck::typecheck(p).program).kernels; };
  const auto before = plan_of(explored.program), after = plan_of(renamed.program);
  LIFTC_ASSERT(before.size() == after.size(), "a renamed layer plans the kernels of the layer it was explored as");
  std::map<std::string, std::string> part;
  for (std::size_t k = 0; k < before.size(); ++k) part[before[k].buffer] = after[k].buffer;
  for (auto& [param, own] : renamed.kernel_work_group_params) own.first = part.at(own.first);
}

}  // namespace

codegen::Module layer_module(const NetworkExploration& net, std::size_t i, const Explored& x,
                             const std::string& build_options) {
  const Layer& layer = net.layers[i];
  const ConstraintAlternative& alt = constraint_alternative(*net.results[i]->space.alternatives[x.candidate.alternative]);
  if (layer.same_as == i) return generate_candidate(alt, x.candidate.point, build_options).module;
  if (!layer.group_of.empty() && layer.group_of == net.layers[layer.same_as].group_of) {
    // Another group of the same grouped convolution: its own channels, the same point.
    LIFTC_ASSERT(net.rules, "a network's exploration keeps the rules its layers were rewritten with");
    return generate_candidate(group_space(alt.space(), layer, *net.rules), x.candidate.point, build_options).module;
  }
  constraints::Space renamed = alt.space();
  renamed.program = rename_layer(renamed.program, net.layers[layer.same_as], layer);
  rename_kernel_parts(renamed, alt.space());
  return generate_candidate(renamed, x.candidate.point, build_options).module;
}

std::optional<interp::Tensors> layer_allowance(const NetworkExploration& net, const Problem& network, std::size_t i,
                                               const Explored& x) {
  const Layer& layer = net.layers[i];
  const Alternative& any = *net.results[i]->space.alternatives[x.candidate.alternative];
  if (!is_constraint_alternative(any)) return std::nullopt;
  const ConstraintAlternative& alt = constraint_alternative(any);
  if (constant_arrays_of(alt.space().program).empty()) return std::nullopt;
  // As the Evaluator does: the untiled form where the arrays first appear, whose magnitude
  // is the tiled code's (the same products regrouped), else the code's own program. The layer
  // under its own names as layer_module makes it (another group: group_space; a layer of an
  // earlier one's shape: rename_layer), here on the form rather than the tiled space, which
  // interprets 20 times as slowly (Evaluator::magnitude_allowance).
  auto bound = [&](const constraints::Space& space) {
    return ir::bind_sizes(space.program, constraints::size_values(space, x.candidate.point));
  };
  ir::Program form;
  if (!layer.group_of.empty() && layer.group_of == net.layers[layer.same_as].group_of && layer.same_as != i) {
    LIFTC_ASSERT(net.rules, "a network's exploration keeps the rules its layers were rewritten with");
    form = bound(group_space(alt.space(), layer, *net.rules));
  } else {
    form = alt.magnitude_form() ? ir::bind_sizes(*alt.magnitude_form(), {}) : bound(alt.space());
    if (layer.same_as != i) form = rename_layer(form, net.layers[layer.same_as], layer);
  }
  return interp::rounding_allowance(typecheck::typecheck(form).program, layer_problem(network, layer).inputs);
}

codegen::Module network_module(const NetworkExploration& net, const NetworkPoint& point, const std::string& build_options) {
  codegen::Module out;
  out.contract = true;  // no pragma for the whole source: each kernel has its own
  out.build_options = build_options;
  std::set<std::string> reserved;
  for (const Layer& layer : net.layers) {
    reserved.insert(layer.name);
    reserved.insert(layer.reads.begin(), layer.reads.end());
  }
  const std::vector<std::size_t>& run = point_layers(net, point);
  for (std::size_t j = 0; j < run.size(); ++j) {
    codegen::Module m = layer_module(net, run[j], chosen(net, point, j), build_options);
    if (m.build_options != build_options) out.build_options = m.build_options;  // the mad parameter's
    append(out, m, reserved);
  }
  return out;
}

}  // namespace liftc::explore
