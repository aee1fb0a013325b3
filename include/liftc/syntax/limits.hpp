#pragma once
// What the readers of .sr programs and rule files accept, so no input can overflow the
// stack. Other stages keep within these (the rewriter's budgets print only what reads back).

namespace liftc::syntax {

/// The deepest nesting (of expressions, unary operators, types and strategies) the
/// grammars accept; deeper is the error "... nested deeper than 200 levels".
inline constexpr int kMaxNesting = 200;

}  // namespace liftc::syntax
