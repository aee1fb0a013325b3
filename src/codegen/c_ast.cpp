#include "liftc/codegen/c_ast.hpp"

#include <functional>

namespace liftc::codegen {

const char* to_string(AddressSpace s) {
  switch (s) {
    case AddressSpace::Global: return "global";
    case AddressSpace::Local: return "local";
    case AddressSpace::Private: return "private";
    case AddressSpace::Constant: return "constant";
  }
  return "?";
}

}  // namespace liftc::codegen

namespace liftc::codegen::c {

namespace {

Expr make(ExprNode n) { return std::make_shared<const ExprNode>(std::move(n)); }
Stmt make(StmtNode n) { return std::make_shared<const StmtNode>(std::move(n)); }

}  // namespace

Expr float_lit(double v) {
  ExprNode n;
  n.kind = ExprKind::Literal;
  n.type = ir::Type::float_();
  n.float_value = v;
  return make(std::move(n));
}

Expr int_lit(long long v) {
  ExprNode n;
  n.kind = ExprKind::Index;
  n.type = ir::Type::int_();
  n.index = arith::Expr(static_cast<std::int64_t>(v));
  return make(std::move(n));
}

Expr name(const std::string& nm, ir::Type t) {
  ExprNode n;
  n.kind = ExprKind::Name;
  n.text = nm;
  n.type = std::move(t);
  return make(std::move(n));
}

Expr index(arith::Expr e) {
  ExprNode n;
  n.kind = ExprKind::Index;
  n.type = ir::Type::int_();
  n.index = std::move(e);
  return make(std::move(n));
}

Expr unary(const std::string& op, Expr a, ir::Type t) {
  ExprNode n;
  n.kind = ExprKind::Unary;
  n.text = op;
  n.args = {std::move(a)};
  n.type = std::move(t);
  return make(std::move(n));
}

Expr binary(const std::string& op, Expr a, Expr b, ir::Type t) {
  ExprNode n;
  n.kind = ExprKind::Binary;
  n.text = op;
  n.args = {std::move(a), std::move(b)};
  n.type = std::move(t);
  return make(std::move(n));
}

Expr ternary(Expr c, Expr a, Expr b) {
  ExprNode n;
  n.kind = ExprKind::Ternary;
  n.type = a->type;
  n.args = {std::move(c), std::move(a), std::move(b)};
  return make(std::move(n));
}

Expr call(const std::string& f, std::vector<Expr> args, ir::Type t) {
  ExprNode n;
  n.kind = ExprKind::Call;
  n.text = f;
  n.args = std::move(args);
  n.type = std::move(t);
  return make(std::move(n));
}

Expr load(const std::string& buffer, arith::Expr offset, int width, ir::Type t) {
  ExprNode n;
  n.kind = ExprKind::Load;
  n.text = buffer;
  n.index = std::move(offset);
  n.width = width;
  n.type = std::move(t);
  return make(std::move(n));
}

Expr lane(Expr a, int l) {
  ExprNode n;
  n.kind = ExprKind::Lane;
  n.type = ir::Type::scalar(a->type.scalar_kind());
  n.args = {std::move(a)};
  n.lane = l;
  return make(std::move(n));
}

Expr work_item(WorkItemFn fn, int dim) {
  ExprNode n;
  n.kind = ExprKind::WorkItem;
  n.type = ir::Type::int_();
  n.fn = fn;
  n.dim = dim;
  return make(std::move(n));
}

Expr cast(ir::Type t, Expr a) {
  ExprNode n;
  n.kind = ExprKind::Cast;
  n.type = std::move(t);
  n.args = {std::move(a)};
  return make(std::move(n));
}

Expr vector(ir::Type t, std::vector<Expr> lanes) {
  ExprNode n;
  n.kind = ExprKind::Cast;
  n.type = std::move(t);
  n.args = std::move(lanes);
  return make(std::move(n));
}

Stmt block(std::vector<Stmt> stmts) {
  StmtNode n;
  n.kind = StmtKind::Block;
  n.body = std::move(stmts);
  return make(std::move(n));
}

Stmt decl(const std::string& nm, ir::Type t, AddressSpace space, std::optional<arith::Expr> length, Expr init) {
  StmtNode n;
  n.kind = StmtKind::Decl;
  n.name = nm;
  n.type = std::move(t);
  n.space = space;
  n.length = std::move(length);
  n.value = std::move(init);
  return make(std::move(n));
}

Stmt constant_array(const std::string& nm, ir::Type t, std::vector<double> values) {
  StmtNode n;
  n.kind = StmtKind::Decl;
  n.name = nm;
  n.type = std::move(t);
  n.space = AddressSpace::Constant;
  n.length = arith::Expr(static_cast<std::int64_t>(values.size()));
  n.values = std::move(values);
  return make(std::move(n));
}

Stmt const_decl(const std::string& nm, ir::Type t, Expr init) {
  StmtNode n;
  n.kind = StmtKind::Decl;
  n.name = nm;
  n.type = std::move(t);
  n.space = AddressSpace::Private;
  n.value = std::move(init);
  n.is_const = true;
  return make(std::move(n));
}

Stmt assign(const std::string& nm, Expr value) {
  StmtNode n;
  n.kind = StmtKind::Assign;
  n.name = nm;
  n.value = std::move(value);
  return make(std::move(n));
}

Stmt store(const std::string& buffer, arith::Expr offset, int width, ir::Type t, Expr value) {
  StmtNode n;
  n.kind = StmtKind::Store;
  n.name = buffer;
  n.offset = std::move(offset);
  n.width = width;
  n.type = std::move(t);
  n.value = std::move(value);
  return make(std::move(n));
}

Stmt for_loop(const std::string& v, Expr start, arith::Expr end, Expr step, std::vector<Stmt> body, bool unroll) {
  StmtNode n;
  n.kind = StmtKind::For;
  n.name = v;
  n.start = std::move(start);
  n.end = std::move(end);
  n.step = std::move(step);
  n.body = std::move(body);
  n.unroll = unroll;
  return make(std::move(n));
}

Stmt if_then(Expr cond, std::vector<Stmt> body) {
  StmtNode n;
  n.kind = StmtKind::If;
  n.value = std::move(cond);
  n.body = std::move(body);
  return make(std::move(n));
}

Stmt barrier(bool local_fence, bool global_fence) {
  StmtNode n;
  n.kind = StmtKind::Barrier;
  n.local_fence = local_fence;
  n.global_fence = global_fence;
  return make(std::move(n));
}

Stmt comment(const std::string& text) {
  StmtNode n;
  n.kind = StmtKind::Comment;
  n.name = text;
  return make(std::move(n));
}

std::vector<arith::Expr> arith_exprs(const Function& f) {
  std::vector<arith::Expr> out;
  std::function<void(const Expr&)> on_expr = [&](const Expr& e) {
    if (!e) return;
    if (e->kind == ExprKind::Index || e->kind == ExprKind::Load) out.push_back(e->index);
    for (const auto& a : e->args) on_expr(a);
  };
  std::function<void(const Stmt&)> on_stmt = [&](const Stmt& s) {
    on_expr(s->value);
    on_expr(s->start);
    on_expr(s->step);
    if (s->kind == StmtKind::Store) out.push_back(s->offset);
    if (s->kind == StmtKind::For) out.push_back(s->end);
    if (s->length) out.push_back(*s->length);
    for (const auto& b : s->body) on_stmt(b);
  };
  for (const auto& s : f.body) on_stmt(s);
  return out;
}

}  // namespace liftc::codegen::c
