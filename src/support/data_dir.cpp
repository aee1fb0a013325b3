#include "liftc/support/data_dir.hpp"

#include <cstdlib>
#include <filesystem>
#include <vector>

#include <fmt/format.h>

#include "liftc/support/diagnostic.hpp"

namespace liftc {

namespace fs = std::filesystem;

std::string executable_dir() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : self.parent_path().string();
}

std::string default_rules_dir() {
  if (const char* env = std::getenv("LIFTC_RULES"); env && *env) return env;
  std::vector<std::string> looked;
  if (std::string bin = executable_dir(); !bin.empty()) {
    fs::path installed = fs::path(bin).parent_path() / "share" / "liftc" / "rules";
    std::error_code ec;
    if (fs::is_directory(installed, ec)) return installed.string();
    looked.push_back(installed.string());
  }
  std::error_code ec;
  if (fs::is_directory(LIFTC_SOURCE_RULES_DIR, ec)) return LIFTC_SOURCE_RULES_DIR;
  looked.push_back(LIFTC_SOURCE_RULES_DIR);
  throw Error(fmt::format("cannot find liftc's rules (looked in {}); set $LIFTC_RULES or give --rules",
                          fmt::join(looked, " and ")));
}

std::string plot_script() {
  if (std::string bin = executable_dir(); !bin.empty()) {
    fs::path installed = fs::path(bin).parent_path() / "share" / "liftc" / "scripts" / "plot_pareto.py";
    std::error_code ec;
    if (fs::is_regular_file(installed, ec)) return installed.string();
  }
  return (fs::path(LIFTC_SOURCE_RULES_DIR).parent_path() / "scripts" / "plot_pareto.py").string();
}

std::string default_targets_dir() {
  if (const char* env = std::getenv("LIFTC_TARGETS"); env && *env) return env;
  return (fs::path(default_rules_dir()) / "targets").string();
}

}  // namespace liftc
