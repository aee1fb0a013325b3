// Target profiles: the `key = value` profile files of rules/targets and live devices.

#include "liftc/constraints/target.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "liftc/support/data_dir.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::constraints {

namespace fs = std::filesystem;

namespace {

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

struct Reader {
  std::shared_ptr<const SourceFile> file;

  [[noreturn]] void fail(int line, int col, const std::string& message) const {
    throw Error(message, SourceLoc{file, line, col});
  }

  std::int64_t integer(const std::string& text, int line, int col) const {
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || p != text.data() + text.size() || v < 0)
      fail(line, col, fmt::format("expected a non-negative integer, got `{}`", text));
    return v;
  }
};

}  // namespace

std::string default_targets_dir() { return liftc::default_targets_dir(); }

Target load_target_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("cannot read target profile {}", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  Reader r{std::make_shared<const SourceFile>(SourceFile{path, buffer.str()})};
  Target t;
  t.origin = path;
  std::map<std::string, int> seen;
  std::istringstream lines(r.file->text);
  std::string raw;
  for (int line = 1; std::getline(lines, raw); ++line) {
    std::string text = raw.substr(0, raw.find('#'));
    if (trim(text).empty()) continue;
    auto eq = text.find('=');
    int key_col = static_cast<int>(text.find_first_not_of(" \t")) + 1;
    if (eq == std::string::npos) r.fail(line, key_col, "expected `key = value`");
    std::string key = trim(text.substr(0, eq));
    std::string value = trim(text.substr(eq + 1));
    int value_col = static_cast<int>(raw.find_first_not_of(" \t", eq + 1)) + 1;
    if (value.empty()) r.fail(line, static_cast<int>(eq) + 2, fmt::format("`{}` needs a value", key));
    if (key != "source" && seen.count(key))
      r.fail(line, key_col, fmt::format("`{}` given twice (first at line {})", key, seen[key]));
    seen[key] = line;
    if (key == "name") t.name = value;
    else if (key == "description") t.description = value;
    else if (key == "source") t.sources.push_back(value);
    else if (key == "max_work_group_size") t.max_work_group_size = r.integer(value, line, value_col);
    else if (key == "max_work_item_sizes") {
      std::istringstream parts(value);
      std::string part;
      std::size_t d = 0;
      while (parts >> part) {
        if (d == 3) r.fail(line, value_col, "max_work_item_sizes takes three integers");
        t.max_work_item_sizes[d++] = r.integer(part, line, value_col);
      }
      if (d != 3) r.fail(line, value_col, "max_work_item_sizes takes three integers");
    } else if (key == "local_mem_bytes") t.local_mem_bytes = r.integer(value, line, value_col);
    else if (key == "local_mem_type") {
      if (value != "global" && value != "local")
        r.fail(line, value_col, fmt::format("local_mem_type is `local` or `global`, not `{}`", value));
      t.local_mem_global = value == "global";
    } else if (key == "preferred_vector_width") t.preferred_vector_width = r.integer(value, line, value_col);
    else if (key == "compute_units") t.compute_units = r.integer(value, line, value_col);
    else if (key == "global_mem_bytes") t.global_mem_bytes = r.integer(value, line, value_col);
    else if (key == "max_alloc_bytes") t.max_alloc_bytes = r.integer(value, line, value_col);
    else r.fail(line, key_col, fmt::format("unknown key `{}`", key));
  }
  for (const char* key : {"name", "description", "max_work_group_size", "max_work_item_sizes", "local_mem_bytes",
                          "local_mem_type", "preferred_vector_width", "compute_units", "global_mem_bytes",
                          "max_alloc_bytes", "source"})
    if (!seen.count(key)) throw Error(fmt::format("{}: error: the profile does not give `{}`", path, key));
  return t;
}

std::vector<Target> load_targets(const std::string& dir) {
  if (!fs::is_directory(dir)) throw Error(fmt::format("target folder {} does not exist", dir));
  std::vector<std::string> paths;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".target") paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  std::vector<Target> out;
  for (const auto& p : paths) out.push_back(load_target_file(p));
  return out;
}

Target find_target(const std::string& name, const std::string& dir) {
  auto targets = load_targets(dir);
  std::string known;
  for (const auto& t : targets) {
    if (t.name == name) return t;
    known += (known.empty() ? "" : ", ") + t.name;
  }
  throw Error(fmt::format("unknown target `{}`: the profiles in {} are {} (or use --device for an OpenCL device)",
                          name, dir, known.empty() ? "none" : known));
}

Target target_from_device(const runtime::DeviceInfo& d) {
  Target t;
  t.name = fmt::format("device {}", d.index);
  t.description = fmt::format("{} / {} ({})", d.platform_name, d.name, d.type);
  t.origin = "OpenCL device queries";
  t.live = true;
  t.max_work_group_size = static_cast<std::int64_t>(d.max_work_group_size);
  for (std::size_t i = 0; i < 3; ++i)
    t.max_work_item_sizes[i] = i < d.max_work_item_sizes.size() ? static_cast<std::int64_t>(d.max_work_item_sizes[i]) : 1;
  t.local_mem_bytes = static_cast<std::int64_t>(d.local_mem_bytes);
  t.local_mem_global = d.local_mem_global;
  t.preferred_vector_width = d.preferred_float_vector_width;
  t.compute_units = d.compute_units;
  t.global_mem_bytes = static_cast<std::int64_t>(d.global_mem_bytes);
  t.max_alloc_bytes = static_cast<std::int64_t>(d.max_alloc_bytes);
  t.sources.push_back("clGetDeviceInfo on this machine");
  return t;
}

std::string format_target(const Target& t) {
  return fmt::format(
      "{}: {}: work-group {} ({}, {}, {}), local memory {} KiB ({}), float vectors of {}, {} compute units, "
      "global memory {} MiB, largest buffer {} MiB",
      t.name, t.description, t.max_work_group_size, t.max_work_item_sizes[0], t.max_work_item_sizes[1],
      t.max_work_item_sizes[2], t.local_mem_bytes / 1024, t.local_mem_global ? "in global memory" : "on chip",
      t.preferred_vector_width, t.compute_units, t.global_mem_bytes >> 20, t.max_alloc_bytes >> 20);
}

}  // namespace liftc::constraints
