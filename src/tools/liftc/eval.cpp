// `liftc eval`: the reference interpreter on .npy or seeded random inputs.

#include <chrono>
#include <filesystem>

#include <fmt/format.h>

#include "commands.hpp"
#include "liftc/interp/interp.hpp"
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

// Refuses to overwrite anything the user has unless --force: checked before any write.
void check_writable(const std::vector<std::filesystem::path>& paths, bool force) {
  if (force) return;
  for (const auto& p : paths)
    if (std::filesystem::exists(p))
      throw Error(fmt::format("{} exists; pass --force to overwrite it", p.string()));
}

void run_eval(const EvalOptions& o) {
  ir::Program checked = load_bound_program(o.file, o.sizes);
  interp::Tensors inputs = load_inputs(checked, o.inputs, o.seed);

  auto start = std::chrono::steady_clock::now();
  interp::Tensors outputs = interp::evaluate(checked, inputs);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  for (const auto& [name, t] : outputs) {
    Summary s = summarize(t);
    fmt::print("{} {}: min {:.6g}, max {:.6g}, mean {:.6g}\n", name, shape_string(t), s.min, s.max, s.mean);
  }
  fmt::print("evaluated in {:.3f} s\n", seconds);

  if (o.out_dir.empty()) return;
  std::filesystem::path dir(o.out_dir);
  std::vector<std::pair<std::filesystem::path, const io::Tensor*>> writes;
  for (const auto& [name, t] : outputs) writes.emplace_back(dir / (name + ".npy"), &t);
  if (o.save_inputs)
    for (const auto& [name, t] : inputs) writes.emplace_back(dir / "inputs" / (name + ".npy"), &t);
  std::vector<std::filesystem::path> paths;
  for (const auto& w : writes) paths.push_back(w.first);
  check_writable(paths, o.force);
  std::error_code ec;
  std::filesystem::create_directories(dir / (o.save_inputs ? "inputs" : ""), ec);
  if (ec) throw Error(fmt::format("cannot create directory {}: {}", dir.string(), ec.message()));
  for (const auto& [path, tensor] : writes) io::write_npy(path.string(), *tensor);
  fmt::print("wrote {} file(s) to {}\n", writes.size(), dir.string());
}

}  // namespace

void add_eval_command(CLI::App& app) {
  auto options = std::make_shared<EvalOptions>();
  CLI::App* cmd = app.add_subcommand("eval", "Evaluate an .sr program with the reference interpreter");
  cmd->add_option("file", options->file, "the .sr program")->required();
  add_size_flags(*cmd, options->sizes);
  cmd->add_option("--input", options->inputs, "read an input from .npy: name=file.npy (repeatable); "
                                                "inputs not given are random");
  cmd->add_option("--seed", options->seed, "seed for random inputs")->default_val(0);
  cmd->add_option("-o,--output", options->out_dir, "write each output as DIR/<name>.npy");
  cmd->add_flag("--save-inputs", options->save_inputs, "also write the inputs used to DIR/inputs/");
  cmd->add_flag("--force", options->force, "overwrite existing files in DIR");
  cmd->callback([options] { run_eval(*options); });
}

}  // namespace liftc::tool
