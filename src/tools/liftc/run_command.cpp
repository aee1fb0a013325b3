// `liftc run`: generate, build, run on an OpenCL device, validate against the interpreter,
// and report the time (sum of all kernels, median of N runs) and the memory footprint.

#include <algorithm>
#include <optional>
#include <set>
#include <span>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "codegen_flags.hpp"
#include "commands.hpp"
#include "liftc/codegen/module.hpp"
#include "liftc/host/execute.hpp"
#include "liftc/interp/interp.hpp"
#include "liftc/interp/magnitude.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/runtime/session.hpp"
#include "liftc/runtime/validate.hpp"
#include "options.hpp"
#include "pipeline.hpp"
#include "report.hpp"

namespace liftc::tool {

namespace {

struct RunOptions {
  std::string file;
  SizeFlags sizes;
  CodegenFlags codegen;
  std::string device;
  std::vector<std::string> inputs;
  std::uint64_t seed = 0;
  int warmup = 1;
  int runs = 5;
  double rtol = 1e-3;
  double atol = 1e-3;
  bool no_validate = false;
  std::string reference;  // --reference: the program to validate against ("" = the run program itself)
};

// Compares every definition with the interpreter's value, each float element allowed to
// differ by its `allowance` too where there is one; returns whether all match.
// A definition stored as half is compared under tol.for_half() (one half's rounding more).
bool validate(const interp::Tensors& device, const interp::Tensors& reference, const runtime::Tolerance& tol,
              const interp::Tensors& allowance, const std::set<std::string>& half) {
  bool all_ok = true;
  for (const auto& [name, expected] : reference) {
    auto it = device.find(name);
    if (it == device.end()) throw Error(fmt::format("the device run produced no value for '{}'", name));
    runtime::Comparison c;
    if (expected.dtype == io::DType::Float32) {
      auto allowed = allowance.find(name);
      c = runtime::compare(it->second.f32, expected.f32, half.count(name) ? tol.for_half() : tol,
                           allowed == allowance.end() ? std::span<const float>() : std::span<const float>(allowed->second.f32));
    } else {
      c = runtime::compare(std::vector<float>(it->second.i32.begin(), it->second.i32.end()),
                           std::vector<float>(expected.i32.begin(), expected.i32.end()), tol);
    }
    fmt::print("{}: {} ({})\n", name, c.ok ? "matches the interpreter" : "DIFFERS from the interpreter", c.str());
    all_ok = all_ok && c.ok;
  }
  return all_ok;
}

std::string shape_text(const io::Tensor& t) {
  return fmt::format("{} [{}]", t.dtype == io::DType::Float32 ? "float" : "int", fmt::join(t.shape, ", "));
}

// --reference FILE: the program the run one was rewritten from, whose interpreted values the
// device's are compared with, on the same inputs. It is faster to interpret (a high-level
// program takes the interpreter's fast paths; a register-tiled one does not) and independent
// of the rewriting. Its sizes are bound by --size and by the values of --params that name its
// sizes (`liftc space` prints a symbolic size's sample with the tuning parameters, --params
// C=2,sigma=4; the tuning parameters are not its own); its inputs must be inputs of the run
// program with the same element type and shape, and each of its definitions one of the run
// program (those are compared). Loaded before the device run, so a bad reference costs no run.
ir::Program load_reference(const RunOptions& o, const ir::Program& checked, const interp::Tensors& inputs) {
  SizeFlags sizes;
  sizes.sizes = o.sizes.sizes;
  ir::Program reference;
  try {
    ir::Program declared = parse::load_program(o.reference);
    for (const auto& [name, value] : o.sizes.param_values())
      if (std::any_of(declared.sizes.begin(), declared.sizes.end(), [&](const ir::SizeDecl& d) { return d.name == name; }))
        sizes.sizes.push_back(fmt::format("{}={}", name, value));
    reference = load_bound_program(o.reference, sizes);
  } catch (const Error& e) {
    if (e.loc().known()) throw;  // a parse or type error names its place in the file
    throw Error(fmt::format("--reference {}: {}", o.reference, e.message()));
  }
  for (const ir::InputDecl& in : reference.inputs) {
    io::Tensor want = interp::empty_tensor_for(in.type, fmt::format("input '{}' of {}", in.name, o.reference));
    auto it = inputs.find(in.name);
    if (it == inputs.end())
      throw Error(fmt::format("--reference {}: its input '{}' is not an input of {}", o.reference, in.name, o.file));
    if (it->second.dtype != want.dtype || it->second.shape != want.shape)
      throw Error(fmt::format("--reference {}: its input '{}' is {}, in {} it is {}", o.reference, in.name,
                              shape_text(want), o.file, shape_text(it->second)));
  }
  for (const ir::Definition& d : reference.defs) {
    auto same = [&](const ir::Definition& e) { return e.name == d.name; };
    if (std::none_of(checked.defs.begin(), checked.defs.end(), same))
      throw Error(fmt::format("--reference {}: it defines '{}', which {} does not", o.reference, d.name, o.file));
  }
  return reference;
}

void run_run(const RunOptions& o) {
  ir::Program checked = o.codegen.with_storage(load_bound_program(o.file, o.sizes));
  runtime::Session session(o.device);
  codegen::Module module = generate_kernels(o.file, checked, o.codegen.options(&session.device()));
  interp::Tensors inputs = load_inputs(checked, o.inputs, o.seed);
  std::optional<ir::Program> reference;
  if (!o.reference.empty()) reference = load_reference(o, checked, inputs);
  if (reference)  // rounded to half where the run program stores its inputs and definitions
    for (const std::string& name : checked.half) reference->half.insert(name);

  fmt::print("device: {}\n", session.device().name);
  print_module_summary(module);
  runtime::RunOptions run_options;
  run_options.warmup_runs = o.warmup;
  run_options.timed_runs = o.runs;
  host::Execution result = host::execute(module, inputs, session, run_options);
  if (!result.run.ok()) throw Error(fmt::format("the device run failed its checks: {}", result.run.failure()));
  fmt::print("time: median {:.4f} ms, min {:.4f} ms over {} runs (sum of {} kernel(s), measured)\n",
             result.run.median_ms, result.run.min_ms, result.run.samples_ms.size(), module.kernels.size());
  for (std::size_t k = 0; k < module.kernels.size() && k < result.run.kernel_median_ms.size(); ++k)
    fmt::print("  {}: {:.4f} ms\n", module.kernels[k].name, result.run.kernel_median_ms[k]);

  if (o.no_validate) return;
  interp::Tensors expected = interp::evaluate(reference ? *reference : checked, inputs);
  // A program through constant arrays (Winograd's transforms) rounds in sums far larger
  // than its results: each element may differ by its own magnitude's share too, as
  // explore allows (interp::rounding_allowance).
  interp::Tensors allowance;
  if (interp::has_constant_arrays(checked)) allowance = interp::rounding_allowance(checked, inputs);
  if (!validate(result.outputs, expected, runtime::Tolerance{o.rtol, o.atol}, allowance, checked.half))
    throw Error("validation failed: the generated code does not compute what the program means");
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Generate, build and run a low-level program on an OpenCL device; validate against the interpreter");
  cmd->add_option("file", options->file, "the low-level .sr program")->required();
  add_size_flags(*cmd, options->sizes);
  add_codegen_flags(*cmd, options->codegen);
  cmd->add_option("--device", options->device, "device index or name part (see `liftc devices`); default: the first");
  cmd->add_option("--input", options->inputs, "read an input from .npy: name=file.npy (repeatable)");
  cmd->add_option("--seed", options->seed, "seed for random inputs")->default_val(0)->check(unsigned_integer());
  cmd->add_option("--warmup", options->warmup, "untimed runs first")->default_val(1)->check(integer_in(0, 1000000));
  cmd->add_option("--runs", options->runs, "timed runs (the median is reported)")->default_val(5)->check(integer_in(1, 1000000));
  cmd->add_option("--rtol", options->rtol, "relative tolerance of the validation")
      ->default_val(1e-3)
      ->check(finite_non_negative());
  cmd->add_option("--atol", options->atol, "absolute tolerance of the validation")
      ->default_val(1e-3)
      ->check(finite_non_negative());
  cmd->add_flag("--no-validate", options->no_validate, "skip the comparison with the interpreter");
  cmd->add_option("--reference", options->reference,
                  "validate against the interpreter's values of this program (the one FILE was rewritten from) "
                  "on the same inputs, instead of FILE's own")
      ->excludes("--no-validate");
  cmd->callback([options] { run_run(*options); });
}

}  // namespace liftc::tool
