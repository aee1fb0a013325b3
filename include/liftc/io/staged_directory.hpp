#pragma once
// Output files written as one unit: a command writes everything into a temporary directory
// next to the destination and commit() moves the files into place at the end. If anything
// fails first (an error, an exception, SIGINT or SIGTERM), the temporary directory is
// removed and the destination is exactly as it was.

#include <filesystem>
#include <string>
#include <vector>

namespace liftc::io {

/// A destination directory and the temporary directory its files are written to first.
class StagedDirectory {
 public:
  /// Checks `destination` (a non-empty path that is a directory or does not exist yet, under
  /// a writable directory) and creates the temporary directory in its nearest existing
  /// ancestor, so the final moves stay on one filesystem. `flag` names the option in errors
  /// ("-o"). Every problem is a one-line liftc::Error.
  StagedDirectory(const std::string& destination, const std::string& flag);
  /// Removes the temporary directory (and all in it) unless commit() ran.
  ~StagedDirectory();
  StagedDirectory(const StagedDirectory&) = delete;
  StagedDirectory& operator=(const StagedDirectory&) = delete;

  /// The destination directory, as given (without trailing separators).
  const std::filesystem::path& destination() const { return destination_; }
  /// The temporary directory: write there, with the layout the destination should get.
  const std::filesystem::path& staging() const { return staging_; }
  /// Where to write `relative` (e.g. "out.npy", "inputs/x.npy"): creates its folder in the
  /// staging directory; a name longer than the filesystem allows is a liftc::Error.
  std::filesystem::path file(const std::filesystem::path& relative) const;
  /// The destination paths that exist already and that commit() would replace.
  std::vector<std::filesystem::path> existing() const;
  /// Moves every file written into the staging directory to the destination (creating it
  /// and its folders), replacing files of the same name, then removes the staging directory.
  /// The files written, as destination paths.
  std::vector<std::filesystem::path> commit();

 private:
  std::vector<std::filesystem::path> staged_files() const;

  std::filesystem::path destination_;
  std::filesystem::path staging_;
  std::string flag_;
  bool committed_ = false;
};

}  // namespace liftc::io
