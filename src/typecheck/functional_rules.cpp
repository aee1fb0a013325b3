// Rules of the primitives that take a function: the map family, the reduce family,
// toGlobal/toLocal/toPrivate and vectorize. Their lambdas are checked here, where the
// parameter types are known.

#include <fmt/format.h>

#include "checker.hpp"

namespace liftc::typecheck::detail {

using ir::Type;

namespace {

std::string str(const Type& t) { return ir::to_string(t); }

// mapWrg/mapLcl/mapGlb name an OpenCL dimension: 0, 1 or 2.
void check_dimension(Checker& c, const CallSite& site) {
  std::int64_t d = constant_size(c, site, 0, "dimension");
  if (d < 0 || d > 2) c.fail(site.call, fmt::format("{}: the dimension must be 0, 1 or 2, got {}", site.label, d));
}

// map(f, [T]n) : [U]n where f : T -> U.
Type map(Checker& c, CallSite& site) {
  if (site.call->prim != ir::Prim::Map && site.call->prim != ir::Prim::MapSeq) check_dimension(c, site);
  const Type& t = site.args[1].type();
  if (!t.is_array()) c.fail(site.call, fmt::format("{}: expected an array, got {}", site.label, str(t)));
  site.args[0] = c.check_function(site.args[0], {t.elem()}, site.label);
  return Type::array(site.args[0].type(), t.length());
}

// reduce(init : U, f : (U, T) -> U, [T]n) : [U]1.
Type reduce(Checker& c, CallSite& site) {
  const Type& acc = site.args[0].type();
  const Type& t = site.args[2].type();
  if (!t.is_array()) c.fail(site.call, fmt::format("{}: expected an array, got {}", site.label, str(t)));
  site.args[1] = c.check_function(site.args[1], {acc, t.elem()}, site.label);
  const Type& result = site.args[1].type();
  if (result != acc)
    c.fail(site.call, fmt::format("{}: the reducing function must return the accumulator type {}, got {}", site.label,
                                  str(acc), str(result)));
  return Type::array(acc, 1);
}

// toGlobal/toLocal/toPrivate(f, x) : the type of f(x).
Type to_memory(Checker& c, CallSite& site) {
  site.args[0] = c.check_function(site.args[0], {site.args[1].type()}, site.label);
  return site.args[0].type();
}

// The scalar version of a vector (or of each vector of a tuple) of `width` lanes.
std::optional<Type> narrow(const Type& t, int width) {
  if (t.is_vector()) return t.width() == width ? std::optional(Type::scalar(t.scalar_kind())) : std::nullopt;
  if (!t.is_tuple()) return std::nullopt;
  std::vector<Type> elems;
  for (const auto& e : t.elems()) {
    auto n = narrow(e, width);
    if (!n || n->is_tuple()) return std::nullopt;
    elems.push_back(*n);
  }
  return Type::tuple(std::move(elems));
}

// The vector version of a scalar (or of each scalar of a tuple) with `width` lanes.
std::optional<Type> widen(const Type& t, int width) {
  if (t.is_scalar()) return Type::vector(t.scalar_kind(), width);
  if (!t.is_tuple()) return std::nullopt;
  std::vector<Type> elems;
  for (const auto& e : t.elems()) {
    if (!e.is_scalar()) return std::nullopt;
    elems.push_back(Type::vector(e.scalar_kind(), width));
  }
  return Type::tuple(std::move(elems));
}

// vectorize(v, f, x): f is a scalar function applied lane-wise; x is a vector of v lanes
// (or a tuple of them); f is checked on the scalar versions and its result widened.
Type vectorize(Checker& c, CallSite& site) {
  std::int64_t width = constant_size(c, site, 0, "vector width");
  if (!valid_vector_width(width))
    c.fail(site.call, fmt::format("{}: the vector width must be 2, 3, 4, 8 or 16", site.label));
  int w = static_cast<int>(width);
  const Type& t = site.args[1].type();
  std::optional<Type> scalar = narrow(t, w);
  if (!scalar)
    c.fail(site.call, fmt::format("{}: expected a vector of {} lanes (or a tuple of them), got {}", site.label, w, str(t)));
  site.args[0] = c.check_function(site.args[0], {*scalar}, site.label);
  std::optional<Type> result = widen(site.args[0].type(), w);
  if (!result)
    c.fail(site.call, fmt::format("{}: the function must return a scalar (or a tuple of scalars), got {}", site.label,
                                  str(site.args[0].type())));
  return *result;
}

}  // namespace

Type check_functional(Checker& c, CallSite& site) {
  ir::Prim p = site.call->prim;
  if (ir::is_map(p)) return map(c, site);
  if (ir::is_reduce(p)) return reduce(c, site);
  if (p == ir::Prim::ToGlobal || p == ir::Prim::ToLocal || p == ir::Prim::ToPrivate) return to_memory(c, site);
  LIFTC_ASSERT(p == ir::Prim::Vectorize, "check_functional is called for primitives that take a function only");
  return vectorize(c, site);
}

}  // namespace liftc::typecheck::detail
