#pragma once
// Printers of the C syntax tree: a C printer, and an OpenCL C printer that overrides only
// what OpenCL spells differently (Halide's CodeGen_C / CodeGen_OpenCL_Dev split).

#include <set>
#include <sstream>
#include <string>

#include "liftc/codegen/c_ast.hpp"

namespace liftc::codegen {

/// Prints functions, statements and expressions as C99.
class CPrinter {
 public:
  virtual ~CPrinter() = default;

  /// A whole function, with a trailing newline.
  std::string print(const c::Function& f);
  /// One expression (fully parenthesized where C precedence needs it).
  std::string print(const c::Expr& e);
  /// One statement at indentation level 0.
  std::string print(const c::Stmt& s);

 protected:
  /// The spelling of a scalar or vector type ("float", "float4", "int").
  virtual std::string type_name(const ir::Type& t);
  /// The qualifier written before declarations in address space `s` ("" in C).
  virtual std::string space_qualifier(AddressSpace s);
  /// The function qualifier ("" in C, "kernel" in OpenCL).
  virtual std::string function_qualifier(const c::Function& f);
  /// A float literal.
  virtual std::string float_literal(double v);
  /// A load of one or more scalars.
  virtual std::string load(const c::ExprNode& e);
  /// A store of one or more scalars.
  virtual void store(const c::StmtNode& s);
  /// A work-item id.
  virtual std::string work_item(const c::ExprNode& e);
  /// A barrier.
  virtual void barrier(const c::StmtNode& s);
  /// A loop's unroll request.
  virtual void unroll_hint(const c::StmtNode& s);

  std::string expr(const c::Expr& e);
  void stmt(const c::Stmt& s);
  void line(const std::string& text);

  std::ostringstream out_;
  int indent_ = 0;
  std::set<std::string> half_;  // the function's buffers stored as halves (Param::half)
};

/// Prints OpenCL C: address spaces, kernel, vload/vstore, get_*_id, barrier.
class OpenCLPrinter : public CPrinter {
 protected:
  std::string space_qualifier(AddressSpace s) override;
  std::string function_qualifier(const c::Function& f) override;
  std::string load(const c::ExprNode& e) override;
  void store(const c::StmtNode& s) override;
  std::string work_item(const c::ExprNode& e) override;
  void barrier(const c::StmtNode& s) override;
  void unroll_hint(const c::StmtNode& s) override;
};

}  // namespace liftc::codegen
