// Target profiles: the `key = value` profile files of rules/targets and live devices.

#include "liftc/constraints/target.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

#include "liftc/codegen/limits.hpp"
#include "liftc/support/data_dir.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/support/file.hpp"

namespace liftc::constraints {

namespace fs = std::filesystem;

namespace {

// A profile is a few hundred bytes; this only keeps a wrong file from filling memory.
constexpr std::uint64_t kMaxProfileBytes = 1 << 20;

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

  // A limit that no device has as 0 (a work-group of no work-items, no memory at all).
  std::int64_t positive(const std::string& key, const std::string& text, int line, int col) const {
    std::int64_t v = integer(text, line, col);
    if (v == 0) fail(line, col, fmt::format("{} must be at least 1, got `0`", key));
    return v;
  }
};

}  // namespace

std::string default_targets_dir() { return liftc::default_targets_dir(); }

Target load_target_file(const std::string& path) {
  // read_regular_file refuses a FIFO, a device or a folder named *.target without hanging.
  Reader r{std::make_shared<const SourceFile>(SourceFile{path, read_regular_file(path, "target profile", kMaxProfileBytes)})};
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
    else if (key == "max_work_group_size") t.max_work_group_size = r.positive(key, value, line, value_col);
    else if (key == "max_work_item_sizes") {
      std::size_t d = 0;
      // Each of the three at its own column.
      const char* blank = " \t\r";
      for (std::size_t at = text.find_first_not_of(blank, eq + 1); at != std::string::npos;) {
        std::size_t end = std::min(text.find_first_of(blank, at), text.size());
        if (d == 3) r.fail(line, value_col, "max_work_item_sizes takes three integers");
        t.max_work_item_sizes[d++] = r.positive(key, text.substr(at, end - at), line, static_cast<int>(at) + 1);
        at = text.find_first_not_of(blank, end);
      }
      if (d != 3) r.fail(line, value_col, "max_work_item_sizes takes three integers");
    } else if (key == "local_mem_bytes") t.local_mem_bytes = r.integer(value, line, value_col);
    else if (key == "local_mem_type") {
      if (value != "global" && value != "local")
        r.fail(line, value_col, fmt::format("local_mem_type is `local` or `global`, not `{}`", value));
      t.local_mem_global = value == "global";
    } else if (key == "preferred_vector_width") t.preferred_vector_width = r.positive(key, value, line, value_col);
    else if (key == "compute_units") t.compute_units = r.positive(key, value, line, value_col);
    else if (key == "global_mem_bytes") t.global_mem_bytes = r.positive(key, value, line, value_col);
    else if (key == "max_alloc_bytes") t.max_alloc_bytes = r.positive(key, value, line, value_col);
    else if (key == "private_mem_bytes") t.private_mem_bytes = r.positive(key, value, line, value_col);
    else r.fail(line, key_col, fmt::format("unknown key `{}`", key));
  }
  for (const char* key : {"name", "description", "max_work_group_size", "max_work_item_sizes", "local_mem_bytes",
                          "local_mem_type", "preferred_vector_width", "compute_units", "global_mem_bytes",
                          "max_alloc_bytes", "private_mem_bytes", "source"})
    if (!seen.count(key)) throw Error(fmt::format("{}: the profile does not give `{}`", path, key));
  return t;
}

std::vector<Target> load_targets(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error(fmt::format("target folder {} does not exist", dir));
  std::vector<std::string> paths;
  fs::directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".target") paths.push_back(it->path().string());
  if (ec) throw Error(fmt::format("cannot list the target folder {}: {}", dir, ec.message()));
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

namespace {

// A device's size_t or 64-bit figure as int64 (a driver may report SIZE_MAX for "no limit").
std::int64_t clamp_to_int64(std::uint64_t v) { return static_cast<std::int64_t>(std::min<std::uint64_t>(v, INT64_MAX)); }

}  // namespace

Target target_from_device(const runtime::DeviceInfo& d) {
  Target t;
  t.name = fmt::format("device {}", d.index);
  t.description = fmt::format("{} / {} ({})", d.platform_name, d.name, d.type);
  t.origin = "OpenCL device queries";
  t.live = true;
  t.max_work_group_size = clamp_to_int64(d.max_work_group_size);
  for (std::size_t i = 0; i < 3; ++i)
    t.max_work_item_sizes[i] = i < d.max_work_item_sizes.size() ? clamp_to_int64(d.max_work_item_sizes[i]) : 1;
  t.local_mem_bytes = clamp_to_int64(d.local_mem_bytes);
  t.local_mem_global = d.local_mem_global;
  t.preferred_vector_width = d.preferred_float_vector_width;
  t.compute_units = d.compute_units;
  t.global_mem_bytes = clamp_to_int64(d.global_mem_bytes);
  t.max_alloc_bytes = clamp_to_int64(d.max_alloc_bytes);
  // OpenCL has no query for registers: a live device gets the private memory liftc lets a
  // kernel use anywhere (codegen's check_limits refuses more before building), not a
  // register count. Its points are measured, so a spill shows in their time; a profile's
  // are not, which is why profiles give their registers (rules/targets/README.md).
  t.private_mem_bytes = codegen::kDefaultPrivateBytes;
  t.sources.push_back("clGetDeviceInfo on this machine");
  // A driver that reports no work-items would otherwise give an empty or meaningless space.
  auto require = [&](std::int64_t value, const std::string& query) {
    if (value < 1)
      throw Error(fmt::format("OpenCL device {} ({}) reports {} = {}; liftc needs at least 1", d.index, d.name, query,
                              value));
  };
  require(t.max_work_group_size, "CL_DEVICE_MAX_WORK_GROUP_SIZE");
  for (std::size_t i = 0; i < 3; ++i)
    require(t.max_work_item_sizes[i], fmt::format("CL_DEVICE_MAX_WORK_ITEM_SIZES[{}]", i));
  return t;
}

std::string format_target(const Target& t) {
  return fmt::format(
      "{}: {}: work-group {} ({}, {}, {}), local memory {} KiB ({}), float vectors of {}, {} compute units, "
      "global memory {} MiB, largest buffer {} MiB, private arrays {} per work-item",
      t.name, t.description, t.max_work_group_size, t.max_work_item_sizes[0], t.max_work_item_sizes[1],
      t.max_work_item_sizes[2], t.local_mem_bytes / 1024, t.local_mem_global ? "in global memory" : "on chip",
      t.preferred_vector_width, t.compute_units, t.global_mem_bytes >> 20, t.max_alloc_bytes >> 20,
      t.private_mem_bytes > 0 ? fmt::format("{} bytes", t.private_mem_bytes) : std::string("without a limit"));
}

}  // namespace liftc::constraints
