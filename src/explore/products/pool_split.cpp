// A convolution and the pooling over it, written in one definition, split apart (pool_split.hpp).

#include "liftc/explore/products/pool_split.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "definition_forms.hpp"
#include "liftc/explore/products/split_references.hpp"
#include "liftc/ir/prim.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace liftc::explore {

namespace {

// Whether every free variable of `e` is one of `globals` (the inputs and earlier definitions).
bool reads_only(const ir::Expr& e, const std::vector<std::string>& globals) {
  std::vector<std::string> names = ir::free_vars(e);
  return std::all_of(names.begin(), names.end(), [&](const std::string& n) {
    return std::find(globals.begin(), globals.end(), n) != globals.end();
  });
}

// Whether `e` is a convolution of `globals`: a 2D map whose function reduces, reading nothing else.
bool convolution(const ir::Expr& e, const std::vector<std::string>& globals) {
  ir::Expr g = ir::map2d_function(e);
  return g.defined() && detail::reduces(g->args[0]) && reads_only(e, globals);
}

// The function g of `map(r -> join(map(g, r)), x)`, a 2D map whose rows' results are joined
// in the map over the rows (a convolution's plane with its one-element sums joined row by
// row); undefined when `e` is not that.
ir::Expr row_joined_function(const ir::Expr& e) {
  auto call = [](const ir::Expr& x, ir::Prim p) { return x.kind() == ir::ExprKind::Call && x->prim == p; };
  if (!call(e, ir::Prim::Map) || e->args[0].kind() != ir::ExprKind::Lambda || e->args[0]->params.size() != 1) return {};
  const ir::Expr& joined = e->args[0]->args[0];
  if (!call(joined, ir::Prim::Join) || !call(joined->args[0], ir::Prim::Map)) return {};
  const ir::Expr& row = joined->args[0]->args[1];
  if (row.kind() != ir::ExprKind::Var || row->name != e->args[0]->params[0]) return {};
  return joined->args[0]->args[0].kind() == ir::ExprKind::Lambda ? joined->args[0]->args[0] : ir::Expr{};
}

// Whether `e` holds a convolution of `globals`: a 2D map whose function reduces somewhere in
// it (a channel-first convolution's planes, `map((w, b) -> map2D(g, windows), ...)`, also with
// each row's results joined in the map over the rows, or its normal form, the channel-last
// convolution transposed), reading nothing else.
bool holds_convolution(const ir::Expr& e, const std::vector<std::string>& globals) {
  auto has = [](const auto& self, const ir::Expr& x) -> bool {
    if (ir::Expr g = ir::map2d_function(x); g.defined() && detail::reduces(g->args[0])) return true;
    if (ir::Expr g = row_joined_function(x); g.defined() && detail::reduces(g->args[0])) return true;
    return std::any_of(x->args.begin(), x->args.end(), [&](const ir::Expr& a) { return self(self, a); });
  };
  return has(has, e) && reads_only(e, globals);
}

// The array `e` pads or crops, `pad(a, b, v, x)` or `map(r -> pad(a, b, v, r), x)` (pad2D's
// two pads; negative amounts crop, as a floor-mode pooling's); undefined when `e` is neither.
ir::Expr padded(const ir::Expr& e) {
  auto call = [](const ir::Expr& x, ir::Prim p) { return x.kind() == ir::ExprKind::Call && x->prim == p; };
  if (call(e, ir::Prim::Pad)) return e->args[1];
  if (!call(e, ir::Prim::Map) || e->args[0].kind() != ir::ExprKind::Lambda || e->args[0]->params.size() != 1)
    return {};
  const ir::Expr& row = e->args[0]->args[0];
  if (!call(row, ir::Prim::Pad) || row->args[1].kind() != ir::ExprKind::Var || row->args[1]->name != e->args[0]->params[0])
    return {};
  return e->args[1];
}

// What split_poolings splits off `x`, the array a pooling's windows are of: `x` where it is a
// convolution of `globals` or holds one (its values combined element-wise with others after
// it: a residual add), or that of what a padding or a crop of `x` pads (the padding, a view,
// stays in the pooling: a floor-mode pooling's crop); undefined when none.
ir::Expr split_off(const ir::Expr& x, const std::vector<std::string>& globals) {
  if (convolution(x, globals)) return x;
  if (ir::Expr inner = padded(x); inner.defined()) return split_off(inner, globals);
  return holds_convolution(x, globals) ? x : ir::Expr{};
}

// Whether `e` is a lambda with a parameter `name`.
bool binds(const ir::Expr& e, const std::string& name) {
  return e.kind() == ir::ExprKind::Lambda && std::find(e->params.begin(), e->params.end(), name) != e->params.end();
}

// The first subterm (pre-order) of `e` that is a 2D map over the free variable `ww` whose
// function reduces, `map(r -> map(g, r), ww)` (a convolution's outputs of one pooling
// window); undefined when there is none. Nothing that rebinds `ww` is looked into.
ir::Expr window_outputs(const ir::Expr& e, const std::string& ww) {
  if (binds(e, ww)) return {};
  if (ir::Expr g = ir::map2d_function(e); g.defined()) {
    const ir::Expr& over = e->args[1];
    if (over.kind() == ir::ExprKind::Var && over->name == ww && detail::reduces(g->args[0])) return e;
  }
  for (std::size_t i = 0; i < e->args.size(); ++i) {
    if (e.kind() == ir::ExprKind::Let && i == 1 && e->name == ww) continue;  // the let's body sees another ww
    if (ir::Expr found = window_outputs(e->args[i], ww); found.defined()) return found;
  }
  return {};
}

// Whether `e` (a plane's function, its parameter `plane`) takes non-overlapping windows
// (detail::pooled_array) of the plane: of an array that reads the plane and nothing else
// (the plane, its values' one-element arrays joined, `map(join, plane)`). Nothing that
// rebinds `plane` is looked into.
bool pools_plane(const ir::Expr& e, const std::string& plane, const std::map<std::string, std::int64_t>& sizes,
                 bool overlapping) {
  if (binds(e, plane)) return false;
  if (ir::Expr a = detail::pooled_array(e, sizes, overlapping);
      a.defined() && ir::free_vars(a) == std::vector<std::string>{plane})
    return true;
  for (std::size_t i = 0; i < e->args.size(); ++i) {
    if (e.kind() == ir::ExprKind::Let && i == 1 && e->name == plane) continue;  // the let's body sees another plane
    if (pools_plane(e->args[i], plane, sizes, overlapping)) return true;
  }
  return false;
}

// Whether `e` takes non-overlapping windows of something anywhere (detail::pooled_array):
// only then may its normal form be a pooling of a convolution's output.
bool pools(const ir::Expr& e, const std::map<std::string, std::int64_t>& sizes) {
  if (detail::pooled_array(e, sizes).defined()) return true;
  return std::any_of(e->args.begin(), e->args.end(), [&](const ir::Expr& a) { return pools(a, sizes); });
}

// A definition split: the convolution's body and the pooling's body over `conv`.
struct Parts {
  ir::Expr convolution, layer;  // the layer: the pooling
  bool alone = true;  // `convolution` the convolution alone, not with values combined with its own after it
};

// `body` (typed) as a channel-first (CHW) convolution of `globals` pooled plane by plane,
// `map(pl -> F(pl), X)`, F pooling non-overlapping windows of its plane, X holding a
// convolution: X and `map(pl -> F(pl), conv)`; none when it is not that form.
std::optional<Parts> plane_pool_parts(const ir::Expr& body, const std::vector<std::string>& globals,
                                      const std::string& conv, const std::map<std::string, std::int64_t>& sizes) {
  if (body.kind() != ir::ExprKind::Call || body->prim != ir::Prim::Map) return std::nullopt;
  const ir::Expr& f = body->args[0];
  // Overlapping windows only where the plane's function reads nothing else (a pooling).
  if (f.kind() != ir::ExprKind::Lambda || f->params.size() != 1 ||
      !pools_plane(f->args[0], f->params[0], sizes, ir::free_vars(f).empty()))
    return std::nullopt;
  const ir::Expr& planes = body->args[1];
  if (!holds_convolution(planes, globals)) return std::nullopt;
  return Parts{planes, ir::with_args(body, {f, ir::make_var(conv)})};
}

// The first subterm (pre-order) of `e` whose windows a pooling takes (detail::pooled_array;
// with `overlapping`, windows of any step); undefined when there is none. Nothing that
// rebinds one of `params` is looked into.
ir::Expr first_pooled(const ir::Expr& e, const std::vector<std::string>& params,
                      const std::map<std::string, std::int64_t>& sizes, bool overlapping) {
  if (std::any_of(params.begin(), params.end(), [&](const std::string& p) { return binds(e, p); })) return {};
  if (ir::Expr a = detail::pooled_array(e, sizes, overlapping); a.defined()) return a;
  for (const ir::Expr& a : e->args)
    if (ir::Expr found = first_pooled(a, params, sizes, overlapping); found.defined()) return found;
  return {};
}

// `body` (typed) as a map whose function pools the windows of a convolution it computes from
// its element, `map((w, b) -> F(X(w, b)), zs)` (a channel-first convolution whose planes
// are pooled inside its map over (kernel, bias) pairs, each as it is made), X holding a
// convolution of `globals` and the element, F reading the element only through X:
// `map((w, b) -> X(w, b), zs)` and `map(pl -> F(pl), conv)`; none when it is not that form.
// Windows that overlap only where F reads nothing else (a pooling). `avoid`: every name of
// the program and of `body`.
std::optional<Parts> element_pool_parts(const ir::Expr& body, const std::vector<std::string>& globals,
                                        const std::string& conv, const std::vector<std::string>& avoid,
                                        const std::map<std::string, std::int64_t>& sizes) {
  if (body.kind() != ir::ExprKind::Call || body->prim != ir::Prim::Map) return std::nullopt;
  const ir::Expr& f = body->args[0];
  if (f.kind() != ir::ExprKind::Lambda) return std::nullopt;
  std::vector<std::string> scope = globals;
  scope.insert(scope.end(), f->params.begin(), f->params.end());
  std::string pl = ir::fresh_name("pl", avoid);
  for (bool overlapping : {false, true}) {
    ir::Expr x = first_pooled(f->args[0], f->params, sizes, overlapping);
    if (!x.defined() || !holds_convolution(x, scope)) continue;
    ir::Expr pooling = ir::replace_node(f->args[0], x, ir::make_var(pl));
    std::vector<std::string> reads = ir::free_vars(pooling);
    bool through_x = std::none_of(f->params.begin(), f->params.end(), [&](const std::string& p) {
      return std::find(reads.begin(), reads.end(), p) != reads.end();
    });
    if (!through_x || (overlapping && reads != std::vector<std::string>{pl})) continue;
    return Parts{ir::with_args(body, {ir::make_lambda(f->params, x), body->args[1]}),
                 ir::make_call(ir::Prim::Map, {}, {ir::make_lambda({pl}, pooling), ir::make_var(conv)})};
  }
  return std::nullopt;
}

// `body` (typed) as a convolution of `globals` and the pooling over it named `conv`; none
// when it is none of the forms. `avoid`: every name of the program and of `body`.
std::optional<Parts> pool_parts(const ir::Expr& body, const std::vector<std::string>& globals, const std::string& conv,
                                const std::vector<std::string>& avoid, const std::map<std::string, std::int64_t>& sizes) {
  // A name for rearranged data (the windows of a channel-first image, `let wins = ... in P`):
  // inlined where it is used, as normal-form's let-inline-layout does (a view costs nothing
  // repeated).
  if (body.kind() == ir::ExprKind::Let && ir::only_rearranges(body->args[0]))
    return pool_parts(ir::substitute(body->args[1], {{body->name, body->args[0]}}), globals, conv, avoid, sizes);
  // A view of such a pooling (a batch of one, `transpose(split(1, P))`: normal-form's form of
  // `map(img -> P(img), images)` with one image): the view stays on the pooling.
  if (body.kind() == ir::ExprKind::Call && body->args.size() == 1 &&
      (body->prim == ir::Prim::Transpose || body->prim == ir::Prim::Split || body->prim == ir::Prim::Join)) {
    std::optional<Parts> inner = pool_parts(body->args[0], globals, conv, avoid, sizes);
    if (inner) inner->layer = ir::with_args(body, {inner->layer});
    return inner;
  }
  // A map of transposes over such a pooling, `map(t -> transpose(t), P)` (with the transpose
  // above, normal-form's channel-first view of a pooling of a channel-last convolution's tiles,
  // pool-planes-of-channels-last's): the view stays on the pooling.
  if (body.kind() == ir::ExprKind::Call && body->prim == ir::Prim::Map &&
      body->args[0].kind() == ir::ExprKind::Lambda && body->args[0]->params.size() == 1) {
    const ir::Expr& t = body->args[0]->args[0];
    if (t.kind() == ir::ExprKind::Call && t->prim == ir::Prim::Transpose && t->args[0].kind() == ir::ExprKind::Var &&
        t->args[0]->name == body->args[0]->params[0]) {
      std::optional<Parts> inner = pool_parts(body->args[1], globals, conv, avoid, sizes);
      if (inner) inner->layer = ir::with_args(body, {body->args[0], inner->layer});
      return inner;
    }
  }
  // A pooling of planes or of the elements' convolutions (channel first), where the body is no 2D map of windows.
  auto channel_first = [&]() -> std::optional<Parts> {
    if (std::optional<Parts> planes = plane_pool_parts(body, globals, conv, sizes)) return planes;
    return element_pool_parts(body, globals, conv, avoid, sizes);
  };
  ir::Expr f = ir::map2d_function(body);
  if (!f.defined()) return channel_first();
  // Windows that overlap (each value in several) only where the function of a window reads
  // nothing else (a pooling, not a second convolution).
  bool overlapping = !detail::pooled_array(body->args[1], sizes).defined();
  ir::Expr pooled = detail::pooled_array(body->args[1], sizes, ir::free_vars(f).empty());
  if (!pooled.defined()) return channel_first();
  // As written: the pooling's windows of the convolution's output, or of its values combined
  // element-wise with others (a residual add, which split_residuals then splits off it), or
  // of a crop of either (pad2D with negative amounts, which stays in the pooling).
  if (ir::Expr part = split_off(pooled, globals); part.defined())
    return Parts{part, ir::replace_node(body, part, ir::make_var(conv)), convolution(part, globals)};
  if (overlapping) return std::nullopt;
  // The convolution's outputs computed inside each pooling window, `ww -> F(map2D(g, ww))`
  // over the windows of the convolution's windows: `map2D(g, windows)` and `pw -> F(pw)`.
  const std::string& ww = f->params[0];
  ir::Expr outputs = window_outputs(f->args[0], ww);
  if (!outputs.defined() || !reads_only(pooled, globals)) return std::nullopt;
  ir::Expr convolution_body = ir::make_call(ir::Prim::Map, {}, {outputs->args[0], pooled});
  if (!convolution(convolution_body, globals)) return std::nullopt;
  std::string pw = ir::fresh_name("pw", avoid);
  ir::Expr pool = ir::replace_node(f->args[0], outputs, ir::make_var(pw));
  std::vector<std::string> still = ir::free_vars(pool);
  if (std::find(still.begin(), still.end(), ww) != still.end()) return std::nullopt;  // F reads the window otherwise too
  ir::Expr rest = ir::replace_node(body, f, ir::make_lambda({pw}, pool));
  rest = ir::replace_node(rest, pooled, ir::make_var(conv));
  return Parts{convolution_body, rest};
}

}  // namespace

PooledProgram split_poolings(const ir::Program& program, const rewrite::RuleSet* rules) {
  PooledProgram out{program, {}};
  out.program = detail::split_definitions(
      program, rules,
      [](const ir::Expr& body, const std::string& conv, const std::vector<std::string>& bound,
         const detail::SplitSite& site) { return pool_parts(body, site.globals, conv, bound, site.sizes); },
      // Only a definition that pools somewhere may have a normal form that pools a convolution.
      [](const detail::SplitSite& site) { return pools(site.definition.body, site.sizes); },
      [](const Parts&, const ir::Program&) { return true; },
      [&](const detail::SplitSite& site, const std::string& conv, const Parts& parts, bool normal_form) {
        out.splits.push_back({site.definition.name, conv, normal_form, parts.alone});
      });
  return out;
}

void add_pool_split_references(Problem& network, const PooledProgram& split) {
  std::vector<SplitDefinition> definitions;
  for (const auto& s : split.splits)
    definitions.push_back(convolution_split(s.definition, s.convolution, s.normal_form, "the pooling over it"));
  add_split_references(network, split.program, definitions);
}

std::string pool_splits_text(const PooledProgram& split) {
  std::vector<std::string> out;
  for (const auto& s : split.splits)
    out.push_back(fmt::format("{} into {} ({}) and {} (its pooling)", s.definition, s.convolution,
                              s.convolution_alone ? "the convolution" : "the convolution and what follows it",
                              s.definition));
  return fmt::format("{}", fmt::join(out, "; "));
}

}  // namespace liftc::explore
