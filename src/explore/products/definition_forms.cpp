// The forms of a definition that explore's splits and fusions look for (definition_forms.hpp).

#include "definition_forms.hpp"

#include <algorithm>

#include "liftc/arith/expr.hpp"
#include "liftc/ir/prim.hpp"
#include "liftc/rewrite/engine.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::explore::detail {

bool reduces(const ir::Expr& e) {
  if (e.kind() == ir::ExprKind::Call && e->prim == ir::Prim::Reduce) return true;
  return std::any_of(e->args.begin(), e->args.end(), reduces);
}

namespace {

// Whether `p` keeps values one to one: a scalar computation, or a map, zip, join, split or
// transpose (which keep each value, or move it, one for one).
bool one_to_one_prim(ir::Prim p) {
  switch (p) {
    LIFTC_SCALAR_BUILTIN_CASES
    case ir::Prim::Map:
    case ir::Prim::Zip:
    case ir::Prim::Join:
    case ir::Prim::Split:
    case ir::Prim::Transpose:  // a permutation (a channel-first add over a channel-last convolution)
      return true;
    case ir::Prim::Concat:  // its result holds more values than each operand
    case ir::Prim::Slide:
    case ir::Prim::Pad:
    case ir::Prim::Reorder:
    case ir::Prim::AsVector:
    case ir::Prim::AsScalar:
    case ir::Prim::Reduce:
    case ir::Prim::Id:
    case ir::Prim::Array:
    case ir::Prim::MapWrg:
    case ir::Prim::MapLcl:
    case ir::Prim::MapGlb:
    case ir::Prim::MapSeq:
    case ir::Prim::ReduceSeq:
    case ir::Prim::ToGlobal:
    case ir::Prim::ToLocal:
    case ir::Prim::ToPrivate:
    case ir::Prim::Vectorize:
    case ir::Prim::Dot:
      return false;
  }
  return false;
}

}  // namespace

bool element_wise(const ir::Expr& e) {
  if (e.kind() == ir::ExprKind::Call && !one_to_one_prim(e->prim)) return false;
  return std::all_of(e->args.begin(), e->args.end(), element_wise);
}

std::optional<std::int64_t> scalars(const ir::Type& t, const std::map<std::string, std::int64_t>& sizes) {
  switch (t.kind()) {
    case ir::TypeKind::Scalar:
      return 1;
    case ir::TypeKind::Vector:
      return t.width();
    case ir::TypeKind::Tuple: {
      std::int64_t n = 0;
      for (const auto& c : t.elems()) {
        std::optional<std::int64_t> k = scalars(c, sizes);
        if (!k) return std::nullopt;
        n += *k;
      }
      return n;
    }
    case ir::TypeKind::Array: {
      std::optional<std::int64_t> length = arith::evaluate(t.length(), sizes), each = scalars(t.elem(), sizes);
      if (!length || !each) return std::nullopt;
      return *length * *each;
    }
  }
  return std::nullopt;
}

void names_in(const ir::Expr& e, std::vector<std::string>& out) {
  if (e.kind() == ir::ExprKind::Var || e.kind() == ir::ExprKind::Let) out.push_back(e->name);
  if (e.kind() == ir::ExprKind::Lambda) out.insert(out.end(), e->params.begin(), e->params.end());
  for (const auto& a : e->args) names_in(a, out);
}

std::optional<ir::Program> normal_forms(const ir::Program& program, const rewrite::RuleSet* rules) {
  if (!rules || !rules->strategy("normal-form")) return std::nullopt;
  try {
    rewrite::ProgramRewrite r = rewrite::rewrite_program(*rules, "normal-form", program, {});
    if (!r.programs.empty()) return r.programs.front().program;
  } catch (const Error&) {
    // normal-form does not apply: the definitions as written only
  }
  return std::nullopt;
}

ir::Expr pooled_array(const ir::Expr& e, const std::map<std::string, std::int64_t>& sizes, bool overlapping) {
  auto call = [](const ir::Expr& x, ir::Prim p) { return x.kind() == ir::ExprKind::Call && x->prim == p; };
  auto lambda_of = [](const ir::Expr& f) { return f.kind() == ir::ExprKind::Lambda && f->params.size() == 1; };
  auto at_least_2 = [&](const arith::Expr& n) {
    std::optional<std::int64_t> v = arith::evaluate(n, sizes);
    return v && *v >= 2;
  };
  // A slide whose size is its step (any step, with `overlapping`), or a split: windows of two or more.
  auto non_overlapping = [&](const ir::Expr& x) {
    if (call(x, ir::Prim::Split)) return at_least_2(x->sizes[0]);
    if (!call(x, ir::Prim::Slide)) return false;
    std::optional<std::int64_t> size = arith::evaluate(x->sizes[0], sizes), step = arith::evaluate(x->sizes[1], sizes);
    return size && step && (*size == *step || overlapping) && *size >= 2;
  };
  if (!call(e, ir::Prim::Map) || !lambda_of(e->args[0])) return {};
  const ir::Expr& t = e->args[0]->args[0];
  if (!call(t, ir::Prim::Transpose) || t->args[0].kind() != ir::ExprKind::Var || t->args[0]->name != e->args[0]->params[0])
    return {};
  const ir::Expr& rows = e->args[1];
  if (!non_overlapping(rows)) return {};
  const ir::Expr& each = rows->args[0];
  if (!call(each, ir::Prim::Map) || !lambda_of(each->args[0])) return {};
  const ir::Expr& columns = each->args[0]->args[0];
  if (!non_overlapping(columns) || columns->prim != rows->prim || columns->args[0].kind() != ir::ExprKind::Var ||
      columns->args[0]->name != each->args[0]->params[0])
    return {};
  return each->args[1];
}

}  // namespace liftc::explore::detail
