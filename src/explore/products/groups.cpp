// A grouped convolution split into dense convolutions per group (groups.hpp).

#include "liftc/explore/products/groups.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "liftc/explore/candidates/constraint_space.hpp"
#include "liftc/explore/products/split_references.hpp"
#include "liftc/interp/interp.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/rewrite/engine.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace liftc::explore {

namespace {

bool is_call(const ir::Expr& e, ir::Prim p) { return e.defined() && e.kind() == ir::ExprKind::Call && e->prim == p; }

bool is_lambda(const ir::Expr& e, std::size_t params) {
  return e.defined() && e.kind() == ir::ExprKind::Lambda && e->params.size() == params;
}

ir::Expr map_of(const ir::Expr& f, const ir::Expr& x) { return ir::make_call(ir::Prim::Map, {}, {f, x}); }

// `x` cropped to elements from..from+count-1 of its `length` (a view: `pad` with negative amounts).
ir::Expr cropped(const ir::Expr& x, std::int64_t from, std::int64_t count, std::int64_t length) {
  return ir::make_call(ir::Prim::Pad, {arith::Expr(-from), arith::Expr(from + count - length)}, {ir::make_float(0.0), x});
}

// `e` with every projection of a tuple built in place, `(a, b, c).i`, replaced by its component.
ir::Expr projected(const ir::Expr& e) {
  std::vector<ir::Expr> args;
  bool changed = false;
  for (const auto& a : e->args) {
    args.push_back(projected(a));
    changed = changed || !same_node(args.back(), a);
  }
  ir::Expr out = changed ? ir::with_args(e, std::move(args)) : e;
  if (out.kind() == ir::ExprKind::Get && out->args[0].kind() == ir::ExprKind::Tuple)
    return out->args[0]->args.at(static_cast<std::size_t>(out->index));
  return out;
}

// A grouped convolution in normal form, its parts (all of the typed, size-bound body).
struct Grouped {
  ir::Expr per_group;  // F: the function of a group's (kernels, biases, window channels)
  ir::Expr kernels, biases;
  std::string window;   // the 2D map's parameter: a window
  ir::Expr windows;     // the windows of `image`
  std::string image;    // the one value the windows are of
  std::int64_t groups = 0, channels = 0;  // G, C/G
  int joins = 0;        // the joins of the groups' outputs (one: of the groups; more: of each group's too)
  // Written as a map over its groups (grouped_per_group.sr): `layout(map(row -> map(pix ->
  // map(F, zip(KW, KB, pix)), row), windows))`, each pixel of `windows` the G groups' windows.
  bool per_group_windows = false;
  ir::Expr body;          // the whole body (per_group_windows)
  ir::Expr maps;          // its 2D map over the pixels of the groups' windows, under the layout
  std::int64_t outputs = 0;  // each group's outputs per pixel (M/G)
};

// Sets g.kernels, g.biases, g.per_group from `groups_map`, `map(F, zip(KW, KB, ...))` (F of
// one parameter or three), KW and KB not reading `x`, and G from KW's type; false otherwise.
bool group_map(const ir::Expr& groups_map, const std::string& x, Grouped& g) {
  if (!is_call(groups_map, ir::Prim::Map)) return false;
  const ir::Expr& zipped = groups_map->args[1];
  if (!is_lambda(groups_map->args[0], 1) && !is_lambda(groups_map->args[0], 3)) return false;
  if (!is_call(zipped, ir::Prim::Zip) || zipped->args.size() != 3) return false;
  g.per_group = groups_map->args[0];
  g.kernels = zipped->args[0];
  g.biases = zipped->args[1];
  for (const ir::Expr& pairs : {g.kernels, g.biases}) {
    std::vector<std::string> names = ir::free_vars(pairs);
    if (std::find(names.begin(), names.end(), x) != names.end()) return false;
  }
  const ir::Type& kw = g.kernels.type();
  if (kw.kind() != ir::TypeKind::Array) return false;
  std::optional<std::int64_t> groups = kw.length().constant();
  if (!groups || *groups < 2) return false;
  g.groups = *groups;
  return true;
}

// The first 2D map (pre-order) under `e` over pixels of the groups' windows, `map(row ->
// map(pix -> map(F, zip(KW, KB, pix)), row), windows)`; undefined when there is none.
ir::Expr pixel_groups_map(const ir::Expr& e, Grouped& g) {
  if (ir::Expr f = ir::map2d_function(e); f.defined()) {
    const ir::Expr& groups_map = f->args[0];
    if (group_map(groups_map, f->params[0], g) && groups_map->args[1]->args[2].kind() == ir::ExprKind::Var &&
        groups_map->args[1]->args[2]->name == f->params[0])
      return e;
  }
  for (const auto& a : e->args)
    if (ir::Expr found = pixel_groups_map(a, g); found.defined()) return found;
  return {};
}

// The window sizes of the slides under `e`, slide(n, step, ...)'s n (pre-order), each a
// constant (the sizes are bound); none where one is not.
std::optional<std::vector<std::int64_t>> slide_sizes(const ir::Expr& e) {
  std::vector<std::int64_t> out;
  if (is_call(e, ir::Prim::Slide)) {
    std::optional<std::int64_t> n = e->sizes.empty() ? std::nullopt : e->sizes[0].constant();
    if (!n) return std::nullopt;
    out.push_back(*n);
  }
  for (const auto& a : e->args) {
    std::optional<std::vector<std::int64_t>> under = slide_sizes(a);
    if (!under) return std::nullopt;
    out.insert(out.end(), under->begin(), under->end());
  }
  return out;
}

// `body` as a grouped convolution written as a map over its groups (`g.per_group_windows`):
// only rearranging around a pixel_groups_map, each group's outputs per pixel an array.
std::optional<Grouped> per_group_form(const ir::Expr& body) {
  Grouped g;
  g.maps = pixel_groups_map(body, g);
  if (!g.maps.defined()) return std::nullopt;
  std::vector<std::string> avoid = ir::free_vars(body);
  if (!ir::only_rearranges(ir::replace_node(body, g.maps, ir::make_var(ir::fresh_name("groups", avoid))))) return std::nullopt;
  const ir::Type& t = g.maps.type();  // [rows][pixels][G][outputs of a group]
  if (t.kind() != ir::TypeKind::Array || t.elem().kind() != ir::TypeKind::Array ||
      t.elem().elem().kind() != ir::TypeKind::Array || t.elem().elem().elem().kind() != ir::TypeKind::Array)
    return std::nullopt;
  std::optional<std::int64_t> outputs = t.elem().elem().elem().length().constant();
  if (!outputs) return std::nullopt;
  // Each group's channels: its window's values over the K x K of the windows' two slides (a
  // window [K][K][C/G] of an HWC group or [C/G][K][K] of a CHW one, grouped_chw_kernel_by_kernel.sr);
  // without those slides, the innermost length of the window.
  ir::Expr f = ir::map2d_function(g.maps);
  ir::Type pixel = f->param_types.empty() ? ir::Type() : f->param_types[0];  // [G][a group's window]
  if (!pixel.is_array()) return std::nullopt;
  ir::Type window = pixel.elem();
  std::int64_t values = 1;
  for (; window.is_array(); window = window.elem()) {
    std::optional<std::int64_t> n = window.length().constant();
    if (!n) return std::nullopt;
    values *= *n;
    if (!window.elem().is_array()) break;
  }
  std::optional<std::int64_t> channels = window.is_array() ? window.length().constant() : std::optional<std::int64_t>();
  if (!channels) return std::nullopt;
  std::optional<std::vector<std::int64_t>> slides = slide_sizes(g.maps->args[1]);
  std::int64_t spatial = slides && slides->size() == 2 ? (*slides)[0] * (*slides)[1] : 0;
  g.channels = spatial > 0 && values % spatial == 0 ? values / spatial : *channels;
  g.per_group_windows = true;
  g.body = body;
  g.outputs = *outputs;
  g.window = ir::map2d_function(g.maps)->params[0];
  g.windows = g.maps->args[1];
  return g;
}

// `body` (typed, sizes bound) as a grouped convolution: `map(row -> map(x -> join(map(F,
// zip(KW, KB, transpose(map(transpose, map(r -> map(p -> split(n, p), r), x)))))), row),
// windows)` (or more joins: `join(join(map(F, ...)))` joins each group's output too), the
// windows of one value, KW and KB reading no window; else as per_group_form; none otherwise.
std::optional<Grouped> grouped_form(const ir::Expr& body) {
  ir::Expr per_window = ir::map2d_function(body);
  if (!per_window.defined()) return per_group_form(body);
  // The groups' outputs joined, and each group's joined as many times less one.
  Grouped g;
  ir::Expr groups_map = per_window->args[0];
  for (; is_call(groups_map, ir::Prim::Join); groups_map = groups_map->args[0]) ++g.joins;
  if (g.joins == 0 || !group_map(groups_map, per_window->params[0], g)) return per_group_form(body);
  const ir::Expr& zipped = groups_map->args[1];
  g.window = per_window->params[0];
  g.windows = body->args[1];
  std::vector<std::string> read = ir::free_vars(g.windows);
  if (read.size() != 1) return std::nullopt;
  g.image = read[0];
  // The window's pixels of C = G * n channels.
  // (A map over pixels, not windows, has no rows of pixels here: not this form.)
  const ir::Type win = per_window->param_types.empty() ? ir::Type() : per_window->param_types[0];
  if (!win.is_array() || !win.elem().is_array()) return std::nullopt;
  const ir::Type& pixel = win.elem().elem();
  if (!pixel.is_array() || !pixel.elem().is_scalar()) return std::nullopt;
  std::optional<std::int64_t> channels = pixel.length().constant();
  if (!channels || *channels % g.groups != 0) return std::nullopt;
  g.channels = *channels / g.groups;
  // Each group's window channels: the window's pixels split into the groups'.
  ir::Expr split_pixels = map_of(
      ir::make_lambda({"r"}, map_of(ir::make_lambda({"p"}, ir::make_call(ir::Prim::Split, {arith::Expr(g.channels)},
                                                                         {ir::make_var("p")})),
                                    ir::make_var("r"))),
      ir::make_var(g.window));
  ir::Expr expected = ir::make_call(
      ir::Prim::Transpose, {},
      {map_of(ir::make_lambda({"a"}, ir::make_call(ir::Prim::Transpose, {}, {ir::make_var("a")})), split_pixels)});
  if (!ir::alpha_equal(zipped->args[2], expected)) return std::nullopt;
  return g;
}

// Group `k`'s dense convolution of `g`: `map(row -> map(x -> F(KW_k, KB_k, x), row),
// windows of the image cropped to the group's channels)` (F's output joined once less than
// the groups' were); undefined when F of a group is
// not a map over (kernel, bias) pairs of its kernels and biases.
ir::Expr group_convolution(const Grouped& g, std::int64_t k, const std::vector<std::string>& avoid) {
  ir::Expr kernels = ir::make_call(ir::Prim::Join, {}, {cropped(g.kernels, k, 1, g.groups)});
  ir::Expr biases = ir::make_call(ir::Prim::Join, {}, {cropped(g.biases, k, 1, g.groups)});
  std::string x = ir::fresh_name("window", avoid);
  std::vector<ir::Expr> parts{kernels, biases, ir::make_var(x)};
  ir::Expr body;
  if (g.per_group->params.size() == 1) {
    body = projected(ir::substitute(g.per_group->args[0], {{g.per_group->params[0], ir::make_tuple(parts)}}));
  } else {
    std::vector<std::pair<std::string, ir::Expr>> bindings;
    for (std::size_t i = 0; i < 3; ++i) bindings.emplace_back(g.per_group->params[i], parts[i]);
    body = ir::substitute(g.per_group->args[0], bindings);
  }
  // A dense convolution's function of a window: a map over the zipped (kernel, bias) pairs.
  if (!is_call(body, ir::Prim::Map) || !is_call(body->args[1], ir::Prim::Zip) ||
      !ir::alpha_equal(body->args[1], ir::make_call(ir::Prim::Zip, {}, {kernels, biases})))
    return {};
  for (int j = 1; j < g.joins; ++j) body = ir::make_call(ir::Prim::Join, {}, {body});
  std::string r = ir::fresh_name("row", avoid);
  if (g.per_group_windows) {  // group k's windows: the k-th of each pixel's groups' windows (a view)
    ir::Expr windows = map_of(
        ir::make_lambda({"r"}, map_of(ir::make_lambda({"p"}, ir::make_call(ir::Prim::Join, {},
                                                                           {cropped(ir::make_var("p"), k, 1, g.groups)})),
                                      ir::make_var("r"))),
        g.windows);
    return map_of(ir::make_lambda({r}, map_of(ir::make_lambda({x}, body), ir::make_var(r))), windows);
  }
  std::int64_t c = g.channels * g.groups;
  ir::Expr pixels = map_of(
      ir::make_lambda({"r"}, map_of(ir::make_lambda({"p"}, cropped(ir::make_var("p"), k * g.channels, g.channels, c)),
                                    ir::make_var("r"))),
      ir::make_var(g.image));
  ir::Expr windows = ir::substitute(g.windows, {{g.image, pixels}});
  return map_of(ir::make_lambda({r}, map_of(ir::make_lambda({x}, body), ir::make_var(r))), windows);
}

// Each pixel of the parts' outputs concatenated: `map((r0, ...) -> map((p0, ...) ->
// concat(p0, ...), zip(r0, ...)), zip(part0, ...))`; with `split_by` the concatenation split
// back into the parts' (`split(n, concat(p0, ...))`).
ir::Expr concatenation(const std::vector<std::string>& parts, std::int64_t split_by = 0) {
  std::vector<std::string> rows, pixels;
  std::vector<ir::Expr> part_vars, row_vars, pixel_vars;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    rows.push_back(fmt::format("r{}", i));
    pixels.push_back(fmt::format("p{}", i));
    part_vars.push_back(ir::make_var(parts[i]));
    row_vars.push_back(ir::make_var(rows.back()));
    pixel_vars.push_back(ir::make_var(pixels.back()));
  }
  ir::Expr joined = ir::make_call(ir::Prim::Concat, {}, pixel_vars);
  if (split_by > 0) joined = ir::make_call(ir::Prim::Split, {arith::Expr(split_by)}, {joined});
  ir::Expr per_pixel = ir::make_lambda(pixels, joined);
  ir::Expr per_row = ir::make_lambda(rows, map_of(per_pixel, ir::make_call(ir::Prim::Zip, {}, row_vars)));
  return map_of(per_row, ir::make_call(ir::Prim::Zip, {}, part_vars));
}

// Definition `d` of `typed` as a one-definition program in normal form, typed, sizes bound;
// none where normal-form fails on it.
std::optional<ir::Program> normal_layer(const ir::Program& typed, std::size_t d, const rewrite::RuleSet& rules) {
  ir::Program layer;
  layer.sizes = typed.sizes;
  layer.source = typed.source;
  std::vector<std::string> reads = ir::free_vars(typed.defs[d].body);
  for (const auto& in : typed.inputs)
    if (std::find(reads.begin(), reads.end(), in.name) != reads.end()) layer.inputs.push_back(in);
  for (std::size_t e = 0; e < d; ++e)
    if (std::find(reads.begin(), reads.end(), typed.defs[e].name) != reads.end())
      layer.inputs.push_back({typed.defs[e].name, typed.defs[e].body.type(), typed.defs[e].loc});
  layer.defs.push_back(typed.defs[d]);
  try {
    if (rules.strategy("normal-form")) {
      rewrite::ProgramRewrite normal = rewrite::rewrite_program(rules, "normal-form", layer);
      if (!normal.programs.empty() && normal.unchanged.empty()) layer = normal.programs.front().program;
    }
    return typecheck::typecheck(ir::bind_sizes(layer, {})).program;
  } catch (const Error&) {
    return std::nullopt;  // normal-form applies nowhere, or the layer does not check at its sizes
  }
}

// Whether `e` joins, splits or transposes an array anywhere (a one-to-one reader that does none
// of these keeps each value at its index at every level: it only maps, zips and computes scalars).
bool moves_values(const ir::Expr& e) {
  if (is_call(e, ir::Prim::Join) || is_call(e, ir::Prim::Split) || is_call(e, ir::Prim::Transpose)) return true;
  return std::any_of(e->args.begin(), e->args.end(), moves_values);
}

// Each pixel of `x` cropped to channels k*n .. k*n + n - 1 of its m (a view).
ir::Expr group_channels(const ir::Expr& x, std::int64_t k, std::int64_t n, std::int64_t m) {
  return map_of(
      ir::make_lambda({"r"}, map_of(ir::make_lambda({"p"}, cropped(ir::make_var("p"), k * n, n, m)), ir::make_var("r"))),
      x);
}

// Sets out.epilogues and out.epilogue_splits (groups.hpp): each split grouped convolution of
// `program` in grouped.sr's form (`bodies` has its groups) whose one-to-one reader (one_to_one_fusions) keeps each
// value at its index (no join, split or transpose), reads besides it only values of its type, [H][W][M] scalars, and
// has that type too, that reader split into one definition per group, the reader over the group's dense convolution
// (`bodies`: each split's groups' definitions) and the other values' pixels cropped to the group's M/G channels. Group
// g's outputs are channels g*M/G .. (g+1)*M/G - 1 of each pixel (the concatenation of the groups' pixels is the
// convolution's pixel), and the reader computes each of its values from those at the same index alone, so the parts'
// concatenation is the reader's value (add_group_references checks it).
void split_epilogues(GroupedProgram& out, const ir::Program& program,
                     const std::map<std::string, std::vector<ir::Expr>>& bodies, std::vector<std::string>& avoid) {
  ir::Program typed = typecheck::typecheck(ir::bind_sizes(program, {})).program;
  auto type_of = [&](const std::string& name) {
    for (const auto& i : typed.inputs)
      if (i.name == name) return i.type;
    for (const auto& d : typed.defs)
      if (d.name == name) return d.body.type();
    return ir::Type();
  };
  ir::Program p = program;
  std::vector<GroupSplit> splits;
  for (const Fusion& f : one_to_one_fusions(program)) {
    auto s = std::find_if(out.splits.begin(), out.splits.end(), [&](const GroupSplit& g) { return g.definition == f.producer; });
    if (s == out.splits.end() || !bodies.count(f.producer)) continue;
    const ir::Type t = type_of(f.producer);  // [H][W][M]
    if (!t.is_array() || !t.elem().is_array() || !t.elem().elem().is_array() || !t.elem().elem().elem().is_scalar())
      continue;
    std::optional<std::int64_t> m = t.elem().elem().length().constant();
    auto consumer = std::find_if(typed.defs.begin(), typed.defs.end(), [&](const auto& d) { return d.name == f.consumer; });
    if (!m || *m % s->groups != 0 || !(consumer->body.type() == t) || moves_values(consumer->body)) continue;
    std::vector<std::string> others;
    bool alike = true;
    for (const auto& name : ir::free_vars(consumer->body)) {
      if (name == f.producer) continue;
      others.push_back(name);
      alike = alike && type_of(name) == t;
    }
    if (!alike) continue;
    ir::Program q = p;
    auto at = std::find_if(q.defs.begin(), q.defs.end(), [&](const auto& d) { return d.name == f.consumer; });
    GroupSplit split{f.consumer, s->groups, s->channels, {}, {}, f.producer};
    std::vector<ir::Definition> parts;
    std::vector<std::string> names = avoid;
    for (std::int64_t k = 0; k < s->groups; ++k) {
      std::vector<std::pair<std::string, ir::Expr>> bindings{{f.producer, bodies.at(f.producer).at(static_cast<std::size_t>(k))}};
      for (const auto& o : others) bindings.emplace_back(o, group_channels(ir::make_var(o), k, *m / s->groups, *m));
      std::string name = ir::fresh_name(fmt::format("{}_g{}", f.consumer, k), names);
      names.push_back(name);
      split.parts.push_back(name);
      parts.push_back({name, ir::substitute(at->body, bindings), at->loc});
    }
    ir::Definition joined{f.consumer, concatenation(split.parts), at->loc};
    at = q.defs.insert(q.defs.erase(at), parts.begin(), parts.end()) + static_cast<long>(parts.size());
    q.defs.insert(at, joined);
    std::erase_if(q.defs, [&](const ir::Definition& d) { return d.name == f.producer; });
    try {
      typecheck::typecheck(q);
    } catch (const Error&) {
      continue;  // not this form after all: the reader stays whole
    }
    // The parts stored as the network stores the reader (ir::Program::half); the convolution
    // has no buffer here, so its values are not rounded to halves before the reader's sum.
    if (program.half.count(f.consumer)) q.half.insert(split.parts.begin(), split.parts.end());
    q.half.erase(f.producer);
    avoid = std::move(names);
    p = std::move(q);
    splits.push_back(std::move(split));
  }
  if (splits.empty()) return;
  out.epilogues = std::move(p);
  out.epilogue_splits = std::move(splits);
}

}  // namespace

GroupedProgram split_groups(const ir::Program& program, const rewrite::RuleSet& rules) {
  GroupedProgram out;
  out.program = program;
  ir::Program typed = typecheck::typecheck(program).program;
  std::vector<std::string> avoid = ir::declared_names(program);
  out.program.defs.clear();
  std::map<std::string, std::vector<ir::Expr>> bodies;  // each split's groups' definitions
  for (std::size_t d = 0; d < typed.defs.size(); ++d) {
    const ir::Definition& def = program.defs[d];
    std::optional<ir::Program> layer = normal_layer(typed, d, rules);
    std::optional<Grouped> g = layer ? grouped_form(layer->defs.front().body) : std::nullopt;
    std::vector<ir::Definition> groups;
    GroupSplit split{def.name, g ? g->groups : 0, g ? g->channels : 0, {}, {}, {}};
    for (std::int64_t k = 0; g && k < g->groups; ++k) {
      std::vector<std::string> bound = avoid;
      for (const auto& n : ir::free_vars(layer->defs.front().body)) bound.push_back(n);
      ir::Expr body = group_convolution(*g, k, bound);
      if (!body.defined()) break;
      std::string name = ir::fresh_name(fmt::format("{}_g{}", def.name, k), avoid);
      avoid.push_back(name);
      split.parts.push_back(name);
      groups.push_back({name, body, def.loc});
    }
    if (!g || groups.size() != static_cast<std::size_t>(g->groups)) {
      out.program.defs.push_back(def);
      continue;
    }
    // (Written per group, its groups' outputs go back into the convolution's pixels through
    // its layout, in an order the epilogues do not follow: no epilogue split of it.)
    if (!g->per_group_windows)
      for (const auto& part : groups) bodies[def.name].push_back(part.body);
    out.program.defs.insert(out.program.defs.end(), groups.begin(), groups.end());
    // Stored as the network stores the grouped convolution (ir::Program::half): its groups'
    // values too, so each group writes halves where the convolution did.
    if (program.half.count(def.name)) out.program.half.insert(split.parts.begin(), split.parts.end());
    ir::Expr joined = g->per_group_windows ? ir::replace_node(g->body, g->maps, concatenation(split.parts, g->outputs))
                                           : concatenation(split.parts);
    out.program.defs.push_back({def.name, joined, def.loc});
    out.splits.push_back(std::move(split));
  }
  if (out.splits.empty()) return {program, {}, {}, {}, {}};
  typecheck::typecheck(out.program);  // an internal error, not the user's, if it does not check
  split_epilogues(out, program, bodies, avoid);
  // The concatenations later definitions read, read by them through a view.
  std::vector<std::pair<std::string, ir::Expr>> joined;
  for (auto& split : out.splits) {
    for (const auto& d : out.program.defs) {
      std::vector<std::string> reads = ir::free_vars(d.body);
      if (std::find(reads.begin(), reads.end(), split.definition) != reads.end()) split.readers.push_back(d.name);
    }
    if (split.readers.empty()) continue;
    auto def = std::find_if(out.program.defs.begin(), out.program.defs.end(),
                            [&](const ir::Definition& d) { return d.name == split.definition; });
    joined.emplace_back(split.definition, def->body);
  }
  if (joined.empty()) return out;
  out.read_through = out.program;
  out.read_through.defs.clear();
  for (const auto& d : out.program.defs) {
    if (std::any_of(joined.begin(), joined.end(), [&](const auto& j) { return j.first == d.name; })) continue;
    out.read_through.defs.push_back({d.name, ir::substitute(d.body, joined), d.loc});
  }
  typecheck::typecheck(out.read_through);
  return out;
}

namespace {

// The groups of split `s` differ only in what they crop: explored once, as the first.
void explore_groups_once(const GroupSplit& s, std::vector<Layer>& layers) {
  auto part = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find_if(layers.begin(), layers.end(), [&](const Layer& l) {
                                      return l.name == name && l.group_of == s.definition;
                                    }) - layers.begin());
  };
  std::size_t first = part(s.parts.front());
  for (std::size_t k = 1; k < s.parts.size(); ++k)
    if (std::size_t i = part(s.parts[k]); layers[i].same_as == i) layers[i].same_as = layers[first].same_as;
}

}  // namespace

std::vector<NetworkVariant> add_group_split_layers(const GroupedProgram& split, std::vector<Layer>& layers) {
  if (split.splits.empty()) return {};
  std::map<std::string, std::string> group_of;  // a split's definitions: the grouped convolution's name
  std::map<std::string, std::vector<std::string>> took;  // a reader's grouped convolutions read through
  for (const auto& s : split.splits) {
    group_of[s.definition] = s.definition;
    for (const auto& p : s.parts) group_of[p] = s.definition;
    for (const auto& r : s.readers) took[r].push_back(s.definition);
  }
  auto tag = [&](Layer& layer) {
    if (auto it = group_of.find(layer.name); it != group_of.end()) layer.group_of = it->second;
  };
  std::vector<NetworkVariant> out{add_variant_layers(split.program, layers, tag)};
  for (const auto& s : split.splits) explore_groups_once(s, layers);
  if (!split.read_through.defs.empty())
    out.push_back(add_variant_layers(split.read_through, layers, [&](Layer& layer) {
      tag(layer);
      auto it = took.find(layer.name);
      if (it == took.end()) return;
      layer.fused = it->second;
      // The grouped convolution whole fused one-to-one into this reader (add_fused_layers:
      // a residual add's `conv+block`) has its name and title but reads the convolution's
      // inputs: this one, which reads the groups, is titled after them (conv_g0+conv_g1+block).
      bool titled = std::any_of(layers.begin(), layers.end(), [&](const Layer& l) {
        return l.name == layer.name && l.fused == layer.fused && l.group_of == layer.group_of && l.reads != layer.reads;
      });
      if (!titled) return;
      layer.fused.clear();
      for (const auto& s : split.splits)
        if (std::find(it->second.begin(), it->second.end(), s.definition) != it->second.end())
          layer.fused.insert(layer.fused.end(), s.parts.begin(), s.parts.end());
    }));
  if (split.epilogue_splits.empty()) return out;
  std::map<std::string, const GroupSplit*> part_of;  // an epilogue split's definitions: the split
  for (const auto& s : split.epilogue_splits) {
    part_of[s.definition] = &s;
    for (const auto& p : s.parts) part_of[p] = &s;
  }
  out.push_back(add_variant_layers(split.epilogues, layers, [&](Layer& layer) {
    auto it = part_of.find(layer.name);
    if (it == part_of.end()) return;
    layer.group_of = it->second->definition;
    if (layer.name != it->second->definition) layer.fused = {it->second->fused};
  }));
  for (const auto& s : split.epilogue_splits) explore_groups_once(s, layers);
  return out;
}

constraints::Space group_space(const constraints::Space& explored, const Layer& layer, const rewrite::RuleSet& rules) {
  // A fallback lowering lowers the layer's normal form (fallback_form), as for the group explored.
  const bool lowering = std::find(std::begin(kFallbackStrategies), std::end(kFallbackStrategies), explored.strategy) !=
                        std::end(kFallbackStrategies);
  rewrite::ProgramRewrite r = rewrite::rewrite_program(
      rules, explored.strategy, lowering ? fallback_form(layer.program, rules) : layer.program, {});
  if (r.programs.size() != explored.alternatives)
    throw Error(fmt::format("group layer '{}': strategy {} gives {} alternatives, not the {} of the group explored in "
                            "its stead (an internal error: explore it with --whole-program)",
                            layer.name, explored.strategy, r.programs.size(), explored.alternatives));
  const rewrite::RewrittenProgram& p = r.programs[explored.alternative - 1];
  constraints::Space space = constraints::build_space(p.program, p.params, explored.target);
  space.strategy = explored.strategy;
  space.alternative = explored.alternative;
  space.alternatives = explored.alternatives;
  bool same = space.params.size() == explored.params.size();
  for (std::size_t i = 0; same && i < space.params.size(); ++i)
    same = space.params[i].name == explored.params[i].name ||
           (space.kernel_work_group_params.count(space.params[i].name) &&
            explored.kernel_work_group_params.count(explored.params[i].name));
  if (!same)
    throw Error(fmt::format("group layer '{}': strategy {} alternative {} has other parameters than the group explored "
                            "in its stead (an internal error: explore it with --whole-program)",
                            layer.name, explored.strategy, explored.alternative));
  return space;
}

void add_group_references(Problem& network, const GroupedProgram& split) {
  // The groups are made of the convolution's normal form, which may add a bias written after
  // the sum as the sum's start (bias-into-reduce): their concatenation is its value up to the
  // rounding of that order of additions.
  std::vector<SplitDefinition> definitions;
  for (const auto& s : split.splits)
    definitions.push_back({s.definition,
                           fmt::format("the grouped convolution '{}' split into its {} groups", s.definition, s.groups),
                           s.parts, true});
  add_split_references(network, split.program, definitions);
  std::vector<SplitDefinition> epilogues;
  for (const auto& s : split.epilogue_splits)
    epilogues.push_back({s.definition,
                         fmt::format("'{}' split by the {} groups of the grouped convolution '{}' it reads", s.definition,
                                     s.groups, s.fused),
                         s.parts});
  if (epilogues.empty()) return;
  // A grouped convolution the network stores as halves is rounded before its reader adds to
  // it, while each group's epilogue adds to its sums unrounded (no buffer between them): the
  // parts' concatenation is the reader's value up to that rounding. The split is checked where
  // it is exact, on floats (against the split program's value of the reader, its groups
  // checked above), and the parts' references are the epilogues' own values, rounded where
  // they are stored, which their kernels compute.
  bool rounded_apart = std::any_of(split.epilogue_splits.begin(), split.epilogue_splits.end(),
                                   [&](const GroupSplit& s) { return split.program.half.count(s.fused) > 0; });
  if (!rounded_apart) {
    add_split_references(network, split.epilogues, epilogues);
    return;
  }
  ir::Program floats = split.program, float_epilogues = split.epilogues;
  floats.half.clear();
  float_epilogues.half.clear();
  Problem checked = network;
  checked.reference = interp::evaluate(typecheck::typecheck(ir::bind_sizes(floats, {})).program, network.inputs);
  add_split_references(checked, float_epilogues, epilogues);
  interp::Tensors values =
      interp::evaluate(typecheck::typecheck(ir::bind_sizes(split.epilogues, {})).program, network.inputs);
  for (const auto& s : split.epilogue_splits)
    for (const auto& p : s.parts) network.reference[p] = values.at(p);
}

std::string group_splits_text(const GroupedProgram& split) {
  std::vector<std::string> out;
  for (const auto& s : split.splits)
    out.push_back(fmt::format("{} into {} groups ({}) of {} channels each", s.definition, s.groups,
                              fmt::join(s.parts, ", "), s.channels));
  for (const auto& s : split.epilogue_splits)
    out.push_back(fmt::format("{} fused into each of {}'s groups ({}), over their channels", s.definition, s.fused,
                              fmt::join(s.parts, ", ")));
  return fmt::format("{}", fmt::join(out, "; "));
}

}  // namespace liftc::explore
