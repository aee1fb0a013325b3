#pragma once
// Elaboration: the AST of a program (and of the prelude) -> ir::Program.
//
// Names are resolved in a lexical environment (lambda, let and function parameters)
// and then among the globals (sizes, inputs, value definitions, function definitions,
// primitives). Function definitions are macros: a use binds each parameter to its
// argument *unevaluated* (a Thunk: the argument's AST and the environment it was written
// in), and elaborates the body; each use of a parameter elaborates its argument in the
// mode the position asks for: data, a function of k parameters, or a size expression.
// So one argument may be a lambda, a partial application or a size, as the body needs.
//
// Something that is a function but not yet an IR Lambda is a Closure: a lambda's AST, a
// primitive or a function definition, with the arguments given so far (partial
// application). It becomes an IR Lambda where a primitive's function operand needs one.
//
// Pattern mode (elaborate_pattern.cpp, API in include/liftc/parse/pattern.hpp): a rule's
// side is elaborated by the same walk over the same syntax into a parse::Pattern; a name
// bound nowhere (no lambda, let or primitive) is a pattern variable instead of an error.
//
// Capture: every binder the elaborator creates avoids the IR names of all binders open
// at that moment and of the globals, so a substituted argument is never captured.
// Bounds: elaboration depth, IR node count and IR depth are limited, so no input can exhaust the
// stack or the memory (a higher-order definition can recurse through its arguments).

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "liftc/ir/expr.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/parse/pattern.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/syntax/ast.hpp"
#include "liftc/syntax/parsed.hpp"
#include "liftc/syntax/peel.hpp"

namespace liftc::parse {

namespace ast = syntax::ast;
namespace x3 = boost::spirit::x3;
using syntax::literal_operand;
using syntax::peel;
using syntax::tagged;

/// A parsed program (or the prelude).
using Syntax = syntax::Parsed<ast::Program>;

struct Env;
/// A lexical environment: an immutable linked list of frames, shared by closures.
using EnvPtr = std::shared_ptr<const Env>;

/// An unevaluated argument: an AST in its environment, or an already built IR value.
struct Thunk {
  const ast::Expr* expr = nullptr;
  EnvPtr env;
  const Syntax* syntax = nullptr;
  ir::Expr ready;  // when expr == nullptr
};

/// A surface function definition `def f(p, ...) = body`.
struct FunctionDef {
  std::string name;
  std::vector<std::string> params;
  const ast::Def* def = nullptr;
  const Syntax* syntax = nullptr;
  SourceLoc loc;
  bool from_prelude = false;
};

/// A function that is not an IR node yet.
struct Closure {
  enum class Kind { Lambda, Prim, Function };
  Kind kind = Kind::Prim;
  const ast::Lambda* lambda = nullptr;  // Lambda
  EnvPtr env;                           // Lambda: where it was written
  const Syntax* syntax = nullptr;       // Lambda
  ir::Prim prim = ir::Prim::Id;         // Prim
  const FunctionDef* function = nullptr;
  std::vector<Thunk> given;             // arguments supplied so far
  SourceLoc loc;
  std::string text;                     // how to name it in messages
};

/// What an expression elaborates to: data (an IR expression) or a function.
struct Value {
  ir::Expr data;
  std::optional<Closure> function;
};

/// A name bound in the lexical environment.
struct Binding {
  enum class Kind { Local, Argument, Function };
  Kind kind = Kind::Local;
  std::string ir_name;   // Local: the IR variable
  Thunk argument;        // Argument: a function parameter's argument
  Closure function;      // Function: a let-bound function
};

struct Env {
  std::string name;
  Binding binding;
  EnvPtr parent;
};

/// `parent` with `name` bound to `binding`.
inline EnvPtr push(EnvPtr parent, std::string name, Binding binding) {
  return std::make_shared<const Env>(Env{std::move(name), std::move(binding), std::move(parent)});
}

/// A local variable's binding: `ir_name` in the IR.
inline Binding local(std::string ir_name) {
  Binding b;
  b.kind = Binding::Kind::Local;
  b.ir_name = std::move(ir_name);
  return b;
}

/// The elaborator of one program (with or without the prelude).
class Elaborator {
 public:
  /// Elaborates `program`, with the function definitions of `prelude` available (a
  /// program's own definition of the same name shadows a prelude one).
  ir::Program run(const Syntax& program, const Syntax* prelude);

  /// Elaborates the pattern `e` of `text` in pattern mode (see pattern.hpp).
  Pattern run_pattern(const ast::Expr& e, const syntax::Positions& text, const PatternMode& mode);

 private:
  // A global name.
  struct Global {
    enum class Kind { Size, Input, Value, Function };
    Kind kind;
    SourceLoc loc;
    const FunctionDef* function = nullptr;
    arith::Expr size = arith::Expr();  // Size: its variable, with the declared range
  };

  // ---- declarations (elaborate_program.cpp)
  void declare(const std::string& name, Global global, bool from_prelude);
  void collect_functions(const Syntax& syntax, bool from_prelude);
  void check_recursion();
  ir::Type elab_type(const ast::Type& t, const Syntax& syntax);

  // ---- expressions (elaborate_expr.cpp)
  Value elab(const Thunk& t);
  Value elab(const ast::Expr& e, const EnvPtr& env, const Syntax* syntax);
  Value elab_name(const ast::Name& n, const EnvPtr& env, const Syntax* syntax);
  Value elab_postfix(const ast::Postfix& p, const EnvPtr& env, const Syntax* syntax);
  Value elab_binary(const ast::Binary& b, const EnvPtr& env, const Syntax* syntax);
  Value elab_let(const ast::Let& l, const EnvPtr& env, const Syntax* syntax);
  /// Applies a function to arguments; the result is data, or a function when partial.
  Value apply(const Closure& f, const std::vector<Thunk>& args, const SourceLoc& loc);
  Value apply_prim(const Closure& f, const std::vector<Thunk>& all, const SourceLoc& loc);
  Value apply_lambda(const Closure& f, const std::vector<Thunk>& all, const SourceLoc& loc);
  Value expand(const Closure& f, const std::vector<Thunk>& all, const SourceLoc& loc);
  /// `t` as data; `what` names the position in the error when it is a function.
  ir::Expr data(const Thunk& t, const std::string& what);
  ir::Expr data(const Value& v, const SourceLoc& loc, const std::string& what);
  /// `t` as an IR Lambda of `arity` parameters (a tuple-destructuring one when arity is 1).
  ir::Expr function(const Thunk& t, int arity, const std::string& what);
  ir::Expr to_lambda(const Closure& f, int arity, const std::string& what);
  ir::Expr lambda_from_ast(const Closure& f);
  /// How many more arguments `f` takes before it is data.
  int missing_arguments(const Closure& f) const;

  // ---- sizes (elaborate_size.cpp)
  /// `t` as a size expression; `what` names the position ("size argument 1 of split").
  arith::Expr size(const Thunk& t, const std::string& what);
  arith::Expr size(const ast::Expr& e, const EnvPtr& env, const Syntax* syntax, const std::string& what);
  /// reorder's index function argument `striddenIndex(s)`: returns s.
  arith::Expr index_function(const Thunk& t);

  // ---- patterns (elaborate_pattern.cpp): the pattern mode; `env` binds the pattern's
  // own lambda parameters and let names (Binding::Local, kept as written)
  /// A data operand.
  Pattern pattern_data(const ast::Expr& e, const EnvPtr& env);
  /// A function operand of `arity` parameters: a lambda, a function variable, a partial application.
  Pattern pattern_function(const ast::Expr& e, int arity, const EnvPtr& env);
  /// `name(args)` or `e.i`; with `arity` > 0 (a function position) a call may be partial, and
  /// nullopt means it is not a function.
  std::optional<Pattern> pattern_postfix(const ast::Postfix& p, const SourceLoc& at, int arity, const EnvPtr& env);
  /// A call of `prim`: sizes and operands read as its signature says; in a function
  /// position of `arity` it may lack that many trailing data operands.
  Pattern pattern_call(ir::Prim prim, const std::vector<ast::Expr>& args, const SourceLoc& at, int arity,
                       const EnvPtr& env);
  /// A function variable applied, `g(e)`.
  Pattern pattern_apply(const std::string& f, const std::vector<ast::Expr>& args, const SourceLoc& at,
                        const EnvPtr& env);
  /// A name in a data position: bound by the pattern, or a pattern variable.
  Pattern pattern_variable(const std::string& name, const SourceLoc& at, const EnvPtr& env);
  /// A size argument: over the pattern's size variables, its fresh names and `length(x)`.
  arith::Expr pattern_size(const ast::Expr& e);
  /// Records pattern variable `name` as of kind `kind`; an error if it is known as another kind.
  void pattern_var_kind(const std::string& name, VarKind kind, const SourceLoc& at);

  // ---- helpers
  SourceLoc loc(const x3::position_tagged& node, const syntax::Positions* syntax) const;
  SourceLoc loc(const ast::Expr& e, const syntax::Positions* syntax) const;
  SourceLoc loc(const Thunk& t) const;
  /// Checks that the parameters of `lambda`, written in `syntax`, are distinct.
  void check_distinct_parameters(const ast::Lambda& lambda, const syntax::Positions* syntax) const;
  /// The IR name for a new binder written `name`: itself unless that would capture.
  std::string binder_name(const std::string& name) const;
  /// Counts a built IR node against the budgets (node count and nesting depth).
  ir::Expr count(ir::Expr e);
  [[noreturn]] void unknown_name(const std::string& name, const SourceLoc& where, const EnvPtr& env) const;

  std::map<std::string, Global> globals_;            // the program's own names
  std::map<std::string, const FunctionDef*> prelude_functions_;  // shadowed by the program's
  std::vector<std::unique_ptr<FunctionDef>> functions_;
  std::vector<std::string> open_binders_;  // IR names of the binders being elaborated
  const Syntax* prelude_ = nullptr;
  const syntax::Positions* pattern_text_ = nullptr;  // pattern mode: the rule file
  const PatternMode* pattern_mode_ = nullptr;        // pattern mode: what free names are
  SourceLoc prelude_call_;  // while expanding a prelude function: the user's call site
  /// Sets prelude_call_ to `call_site` for a scope and restores it after.
  struct PreludeCallScope {
    PreludeCallScope(SourceLoc& slot, SourceLoc call_site) : slot_(slot), saved_(slot) { slot_ = call_site; }
    ~PreludeCallScope() { slot_ = saved_; }
    PreludeCallScope(const PreludeCallScope&) = delete;
    PreludeCallScope& operator=(const PreludeCallScope&) = delete;

   private:
    SourceLoc& slot_;
    SourceLoc saved_;
  };
  /// The call site a thunk is elaborated under: none for a user's argument inside a prelude
  /// expansion (it keeps its own positions), the current one otherwise.
  SourceLoc call_site_of(const Thunk& t) const { return t.syntax != prelude_ ? SourceLoc{} : prelude_call_; }
  int depth_ = 0;
  long nodes_ = 0;
  long steps_ = 0;  // elaboration steps: arguments are re-elaborated at each use
  std::unordered_map<const ir::ExprNode*, int> ir_depth_;  // nesting depth of each built node
  friend class DepthGuard;
};

/// The arguments of `e` when it is written `striddenIndex(...)` (an index function), else null.
const ast::Arguments* stridden_index_arguments(const ast::Expr& e);

/// Counts one level of elaboration; past kMaxElaborationDepth it is a user error.
class DepthGuard {
 public:
  /// `where` is called for the error's position only when the limit is exceeded.
  template <typename Where>
  DepthGuard(Elaborator& e, Where&& where) : e_(e) {
    if (++e_.steps_ > kMaxSteps)
      throw Error(fmt::format("the program is too large after expanding its function definitions (more than {} "
                              "elaboration steps)",
                              kMaxSteps),
                  where());
    if (++e_.depth_ > kMaxElaborationDepth) {
      --e_.depth_;
      throw Error("definitions expand too deeply (does a function call itself through its arguments?)", where());
    }
  }
  ~DepthGuard() { --e_.depth_; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;

 private:
  Elaborator& e_;
};

}  // namespace liftc::parse
