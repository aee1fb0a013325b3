// `liftc deploy` (deploy.hpp): the request checked, the project's folder locked and
// staged, the front read or regenerated, the project written.

#include "liftc/explore/products/deploy.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "liftc/emit/template.hpp"
#include "liftc/explore/products/deploy_front.hpp"
#include "liftc/explore/products/output.hpp"
#include "liftc/io/staged_directory.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/support/file.hpp"

namespace liftc::explore {

namespace {

namespace fs = std::filesystem;

void check_request(const DeployRequest& o) {
  if (o.db.empty() && o.run >= 0) throw Error("--run N needs --db STORE");
  if (o.dir.empty() && o.db.empty())
    throw Error("deploy: give the exploration's folder (liftc explore F.sr --pareto -o DIR) or --db STORE --run N");
  if (!o.dir.empty() && !o.db.empty()) throw Error("deploy: give the exploration's folder or --db STORE, not both");
  if (!o.db.empty() && o.run < 0) throw Error(fmt::format("--db {} needs --run N (liftc results {} lists the runs)", o.db, o.db));
}

// An out_dir this deploy made is removed again (when still empty) if the deploy fails.
struct RemoveIfMade {
  fs::path dir;
  bool made, done = false;
  ~RemoveIfMade() {
    std::error_code ignored;
    if (made && !done) fs::remove(dir, ignored);  // only an empty folder
  }
};

}  // namespace

Deployed deploy(const DeployRequest& o) {
  check_request(o);
  fs::path out(o.out_dir);
  std::error_code ec;
  bool existed = fs::exists(fs::symlink_status(out, ec));
  if (existed && !o.force) throw Error(fmt::format("-o {}: exists; pass --force to replace its files", o.out_dir));
  io::StagedDirectory staged(o.out_dir, "-o");
  // The folder is locked while this deploy writes it: a second deploy (or explore) into it
  // is refused, never mixed with this one's files.
  OutputLock lock = lock_output_dir(o.out_dir, "-o");
  RemoveIfMade made{out, !existed};  // after the lock: a folder another deploy holds is not removed
  // Another deploy may have written the folder between the check above and the lock.
  if (!existed && !o.force && !fs::is_empty(out, ec)) {
    made.made = false;
    throw Error(fmt::format("-o {}: exists; pass --force to replace its files", o.out_dir));
  }

  Deployed d;
  d.points = o.db.empty() ? read_front_folder(o.dir) : regenerate_front(o.db, o.run);
  d.name = emit::cmake_name(o.name.empty() ? fs::absolute(out).lexically_normal().filename().string() : o.name);
  for (const auto& [file, text] : emit::deploy_project(d.points, d.name)) write_file(staged.file(file).string(), text);
  staged.commit();
  made.done = true;
  return d;
}

}  // namespace liftc::explore
