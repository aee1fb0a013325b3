#pragma once
// A small C syntax tree: what code generation builds and the printers print.
//
// Expressions and statements are immutable values behind shared handles. Array indices are
// arith::Expr (already simplified with the ranges of the loop variables), so the printers
// only decide spelling: a C printer prints plain C, the OpenCL printer overrides what
// differs (address spaces, vector loads and stores, work-item functions, barriers).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "liftc/arith/expr.hpp"
#include "liftc/ir/type.hpp"

namespace liftc::codegen {

/// OpenCL address spaces of buffers and variables.
enum class AddressSpace { Global, Local, Private, Constant };

/// "global", "local", "private", "constant".
const char* to_string(AddressSpace s);

}  // namespace liftc::codegen

namespace liftc::codegen::c {

/// The kinds of C expression.
enum class ExprKind {
  Literal,   // text spelled as given, typed (a float literal is printed by the printer)
  Name,      // a variable
  Index,     // an integer arith expression
  Unary,     // op a
  Binary,    // a op b
  Ternary,   // c ? a : b
  Call,      // f(args)
  Load,      // buffer[offset], `width` consecutive scalars when width > 1
  Lane,      // a.s<lane> of a vector value
  WorkItem,  // get_global_id / get_local_id / get_group_id (dim)
  Cast,      // (type)a
};

/// Work-item query functions.
enum class WorkItemFn { GlobalId, LocalId, GroupId };

struct ExprNode;
/// A handle to an immutable C expression.
using Expr = std::shared_ptr<const ExprNode>;

struct ExprNode {
  ExprKind kind = ExprKind::Literal;
  ir::Type type;            // the C type of the value (scalar or vector)
  std::string text;         // Literal text, Name, operator, function name, buffer name
  double float_value = 0;   // Literal of float type
  arith::Expr index;        // Index; Load offset (in scalars)
  std::vector<Expr> args;   // operands
  int width = 1;            // Load
  int lane = 0;             // Lane
  WorkItemFn fn = WorkItemFn::GlobalId;
  int dim = 0;              // WorkItem
};

/// A float literal.
Expr float_lit(double v);
/// An int literal.
Expr int_lit(long long v);
/// A variable of type `t`.
Expr name(const std::string& n, ir::Type t);
/// An integer index expression.
Expr index(arith::Expr e);
/// `op a`.
Expr unary(const std::string& op, Expr a, ir::Type t);
/// `a op b`.
Expr binary(const std::string& op, Expr a, Expr b, ir::Type t);
/// `c ? a : b`.
Expr ternary(Expr c, Expr a, Expr b);
/// `f(args...)`.
Expr call(const std::string& f, std::vector<Expr> args, ir::Type t);
/// A load of `width` scalars at scalar offset `offset` of buffer `buffer` (element type `t`).
Expr load(const std::string& buffer, arith::Expr offset, int width, ir::Type t);
/// Lane `lane` of vector `a`.
Expr lane(Expr a, int lane);
/// A work-item id in dimension `dim`.
Expr work_item(WorkItemFn fn, int dim);
/// `(t)a`.
Expr cast(ir::Type t, Expr a);
/// A vector built from its lanes: `(float4)(a, b, c, d)` (a Cast with one operand per lane).
Expr vector(ir::Type t, std::vector<Expr> lanes);

/// The kinds of C statement.
enum class StmtKind { Block, Decl, Assign, Store, For, If, Barrier, Comment };

struct StmtNode;
/// A handle to an immutable C statement.
using Stmt = std::shared_ptr<const StmtNode>;

struct StmtNode {
  StmtKind kind = StmtKind::Block;
  std::vector<Stmt> body;             // Block; For and If bodies
  std::string name;                   // Decl, Assign target, Store buffer, For variable, Comment
  ir::Type type;                      // Decl: element type; Store: element type
  AddressSpace space = AddressSpace::Private;  // Decl
  std::optional<arith::Expr> length;  // Decl of an array (scalars of `type`)
  Expr value;                         // Decl initializer, Assign/Store value, If condition
  arith::Expr offset;                 // Store offset (in scalars)
  int width = 1;                      // Store
  Expr start;                         // For: first value
  arith::Expr end;                    // For: exclusive bound
  Expr step;                          // For: increment
  bool unroll = false;                // For: ask the compiler to unroll
  bool is_const = false;              // Decl: `const` (a value computed once, e.g. hoisted out of a loop)
  std::vector<double> values;         // Decl of a constant array: its initializer `{v0, v1, ...}`
  bool local_fence = false, global_fence = false;  // Barrier
};

/// `{ stmts }`.
Stmt block(std::vector<Stmt> stmts);
/// `space type name[length] = init;` (length and init optional).
Stmt decl(const std::string& n, ir::Type t, AddressSpace space, std::optional<arith::Expr> length, Expr init);
/// `const type name = init;`: a private scalar or vector computed once.
Stmt const_decl(const std::string& n, ir::Type t, Expr init);
/// `constant type name[n] = {values...};`: a constant array (n = values.size()) in the kernel's outermost scope.
Stmt constant_array(const std::string& n, ir::Type t, std::vector<double> values);
/// `name = value;`.
Stmt assign(const std::string& n, Expr value);
/// Stores `width` scalars of `value` at scalar offset `offset` of `buffer`.
Stmt store(const std::string& buffer, arith::Expr offset, int width, ir::Type t, Expr value);
/// `for (int v = start; v < end; v += step) body`.
Stmt for_loop(const std::string& v, Expr start, arith::Expr end, Expr step, std::vector<Stmt> body, bool unroll = false);
/// `if (cond) body`.
Stmt if_then(Expr cond, std::vector<Stmt> body);
/// A work-group barrier with the given fences.
Stmt barrier(bool local_fence, bool global_fence);
/// `// text`.
Stmt comment(const std::string& text);

/// A kernel parameter: a buffer pointer or an int size.
struct Param {
  std::string name;
  ir::Type type;  // element scalar type for buffers; int for sizes
  bool pointer = true;
  bool is_const = false;
  AddressSpace space = AddressSpace::Global;
  bool half = false;  // a float buffer stored as halves: `half*`, read and written by vload_half/vstore_half
};

/// A function (a kernel in OpenCL).
struct Function {
  std::string name;
  std::vector<Param> params;
  std::vector<Stmt> body;
  bool is_kernel = true;
};

/// Every arith expression that appears in `f` (indices, offsets, bounds, lengths).
std::vector<arith::Expr> arith_exprs(const Function& f);

}  // namespace liftc::codegen::c
