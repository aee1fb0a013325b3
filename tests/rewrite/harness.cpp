#include "harness.hpp"

#include <cmath>
#include <random>

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

ir::Program program(const std::string& text) {
  return parse::parse_program(std::make_shared<const SourceFile>(SourceFile{"<test>", text}));
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

std::string compare(const interp::Tensors& a, const interp::Tensors& b) {
  for (const auto& [name, ta] : a) {
    auto it = b.find(name);
    if (it == b.end()) return fmt::format("output {} missing after rewriting", name);
    const io::Tensor& tb = it->second;
    if (ta.shape != tb.shape) return fmt::format("output {}: shape changed", name);
    for (std::size_t i = 0; i < ta.f32.size(); ++i) {
      float x = ta.f32[i], y = tb.f32[i];
      if (std::fabs(x - y) > 1e-4f * (1.0f + std::fabs(x))) return fmt::format("output {}[{}]: {} before, {} after", name, i, x, y);
    }
    if (ta.i32 != tb.i32) return fmt::format("output {}: int values differ", name);
  }
  return {};
}

}  // namespace

Equivalence check_equivalence(const ir::Program& p, const std::string& strategy, int trials, std::uint64_t seed) {
  Equivalence out;
  RewriteOptions options;
  options.budget.max_alternatives = 64;
  ProgramRewrite rw = rewrite_program(library(), strategy, p, options);
  std::mt19937_64 rng(seed);
  for (const auto& alt : rw.programs) {
    ++out.alternatives;
    int done = 0;
    for (int attempt = 0; attempt < 4000 && done < trials; ++attempt) {
      std::map<std::string, long long> values;
      for (const auto& s : p.sizes)
        if (!s.value) values[s.name] = std::uniform_int_distribution<long long>(1, 24)(rng);
      for (const auto& t : alt.params) {
        if (!t.values.empty()) {
          values[t.name] = t.values[std::uniform_int_distribution<std::size_t>(0, t.values.size() - 1)(rng)];
        } else {
          long long lo = t.min.value_or(1), hi = std::min<long long>(t.max.value_or(24), lo + 23);
          values[t.name] = std::uniform_int_distribution<long long>(lo, hi)(rng);
        }
      }
      auto before = bind_checked(p, values);
      auto after = bind_checked(alt.program, values);
      if (!before || !after) continue;
      interp::Tensors inputs = interp::random_inputs(*before, rng());
      std::string diff = compare(interp::evaluate(*before, inputs), interp::evaluate(*after, inputs));
      ++done;
      ++out.instances;
      if (!diff.empty()) {
        std::string sizes;
        for (const auto& [k, v] : values) sizes += fmt::format(" {}={}", k, v);
        out.failure = fmt::format("{} with{}\nrewritten:\n{}", diff, sizes, ir::to_string(alt.program));
        return out;
      }
    }
    if (done == 0) {
      out.failure = "no random sizes satisfied the types of:\n" + ir::to_string(alt.program);
      return out;
    }
  }
  return out;
}

}  // namespace liftc::rewrite::test
