// A network's definitions as programs of their own (layers), and which have the same shape.

#include "liftc/explore/products/layers.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "definition_forms.hpp"
#include "liftc/ir/prim.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/rewrite/engine.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace liftc::explore {

namespace {

// The free variables of `e` in the order of their first use (pre-order), so that two
// layers of the same shape list what they read in the same order whatever the names.
void first_uses(const ir::Expr& e, std::vector<std::string>& bound, std::vector<std::string>& out) {
  switch (e.kind()) {
    case ir::ExprKind::Var:
      if (std::find(bound.begin(), bound.end(), e->name) == bound.end() &&
          std::find(out.begin(), out.end(), e->name) == out.end())
        out.push_back(e->name);
      return;
    case ir::ExprKind::Lambda:
      bound.insert(bound.end(), e->params.begin(), e->params.end());
      first_uses(e->args[0], bound, out);
      bound.resize(bound.size() - e->params.size());
      return;
    case ir::ExprKind::Let:
      first_uses(e->args[0], bound, out);
      bound.push_back(e->name);
      first_uses(e->args[1], bound, out);
      bound.pop_back();
      return;
    case ir::ExprKind::Literal:
    case ir::ExprKind::Apply:
    case ir::ExprKind::Call:
    case ir::ExprKind::Tuple:
    case ir::ExprKind::Get:
      for (const auto& a : e->args) first_uses(a, bound, out);
      return;
  }
}

// `body` reading `to` where it read `from` (simultaneously, capture-avoiding).
ir::Expr renamed(const ir::Expr& body, const std::vector<std::string>& from, const std::vector<std::string>& to) {
  std::vector<std::pair<std::string, ir::Expr>> bindings;
  for (std::size_t i = 0; i < from.size(); ++i)
    if (from[i] != to[i]) bindings.emplace_back(from[i], ir::make_var(to[i]));
  return bindings.empty() ? body : ir::substitute(body, bindings);
}

// Whether layer `b` has the shape of layer `a`, both with their sizes bound: the same
// body, reading values of the same types, each stored alike (as floats or as halves), and
// its definition stored alike.
bool same_shape(const Layer& a, const ir::Program& bound_a, const Layer& b, const ir::Program& bound_b) {
  if (a.reads.size() != b.reads.size()) return false;
  for (std::size_t i = 0; i < a.reads.size(); ++i)
    if (!(bound_a.inputs[i].type == bound_b.inputs[i].type) ||
        bound_a.half.count(a.reads[i]) != bound_b.half.count(b.reads[i]))
      return false;
  if (bound_a.half.count(a.name) != bound_b.half.count(b.name)) return false;
  return ir::alpha_equal(renamed(bound_b.defs[0].body, b.reads, a.reads), bound_a.defs[0].body);
}

}  // namespace

namespace {

// Whether `e` computes values (a reduction, arithmetic, a comparison, a math function)
// rather than only rearranging or copying them.
bool computes(const ir::Expr& e) {
  if (e.kind() == ir::ExprKind::Call) {
    ir::Prim p = e->prim;
    bool moves = ir::is_map(p) || ir::is_layout(p) || p == ir::Prim::Id || p == ir::Prim::ToGlobal ||
                 p == ir::Prim::ToLocal || p == ir::Prim::ToPrivate || p == ir::Prim::Vectorize;
    if (!moves) return true;
  }
  return std::any_of(e->args.begin(), e->args.end(), computes);
}

}  // namespace

bool is_network(const ir::Program& program) {
  return std::count_if(program.defs.begin(), program.defs.end(), [](const auto& d) { return computes(d.body); }) >= 2;
}

bool explored_by_layer(const ir::Program& program) {
  bool tuned = std::any_of(program.sizes.begin(), program.sizes.end(), [](const auto& s) { return !s.value && s.min; });
  return is_network(program) && !tuned;
}

namespace {

// Definition `d` of `typed` (a checked network) as a layer of its own; same_as its own index.
// What it reads and its definition are stored as the network stores them (ir::Program::half).
Layer layer_of(const ir::Program& typed, std::size_t d, std::size_t index) {
  const ir::Definition& def = typed.defs[d];
  Layer layer;
  layer.name = def.name;
  layer.program.sizes = typed.sizes;
  layer.program.source = typed.source;
  std::vector<std::string> bound_names;
  first_uses(def.body, bound_names, layer.reads);
  if (typed.half.count(def.name)) layer.program.half.insert(def.name);
  for (const auto& name : layer.reads) {
    if (typed.half.count(name)) layer.program.half.insert(name);
    auto input = std::find_if(typed.inputs.begin(), typed.inputs.end(), [&](const auto& i) { return i.name == name; });
    if (input != typed.inputs.end()) {
      layer.program.inputs.push_back(*input);
      continue;
    }
    auto earlier = std::find_if(typed.defs.begin(), typed.defs.begin() + static_cast<long>(d),
                                [&](const auto& e) { return e.name == name; });
    LIFTC_ASSERT(earlier != typed.defs.begin() + static_cast<long>(d),
                 "a checked definition reads only inputs and earlier definitions");
    layer.program.inputs.push_back({name, earlier->body.type(), earlier->loc});
  }
  layer.program.defs.push_back(def);
  layer.same_as = index;
  return layer;
}

// Sets `layers[i].same_as` to the first layer before it of its shape, among those alike in
// being fused or not (`bound`: each layer's program at the size values, i's appended here).
void find_shape(std::vector<Layer>& layers, std::vector<ir::Program>& bound, std::size_t i) {
  bound.push_back(ir::bind_sizes(layers[i].program, {}));
  for (std::size_t r = 0; r < i; ++r)
    if (layers[r].same_as == r && layers[r].fused.empty() == layers[i].fused.empty() &&
        same_shape(layers[r], bound[r], layers[i], bound[i])) {
      layers[i].same_as = r;
      return;
    }
}

}  // namespace

std::vector<Layer> split_layers(const ir::Program& network) {
  ir::Program typed = typecheck::typecheck(network).program;
  std::vector<Layer> layers;
  std::vector<ir::Program> bound;  // each layer's program at the size values, to compare shapes
  for (std::size_t d = 0; d < typed.defs.size(); ++d) {
    layers.push_back(layer_of(typed, d, d));
    find_shape(layers, bound, d);
  }
  return layers;
}

bool written_layer(const Layer& layer) { return layer.fused.empty() && layer.group_of.empty(); }

std::string layer_title(const Layer& layer) {
  if (layer.group_of == layer.name) return fmt::format("{} (its groups joined)", layer.name);
  if (layer.fused.empty()) return layer.name;
  return fmt::format("{}+{}", fmt::join(layer.fused, "+"), layer.name);
}

namespace {

// How often `e` reads the free variable `name`.
std::size_t reads_of(const ir::Expr& e, const std::string& name) {
  switch (e.kind()) {
    case ir::ExprKind::Var:
      return e->name == name ? 1 : 0;
    case ir::ExprKind::Lambda:
      if (std::find(e->params.begin(), e->params.end(), name) != e->params.end()) return 0;
      return reads_of(e->args[0], name);
    case ir::ExprKind::Let:
      return reads_of(e->args[0], name) + (e->name == name ? 0 : reads_of(e->args[1], name));
    case ir::ExprKind::Literal:
    case ir::ExprKind::Apply:
    case ir::ExprKind::Call:
    case ir::ExprKind::Tuple:
    case ir::ExprKind::Get:
      break;
  }
  std::size_t n = 0;
  for (const auto& a : e->args) n += reads_of(a, name);
  return n;
}

}  // namespace

std::vector<Fusion> one_to_one_fusions(const ir::Program& network) {
  ir::Program typed = typecheck::typecheck(network).program;
  std::map<std::string, std::int64_t> sizes = ir::size_values(typed);
  std::vector<Fusion> out;
  for (const auto& consumer : typed.defs) {
    if (!detail::element_wise(consumer.body)) continue;
    for (const auto& producer : typed.defs) {
      if (&producer == &consumer) break;  // only earlier definitions
      if (reads_of(consumer.body, producer.name) != 1) continue;
      bool read_elsewhere = std::any_of(typed.defs.begin(), typed.defs.end(), [&](const ir::Definition& d) {
        return &d != &consumer && reads_of(d.body, producer.name) != 0;
      });
      std::optional<std::int64_t> count = detail::scalars(consumer.body.type(), sizes);
      if (read_elsewhere || !count || count != detail::scalars(producer.body.type(), sizes)) continue;
      out.push_back({producer.name, consumer.name, FusionKind::OneToOne, {}});
      break;  // one producer per consumer: the first
    }
  }
  return out;
}

std::vector<Fusion> layout_fusions(const ir::Program& network) {
  ir::Program typed = typecheck::typecheck(network).program;
  std::map<std::string, std::int64_t> sizes = ir::size_values(typed);
  std::vector<Fusion> out;
  for (auto producer = typed.defs.begin(); producer != typed.defs.end(); ++producer) {
    if (!ir::only_rearranges(producer->body)) continue;
    // A permutation of one earlier definition's values (it reads that definition alone, no
    // input, and has as many values), or a concatenation of two or more earlier definitions'
    // values, each possibly rearranged or repeated (U-Net's upsampled decoder features beside
    // its encoder's skip): the reader reads the values where they are.
    std::vector<std::string> reads = ir::free_vars(producer->body);
    if (reads.empty()) continue;
    auto earlier = [&](const std::string& name) {
      return std::find_if(typed.defs.begin(), producer, [&](const ir::Definition& d) { return d.name == name; });
    };
    if (!std::all_of(reads.begin(), reads.end(), [&](const std::string& r) { return earlier(r) != producer; }))
      continue;
    if (reads.size() == 1) {
      std::optional<std::int64_t> count = detail::scalars(producer->body.type(), sizes);
      if (!count || count != detail::scalars(earlier(reads[0])->body.type(), sizes)) continue;
    }
    std::vector<const ir::Definition*> readers;
    bool once = true;
    for (const auto& d : typed.defs) {
      std::size_t n = reads_of(d.body, producer->name);
      if (n == 0) continue;
      readers.push_back(&d);
      once = once && n == 1;
    }
    if (readers.size() == 1 && once) out.push_back({producer->name, readers.front()->name, FusionKind::Layout, {}});
  }
  return out;
}

namespace {

using detail::reduces;

bool is_var(const ir::Expr& e, const std::string& name) { return e.kind() == ir::ExprKind::Var && e->name == name; }

// `transpose(x)`: x, else undefined.
ir::Expr transposed(const ir::Expr& e) {
  return e.kind() == ir::ExprKind::Call && e->prim == ir::Prim::Transpose ? e->args[0] : ir::Expr();
}

// `map(q -> transpose(q), x)`: x, else undefined.
ir::Expr rows_transposed(const ir::Expr& e) {
  if (e.kind() != ir::ExprKind::Call || e->prim != ir::Prim::Map) return {};
  const ir::Expr& f = e->args[0];
  if (f.kind() != ir::ExprKind::Lambda || f->params.size() != 1) return {};
  ir::Expr of = transposed(f->args[0]);
  return of.defined() && is_var(of, f->params[0]) ? e->args[1] : ir::Expr();
}

// `map(r -> map(p -> join(p), r), x)` (each pixel's one-element results joined): x, else undefined.
ir::Expr pixels_joined(const ir::Expr& e) {
  ir::Expr f = ir::map2d_function(e);
  if (!f.defined() || f->params.size() != 1) return {};
  const ir::Expr& body = f->args[0];
  bool joins = body.kind() == ir::ExprKind::Call && body->prim == ir::Prim::Join && is_var(body->args[0], f->params[0]);
  return joins ? e->args[1] : ir::Expr();
}

// The 2D map over windows of a depthwise layer's normal form: the form itself (an HWC
// output), or x of `transpose(map(q -> transpose(q), x))` (a channel-first depthwise layer,
// its HWC output brought back to CHW by depthwise-channel-first), where x may join each
// pixel's one-element results after the 2D map over windows (a channel-first layer written
// with its rows joined, joined-rows-into-pixels): then that map with the join in its
// function, `map(r -> map(win -> join(G(win)), r), windows)`; else undefined.
ir::Expr windows_map(const ir::Expr& form) {
  if (ir::map2d_function(form).defined()) return form;
  ir::Expr chw = transposed(form);
  ir::Expr hwc = chw.defined() ? rows_transposed(chw) : ir::Expr();
  if (!hwc.defined()) return {};
  if (ir::Expr windows = pixels_joined(hwc); windows.defined() && ir::map2d_function(windows).defined()) {
    const ir::Expr& g = ir::map2d_function(windows);
    std::vector<std::string> avoid = ir::free_vars(windows);
    avoid.insert(avoid.end(), g->params.begin(), g->params.end());
    std::string row = ir::fresh_name("row", avoid);
    ir::Expr joined = ir::make_lambda(g->params, ir::make_call(ir::Prim::Join, {}, {g->args[0]}));
    return ir::make_call(ir::Prim::Map, {},
                         {ir::make_lambda({row}, ir::make_call(ir::Prim::Map, {}, {joined, ir::make_var(row)})),
                          windows->args[1]});
  }
  return ir::map2d_function(hwc).defined() ? hwc : ir::Expr();
}

// Whether `e` is the pixels of `producer`'s output as a pointwise layer reads them: the
// output itself where it is HWC, `map(q -> transpose(q), transpose(producer))` (each pixel's
// channels) where it is CHW (`channel_first`).
bool pixels_of(const ir::Expr& e, const std::string& producer, bool channel_first) {
  if (!channel_first) return is_var(e, producer);
  ir::Expr rows = rows_transposed(e);
  ir::Expr chw = rows.defined() ? transposed(rows) : ir::Expr();
  return chw.defined() && is_var(chw, producer);
}

// The consumer's 2D map over the pixels of `producer` (`map2D(px -> B, pixels)`, B a
// reduction over the pixel, pixels as pixels_of says) where `e` reads `producer` once, at no
// place under a binder of a name in `keep` (the names the substituted producer reads);
// undefined when it reads it otherwise.
ir::Expr pixel_read(const ir::Expr& e, const std::string& producer, bool channel_first, const std::vector<std::string>& keep,
                    std::vector<std::string>& binders) {
  if (ir::Expr f = ir::map2d_function(e); f.defined() && pixels_of(e->args[1], producer, channel_first)) {
    bool captured = std::any_of(keep.begin(), keep.end(), [&](const std::string& n) {
      return std::find(binders.begin(), binders.end(), n) != binders.end();
    });
    return !captured && reduces(f->args[0]) && reads_of(f->args[0], producer) == 0 ? e : ir::Expr();
  }
  switch (e.kind()) {
    case ir::ExprKind::Var:
    case ir::ExprKind::Literal:
      return {};
    case ir::ExprKind::Lambda: {
      if (std::find(e->params.begin(), e->params.end(), producer) != e->params.end()) return {};
      binders.insert(binders.end(), e->params.begin(), e->params.end());
      ir::Expr found = pixel_read(e->args[0], producer, channel_first, keep, binders);
      binders.resize(binders.size() - e->params.size());
      return found;
    }
    case ir::ExprKind::Let: {
      if (ir::Expr found = pixel_read(e->args[0], producer, channel_first, keep, binders); found.defined()) return found;
      if (e->name == producer) return {};
      binders.push_back(e->name);
      ir::Expr found = pixel_read(e->args[1], producer, channel_first, keep, binders);
      binders.pop_back();
      return found;
    }
    case ir::ExprKind::Apply:
    case ir::ExprKind::Call:
    case ir::ExprKind::Tuple:
    case ir::ExprKind::Get:
      break;
  }
  for (const auto& a : e->args)
    if (ir::Expr found = pixel_read(a, producer, channel_first, keep, binders); found.defined()) return found;
  return {};
}

// The consumer's read of the pixels of `producer`, whose depthwise form is `producer_form`
// (a channel-first one when its 2D map over windows is inside transposes back to CHW).
ir::Expr pixel_read(const ir::Expr& consumer, const std::string& producer, const ir::Expr& producer_form) {
  std::vector<std::string> binders;
  bool channel_first = !same_node(windows_map(producer_form), producer_form);
  return pixel_read(consumer, producer, channel_first, ir::free_vars(producer_form), binders);
}

// Whether `consumer` reads the pixels of `producer` once as a pointwise layer does, the
// producer's output HWC or CHW (its depthwise form not yet asked).
bool reads_pixels(const ir::Expr& consumer, const std::string& producer) {
  std::vector<std::string> binders;
  return pixel_read(consumer, producer, false, {producer}, binders).defined() ||
         pixel_read(consumer, producer, true, {producer}, binders).defined();
}

// `e` with each join(split(1, x)) of the variable `x` read as x (the same values).
ir::Expr joined_splits_removed(const ir::Expr& e, const std::string& x) {
  if (e.kind() == ir::ExprKind::Call && e->prim == ir::Prim::Join && e->args[0].kind() == ir::ExprKind::Call &&
      e->args[0]->prim == ir::Prim::Split && e->args[0]->sizes[0].constant() == 1 && is_var(e->args[0]->args[0], x))
    return e->args[0]->args[0];
  std::vector<ir::Expr> args;
  bool changed = false;
  for (const auto& a : e->args) {
    args.push_back(joined_splits_removed(a, x));
    changed = changed || !same_node(args.back(), a);
  }
  return changed ? ir::with_args(e, std::move(args)) : e;
}

// `layer`'s definition in normal form when it is a depthwise convolution (rules' normal-form,
// then depthwise-channel-groups-form applies) and a 2D map over windows (windows_map: also
// inside the transposes back to CHW of a channel-first one) whose function of a window is
// a map over the channels' triples, joined or not; else undefined.
ir::Expr depthwise_form(const ir::Program& layer, const rewrite::RuleSet& rules) {
  if (!rules.strategy("normal-form") || !rules.strategy("depthwise-channel-groups-form")) return {};
  try {
    rewrite::ProgramRewrite normal = rewrite::rewrite_program(rules, "normal-form", layer);
    ir::Program p = normal.programs.empty() || !normal.unchanged.empty() ? layer : normal.programs.front().program;
    rewrite::ProgramRewrite dw = rewrite::rewrite_program(rules, "depthwise-channel-groups-form", p);
    if (dw.programs.empty() || !dw.unchanged.empty() || !dw.fallen_back.empty()) return {};
    const ir::Expr& body = p.defs.front().body;
    ir::Expr windows = windows_map(body);
    // The 2D map over the windows themselves: a pass over a depthwise convolution's output that
    // normal-form leaves outside it (a bias zipped per pixel) is a 2D map too, over the
    // convolution's pixels, which the fusion would take for windows.
    if (!windows.defined() || detail::reduces(windows->args[1])) return {};
    ir::Expr g = ir::map2d_function(windows)->args[0];
    if (g.kind() == ir::ExprKind::Call && g->prim == ir::Prim::Join) g = g->args[0];
    return g.kind() == ir::ExprKind::Call && g->prim == ir::Prim::Map ? body : ir::Expr();
  } catch (const Error&) {
    return {};  // the strategy applies nowhere: not a depthwise convolution
  }
}

// Whether `node` (a subterm of `e`) sits in the body of a function of `e`.
bool in_function_body(const ir::Expr& e, const ir::Expr& node, bool inside = false) {
  if (same_node(e, node)) return inside;
  inside = inside || e.kind() == ir::ExprKind::Lambda;
  return std::any_of(e->args.begin(), e->args.end(),
                     [&](const ir::Expr& a) { return in_function_body(a, node, inside); });
}

// A pointwise consumer (the definition alone, `layer`) rewritten by the rules'
// pointwise-pixels-outermost: written per output channel, map(w -> map2D(px -> .. w .. px,
// pixels), ws), or with each row's sums joined in the map over the rows, it reads each pixel
// inside its map over the kernels (or in no 2D map), and fused so it would compute the
// depthwise values once per kernel; the rewrite maps the kernels inside each pixel, a 2D map
// over the pixels. Undefined where the rules have no such strategy or it does not apply.
ir::Expr pixels_outermost_form(const ir::Program& layer, const rewrite::RuleSet& rules) {
  if (!rules.strategy("pointwise-pixels-outermost")) return {};
  try {
    rewrite::ProgramRewrite r = rewrite::rewrite_program(rules, "pointwise-pixels-outermost", layer);
    if (r.programs.empty() || !r.unchanged.empty()) return {};
    return typecheck::typecheck(r.programs.front().program).program.defs.front().body;
  } catch (const Error&) {
    return {};  // it applies nowhere: the body as written
  }
}

}  // namespace

std::vector<Fusion> depthwise_pointwise_fusions(const ir::Program& network, const rewrite::RuleSet& rules) {
  ir::Program typed = typecheck::typecheck(network).program;
  std::vector<Fusion> out;
  std::map<std::string, ir::Expr> forms;  // each producer's depthwise form, asked once
  for (const auto& consumer : typed.defs) {
    for (std::size_t d = 0; d < typed.defs.size() && &typed.defs[d] != &consumer; ++d) {
      const ir::Definition& producer = typed.defs[d];
      if (reads_of(consumer.body, producer.name) != 1) continue;
      bool read_elsewhere = std::any_of(typed.defs.begin(), typed.defs.end(), [&](const ir::Definition& e) {
        return &e != &consumer && reads_of(e.body, producer.name) != 0;
      });
      if (read_elsewhere) continue;
      // The consumer's shape first: the normal form is asked only of a producer it reads per
      // pixel, as written or with its kernels inside each pixel (pixels_outermost_form, asked
      // where the read as written is in a function or is none).
      std::size_t c = static_cast<std::size_t>(&consumer - typed.defs.data());
      std::optional<ir::Expr> rewritten;
      auto outermost = [&]() -> const ir::Expr& {
        if (!rewritten) rewritten = pixels_outermost_form(layer_of(typed, c, c).program, rules);
        return *rewritten;
      };
      if (!reads_pixels(consumer.body, producer.name) &&
          (!outermost().defined() || !reads_pixels(outermost(), producer.name)))
        continue;
      auto form = forms.find(producer.name);
      if (form == forms.end()) form = forms.emplace(producer.name, depthwise_form(layer_of(typed, d, d).program, rules)).first;
      if (!form->second.defined()) continue;
      ir::Expr read = pixel_read(consumer.body, producer.name, form->second);
      ir::Expr consumer_form;  // undefined: the body as written
      if (!read.defined() || in_function_body(consumer.body, read)) {
        ir::Expr better = outermost().defined() ? pixel_read(outermost(), producer.name, form->second) : ir::Expr();
        if (better.defined() && !in_function_body(outermost(), better))
          consumer_form = outermost();
        else if (!read.defined())
          continue;
      }
      out.push_back({producer.name, consumer.name, FusionKind::DepthwisePointwise, form->second, consumer_form});
      break;  // one producer per consumer: the first
    }
  }
  return out;
}

namespace {

// Whether `e` is non-overlapping windows (p x q, p, q >= 2) of the definition `producer`:
// slide2D's or tile2D's (detail::pooled_array).
bool pooling_windows(const ir::Expr& e, const std::string& producer, const std::map<std::string, std::int64_t>& sizes) {
  ir::Expr x = detail::pooled_array(e, sizes);
  return x.defined() && x.kind() == ir::ExprKind::Var && x->name == producer;
}

// Whether `body` (typed) pools the definition `producer`: a 2D map over its non-overlapping
// windows; or a map over it whose function is a 2D map over its element's (or a map over that
// 2D map's rows, a join of each row's one-element results, or a map over the windows' rows that
// joins each row's results): over a batch of one
// (NHWC with N = 1, the producer's one image; the batch-of-one rule of normal-form then takes
// both maps off, and conv-pool-form finds the fused map inside the batch's view) or over a
// channel-first image's planes (pool-planes-of-channels-last reads them as the pooling of the
// convolution's channel-last output); or such a view of a 2D map over its windows
// (`transpose(split(1, ...))`: the pooling that explore splits off a batch of one convolved
// and pooled in one definition). Only the shape: takes_conv_pool_form decides (a batch of
// more than one image is not fused).
bool pools(const ir::Expr& body, const std::string& producer, const std::map<std::string, std::int64_t>& sizes) {
  if (ir::map2d_function(body).defined()) return pooling_windows(body->args[1], producer, sizes);
  if (body.kind() == ir::ExprKind::Call && body->args.size() == 1 &&
      (body->prim == ir::Prim::Transpose || body->prim == ir::Prim::Split || body->prim == ir::Prim::Join))
    return pools(body->args[0], producer, sizes);
  if (body.kind() != ir::ExprKind::Call || body->prim != ir::Prim::Map) return false;
  const ir::Expr& f = body->args[0];
  // A map of transposes over such a pooling (transpose(map(transpose, P)): the pooling that
  // explore splits off the normal form of a channel-first pooling of a channel-first
  // convolution, over the channel-last convolution's tiles).
  if (f.kind() == ir::ExprKind::Lambda && f->params.size() == 1 && f->args[0].kind() == ir::ExprKind::Call &&
      f->args[0]->prim == ir::Prim::Transpose && f->args[0]->args[0].kind() == ir::ExprKind::Var &&
      f->args[0]->args[0]->name == f->params[0])
    return pools(body->args[1], producer, sizes);
  const ir::Expr& images = body->args[1];  // the batch or the planes
  if (f.kind() != ir::ExprKind::Lambda || f->params.size() != 1 || images.kind() != ir::ExprKind::Var ||
      images->name != producer)
    return false;
  // Each plane's pooling, also with its rows of one-element results joined, map(join, map2D(..))
  // or map(r -> join(map(g, r)), windows).
  ir::Expr each = f->args[0];
  if (!ir::map2d_function(each).defined() && each.kind() == ir::ExprKind::Call && each->prim == ir::Prim::Map) {
    const ir::Expr& row = each->args[0];
    bool rows_joined = row.kind() == ir::ExprKind::Lambda && row->params.size() == 1 &&
                       row->args[0].kind() == ir::ExprKind::Call && row->args[0]->prim == ir::Prim::Join &&
                       row->args[0]->args[0].kind() == ir::ExprKind::Call &&
                       row->args[0]->args[0]->prim == ir::Prim::Map;
    if (rows_joined) return pooling_windows(each->args[1], f->params[0], sizes);
    each = each->args[1];
  }
  return ir::map2d_function(each).defined() && pooling_windows(each->args[1], f->params[0], sizes);
}

// Whether the layer program `fused` (a pooling with a convolution substituted for what it
// pools) takes the fused form: after `normal-form`, `conv-pool-form` applies.
bool takes_conv_pool_form(const ir::Program& fused, const rewrite::RuleSet& rules) {
  if (!rules.strategy("normal-form") || !rules.strategy("conv-pool-form")) return false;
  try {
    rewrite::ProgramRewrite r = rewrite::rewrite_program(rules, "normal-form ; conv-pool-form", fused);
    return !r.programs.empty() && r.unchanged.empty() && r.fallen_back.empty();
  } catch (const Error&) {
    return false;  // the form applies nowhere: not a convolution's outputs pooled
  }
}

}  // namespace

std::vector<Fusion> conv_pool_fusions(const ir::Program& network, const rewrite::RuleSet& rules) {
  ir::Program typed = typecheck::typecheck(network).program;
  std::map<std::string, std::int64_t> sizes = ir::size_values(typed);
  std::vector<Fusion> out;
  for (std::size_t c = 0; c < typed.defs.size(); ++c) {
    const ir::Definition& consumer = typed.defs[c];
    // The consumer's shape first: the rules are asked only of a 2D map over non-overlapping
    // windows of a definition (or of its one image).
    for (std::size_t d = 0; d < c; ++d) {
      const ir::Definition& p = typed.defs[d];
      if (!pools(consumer.body, p.name, sizes) || reads_of(consumer.body, p.name) != 1) continue;
      bool read_elsewhere = std::any_of(typed.defs.begin(), typed.defs.end(), [&](const ir::Definition& e) {
        return &e != &consumer && reads_of(e.body, p.name) != 0;
      });
      if (read_elsewhere) break;
      Fusion fusion{p.name, consumer.name, FusionKind::ConvPool, {}};
      ir::Program fused = typecheck::typecheck(fuse(typed, fusion)).program;
      auto at = std::find_if(fused.defs.begin(), fused.defs.end(), [&](const auto& e) { return e.name == consumer.name; });
      if (takes_conv_pool_form(layer_of(fused, static_cast<std::size_t>(at - fused.defs.begin()), 0).program, rules))
        out.push_back(std::move(fusion));
      break;  // the one definition the consumer pools
    }
  }
  return out;
}

// A layout read through by its reader first (it moves no computation: a view), then the
// others.
std::vector<Fusion> layer_fusions(const ir::Program& network, const rewrite::RuleSet* rules) {
  std::vector<Fusion> out = layout_fusions(network);
  std::vector<Fusion> more = one_to_one_fusions(network);
  if (rules) {
    for (auto& f : depthwise_pointwise_fusions(network, *rules)) more.push_back(std::move(f));
    for (auto& f : conv_pool_fusions(network, *rules)) more.push_back(std::move(f));
  }
  for (auto& f : more) {
    // One producer per consumer; a layout its reader reads through takes in no producer (a
    // producer's computation followed by a permutation is no form the strategies take).
    bool taken = std::any_of(out.begin(), out.end(), [&](const Fusion& g) {
      return g.consumer == f.consumer || (g.kind == FusionKind::Layout && g.producer == f.consumer);
    });
    if (!taken) out.push_back(std::move(f));
  }
  return out;
}

namespace {

// `e`, of type `t` (a float or arrays of them), with each float rounded to the nearest half
// (roundHalf). A map's function rounds its result itself (one map, not a second over it).
ir::Expr rounded_to_half(const ir::Expr& e, const ir::Type& t) {
  LIFTC_ASSERT(t.defined(), "a fused depthwise layer's form is typed");
  if (t.is_scalar()) return ir::make_call(ir::Prim::RoundHalf, {}, {e});
  LIFTC_ASSERT(t.is_array(), "a depthwise layer's values are floats or arrays of them");
  if (e.kind() == ir::ExprKind::Call && e->prim == ir::Prim::Map && e->args[0].kind() == ir::ExprKind::Lambda &&
      e->args[0]->params.size() == 1) {
    const ir::Expr& f = e->args[0];
    return ir::with_args(e, {ir::make_lambda(f->params, rounded_to_half(f->args[0], f->args[0].type())), e->args[1]});
  }
  std::vector<std::string> avoid = ir::free_vars(e);
  std::string v = ir::fresh_name("value", avoid);
  return ir::make_call(ir::Prim::Map, {}, {ir::make_lambda({v}, rounded_to_half(ir::make_var(v), t.elem())), e});
}

// G, a depthwise layer's function of a window in normal form (a map over its channels'
// triples, joined or not), with each channel's value rounded to a half, as the network
// stores the depthwise layer's output under half storage: the rules' `d(w, b, c)` of
// each triple then ends in roundHalf (rules/depthwise_pointwise.rules).
ir::Expr channel_values_rounded_to_half(const ir::Expr& g) {
  if (g.kind() == ir::ExprKind::Call && g->prim == ir::Prim::Join)
    return ir::with_args(g, {channel_values_rounded_to_half(g->args[0])});
  LIFTC_ASSERT(g.kind() == ir::ExprKind::Call && g->prim == ir::Prim::Map && g->args[0].kind() == ir::ExprKind::Lambda,
               "a depthwise form's function of a window maps over the channels");
  const ir::Expr& f = g->args[0];
  return ir::with_args(g, {ir::make_lambda(f->params, rounded_to_half(f->args[0], f->args[0].type())), g->args[1]});
}

}  // namespace

ir::Program fuse(const ir::Program& network, const Fusion& f) {
  ir::Program out = network;
  auto producer = std::find_if(out.defs.begin(), out.defs.end(), [&](const auto& d) { return d.name == f.producer; });
  auto consumer = std::find_if(out.defs.begin(), out.defs.end(), [&](const auto& d) { return d.name == f.consumer; });
  LIFTC_ASSERT(producer != out.defs.end() && consumer != out.defs.end(), "a fusion names two definitions of the network");
  if (f.kind == FusionKind::OneToOne || f.kind == FusionKind::ConvPool || f.kind == FusionKind::Layout) {
    consumer->body = ir::substitute(consumer->body, {{f.producer, producer->body}});
  } else {
    if (f.consumer_form.defined()) consumer->body = f.consumer_form;
    ir::Expr read = pixel_read(consumer->body, f.producer, f.producer_form);
    LIFTC_ASSERT(read.defined(), "a depthwise-pointwise fusion's consumer reads the producer's pixels");
    ir::Expr windows = windows_map(f.producer_form);
    ir::Expr pixel_fn = ir::map2d_function(read), window_fn = ir::map2d_function(windows);
    const ir::Expr& b = pixel_fn->args[0];  // B, over the pixel
    const ir::Expr& g = window_fn->args[0];  // G, over the window
    // Names no free variable of B or G has: the rows', the window's, the pixel's.
    std::vector<std::string> avoid = ir::free_vars(pixel_fn);
    for (const auto& n : ir::free_vars(f.producer_form)) avoid.push_back(n);
    std::string row = ir::fresh_name("row", avoid);
    avoid.push_back(row);
    std::string win = ir::fresh_name("window", avoid);
    avoid.push_back(win);
    std::string px = ir::fresh_name(pixel_fn->params[0], avoid);
    // Under half storage the network rounds the depthwise values to halves before the
    // pointwise sums read them: the fused layer rounds them where it keeps them.
    ir::Expr g_win = ir::substitute(network.half.count(f.producer) ? channel_values_rounded_to_half(g) : g,
                                    {{window_fn->params[0], ir::make_var(win)}});
    ir::Expr b_px = ir::substitute(b, {{pixel_fn->params[0], ir::make_var(px)}});
    if (g.kind() != ir::ExprKind::Call || g->prim != ir::Prim::Join) {
      // Each channel's value a one-element array (depthwise.sr's and the channel-first form's
      // unjoined map over the triples): the pixel let joined, as the fused strategies keep it,
      // and B reading split(1, px), where it read join(px) px itself.
      g_win = ir::make_call(ir::Prim::Join, {}, {g_win});
      ir::Expr split = ir::make_call(ir::Prim::Split, {arith::Expr(1)}, {ir::make_var(px)});
      b_px = joined_splits_removed(ir::substitute(b, {{pixel_fn->params[0], split}}), px);
    }
    ir::Expr per_window = ir::make_lambda({win}, ir::make_let(px, g_win, b_px));
    ir::Expr rows = ir::make_lambda(
        {row}, ir::make_call(ir::Prim::Map, {}, {per_window, ir::make_var(row)}));
    consumer->body = ir::replace_node(consumer->body, read, ir::make_call(ir::Prim::Map, {}, {rows, windows->args[1]}));
  }
  out.half.erase(f.producer);  // no buffer of it
  out.defs.erase(producer);
  return out;
}

std::vector<NetworkVariant> add_fused_layers(const ir::Program& network, std::vector<Layer>& layers,
                                             const rewrite::RuleSet* rules) {
  std::vector<NetworkVariant> variants(1);
  for (std::size_t i = 0; i < layers.size(); ++i) variants[0].layers.push_back(i);
  std::vector<Fusion> each = layer_fusions(network, rules);
  std::vector<std::vector<Fusion>> plans;
  for (const auto& f : each) plans.push_back({f});
  // Every fusion, one after the other, each found on the program the ones before made: a fusion
  // may make another (a ReLU fused into a depthwise layer makes it the depthwise layer a
  // pointwise one reads), so this plan is made even where the program as written has one.
  std::vector<Fusion> all;
  ir::Program fused = network;
  for (auto next = layer_fusions(fused, rules); !next.empty(); next = layer_fusions(fused, rules)) {
    all.push_back(next.front());
    fused = fuse(fused, next.front());
  }
  if (all.size() > 1) plans.push_back(std::move(all));
  std::vector<ir::Program> bound;
  for (const auto& layer : layers) bound.push_back(ir::bind_sizes(layer.program, {}));
  for (const auto& plan : plans) {
    ir::Program p = network;
    std::map<std::string, std::vector<std::string>> into;  // what each consumer took in, in order
    for (const auto& f : plan) {
      p = fuse(p, f);
      std::vector<std::string>& taken = into[f.consumer];
      std::vector<std::string> before = into[f.producer];
      into.erase(f.producer);
      before.push_back(f.producer);
      taken.insert(taken.begin(), before.begin(), before.end());
    }
    ir::Program typed = typecheck::typecheck(p).program;
    NetworkVariant v;
    v.fusions = plan;
    for (std::size_t d = 0; d < typed.defs.size(); ++d) {
      Layer layer = layer_of(typed, d, layers.size());
      if (auto it = into.find(layer.name); it != into.end()) layer.fused = it->second;
      auto same = std::find_if(layers.begin(), layers.end(), [&](const Layer& l) {
        return l.name == layer.name && l.fused == layer.fused;
      });
      if (same == layers.end()) {
        layers.push_back(std::move(layer));
        find_shape(layers, bound, layers.size() - 1);
        same = layers.end() - 1;
      }
      v.layers.push_back(static_cast<std::size_t>(same - layers.begin()));
    }
    variants.push_back(std::move(v));
  }
  return variants;
}

NetworkVariant add_variant_layers(const ir::Program& program, std::vector<Layer>& layers,
                                  const std::function<void(Layer&)>& tag) {
  std::vector<ir::Program> bound;
  for (const auto& layer : layers) bound.push_back(ir::bind_sizes(layer.program, {}));
  ir::Program typed = typecheck::typecheck(program).program;
  NetworkVariant v;
  for (std::size_t d = 0; d < typed.defs.size(); ++d) {
    Layer layer = layer_of(typed, d, layers.size());
    tag(layer);
    auto same = std::find_if(layers.begin(), layers.end(), [&](const Layer& l) {
      return l.name == layer.name && l.fused == layer.fused && l.group_of == layer.group_of;
    });
    if (same == layers.end()) {
      layers.push_back(std::move(layer));
      find_shape(layers, bound, layers.size() - 1);
      same = layers.end() - 1;
    }
    v.layers.push_back(static_cast<std::size_t>(same - layers.begin()));
  }
  return v;
}

ir::Program rename_layer(const ir::Program& rewritten, const Layer& from, const Layer& to) {
  LIFTC_ASSERT(from.reads.size() == to.reads.size() && rewritten.defs.size() == 1,
               "a layer is renamed after one of its shape: one definition, as many inputs");
  ir::Program p = rewritten;
  for (auto& input : p.inputs) {
    auto it = std::find(from.reads.begin(), from.reads.end(), input.name);
    if (it != from.reads.end()) input.name = to.reads[static_cast<std::size_t>(it - from.reads.begin())];
  }
  p.defs[0].name = to.name;
  p.defs[0].body = renamed(p.defs[0].body, from.reads, to.reads);
  // Stored alike (same_shape): the same positions are halves under `to`'s names.
  p.half.clear();
  for (std::size_t i = 0; i < from.reads.size(); ++i)
    if (rewritten.half.count(from.reads[i])) p.half.insert(to.reads[i]);
  if (rewritten.half.count(from.name)) p.half.insert(to.name);
  return p;
}

Problem layer_problem(const Problem& network, const Layer& layer) {
  Problem p;
  // A fused layer's rows are its own: its title names what it took in.
  p.file = fmt::format("{}:{}", network.file, layer_title(layer));
  p.program_hash = hash_text(fmt::format("{}\nlayer {}", network.program_hash, layer_title(layer)));
  for (const auto& name : layer.reads) {
    if (auto input = network.inputs.find(name); input != network.inputs.end()) {
      p.inputs[name] = input->second;
      continue;
    }
    auto value = network.reference.find(name);
    if (value == network.reference.end())
      throw Error(fmt::format("{}: layer '{}' reads '{}', which has no value the interpreter gives (a tuple?); "
                              "explore the program whole (--whole-program)",
                              network.file, layer.name, name));
    p.inputs[name] = value->second;
  }
  auto out = network.reference.find(layer.name);
  if (out == network.reference.end())
    throw Error(fmt::format("{}: layer '{}' has no value the interpreter gives (a tuple?); explore the program whole "
                            "(--whole-program)",
                            network.file, layer.name));
  p.reference[layer.name] = out->second;
  p.shapes = shapes_text(p.inputs);
  p.reference_from_store = network.reference_from_store;
  return p;
}

}  // namespace liftc::explore
