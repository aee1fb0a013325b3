#include "helpers.hpp"

#include <functional>
#include <memory>

#include "liftc/parse/parse.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace liftc::constraints::test {

const rewrite::RuleSet& library() {
  static const rewrite::RuleSet rules = rewrite::load_rules_dir(std::string(LIFTC_SOURCE_DIR) + "/rules");
  return rules;
}

Target small_target(std::int64_t items, std::int64_t group, std::int64_t local_bytes) {
  Target t;
  t.name = "small";
  t.max_work_group_size = group;
  t.max_work_item_sizes = {items, items, items};
  t.local_mem_bytes = local_bytes;
  t.global_mem_bytes = std::int64_t(1) << 32;
  t.max_alloc_bytes = std::int64_t(1) << 30;
  return t;
}

ir::Program example(const std::string& file) {
  return parse::load_program(std::string(LIFTC_SOURCE_DIR) + "/examples/" + file);
}

ir::Program program_text(const std::string& text) {
  return parse::parse_program(std::make_shared<const SourceFile>(SourceFile{"test.sr", text}));
}

std::vector<Space> spaces(const ir::Program& program, const std::string& strategy, const Target& target,
                          const rewrite::RuleSet& rules) {
  rewrite::RewriteOptions options;
  options.budget.max_alternatives = 64;
  auto r = rewrite::rewrite_program(rules, strategy, program, options);
  std::vector<Space> out;
  for (std::size_t i = 0; i < r.programs.size(); ++i) {
    out.push_back(build_space(r.programs[i].program, r.programs[i].params, target));
    out.back().strategy = strategy;
    out.back().alternative = i + 1;
  }
  return out;
}

std::vector<Assignment> brute_force(const Space& space, Domains over) {
  // The declared domains: each parameter's Member or Range constraint; or the pruned ones.
  std::vector<std::vector<std::int64_t>> domains(space.params.size());
  if (over == Domains::Pruned)
    for (std::size_t i = 0; i < space.params.size(); ++i) domains[i] = space.params[i].domain;
  for (const auto& c : space.constraints) {
    if (over == Domains::Pruned) break;
    if (c.kind == Constraint::Kind::Member) domains[static_cast<std::size_t>(space.index(c.vars[0]))] = c.values;
    if (c.kind == Constraint::Kind::Range)
      for (std::int64_t v = c.lo; v <= c.hi; ++v) domains[static_cast<std::size_t>(space.index(c.vars[0]))].push_back(v);
  }
  std::vector<Assignment> out;
  Assignment p(space.params.size(), 0);
  Sampler checker(space, SamplerBudget{1});  // only its compiled constraints are used (Sampler::valid)
  std::function<void(std::size_t)> go = [&](std::size_t i) {
    if (i == p.size()) {
      if (checker.valid(p)) out.push_back(p);
      return;
    }
    for (auto v : domains[i]) {
      p[i] = v;
      go(i + 1);
    }
  };
  go(0);
  return out;
}

bool type_checker_accepts(const Space& space, const Assignment& p) {
  try {
    typecheck::typecheck(ir::bind_sizes(space.program, size_values(space, p)));
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace liftc::constraints::test
