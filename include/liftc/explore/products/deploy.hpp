#pragma once
// `liftc deploy`, whole: an exploration's front (its -o folder, or a run of its results
// store: deploy_front.hpp) written as a CMake project (emit/deploy_project.hpp) into a
// folder that is checked, locked and staged, so a failed or refused deploy leaves nothing
// of its own behind and never mixes its files with another's.

#include <cstdint>
#include <string>
#include <vector>

#include "liftc/emit/deploy_project.hpp"

namespace liftc::explore {

struct DeployRequest {
  std::string dir;       // the exploration's -o folder, or
  std::string db;        // a results store and
  std::int64_t run = -1; // its run
  std::string out_dir;   // the project's folder
  std::string name;      // the library's name ("" = the folder's)
  bool force = false;    // replace the files of an existing out_dir
};

struct Deployed {
  std::vector<emit::DeployPoint> points;
  std::string name;  // the library's CMake name (NAME_front)
};

/// Writes the project; a liftc::Error on a bad request, a front that cannot be read or
/// regenerated, or an out_dir that exists without `force` or is locked by another writer.
Deployed deploy(const DeployRequest& request);

}  // namespace liftc::explore
