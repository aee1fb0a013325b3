// Thread counts of a kernel from its mapWrg/mapLcl/mapGlb structure (Lift's Table 1):
// mapWrg(d) over n groups with mapLcl(d) over m items gives local[d] = m, global[d] = n*m;
// mapGlb(d) over n items gives global[d] = n. Then fitted into a device's limits.

#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "lower.hpp"

namespace liftc::codegen::detail {

namespace {

// The largest of the iteration counts seen so far and `n`.
void widen(std::optional<arith::Expr>& slot, const arith::Expr& n) { slot = slot ? arith::max(*slot, n) : n; }

}  // namespace

bool only_moves_data(const ir::Expr& e) {
  switch (e.kind()) {
    case ir::ExprKind::Var: return true;
    case ir::ExprKind::Get: return only_moves_data(ir::get_tuple(e));
    case ir::ExprKind::Lambda: return only_moves_data(ir::lambda_body(e));
    case ir::ExprKind::Call: {
      bool moves = ir::is_layout(e->prim) || ir::is_map(e->prim) || e->prim == ir::Prim::ToGlobal ||
                   e->prim == ir::Prim::ToLocal || e->prim == ir::Prim::ToPrivate;
      if (!moves) return false;
      for (std::size_t i = 0; i < e->args.size(); ++i) {
        if (e->prim == ir::Prim::Pad && i == 0 && e->args[0].kind() == ir::ExprKind::Literal) continue;
        if (!only_moves_data(e->args[i])) return false;
      }
      return true;
    }
    case ir::ExprKind::Literal: case ir::ExprKind::Tuple: case ir::ExprKind::Apply: case ir::ExprKind::Let: return false;
  }
  return false;
}

bool contains_loops(const ir::Expr& e) {
  if (e.kind() == ir::ExprKind::Call && (ir::is_map(e->prim) || ir::is_reduce(e->prim))) return true;
  for (const auto& a : e->args)
    if (contains_loops(a)) return true;
  return false;
}

Threads kernel_threads(const ir::Expr& body) {
  // A mapLcl that only copies (into local memory, say) strides over the work-items that
  // the computing mapLcls of its dimension give; only where none computes does it size it.
  std::array<std::optional<arith::Expr>, 3> wrg, lcl, lcl_copy, glb;
  const ir::Expr* first_glb = nullptr;
  const ir::Expr* first_wg = nullptr;
  std::function<void(const ir::Expr&)> walk = [&](const ir::Expr& e) {
    if (e.kind() == ir::ExprKind::Call) {
      ir::Prim p = e->prim;
      if (p == ir::Prim::MapWrg || p == ir::Prim::MapLcl || p == ir::Prim::MapGlb) {
        auto d = e->sizes[0].constant();
        if (!d || *d < 0 || *d > 2)
          throw Error(fmt::format("{}: the dimension must be 0, 1 or 2, not {}", ir::signature(p).name,
                                  arith::to_string(e->sizes[0])),
                      e.loc());
        const arith::Expr& n = e->args[1].type().length();
        auto dim = static_cast<std::size_t>(*d);
        if (p == ir::Prim::MapWrg) widen(wrg[dim], n), first_wg = first_wg ? first_wg : &e;
        if (p == ir::Prim::MapLcl) widen(only_moves_data(e->args[0]) ? lcl_copy[dim] : lcl[dim], n), first_wg = first_wg ? first_wg : &e;
        if (p == ir::Prim::MapGlb) widen(glb[dim], n), first_glb = first_glb ? first_glb : &e;
      }
    }
    for (const auto& a : e->args) walk(a);
  };
  walk(body);
  if (first_glb && first_wg)
    throw Error("mapGlb cannot share a kernel with mapWrg/mapLcl: use one scheme per definition", first_glb->loc());

  Threads t;
  t.work_groups = first_wg != nullptr;
  for (std::size_t d = 0; d < 3; ++d) {
    if (!lcl[d]) lcl[d] = lcl_copy[d];
    if (wrg[d] || lcl[d] || glb[d]) t.dims = static_cast<int>(d) + 1;
    if (glb[d]) t.global[d] = *glb[d];
    if (lcl[d]) t.local[d] = *lcl[d];
    if (wrg[d]) t.groups[d] = *wrg[d];
  }
  if (t.work_groups)
    for (std::size_t d = 0; d < 3; ++d) t.global[d] = t.groups[d] * t.local[d];
  return t;
}

Threads copy_threads(const ir::Type& type) {
  Threads t;
  int levels = 0;
  for (ir::Type u = type; u.is_array() && levels < 3; u = u.elem()) t.global[static_cast<std::size_t>(levels++)] = u.length();
  std::reverse(t.global.begin(), t.global.begin() + levels);
  t.dims = std::max(levels, 1);
  return t;
}

}  // namespace liftc::codegen::detail

namespace liftc::codegen {

Threads fit_to_device(Threads t, const Options& options) {
  if (!t.work_groups) return t;
  // Fit the work-group into the device limits; the mapped loops then stride.
  for (std::size_t d = 0; d < 3; ++d) {
    auto limit = options.max_work_item_sizes[d];
    auto v = t.local[d].constant();
    if (limit > 0 && v && *v > limit) t.local[d] = limit;
  }
  if (options.max_work_group_size > 0) {
    auto product = [&] {
      std::int64_t p = 1;
      for (const auto& l : t.local) p *= l.constant().value_or(1);
      return p;
    };
    while (product() > options.max_work_group_size) {
      std::size_t big = 0;
      for (std::size_t d = 1; d < 3; ++d)
        if (t.local[d].constant().value_or(1) > t.local[big].constant().value_or(1)) big = d;
      t.local[big] = (t.local[big].constant().value_or(1) + 1) / 2;
    }
  }
  for (std::size_t d = 0; d < 3; ++d) t.global[d] = t.groups[d] * t.local[d];
  return t;
}

}  // namespace liftc::codegen
