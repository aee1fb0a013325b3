#include "harness.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include <fmt/format.h>

#include "liftc/interp/interp.hpp"
#include "liftc/ir/printer.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/parse/parse.hpp"

namespace liftc::rewrite::test {

const RuleSet& library() {
  static const RuleSet set = load_rules_dir(LIFTC_RULES_DIR);
  return set;
}

RuleSet rules_of(const std::string& text) {
  RuleSet set;
  add_rules(set, std::make_shared<const SourceFile>(SourceFile{"t.rules", text}));
  return set;
}

ir::Program program(const std::string& text) {
  return parse::parse_program(std::make_shared<const SourceFile>(SourceFile{"<test>", text}));
}

std::string example(const std::string& name) {
  std::ifstream in(std::string(LIFTC_EXAMPLES_DIR) + "/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string case_name(const StrategyCase& c) {
  std::string n = std::string(c.strategy) + "_" + c.example;
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

namespace {

// The program with `values` for those of its sizes it declares, checked; nullopt when the
// types reject the values (a split that does not divide, ...).
std::optional<ir::Program> bind_checked(const ir::Program& p, const std::map<std::string, long long>& values) {
  std::map<std::string, long long> mine;
  for (const auto& s : p.sizes)
    if (!s.value) mine[s.name] = values.at(s.name);
  try {
    return typecheck::typecheck(ir::bind_sizes(p, mine)).program;
  } catch (const Error&) {
    return std::nullopt;
  }
}

// `magnitude`: per output element, the computation through constant arrays on absolute
// values P (harness.hpp); empty for a program without constant arrays.
std::string compare(const interp::Tensors& a, const interp::Tensors& b, const interp::Tensors& magnitude) {
  for (const auto& [name, ta] : a) {
    auto it = b.find(name);
    if (it == b.end()) return fmt::format("output {} missing after rewriting", name);
    const io::Tensor& tb = it->second;
    if (ta.shape != tb.shape) return fmt::format("output {}: shape changed", name);
    for (std::size_t i = 0; i < ta.f32.size(); ++i) {
      double x = ta.f32[i], y = tb.f32[i];
      double tolerance = 1e-4 * (1.0 + std::fabs(x));
      if (!magnitude.empty()) tolerance += interp::magnitude_tolerance * magnitude.at(name).f32[i];
      if (!(std::fabs(x - y) <= tolerance))
        return fmt::format("output {}[{}]: {} before, {} after (tolerance {})", name, i, x, y, tolerance);
    }
    if (ta.i32 != tb.i32) return fmt::format("output {}: int values differ", name);
  }
  return {};
}

// The sizes and tuning parameters of one equivalence instance, and what they may take.
struct Unknown {
  std::string name;
  std::vector<long long> candidates;
};

// The obligations of both programs' types, checked against partial assignments.
struct Obligations {
  std::vector<typecheck::Obligation> list;

  // Whether every obligation whose variables are all in `values` holds.
  bool hold(const std::map<std::string, std::int64_t>& values) const {
    for (const auto& o : list) {
      auto v = arith::evaluate(o.value, values);
      if (!v) continue;  // not all of its variables chosen yet
      switch (o.kind) {
        case typecheck::Obligation::Kind::Positive:
          if (*v < 1) return false;
          break;
        case typecheck::Obligation::Kind::NonNegative:
          if (*v < 0) return false;
          break;
        case typecheck::Obligation::Kind::Divides: {
          auto d = arith::evaluate(o.divisor, values);
          if (!d) continue;
          if (*d <= 0 || *v % *d != 0) return false;
          break;
        }
      }
    }
    return true;
  }
};

// Picks a value for each unknown, in order, trying candidates in random order and
// backtracking as soon as an obligation over the chosen ones fails: random points would
// almost never satisfy a tiled convolution's divisibility constraints together.
// A `budget` left over after a failed search means there is no such point at all.
bool choose(const std::vector<Unknown>& unknowns, std::size_t i, const Obligations& obligations,
            std::map<std::string, std::int64_t>& values, std::mt19937_64& rng, long& budget) {
  if (i == unknowns.size()) return true;
  std::vector<long long> order = unknowns[i].candidates;
  std::shuffle(order.begin(), order.end(), rng);
  for (long long v : order) {
    if (--budget < 0) return false;
    values[unknowns[i].name] = v;
    if (obligations.hold(values) && choose(unknowns, i + 1, obligations, values, rng, budget)) return true;
  }
  values.erase(unknowns[i].name);
  return false;
}

}  // namespace

std::vector<Instance> instances(const ir::Program& p, const RewrittenProgram& alt, int count, std::mt19937_64& rng,
                                const Pinned& pinned) {
  std::vector<Unknown> unknowns;
  std::map<std::string, std::int64_t> fixed;
  for (const auto& s : p.sizes) {
    if (s.value) {
      fixed[s.name] = *s.value;
      continue;
    }
    Unknown u{s.name, {}};
    for (long long v = 1; v <= 24; ++v) u.candidates.push_back(v);
    unknowns.push_back(std::move(u));
  }
  for (const auto& t : alt.params) {
    Unknown u{t.name, {}};
    if (!t.values.empty()) {
      u.candidates.assign(t.values.begin(), t.values.end());
    } else {
      long long lo = t.min.value_or(1), hi = std::min<long long>(t.max.value_or(24), lo + 47);
      for (long long v = lo; v <= hi; ++v) u.candidates.push_back(v);
    }
    unknowns.push_back(std::move(u));
  }
  for (auto& u : unknowns)
    if (auto it = pinned.find(u.name); it != pinned.end()) u.candidates = {it->second};
  Obligations obligations;
  for (const ir::Program* q : {&p, &alt.program}) {
    auto checked = typecheck::typecheck(*q).obligations;
    obligations.list.insert(obligations.list.end(), checked.begin(), checked.end());
  }
  std::vector<Instance> out;
  for (int attempt = 0; attempt < 4 * count && static_cast<int>(out.size()) < count; ++attempt) {
    std::map<std::string, std::int64_t> chosen = fixed;
    long budget = 200000;
    if (!choose(unknowns, 0, obligations, chosen, rng, budget)) {
      if (budget >= 0) break;  // searched every point: none exists for these sizes
      continue;
    }
    std::map<std::string, long long> values(chosen.begin(), chosen.end());
    auto before = bind_checked(p, values);
    auto after = bind_checked(alt.program, values);
    if (before && after) out.push_back({values, *before, *after});
  }
  return out;
}

ProgramRewrite rewrite_for_equivalence(const ir::Program& p, const std::string& strategy) {
  RewriteOptions options;
  options.budget.max_alternatives = 64;
  return rewrite_program(library(), strategy, p, options);
}

Equivalence check_equivalence(const ir::Program& p, const std::string& strategy, int trials, std::uint64_t seed) {
  return check_equivalence(p, rewrite_for_equivalence(p, strategy), trials, seed);
}

namespace {

// The first name of `pinned` that is neither a size of `p` nor a tuning parameter of an
// alternative of `rw`; empty when there is none.
std::string unknown_pinned(const ir::Program& p, const ProgramRewrite& rw, const Pinned& pinned) {
  for (const auto& [name, value] : pinned) {
    bool size = std::any_of(p.sizes.begin(), p.sizes.end(), [&](const auto& s) { return s.name == name && !s.value; });
    bool param = std::any_of(rw.programs.begin(), rw.programs.end(), [&](const RewrittenProgram& alt) {
      return std::any_of(alt.params.begin(), alt.params.end(), [&](const TuningParam& t) { return t.name == name; });
    });
    if (!size && !param) return name;
  }
  return {};
}

}  // namespace

Equivalence check_equivalence(const ir::Program& p, const ProgramRewrite& rw, int trials, std::uint64_t seed,
                              const Pinned& pinned) {
  Equivalence out;
  if (std::string name = unknown_pinned(p, rw, pinned); !name.empty()) {
    out.failure = fmt::format("{} is neither a size of the program without a value nor a tuning parameter of the rewrite",
                              name);
    return out;
  }
  std::mt19937_64 rng(seed);
  for (const auto& alt : rw.programs) {
    ++out.alternatives;
    std::vector<Instance> found = instances(p, alt, trials, rng, pinned);
    if (found.empty()) ++out.infeasible;
    for (const auto& inst : found) {
      interp::Tensors inputs = interp::random_inputs(inst.original, rng());
      interp::Tensors magnitude;
      if (interp::has_constant_arrays(inst.rewritten)) magnitude = interp::evaluate_magnitude(inst.rewritten, inputs);
      std::string diff = compare(interp::evaluate(inst.original, inputs), interp::evaluate(inst.rewritten, inputs), magnitude);
      ++out.instances;
      if (!diff.empty()) {
        out.failure = fmt::format("{} with {}\nrewritten:\n{}", diff, params_text(inst), ir::to_string(alt.program));
        return out;
      }
    }
  }
  if (out.infeasible == out.alternatives)
    out.failure = fmt::format("no sizes satisfied the types of any of the {} rewritten programs", out.alternatives);
  return out;
}

std::string params_text(const Instance& inst) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : inst.values) parts.push_back(fmt::format("{}={}", k, v));
  return fmt::format("{}", fmt::join(parts, ","));
}

}  // namespace liftc::rewrite::test
