// Library candidates (library.hpp): recognising what a CLBlast routine computes, its
// tuning space, and a candidate's steps at a point.

#include "liftc/explore/candidates/library.hpp"

#include <algorithm>
#include <filesystem>
#include <cstdlib>
#include <functional>
#include <map>

#include <fmt/format.h>

#include "liftc/host/execute.hpp"
#include "liftc/explore/evaluation/evaluate.hpp"
#include "liftc/ir/printer.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/rewrite/engine.hpp"
#include "liftc/rewrite/match.hpp"
#include "liftc/runtime/library_call.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/support/file.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace liftc::explore {

bool clblast_available() {
#ifdef LIFTC_HAVE_CLBLAST
  return true;
#else
  return false;
#endif
}

bool is_library_strategy(const std::string& strategy) { return strategy.rfind("clblast-", 0) == 0; }

std::int64_t alternative_number(const Alternative& alt) {
  std::string l = alt.label();
  std::size_t at = l.find(" #");
  return at == std::string::npos ? 1 : std::atoll(l.c_str() + at + 2);
}

namespace {

// A convolution as CLBlast's Convgemm sees it (square kernels, the same padding and stride
// in both dimensions, as rules/library.rules' shapes bind them). The image, kernels and
// biases are expressions of the program's inputs, as .sr text: an input itself, or a view
// or computation of inputs (transposes of a CHW image, [1][1][C] kernels split from [M][C]
// weights, zero biases), which the liftc kernels around the call compute.
struct ConvShape {
  std::string def;
  std::string image, weights, biases;  // [H][W][C] (unpadded), [M][K][K][C], [M]
  std::string activation;              // the element-wise function after each sum, as .sr text ("" = none)
  std::string declarations;            // the program's sizes and inputs, as .sr text
  bool channels_joined = false;        // a layout step joins each pixel's channels after the convolution
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> inputs;  // the program's inputs and their shapes
  std::int64_t C = 0, H = 0, W = 0, M = 0, K = 0, stride = 1, pad = 0, OH = 0, OW = 0;
};

// A matrix product a x b: [M][K] times [K][N].
struct GemmShape {
  std::string def, a, b;
  std::int64_t M = 0, N = 0, K = 0;
};

// One tuning parameter CLBlast takes: its kernel, its name and its domain (a fixed value
// is a domain of one and is not shown to the search).
struct TunedParam {
  std::string kernel, name;
  std::vector<std::int64_t> domain;
};

}  // namespace

struct LibraryAlternative::Impl {
  std::string strategy;
  int number = 1;
  std::vector<TunedParam> tuned;      // every parameter CLBlast is given, in order
  std::vector<std::size_t> searched;  // indices into `tuned` of those with more than one value
  std::vector<Parameter> params;      // the searched ones, as the search sees them
  std::vector<Point> points;          // every valid point, sorted
  std::optional<ConvShape> conv;
  std::optional<GemmShape> gemm;
  std::vector<std::int64_t> output_shape;  // the definition's tensor, as liftc's own points give it
  bool local_emulated = false;          // the target emulates local memory and this kernel always uses it
  std::unique_ptr<Alternative> helper;  // the kernels around the call (layouts, bias, activation)
  Point helper_point;
};

LibraryAlternative::LibraryAlternative(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LibraryAlternative::~LibraryAlternative() = default;
std::string LibraryAlternative::label() const { return fmt::format("{} #{}", impl_->strategy, impl_->number); }
const std::vector<Parameter>& LibraryAlternative::parameters() const { return impl_->params; }
double LibraryAlternative::count() const { return static_cast<double>(impl_->points.size()); }
Point LibraryAlternative::sample(std::mt19937_64& rng) {
  return impl_->points[std::uniform_int_distribution<std::size_t>(0, impl_->points.size() - 1)(rng)];
}
bool LibraryAlternative::valid(const Point& p) const {
  return std::binary_search(impl_->points.begin(), impl_->points.end(), p);
}
bool LibraryAlternative::local_memory_emulated() const { return impl_->local_emulated; }
std::optional<Point> LibraryAlternative::repair(const Point& p) {
  // The nearest valid point, by the sum of the distances in domain positions.
  auto position = [&](std::size_t i, std::int64_t v) {
    const auto& d = impl_->params[i].domain;
    return static_cast<std::int64_t>(std::lower_bound(d.begin(), d.end(), v) - d.begin());
  };
  std::optional<Point> best;
  std::int64_t best_distance = 0;
  for (const Point& q : impl_->points) {
    std::int64_t distance = 0;
    for (std::size_t i = 0; i < q.size() && i < p.size(); ++i) distance += std::llabs(position(i, q[i]) - position(i, p[i]));
    if (!best || distance < best_distance) best = q, best_distance = distance;
  }
  return best;
}

namespace {

// The value of every tuned parameter at `p` (the searched ones from `p`, the others fixed).
std::map<std::string, std::int64_t> values_at(const LibraryAlternative::Impl& a, const Point& p) {
  std::map<std::string, std::int64_t> v;
  std::size_t next = 0;
  for (std::size_t i = 0; i < a.tuned.size(); ++i)
    v[a.tuned[i].name] = a.tuned[i].domain.size() > 1 ? p[next++] : a.tuned[i].domain[0];
  return v;
}

std::int64_t size_value(const arith::Expr& e, const ir::Program& program) {
  std::map<std::string, arith::Expr> values;
  for (const auto& [name, v] : ir::size_values(program)) values[name] = arith::Expr(v);
  std::optional<std::int64_t> c = arith::substitute(e, values).constant();
  if (!c) throw Error(fmt::format("library candidates need sizes with values, not {}", arith::to_string(e)));
  return *c;
}

// The input a bound expression names, or "" when it is not an input of the program.
std::string input_name(const ir::Expr& e, const ir::Program& program) {
  if (e->kind != ir::ExprKind::Var) return "";
  for (const auto& in : program.inputs)
    if (in.name == e->name) return in.name;
  return "";
}

// The definition's body in normal form (the form rules/library.rules' shapes are written
// in); the body as written when normal-form does not apply.
ir::Program normal_form(const ir::Program& program, const rewrite::RuleSet& rules) {
  if (!rules.strategy("normal-form")) return program;
  try {
    auto r = rewrite::rewrite_program(rules, "normal-form", program, {});
    if (!r.programs.empty()) return r.programs.front().program;
  } catch (const Error&) {
  }
  return program;
}

// A library shape's match: what its rule bound, by name. A rules folder whose shape does not
// bind a name explore reads (a rule written with other variable names) is an error naming both.
struct ShapeMatch {
  std::string rule;
  rewrite::Match match;

  const ir::Expr& expr(const std::string& name) const { return bound(match.exprs, name, "expression"); }
  const ir::Expr& function(const std::string& name) const { return bound(match.functions, name, "function"); }
  const arith::Expr& size(const std::string& name) const { return bound(match.sizes, name, "size"); }

 private:
  template <class T>
  const T& bound(const std::map<std::string, T>& in, const std::string& name, const char* kind) const {
    auto it = in.find(name);
    if (it == in.end())
      throw Error(fmt::format("rule {} (a shape of the library candidates, rules/library.rules) binds no {} variable `{}`",
                              rule, kind, name));
    return it->second;
  }
};

std::optional<ShapeMatch> match_shape(const rewrite::RuleSet& rules, const std::string& rule, const ir::Expr& body) {
  const rewrite::Rule* r = rules.rule(rule);
  if (!r) return std::nullopt;
  std::optional<rewrite::Match> m = rewrite::match_pattern(r->lhs, body);
  if (!m) return std::nullopt;
  return ShapeMatch{rule, std::move(*m)};
}

// The convolution of `nf`'s one definition, or why there is none. The shapes are matched on
// the type-checked definition, so that the sizes are read from the types of what they bind.
std::optional<ConvShape> find_conv(const ir::Program& nf, const rewrite::RuleSet& rules, std::string& why) {
  const ir::Program typed = typecheck::typecheck(nf).program;
  const auto& def = typed.defs.front();
  ConvShape c;
  ir::Expr conv = def.body;
  if (std::optional<ShapeMatch> joined = match_shape(rules, "library-joined-channels", conv)) {
    conv = joined->expr("x");
    c.channels_joined = true;
  }
  std::optional<ShapeMatch> m = match_shape(rules, "library-conv2d", conv);
  if (!m) {
    m = match_shape(rules, "library-conv2d-activation", conv);
    if (m) c.activation = ir::to_string(m->function("h"));
  }
  if (!m) {
    why = "its definition is not a 2D convolution of rules/library.rules' shape (after normal-form)";
    return std::nullopt;
  }
  ir::Expr image = m->expr("x");
  if (std::optional<ShapeMatch> padded = match_shape(rules, "library-zero-pad2d", image)) {
    image = padded->expr("img");
    c.pad = size_value(padded->size("p"), nf);
  }
  const ir::Expr& weights = m->expr("ws");
  c.def = def.name;
  c.image = ir::to_string(image);
  c.weights = ir::to_string(weights);
  c.biases = ir::to_string(m->expr("bs"));
  const ir::Type& it = image->type;
  if (!it.is_array() || !it.elem().is_array() || !it.elem().elem().is_array() || !it.elem().elem().elem().is_scalar()) {
    why = "the convolution's image is not [H][W][C] scalars";
    return std::nullopt;
  }
  c.H = size_value(it.length(), nf);
  c.W = size_value(it.elem().length(), nf);
  c.C = size_value(it.elem().elem().length(), nf);
  c.M = size_value(weights->type.length(), nf);
  c.K = size_value(m->size("k"), nf);
  c.stride = size_value(m->size("s"), nf);
  if (c.stride < 1 || c.H + 2 * c.pad < c.K || c.W + 2 * c.pad < c.K) {
    why = "the convolution's window does not fit its padded image";
    return std::nullopt;
  }
  c.OH = (c.H + 2 * c.pad - c.K) / c.stride + 1;
  c.OW = (c.W + 2 * c.pad - c.K) / c.stride + 1;
  for (const auto& size : nf.sizes) c.declarations += "size " + ir::to_string(size) + "\n";
  for (const auto& in : nf.inputs) {
    c.declarations += fmt::format("input {} : {}\n", in.name, ir::to_string(in.type));
    c.inputs.emplace_back(in.name, codegen::shape_of(in.type));
  }
  return c;
}

// The matrix product of `nf`'s one definition, or why there is none.
std::optional<GemmShape> find_gemm(const ir::Program& nf, const rewrite::RuleSet& rules, std::string& why) {
  const auto& def = nf.defs.front();
  std::optional<ShapeMatch> m = match_shape(rules, "library-matmul", def.body);
  if (!m) {
    why = "its definition is not a matrix product of rules/library.rules' shape";
    return std::nullopt;
  }
  GemmShape g;
  g.def = def.name;
  g.a = input_name(m->expr("a"), nf);
  g.b = input_name(m->expr("b"), nf);
  if (g.a.empty() || g.b.empty()) {
    why = "the matrix product's operands are not inputs of the program";
    return std::nullopt;
  }
  for (const auto& in : nf.inputs) {
    if (in.name == g.a) g.M = size_value(in.type.length(), nf), g.K = size_value(in.type.elem().length(), nf);
    if (in.name == g.b) g.N = size_value(in.type.elem().length(), nf);
  }
  return g;
}

// The parameters of one of CLBlast's kernels with the domains of CLBlast's own tuner, from
// the table the runner and deploy check calls against (liftc/runtime/library_call.hpp): a
// parameter that takes another's value (MDIMAD = MDIMCD) is a domain of one, set by the
// validity check. `kernel` names the kernel as CLBlast does (Xconvgemm, XgemmDirect, Xgemm);
// `table` is the one whose parameters it has.
std::vector<TunedParam> tuned_params(const std::string& kernel, const std::string& table) {
  const library_call::Kernel& k = *library_call::find_kernel(table);
  std::vector<TunedParam> params;
  for (std::size_t i = 0; i < k.param_count; ++i) {
    const library_call::Param& p = k.params[i];
    params.push_back({kernel, p.name, p.equals ? std::vector<std::int64_t>{0}
                                               : std::vector<std::int64_t>(p.values.begin(), p.values.begin() + p.count)});
  }
  return params;
}

// Whether `v` (one kernel's values, the derived ones set here) meets the table's constraints
// of kernel `table`.
bool tuner_valid(const std::string& table, std::map<std::string, std::int64_t>& v) {
  const library_call::Kernel& k = *library_call::find_kernel(table);
  for (std::size_t i = 0; i < k.param_count; ++i)
    if (k.params[i].equals) v[k.params[i].name] = v[k.params[i].equals];
  return library_call::constraints_hold(k, v);
}

// CLBlast's XgemmDirect kernel (Convgemm's kernel is one, named Xconvgemm): its tuner's
// variation 1 (MDIMAD = MDIMCD, NDIMBD = NDIMCD; PADA = PADB = 1).
std::vector<TunedParam> direct_params(const std::string& kernel) { return tuned_params(kernel, "XgemmDirect"); }

bool direct_valid(std::map<std::string, std::int64_t>& v, const constraints::Target& t) {
  std::int64_t local = 4 * 2 * v["WGD"] * (v["WGD"] + 1);
  return tuner_valid("XgemmDirect", v) &&
         (t.max_work_group_size <= 0 || v["MDIMCD"] * v["NDIMCD"] <= t.max_work_group_size) &&
         (t.local_mem_bytes <= 0 || local <= t.local_mem_bytes);
}

// CLBlast's indirect Xgemm kernel (a subset of its tuner's domains; the rest fixed: GEMMK 0,
// KREG 1, KWI 2, MDIMA = MDIMC, NDIMB = NDIMC, STRM = STRN = 0).
std::vector<TunedParam> indirect_params() { return tuned_params("Xgemm", "Xgemm"); }

bool indirect_valid(std::map<std::string, std::int64_t>& v, const constraints::Target& t) {
  std::int64_t local = 4 * (v["SA"] * v["KWG"] * v["MWG"] + v["SB"] * v["KWG"] * v["NWG"]);
  return tuner_valid("Xgemm", v) && (t.max_work_group_size <= 0 || v["MDIMC"] * v["NDIMC"] <= t.max_work_group_size) &&
         (t.local_mem_bytes <= 0 || local <= t.local_mem_bytes);
}

// Fills `a`'s searched parameters and enumerates its valid points (`check` may set the
// derived values; those stay out of the point).
void enumerate(LibraryAlternative::Impl& a, const std::function<bool(std::map<std::string, std::int64_t>&)>& check) {
  for (std::size_t i = 0; i < a.tuned.size(); ++i)
    if (a.tuned[i].domain.size() > 1) {
      a.searched.push_back(i);
      a.params.push_back({a.tuned[i].name, a.tuned[i].domain});
    }
  Point p(a.params.size(), 0);
  std::function<void(std::size_t)> walk = [&](std::size_t i) {
    if (i == a.params.size()) {
      std::map<std::string, std::int64_t> v = values_at(a, p);
      if (check(v)) a.points.push_back(p);
      return;
    }
    for (std::int64_t x : a.params[i].domain) p[i] = x, walk(i + 1);
  };
  walk(0);
  std::sort(a.points.begin(), a.points.end());
}

// Every tuned parameter's value at `p`, the derived ones (MDIMAD = MDIMCD, ...) included:
// the validity checks set them.
std::map<std::string, std::int64_t> filled_values(const LibraryAlternative::Impl& a, const Point& p) {
  std::map<std::string, std::int64_t> values = values_at(a, p);
  if (a.gemm && a.number == 2) indirect_valid(values, {});
  else direct_valid(values, {});
  return values;
}

// The liftc program around Convgemm, over the program's inputs: the image (as the match
// bound it: an input or an expression of inputs) to [C][H][W] and the kernels to
// [M][C][K][K] (CLBlast's layouts), and the definition itself from CLBlast's result
// ([M][OH][OW]): the bias added and the activation applied, in the program's layout
// [OH][OW][M] (each pixel's channels joined where the definition joins them). Lowered by
// the normal path (parse, a fallback strategy, codegen).
std::string convgemm_helper_text(const ConvShape& c) {
  std::string value = "map(clblast_x -> clblast_x + clblast_b, clblast_v)";
  if (!c.activation.empty()) value = fmt::format("map({}, {})", c.activation, value);
  std::string result = fmt::format(
      "map(clblast_row -> map(clblast_px -> map((clblast_v, clblast_b) -> {}, zip(clblast_px, {})), clblast_row), "
      "map(clblast_x -> transpose(clblast_x), transpose(clblast_result)))",
      value, c.biases);
  if (c.channels_joined) result = fmt::format("map(clblast_row -> map(clblast_q -> join(clblast_q), clblast_row), {})", result);
  return fmt::format(
      "{declarations}"
      "input clblast_result : [[[[float]1]{OW}]{OH}]{M}\n"
      "def clblast_image = transpose(map(clblast_x -> transpose(clblast_x), {i}))\n"
      "def clblast_weights = map(clblast_w -> transpose(map(clblast_x -> transpose(clblast_x), clblast_w)), {w})\n"
      "def {d} = {result}\n",
      fmt::arg("declarations", c.declarations), fmt::arg("w", c.weights), fmt::arg("i", c.image), fmt::arg("d", c.def),
      fmt::arg("M", c.M), fmt::arg("OH", c.OH), fmt::arg("OW", c.OW), fmt::arg("result", result));
}

std::unique_ptr<LibraryAlternative::Impl> convgemm_alternative(const ConvShape& c, const rewrite::RuleSet& rules,
                                                              const constraints::Target& target) {
  auto a = std::make_unique<LibraryAlternative::Impl>();
  a->strategy = "clblast-convgemm";
  a->conv = c;
  a->tuned = direct_params("Xconvgemm");
  a->local_emulated = target.local_mem_global;
  enumerate(*a, [&](auto& v) { return direct_valid(v, target); });
  auto source = std::make_shared<SourceFile>(SourceFile{"<clblast-convgemm around " + c.def + ">", convgemm_helper_text(c)});
  ir::Program helper = parse::parse_program(source);
  std::optional<std::string> lowering = fallback_strategy(helper, rules);
  CandidateSpace space =
      build_candidate_space(lowering ? fallback_form(helper, rules) : helper, rules, {lowering.value_or("id")}, true, target);
  a->helper = std::move(space.alternatives.front());
  // Its work-groups as large as the space allows: the point nearest to every maximum.
  Point most;
  for (const auto& p : a->helper->parameters()) most.push_back(p.domain.back());
  a->helper_point = a->helper->repair(most).value_or(most);
  return a;
}

runtime::BufferSpec input_buffer(const std::string& name, const interp::Tensors& inputs) {
  auto it = inputs.find(name);
  if (it == inputs.end() || it->second.dtype != io::DType::Float32)
    throw Error(fmt::format("no float input '{}' for the library call", name));
  return runtime::BufferSpec::input(name, it->second.f32);
}

}  // namespace

LibraryCandidate LibraryAlternative::generate(const Point& p, const interp::Tensors& inputs,
                                              const std::string& build_options) const {
  if (!valid(p)) throw Error(fmt::format("{}: ({}) is not a point CLBlast accepts", label(), format_point(*this, p)));
  std::map<std::string, std::int64_t> values = filled_values(*impl_, p);
  runtime::LibraryCall call;
  call.routine = impl_->strategy;
  for (const auto& t : impl_->tuned) call.parameters.emplace_back(t.kernel, t.name, values.at(t.name));
  LibraryCandidate out;
  if (impl_->gemm) {
    const GemmShape& g = *impl_->gemm;
    // CLBlast's choice between its direct and indirect kernel: the size from which it
    // goes indirect (m*n*k >= XGEMM_MIN_INDIRECT_SIZE^3), set so that this alternative's is taken.
    call.parameters.emplace_back("GemmRoutine", "XGEMM_MIN_INDIRECT_SIZE", impl_->number == 1 ? 1048576 : 0);
    // CLBlast compiles its direct and indirect kernels into one program, and keeps overrides
    // for the rest of a (serving) runner's life: the kernel this alternative does not use
    // gets fixed values that compile everywhere, so that an earlier candidate's cannot
    // leak into this one's program.
    const std::map<std::string, std::int64_t> unused =
        impl_->number == 1
            ? std::map<std::string, std::int64_t>{{"GEMMK", 0}, {"KREG", 1}, {"KWG", 16}, {"KWI", 2}, {"MDIMA", 8},
                                                  {"MDIMC", 8}, {"MWG", 64}, {"NDIMB", 8}, {"NDIMC", 8}, {"NWG", 64},
                                                  {"SA", 0}, {"SB", 0}, {"STRM", 0}, {"STRN", 0}, {"VWM", 1}, {"VWN", 1}}
            : std::map<std::string, std::int64_t>{{"KWID", 2}, {"MDIMAD", 8}, {"MDIMCD", 8}, {"NDIMBD", 8},
                                                  {"NDIMCD", 8}, {"PADA", 1},   {"PADB", 1},   {"VWMD", 1},
                                                  {"VWND", 1},   {"WGD", 8}};
    for (const auto& [name, value] : unused)
      call.parameters.emplace_back(impl_->number == 1 ? "Xgemm" : "XgemmDirect", name, value);
    call.sizes = {g.M, g.N, g.K};
    out.plan.buffers = {input_buffer(g.a, inputs), input_buffer(g.b, inputs),
                        runtime::BufferSpec::output(g.def, static_cast<std::size_t>(g.M * g.N))};
    runtime::KernelLaunch step;
    step.library = call;
    step.kernel = call.routine;
    step.args = {runtime::arg_buffer(0), runtime::arg_buffer(1), runtime::arg_buffer(2)};
    out.plan.kernels.push_back(step);
    out.plan.build_options = build_options;
  } else {
    const ConvShape& c = *impl_->conv;
    Generated g = generate_candidate(constraint_alternative(*impl_->helper), impl_->helper_point, build_options);
    interp::Tensors with_result = inputs;
    io::Tensor result;
    result.shape = {c.M, c.OH, c.OW, 1};
    result.f32.assign(static_cast<std::size_t>(c.M * c.OH * c.OW), 0.0f);
    with_result["clblast_result"] = std::move(result);
    out.plan = host::launch_plan(g.module, with_result);
    std::map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < out.plan.buffers.size(); ++i) {
      auto& b = out.plan.buffers[i];
      index[b.name] = i;
      if (b.name == "clblast_result") b.host = std::monostate{};  // CLBlast writes it
      if (b.name == "clblast_image" || b.name == "clblast_weights") b.read_back = false;  // scratch between steps
    }
    call.sizes = {c.C, c.H, c.W, c.K, c.K, c.pad, c.pad, c.stride, c.stride, 1, 1, c.M, 1};
    runtime::KernelLaunch step;
    step.library = call;
    step.kernel = call.routine;
    step.args = {runtime::arg_buffer(index.at("clblast_image")), runtime::arg_buffer(index.at("clblast_weights")),
                 runtime::arg_buffer(index.at("clblast_result"))};
    // The call goes after the layout kernels, before the kernels of the definition itself.
    std::size_t at = 0;
    for (const auto& k : g.module.kernels)
      if (k.definition == "clblast_image" || k.definition == "clblast_weights") ++at;
    out.plan.kernels.insert(out.plan.kernels.begin() + static_cast<std::ptrdiff_t>(at), step);
    out.kernels = g.module.source();
    out.module = std::move(g.module);
  }
  for (const auto& b : out.plan.buffers) out.memory_bytes += static_cast<std::int64_t>(b.bytes);
  return out;
}

codegen::HostPlan LibraryAlternative::host_plan(const Point& p, const std::string& build_options) const {
  // The tensors the program takes and gives, as the match read them from its types.
  std::map<std::string, std::vector<std::int64_t>> shapes;
  std::string output;
  if (impl_->gemm) {
    const GemmShape& g = *impl_->gemm;
    shapes = {{g.a, {g.M, g.K}}, {g.b, {g.K, g.N}}, {g.def, impl_->output_shape}};
    output = g.def;
  } else {
    const ConvShape& c = *impl_->conv;
    shapes = {c.inputs.begin(), c.inputs.end()};
    shapes[c.def] = impl_->output_shape;
    output = c.def;
  }
  interp::Tensors zeros;  // the plan's structure only: its input data is not kept
  for (const auto& [name, shape] : shapes) {
    if (name == output) continue;
    io::Tensor t;
    t.shape = shape;
    t.f32.assign(static_cast<std::size_t>(t.element_count()), 0.0f);
    zeros[name] = std::move(t);
  }
  LibraryCandidate l = generate(p, zeros, build_options);
  return codegen::host_plan(l.plan, l.kernels, shapes);
}

std::string LibraryAlternative::summary() const {
  if (impl_->conv) {
    const ConvShape& c = *impl_->conv;
    return fmt::format("CLBlast Sconvgemm (cross-correlation) for {}: C={} H={} W={} K={} pad={} stride={} M={}, between "
                       "liftc kernels for the layouts ([H][W][C] to [C][H][W], [M][K][K][C] to [M][C][K][K]) and the "
                       "bias{} ([M][OH][OW] to [OH][OW][M])\n",
                       c.def, c.C, c.H, c.W, c.K, c.pad, c.stride, c.M, c.activation.empty() ? "" : " and " + c.activation);
  }
  const GemmShape& g = *impl_->gemm;
  return fmt::format("CLBlast Sgemm (row-major) for {}: M={} N={} K={}, its {} kernel\n", g.def, g.M, g.N, g.K,
                     impl_->number == 1 ? "direct (XgemmDirect)" : "indirect (Xgemm, with its copy and pad kernels)");
}

std::vector<std::string> LibraryAlternative::constraint_lines() const {
  if (impl_->gemm && impl_->number == 2)
    return {"MDIMA = MDIMC, NDIMB = NDIMC, KWI = 2, GEMMK = 0, KREG = 1, STRM = STRN = 0 (fixed)",
            "KWG % KWI == 0, MWG % (MDIMC * VWM) == 0, NWG % (NDIMC * VWN) == 0, KWG % MDIMC == 0, KWG % NDIMC == 0",
            "MDIMC * NDIMC <= the target's work-group size",
            "4 * (SA * KWG * MWG + SB * KWG * NWG) <= the target's local memory",
            "GemmRoutine.XGEMM_MIN_INDIRECT_SIZE = 0 (CLBlast takes its indirect kernel)"};
  std::vector<std::string> lines = {
      "MDIMAD = MDIMCD, NDIMBD = NDIMCD, PADA = PADB = 1 (fixed: the tuner's variation 1)",
      "WGD % KWID == 0, WGD % (MDIMCD * VWMD) == 0, WGD % (NDIMCD * VWND) == 0",
      "MDIMCD * NDIMCD <= the target's work-group size", "8 * WGD * (WGD + 1) <= the target's local memory"};
  if (impl_->gemm) lines.push_back("GemmRoutine.XGEMM_MIN_INDIRECT_SIZE = 1048576 (CLBlast takes its direct kernel)");
  else lines.push_back("KernelMode = cross-correlation (fixed: a window times a kernel as written)");
  return lines;
}

void LibraryAlternative::write_front_files(const Point& p, const std::string& dir, const std::string&,
                                           const std::string& build_options) const {
  std::filesystem::path project(dir);
  write_file((project / "README.txt").string(), describe(p));
  write_file((project / "plan.json").string(), codegen::plan_json(host_plan(p, build_options)));
}

std::string LibraryAlternative::describe(const Point& p) const {
  std::map<std::string, std::int64_t> values = filled_values(*impl_, p);
  std::string out = fmt::format("{} ({})\n{}", label(), format_point(*this, p), summary());
  for (const auto& t : impl_->tuned) out += fmt::format("  {}.{} = {}\n", t.kernel, t.name, values.at(t.name));
  out += "No host program is generated for a CLBlast point: liftc's host programs run generated kernels only; "
         "liftc explore runs its steps in liftc-runner. plan.json holds its steps (liftc's kernels and the library "
         "call): liftc deploy builds it into a front's library, linked with CLBlast.\n";
  return out;
}

std::vector<std::unique_ptr<LibraryAlternative>> library_alternatives(const ir::Program& program, const rewrite::RuleSet& rules,
                                                               const std::vector<std::string>& strategies,
                                                               bool strategies_given, const constraints::Target& target) {
  std::vector<std::unique_ptr<LibraryAlternative>> out;
  std::vector<std::string> wanted;
  std::vector<std::string> all(std::begin(kLibraryStrategies), std::end(kLibraryStrategies));
  for (const auto& s : strategies_given ? strategies : all)
    if (is_library_strategy(s)) wanted.push_back(s);
  if (wanted.empty()) return out;
  if (!clblast_available()) {
    if (strategies_given) throw Error(std::string(kNoClblastNote).substr(6));
    return out;
  }
  // CLBlast's calls take the sizes as numbers: a program with a size without a value
  // (given only when it is run) is not offered them.
  bool bound = std::all_of(program.sizes.begin(), program.sizes.end(), [](const ir::SizeDecl& d) { return d.value.has_value(); });
  ir::Program nf = bound ? normal_form(ir::bind_sizes(program, {}), rules) : program;
  // The definition's tensor shape, from its type (a [OH][OW][M][1] convolution stays so).
  auto output_shape = [&] { return codegen::shape_of(typecheck::typecheck(nf).program.defs.front().body->type); };
  for (const auto& s : wanted) {
    std::string why;
    if (s != "clblast-convgemm" && s != "clblast-gemm") {
      why = "there is no such library strategy (clblast-convgemm, clblast-gemm)";
    } else if (!bound) {
      why = "a size of the program has no value (CLBlast's calls take the sizes as numbers)";
    } else if (nf.defs.size() != 1) {
      why = "the program has more than one definition";
    } else if (s == "clblast-convgemm") {
      if (auto c = find_conv(nf, rules, why)) {
        auto a = convgemm_alternative(*c, rules, target);
        a->output_shape = output_shape();
        out.push_back(std::make_unique<LibraryAlternative>(std::move(a)));
        continue;
      }
    } else if (auto g = find_gemm(nf, rules, why)) {
      for (int number : {1, 2}) {  // CLBlast's direct kernel, its indirect one
        auto a = std::make_unique<LibraryAlternative::Impl>();
        a->strategy = s;
        a->number = number;
        a->gemm = g;
        a->output_shape = output_shape();
        a->tuned = number == 1 ? direct_params("XgemmDirect") : indirect_params();
        a->local_emulated = number == 1 && target.local_mem_global;
        if (number == 1) enumerate(*a, [&](auto& v) { return direct_valid(v, target); });
        else enumerate(*a, [&](auto& v) { return indirect_valid(v, target); });
        out.push_back(std::make_unique<LibraryAlternative>(std::move(a)));
      }
      continue;
    }
    if (strategies_given) throw Error(fmt::format("strategy {} does not apply: {}", s, why));
  }
  return out;
}

}  // namespace liftc::explore
