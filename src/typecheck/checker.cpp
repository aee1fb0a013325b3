// The walk: names, literals, tuples, projections, lets, applications and lambdas, the
// dispatch of primitive calls to the rule families, and obligations.

#include "checker.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

namespace liftc::typecheck::detail {

using ir::Expr;
using ir::ExprKind;
using ir::Type;

namespace {

std::string join_types(const std::vector<Type>& types) {
  std::string s;
  for (std::size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + ir::to_string(types[i]);
  return s;
}

// Pushes a node's position (when known) for the duration of its check.
class KnownLoc {
 public:
  KnownLoc(std::vector<SourceLoc>& stack, const SourceLoc& loc) : stack_(stack), pushed_(loc.known()) {
    if (pushed_) stack_.push_back(loc);
  }
  ~KnownLoc() {
    if (pushed_) stack_.pop_back();
  }
  KnownLoc(const KnownLoc&) = delete;
  KnownLoc& operator=(const KnownLoc&) = delete;

 private:
  std::vector<SourceLoc>& stack_;
  bool pushed_;
};

}  // namespace

Scope::~Scope() {
  for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
    if (it->second)
      env_[it->first] = *it->second;
    else
      env_.erase(it->first);
  }
}

void Scope::bind(const std::string& name, const Type& type) {
  auto it = env_.find(name);
  saved_.emplace_back(name, it == env_.end() ? std::nullopt : std::optional<Type>(it->second));
  env_[name] = type;
}

void Checker::fail(const Expr& at, const std::string& message) const {
  if (at.defined() && at.loc().known()) throw Error(message, at.loc());
  throw Error(message, known_locs_.empty() ? SourceLoc{} : known_locs_.back());
}

namespace {

// Whether `divisor` divides `value` as far as the expressions decide it: for two constants,
// and true where the ranges prove it; nullopt where neither says.
std::optional<bool> decided_divisible(const arith::Expr& value, const arith::Expr& divisor) {
  std::optional<std::int64_t> v = value.constant(), d = divisor.constant();
  if (v && d) return *d != 0 && *v % *d == 0;
  if (arith::provably_divisible(value, divisor)) return true;
  return std::nullopt;
}

// Whether `value` >= `least` as far as the expressions decide it: for a constant, and true
// where `proves` (arith's provably_positive or provably_nonnegative) says so; else nullopt.
std::optional<bool> decided_at_least(const arith::Expr& value, std::int64_t least, bool (*proves)(const arith::Expr&)) {
  if (std::optional<std::int64_t> v = value.constant()) return *v >= least;
  if (proves(value)) return true;
  return std::nullopt;
}

// Whether an obligation holds as far as the expressions decide it (nullopt: it is recorded
// for constraint inference).
std::optional<bool> decided(Obligation::Kind kind, const arith::Expr& value, const arith::Expr& divisor) {
  switch (kind) {
    case Obligation::Kind::Divides: return decided_divisible(value, divisor);
    case Obligation::Kind::Positive: return decided_at_least(value, 1, arith::provably_positive);
    case Obligation::Kind::NonNegative: return decided_at_least(value, 0, arith::provably_nonnegative);
  }
  return std::nullopt;
}

}  // namespace

namespace {

// The divisions and remainders in `e`.
int divisions(const arith::Expr& e) {
  int n = e.kind() == arith::Kind::Div || e.kind() == arith::Kind::Mod ? 1 : 0;
  for (const auto& o : e.operands()) n += divisions(o);
  return n;
}

}  // namespace

arith::Expr Checker::simplest_length(const arith::Expr& length) const {
  if (declared.empty() || divisions(length) == 0) return length;
  for (const auto& name : arith::free_vars(length))
    if (!declared.count(name)) return length;
  // Only a form without divisions: one that merges divisions (H/2*(W/2) as H*W/4) would hide
  // the n/m that join's rule and the constraints recognise.
  arith::Expr exact = arith::exact_division_form(length);
  if (divisions(exact) > 0) return length;
  try {
    std::optional<std::int64_t> at = arith::substitute(length, declared).constant();
    if (at && at == arith::substitute(exact, declared).constant()) return exact;
  } catch (const Error&) {
    // a division by zero or an overflow at the declared values: kept as it is
  }
  return length;
}

bool Checker::divides(const arith::Expr& value, const arith::Expr& divisor) const {
  if (auto decided = decided_divisible(value, divisor)) return *decided;
  return std::any_of(required_divisible_.begin(), required_divisible_.end(),
                     [&](const auto& r) { return r.first == value && r.second == divisor; });
}

void Checker::require(Obligation::Kind kind, const arith::Expr& value, const arith::Expr& divisor, std::string what,
                      const Expr& at, const std::function<std::string()>& failure) {
  if (kind == Obligation::Kind::Divides) required_divisible_.emplace_back(value, divisor);
  if (std::optional<bool> holds = decided(kind, value, divisor)) {
    if (!*holds) fail(at, failure());
    return;
  }
  if (obligations_ == nullptr) return;
  // One record per fact: constraint inference needs the set, not every place it arose.
  bool seen = std::any_of(obligations_->begin(), obligations_->end(), [&](const Obligation& o) {
    return o.kind == kind && o.value == value && (kind != Obligation::Kind::Divides || o.divisor == divisor);
  });
  if (seen) return;
  SourceLoc loc = at.defined() && at.loc().known() ? at.loc() : (known_locs_.empty() ? SourceLoc{} : known_locs_.back());
  obligations_->push_back(Obligation{kind, value, divisor, std::move(what), std::move(loc)});
}

Expr Checker::check(const Expr& e) {
  KnownLoc here(known_locs_, e.loc());
  struct Nesting {
    int& depth;
    ~Nesting() { --depth; }
  } nesting{++depth_};
  if (depth_ > kMaxDepth) fail(e, fmt::format("the expression is nested deeper than {} levels", kMaxDepth));
  switch (e.kind()) {
    case ExprKind::Var: {
      auto it = env.find(e->name);
      if (it == env.end()) fail(e, fmt::format("unknown name '{}'", e->name));
      return ir::with_type(e, it->second);
    }
    case ExprKind::Literal:
      return ir::with_type(e, Type::scalar(e->literal.kind));
    case ExprKind::Lambda:
      fail(e, fmt::format("a function of {} parameter{} is used as a value; apply it or pass it to a primitive",
                          e->params.size(), e->params.size() == 1 ? "" : "s"));
    case ExprKind::Apply: {
      std::vector<Expr> args{e->args[0]};
      std::vector<Type> types;
      for (std::size_t i = 1; i < e->args.size(); ++i) {
        args.push_back(check(e->args[i]));
        types.push_back(args.back().type());
      }
      args[0] = check_function(e->args[0], types, "application");
      Type result = args[0].type();
      return ir::with_type(ir::with_args(e, std::move(args)), std::move(result));
    }
    case ExprKind::Call:
      return check_call(e);
    case ExprKind::Tuple: {
      std::vector<Expr> elems;
      std::vector<Type> types;
      for (const auto& a : e->args) {
        elems.push_back(check(a));
        types.push_back(elems.back().type());
      }
      return ir::with_type(ir::with_args(e, std::move(elems)), Type::tuple(std::move(types)));
    }
    case ExprKind::Get: {
      Expr tuple = check(ir::get_tuple(e));
      const Type& t = tuple.type();
      if (!t.is_tuple()) fail(e, fmt::format("projection .{}: expected a tuple, got {}", e->index, ir::to_string(t)));
      if (e->index >= static_cast<int>(t.elems().size()))
        fail(e, fmt::format("projection .{}: the tuple {} has only {} components", e->index, ir::to_string(t),
                            t.elems().size()));
      Type component = t.elems()[static_cast<std::size_t>(e->index)];
      return ir::with_type(ir::with_args(e, {tuple}), std::move(component));
    }
    case ExprKind::Let: {
      Expr value = check(ir::let_value(e));
      Scope scope(env);
      scope.bind(e->name, value.type());
      Expr body = check(ir::let_body(e));
      Type result = body.type();
      return ir::with_type(ir::with_args(e, {value, body}), std::move(result));
    }
  }
  LIFTC_ASSERT(false, "every expression kind is handled");
  return e;
}

Expr Checker::check_function(const Expr& lambda, const std::vector<Type>& arg_types, std::string_view who) {
  KnownLoc here(known_locs_, lambda.loc());
  LIFTC_ASSERT(lambda.kind() == ExprKind::Lambda, "function operands are lambdas");
  const auto& params = lambda->params;
  std::vector<Type> param_types;
  if (params.size() == arg_types.size()) {
    param_types = arg_types;
  } else if (arg_types.size() == 1 && params.size() > 1) {
    const Type& t = arg_types[0];
    if (!t.is_tuple() || t.elems().size() != params.size())
      fail(lambda, fmt::format("{}: the function ({}) -> ... takes {} parameters, so its argument must be a tuple of "
                               "{} components, got {}",
                               who, fmt::join(params, ", "), params.size(), params.size(), ir::to_string(t)));
    param_types = t.elems();
  } else {
    fail(lambda, fmt::format("{}: the function takes {} parameter{}, but is given {} argument{} ({})", who,
                             params.size(), params.size() == 1 ? "" : "s", arg_types.size(),
                             arg_types.size() == 1 ? "" : "s", join_types(arg_types)));
  }
  Scope scope(env);
  for (std::size_t i = 0; i < params.size(); ++i) scope.bind(params[i], param_types[i]);
  Expr body = check(ir::lambda_body(lambda));
  Type result = body.type();
  Expr typed = ir::with_lambda_types(ir::with_args(lambda, {body}), std::move(param_types));
  return ir::with_type(typed, std::move(result));
}

namespace {

bool is_size_value(const Expr& e) { return e.kind() == ExprKind::Call && e->prim == ir::Prim::SizeValue; }

}  // namespace

Expr Checker::check_call(const Expr& call) {
  const ir::PrimSignature& sig = ir::signature(call->prim);
  // A size used as a value is exact (64 bits) where float(...) converts it, and an int
  // elsewhere, where it must fit in 32 bits: then the interpreter and the kernels agree.
  if (is_size_value(call) && call.get() != float_size_value_)
    if (std::optional<std::int64_t> v = call->sizes[0].constant();
        v && (*v < std::numeric_limits<std::int32_t>::min() || *v > std::numeric_limits<std::int32_t>::max()))
      fail(call, fmt::format("the size value {} does not fit in an int (32 bits): a size used as a value is an int, "
                             "except in float(...), which converts its exact value; write float(...) around the "
                             "size expression alone",
                             *v));
  CallSite site{call, {}, call_label(call)};
  for (std::size_t i = 0; i < call->args.size(); ++i) {
    bool is_function = !sig.variadic && sig.operands[i] > 0;
    if (call->prim == ir::Prim::ToFloat && is_size_value(call->args[i])) float_size_value_ = call->args[i].get();
    site.args.push_back(is_function ? call->args[i] : check(call->args[i]));
    float_size_value_ = nullptr;
  }
  Type result;
  switch (call->prim) {
    LIFTC_LAYOUT_PRIM_CASES case ir::Prim::Id:
      result = check_layout(*this, site);
      break;
    case ir::Prim::Map: case ir::Prim::MapWrg: case ir::Prim::MapLcl: case ir::Prim::MapGlb: case ir::Prim::MapSeq:
    case ir::Prim::Reduce: case ir::Prim::ReduceSeq: case ir::Prim::ToGlobal: case ir::Prim::ToLocal:
    case ir::Prim::ToPrivate: case ir::Prim::Vectorize:
      result = check_functional(*this, site);
      break;
    case ir::Prim::Dot: case ir::Prim::Array: LIFTC_SCALAR_BUILTIN_CASES
      result = check_builtin(*this, site);
      break;
  }
  return ir::with_type(ir::with_args(call, std::move(site.args)), std::move(result));
}

std::string call_label(const Expr& call) {
  const ir::PrimSignature& sig = ir::signature(call->prim);
  if (call->prim == ir::Prim::Neg) return "unary -";
  std::string_view op = ir::operator_spelling(call->prim);
  if (!op.empty()) return fmt::format("operator {}", op);
  if (call->sizes.empty() || call->prim == ir::Prim::SizeValue) return std::string(sig.name);
  std::vector<std::string> sizes;
  for (const auto& s : call->sizes) sizes.push_back(arith::to_string(s));
  if (sig.index_function) return fmt::format("{}(striddenIndex({}))", sig.name, sizes[0]);
  return fmt::format("{}({})", sig.name, fmt::join(sizes, ", "));
}

std::int64_t constant_size(Checker& c, const CallSite& site, std::size_t index, std::string_view what) {
  std::optional<std::int64_t> v = site.call->sizes[index].constant();
  if (!v)
    c.fail(site.call, fmt::format("{}: the {} must be a constant, got {}", site.label, what,
                                  arith::to_string(site.call->sizes[index])));
  return *v;
}

bool valid_vector_width(std::int64_t w) { return w == 2 || w == 3 || w == 4 || w == 8 || w == 16; }

}  // namespace liftc::typecheck::detail
