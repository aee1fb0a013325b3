#include "liftc/io/staged_directory.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <csignal>
#include <pthread.h>

#include <unistd.h>

#include <fmt/format.h>

#include "liftc/support/diagnostic.hpp"
#include "liftc/support/interrupt_cleanup.hpp"

namespace liftc::io {

namespace fs = std::filesystem;

namespace {

// The longest file name component (NAME_MAX on Linux filesystems).
constexpr std::size_t kMaxNameBytes = 255;

// The nearest ancestor of `p` (itself included) that exists; "." for a relative path none of
// whose prefixes exist.
fs::path nearest_existing(const fs::path& p) {
  std::error_code ec;
  for (fs::path q = p; !q.empty(); q = q.parent_path()) {
    if (fs::exists(fs::symlink_status(q, ec)) || fs::exists(q, ec)) return q;
    if (q == q.parent_path()) break;
  }
  return ".";
}

}  // namespace

StagedDirectory::StagedDirectory(const std::string& destination, const std::string& flag) : flag_(flag) {
  if (destination.empty()) throw Error(fmt::format("{}: the output directory path is empty", flag));
  destination_ = fs::path(destination);
  while (!destination_.has_filename() && destination_.has_relative_path()) destination_ = destination_.parent_path();
  if (destination_.string().size() >= PATH_MAX)
    throw Error(fmt::format("{}: the output path is longer than {} bytes", flag, PATH_MAX - 1));
  for (const auto& part : destination_)
    if (part.string().size() > kMaxNameBytes)
      throw Error(fmt::format("{} {}: the name '{}...' is longer than {} bytes", flag, destination,
                              part.string().substr(0, 32), kMaxNameBytes));
  std::error_code ec;
  if (fs::exists(fs::symlink_status(destination_, ec)) && !fs::is_directory(destination_, ec))
    throw Error(fmt::format("{} {}: exists and is not a directory", flag, destination));
  // Next to the destination, not in it: a command may ask whether the destination is empty.
  fs::path ancestor = nearest_existing(destination_.has_relative_path() ? destination_.parent_path() : destination_);
  if (!fs::is_directory(ancestor, ec))
    throw Error(fmt::format("{} {}: {} is not a directory", flag, destination, ancestor.string()));
  // mkdtemp's template: it replaces the XXXXXX with a unique suffix.
  std::string pattern = (ancestor / ".liftc-tmp-XXXXXX").string();
  // SIGINT and SIGTERM wait while the folder is made and registered: one arriving in
  // between would otherwise end the process with the folder left behind. A pending one is
  // delivered when the mask is restored, and its handler removes the folder.
  sigset_t interrupts, before;
  ::sigemptyset(&interrupts);
  ::sigaddset(&interrupts, SIGINT);
  ::sigaddset(&interrupts, SIGTERM);
  ::pthread_sigmask(SIG_BLOCK, &interrupts, &before);
  struct RestoreMask {
    const sigset_t& mask;
    ~RestoreMask() { ::pthread_sigmask(SIG_SETMASK, &mask, nullptr); }
  } restore{before};
  if (::mkdtemp(pattern.data()) == nullptr)
    throw Error(fmt::format("{} {}: cannot write in {}: {}", flag, destination, ancestor.string(), std::strerror(errno)));
  staging_ = fs::path(pattern);
  try {
    remove_on_interrupt(fs::absolute(staging_, ec).string());
  } catch (...) {
    fs::remove_all(staging_, ec);
    throw;
  }
}

StagedDirectory::~StagedDirectory() {
  if (committed_) return;
  std::error_code ignored;
  fs::remove_all(staging_, ignored);
  forget_on_interrupt(fs::absolute(staging_, ignored).string());
}

fs::path StagedDirectory::file(const fs::path& relative) const {
  for (const auto& part : relative)
    if (part.string().size() > kMaxNameBytes)
      throw Error(fmt::format("{} {}: the file name '{}...' is longer than {} bytes, the most a file name may have",
                              flag_, destination_.string(), part.string().substr(0, 32), kMaxNameBytes));
  if ((destination_ / relative).string().size() >= PATH_MAX)
    throw Error(fmt::format("{} {}: the path of {} is longer than {} bytes", flag_, destination_.string(),
                            relative.string().substr(0, 32), PATH_MAX - 1));
  fs::path path = staging_ / relative;
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) throw Error(fmt::format("{}: cannot create {}: {}", flag_, path.parent_path().string(), ec.message()));
  return path;
}

std::vector<fs::path> StagedDirectory::staged_files() const {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(staging_))
    if (!entry.is_directory()) files.push_back(fs::relative(entry.path(), staging_));
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<fs::path> StagedDirectory::existing() const {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& f : staged_files())
    if (fs::exists(fs::symlink_status(destination_ / f, ec))) out.push_back(destination_ / f);
  return out;
}

std::vector<fs::path> StagedDirectory::commit() {
  std::vector<fs::path> files = staged_files();
  std::error_code ec;
  // Everything that could make a move fail is checked before the first one.
  for (const auto& f : files) {
    fs::path target = destination_ / f;
    if (fs::is_directory(fs::symlink_status(target, ec)))
      throw Error(fmt::format("{}: {} is a directory; it cannot be replaced by a file", flag_, target.string()));
    for (fs::path dir = target.parent_path(); !dir.empty() && dir != destination_.parent_path(); dir = dir.parent_path())
      if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
        throw Error(fmt::format("{}: {} exists and is not a directory", flag_, dir.string()));
  }
  std::vector<fs::path> written;
  for (const auto& f : files) {
    fs::path target = destination_ / f;
    fs::create_directories(target.parent_path().empty() ? fs::path(".") : target.parent_path(), ec);
    if (ec) throw Error(fmt::format("{}: cannot create {}: {}", flag_, target.parent_path().string(), ec.message()));
    fs::rename(staging_ / f, target, ec);
    if (ec) throw Error(fmt::format("{}: cannot move {} into place: {}", flag_, target.string(), ec.message()));
    written.push_back(target);
  }
  fs::remove_all(staging_, ec);
  forget_on_interrupt(fs::absolute(staging_, ec).string());
  committed_ = true;
  return written;
}

}  // namespace liftc::io
