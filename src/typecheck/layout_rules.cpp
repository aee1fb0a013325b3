// Rules of the data-layout primitives: zip, concat, split, join, slide, pad, transpose, reorder,
// id, asVector, asScalar. They move data around without computing, so their rules are
// about lengths; the facts the lengths assume become obligations.

#include <fmt/format.h>

#include "checker.hpp"

namespace liftc::typecheck::detail {

using arith::Expr;
using ir::Type;
using Kind = Obligation::Kind;

namespace {

std::string str(const Type& t) { return ir::to_string(t); }
std::string str(const Expr& e) { return arith::to_string(e); }

// The operand at `index` as an array, or an error naming what was expected.
const Type& expect_array(Checker& c, const CallSite& site, std::size_t index) {
  const Type& t = site.args[index].type();
  if (!t.is_array()) c.fail(site.call, fmt::format("{}: expected an array, got {}", site.label, str(t)));
  return t;
}

// The operand at `index` as an array of arrays.
const Type& expect_array_2d(Checker& c, const CallSite& site, std::size_t index) {
  const Type& t = site.args[index].type();
  if (!t.is_array() || !t.elem().is_array())
    c.fail(site.call, fmt::format("{}: expected an array of arrays, got {}", site.label, str(t)));
  return t;
}

Type zip(Checker& c, CallSite& site) {
  std::vector<Type> elems;
  const Type& first = site.args[0].type();
  for (std::size_t i = 0; i < site.args.size(); ++i) {
    const Type& t = site.args[i].type();
    if (!t.is_array())
      c.fail(site.call, fmt::format("zip: operand {} must be an array, got {}", i + 1, str(t)));
    if (!c.same_length(t.length(), first.length()))
      c.fail(site.call, fmt::format("zip: arrays must have the same length, got {} and {}", str(first), str(t)));
    elems.push_back(t.elem());
  }
  return Type::array(Type::tuple(std::move(elems)), first.length());
}

// Whether two element types are the same, array lengths compared as the checker compares
// lengths (symbolically, or at the declared size values).
bool same_type(const Checker& c, const Type& a, const Type& b) {
  if (a.is_array() && b.is_array()) return c.same_length(a.length(), b.length()) && same_type(c, a.elem(), b.elem());
  if (a.is_tuple() && b.is_tuple()) {
    if (a.elems().size() != b.elems().size()) return false;
    for (std::size_t i = 0; i < a.elems().size(); ++i)
      if (!same_type(c, a.elems()[i], b.elems()[i])) return false;
    return true;
  }
  return a == b;
}

// concat(x1, ..., xk): arrays of one element type, one after another; the length is the sum.
Type concat(Checker& c, CallSite& site) {
  const Type& first = site.args[0].type();
  Expr length = 0;
  for (std::size_t i = 0; i < site.args.size(); ++i) {
    const Type& t = site.args[i].type();
    if (!t.is_array())
      c.fail(site.call, fmt::format("concat: operand {} must be an array, got {}", i + 1, str(t)));
    if (!same_type(c, t.elem(), first.elem()))
      c.fail(site.call, fmt::format("concat: the arrays must have one element type, got {} (operand 1) and {} (operand {})",
                                    str(first.elem()), str(t.elem()), i + 1));
    length = length + t.length();
  }
  return Type::array(first.elem(), length);
}

Type split(Checker& c, CallSite& site) {
  const Type& t = expect_array(c, site, 0);
  const Expr& m = site.call->sizes[0];
  const Expr& n = t.length();
  c.require(Kind::Positive, m, {}, fmt::format("the chunk size of {}", site.label), site.call,
            [&] { return fmt::format("{}: the chunk size must be at least 1", site.label); });
  c.require(Kind::Divides, n, m, fmt::format("{} of an array of length {}", site.label, str(n)), site.call,
            [&] { return fmt::format("{}: {} does not divide the array length {}", site.label, str(m), str(n)); });
  return Type::array(Type::array(t.elem(), m), c.simplest_length(n / m));
}

Type join(Checker& c, CallSite& site) {
  const Type& t = expect_array_2d(c, site, 0);
  // Joining m chunks of n/m gives n back where m divides n (the split that made them
  // requires it), so join(split(beta, x)) has x's length, not beta*(n/beta), in every later
  // type and in the constraints derived from them. Elsewhere (an input declared
  // [[float]4](N/4), N = 10) it is m*(n/m).
  const Expr& outer = t.length();
  const Expr& inner = t.elem().length();
  if (outer.kind() == arith::Kind::Div && outer.operands()[1] == inner && c.divides(outer.operands()[0], inner))
    return Type::array(t.elem().elem(), outer.operands()[0]);
  return Type::array(t.elem().elem(), c.simplest_length(inner * outer));
}

// How to make slide(size, step) cover a constant-length array `t` exactly: crop the
// elements after the last whole window (floor mode, as pooling layers do) or pad up to
// the next one (ceil mode).
std::string how_to_cover(const Type& t, const Expr& size, const Expr& step) {
  const Expr rest = t.length() - size;  // constant when this is asked: the obligation was decided
  std::int64_t s = *step.constant(), crop = ((*rest.constant() % s) + s) % s, grow = s - crop;
  Type base = ir::base_scalar(t.elem());
  std::string v = !base.defined() ? "v" : base.scalar_kind() == ir::ScalarKind::Float ? "0.0" : "0";
  std::string hint = fmt::format(
      "crop the last {} element{} first, slide({}, {}, pad(0, -{}, {}, x)) (floor mode), or pad {} more with a value v "
      "that leaves the result unchanged, slide({}, {}, pad(0, {}, v, x)) (ceil mode)",
      crop, crop == 1 ? "" : "s", str(size), s, crop, v, grow, str(size), s, grow);
  // The slide may be one of slide2D's (over an image's rows, or a row's values; the error
  // points at slide2D's call): its crop is then pad2D's, of the rows or of the columns.
  hint += fmt::format(
      "; in slide2D, with pad2D: pad2D(0, -{0}, 0, 0, {1}, x) crops the rows, pad2D(0, 0, 0, -{0}, "
      "{1}, x) the columns",
      crop, v);
  return hint;
}

// Slides are strict: the windows cover the array exactly, (n - size) % step == 0, so that
// tiling rewrites (slide = join of slides of tiles) preserve meaning.
Type slide(Checker& c, CallSite& site) {
  const Type& t = expect_array(c, site, 0);
  const Expr& size = site.call->sizes[0];
  const Expr& step = site.call->sizes[1];
  const Expr& n = t.length();
  c.require(Kind::Positive, size, {}, fmt::format("the window size of {}", site.label), site.call,
            [&] { return fmt::format("{}: the window size must be at least 1", site.label); });
  c.require(Kind::Positive, step, {}, fmt::format("the step of {}", site.label), site.call,
            [&] { return fmt::format("{}: the step must be at least 1", site.label); });
  c.require(Kind::NonNegative, n - size, {}, fmt::format("the window of {} fits an array of length {}", site.label, str(n)),
            site.call, [&] {
              return fmt::format("{}: the window size {} is larger than the array length {}", site.label, str(size),
                                 str(n));
            });
  c.require(Kind::Divides, n - size, step,
            fmt::format("{} is strict over an array of length {}", site.label, str(n)), site.call, [&] {
              return fmt::format("{}: the step {} does not divide {} (the array length {} minus the window size {}); "
                                 "slides must cover the array exactly: {}",
                                 site.label, str(step), str(n - size), str(n), str(size), how_to_cover(t, size, step));
            });
  return Type::array(Type::array(t.elem(), size), (n - size + step) / step);
}

// pad(l, r, v, x): negative amounts crop. The result must keep at least one element, and
// a side may not crop more than the array holds.
Type pad(Checker& c, CallSite& site) {
  const Type& t = expect_array(c, site, 1);
  const Type& v = site.args[0].type();
  const Type& elem = t.elem();
  Type scalar = elem.is_array() || elem.is_vector() ? ir::base_scalar(elem) : Type{};
  if (v != elem && !(scalar.defined() && v == scalar)) {
    std::string expected = scalar.defined() ? fmt::format("{} (or the element type {})", str(scalar), str(elem)) : str(elem);
    c.fail(site.call, fmt::format("{}: the padding value must have type {}, got {}", site.label, expected, str(v)));
  }
  const Expr& l = site.call->sizes[0];
  const Expr& r = site.call->sizes[1];
  const Expr& n = t.length();
  for (const Expr* side : {&l, &r}) {
    if (auto amount = side->constant(); amount && *amount < 0)
      c.require(Kind::NonNegative, n + *side, {}, fmt::format("{} crops at most the whole array", site.label),
                site.call, [&] {
                  return fmt::format("{}: cropping {} elements from an array of length {}", site.label, -*amount,
                                     str(n));
                });
  }
  Expr length = n + l + r;
  c.require(Kind::Positive, length, {}, fmt::format("{} leaves at least one element", site.label), site.call,
            [&] { return fmt::format("{}: the result length {} is not positive", site.label, str(length)); });
  return Type::array(elem, length);
}

Type transpose(Checker& c, CallSite& site) {
  const Type& t = expect_array_2d(c, site, 0);
  return Type::array(Type::array(t.elem().elem(), t.length()), t.elem().length());
}

Type reorder(Checker& c, CallSite& site) {
  const Type& t = expect_array(c, site, 0);
  const Expr& s = site.call->sizes[0];
  c.require(Kind::Positive, s, {}, fmt::format("the stride of {}", site.label), site.call,
            [&] { return fmt::format("{}: the stride must be at least 1", site.label); });
  c.require(Kind::Divides, t.length(), s, fmt::format("{} of an array of length {}", site.label, str(t.length())),
            site.call, [&] {
              return fmt::format("{}: the stride {} does not divide the array length {}", site.label, str(s),
                                 str(t.length()));
            });
  return t;
}

Type as_vector(Checker& c, CallSite& site) {
  const Type& t = site.args[0].type();
  if (!t.is_array() || !t.elem().is_scalar() || t.elem().scalar_kind() == ir::ScalarKind::Bool)
    c.fail(site.call, fmt::format("{}: expected an array of int or float scalars, got {}", site.label, str(t)));
  std::int64_t width = constant_size(c, site, 0, "vector width");
  if (!valid_vector_width(width))
    c.fail(site.call, fmt::format("{}: the vector width must be 2, 3, 4, 8 or 16", site.label));
  const Expr& n = t.length();
  c.require(Kind::Divides, n, width, fmt::format("{} of an array of length {}", site.label, str(n)), site.call,
            [&] { return fmt::format("{}: {} does not divide the array length {}", site.label, width, str(n)); });
  return Type::array(Type::vector(t.elem().scalar_kind(), static_cast<int>(width)), n / width);
}

Type as_scalar(Checker& c, CallSite& site) {
  const Type& t = site.args[0].type();
  if (!t.is_array() || !t.elem().is_vector())
    c.fail(site.call, fmt::format("{}: expected an array of vectors, got {}", site.label, str(t)));
  return Type::array(Type::scalar(t.elem().scalar_kind()), t.length() * t.elem().width());
}

}  // namespace

Type check_layout(Checker& c, CallSite& site) {
  switch (site.call->prim) {
    case ir::Prim::Zip: return zip(c, site);
    case ir::Prim::Concat: return concat(c, site);
    case ir::Prim::Split: return split(c, site);
    case ir::Prim::Join: return join(c, site);
    case ir::Prim::Slide: return slide(c, site);
    case ir::Prim::Pad: return pad(c, site);
    case ir::Prim::Transpose: return transpose(c, site);
    case ir::Prim::Reorder: return reorder(c, site);
    case ir::Prim::Id: return site.args[0].type();
    case ir::Prim::AsVector: return as_vector(c, site);
    case ir::Prim::AsScalar: return as_scalar(c, site);
    case ir::Prim::Map: case ir::Prim::Reduce: case ir::Prim::MapWrg: case ir::Prim::MapLcl:
    case ir::Prim::MapGlb: case ir::Prim::MapSeq: case ir::Prim::ReduceSeq: case ir::Prim::ToGlobal:
    case ir::Prim::ToLocal: case ir::Prim::ToPrivate: case ir::Prim::Vectorize: case ir::Prim::Dot:
    case ir::Prim::Array: LIFTC_SCALAR_BUILTIN_CASES
      break;
  }
  LIFTC_ASSERT(false, "check_layout is called for layout primitives only");
  return {};
}

}  // namespace liftc::typecheck::detail
