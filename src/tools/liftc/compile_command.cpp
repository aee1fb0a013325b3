// `liftc compile`: OpenCL kernels and a standalone host program for a low-level program.

#include <filesystem>

#include <fmt/format.h>

#include "codegen_flags.hpp"
#include "commands.hpp"
#include "liftc/emit/host_program.hpp"
#include "liftc/emit/template.hpp"
#include "liftc/codegen/module.hpp"
#include "liftc/io/staged_directory.hpp"
#include "pipeline.hpp"
#include "report.hpp"

namespace liftc::tool {

namespace {

struct CompileOptions {
  std::string file;
  SizeFlags sizes;
  CodegenFlags codegen;
  DumpFlag dump;
  std::string out_dir;
  bool force = false;
};

void run_compile(const CompileOptions& o) {
  // The files are written to a staging folder next to DIR and moved into place at the end:
  // a failure or an interrupt leaves DIR as it was.
  std::filesystem::path dir(o.out_dir);
  std::error_code ec;
  if (std::filesystem::is_directory(dir, ec) && !std::filesystem::is_empty(dir, ec) && !o.force)
    throw Error(fmt::format("{} exists and is not empty; pass --force to overwrite its files", dir.string()));
  io::StagedDirectory out(o.out_dir, "-o");
  ir::Program checked = o.codegen.with_storage(load_bound_program(o.file, o.sizes, o.dump));
  codegen::Options options = o.codegen.options(nullptr);
  if (!o.dump.after.empty())
    options.dump = [&o](const std::string& pass, const std::string& kernel, const std::string& text) {
      o.dump.print(pass, kernel, text);
    };
  codegen::Module module = generate_kernels(o.file, checked, options);

  std::string name = std::filesystem::path(o.file).stem().string();
  emit::write_host_project(module, out.staging().string(), name);
  out.commit();

  print_module_summary(module);
  fmt::print("wrote {}/kernels.cl, main.cpp, CMakeLists.txt (build: cmake -S {} -B {}/build && cmake --build {}/build;"
             " run: {}/build/{} INPUT_DIR OUTPUT_DIR [--expected DIR])\n",
             dir.string(), dir.string(), dir.string(), dir.string(), dir.string(), emit::cmake_name(name));
}

}  // namespace

void add_compile_command(CLI::App& app) {
  auto options = std::make_shared<CompileOptions>();
  CLI::App* cmd = app.add_subcommand("compile", "Generate OpenCL kernels and a standalone host program");
  cmd->add_option("file", options->file, "the low-level .sr program")->required();
  add_size_flags(*cmd, options->sizes);
  add_codegen_flags(*cmd, options->codegen);
  add_dump_flag(*cmd, options->dump);
  cmd->add_option("-o,--output", options->out_dir, "directory for kernels.cl and the host program")->required();
  cmd->add_flag("--force", options->force, "write into a non-empty directory");
  cmd->callback([options] { run_compile(*options); });
}

}  // namespace liftc::tool
