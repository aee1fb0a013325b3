// `liftc deploy DIR -o OUT`: an exploration's Pareto front (its -o folder, or a run of its
// results store) as a CMake project: a library that chooses among the front's points at
// run time by a memory budget and a latency target, and a demo.

#include <filesystem>

#include <fmt/format.h>

#include "commands.hpp"
#include "liftc/emit/deploy.hpp"
#include "liftc/emit/template.hpp"
#include "liftc/explore/products/deploy_front.hpp"
#include "liftc/explore/products/output.hpp"
#include "liftc/io/staged_directory.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/support/file.hpp"

namespace liftc::tool {

namespace {

namespace fs = std::filesystem;

struct DeployOptions {
  std::string dir, db, out_dir, name;
  std::int64_t run = -1;
  bool force = false;
};

void run_deploy(const DeployOptions& o) {
  if (o.db.empty() && o.run >= 0) throw Error("--run N needs --db STORE");
  if (o.dir.empty() && o.db.empty())
    throw Error("deploy: give the exploration's folder (liftc explore F.sr --pareto -o DIR) or --db STORE --run N");
  if (!o.dir.empty() && !o.db.empty()) throw Error("deploy: give the exploration's folder or --db STORE, not both");
  if (!o.db.empty() && o.run < 0) throw Error(fmt::format("--db {} needs --run N (liftc results {} lists the runs)", o.db, o.db));
  fs::path out(o.out_dir);
  std::error_code ec;
  bool existed = fs::exists(fs::symlink_status(out, ec));
  if (existed && !o.force) throw Error(fmt::format("-o {}: exists; pass --force to replace its files", o.out_dir));
  io::StagedDirectory staged(o.out_dir, "-o");
  // The folder is locked while this deploy writes it: a second deploy (or explore) into it
  // is refused, never mixed with this one's files. Made here when missing, it is removed
  // again (when still empty) if the deploy fails.
  explore::OutputLock lock = explore::lock_output_dir(o.out_dir, "-o");
  struct RemoveIfMade {
    fs::path dir;
    bool made, done = false;
    ~RemoveIfMade() {
      std::error_code ignored;
      if (made && !done) fs::remove(dir, ignored);  // only an empty folder
    }
  } made{out, !existed};  // after the lock: a folder another deploy holds is not removed
  // Another deploy may have written the folder between the check above and the lock.
  if (!existed && !o.force && !fs::is_empty(out, ec)) {
    made.made = false;
    throw Error(fmt::format("-o {}: exists; pass --force to replace its files", o.out_dir));
  }

  std::vector<emit::DeployPoint> points =
      o.db.empty() ? explore::read_front_folder(o.dir) : explore::regenerate_front(o.db, o.run);
  std::string name = emit::cmake_name(o.name.empty() ? fs::absolute(out).lexically_normal().filename().string() : o.name);
  for (const auto& [file, text] : emit::deploy_project(points, name)) write_file(staged.file(file).string(), text);
  staged.commit();
  made.done = true;

  for (std::size_t i = 0; i < points.size(); ++i)
    fmt::print("point {}: {:.4f} ms, {} bytes, {}\n", i + 1, points[i].time_ms, points[i].memory_bytes, points[i].label);
  fmt::print("wrote {}: the front library {}_front ({} point(s)) and its demo (build: cmake -S {} -B {}/build && cmake "
             "--build {}/build; run: {}/build/demo --memory-budget BYTES [--latency-ms MS])\n",
             o.out_dir, name, points.size(), o.out_dir, o.out_dir, o.out_dir, o.out_dir);
}

}  // namespace

void add_deploy_command(CLI::App& app) {
  auto o = std::make_shared<DeployOptions>();
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
