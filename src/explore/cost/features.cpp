// A candidate's features, read from its generated kernels: NDRanges, the memory plan, and
// a walk over each kernel's C syntax tree that counts what one work-item does.

#include "liftc/explore/cost/features.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "liftc/codegen/c_ast.hpp"
#include "liftc/codegen/host_plan.hpp"
#include "liftc/codegen/module.hpp"
#include "liftc/explore/candidates/constraint_space.hpp"
#include "liftc/explore/candidates/library.hpp"
#include "liftc/explore/evaluation/candidate.hpp"
#include "liftc/explore/evaluation/evaluate.hpp"
#include "liftc/explore/evaluation/generation_memo.hpp"
#include "liftc/explore/products/output.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::explore::cost {

namespace {

// What one kernel does, per work-item unless named otherwise.
struct KernelFacts {
  double global_size = 0;         // work-items of the NDRange
  double local_size = 0;          // work-items of a work-group; 0: the OpenCL runtime chooses
  double work_groups = 0;         // 0 when the runtime chooses the work-group size
  double work_groups_per_cu = 0;  // work_groups over the device's compute units
  double global_read_bytes = 0, global_write_bytes = 0;
  double local_read_bytes = 0, local_write_bytes = 0;
  double constant_read_bytes = 0;
  double local_bytes = 0;    // allocated per work-group
  double private_bytes = 0;  // private arrays and variables of the memory plan
  double float_ops = 0, int_ops = 0;
  double trip_product = 1;  // the largest product of trip counts along one nest of loops
  double loop_depth = 0;
  double barriers = 0;
  double vector_width = 1;
};

// How a kernel feature is totalled over the kernels of a candidate.
enum class Total { Sum, Max };

// One feature of a kernel: `k<i>.<name>` for each kernel and `sum.<name>` or `max.<name>` over them.
struct KernelFeature {
  const char* name;
  Total total;
  double KernelFacts::*value;
  const char* meaning;
};

constexpr KernelFeature kKernelFeatures[] = {
    {"global_size", Total::Sum, &KernelFacts::global_size, "work-items of the NDRange"},
    {"local_size", Total::Max, &KernelFacts::local_size, "work-items per work-group (0: the OpenCL runtime chooses)"},
    {"work_groups", Total::Sum, &KernelFacts::work_groups, "work-groups (0: the runtime chooses their size)"},
    {"work_groups_per_cu", Total::Sum, &KernelFacts::work_groups_per_cu, "work-groups per compute unit of the device"},
    {"global_read_bytes", Total::Sum, &KernelFacts::global_read_bytes, "bytes a work-item reads from global memory"},
    {"global_write_bytes", Total::Sum, &KernelFacts::global_write_bytes, "bytes a work-item writes to global memory"},
    {"local_read_bytes", Total::Sum, &KernelFacts::local_read_bytes, "bytes a work-item reads from local memory"},
    {"local_write_bytes", Total::Sum, &KernelFacts::local_write_bytes, "bytes a work-item writes to local memory"},
    {"constant_read_bytes", Total::Sum, &KernelFacts::constant_read_bytes, "bytes a work-item reads from constant arrays"},
    {"local_bytes", Total::Max, &KernelFacts::local_bytes, "local memory a work-group allocates (bytes)"},
    {"private_bytes", Total::Max, &KernelFacts::private_bytes, "private arrays and variables of a work-item (bytes)"},
    {"float_ops", Total::Sum, &KernelFacts::float_ops, "float operations of a work-item (per lane)"},
    {"int_ops", Total::Sum, &KernelFacts::int_ops, "integer operations of a work-item (index arithmetic included)"},
    {"trip_product", Total::Max, &KernelFacts::trip_product, "largest product of trip counts along a loop nest"},
    {"loop_depth", Total::Max, &KernelFacts::loop_depth, "deepest nest of loops"},
    {"barriers", Total::Sum, &KernelFacts::barriers, "barriers a work-item passes"},
    {"vector_width", Total::Max, &KernelFacts::vector_width, "widest vector load, store or operation (1: scalars)"},
};

// Bytes of a scalar of a buffer or array (float and int alike: bytes_of's 4).
constexpr double kScalarBytes = 4;

// Operations of an index expression as C computes it: one per operator of its canonical form.
double index_ops(const arith::Expr& e) {
  const auto& operands = e.operands();
  double ops = 0;
  switch (e.kind()) {
    case arith::Kind::Cst:
    case arith::Kind::Var: return 0;
    case arith::Kind::Sum:
    case arith::Kind::Prod: ops = static_cast<double>(operands.size()) - 1; break;
    case arith::Kind::Div:
    case arith::Kind::Mod:
    case arith::Kind::Min:
    case arith::Kind::Max: ops = 1; break;
  }
  for (const auto& o : operands) ops += index_ops(o);
  return ops;
}

// The largest value `e` takes (its upper bound from the ranges of the loop variables in it).
std::optional<std::int64_t> largest(const arith::Expr& e) {
  if (auto c = e.constant()) return c;
  if (auto ub = arith::upper_bound(e)) return ub->constant();
  return std::nullopt;
}

// Lanes of a value of type `t` (1 for a scalar).
double lanes(const ir::Type& t) { return t.is_vector() ? t.width() : 1; }

bool is_float(const ir::Type& t) {
  return (t.is_scalar() || t.is_vector()) && t.scalar_kind() == ir::ScalarKind::Float;
}

// Counts what one work-item of a kernel does, each statement weighted by how often it runs:
// the product of the trip counts of the loops around it (an `if`'s body counted as if it ran).
class Walk {
 public:
  Walk(const codegen::c::Function& f, KernelFacts& facts) : facts_(facts) {
    for (const auto& p : f.params)
      if (p.pointer) spaces_[p.name] = p.space;
    for (const auto& s : f.body) stmt(s, 1, 0);
  }

 private:
  void stmt(const codegen::c::Stmt& s, double times, int depth) {
    using codegen::c::StmtKind;
    switch (s->kind) {
      case StmtKind::Block:
        for (const auto& b : s->body) stmt(b, times, depth);
        return;
      case StmtKind::Decl:
        if (s->length || !s->values.empty()) spaces_[s->name] = s->values.empty() ? s->space : codegen::AddressSpace::Constant;
        if (s->value) expr(s->value, times);
        return;
      case StmtKind::Assign: expr(s->value, times); return;
      case StmtKind::Store: {
        access(s->name, s->width, times, /*write=*/true);
        count_index(s->offset, times);
        expr(s->value, times);
        return;
      }
      case StmtKind::For: {
        double trips = trip_count(*s);
        expr(s->start, times);
        double nest = nest_ * trips;
        std::swap(nest_, nest);
        facts_.trip_product = std::max(facts_.trip_product, nest_);
        facts_.loop_depth = std::max(facts_.loop_depth, static_cast<double>(depth + 1));
        for (const auto& b : s->body) stmt(b, times * trips, depth + 1);
        std::swap(nest_, nest);
        return;
      }
      case StmtKind::If:
        expr(s->value, times);
        for (const auto& b : s->body) stmt(b, times, depth);
        return;
      case StmtKind::Barrier: facts_.barriers += times; return;
      case StmtKind::Comment: return;
    }
  }

  void expr(const codegen::c::Expr& e, double times) {
    using codegen::c::ExprKind;
    if (!e) return;
    switch (e->kind) {
      case ExprKind::Literal:
      case ExprKind::Name:
      case ExprKind::WorkItem: break;
      case ExprKind::Index: count_index(e->index, times); break;
      case ExprKind::Unary:
      case ExprKind::Binary: {
        // The operands' type: a comparison of floats is a float operation with a bool result.
        const ir::Type& t = e->args[0]->type;
        count_op(t, lanes(t) * times);
        break;
      }
      case ExprKind::Call: count_call(*e, times); break;
      case ExprKind::Load:
        access(e->text, e->width, times, /*write=*/false);
        count_index(e->index, times);
        break;
      case ExprKind::Ternary:
      case ExprKind::Lane:
      case ExprKind::Cast: break;
    }
    for (const auto& a : e->args) expr(a, times);
  }

  // dot(a, b) of w lanes is w products and w-1 sums; fma and mad two operations a lane; a
  // conversion none; any other function (fmin, exp, ...) one a lane.
  void count_call(const codegen::c::ExprNode& e, double times) {
    const ir::Type& arg = e.args.empty() ? e.type : e.args[0]->type;
    if (e.text == "dot") {
      count_op(arg, (2 * lanes(arg) - 1) * times);
    } else if (e.text == "fma" || e.text == "mad") {
      count_op(arg, 2 * lanes(arg) * times);
    } else if (e.text.rfind("convert_", 0) != 0) {
      count_op(arg, lanes(arg) * times);
    }
  }

  void count_op(const ir::Type& t, double ops) {
    if (is_float(t)) {
      facts_.float_ops += ops;
      facts_.vector_width = std::max(facts_.vector_width, lanes(t));
    } else {
      facts_.int_ops += ops;
    }
  }

  void count_index(const arith::Expr& e, double times) { facts_.int_ops += index_ops(e) * times; }

  void access(const std::string& buffer, int width, double times, bool write) {
    auto it = spaces_.find(buffer);
    LIFTC_ASSERT(it != spaces_.end(), "every buffer a kernel loads or stores is a parameter or an array it declares");
    double bytes = kScalarBytes * width * times;
    facts_.vector_width = std::max(facts_.vector_width, static_cast<double>(width));
    switch (it->second) {
      case codegen::AddressSpace::Global: (write ? facts_.global_write_bytes : facts_.global_read_bytes) += bytes; break;
      case codegen::AddressSpace::Local: (write ? facts_.local_write_bytes : facts_.local_read_bytes) += bytes; break;
      case codegen::AddressSpace::Constant: facts_.constant_read_bytes += bytes; break;
      case codegen::AddressSpace::Private: break;  // registers: private_bytes counts them
    }
  }

  // Iterations of `for (v = start; v < end; v += step)` for one work-item: from start, or from
  // 0 where start is a work-item's id (its first value lies below the step: ceil(end/step) is
  // the most a work-item runs).
  static double trip_count(const codegen::c::StmtNode& s) {
    std::int64_t start = 0, step = 1;
    if (s.start && s.start->kind == codegen::c::ExprKind::Index)
      if (auto c = s.start->index.constant()) start = *c;
    if (s.step && s.step->kind == codegen::c::ExprKind::Index)
      if (auto c = largest(s.step->index)) step = std::max<std::int64_t>(*c, 1);
    std::optional<std::int64_t> end = largest(s.end);
    LIFTC_ASSERT(end, "a loop's bound is a constant or bounded by the loops around it when sizes are bound");
    if (*end <= start) return 0;
    return static_cast<double>((*end - start + step - 1) / step);
  }

  KernelFacts& facts_;
  std::map<std::string, codegen::AddressSpace> spaces_;  // buffers and arrays by name
  double nest_ = 1;                                       // product of the trip counts of the loops around
};

// A kernel's facts: its NDRange and memory from the module, the rest from its syntax tree.
KernelFacts kernel_facts(const codegen::Module& m, const codegen::Kernel& k, const FeatureContext& ctx) {
  KernelFacts f;
  f.global_size = 1;
  for (int d = 0; d < k.launch.dims; ++d) f.global_size *= static_cast<double>(codegen::evaluate(k.launch.global[d], m));
  if (k.launch.has_local()) {
    f.local_size = 1;
    for (int d = 0; d < k.launch.dims; ++d) f.local_size *= static_cast<double>(codegen::evaluate(k.launch.local[d], m));
    f.work_groups = f.global_size / f.local_size;
    if (ctx.compute_units > 0) f.work_groups_per_cu = f.work_groups / static_cast<double>(ctx.compute_units);
  }
  for (const auto& b : m.memory.buffers) {
    if (b.kernel != k.name) continue;
    if (b.space == codegen::AddressSpace::Local) f.local_bytes += static_cast<double>(codegen::evaluate(b.bytes, m));
    if (b.space == codegen::AddressSpace::Private) f.private_bytes += static_cast<double>(codegen::evaluate(b.bytes, m));
  }
  Walk(k.function, f);
  return f;
}

// A library step's facts: its NDRange (CLBlast's kernels are not liftc's: what they read and
// compute is not known here).
KernelFacts step_facts(const codegen::HostKernel& k, const FeatureContext& ctx) {
  KernelFacts f;
  if (k.library) return f;
  f.global_size = 1;
  for (int d = 0; d < k.dims; ++d) f.global_size *= static_cast<double>(k.global[d]);
  if (k.has_local()) {
    f.local_size = 1;
    for (int d = 0; d < k.dims; ++d) f.local_size *= static_cast<double>(k.local[d]);
    f.work_groups = f.global_size / f.local_size;
    if (ctx.compute_units > 0) f.work_groups_per_cu = f.work_groups / static_cast<double>(ctx.compute_units);
  }
  return f;
}

// The meanings of the features that are not a kernel feature, by name.
const std::map<std::string, std::string>& other_meanings() {
  static const std::map<std::string, std::string> meanings = {
      {"alternative", "the alternative's number within its strategy (1-based)"},
      {"local_emulated", "1: its kernels use local memory that the target emulates in global memory"},
      {"kernels", "kernels launched (library calls included)"},
      {"library_calls", "calls of a library routine (CLBlast)"},
      {"memory_bytes", "global memory of every buffer (the memory objective)"},
      {"total.global_bytes", "bytes moved to and from global memory by all work-items"},
      {"total.local_bytes", "bytes moved to and from local memory by all work-items"},
      {"total.float_ops", "float operations of all work-items"},
      {"total.int_ops", "integer operations of all work-items"},
      {"total.barriers", "barriers passed by all work-items"},
      {"intensity", "total.float_ops per byte of total.global_bytes"},
      {"local_share", "max.local_bytes over the device's local memory per work-group"},
  };
  return meanings;
}

// What feature `name` means, for the table.
std::string meaning(const std::string& name) {
  if (name.rfind("strategy.", 0) == 0) return "1: the candidate's strategy is " + name.substr(9);
  if (name.rfind("param.", 0) == 0) return "tuning parameter " + name.substr(6);
  if (auto it = other_meanings().find(name); it != other_meanings().end()) return it->second;
  std::string base = name.substr(name.find('.') + 1);
  for (const auto& kf : kKernelFeatures) {
    if (base != kf.name) continue;
    if (name.rfind("sum.", 0) == 0) return std::string(kf.meaning) + ", summed over the kernels";
    if (name.rfind("max.", 0) == 0) return std::string(kf.meaning) + ", the most of any kernel";
    return kf.meaning;
  }
  return "";
}

// A candidate's kernels (a library candidate's steps): their facts and names, its library
// calls and its memory.
struct Kernels {
  std::vector<KernelFacts> facts;
  std::vector<std::string> names;
  double library_calls = 0;
  double memory_bytes = 0;
};

// liftc's kernels of candidate `c` (of alternative `alt`), generated as the evaluator
// generates them: by the context's memo when it has one (the evaluator's generation, or one
// it will use), else here.
Kernels generated_kernels(const ConstraintAlternative& alt, const Candidate& c, const FeatureContext& ctx) {
  LIFTC_ASSERT(!ctx.generations || ctx.generations->build_options() == ctx.build_options,
               "kernels kept for the features are generated with their build options");
  std::shared_ptr<const Generated> g =
      ctx.generations ? ctx.generations->generated(c, GenerationMemo::User::Features)
                      : std::make_shared<const Generated>(generate_candidate(alt, c.point, ctx.build_options));
  Kernels out;
  out.memory_bytes = static_cast<double>(g->memory_bytes);
  for (const auto& k : g->module.kernels) {
    out.facts.push_back(kernel_facts(g->module, k, ctx));
    out.names.push_back(k.name);
  }
  return out;
}

// A library candidate's steps, from its host plan.
Kernels library_steps(const CandidateAlternative& alt, const Point& p, const FeatureContext& ctx) {
  Kernels out;
  codegen::HostPlan plan = alt.host_plan(p, ctx.build_options);
  out.memory_bytes = static_cast<double>(plan.global_bytes());
  for (const auto& stage : plan.stages)
    for (const auto& k : stage.kernels) {
      out.facts.push_back(step_facts(k, ctx));
      out.names.push_back(k.name);
      if (k.library) out.library_calls += 1;
    }
  return out;
}

}  // namespace

struct LibrarySteps {
  std::map<std::size_t, Kernels> by_alternative;  // by index into the context's space
};

namespace {

// The kernels of `candidate`, of alternative `alt` of the context's space; a library
// alternative's steps kept by the context from its first candidate (FeatureContext::library_steps).
Kernels kernels_of(const Candidate& candidate, const Alternative& alt, const FeatureContext& ctx) {
  const CandidateAlternative& generator = candidate_of(alt);
  if (const ConstraintAlternative* constraint = generator.constraint_space())
    return generated_kernels(*constraint, candidate, ctx);
  if (!alt.valid(candidate.point))
    throw Error(fmt::format("{}: ({}) is not a valid point", alt.label(), format_point(alt, candidate.point)));
  if (!ctx.library_steps) return library_steps(generator, candidate.point, ctx);
  auto& kept = ctx.library_steps->by_alternative;
  auto it = kept.find(candidate.alternative);
  if (it == kept.end()) it = kept.emplace(candidate.alternative, library_steps(generator, candidate.point, ctx)).first;
  return it->second;
}

}  // namespace

std::optional<float> FeatureVector::find(const std::string& name) const {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return values[i];
  return std::nullopt;
}

std::vector<std::string> feature_strategies(const rewrite::RuleSet& rules) {
  std::vector<std::string> out;
  for (const auto& s : rules.strategies) out.push_back(s.name);
  for (const char* s : kLibraryStrategies) out.emplace_back(s);
  out.emplace_back("id");
  return out;
}

FeatureContext feature_context(const CandidateSpace& space, const rewrite::RuleSet& rules,
                               const constraints::Target& target, std::string build_options) {
  FeatureContext ctx;
  ctx.space = &space;
  ctx.strategies = feature_strategies(rules);
  for (const auto& alt : space.alternatives)
    if (std::find(ctx.strategies.begin(), ctx.strategies.end(), alt->strategy()) == ctx.strategies.end())
      ctx.strategies.push_back(alt->strategy());
  ctx.compute_units = target.compute_units;
  ctx.local_mem_bytes = target.local_mem_bytes;
  ctx.build_options = std::move(build_options);
  ctx.library_steps = std::make_shared<LibrarySteps>();
  return ctx;
}

FeatureVector candidate_features(const Candidate& candidate, const FeatureContext& ctx) {
  LIFTC_ASSERT(ctx.space && candidate.alternative < ctx.space->alternatives.size(),
               "a candidate's alternative is one of its context's space");
  const Alternative& alt = *ctx.space->alternatives[candidate.alternative];
  LIFTC_ASSERT(candidate.point.size() == alt.parameters().size(), "a candidate's point has a value of every parameter");

  Kernels kernels = kernels_of(candidate, alt, ctx);
  FeatureVector out;
  out.alternative = alt.label();
  out.point = format_point(alt, candidate.point);
  out.kernels = kernels.names;

  auto add = [&out](std::string name, double value) {
    out.names.push_back(std::move(name));
    out.values.push_back(static_cast<float>(value));
  };
  // What is common to every alternative: the strategy, the alternative's number, the sums.
  std::string strategy = alt.strategy();
  for (const auto& s : ctx.strategies) add("strategy." + s, s == strategy ? 1 : 0);
  add("alternative", static_cast<double>(alternative_number(alt)));
  add("local_emulated", alt.local_memory_emulated() ? 1 : 0);
  add("kernels", static_cast<double>(kernels.facts.size()));
  add("library_calls", kernels.library_calls);
  add("memory_bytes", kernels.memory_bytes);
  for (const auto& kf : kKernelFeatures) {
    double total = 0;
    for (const auto& k : kernels.facts) total = kf.total == Total::Sum ? total + k.*kf.value : std::max(total, k.*kf.value);
    add(fmt::format("{}.{}", kf.total == Total::Sum ? "sum" : "max", kf.name), total);
  }
  double global_bytes = 0, local_bytes = 0, float_ops = 0, int_ops = 0, barriers = 0, most_local = 0;
  for (const auto& k : kernels.facts) {
    global_bytes += k.global_size * (k.global_read_bytes + k.global_write_bytes);
    local_bytes += k.global_size * (k.local_read_bytes + k.local_write_bytes);
    float_ops += k.global_size * k.float_ops;
    int_ops += k.global_size * k.int_ops;
    barriers += k.global_size * k.barriers;
    most_local = std::max(most_local, k.local_bytes);
  }
  add("total.global_bytes", global_bytes);
  add("total.local_bytes", local_bytes);
  add("total.float_ops", float_ops);
  add("total.int_ops", int_ops);
  add("total.barriers", barriers);
  add("intensity", global_bytes > 0 ? float_ops / global_bytes : 0);
  add("local_share", ctx.local_mem_bytes > 0 ? most_local / static_cast<double>(ctx.local_mem_bytes) : 0);
  out.common = out.names.size();

  // The alternative's own: each kernel's features, then the tuning parameters.
  for (std::size_t i = 0; i < kernels.facts.size(); ++i)
    for (const auto& kf : kKernelFeatures) add(fmt::format("k{}.{}", i, kf.name), kernels.facts[i].*kf.value);
  for (std::size_t i = 0; i < alt.parameters().size(); ++i)
    add("param." + alt.parameters()[i].name, static_cast<double>(candidate.point[i]));
  return out;
}

FeatureVector point_features(const std::vector<std::string>& strategies, const std::string& strategy,
                             std::int64_t alternative, const std::vector<std::pair<std::string, std::int64_t>>& params) {
  FeatureVector out;
  for (const auto& s : strategies) {
    out.names.push_back("strategy." + s);
    out.values.push_back(s == strategy ? 1.0f : 0.0f);
  }
  out.names.push_back("alternative");
  out.values.push_back(static_cast<float>(alternative));
  out.common = out.names.size();
  for (const auto& [name, value] : params) {
    out.names.push_back("param." + name);
    out.values.push_back(static_cast<float>(value));
  }
  return out;
}

FeatureVector requested_features(const FeatureRequest& request, const rewrite::RuleSet& rules) {
  // The strategy's alternatives as explore builds them (an unknown strategy, or one that does
  // not apply, is the rewriter's error).
  std::vector<std::string> skipped;
  CandidateSpace space = build_candidate_space(request.program, rules, {request.strategy}, true, request.target, &skipped);
  std::string label = fmt::format("{} #{}", request.strategy, request.alternative);
  Candidate candidate;
  while (candidate.alternative < space.alternatives.size() &&
         space.alternatives[candidate.alternative]->label() != label)
    ++candidate.alternative;
  if (candidate.alternative == space.alternatives.size()) {
    if (std::find(skipped.begin(), skipped.end(), label) != skipped.end())
      throw Error(fmt::format("--alternative {}: {} has no valid point on {} (liftc space shows its constraints)",
                              request.alternative, label, request.target.name));
    std::int64_t last = 0;
    for (const auto& alt : space.alternatives) last = std::max(last, alternative_number(*alt));
    for (const auto& s : skipped) last = std::max(last, static_cast<std::int64_t>(std::atoll(s.c_str() + s.rfind('#') + 1)));
    throw Error(fmt::format("--alternative {}: strategy {} gives {} alternative(s)", request.alternative,
                            request.strategy, last));
  }
  Alternative& alt = *space.alternatives[candidate.alternative];
  candidate.point = parse_point(alt, request.point, "--params");
  if (!alt.valid(candidate.point)) {
    std::vector<std::string> why;
    if (is_constraint_alternative(alt)) {
      const constraints::Space& s = constraint_alternative(alt).space();
      for (std::size_t i : constraints::violated(s, candidate.point))
        why.push_back(fmt::format("{} ({})", constraints::to_string(s.constraints[i]), s.constraints[i].why));
    }
    throw Error(fmt::format("--params: {} is not a valid point of {}{}{}", request.point, label,
                            why.empty() ? "" : ": it violates ", fmt::join(why, "; ")));
  }
  return candidate_features(candidate, feature_context(space, rules, request.target, request.build_options));
}

std::string features_table(const FeatureVector& features) {
  std::string out;
  for (std::size_t i = 0; i < features.kernels.size(); ++i) out += fmt::format("k{}: {}\n", i, features.kernels[i]);
  std::size_t width = 7;  // "feature"
  for (const auto& n : features.names) width = std::max(width, n.size());
  out += fmt::format("{:<{}}  {:>14}  {}\n", "feature", width, "value", "meaning");
  for (std::size_t i = 0; i < features.names.size(); ++i)
    out += fmt::format("{:<{}}  {:>14}  {}\n", features.names[i], width, fmt::format("{}", features.values[i]),
                       meaning(features.names[i]));
  return out;
}

std::string features_json(const FeatureVector& features) {
  nlohmann::ordered_json values = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < features.names.size(); ++i) values[features.names[i]] = features.values[i];
  nlohmann::ordered_json out;
  out["alternative"] = features.alternative;
  out["point"] = features.point;
  out["kernels"] = features.kernels;
  out["common"] = features.common;
  out["features"] = std::move(values);
  return out.dump(2) + "\n";
}

}  // namespace liftc::explore::cost
