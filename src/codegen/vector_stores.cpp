// Copy loops to vector stores (see include/liftc/codegen/vector_stores.hpp).

#include "liftc/codegen/vector_stores.hpp"

#include <set>

namespace liftc::codegen {

namespace {

using c::ExprKind;
using c::StmtKind;

// The constant value of an int expression (an Index of a constant), if it is one.
std::optional<std::int64_t> constant(const c::Expr& e) {
  if (!e || e->kind != ExprKind::Index || e->index.kind() != arith::Kind::Cst) return std::nullopt;
  return e->index.value();
}

// `offset` with `var` at 0, when `offset` advances by exactly one per step of `var`.
std::optional<arith::Expr> unit_stride_base(const arith::Expr& offset, const std::string& var) {
  arith::Expr v = arith::var(var);
  arith::Expr step = arith::substitute(offset, {{var, v + 1}}) - offset;
  if (step.kind() != arith::Kind::Cst || step.value() != 1) return std::nullopt;
  arith::Expr base = arith::substitute(offset, {{var, arith::Expr(0)}});
  for (const auto& name : arith::free_vars(base))
    if (name == var) return std::nullopt;
  return base;
}

// The names `stmts` declare (at any depth): its private and local arrays and variables.
void declared(const std::vector<c::Stmt>& stmts, std::set<std::string>& out) {
  for (const auto& s : stmts) {
    if (s->kind == StmtKind::Decl) out.insert(s->name);
    declared(s->body, out);
  }
}

// The vector store that replaces loop `s`, or nothing when `s` is not such a copy loop.
c::Stmt as_vector_store(const c::StmtNode& s, const std::set<std::string>& local_names) {
  if (s.kind != StmtKind::For || s.body.size() != 1) return nullptr;
  auto start = constant(s.start);
  auto step = constant(s.step);
  if (!start || *start != 0 || !step || *step != 1 || s.end.kind() != arith::Kind::Cst) return nullptr;
  std::int64_t n = s.end.value();
  if (n != 2 && n != 4 && n != 8 && n != 16) return nullptr;
  const c::StmtNode& store = *s.body[0];
  if (store.kind != StmtKind::Store || store.width != 1 || local_names.count(store.name)) return nullptr;
  const c::Expr& value = store.value;
  if (!value || value->kind != ExprKind::Load || value->width != 1 || value->text == store.name) return nullptr;
  if (value->type.kind() != ir::TypeKind::Scalar) return nullptr;
  auto to = unit_stride_base(store.offset, s.name);
  auto from = unit_stride_base(value->index, s.name);
  if (!to || !from) return nullptr;
  int width = static_cast<int>(n);
  ir::Type vector = ir::Type::vector(value->type.scalar_kind(), width);
  return c::store(store.name, *to, width, store.type, c::load(value->text, *from, width, vector));
}

std::vector<c::Stmt> rewrite(const std::vector<c::Stmt>& stmts, const std::set<std::string>& local_names) {
  std::vector<c::Stmt> out;
  for (const auto& s : stmts) {
    if (c::Stmt v = as_vector_store(*s, local_names)) {
      out.push_back(v);
      continue;
    }
    if (s->body.empty()) {
      out.push_back(s);
      continue;
    }
    c::StmtNode copy = *s;
    copy.body = rewrite(s->body, local_names);
    out.push_back(std::make_shared<const c::StmtNode>(std::move(copy)));
  }
  return out;
}

}  // namespace

c::Function vectorize_stores(const c::Function& f) {
  std::set<std::string> local_names;
  declared(f.body, local_names);
  c::Function out = f;
  out.body = rewrite(f.body, local_names);
  return out;
}

}  // namespace liftc::codegen
