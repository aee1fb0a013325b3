// The operator table (see operators.hpp).

#include "liftc/parse/operators.hpp"

#include <utility>

#include "liftc/support/diagnostic.hpp"

namespace liftc::parse {

ir::Prim binary_operator_prim(std::string_view op) {
  static constexpr std::pair<std::string_view, ir::Prim> table[] = {
      {"+", ir::Prim::Add}, {"-", ir::Prim::Sub}, {"*", ir::Prim::Mul}, {"/", ir::Prim::Div},
      {"%", ir::Prim::Mod}, {"<", ir::Prim::Lt},  {"<=", ir::Prim::Le}, {">", ir::Prim::Gt},
      {">=", ir::Prim::Ge}, {"==", ir::Prim::Eq}, {"!=", ir::Prim::Ne}, {"&&", ir::Prim::And},
      {"||", ir::Prim::Or},
  };
  for (const auto& [spelling, prim] : table)
    if (spelling == op) return prim;
  LIFTC_ASSERT(false, "the grammar only produces known binary operators");
  return ir::Prim::Add;
}

ir::Prim unary_operator_prim(std::string_view op) {
  LIFTC_ASSERT(op == "-" || op == "!", "the grammar only produces the unary operators - and !");
  return op == "-" ? ir::Prim::Neg : ir::Prim::Not;
}

}  // namespace liftc::parse
