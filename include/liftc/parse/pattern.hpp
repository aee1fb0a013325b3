#pragma once
// The pattern mode of the elaborator: a rule's side (an .sr expression) -> a Pattern.
//
// A pattern is elaborated as a program is, by the same elaborator (src/parse): the same
// grammar, operators, primitive signatures, partial applications, lambdas and lets, size
// expressions and reorder's index function. What differs is what a name that is bound
// nowhere means. In a program it is an error ("unknown name"); in a pattern it is a pattern
// variable, of the kind its position asks for: an expression variable in a data position
// (`x`), a function variable in a function position (`f`, or applied to lambda-bound names,
// `g(e)`, or to one expression over them, `g(e + b)`), a size variable in a size position
// (`n` in `split(n, x)`). Names bound by the pattern's own lambdas and lets stay bound
// (`Pattern::bound`), not pattern variables.
//
// A partial application in a function position stays a call with fewer operands (`map(f)`),
// not a lambda as in a program, so the matcher sees what the rule's author wrote.

#include <map>
#include <string>
#include <vector>

#include "liftc/arith/expr.hpp"
#include "liftc/ir/expr.hpp"
#include "liftc/support/diagnostic.hpp"

// The syntax tree and its positions (include/liftc/syntax/): declared only, so that users of
// the Pattern tree (the whole rewrite stage) do not compile the grammar's headers.
namespace liftc::syntax {
class Positions;
namespace ast {
struct Expr;
}  // namespace ast
}  // namespace liftc::syntax

namespace liftc::parse {

/// The kinds of pattern node; they mirror ir::ExprKind.
enum class PatternKind { Var, Apply, Call, Lambda, Tuple, Get, Literal, Let };

/// How a pattern variable is bound by a match.
enum class VarKind { Expr, Function, Size };

/// A node of a rule's left or right side.
struct Pattern {
  PatternKind kind = PatternKind::Var;
  SourceLoc loc;
  std::string name;                 // Var: the variable; Apply: the function variable; Let: the bound name
  bool bound = false;               // Var: bound by an enclosing pattern lambda or let, not a pattern variable
  std::vector<std::string> params;  // Lambda
  ir::Prim prim = ir::Prim::Id;     // Call
  std::vector<arith::Expr> sizes;   // Call: over the pattern's size variables and fresh names
  std::vector<Pattern> args;        // Call operands (fewer than the signature's: a partial application
                                    // in a function position), Apply arguments, Tuple elements,
                                    // Get {tuple}, Let {value, body}, Lambda {body}
  int index = 0;                    // Get
  ir::LiteralValue literal;         // Literal
};

/// Pattern variables and their kinds.
using PatternVars = std::map<std::string, VarKind>;

/// What the names a pattern does not bind itself are (a rule's side, as the rule loader asks).
struct PatternMode {
  /// True for a binding pattern (a rule's left side): a free name becomes a pattern variable
  /// of `vars`, of the kind its position asks for (the same name twice must be the same
  /// kind); an applied function variable takes distinct lambda-bound names, or one
  /// expression that mentions one (`g(s + b)`, an abstraction); a size
  /// argument is a name or a constant. False for a template (a right side): every free
  /// name must already be a variable of `vars` of that kind, or a name of `fresh` in a size.
  bool binds = true;
  /// The pattern variables: filled by a binding pattern, read by a template.
  PatternVars& vars;
  /// Size names a template may use but a binding pattern may not (a rule's fresh parameters).
  const std::vector<std::string>& fresh;
};

/// Elaborates `e`, a pattern written in `text`, in pattern mode. Errors (an unknown primitive,
/// a wrong arity, an unbound name in a template, a variable used as two kinds) are
/// liftc::Error at file:line:col.
Pattern elaborate_pattern(const syntax::ast::Expr& e, const syntax::Positions& text, const PatternMode& mode);

/// The key of `length(x)` (depth 0) or `length(elem(...elem(x)))` in a size expression:
/// the arith variable that stands for that length when a pattern is matched.
std::string length_variable(const std::string& x, int elem_depth);

}  // namespace liftc::parse
