// The public entry points: a whole program (inputs, then each definition in order, each
// visible to the later ones) and a single expression.

#include "liftc/typecheck/typecheck.hpp"

#include <fmt/format.h>

#include "checker.hpp"

namespace liftc::typecheck {

Checked typecheck(const ir::Program& program) {
  Checked out;
  out.program = program;
  detail::Checker checker(&out.obligations);
  for (const auto& in : program.inputs) checker.env[in.name] = in.type;
  for (const auto& size : program.sizes)
    if (size.value) checker.declared.emplace(size.name, arith::Expr(static_cast<std::int64_t>(*size.value)));
  for (auto& def : out.program.defs) {
    if (def.body.kind() == ir::ExprKind::Lambda)
      throw Error(fmt::format("def {}: a definition is an output and must be a value, but this is a function of {} "
                              "parameter{}; write it as def {}({}) = ...",
                              def.name, def.body->params.size(), def.body->params.size() == 1 ? "" : "s", def.name,
                              fmt::join(def.body->params, ", ")),
                  def.body.loc().known() ? def.body.loc() : def.loc);
    def.body = checker.check(def.body);
    checker.env[def.name] = def.body.type();
  }
  return out;
}

ir::Expr typecheck_expr(const ir::Expr& e, const TypeEnv& env, std::vector<Obligation>* obligations,
                        const SizeValues& declared) {
  detail::Checker checker(obligations);
  checker.env = env;
  checker.declared = declared;
  return checker.check(e);
}

}  // namespace liftc::typecheck
