// Lowering of expressions: variables, literals, let, tuples, application, the data-layout
// primitives (views) and the scalar builtins. Loops live in lower_loops.cpp.

#include "lower.hpp"

#include <fmt/format.h>

#include "liftc/support/diagnostic.hpp"
#include "opencl_functions.hpp"

namespace liftc::codegen::detail {

namespace {

// The C type of a builtin's result: the node's scalar kind, widened to the widest vector
// operand (vectorize checks its function on scalars and applies it to vectors).
ir::Type result_type(const ir::Expr& e, const std::vector<c::Expr>& args) {
  ir::Type t = e.type();
  if (!t.is_scalar()) return t;
  for (const auto& a : args)
    if (a->type.is_vector()) return ir::Type::vector(t.scalar_kind(), a->type.width());
  return t;
}

c::Expr dot(const c::Expr& a, const c::Expr& b) {
  int w = a->type.is_vector() ? a->type.width() : 1;
  if (w <= 4) return c::call("dot", {a, b}, ir::Type::float_());
  c::Expr sum;
  for (int k = 0; k < w; ++k) {
    c::Expr p = c::binary("*", c::lane(a, k), c::lane(b, k), ir::Type::float_());
    sum = sum ? c::binary("+", sum, p, ir::Type::float_()) : p;
  }
  return sum;
}

}  // namespace

KernelBuilder::KernelBuilder(std::string kernel, const Options& options, Threads threads, bool copy)
    : kernel_(std::move(kernel)), options_(options), threads_(std::move(threads)), copy_(copy) {}

std::string KernelBuilder::fresh(const std::string& base) { return fmt::format("{}_{}", base, counter_++); }

Result KernelBuilder::compile(const ir::Expr& e, const Scope& s, const std::optional<View>& dest) {
  switch (e.kind()) {
    case ir::ExprKind::Var: {
      auto it = s.env.find(e->name);
      LIFTC_ASSERT(it != s.env.end(), fmt::format("'{}' is bound (type checking resolves names)", e->name));
      return {it->second, false};
    }
    case ir::ExprKind::Literal:
      if (e->literal.kind == ir::ScalarKind::Float) return {value_view(c::float_lit(e->literal.f)), false};
      return {value_view(c::int_lit(e->literal.i)), false};
    case ir::ExprKind::Lambda:
      LIFTC_ASSERT(false, "the kernel plan refuses a function used as a value (scan_kernel)");
      return {};
    case ir::ExprKind::Apply: {
      std::vector<View> args;
      for (std::size_t i = 1; i < e->args.size(); ++i) args.push_back(compile(e->args[i], s, std::nullopt).view);
      return apply(e->args[0], args, s, dest);
    }
    case ir::ExprKind::Tuple: {
      std::vector<View> parts;
      for (const auto& a : e->args) parts.push_back(compile(a, s, std::nullopt).view);
      return {tuple(std::move(parts)), false};
    }
    case ir::ExprKind::Get:
      return {get(compile(ir::get_tuple(e), s, std::nullopt).view, e->index), false};
    case ir::ExprKind::Let:
      return compile_let(e, s, dest);
    case ir::ExprKind::Call:
      return compile_call(e, s, dest);
  }
  LIFTC_ASSERT(false, "every expression kind is lowered");
  return {};
}

Result KernelBuilder::apply(const ir::Expr& lambda, const std::vector<View>& args, const Scope& s,
                            const std::optional<View>& dest) {
  LIFTC_ASSERT(lambda.kind() == ir::ExprKind::Lambda, "only lambdas are applied");
  Scope inner = s;
  const auto& params = lambda->params;
  if (params.size() == args.size()) {
    for (std::size_t i = 0; i < params.size(); ++i) inner.env[params[i]] = args[i];
  } else {
    LIFTC_ASSERT(args.size() == 1 && args[0].type().is_tuple(), "a lambda of k parameters destructures a k-tuple");
    for (std::size_t i = 0; i < params.size(); ++i) inner.env[params[i]] = get(args[0], static_cast<int>(i));
  }
  return compile(ir::lambda_body(lambda), inner, dest);
}

Result KernelBuilder::compile_let(const ir::Expr& e, const Scope& s, const std::optional<View>& dest) {
  View value = compile(ir::let_value(e), s, std::nullopt).view;
  // A computed value is evaluated once into private variables and reused.
  bool computed = is_value(value) && !(value.kind() == ViewKind::Value && (value->value->kind == c::ExprKind::Literal ||
                                                                            value->value->kind == c::ExprKind::Name ||
                                                                            value->value->kind == c::ExprKind::Index));
  if (computed) value = variables(value, e->name);
  Scope inner = s;
  inner.env[e->name] = value;
  return compile(ir::let_body(e), inner, dest);
}

View KernelBuilder::variables(const View& init, const std::string& hint) {
  if (init.type().is_tuple()) {
    std::vector<View> parts;
    for (std::size_t i = 0; i < init.type().elems().size(); ++i) parts.push_back(variables(get(init, static_cast<int>(i)), hint));
    return tuple(std::move(parts));
  }
  auto m = std::make_shared<Memory>();
  m->name = fresh(hint);
  m->space = AddressSpace::Private;
  m->type = init.type();
  m->variable = true;
  c::Expr v = read(init);
  emit(c::decl(m->name, v->type, AddressSpace::Private, std::nullopt, v));
  Buffer b;
  b.name = m->name;
  b.space = AddressSpace::Private;
  b.role = BufferRole::Private;
  b.scalar = m->type.scalar_kind();
  b.elements = scalar_count(m->type);
  b.bytes = b.elements * 4;
  b.kernel = kernel_;
  b.variable = true;
  allocations_.push_back(b);
  return mem_view(m);
}

View KernelBuilder::constant_array(const ir::Expr& e) {
  std::optional<std::vector<double>> values = ir::constant_array_values(e);
  LIFTC_ASSERT(values.has_value(), "type checking admits only constant arrays of literals");
  auto key = std::make_pair(ir::to_string(e.type()), *values);
  if (auto it = constants_.find(key); it != constants_.end()) return it->second;
  auto m = std::make_shared<Memory>();
  m->name = fresh("constants");
  m->space = AddressSpace::Constant;
  m->type = e.type();
  start_decls_.push_back(c::constant_array(m->name, element_type(e.type()), *values));
  View v = mem_view(m);
  constants_.emplace(std::move(key), v);
  return v;
}

Result KernelBuilder::compile_call(const ir::Expr& e, const Scope& s, const std::optional<View>& dest) {
  ir::Prim p = e->prim;
  if (ir::is_layout(p)) return compile_layout(e, s, dest);
  switch (p) {
    case ir::Prim::Map: {
      // A map that only rearranges data is a view; written through, its source writes
      // into the transformed dest.
      std::optional<View> source_dest = dest ? operand_dest(e, *dest) : std::nullopt;
      Result r = compile(e->args[1], s, source_dest);
      if (r.in_dest) return {*dest, true};
      return {pure_map(e, r.view, s), false};
    }
    case ir::Prim::Reduce:
      LIFTC_ASSERT(false, "the kernel plan refuses reduce (scan_kernel)");
      return {};
    case ir::Prim::MapWrg: case ir::Prim::MapLcl: case ir::Prim::MapGlb: case ir::Prim::MapSeq:
      return compile_map(e, s, dest);
    case ir::Prim::ReduceSeq:
      return compile_reduce(e, s, dest);
    case ir::Prim::ToGlobal: case ir::Prim::ToLocal: case ir::Prim::ToPrivate:
      return compile_to(e, s, dest);
    case ir::Prim::Id: {
      View v = compile(e->args[0], s, std::nullopt).view;
      if (is_value(v)) return {v, false};
      if (dest) {
        copy(v, *dest, s);
        return {*dest, true};
      }
      View out = allocate(e.type(), s.space.value_or(AddressSpace::Global), s, "copy");
      copy(v, out, s);
      return {out, false};
    }
    case ir::Prim::Array:
      return {constant_array(e), false};
    case ir::Prim::Vectorize: {
      View x = compile(e->args[1], s, std::nullopt).view;
      return apply(e->args[0], {x}, s, std::nullopt);
    }
    LIFTC_LAYOUT_PRIM_CASES case ir::Prim::Dot: LIFTC_SCALAR_BUILTIN_CASES
      return {compile_scalar(e, s), false};
  }
  LIFTC_ASSERT(false, "the switch above lists every primitive");
  return {};
}

namespace {

// How many names lowering drew when it probed whether a map's function writes through
// (by writing through it once, before passes_dest decided it from the IR): one per map of
// one parameter that the probe reached. They are still drawn, so that the kernels' names,
// and so their text (explore stores results by it), stay as they were.
int probe_names(const ir::Expr& map);

int chain_probe_names(const ir::Expr& body) {
  if (body.kind() != ir::ExprKind::Call) return 0;
  if (!chains_writes(body->prim)) return 0;
  int names = 0;
  if (body->prim == ir::Prim::Map) {
    names = probe_names(body);
    if (!passes_dest(body)) return names;
  }
  return names + chain_probe_names(body->args.back());
}

int probe_names(const ir::Expr& map) {
  const ir::Expr& f = map->args[0];
  if (f.kind() != ir::ExprKind::Lambda || f->params.size() != 1) return 0;
  return 1 + chain_probe_names(ir::lambda_body(f));
}

}  // namespace

std::optional<View> KernelBuilder::operand_dest(const ir::Expr& e, const View& dest) {
  if (e->prim == ir::Prim::Map)
    for (int k = probe_names(e); k > 0; --k) fresh("probe");
  if (!passes_dest(e)) return std::nullopt;
  switch (e->prim) {
    LIFTC_LAYOUT_PRIM_CASES  // only the invertible ones pass passes_dest above
      return operand_dest_view(e, dest);
    case ir::Prim::Map: {
      // The function is a chain of invertible layout primitives (passes_dest).
      const ir::Expr& f = e->args[0];
      ir::Expr body = ir::lambda_body(f);
      std::string param = f->params[0];
      ir::Type elem = e->args[1].type().elem();
      return map_view(dest, elem, [this, body, param](const View& d) { return output_through(body, param, d); });
    }
    case ir::Prim::Reduce: case ir::Prim::Id: case ir::Prim::Array: case ir::Prim::MapWrg: case ir::Prim::MapLcl:
    case ir::Prim::MapGlb: case ir::Prim::MapSeq: case ir::Prim::ReduceSeq: case ir::Prim::ToGlobal:
    case ir::Prim::ToLocal: case ir::Prim::ToPrivate: case ir::Prim::Vectorize: case ir::Prim::Dot:
    LIFTC_SCALAR_BUILTIN_CASES
      break;
  }
  LIFTC_ASSERT(false, "passes_dest lists the primitives operand_dest writes through");
  return std::nullopt;
}

View KernelBuilder::output_through(const ir::Expr& body, const std::string& param, const View& dest) {
  if (body.kind() == ir::ExprKind::Var) return dest;
  return output_through(body->args.back(), param, *operand_dest(body, dest));
}

Result KernelBuilder::compile_layout(const ir::Expr& e, const Scope& s, const std::optional<View>& dest) {
  if (dest) {
    if (auto d = operand_dest(e, *dest)) {
      Result r = compile(e->args.back(), s, d);
      if (r.in_dest) return {*dest, true};
    }
  }
  std::vector<View> operands;
  for (const auto& a : e->args) operands.push_back(compile(a, s, std::nullopt).view);
  return {layout_view(e, std::move(operands)), false};
}

View KernelBuilder::pure_map(const ir::Expr& e, const View& source, const Scope& s) {
  const ir::Expr& f = e->args[0];
  LIFTC_ASSERT(ir::only_rearranges(ir::lambda_body(f)), "the kernel plan refuses a map that computes (scan_kernel)");
  auto element = [this, f, s](const View& x) { return apply(f, {x}, s, std::nullopt).view; };
  return map_view(source, e.type().elem(), [element](const View& x) { return element(x); });
}

View KernelBuilder::compile_scalar(const ir::Expr& e, const Scope& s) {
  ir::Prim p = e->prim;
  if (p == ir::Prim::SizeValue) return value_view(c::index(e->sizes[0]));
  std::vector<c::Expr> a;
  for (const auto& arg : e->args) {
    View v = compile(arg, s, std::nullopt).view;
    if (!v.type().is_scalar() && !v.type().is_vector())
      throw Error(fmt::format("{} expects scalars or vectors here, not {}", ir::signature(p).name, ir::to_string(v.type())),
                  arg.loc());
    a.push_back(read(v));
  }
  ir::Type t = result_type(e, a);
  bool is_float = t.scalar_kind() == ir::ScalarKind::Float;
  std::string_view op = ir::operator_spelling(p);
  // roundHalf: a function of the kernel's text (OpenCL C has none), one per vector width.
  if (p == ir::Prim::RoundHalf) {
    int width = t.is_vector() ? t.width() : 1;
    round_half_widths_.insert(width);
    return value_view(c::call(round_half_function(width), a, t));
  }
  // exp, log, sin, floor, ...: the OpenCL C function of the same name (floats and float vectors).
  if (ir::is_float_math(p)) return value_view(c::call(std::string(ir::signature(p).name), a, t));
  switch (p) {
    case ir::Prim::Neg: case ir::Prim::Not:
      return value_view(c::unary(std::string(op), a[0], t));
    case ir::Prim::Mod:
      if (is_float) return value_view(c::call("fmod", a, t));
      return value_view(c::binary("%", a[0], a[1], t));
    case ir::Prim::Select:
      return value_view(c::ternary(a[0], a[1], a[2]));
    case ir::Prim::Min: return value_view(c::call(is_float ? "fmin" : "min", a, t));
    case ir::Prim::Max: return value_view(c::call(is_float ? "fmax" : "max", a, t));
    case ir::Prim::Abs: return value_view(c::call(is_float ? "fabs" : "abs", a, t));
    case ir::Prim::ToFloat:
      if (t.is_vector()) return value_view(c::call(fmt::format("convert_float{}", t.width()), a, t));
      return value_view(c::cast(t, a[0]));
    case ir::Prim::Dot:
      // Wider than 4 lanes, dot is a sum over lanes: each operand is read once into a
      // variable, not its (guarded vload) expression once per lane.
      if (a[0]->type.is_vector() && a[0]->type.width() > 4)
        for (auto& operand : a) operand = read(variables(value_view(operand), "lanes"));
      return value_view(dot(a[0], a[1]));
    LIFTC_LAYOUT_PRIM_CASES LIFTC_COMPARISON_CASES LIFTC_FLOAT_MATH_CASES case ir::Prim::Map:
    case ir::Prim::Reduce: case ir::Prim::Id: case ir::Prim::Array: case ir::Prim::MapWrg:
    case ir::Prim::MapLcl: case ir::Prim::MapGlb: case ir::Prim::MapSeq: case ir::Prim::ReduceSeq:
    case ir::Prim::ToGlobal: case ir::Prim::ToLocal: case ir::Prim::ToPrivate: case ir::Prim::Vectorize:
    case ir::Prim::Add: case ir::Prim::Sub: case ir::Prim::Mul: case ir::Prim::Div: case ir::Prim::And:
    case ir::Prim::Or: case ir::Prim::SizeValue:
      break;
  }
  if (!op.empty() && a.size() == 2) return value_view(c::binary(std::string(op), a[0], a[1], t));
  throw Error(fmt::format("{} has no OpenCL code generation", ir::signature(p).name), e.loc());
}

}  // namespace liftc::codegen::detail
