// Rewriting whole programs: every definition in order, alternatives combined, tuning
// parameters declared as sizes, the result type checked again.

#include <set>

#include <fmt/format.h>

#include "liftc/rewrite/engine.hpp"
#include "liftc/syntax/read.hpp"
#include "lower.hpp"

namespace liftc::rewrite {

namespace {

void collect_size_vars(const ir::Expr& e, std::set<std::string>& out) {
  for (const auto& s : e->sizes)
    for (const auto& v : arith::free_vars(s)) out.insert(v);
  for (const auto& a : e->args) collect_size_vars(a, out);
}

void collect_type_vars(const ir::Type& t, std::set<std::string>& out) {
  if (!t.defined()) return;
  if (t.is_array()) {
    for (const auto& v : arith::free_vars(t.length())) out.insert(v);
    collect_type_vars(t.elem(), out);
  } else if (t.is_tuple()) {
    for (const auto& c : t.elems()) collect_type_vars(c, out);
  }
}

// The engine's fresh names are unique across all alternatives (`n_M_3`). Each alternative
// names its parameters by their base (`n_M`), numbered only where one base occurs twice
// in it (`n_M_1`, `n_M_2`, in order of application), so a place has the same name in every
// alternative of a strategy. A name that would clash keeps the engine's name.
void canonical_names(ir::Program& q, std::vector<TuningParam>& params, const std::set<std::string>& used) {
  std::map<std::string, std::vector<std::size_t>> by_base;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string& n = params[i].name;
    by_base[n.substr(0, n.rfind('_'))].push_back(i);
  }
  std::vector<std::string> names(params.size());
  for (const auto& [base, members] : by_base)
    for (std::size_t k = 0; k < members.size(); ++k)
      names[members[k]] = members.size() == 1 ? base : fmt::format("{}_{}", base, k + 1);
  std::set<std::string> distinct(names.begin(), names.end());
  std::map<std::string, arith::Expr> renames;
  for (std::size_t i = 0; i < params.size(); ++i) {
    auto& t = params[i];
    bool clash = used.count(names[i]) || distinct.size() != names.size();
    if (clash || names[i] == t.name) continue;
    renames[t.name] = arith::var(names[i], arith::Expr(static_cast<std::int64_t>(t.min.value_or(1))),
                                 t.max ? std::optional<arith::Expr>(arith::Expr(static_cast<std::int64_t>(*t.max)))
                                       : std::nullopt);
    t.name = names[i];
  }
  if (renames.empty()) return;
  for (auto& d : q.defs) d.body = ir::substitute_sizes(d.body, renames);
}

}  // namespace

Strategy parse_strategy(const RuleSet& rules, const std::string& text) {
  auto source = std::make_shared<const SourceFile>(SourceFile{"<strategy>", text});
  std::unique_ptr<syntax::Parsed<syntax::ast::StratExpr>> parsed = syntax::read_strategy(source);
  Strategy s = detail::lower_strategy(parsed->tree(), *parsed, [&](const std::string& name) -> std::optional<StrategyKind> {
    if (rules.rule(name)) return StrategyKind::Rule;
    if (rules.strategy(name)) return StrategyKind::Named;
    return std::nullopt;
  });
  detail::check_fixed(rules.rules, s);
  return s;
}

ProgramRewrite rewrite_program(const RuleSet& rules, const std::string& strategy, const ir::Program& program,
                               const RewriteOptions& options) {
  Strategy s = parse_strategy(rules, strategy);
  typecheck::Checked checked = typecheck::typecheck(program);
  const ir::Program& p = checked.program;

  Engine engine(rules, options);
  std::set<std::string> used;
  for (const auto& sz : p.sizes) used.insert(sz.name);
  for (const auto& in : p.inputs) {
    used.insert(in.name);
    collect_type_vars(in.type, used);
  }
  for (const auto& d : p.defs) {
    used.insert(d.name);
    collect_size_vars(d.body, used);
  }
  for (const auto& n : used) engine.reserve(n);
  SizeValues given;
  for (const auto& sz : p.sizes)
    if (sz.value) given.emplace(sz.name, arith::Expr(static_cast<std::int64_t>(*sz.value)));
  engine.set_sizes(std::move(given));

  ProgramRewrite out;
  typecheck::TypeEnv env;
  for (const auto& in : p.inputs) env[in.name] = in.type;
  // Per definition, its alternatives; combined below.
  std::vector<std::vector<ir::Expr>> per_def;
  for (const auto& d : p.defs) {
    engine.set_label(d.name);
    engine.reset_fallbacks();
    auto alts = engine.run(s, d.body, env);
    const bool fallen_back = !alts.empty() && engine.took_fallback() && !engine.primary_applied();
    if (alts.empty() || fallen_back) {
      (fallen_back ? out.fallen_back : out.unchanged).push_back(d.name);
      if (std::string why = engine.why_not_applied(); !why.empty()) out.why_not[d.name] = why;
    }
    if (alts.empty()) alts = {d.body};
    per_def.push_back(std::move(alts));
    env[d.name] = d.body.type();
  }
  if (out.unchanged.size() + out.fallen_back.size() == p.defs.size()) {
    std::vector<std::string> whys;
    for (const auto& [def, why] : out.why_not) whys.push_back(p.defs.size() == 1 ? why : def + ": " + why);
    throw Error(fmt::format("strategy `{}` does not apply to any definition of {}{}", strategy,
                            p.source ? p.source->path : "the program",
                            whys.empty() ? std::string() : fmt::format(" ({})", fmt::join(whys, "; "))));
  }

  std::vector<std::vector<ir::Expr>> combos = {{}};
  for (const auto& alts : per_def) {
    std::vector<std::vector<ir::Expr>> next;
    for (const auto& c : combos)
      for (const auto& a : alts) {
        if (next.size() >= options.budget.max_alternatives) break;
        auto c2 = c;
        c2.push_back(a);
        next.push_back(std::move(c2));
      }
    combos = std::move(next);
  }

  for (const auto& combo : combos) {
    ir::Program q = p;
    std::set<std::string> mentioned;
    for (std::size_t i = 0; i < q.defs.size(); ++i) {
      q.defs[i].body = combo[i];
      collect_size_vars(combo[i], mentioned);
    }
    RewrittenProgram r;
    for (const auto& t : engine.params())
      if (mentioned.count(t.name)) r.params.push_back(t);
    canonical_names(q, r.params, used);
    for (const auto& t : r.params) {
      ir::SizeDecl decl{t.name, std::nullopt, {}};
      if (t.min && t.max) {
        decl.min = t.min;
        decl.max = t.max;
      }
      q.sizes.push_back(decl);
    }
    r.program = typecheck::typecheck(q).program;
    out.programs.push_back(std::move(r));
  }
  out.stop = engine.stop_reason();
  out.steps = engine.steps();
  return out;
}

}  // namespace liftc::rewrite
