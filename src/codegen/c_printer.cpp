// The C printer: spelling of the C syntax tree shared by every C-like target.

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "liftc/codegen/printer.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::codegen {

namespace {

// True when `e` prints as one token, so it needs no parentheses as an operand.
bool is_atom(const c::ExprNode& e) {
  switch (e.kind) {
    case c::ExprKind::Name:
    case c::ExprKind::Call:
    case c::ExprKind::Load:
    case c::ExprKind::Lane:
    case c::ExprKind::WorkItem:
      return true;
    case c::ExprKind::Literal:
      return e.float_value >= 0;
    case c::ExprKind::Index:
      return e.index.kind() == arith::Kind::Var || (e.index.constant() && *e.index.constant() >= 0);
    default:
      return false;
  }
}

// C precedence levels (higher binds tighter) of binary operators.
int precedence(const std::string& op) {
  if (op == "*" || op == "/" || op == "%") return 13;
  if (op == "+" || op == "-") return 12;
  if (op == "<" || op == "<=" || op == ">" || op == ">=") return 10;
  if (op == "==" || op == "!=") return 9;
  if (op == "&&") return 5;
  if (op == "||") return 4;
  return 0;
}

// The precedence of an expression as printed (atoms bind tightest).
int precedence(const c::ExprNode& e) {
  if (is_atom(e)) return 100;
  if (e.kind == c::ExprKind::Binary) return precedence(e.text);
  if (e.kind == c::ExprKind::Index) {
    if (e.index.kind() == arith::Kind::Sum || e.index.constant()) return 12;
    if (e.index.kind() == arith::Kind::Min || e.index.kind() == arith::Kind::Max) return 100;
    return 13;
  }
  if (e.kind == c::ExprKind::Unary || e.kind == c::ExprKind::Cast) return 14;
  return 1;
}

}  // namespace

std::string CPrinter::print(const c::Function& f) {
  out_.str("");
  indent_ = 0;
  half_.clear();
  std::vector<std::string> params;
  for (const auto& p : f.params) {
    std::string q = p.pointer ? space_qualifier(p.space) : "";
    LIFTC_ASSERT(!p.half || (p.pointer && p.type.scalar_kind() == ir::ScalarKind::Float),
                 "only float buffers are stored as half");
    if (p.half) half_.insert(p.name);
    params.push_back(fmt::format("{}{}{}{} {}", q.empty() ? "" : q + " ", p.is_const ? "const " : "",
                                 p.half ? "half" : type_name(p.type), p.pointer ? "* restrict" : "", p.name));
  }
  std::string fq = function_qualifier(f);
  line(fmt::format("{}void {}({}) {{", fq.empty() ? "" : fq + " ", f.name, fmt::join(params, ", ")));
  ++indent_;
  for (const auto& s : f.body) stmt(s);
  --indent_;
  line("}");
  return out_.str();
}

std::string CPrinter::print(const c::Expr& e) { return expr(e); }

std::string CPrinter::print(const c::Stmt& s) {
  out_.str("");
  indent_ = 0;
  stmt(s);
  return out_.str();
}

std::string CPrinter::type_name(const ir::Type& t) {
  LIFTC_ASSERT(t.is_scalar() || t.is_vector(), "C types are scalars or vectors");
  std::string base = t.scalar_kind() == ir::ScalarKind::Float ? "float" : "int";
  return t.is_vector() ? base + std::to_string(t.width()) : base;
}

std::string CPrinter::space_qualifier(AddressSpace) { return ""; }

std::string CPrinter::function_qualifier(const c::Function&) { return ""; }

std::string CPrinter::float_literal(double v) {
  if (std::isinf(v)) return v > 0 ? "INFINITY" : "(-INFINITY)";
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s + "f";
}

std::string CPrinter::load(const c::ExprNode& e) {
  LIFTC_ASSERT(!half_.count(e.text), "half storage is printed as OpenCL C (vload_half) only");
  if (e.width == 1) return fmt::format("{}[{}]", e.text, arith::to_string(e.index));
  return fmt::format("*(({}*)&{}[{}])", type_name(e.type), e.text, arith::to_string(e.index));
}

void CPrinter::store(const c::StmtNode& s) {
  LIFTC_ASSERT(!half_.count(s.name), "half storage is printed as OpenCL C (vstore_half) only");
  if (s.width == 1) return line(fmt::format("{}[{}] = {};", s.name, arith::to_string(s.offset), expr(s.value)));
  line(fmt::format("*(({}*)&{}[{}]) = {};", type_name(ir::Type::vector(s.type.scalar_kind(), s.width)), s.name,
                   arith::to_string(s.offset), expr(s.value)));
}

std::string CPrinter::work_item(const c::ExprNode& e) {
  const char* f = e.fn == c::WorkItemFn::GlobalId ? "get_global_id" : e.fn == c::WorkItemFn::LocalId ? "get_local_id" : "get_group_id";
  return fmt::format("{}({})", f, e.dim);
}

void CPrinter::barrier(const c::StmtNode&) { line("/* barrier */"); }

void CPrinter::unroll_hint(const c::StmtNode&) {}

std::string CPrinter::expr(const c::Expr& e) {
  auto operand = [&](const c::Expr& a) { return is_atom(*a) ? expr(a) : "(" + expr(a) + ")"; };
  switch (e->kind) {
    case c::ExprKind::Literal: return float_literal(e->float_value);
    case c::ExprKind::Name: return e->text;
    case c::ExprKind::Index: return arith::to_string(e->index);
    case c::ExprKind::Unary: return e->text + operand(e->args[0]);
    case c::ExprKind::Binary: {
      int p = precedence(e->text);
      auto side = [&](const c::Expr& a, bool right) {
        int q = precedence(*a);
        return q > p || (q == p && !right) ? expr(a) : "(" + expr(a) + ")";
      };
      return fmt::format("{} {} {}", side(e->args[0], false), e->text, side(e->args[1], true));
    }
    case c::ExprKind::Ternary:
      return fmt::format("{} ? {} : {}", operand(e->args[0]), operand(e->args[1]), operand(e->args[2]));
    case c::ExprKind::Call: {
      std::vector<std::string> args;
      for (const auto& a : e->args) args.push_back(expr(a));
      return fmt::format("{}({})", e->text, fmt::join(args, ", "));
    }
    case c::ExprKind::Load: return load(*e);
    case c::ExprKind::Lane: return fmt::format("{}.s{:x}", operand(e->args[0]), e->lane);
    case c::ExprKind::WorkItem: return work_item(*e);
    case c::ExprKind::Cast: {
      if (e->args.size() == 1) return fmt::format("({}){}", type_name(e->type), operand(e->args[0]));
      std::vector<std::string> lanes;
      for (const auto& a : e->args) lanes.push_back(expr(a));
      return fmt::format("({})({})", type_name(e->type), fmt::join(lanes, ", "));
    }
  }
  return "?";
}

void CPrinter::stmt(const c::Stmt& s) {
  switch (s->kind) {
    case c::StmtKind::Block:
      line("{");
      ++indent_;
      for (const auto& b : s->body) stmt(b);
      --indent_;
      line("}");
      return;
    case c::StmtKind::Decl: {
      std::string q = s->space == AddressSpace::Private ? "" : space_qualifier(s->space);
      std::string text =
          fmt::format("{}{}{} {}", q.empty() ? "" : q + " ", s->is_const ? "const " : "", type_name(s->type), s->name);
      if (s->length) text += fmt::format("[{}]", arith::to_string(*s->length));
      if (s->value) text += " = " + expr(s->value);
      if (!s->values.empty()) {
        std::vector<std::string> values;
        for (double v : s->values)
          values.push_back(s->type.scalar_kind() == ir::ScalarKind::Float ? float_literal(v)
                                                                         : fmt::format("{}", static_cast<long long>(v)));
        text += fmt::format(" = {{{}}}", fmt::join(values, ", "));
      }
      return line(text + ";");
    }
    case c::StmtKind::Assign: return line(fmt::format("{} = {};", s->name, expr(s->value)));
    case c::StmtKind::Store: return store(*s);
    case c::StmtKind::For:
      unroll_hint(*s);
      line(fmt::format("for (int {0} = {1}; {0} < {2}; {0} += {3}) {{", s->name, expr(s->start),
                       arith::to_string(s->end), expr(s->step)));
      ++indent_;
      for (const auto& b : s->body) stmt(b);
      --indent_;
      line("}");
      return;
    case c::StmtKind::If:
      line(fmt::format("if ({}) {{", expr(s->value)));
      ++indent_;
      for (const auto& b : s->body) stmt(b);
      --indent_;
      line("}");
      return;
    case c::StmtKind::Barrier: return barrier(*s);
    case c::StmtKind::Comment: return line("// " + s->name);
  }
}

void CPrinter::line(const std::string& text) { out_ << std::string(2 * indent_, ' ') << text << '\n'; }

}  // namespace liftc::codegen
