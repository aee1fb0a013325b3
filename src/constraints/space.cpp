// build_space: the parameters of a rewritten program and every constraint on them, from
// the type checker's obligations, the rules' declared domains, the target's limits and
// the code-generation choices (of codegen's kernel plan); one-variable constraints pruned
// into the domains.

#include <algorithm>
#include <numeric>
#include <optional>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "internal.hpp"
#include "liftc/codegen/plan.hpp"
#include "liftc/constraints/solve.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace liftc::constraints {

namespace {

// The reason of the one constraint that never holds where code generation refuses a program.
constexpr std::string_view kRefusal = "code generation refuses this program: ";

// Parameter domains without a declared bound stop here (a documented cap).
constexpr std::int64_t kUnboundedCap = 1024;

std::string format_values(const std::vector<std::int64_t>& v) {
  if (v.empty()) return "{}";
  bool contiguous = v.size() > 2;
  for (std::size_t i = 1; i < v.size() && contiguous; ++i) contiguous = v[i] == v[i - 1] + 1;
  if (contiguous) return fmt::format("{}..{}", v.front(), v.back());
  std::string s = "{";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "}";
}

// What a parameter may take before the one-variable constraints: a value set, or a range
// (kept as its two ends: `size n in 1..1000000000` is never a billion values).
struct Declared {
  std::vector<std::int64_t> set;  // ascending, distinct; empty: the range
  std::int64_t lo = 1, hi = 1;

  static Declared values(std::vector<std::int64_t> v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    Declared d;
    d.set = std::move(v);
    return d;
  }
  static Declared range(std::int64_t lo, std::int64_t hi) {
    Declared d;
    d.lo = lo, d.hi = hi;
    return d;
  }
  bool is_set() const { return !set.empty(); }
  std::string text() const { return is_set() ? format_values(set) : fmt::format("{}..{}", lo, hi); }
};

struct Collector {
  Space& space;
  std::map<std::string, arith::Expr> values;  // program sizes with a value
  std::vector<Declared> declared;             // of each parameter, in the order of space.params

  // A size that divides by a quantity zero for every value of the parameters in their
  // ranges (split(N / sigma) of an array of N = 1 element, sigma >= 2: arith folds 1/sigma
  // to 0) has no valid point: the first such message, told as a constraint that never holds
  // when the space is built (the bound expression then stands as 0).
  mutable std::optional<std::string> zero_divisor;

  arith::Expr bind(const arith::Expr& e) const {
    try {
      return arith::substitute(e, values);
    } catch (const Error& err) {
      if (!zero_divisor) zero_divisor = err.message();
      return arith::Expr(0);
    }
  }

  void add(Constraint c) {
    c.lhs = bind(c.lhs);
    c.rhs = bind(c.rhs);
    std::set<std::string> vars;
    for (const auto& v : arith::free_vars(c.lhs)) vars.insert(v);
    for (const auto& v : arith::free_vars(c.rhs)) vars.insert(v);
    c.vars.assign(vars.begin(), vars.end());
    space.constraints.push_back(std::move(c));
  }

  void param(Param p, const Declared& d, Constraint domain) {
    domain.lhs = arith::var(p.name);
    if (d.is_set()) {
      domain.kind = Constraint::Kind::Member;
      domain.values = d.set;
    } else {
      domain.kind = Constraint::Kind::Range;
      domain.lo = d.lo, domain.hi = d.hi;
    }
    domain.source = p.source == Source::Codegen ? domain.source : Source::Rule;
    p.declared = d.text();
    space.params.push_back(std::move(p));
    declared.push_back(d);
    add(std::move(domain));
  }
};

// The divisors of c (c >= 1) in [lo, hi], ascending: sqrt(c) steps.
std::vector<std::int64_t> divisors_in(std::uint64_t c, std::int64_t lo, std::int64_t hi) {
  std::vector<std::int64_t> small, large;
  for (std::uint64_t q = 1; q * q <= c; ++q) {
    if (c % q != 0) continue;
    small.push_back(static_cast<std::int64_t>(q));
    if (q != c / q) large.push_back(static_cast<std::int64_t>(c / q));
  }
  small.insert(small.end(), large.rbegin(), large.rend());
  std::vector<std::int64_t> out;
  for (auto v : small)
    if (lo <= v && v <= hi) out.push_back(v);
  return out;
}

[[noreturn]] void too_many_values(const Param& p, const std::string& how_many, std::size_t limit) {
  std::string advice = p.source == Source::Codegen
                           ? "the target allows work-groups too large to enumerate; use a profile with smaller limits"
                           : "declare a narrower range or a value set";
  throw Error(fmt::format("parameter {} ({}) has {} ({}); liftc enumerates a parameter's values and takes at most {}: {}",
                          p.name, p.origin, how_many, p.declared, limit, advice));
}

// The least and greatest values of `e` over the domains of parameters 0..i-1 (`done`):
// exact when their product is small, else interval bounds; nullopt when e mentions a
// later parameter or the bounds overflow. A parameter of e with no value at all leaves e
// none either: the empty interval {1, 0}.
std::optional<detail::Interval> value_range(const Space& space, const arith::Expr& e, std::size_t i,
                                            const std::vector<std::vector<std::int64_t>>& done) {
  constexpr std::uint64_t kEnumerate = 1 << 16;  // combinations evaluated exactly
  std::vector<std::size_t> vars;
  std::uint64_t combinations = 1;
  for (const auto& name : arith::free_vars(e)) {
    auto j = static_cast<std::size_t>(space.index(name));
    if (j >= i) return std::nullopt;
    if (done[j].empty()) return detail::Interval{1, 0};
    vars.push_back(j);
    combinations = std::min<std::uint64_t>(combinations * done[j].size(), kEnumerate + 1);
  }
  detail::Compiled code = detail::compile(e, space);
  if (combinations > kEnumerate) {
    std::vector<std::optional<detail::Interval>> box(space.params.size());
    for (auto j : vars) box[j] = detail::Interval{done[j].front(), done[j].back()};
    return detail::interval_of(code, box);
  }
  // Every combination, as an odometer over the domains.
  Assignment values(space.params.size(), 0);
  std::vector<std::size_t> at(vars.size(), 0);
  std::optional<detail::Interval> out;
  for (;;) {
    for (std::size_t n = 0; n < vars.size(); ++n) values[vars[n]] = done[vars[n]][at[n]];
    auto v = detail::run(code, values.data());
    if (!v) return std::nullopt;  // an overflow or a division by zero somewhere: no bound
    out = out ? detail::Interval{std::min(out->lo, *v), std::max(out->hi, *v)} : detail::Interval{*v, *v};
    std::size_t n = 0;
    while (n < vars.size() && ++at[n] == done[vars[n]].size()) at[n++] = 0;
    if (n == vars.size()) return out;
  }
}

// The values of parameter i that its one-variable constraints allow, found without
// materializing a declared range: the divisors of C when `x divides C` for a constant C,
// else the range clipped by `x divides e` (x <= e where e >= 1 over the domains of the
// parameters before i: value_range), then scanned. Over kMaxDomainScan candidates or kMaxDomainValues
// values is an error naming the parameter.
std::vector<std::int64_t> prune_domain(const Space& space, std::size_t i, const Declared& d,
                                       const std::vector<std::vector<std::int64_t>>& done) {
  const Param& p = space.params[i];
  std::vector<detail::CompiledConstraint> one_var;
  std::optional<std::uint64_t> divides;  // of a constant
  std::int64_t lo = d.lo, hi = d.hi;
  for (const auto& k : space.constraints) {
    bool own = k.vars.size() == 1 && k.vars[0] == p.name;
    if (own) one_var.push_back(detail::compile(k, space));
    if (d.is_set() || k.kind != Constraint::Kind::Divides || k.lhs != arith::var(p.name)) continue;
    if (auto c = k.rhs.constant()) {
      if (*c != 0) divides = static_cast<std::uint64_t>(*c < 0 ? -*c : *c);
      continue;
    }
    // x divides e, e >= 1: x <= e. Only parameters whose domains are known bound e; e >= 1
    // where its bounds say so, or a constraint `1 <= e` (a launch of at least one item).
    auto e = value_range(space, k.rhs, i, done);
    if (!e) continue;
    bool positive = e->lo >= 1 || std::any_of(space.constraints.begin(), space.constraints.end(), [&](const Constraint& g) {
                      return g.kind == Constraint::Kind::LessEqual && g.lhs.constant() && *g.lhs.constant() >= 1 &&
                             g.rhs == k.rhs;
                    });
    if (positive) hi = std::min(hi, e->hi);
  }
  auto allowed = [&](std::int64_t v, Assignment& probe) {
    probe[i] = v;
    for (const auto& k : one_var)
      if (!detail::check(k, probe.data())) return false;
    return true;
  };
  Assignment probe(space.params.size(), 0);
  std::vector<std::int64_t> kept;
  auto keep = [&](std::int64_t v) {
    if (!allowed(v, probe)) return;
    if (kept.size() == kMaxDomainValues) too_many_values(p, fmt::format("more than {} valid values", kMaxDomainValues), kMaxDomainValues);
    kept.push_back(v);
  };
  if (d.is_set()) {
    for (auto v : d.set) keep(v);
  } else if (divides && *divides <= std::uint64_t{kMaxDomainScan} * kMaxDomainScan) {
    for (auto v : divisors_in(*divides, lo, hi)) keep(v);
  } else if (lo <= hi) {
    auto count = static_cast<unsigned __int128>(static_cast<__int128>(hi) - lo + 1);
    if (count > kMaxDomainScan)
      too_many_values(p, fmt::format("{} candidate values", to_string(static_cast<Count>(count))), kMaxDomainScan);
    for (std::int64_t v = lo;; ++v) {
      keep(v);
      if (v == hi) break;
    }
  }
  return kept;
}

// Whether `e` multiplies floats (`*` of floats or a dot product): where the OpenCL
// compiler may contract a multiply and an add into one mad, which rounds differently.
bool multiplies_floats(const ir::Expr& e) {
  if (e.kind() == ir::ExprKind::Call && (e->prim == ir::Prim::Dot || e->prim == ir::Prim::Mul) && e.type().defined() &&
      !e.type().is_array() && !e.type().is_tuple() && e.type().scalar_kind() == ir::ScalarKind::Float)
    return true;
  for (const auto& a : e->args)
    if (multiplies_floats(a)) return true;
  return false;
}


// Kernel `k`'s work-group of `items` work-items (the product of its sizes) fits the target.
void add_work_group_limit(Collector& c, const codegen::PlannedKernel& k, const arith::Expr& items, const Target& target) {
  c.add({Constraint::Kind::LessEqual, items, target.max_work_group_size, {}, Source::Target,
         fmt::format("kernel {}: at most {} work-items per work-group on {}", k.buffer, target.max_work_group_size,
                     target.name),
         {}, {}});
}

// The work-group sizes of the other computing mapGlb kernels (Winograd's transforms, say;
// codegen's Options::kernel_work_groups): `<buffer>_local_<d>` for each dimension of each,
// where 0 in every dimension is the runtime's choice, codegen's without one, so the space
// keeps it. A size in some dimensions and 0 in others means nothing: a size in every
// dimension or in none. Kernels the plan marks as parallel copies (PlannedKernel::copy: a
// toGlobal of layout primitives) are left to the runtime: a parameter per copy would widen
// the space where no measurement has asked for it. Pads and rearranged weights computed by
// a map of their own are not such copies, and take parameters.
void add_own_work_group_params(Collector& c, const codegen::KernelPlan& plan, const Target& target) {
  for (const auto& k : plan.kernels) {
    const codegen::Threads& t = k.threads;
    if (t.work_groups || k.tuned || k.copy || t.dims < 1) continue;
    std::vector<std::string> names;
    for (int d = 0; d < t.dims; ++d) names.push_back(fmt::format("{}_local_{}", k.buffer, d));
    if (std::any_of(names.begin(), names.end(), [&](const std::string& n) { return c.space.index(n) >= 0; }))
      continue;  // a size of the program has the name: the runtime chooses
    const arith::Expr chosen = arith::min(arith::var(names[0]), 1);  // 1: a size is chosen; 0: the runtime's
    arith::Expr items = 1;
    for (int d = 0; d < t.dims; ++d) {
      const auto dim = static_cast<std::size_t>(d);
      const std::int64_t most = std::min(target.max_work_item_sizes[dim], target.max_work_group_size);
      Param p{names[dim], Source::Codegen,
              fmt::format("work-group size of kernel {}, dimension {} (0: the OpenCL runtime chooses)", k.name, d), "",
              {}};
      c.space.kernel_work_group_params[names[dim]] = {k.buffer, dim};
      Constraint dom;
      dom.source = Source::Target;
      dom.why = fmt::format("at most {} work-items in dimension {} on {}", most, d, target.name);
      c.param(std::move(p), Declared::range(0, most), std::move(dom));
      arith::Expr l = arith::var(names[dim]);
      c.add({Constraint::Kind::Divides, arith::max(l, 1), c.bind(t.global[dim]), {}, Source::Codegen,
             fmt::format("kernel {}: its work-group size divides its global size in dimension {}", k.buffer, d), {}, {}});
      if (d > 0) {
        c.add({Constraint::Kind::LessEqual, chosen, l, {}, Source::Codegen,
               fmt::format("kernel {}: a work-group size in every dimension or in none", k.buffer), {}, {}});
        c.add({Constraint::Kind::LessEqual, l, arith::Expr(most) * chosen, {}, Source::Codegen,
               fmt::format("kernel {}: a work-group size in every dimension or in none", k.buffer), {}, {}});
      }
      items = items * l;
    }
    add_work_group_limit(c, k, items, target);
  }
}

// The launch constraints of the planned kernels, and the code-generation choices they
// offer: a work-group kernel's work-group (its mapLcl loops) fits the target; the
// definitions' main mapGlb kernels take the work-group size local_d (codegen's
// Options::global_work_group), which divides their global size; the other computing mapGlb
// kernels take sizes of their own (add_own_work_group_params); copies are left to the runtime.
void add_kernel_constraints(Collector& c, const codegen::KernelPlan& plan, const Target& target) {
  int glb_dims = 0;
  for (const auto& k : plan.kernels)
    if (!k.threads.work_groups && k.tuned) glb_dims = std::max({glb_dims, k.threads.dims, 1});
  for (int d = 0; d < glb_dims; ++d) {
    // Each dimension is at most the target's per-dimension limit, and at most its limit
    // per work-group (the product of the dimensions is, below).
    const std::int64_t per_dim = target.max_work_item_sizes[static_cast<std::size_t>(d)];
    const std::int64_t most = std::min(per_dim, target.max_work_group_size);
    Param p{fmt::format("local_{}", d), Source::Codegen,
            fmt::format("work-group size of the kernels without work-groups (mapGlb), dimension {}", d), "", {}};
    Constraint dom;
    dom.source = Source::Target;
    dom.why = most < per_dim ? fmt::format("at most {} work-items in dimension {} on {} (its limit per work-group; "
                                           "{} per dimension)",
                                           most, d, target.name, per_dim)
                             : fmt::format("at most {} work-items in dimension {} on {}", most, d, target.name);
    c.param(std::move(p), Declared::range(1, most), std::move(dom));
  }
  for (const auto& k : plan.kernels) {
    const codegen::Threads& t = k.threads;
    if (t.work_groups) {
      arith::Expr items = 1;
      for (std::size_t d = 0; d < 3; ++d) {
        arith::Expr local = c.bind(t.local[d]);
        items = items * local;
        if (local.constant() && *local.constant() == 1) continue;
        c.add({Constraint::Kind::LessEqual, local, target.max_work_item_sizes[d], {}, Source::Target,
               fmt::format("kernel {}: its work-group (the mapLcl loops) has at most {} work-items in dimension {} on {}",
                           k.buffer, target.max_work_item_sizes[d], d, target.name),
               {}, {}});
      }
      add_work_group_limit(c, k, items, target);
    } else if (k.tuned) {
      arith::Expr items = 1;
      for (int d = 0; d < std::max(t.dims, 1); ++d) {
        arith::Expr l = arith::var(fmt::format("local_{}", d));
        items = items * l;
        c.add({Constraint::Kind::Divides, l, c.bind(t.global[static_cast<std::size_t>(d)]), {}, Source::Codegen,
               fmt::format("kernel {}: the work-group size divides the global size in dimension {}", k.buffer, d), {}, {}});
      }
      add_work_group_limit(c, k, items, target);
    }
  }
  add_own_work_group_params(c, plan, target);
  std::vector<arith::Expr> unrollable;
  for (const auto& k : plan.kernels)
    for (const auto& t : k.unrollable) unrollable.push_back(c.bind(t));
  if (!unrollable.empty()) {
    Param p{"unroll", Source::Codegen, "unroll the innermost reduceSeq loops (liftc run --unroll)", "", {}};
    Constraint dom;
    dom.source = Source::Codegen;
    dom.why = "unrolling is on or off";
    c.param(std::move(p), Declared::values({0, 1}), std::move(dom));
    arith::Expr trips = unrollable[0];
    for (std::size_t i = 1; i < unrollable.size(); ++i) trips = arith::min(trips, unrollable[i]);
    c.add({Constraint::Kind::LessEqual, arith::var("unroll") * trips, 64, {}, Source::Codegen,
           "unrolling applies to reduceSeq loops of at most 64 iterations (else it changes nothing)", {}, {}});
  }
}

// The memory constraints: every global buffer (inputs, outputs, the planned kernels' parts
// and allocations) fits one allocation, all of them the global memory; each kernel's local
// memory and each work-item's private arrays fit the target's.
void add_memory_constraints(Collector& c, const ir::Program& checked, const codegen::KernelPlan& plan,
                            const Target& target) {
  arith::Expr global_total = 0;
  auto buffer = [&](const std::string& what, const arith::Expr& bytes) {
    arith::Expr b = c.bind(bytes);
    global_total = global_total + b;
    c.add({Constraint::Kind::LessEqual, b, target.max_alloc_bytes, {}, Source::Target,
           fmt::format("{} fits one buffer ({} bytes at most on {})", what, target.max_alloc_bytes, target.name), {}, {}});
  };
  for (const auto& in : checked.inputs) buffer(fmt::format("input {}", in.name), codegen::bytes_of(in.type));
  for (const auto& d : checked.defs) buffer(fmt::format("output {}", d.name), codegen::bytes_of(d.body.type()));
  for (const auto& k : plan.kernels) {
    if (k.role == codegen::BufferRole::Intermediate)
      buffer(fmt::format("{}, computed by a kernel of its own ({}),", k.buffer, k.name), k.bytes);
    arith::Expr local = 0, priv = 0;
    bool has_local = false, has_private = false;
    for (const auto& b : k.buffers) {
      if (b.space == codegen::AddressSpace::Global) buffer(fmt::format("kernel {}: a {} buffer", k.buffer, b.what), b.bytes);
      if (b.space == codegen::AddressSpace::Private) {
        priv = priv + c.bind(b.bytes);
        has_private = true;
      }
      if (b.space != codegen::AddressSpace::Local) continue;
      local = local + c.bind(b.bytes);
      has_local = true;
    }
    // The register budget: a work-item's private arrays (register-tile accumulators, copies
    // of weights, vector temporaries), as lowering allocates them, per kernel.
    if (has_private && target.private_mem_bytes > 0)
      c.add({Constraint::Kind::LessEqual, priv, target.private_mem_bytes, {}, Source::Target,
             fmt::format("kernel {}: the private arrays of a work-item fit the {} bytes of {}{}", k.buffer,
                         target.private_mem_bytes, target.name, target.live ? "" : " (its registers)"),
             {}, {}});
    if (has_local)
      c.add({Constraint::Kind::LessEqual, local, target.local_mem_bytes, {}, Source::Target,
             fmt::format("kernel {}: its local memory fits the {} bytes of {}{}", k.buffer, target.local_mem_bytes,
                         target.name, target.local_mem_global ? " (emulated in global memory)" : ""),
             {}, {}});
  }
  c.add({Constraint::Kind::LessEqual, global_total, target.global_mem_bytes, {}, Source::Target,
         fmt::format("all global buffers fit the {} bytes of global memory of {}", target.global_mem_bytes, target.name),
         {}, {}});
}

}  // namespace

const char* to_string(Source s) {
  switch (s) {
    case Source::Type: return "type";
    case Source::Rule: return "rule";
    case Source::Target: return "target";
    case Source::Codegen: return "codegen";
  }
  return "?";
}

std::string to_string(const Constraint& c) {
  // Code generation's refusal is written 1 <= 0, a constraint no point satisfies: said so, its
  // why saying what code generation refused.
  if (c.source == Source::Codegen && c.why.rfind(kRefusal, 0) == 0) return "no point satisfies it";
  switch (c.kind) {
    case Constraint::Kind::Divides:
      return fmt::format("{} divides {}", arith::to_string(c.lhs), arith::to_string(c.rhs));
    case Constraint::Kind::LessEqual:
      return fmt::format("{} <= {}", arith::to_string(c.lhs), arith::to_string(c.rhs));
    case Constraint::Kind::Member: return fmt::format("{} in {}", arith::to_string(c.lhs), format_values(c.values));
    case Constraint::Kind::Range: return fmt::format("{} in {}..{}", arith::to_string(c.lhs), c.lo, c.hi);
  }
  return "?";
}

int Space::index(const std::string& name) const {
  for (std::size_t i = 0; i < params.size(); ++i)
    if (params[i].name == name) return static_cast<int>(i);
  return -1;
}

Space build_space(const ir::Program& program, const std::vector<rewrite::TuningParam>& tuning, const Target& target) {
  Space space;
  space.program = program;
  space.target = target;
  Collector c{space, {}, {}, {}};
  for (const auto& s : program.sizes)
    if (s.value) c.values[s.name] = arith::Expr(static_cast<std::int64_t>(*s.value));

  // Rule parameters (and sizes the program leaves open, with their declared ranges).
  std::set<std::string> named;
  for (const auto& t : tuning) {
    Param p{t.name, Source::Rule, fmt::format("{} ({})", t.rule, t.base), "", {}};
    Declared d = !t.values.empty()
                     ? Declared::values(t.values)
                     : Declared::range(t.min.value_or(1),
                                       t.max.value_or(std::max<std::int64_t>(t.min.value_or(1), kUnboundedCap)));
    Constraint dom;
    dom.why = t.values.empty() && !t.max ? fmt::format("rule {} declares {} >= {} (capped at {})", t.rule, t.base,
                                                       t.min.value_or(1), kUnboundedCap)
                                         : fmt::format("rule {} declares {} in {}", t.rule, t.base, d.text());
    named.insert(t.name);
    c.param(std::move(p), d, std::move(dom));
  }
  for (const auto& s : program.sizes) {
    if (s.value || named.count(s.name)) continue;
    Param p{s.name, Source::Rule, "a size the program declares without a value", "", {}};
    Declared d = s.min ? Declared::range(*s.min, *s.max) : Declared::range(1, kUnboundedCap);
    Constraint dom;
    dom.loc = s.loc;
    dom.why = s.min ? fmt::format("size {} in {}..{}", s.name, *s.min, *s.max)
                    : fmt::format("size {} >= 1 (capped at {})", s.name, kUnboundedCap);
    c.param(std::move(p), d, std::move(dom));
  }

  // The type checker's obligations.
  typecheck::Checked checked = typecheck::typecheck(program);
  for (const auto& ob : checked.obligations) {
    Constraint k;
    k.source = Source::Type;
    k.why = ob.what;
    k.loc = ob.loc;
    switch (ob.kind) {
      case typecheck::Obligation::Kind::Divides: k.kind = Constraint::Kind::Divides, k.lhs = ob.divisor, k.rhs = ob.value; break;
      case typecheck::Obligation::Kind::Positive: k.kind = Constraint::Kind::LessEqual, k.lhs = 1, k.rhs = ob.value; break;
      case typecheck::Obligation::Kind::NonNegative: k.kind = Constraint::Kind::LessEqual, k.lhs = 0, k.rhs = ob.value; break;
    }
    c.add(std::move(k));
  }
  // Obligations that the sizes decide: the true ones say nothing; a false one stays (with
  // no variables) and makes the space empty.
  {
    std::vector<Constraint> kept;
    for (auto& k : space.constraints) {
      if (k.source == Source::Type && k.vars.empty() && holds(space, k, {})) continue;
      kept.push_back(std::move(k));
    }
    space.constraints = std::move(kept);
  }

  // The kernels code generation makes (codegen's own plan): work-group limits,
  // code-generation choices, memory. A program code generation refuses (a map that must be
  // a kernel of its own but uses variables of the code around it) has no valid point: one
  // constraint that never holds says why.
  codegen::KernelPlan plan;
  try {
    plan = codegen::plan_kernels(checked.program);
  } catch (const Error& e) {
    c.add({Constraint::Kind::LessEqual, 1, 0, {}, Source::Codegen, std::string(kRefusal) + e.message(), e.loc(), {}});
  }
  add_kernel_constraints(c, plan, target);
  bool multiplies = false;
  for (const auto& d : checked.program.defs) multiplies = multiplies || multiplies_floats(d.body);
  if (multiplies) {
    Param p{"mad", Source::Codegen, "build with -cl-mad-enable (liftc run --mad): a*b + c may become one multiply-add",
            "", {}};
    Constraint dom;
    dom.source = Source::Codegen;
    dom.why = "multiply-add contraction is on or off: it changes rounding, so it is a choice";
    c.param(std::move(p), Declared::values({0, 1}), std::move(dom));
  }
  add_memory_constraints(c, checked.program, plan, target);
  if (c.zero_divisor)
    c.add({Constraint::Kind::LessEqual, 1, 0, {}, Source::Type,
           fmt::format("at the program's sizes, for every value of the parameters: {}", *c.zero_divisor), {}, {}});
  for (const auto& k : plan.kernels)
    for (const auto& b : k.buffers)
      space.local_memory_emulated = space.local_memory_emulated || (target.local_mem_global && b.space == codegen::AddressSpace::Local);

  // One-variable constraints become the domains.
  std::vector<std::vector<std::int64_t>> domains(space.params.size());
  for (std::size_t i = 0; i < space.params.size(); ++i) domains[i] = prune_domain(space, i, c.declared[i], domains);
  for (std::size_t i = 0; i < space.params.size(); ++i) space.params[i].domain = domains[i];
  // Constraints that hold on the whole box of the domains (memory far below the limits)
  // need neither edges in the graph nor columns in the counting tables.
  for (auto& k : space.constraints)
    k.implied = k.vars.size() >= 2 && detail::implied_by_domains(detail::compile(k, space), domains);
  detail::order_parameters(space);
  return space;
}

std::map<std::string, long long> size_values(const Space& space, const Assignment& p) {
  std::map<std::string, long long> out;
  for (std::size_t i = 0; i < space.params.size(); ++i)
    if (space.params[i].source == Source::Rule) out[space.params[i].name] = p[i];
  return out;
}

codegen::Options codegen_options(const Space& space, const Assignment& p) {
  codegen::Options o;
  o.max_work_group_size = space.target.max_work_group_size;
  o.max_work_item_sizes = space.target.max_work_item_sizes;
  for (std::size_t i = 0; i < space.params.size(); ++i) {
    const auto& n = space.params[i].name;
    if (space.params[i].source != Source::Codegen) continue;
    if (n == "unroll") o.unroll_reduce = p[i] != 0;
    if (n == "mad") o.mad = p[i] != 0;
    if (auto own = space.kernel_work_group_params.find(n); own != space.kernel_work_group_params.end()) {
      if (p[i] > 0) o.kernel_work_groups[own->second.first][own->second.second] = p[i];
      continue;
    }
    for (std::size_t d = 0; d < 3; ++d)
      if (n == fmt::format("local_{}", d)) o.global_work_group[d] = p[i];
  }
  return o;
}

std::string format_assignment(const Space& space, const Assignment& p) {
  std::string params, local;
  bool unroll = false;
  for (std::size_t i = 0; i < space.params.size(); ++i) {
    const auto& n = space.params[i].name;
    if (space.params[i].source == Source::Rule) params += fmt::format("{}{}={}", params.empty() ? "" : ",", n, p[i]);
  }
  auto o = codegen_options(space, p);
  for (std::size_t d = 0; d < 3; ++d)
    if (o.global_work_group[d] > 0) local += fmt::format("{}{}", local.empty() ? "" : ",", o.global_work_group[d]);
  unroll = o.unroll_reduce;
  std::string out;
  if (!params.empty()) out += "--params " + params;
  if (!local.empty()) out += (out.empty() ? "" : " ") + std::string("--local ") + local;
  for (const auto& [buffer, sizes] : o.kernel_work_groups) {
    std::vector<std::int64_t> given;
    for (auto v : sizes)
      if (v > 0) given.push_back(v);
    out += fmt::format("{}--kernel-local {}={}", out.empty() ? "" : " ", buffer, fmt::join(given, ","));
  }
  if (unroll) out += (out.empty() ? "" : " ") + std::string("--unroll");
  if (o.mad) out += (out.empty() ? "" : " ") + std::string("--mad");
  return out;
}

bool holds(const Space& space, const Constraint& c, const Assignment& p) {
  detail::CompiledConstraint k = detail::compile(c, space);
  return detail::check(k, p.data());
}

std::vector<std::size_t> violated(const Space& space, const Assignment& p) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < space.constraints.size(); ++i)
    if (!holds(space, space.constraints[i], p)) out.push_back(i);
  return out;
}

std::optional<std::string> codegen_refusal(const Space& space) {
  for (const auto& c : space.constraints)
    if (c.source == Source::Codegen && c.why.rfind(kRefusal, 0) == 0) return c.why;
  return std::nullopt;
}

}  // namespace liftc::constraints
