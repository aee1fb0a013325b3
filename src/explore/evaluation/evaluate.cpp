// One candidate: generate, bundle, run in a watched runner, record.

#include "liftc/explore/evaluation/evaluate.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "liftc/explore/candidates/library.hpp"
#include "liftc/explore/evaluation/bundle_pack.hpp"
#include "liftc/explore/evaluation/generation_memo.hpp"
#include "liftc/explore/candidates/magnitude_form.hpp"
#include "liftc/explore/search/searches.hpp"
#include "liftc/explore/search/warm_start.hpp"
#include "liftc/explore/evaluation/worker.hpp"
#include "liftc/host/execute.hpp"
#include "liftc/interp/interp.hpp"
#include "liftc/interp/magnitude.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/support/file.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace liftc::explore {

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("cannot read {}", path));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The plan's launch and buffers as text: part of what an evaluation's key hashes.
std::string describe_plan(const runtime::LaunchPlan& plan) {
  // Build options only when there are some, so the keys of earlier stores stay the same.
  std::string out = plan.build_options.empty() ? "" : "options " + plan.build_options + "\n";
  for (const auto& b : plan.buffers) out += fmt::format("buffer {} {} {}\n", b.name, b.bytes, b.read_back);
  for (const auto& k : plan.kernels) {
    if (k.library) {
      out += fmt::format("library {} {}", k.library->routine, fmt::join(k.library->sizes, " "));
      for (const auto& [kernel, name, value] : k.library->parameters) out += fmt::format(" {}.{}={}", kernel, name, value);
    } else {
      out += fmt::format("kernel {} {} {}", k.kernel, k.global.str(), k.local.str());
    }
    for (const auto& a : k.args) {
      if (auto* b = std::get_if<runtime::BufferArg>(&a)) out += fmt::format(" b{}", b->buffer);
      else if (auto* i = std::get_if<runtime::IntArg>(&a)) out += fmt::format(" i{}", i->value);
      else if (auto* f = std::get_if<runtime::FloatArg>(&a)) out += fmt::format(" f{}", f->value);
      else out += fmt::format(" l{}", std::get<runtime::LocalArg>(a).bytes);
    }
    out += "\n";
  }
  return out;
}

std::int64_t json_int(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<std::int64_t>() : 0;
}

}  // namespace

namespace {

// The program at its declared sizes, checked, with its inputs and hash (no reference yet).
Problem start_problem(const std::string& file, std::uint64_t seed, const codegen::StorageChoice& storage,
                      ir::Program* checked_out) {
  Problem p;
  p.file = file;
  ir::Program program = parse::load_program(file);
  typecheck::typecheck(program);
  ir::Program checked = typecheck::typecheck(ir::bind_sizes(program, {})).program;
  p.inputs = interp::random_inputs(checked, seed);
  p.shapes = shapes_text(p.inputs);
  checked.half = codegen::half_buffers(checked, storage);
  // Float storage hashes as before --storage was: stores made then keep their references.
  std::string stored = storage.any() ? fmt::format("\nstorage half={}", fmt::join(checked.half, ",")) : "";
  p.program_hash = hash_text(fmt::format("{}\nseed {}\nshapes {}{}", read_text(file), seed, p.shapes, stored));
  if (checked_out) *checked_out = std::move(checked);
  return p;
}

}  // namespace

namespace {

// Why `ref` cannot be the interpreter's outputs of `checked` (empty when it can be): one
// tensor for each definition the interpreter gives one for (an array or scalar of scalars
// or vectors), of that definition's type and shape.
std::string reference_mismatch(const ir::Program& checked, const interp::Tensors& ref) {
  std::size_t outputs = 0;
  for (const auto& def : checked.defs) {
    const ir::Type* leaf = &def.body.type();
    while (leaf->is_array()) leaf = &leaf->elem();
    if (leaf->is_tuple()) continue;  // the interpreter gives no tensor for it
    ++outputs;
    auto it = ref.find(def.name);
    if (it == ref.end()) return fmt::format("it has no output '{}'", def.name);
    io::Tensor want = interp::empty_tensor_for(def.body.type(), fmt::format("output '{}'", def.name));
    if (it->second.dtype != want.dtype || it->second.shape != want.shape)
      return fmt::format("its output '{}' is [{}], the program's is [{}]", def.name, fmt::join(it->second.shape, "x"),
                         fmt::join(want.shape, "x"));
  }
  if (ref.size() != outputs) return "it has outputs the program does not define";
  return "";
}

}  // namespace

std::string shapes_text(const interp::Tensors& inputs) {
  std::string out;
  for (const auto& [name, t] : inputs) out += fmt::format("{}{}={}", out.empty() ? "" : ",", name, fmt::join(t.shape, "x"));
  return out;
}

std::string problem_hash(const std::string& file, std::uint64_t seed, const codegen::StorageChoice& storage) {
  return start_problem(file, seed, storage, nullptr).program_hash;
}

Problem load_problem(const std::string& file, std::uint64_t seed, Store& store, const codegen::StorageChoice& storage) {
  ir::Program checked;
  Problem p = start_problem(file, seed, storage, &checked);
  if (auto ref = store.reference(p.program_hash)) {
    if (std::string why = reference_mismatch(checked, *ref); !why.empty())
      throw Error(fmt::format("{}: the reference {} (of {}) is damaged ({})", store.path(), p.program_hash, file, why));
    p.reference = std::move(*ref);
    p.reference_from_store = true;
    return p;
  }
  auto start = std::chrono::steady_clock::now();
  p.reference = interp::evaluate(checked, p.inputs);
  p.reference_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  store.put_reference(p.program_hash, fmt::format("{} seed {} ({})", file, seed, p.shapes), p.reference);
  return p;
}

codegen::Limits DeviceReport::codegen_limits() const {
  codegen::Limits l;
  l.what = fmt::format("device '{}'", name);
  l.local_bytes = json_int(limits, "local_mem_bytes");
  l.max_alloc_bytes = json_int(limits, "max_alloc_bytes");
  l.global_bytes = json_int(limits, "global_mem_bytes");
  l.max_work_group_size = json_int(limits, "max_work_group_size");
  if (limits.contains("max_work_item_sizes"))
    for (std::size_t d = 0; d < 3 && d < limits["max_work_item_sizes"].size(); ++d)
      l.max_work_item_sizes[d] = limits["max_work_item_sizes"][d].get<std::int64_t>();
  return l;
}

constraints::Target DeviceReport::target() const {
  constraints::Target t;
  t.name = name;
  t.description = fmt::format("{} ({})", name, json_int(limits, "compute_units"));
  t.origin = "OpenCL device queries (through the runner)";
  t.live = true;
  codegen::Limits l = codegen_limits();
  t.max_work_group_size = l.max_work_group_size;
  t.max_work_item_sizes = l.max_work_item_sizes;
  t.local_mem_bytes = l.local_bytes;
  t.local_mem_global = limits.value("local_mem_global", false);
  t.preferred_vector_width = json_int(limits, "preferred_vector_width");
  t.compute_units = json_int(limits, "compute_units");
  t.global_mem_bytes = l.global_bytes;
  t.max_alloc_bytes = l.max_alloc_bytes;
  t.sources = {t.origin};
  return t;
}

namespace {

// The runner to start: the local one, or the user's command through the shell.
std::pair<std::string, bool> runner_of(const EvaluatorOptions& o) {
  if (o.runner.empty()) return {default_runner(), false};
  return {o.runner, true};
}

}  // namespace

std::shared_ptr<ServePool> serving_pool(const EvaluatorOptions& options) {
  auto [runner, shell] = runner_of(options);
  if (shell || options.isolate) return nullptr;
  return std::make_shared<ServePool>(runner);
}

std::optional<std::string> runner_executable(const std::string& command) {
  std::size_t begin = command.find_first_not_of(" \t");
  if (begin == std::string::npos) return std::nullopt;
  std::string word = command.substr(begin, command.find_first_of(" \t", begin) - begin);
  auto executable = [](const std::filesystem::path& p) {
    std::error_code ec;
    return std::filesystem::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
  };
  if (word.find('/') != std::string::npos) return executable(word) ? std::optional(word) : std::nullopt;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (std::size_t at = 0; at <= dirs.size();) {
    std::size_t end = std::min(dirs.find(':', at), dirs.size());
    std::filesystem::path candidate = std::filesystem::path(dirs.substr(at, end - at)) / word;
    if (executable(candidate)) return candidate.string();
    at = end + 1;
  }
  return std::nullopt;
}

std::string runner_identity(const EvaluatorOptions& options) {
  auto [runner, shell] = runner_of(options);
  std::optional<std::string> executable = shell ? runner_executable(runner) : std::optional(runner);
  // Runners are a few MiB; a larger file is still told apart by its size and name.
  std::string bytes = executable ? read_regular_file(*executable, "runner", std::uint64_t(1) << 30) : std::string();
  return fmt::format("{} {}", shell ? fmt::format("command '{}'", runner) : std::string("liftc-runner"),
                     executable ? hash_text(bytes) : std::string("(no executable found)"));
}

bool servable(const Evaluation& row, double timeout_s) {
  const std::string& s = row.status;
  if (s == status::Ok || s == status::Cut) return valid_result(row);
  if (s == status::Invalid || s == status::Build || s == status::Run || s == status::Wrong || s == status::Unwritten ||
      s == status::Canary)
    return true;
  if (s == status::Timeout) return std::isfinite(row.timeout_s) && row.timeout_s >= timeout_s;
  return false;  // crash, runner, or a status this liftc does not know
}

std::string probe_bundle_dir(const EvaluatorOptions& options) {
  return (std::filesystem::path(options.work_dir) / "probe").string();
}

DeviceReport probe_device(const EvaluatorOptions& options) {
  auto [runner, shell] = runner_of(options);
  std::string dir = probe_bundle_dir(options);
  write_probe_bundle(dir, options.bundle.device);
  WorkerResult w = run_worker(runner, shell, dir, options.timeout_s);
  std::string who = shell ? fmt::format("the runner '{}'", runner) : fmt::format("the runner {}", runner);
  if (w.end != WorkerResult::End::Exited)
    throw Error(fmt::format("{} {} when asked for its device{}", who, describe_end(w, options.timeout_s),
                            w.err.empty() ? "" : ": " + w.err));
  RunnerAnswer a;
  try {
    a = parse_runner_answer(w.out);
  } catch (const Error& e) {
    throw Error(fmt::format("{} {} and gave no usable answer when asked for its device ({}){}", who,
                            describe_end(w, options.timeout_s), e.message(), w.err.empty() ? "" : ": " + w.err));
  }
  if (a.status != status::Ok || a.device.is_null())
    throw Error(fmt::format("{} cannot open a device: {}", who, a.reason));
  if (!a.probe)
    throw Error(fmt::format("{} did not answer the probe as a probe (\"probe\": true); is it a liftc-runner built "
                            "before protocol 1 said so? Rebuild it",
                            who));
  DeviceReport d;
  d.name = a.device.value("name", "");
  d.driver = a.device.value("driver", "");
  d.machine = a.machine;
  d.limits = a.device;
  return d;
}

Generated generate_candidate(const ConstraintAlternative& alt, const Point& point, const std::string& build_options) {
  return generate_candidate(alt.space(), point, build_options);
}

Generated generate_candidate(const constraints::Space& space, const Point& point, const std::string& build_options) {
  std::map<std::string, long long> sizes = constraints::size_values(space, point);
  ir::Program checked = typecheck::typecheck(ir::bind_sizes(space.program, sizes)).program;
  codegen::Options options = constraints::codegen_options(space, point);
  options.build_options = build_options;
  Generated g;
  g.module = codegen::generate(checked, options);
  g.memory_bytes = codegen::evaluate(g.module.memory.global_bytes(), g.module);
  return g;
}

Evaluator::Evaluator(const Problem& problem, const CandidateSpace& space, Store& store, std::int64_t run,
                     const DeviceReport& device, EvaluatorOptions options)
    : problem_(problem), space_(space), store_(store), run_(run), device_(device), options_(std::move(options)) {
  std::tie(runner_, shell_) = runner_of(options_);
  live_path_ = (std::filesystem::path(options_.work_dir) / "validated-points").string();
  pool_ = options_.pool ? options_.pool : serving_pool(options_);
  LIFTC_ASSERT(!pool_ || pool_->runner() == runner_, "a shared pool serves the evaluator's own runner");
  LIFTC_ASSERT(!options_.generations || options_.generations->build_options() == options_.build_options,
               "kernels kept for the evaluator are generated with its build options");
  checked_with_ = fmt::format("checked rtol {} atol {}\nprogram {}\nrunner {}\n", options_.bundle.rtol,
                              options_.bundle.atol, problem_.program_hash, runner_identity(options_));
}

const Evaluator::Allowance* Evaluator::magnitude_allowance(std::size_t index, const ConstraintAlternative& alt, const Point& point) {
  if (auto it = magnitude_allowance_.find(index); it != magnitude_allowance_.end()) return it->second;
  const Allowance* allowance = nullptr;
  std::string key = constant_arrays_of(alt.space().program);
  if (!key.empty()) {
    // Alternatives with the same constant arrays (in the same order: the same Winograd rule,
    // conv-winograd-gemm's or conv-winograd-local's) differ only by rules that regroup and
    // map the same sums (tiles, work-items, local memory, lowering): on absolute values they
    // compute the same magnitude. It is interpreted once, on the cheapest program to
    // interpret: the strategy's form where the arrays first appear (magnitude_form.hpp),
    // else the alternative with the fewest tuning parameters (a register tile's accumulator
    // arrays cost the interpreter 20 times as much: 37 s against 1.9 s for Winograd on VGG
    // layer 5; `-s conv-winograd-local` alone on VGG layer 2 spent 80 s of a 90 s
    // exploration interpreting its own alternatives).
    if (auto it = magnitude_by_constants_.find(key); it != magnitude_by_constants_.end()) {
      allowance = &it->second;
    } else {
      ir::Program checked;
      if (const ir::Program* form = alt.magnitude_form()) {
        checked = typecheck::typecheck(ir::bind_sizes(*form, {})).program;
      } else {
        Alternative* cheapest = space_.alternatives[index].get();
        for (const auto& other : space_.alternatives)
          if (is_constraint_alternative(*other) && other->count() > 0 &&
              other->parameters().size() < cheapest->parameters().size() &&
              constant_arrays_of(constraint_alternative(*other).space().program) == key)
            cheapest = other.get();
        std::mt19937_64 rng(0);  // any valid point: the sizes it binds are the program's
        const constraints::Space& space = constraint_alternative(*cheapest).space();
        Point at = cheapest == space_.alternatives[index].get() ? point : cheapest->sample(rng);
        std::map<std::string, long long> sizes = constraints::size_values(space, at);
        checked = typecheck::typecheck(ir::bind_sizes(space.program, sizes)).program;
      }
      Allowance a;
      a.tensors = interp::rounding_allowance(checked, problem_.inputs);
      a.dir = (std::filesystem::path(options_.work_dir) /
               fmt::format("allowance-{}", magnitude_by_constants_.size()))
                  .string();
      write_allowance_files(a.dir, a.tensors);
      allowance = &magnitude_by_constants_.emplace(key, std::move(a)).first->second;
    }
  }
  magnitude_allowance_.emplace(index, allowance);
  return allowance;
}

const interp::Tensors* Evaluator::allowance(const Candidate& c) {
  const Alternative& alt = *space_.alternatives.at(c.alternative);
  if (!is_constraint_alternative(alt)) return nullptr;
  const Allowance* a = magnitude_allowance(c.alternative, constraint_alternative(alt), c.point);
  return a ? &a->tensors : nullptr;
}

std::optional<Evaluation> Evaluator::servable_row(const std::string& key) {
  // A cut row was timed once because a point dominated it; this run may not have that
  // point, and a front holds no cut point. It is served only when it would be cut again;
  // else the kernels are timed in full (a run served only cut rows had no front at all).
  // Any other servable row comes first.
  std::optional<Evaluation> cut;
  for (Evaluation& row : store_.find_all(key)) {
    if (!servable(row, options_.timeout_s)) continue;
    if (row.status != status::Cut) return std::move(row);
    if (!cut && cut_again(row)) cut = std::move(row);
  }
  return cut;
}

bool Evaluator::cut_again(const Evaluation& cut) {
  double cutoff = cutoff_for(cut.memory_bytes);
  if (cutoff > 0 && cut.time_ms > cutoff) return true;
  // What cut it is among its own run's valid points: every such point was recorded before
  // the cut row, so the rows read after it include them all.
  RunPoints& points = run_points_[cut.run];
  if (points.last_id < cut.id) {
    points = RunPoints{};
    for (Evaluation& row : store_.evaluations(cut.run)) {
      points.last_id = std::max(points.last_id, row.id);
      if (row.status == status::Ok && valid_result(row)) points.ok.push_back(std::move(row));
    }
  }
  for (const Evaluation& row : points.ok) {
    if (row.id > cut.id || row.program != cut.program || row.device != cut.device || row.driver != cut.driver ||
        row.shapes != cut.shapes || row.memory_bytes > cut.memory_bytes ||
        !(row.time_ms * options_.cutoff_factor < cut.time_ms) || !servable(row, options_.timeout_s))
      continue;
    std::optional<Candidate> c = stored_candidate(space_, row);
    if (!c) continue;  // not a point of this space: this run could not show it on its front
    validated(row.memory_bytes, row.time_ms);
    cut_reasons_.try_emplace(row.key, std::move(*c), row);
    return true;
  }
  return false;
}

void Evaluator::add_cut_reasons(LoopResult& r) const {
  std::set<std::string> explored;
  for (const Explored& x : r.explored) explored.insert(x.evaluation.key);
  for (const auto& [key, reason] : cut_reasons_) {
    if (explored.count(key)) continue;
    r.explored.push_back(Explored{reason.first, reason.second, true});
    ++r.cut_reasons;
  }
}

double Evaluator::cutoff_for(std::int64_t memory_bytes) const {
  // Only a point that uses no more memory and is cutoff_factor times faster makes timing
  // this one pointless: it is then dominated on both objectives. With several runners at
  // once, only the results recorded when the bundle is written count.
  double best = std::numeric_limits<double>::infinity();
  for (const auto& [memory, time] : front_)
    if (memory <= memory_bytes) best = std::min(best, time);
  return std::isfinite(best) ? best * options_.cutoff_factor : 0.0;
}

void Evaluator::validated(std::int64_t memory_bytes, double time_ms) {
  for (const auto& [memory, time] : front_)
    if (memory <= memory_bytes && time <= time_ms) return;  // dominated: the front stays
  for (auto it = front_.lower_bound(memory_bytes); it != front_.end();)
    it = it->second >= time_ms ? front_.erase(it) : std::next(it);
  front_[memory_bytes] = time_ms;
  // The runners at work read the front as they run (src/runner/live_cutoff.hpp): written
  // whole, then renamed into place, so a runner never reads half of it. It is only a hint:
  // a file that cannot be written leaves the cut-offs of the bundles.
  std::string text;
  for (const auto& [memory, time] : front_) text += fmt::format("{} {:.9g}\n", memory, time);
  std::filesystem::path tmp = live_path_ + ".new";
  std::error_code ec;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) return;
  }
  std::filesystem::rename(tmp, live_path_, ec);
}

// One candidate between its bundle and its row.
struct Evaluator::Job {
  Evaluation e;
  std::string dir;  // its bundle
  WorkerResult worker;
  std::int64_t queued = 0;  // its id in the work queue (0: not queued)
  StopFlag stop{false};     // set by the loop as the time budget ends: its runner is killed
};

WorkerResult run_queued(Queue& queue, std::int64_t run, const std::string& key, const DeviceKind& kind,
                        double timeout_s, const std::string& dir, const std::function<void()>& check, std::int64_t* id) {
  *id = queue.put(run, key, kind, timeout_s, pack_bundle(dir));
  auto wait = std::chrono::milliseconds(20);
  std::optional<QueueOutcome> o;
  while (!(o = queue.outcome(*id))) {
    if (check) check();
    std::this_thread::sleep_for(wait);
    wait = std::min(wait * 2, std::chrono::milliseconds(200));
  }
  WorkerResult w;
  static const std::pair<const char*, WorkerResult::End> kEnds[] = {
      {"exited", WorkerResult::End::Exited},     {"signaled", WorkerResult::End::Signaled},
      {"timed_out", WorkerResult::End::TimedOut}, {"flooded", WorkerResult::End::Flooded},
      {"lost", WorkerResult::End::Lost}};
  auto end = std::find_if(std::begin(kEnds), std::end(kEnds), [&](const auto& e) { return o->ended == e.first; });
  if (end == std::end(kEnds))
    throw Error(fmt::format("work queue {}: candidate {} ended as '{}', which this liftc does not know", queue.name(),
                            *id, o->ended));
  w.end = end->second;
  w.code = w.end == WorkerResult::End::Lost ? o->tries : o->code;
  w.out = o->answer;
  w.err = o->err;
  w.seconds = o->seconds;
  return w;
}

Evaluation Evaluator::base_row(const Alternative& alt, const Candidate& c) const {
  Evaluation e;
  e.run = run_;
  e.program = problem_.program_hash;
  e.file = problem_.file;
  e.strategy = alt.strategy();
  e.alternative = alternative_number(alt);
  e.point = format_point(alt, c.point);
  e.device = device_.name;
  e.driver = device_.driver;
  e.machine = device_.machine;
  e.shapes = problem_.shapes;
  e.time_ms = e.spread_ms = e.seconds = std::numeric_limits<double>::quiet_NaN();  // until it ran
  e.timeout_s = options_.timeout_s;
  return e;
}

Evaluation Evaluator::serve(const Evaluation& old, const Evaluation& e, bool* served) {
  *served = true;
  if (valid_result(old)) validated(old.memory_bytes, old.time_ms);
  if (!store_.find_candidate(e.program, e.strategy, e.alternative, e.point)) {
    // Another point generated the very same kernels: record this point with that
    // result, so replay finds it too.
    Evaluation copy = old;
    copy.run = run_;
    copy.file = e.file;
    copy.strategy = e.strategy;
    copy.alternative = e.alternative;
    copy.point = e.point;
    copy.id = store_.add(copy);
    return copy;
  }
  return old;
}

Pending Evaluator::start(const Candidate& c) {
  const Alternative& alt = *space_.alternatives[c.alternative];
  const CandidateAlternative& candidate = candidate_of(alt);
  auto job = std::make_shared<Job>();
  Evaluation& e = job->e;
  e = base_row(alt, c);
  Pending p;
  auto done = [&p](Evaluation row, bool served) {
    p.result = [row = std::move(row), served](bool& s) {
      s = served;
      return row;
    };
    return p;
  };

  std::string kernels;
  runtime::LaunchPlan plan;
  auto begin = std::chrono::steady_clock::now();
  auto seconds_since = [](auto t) { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count(); };
  try {
    // liftc's kernels, or CLBlast's call between them (its own workspace is added from the answer).
    Artefacts a = options_.generations ? options_.generations->artefacts(c, problem_.inputs)
                                       : candidate.generate(c.point, problem_.inputs, options_.build_options);
    e.memory_bytes = a.memory_bytes;
    if (a.module) codegen::check_limits(*a.module, device_.codegen_limits());
    plan = std::move(a.plan);
    kernels = std::move(a.kernels);
  } catch (const Error& err) {
    times_.generate_s += seconds_since(begin);
    ++times_.generated;
    // Refused before running: keyed by the candidate itself, since there is no kernel.
    e.status = status::Invalid;
    e.reason = err.message();
    e.timeout_s = std::numeric_limits<double>::quiet_NaN();  // it did not run
    e.key = hash_text(fmt::format("invalid\n{}\n{}\n{} #{}\n{}\n{}\n{}", problem_.program_hash, device_.name,
                                  e.strategy, e.alternative, e.point, device_.driver, problem_.shapes));
    if (auto old = servable_row(e.key)) return done(*old, true);
    e.id = store_.add(e);
    return done(e, false);
  }
  times_.generate_s += seconds_since(begin);
  ++times_.generated;
  // A program through constant arrays is checked with an allowance per element (rows
  // checked under the one allowance of the whole output that came before are not served).
  const ConstraintAlternative* generated = candidate.constraint_space();  // null for a library call
  bool per_element = generated && !constant_arrays_of(generated->space().program).empty();
  e.key = hash_text(fmt::format("{}\n{}\n{}\n{}\n{}\n{}{}", kernels, describe_plan(plan), device_.name, device_.driver,
                                problem_.shapes, checked_with_, per_element ? "allowance per element\n" : ""));
  if (auto old = servable_row(e.key)) {
    bool served = false;
    Evaluation row = serve(*old, e, &served);
    return done(row, served);
  }
  if (running_.count(e.key)) {
    // The same kernels are running for an earlier candidate: told after it, so its row is
    // in the store by then, the last with that key (whatever it says: it is this run's).
    p.ready = [this, key = e.key] { return !running_.count(key); };
    p.result = [this, job](bool& served) {
      std::vector<Evaluation> rows = store_.find_all(job->e.key);
      LIFTC_ASSERT(!rows.empty(), "an earlier candidate with the same key was recorded");
      return serve(rows.back(), job->e, &served);
    };
    return p;
  }

  begin = std::chrono::steady_clock::now();
  if (!shared_) {
    std::string dir = (std::filesystem::path(options_.work_dir) / "shared").string();
    shared_ = write_shared_files(dir, problem_.inputs, problem_.reference);
  }
  BundleSettings settings = options_.bundle;
  if (generated)
    if (const Allowance* a = magnitude_allowance(c.alternative, *generated, c.point)) {
      settings.allowance = &a->tensors;
      settings.allowance_dir = a->dir;
    }
  settings.cutoff_ms = cutoff_for(e.memory_bytes);
  if (options_.cutoff_factor > 0) {  // 0: never cut
    settings.live_path = live_path_;
    settings.live_factor = options_.cutoff_factor;
    settings.live_memory = e.memory_bytes;
  }
  settings.lock = (std::filesystem::path(options_.work_dir) / "device.lock").string();
  job->dir = (std::filesystem::path(options_.work_dir) / fmt::format("candidate-{}", count_)).string();
  write_bundle(job->dir, kernels, plan, problem_.reference, settings, &*shared_);
  if (options_.bundle_hook) options_.bundle_hook(job->dir, count_);
  ++count_;
  times_.bundle_s += seconds_since(begin);
  running_.insert(e.key);

  if (options_.queue) {
    // On a worker elsewhere: not stopped when the time budget ends (no `stop`); its row comes.
    p.run = [job, queue = options_.queue, check = options_.queue_check, run = run_,
             kind = DeviceKind{device_.name, device_.driver}, timeout = options_.timeout_s] {
      job->worker = run_queued(*queue, run, job->e.key, kind, timeout, job->dir, check, &job->queued);
    };
  } else {
    p.run = [job, pool = pool_, runner = runner_, shell = shell_, timeout = options_.timeout_s] {
      job->worker =
          pool ? pool->run(job->dir, timeout, &job->stop) : run_worker(runner, shell, job->dir, timeout, &job->stop);
    };
    p.stop = [job] { job->stop = true; };
  }
  p.record = [this, job](double seconds) {
    if (job->worker.end == WorkerResult::End::Stopped) {
      // No outcome, no row. Its key stays running: a later candidate with the same kernels
      // waits for it, and the loop drops that one too.
      std::error_code ec;
      std::filesystem::remove_all(job->dir, ec);
      return false;
    }
    job->e.seconds = seconds;
    record(*job);
    if (job->queued) options_.queue->take(job->queued);  // its row is in the store
    return true;
  };
  p.result = [job](bool& served) {
    served = false;
    return job->e;
  };
  return p;
}

void Evaluator::record(Job& job) {
  Evaluation& e = job.e;
  const WorkerResult& w = job.worker;
  ++times_.ran;
  times_.runner_s += w.seconds;
  if (w.end == WorkerResult::End::TimedOut) {
    e.status = status::Timeout;
    e.reason = describe_end(w, options_.timeout_s);
  } else if (w.end == WorkerResult::End::Signaled || w.end == WorkerResult::End::Lost) {
    e.status = status::Crash;
    std::string tail = stderr_tail(w.err);
    e.reason = fmt::format("the runner was {}{}", describe_end(w, options_.timeout_s),
                           tail.empty() ? "" : "; its stderr ends: " + tail);
  } else if (w.end == WorkerResult::End::Flooded) {
    e.status = status::Runner;
    e.reason = fmt::format("the runner {}", describe_end(w, options_.timeout_s));
  } else {
    try {
      RunnerAnswer a = parse_runner_answer(w.out);
      e.status = a.status;
      e.reason = a.reason;
      e.machine = a.machine;
      e.samples_ms = a.samples_ms;
      e.memory_bytes += a.workspace_bytes;  // what a library call allocated itself
      for (const auto& [phase, ms] : a.phases_ms) {
        auto it = std::find_if(times_.phases_s.begin(), times_.phases_s.end(),
                               [&, &phase = phase](const auto& p) { return p.first == phase; });
        if (it == times_.phases_s.end()) it = times_.phases_s.insert(times_.phases_s.end(), {phase, 0.0});
        it->second += ms / 1000;
      }
      times_.lock_wait_s += a.lock_wait_ms / 1000;
      times_.reused += a.reused_context;
      times_.locked_ms.insert(times_.locked_ms.end(), a.locked_ms.begin(), a.locked_ms.end());
      if (a.machine != device_.machine) {
        // The row's device and driver are the probe's: they would be another machine's.
        e.status = status::Runner;
        e.reason = fmt::format("the runner answered from machine {}, its device probe from {}", a.machine,
                               device_.machine);
      } else if (a.probe) {
        // A candidate's bundle has kernels: an answer that ran none is not its result.
        e.status = status::Runner;
        e.reason = "the runner answered the candidate's bundle as a probe (no kernel run, no time)";
      } else if (a.status == status::Ok && !(std::isfinite(a.median_ms) && a.median_ms >= 0)) {
        // Never a valid row without a usable time (the answer's parser refuses one too).
        e.status = status::Runner;
        e.reason = fmt::format("the runner answered ok with the time {}", a.median_ms);
      } else if (a.status == status::Ok) {
        e.time_ms = a.median_ms;
        e.kernel_ms = a.kernel_ms;
        e.spread_ms = 0.5 * (a.max_ms - a.min_ms);
        if (a.stopped) {
          // Not waited for: the runner gave up as the kernels' time passed the cut-off.
          e.status = status::Cut;
          e.reason = fmt::format("{}: over {:g}x the best point using no more memory", a.reason,
                                 options_.cutoff_factor);
        } else if (a.cut) {
          e.status = status::Cut;
          e.reason = fmt::format("timed once: {:.4g} ms is over {:g}x the best point using no more memory",
                                 a.median_ms, options_.cutoff_factor);
        }
      }
    } catch (const Error& err) {
      e.status = w.code == 0 ? status::Runner : status::Crash;
      std::string tail = stderr_tail(w.err);
      e.reason = fmt::format("the runner {}: {}{}", describe_end(w, options_.timeout_s), err.message(),
                             tail.empty() ? "" : "; its stderr ends: " + tail);
    }
  }
  if (valid_result(e)) validated(e.memory_bytes, e.time_ms);
  e.id = store_.add(e);
  running_.erase(e.key);
  std::error_code ec;
  std::filesystem::remove_all(job.dir, ec);  // recorded: what is left in the work folder was not
}

Evaluation Evaluator::evaluate(const Candidate& c, bool* served) {
  Pending p = start(c);
  auto begin = std::chrono::steady_clock::now();
  if (p.run) p.run();
  if (p.record) p.record(std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
  return p.result(*served);
}

std::string EvaluatorTimes::text() const {
  auto per = [](double total, std::size_t n) { return n ? fmt::format("{:.1f} ms", 1000 * total / double(n)) : std::string("-"); };
  std::string phases;
  for (const auto& [name, s] : phases_s) phases += fmt::format("{}{} {}", phases.empty() ? "" : ", ", name, per(s, ran));
  return fmt::format("generation {} ({} candidates), bundle {}, runner {} ({} run, {} in a kept runner context{}{}), lock wait {}",
                     per(generate_s, generated), generated, per(bundle_s, ran), per(runner_s, ran), ran, reused,
                     phases.empty() ? "" : "; its phases: ", phases, per(lock_wait_s, ran));
}

Outcome outcome_of(const Evaluation& e) {
  Outcome o;
  o.ok = valid_result(e);
  o.objectives.time_ms = o.ok ? e.time_ms : std::numeric_limits<double>::infinity();
  o.objectives.spread_ms = o.ok && std::isfinite(e.spread_ms) ? e.spread_ms : 0;
  o.objectives.memory = static_cast<double>(e.memory_bytes);
  if (e.status == status::Cut) o.objectives.spread_ms = 0;
  if (o.ok) o.kernel_ms = e.kernel_ms;
  o.seconds = std::isfinite(e.seconds) ? e.seconds : 0;
  return o;
}

}  // namespace liftc::explore
