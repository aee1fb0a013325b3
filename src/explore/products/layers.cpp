// A network's definitions as programs of their own (layers), and which have the same shape.

#include "liftc/explore/products/layers.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "liftc/ir/prim.hpp"
#include "liftc/ir/program.hpp"
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

// Whether layer `b` has the shape of layer `a`, both with their sizes bound.
bool same_shape(const Layer& a, const ir::Program& bound_a, const Layer& b, const ir::Program& bound_b) {
  if (a.reads.size() != b.reads.size()) return false;
  for (std::size_t i = 0; i < a.reads.size(); ++i)
    if (!(bound_a.inputs[i].type == bound_b.inputs[i].type)) return false;
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
Layer layer_of(const ir::Program& typed, std::size_t d, std::size_t index) {
  const ir::Definition& def = typed.defs[d];
  Layer layer;
  layer.name = def.name;
  layer.program.sizes = typed.sizes;
  layer.program.source = typed.source;
  std::vector<std::string> bound_names;
  first_uses(def.body, bound_names, layer.reads);
  for (const auto& name : layer.reads) {
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

std::string layer_title(const Layer& layer) {
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

// Whether `p` keeps values one to one: a scalar computation, or a map, zip, join or split
// (which keep each value where the consumer's element-wise function finds it).
bool one_to_one_prim(ir::Prim p) {
  switch (p) {
    LIFTC_SCALAR_BUILTIN_CASES
    case ir::Prim::Map:
    case ir::Prim::Zip:
    case ir::Prim::Join:
    case ir::Prim::Split:
      return true;
    case ir::Prim::Slide:
    case ir::Prim::Pad:
    case ir::Prim::Transpose:
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

bool element_wise(const ir::Expr& e) {
  if (e.kind() == ir::ExprKind::Call && !one_to_one_prim(e->prim)) return false;
  return std::all_of(e->args.begin(), e->args.end(), element_wise);
}

// The number of scalars of `t` at the size values `sizes` (none where a length has no value).
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

}  // namespace

std::vector<Fusion> one_to_one_fusions(const ir::Program& network) {
  ir::Program typed = typecheck::typecheck(network).program;
  std::map<std::string, std::int64_t> sizes = ir::size_values(typed);
  std::vector<Fusion> out;
  for (const auto& consumer : typed.defs) {
    if (!element_wise(consumer.body)) continue;
    for (const auto& producer : typed.defs) {
      if (&producer == &consumer) break;  // only earlier definitions
      if (reads_of(consumer.body, producer.name) != 1) continue;
      bool read_elsewhere = std::any_of(typed.defs.begin(), typed.defs.end(), [&](const ir::Definition& d) {
        return &d != &consumer && reads_of(d.body, producer.name) != 0;
      });
      std::optional<std::int64_t> count = scalars(consumer.body.type(), sizes);
      if (read_elsewhere || !count || count != scalars(producer.body.type(), sizes)) continue;
      out.push_back({producer.name, consumer.name});
      break;  // one producer per consumer: the first
    }
  }
  return out;
}

ir::Program fuse(const ir::Program& network, const Fusion& f) {
  ir::Program out = network;
  auto producer = std::find_if(out.defs.begin(), out.defs.end(), [&](const auto& d) { return d.name == f.producer; });
  auto consumer = std::find_if(out.defs.begin(), out.defs.end(), [&](const auto& d) { return d.name == f.consumer; });
  LIFTC_ASSERT(producer != out.defs.end() && consumer != out.defs.end(), "a fusion names two definitions of the network");
  consumer->body = ir::substitute(consumer->body, {{f.producer, producer->body}});
  out.defs.erase(producer);
  return out;
}

std::vector<NetworkVariant> add_fused_layers(const ir::Program& network, std::vector<Layer>& layers) {
  std::vector<NetworkVariant> variants(1);
  for (std::size_t i = 0; i < layers.size(); ++i) variants[0].layers.push_back(i);
  std::vector<Fusion> each = one_to_one_fusions(network);
  std::vector<std::vector<Fusion>> plans;
  for (const auto& f : each) plans.push_back({f});
  if (each.size() > 1) {
    std::vector<Fusion> all;
    ir::Program p = network;
    for (auto next = one_to_one_fusions(p); !next.empty(); next = one_to_one_fusions(p)) {
      all.push_back(next.front());
      p = fuse(p, next.front());
    }
    plans.push_back(std::move(all));
  }
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
