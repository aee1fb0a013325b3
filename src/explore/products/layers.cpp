// A network's definitions as programs of their own (layers), and which have the same shape.

#include "liftc/explore/products/layers.hpp"

#include <algorithm>

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

std::vector<Layer> split_layers(const ir::Program& network) {
  ir::Program typed = typecheck::typecheck(network).program;
  std::vector<Layer> layers;
  std::vector<ir::Program> bound;  // each layer's program at the size values, to compare shapes
  for (std::size_t d = 0; d < typed.defs.size(); ++d) {
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
    bound.push_back(ir::bind_sizes(layer.program, {}));
    layer.same_as = d;
    for (std::size_t r = 0; r < layers.size(); ++r)
      if (layers[r].same_as == r && same_shape(layers[r], bound[r], layer, bound.back())) {
        layer.same_as = r;
        break;
      }
    layers.push_back(std::move(layer));
  }
  return layers;
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
  p.file = fmt::format("{}:{}", network.file, layer.name);
  p.program_hash = hash_text(fmt::format("{}\nlayer {}", network.program_hash, layer.name));
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
