// The constraints stage's spaces as search alternatives.

#include "liftc/explore/candidates/constraint_space.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "liftc/constraints/solve.hpp"
#include "liftc/emit/host_program.hpp"
#include "liftc/explore/candidates/library.hpp"
#include "liftc/explore/evaluation/evaluate.hpp"
#include "liftc/host/execute.hpp"

#include "liftc/explore/products/layers.hpp"
#include "liftc/explore/candidates/magnitude_form.hpp"
#include "liftc/rewrite/engine.hpp"
#include "liftc/rewrite/load.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::explore {

ConstraintAlternative::ConstraintAlternative(constraints::Space space)
    : space_(std::make_unique<constraints::Space>(std::move(space))) {
  sampler_ = std::make_unique<constraints::Sampler>(*space_);
  for (const auto& p : space_->params) params_.push_back({p.name, p.domain});
  count_ = static_cast<double>(sampler_->count());
}

std::string ConstraintAlternative::label() const { return fmt::format("{} #{}", space_->strategy, space_->alternative); }

Artefacts ConstraintAlternative::generate(const Point& p, const interp::Tensors& inputs,
                                          const std::string& build_options) const {
  return artefacts(generate_candidate(*this, p, build_options), inputs);
}

Artefacts ConstraintAlternative::artefacts(Generated g, const interp::Tensors& inputs) {
  Artefacts a;
  a.memory_bytes = g.memory_bytes;
  a.plan = host::launch_plan(g.module, inputs);
  a.kernels = g.module.source();
  a.module = std::move(g.module);
  return a;
}

codegen::HostPlan ConstraintAlternative::host_plan(const Point& p, const std::string& build_options) const {
  return codegen::host_plan(generate_candidate(*this, p, build_options).module);
}

void ConstraintAlternative::write_front_files(const Point& p, const std::string& dir, const std::string& program_name,
                                              const std::string& build_options) const {
  // Each file written whole or an error (write_host_project writes through write_file).
  emit::write_host_project(generate_candidate(*this, p, build_options).module, dir, program_name);
}

std::vector<std::string> default_strategies(const rewrite::RuleSet& rules, const ir::Program& program) {
  std::vector<std::string> out = rewrite::default_strategies(rules);
  // A program of several definitions explored whole: the strategies that rewrite every
  // convolution of a network and lower the other definitions.
  if (is_network(program))
    for (const char* name : kNetworkStrategies)
      if (rules.strategy(name) && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  return out;
}

ir::Program fallback_form(const ir::Program& program, const rewrite::RuleSet& rules) {
  if (!rules.strategy("normal-form")) return program;
  // normal-form never fails (a normalize): one result, the program where no rule applies.
  return rewrite::rewrite_program(rules, "normal-form", program, {}).programs.front().program;
}

std::optional<std::string> fallback_strategy(const ir::Program& program, const rewrite::RuleSet& rules) {
  const ir::Program form = fallback_form(program, rules);
  for (const char* fallback : kFallbackStrategies) {
    if (!rules.strategy(fallback)) continue;
    rewrite::ProgramRewrite r;
    try {
      r = rewrite::rewrite_program(rules, fallback, form, {});
    } catch (const Error&) {
      continue;
    }
    // A lowering that changes nothing (lower-seq on a program already low-level) is no
    // fallback: the program is explored as written.
    for (const auto& alt : r.programs)
      for (std::size_t d = 0; d < alt.program.defs.size() && d < form.defs.size(); ++d)
        if (!ir::alpha_equal(alt.program.defs[d].body, form.defs[d].body)) return fallback;
  }
  return std::nullopt;
}

namespace {

// What build_candidate_space's error adds where no alternative had a valid point and code
// generation refused none: the constraints of `alt` (the first such alternative) that Z3
// finds cannot hold together, as `liftc space` lists them (a tuning range and a type's
// divisibility, say: the omega partial sums of a convolution of one channel), and "on this
// target" only where the target's limits are among them, or where Z3 does not decide.
std::string why_no_valid_point(const ConstraintAlternative* alt) {
  if (!alt) return " on this target";
  constraints::Feasibility f = constraints::check_feasibility(alt->space());
  if (!f.decided || f.feasible || f.conflict.empty()) return " on this target";
  const auto& constraints = alt->space().constraints;
  bool target = false;
  std::vector<std::string> conflict;
  for (std::size_t i : f.conflict) {
    target = target || constraints[i].source == constraints::Source::Target;
    conflict.push_back(fmt::format("{} ({})", constraints::to_string(constraints[i]), constraints[i].why));
  }
  return fmt::format("{}: {}'s constraints cannot hold together: {}", target ? " on this target" : "", alt->label(),
                     fmt::join(conflict, "; "));
}

}  // namespace

CandidateSpace build_candidate_space(const ir::Program& program, const rewrite::RuleSet& rules,
                                     const std::vector<std::string>& strategies, bool strategies_given,
                                     const constraints::Target& target, std::vector<std::string>* skipped,
                                     std::vector<NotApplied>* not_applied, std::size_t max_program_alternatives) {
  CandidateSpace cs;
  std::size_t program_alternatives = 0;  // of a program of several definitions, over its strategies
  bool applied = false;
  std::vector<std::string> refused;  // alternatives whose program code generation refuses, with why
  std::unique_ptr<ConstraintAlternative> empty;  // the first without a valid point that code generation takes
  bool only_library = strategies_given && std::all_of(strategies.begin(), strategies.end(), is_library_strategy);
  for (const auto& s : strategies) {
    if (is_library_strategy(s)) continue;  // library_alternatives below
    rewrite::ProgramRewrite r;
    try {
      r = rewrite::rewrite_program(rules, s, program, {});
    } catch (const Error& e) {
      if (strategies_given && !not_applied) throw;
      if (strategies_given) not_applied->push_back({s, e.message(), e.loc()});
      continue;  // a default strategy (or a named one, listed) that does not apply to this program
    }
    applied = true;
    // Only where two or more definitions compute do their alternatives combine: a
    // definition that only rearranges data (a concatenation, a transpose) has none of its own.
    if (is_network(program)) {
      program_alternatives += r.programs.size();
      if (program_alternatives > max_program_alternatives)
        throw Error(fmt::format(
            "the {} definitions explored as one program have more than {} alternatives ({} with strategy {}{}; "
            "each definition's alternatives combine): each takes a constraint space of its own, and their memory "
            "and time grow past any budget; give --max-program-alternatives N for more, fewer strategies with -s, "
            "or explore a network layer by layer (without --whole-program)",
            program.defs.size(), max_program_alternatives, program_alternatives, s,
            program_alternatives > r.programs.size() ? " and those before it" : ""));
    }
    // Per set of constant arrays, the program their magnitude is interpreted on (made when
    // the first alternative with those arrays is met).
    std::optional<std::map<std::string, std::shared_ptr<const ir::Program>>> forms;
    for (std::size_t i = 0; i < r.programs.size(); ++i) {
      std::string constants = constant_arrays_of(r.programs[i].program);
      constraints::Space space = constraints::build_space(r.programs[i].program, r.programs[i].params, target);
      space.strategy = s;
      space.alternative = i + 1;
      space.alternatives = r.programs.size();
      std::optional<std::string> refusal = constraints::codegen_refusal(space);
      auto alt = std::make_unique<ConstraintAlternative>(std::move(space));
      if (alt->count() <= 0) {
        if (skipped) skipped->push_back(alt->label());
        if (refusal) refused.push_back(fmt::format("{}: {}", alt->label(), *refusal));
        else if (!empty)
          empty = std::move(alt);
        continue;
      }
      if (!constants.empty()) {
        if (!forms) {
          forms.emplace();
          for (auto& [arrays, form] : magnitude_forms(rules, s, program))
            forms->emplace(arrays, std::make_shared<const ir::Program>(std::move(form)));
        }
        if (auto it = forms->find(constants); it != forms->end()) alt->set_magnitude_form(it->second);
      }
      cs.alternatives.push_back(std::move(alt));
    }
  }
  // No strategy applies: a definition no convolution or stencil strategy matches is
  // lowered by the first fallback that applies (its outer maps over global work-items, or
  // sequentially), from its normal form (fallback_form: a fused layer's convolution inside
  // its pooling's windows);
  // an already low-level program is explored as written (strategy id).
  if (!applied && (!strategies_given || not_applied)) {
    std::optional<std::string> lowering = fallback_strategy(program, rules);
    CandidateSpace fallback = build_candidate_space(lowering ? fallback_form(program, rules) : program, rules,
                                                    {lowering.value_or("id")}, true, target, skipped);
    cs.alternatives.insert(cs.alternatives.begin(), std::make_move_iterator(fallback.alternatives.begin()),
                           std::make_move_iterator(fallback.alternatives.end()));
  }
  // CLBlast's routines, where one computes a definition (library.hpp): named with -s, or
  // by default when liftc was built with CLBlast.
  if (only_library || !strategies_given || std::any_of(strategies.begin(), strategies.end(), is_library_strategy))
    for (auto& alt : library_alternatives(program, rules, strategies, strategies_given, target)) {
      if (alt->count() <= 0) {
        if (skipped) skipped->push_back(alt->label());
        continue;
      }
      cs.alternatives.push_back(std::move(alt));
    }
  if (cs.alternatives.empty()) {
    // Where code generation refused an alternative's program, its reason is the answer (a
    // computation around the convolution in the same definition, say); the first one said,
    // then what it means in the user's terms. Otherwise the constraints that cannot hold
    // together (the target's limits, or the program's shape).
    std::string what = strategies_given
                           ? "the strategies given have no valid point"
                           : "no strategy of rules/strategies.rules applies to this program with a valid point";
    if (refused.empty()) throw Error(what + why_no_valid_point(empty.get()));
    what +=
        fmt::format(" ({}{})", refused.front(),
                    refused.size() > 1 ? fmt::format("; and {} more alternative(s) refused", refused.size() - 1) : "");
    if (std::any_of(refused.begin(), refused.end(), [](const std::string& r) {
          return r.find("runs outside every parallel map") != std::string::npos ||
                 r.find("is not inside a mapWrg") != std::string::npos;
        }))
      what += fmt::format(": {}", kAroundConvolutionHint);
    throw Error(what);
  }
  return cs;
}

const ConstraintAlternative& constraint_alternative(const Alternative& alt) {
  const ConstraintAlternative* c = candidate_of(alt).constraint_space();
  LIFTC_ASSERT(c, "only alternatives of the constraints stage reach here (library ones are handled before)");
  return *c;
}

bool is_constraint_alternative(const Alternative& alt) { return candidate_of(alt).constraint_space() != nullptr; }

}  // namespace liftc::explore
