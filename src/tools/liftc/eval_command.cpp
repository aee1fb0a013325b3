// `liftc eval`: the reference interpreter on .npy or seeded random inputs.

#include <chrono>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "commands.hpp"
#include "liftc/interp/interp.hpp"
#include "liftc/io/staged_directory.hpp"
#include "liftc/io/tensor.hpp"
#include "options.hpp"
#include "pipeline.hpp"

namespace liftc::tool {

namespace {

struct EvalOptions {
  std::string file;
  SizeFlags sizes;
  std::vector<std::string> inputs;
  std::uint64_t seed = 0;
  std::string out_dir;
  bool output_given = false;  // -o was given (an empty path is an error, not "no output")
  bool save_inputs = false;
  bool force = false;
};

// Shape as "[56, 56, 64]".
std::string shape_string(const io::Tensor& t) { return fmt::format("[{}]", fmt::join(t.shape, ", ")); }

// min / max / mean of a tensor's values, as doubles.
struct Summary {
  double min = 0, max = 0, mean = 0;
};

Summary summarize(const io::Tensor& t) {
  Summary s;
  auto n = static_cast<std::size_t>(t.element_count());
  if (n == 0) return s;
  auto at = [&](std::size_t i) { return t.dtype == io::DType::Float32 ? double(t.f32[i]) : double(t.i32[i]); };
  s.min = s.max = at(0);
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double v = at(i);
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
    sum += v;
  }
  s.mean = sum / double(n);
  return s;
}

// The files -o writes for a definition `name` of type `t`: NAME.npy, or one per tuple
// component, NAME.PATH.npy (interp::evaluate's TupleOutputs::Components).
void output_files(const std::string& name, ir::Type t, std::vector<std::string>& files) {
  while (t.is_array()) t = t.elem();
  if (!t.is_tuple()) {
    files.push_back(name + ".npy");
    return;
  }
  for (std::size_t i = 0; i < t.elems().size(); ++i) output_files(fmt::format("{}.{}", name, i), t.elems()[i], files);
}

void run_eval(const EvalOptions& o) {
  // The output folder is checked (and its staging folder made) before the work, so a bad
  // -o fails at once; everything is written there first and moved into place at the end.
  std::optional<io::StagedDirectory> out;
  if (o.output_given) out.emplace(o.out_dir, "-o");
  ir::Program checked = load_bound_program(o.file, o.sizes);
  if (out)
    for (const auto& d : checked.defs)
      if (d.name.size() + 4 > 255)
        throw Error(fmt::format("-o: definition `{}...` has a name of {} bytes, too long for a file name (at most 251 "
                                "bytes before .npy); rename it",
                                d.name.substr(0, 32), d.name.size()),
                    d.loc);
  if (out && !o.force) {
    // Refused before the work (an evaluation may take minutes), and checked again before
    // the files are moved into place.
    std::vector<std::string> files;
    for (const auto& d : checked.defs) output_files(d.name, d.body.type(), files);
    if (o.save_inputs)
      for (const auto& in : checked.inputs) files.push_back((std::filesystem::path("inputs") / (in.name + ".npy")).string());
    std::error_code ec;
    for (const auto& f : files)
      if (std::filesystem::path p = out->destination() / f; std::filesystem::exists(std::filesystem::symlink_status(p, ec)))
        throw Error(fmt::format("{} exists; pass --force to overwrite it", p.string()));
  }
  interp::Tensors inputs = load_inputs(checked, o.inputs, o.seed);

  auto start = std::chrono::steady_clock::now();
  interp::Tensors outputs = interp::evaluate(checked, inputs, interp::TupleOutputs::Components);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  for (const auto& [name, t] : outputs) {
    Summary s = summarize(t);
    fmt::print("{} {}: min {:.6g}, max {:.6g}, mean {:.6g}\n", name, shape_string(t), s.min, s.max, s.mean);
  }
  fmt::print("evaluated in {:.3f} s\n", seconds);

  if (!out) return;
  for (const auto& [name, t] : outputs) io::write_npy(out->file(name + ".npy").string(), t);
  if (o.save_inputs)
    for (const auto& [name, t] : inputs) io::write_npy(out->file(std::filesystem::path("inputs") / (name + ".npy")).string(), t);
  if (!o.force)
    for (const auto& p : out->existing()) throw Error(fmt::format("{} exists; pass --force to overwrite it", p.string()));
  std::size_t written = out->commit().size();
  fmt::print("wrote {} file(s) to {}\n", written, o.out_dir);
}

}  // namespace

void add_eval_command(CLI::App& app) {
  auto options = std::make_shared<EvalOptions>();
  CLI::App* cmd = app.add_subcommand("eval", "Evaluate an .sr program with the reference interpreter");
  cmd->add_option("file", options->file, "the .sr program")->required();
  add_size_flags(*cmd, options->sizes);
  cmd->add_option("--input", options->inputs, "read an input from .npy: name=file.npy (repeatable); "
                                                "inputs not given are random");
  cmd->add_option("--seed", options->seed, "seed for random inputs")->default_val(0)->check(unsigned_integer());
  CLI::Option* output = cmd->add_option("-o,--output", options->out_dir,
                                        "write each output as DIR/<name>.npy (a tuple-valued one as one file per "
                                        "component: DIR/<name>.0.npy, DIR/<name>.1.npy, ...)");
  // A folder after it is a user's guess (`--save-inputs DIR`): one clear error, not CLI11's
  // "argument was not expected".
  auto save_folder = std::make_shared<std::string>();
  CLI::Option* save = cmd->add_option("--save-inputs", *save_folder, "also write the inputs used to DIR/inputs/ (of -o DIR)")
                          ->expected(0, 1)
                          ->type_name("");  // a flag in --help: it takes no value
  cmd->add_flag("--force", options->force, "overwrite existing files in DIR");
  cmd->callback([options, output, save, save_folder] {
    if (!save_folder->empty())
      throw Error(fmt::format("--save-inputs takes no folder ({}): it writes the inputs into the -o folder's inputs/ "
                              "(liftc eval F.sr -o DIR --save-inputs)",
                              *save_folder));
    options->save_inputs = save->count() > 0;
    options->output_given = output->count() > 0;
    run_eval(*options);
  });
}

}  // namespace liftc::tool
