// `liftc deploy DIR -o OUT`: an exploration's Pareto front (its -o folder, or a run of its
// results store) as a CMake project: a library that chooses among the front's points at
// run time by a memory budget and a latency target, and a demo. The flags into an
// explore::DeployRequest; explore::deploy (src/explore/products/deploy.cpp) does the rest.

#include <fmt/format.h>

#include "commands.hpp"
#include "liftc/explore/products/deploy.hpp"

namespace liftc::tool {

namespace {

void run_deploy(const explore::DeployRequest& o) {
  explore::Deployed d = explore::deploy(o);
  for (std::size_t i = 0; i < d.points.size(); ++i)
    fmt::print("point {}: {:.4f} ms, {} bytes, {}\n", i + 1, d.points[i].time_ms, d.points[i].memory_bytes,
               d.points[i].label);
  fmt::print("wrote {}: the front library {}_front ({} point(s)) and its demo (build: cmake -S {} -B {}/build && cmake "
             "--build {}/build; run: {}/build/demo --memory-budget BYTES [--latency-ms MS])\n",
             o.out_dir, d.name, d.points.size(), o.out_dir, o.out_dir, o.out_dir, o.out_dir);
}

}  // namespace

void add_deploy_command(CLI::App& app) {
  auto o = std::make_shared<explore::DeployRequest>();
  CLI::App* cmd = app.add_subcommand(
      "deploy", "Write a CMake project whose library chooses among a Pareto front's points at run time, and a demo");
  cmd->add_option("dir", o->dir, "the folder of liftc explore F.sr --pareto -o DIR");
  cmd->add_option("--db", o->db, "instead of a folder: a results store, whose run --run N's front is generated again");
  cmd->add_option("--run", o->run, "the run of --db (liftc results STORE lists them)")->check(CLI::NonNegativeNumber);
  cmd->add_option("-o,--output", o->out_dir, "the project's folder")->required();
  cmd->add_flag("--force", o->force, "replace the files of an existing -o folder");
  cmd->add_option("--name", o->name, "the library's name (NAME_front; default: the -o folder's name)");
  cmd->callback([o] { run_deploy(*o); });
}

}  // namespace liftc::tool
