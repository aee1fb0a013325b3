// Reading and checking the runner's answer (protocol 1, src/runner/README.md "Answer").

#include "liftc/explore/evaluation/answer.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "liftc/support/diagnostic.hpp"

namespace liftc::explore {

namespace {

using nlohmann::json;

// The statuses a runner may answer (explore's own `cut`, `timeout`, `crash` and `invalid` are not).
constexpr const char* kStatuses[] = {"ok", "wrong", "unwritten", "canary", "build", "run", "runner"};

// A JSON value for a message: compact, one line, at most 60 characters.
template <typename Json>
std::string shown(const Json& v) {
  std::string text = v.dump(-1, ' ', true, Json::error_handler_t::replace);
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

[[noreturn]] void invalid(const std::string& field, const std::string& why) {
  throw Error(fmt::format("the runner's answer has an invalid \"{}\": {}", field, why));
}

// A time or a similar quantity: a finite number >= 0.
template <typename Json>
double time_value(const Json& v, const std::string& field) {
  if (!v.is_number()) invalid(field, fmt::format("expected a number >= 0, got {}", shown(v)));
  double d = v.template get<double>();
  if (!std::isfinite(d) || d < 0) invalid(field, fmt::format("expected a finite number >= 0, got {}", shown(v)));
  return d;
}

// A count or a size: a whole number >= 0 that fits an int64.
std::int64_t count_value(const json& v, const std::string& field) {
  // (a JSON parser gives whole numbers >= 0 as unsigned: a signed one is negative)
  bool ok = v.is_number_unsigned() && v.get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<std::int64_t>::max());
  if (!ok) invalid(field, fmt::format("expected a whole number >= 0, got {}", shown(v)));
  return v.get<std::int64_t>();
}

bool bool_value(const json& v, const std::string& field) {
  if (!v.is_boolean()) invalid(field, fmt::format("expected true or false, got {}", shown(v)));
  return v.get<bool>();
}

std::string string_value(const json& v, const std::string& field) {
  if (!v.is_string()) invalid(field, fmt::format("expected a string, got {}", shown(v)));
  return v.get<std::string>();
}

const json& array_value(const json& v, const std::string& field) {
  if (!v.is_array()) invalid(field, fmt::format("expected an array, got {}", shown(v)));
  return v;
}

// `j[key]` when it is there (and, with `null_is_absent`, not null), else nullptr.
const json* find(const json& j, const char* key, bool null_is_absent = false) {
  auto it = j.find(key);
  if (it == j.end() || (null_is_absent && it->is_null())) return nullptr;
  return &*it;
}

// The device object: every field the evaluator reads, with its type and range.
void check_device(const json& d) {
  if (!d.is_object()) invalid("device", fmt::format("expected an object or null, got {}", shown(d)));
  for (const char* key : {"name", "vendor", "version", "driver"}) {
    const json* v = find(d, key);
    if (!v) invalid(fmt::format("device.{}", key), "missing");
    string_value(*v, fmt::format("device.{}", key));
  }
  for (const char* key : {"compute_units", "max_work_group_size", "local_mem_bytes", "global_mem_bytes",
                          "max_alloc_bytes", "preferred_vector_width"}) {
    const json* v = find(d, key);
    if (!v) invalid(fmt::format("device.{}", key), "missing");
    count_value(*v, fmt::format("device.{}", key));
  }
  const json* sizes = find(d, "max_work_item_sizes");
  if (!sizes) invalid("device.max_work_item_sizes", "missing");
  if (!sizes->is_array() || sizes->size() != 3)
    invalid("device.max_work_item_sizes", fmt::format("expected 3 whole numbers >= 0, got {}", shown(*sizes)));
  for (std::size_t i = 0; i < 3; ++i) count_value((*sizes)[i], fmt::format("device.max_work_item_sizes[{}]", i));
  const json* global = find(d, "local_mem_global");
  if (!global) invalid("device.local_mem_global", "missing");
  bool_value(*global, "device.local_mem_global");
}

// An architecture as uname(2) names it: "aarch64", "x86_64", "armv7l" (at most 64 bytes, a
// utsname field's size less its NUL).
bool machine_name(const std::string& s) {
  return !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '-' || c == '.';
  });
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The answer in `line` (a JSON object), checked field by field.
RunnerAnswer check_answer(const json& j, const std::string& line) {
  const json* protocol = find(j, "protocol");
  if (!protocol) throw Error("the runner's answer is not liftc-runner protocol 1 (it has no \"protocol\")");
  if (!protocol->is_number_unsigned() || protocol->get<std::uint64_t>() != 1)
    throw Error(fmt::format("the runner's answer is not liftc-runner protocol 1 (\"protocol\": {})", shown(*protocol)));
  RunnerAnswer a;
  const json* machine = find(j, "machine");
  if (!machine) invalid("machine", "missing (a liftc-runner built before answers named their machine? Rebuild it)");
  a.machine = string_value(*machine, "machine");
  if (!machine_name(a.machine))
    invalid("machine", fmt::format("expected an architecture as uname -m names it (1 to 64 letters, digits, '_', '-', "
                                   "'.'), got {}", shown(*machine)));
  const json* status = find(j, "status");
  if (!status) invalid("status", "missing");
  a.status = string_value(*status, "status");
  if (std::find(std::begin(kStatuses), std::end(kStatuses), a.status) == std::end(kStatuses))
    invalid("status", fmt::format("{} is not one of ok, wrong, unwritten, canary, build, run, runner", shown(*status)));
  if (const json* v = find(j, "reason")) a.reason = string_value(*v, "reason");
  if (a.status != "ok" && a.reason.empty()) invalid("reason", fmt::format("status {} needs a reason", a.status));
  if (const json* v = find(j, "probe")) a.probe = bool_value(*v, "probe");
  if (const json* v = find(j, "device")) {
    if (!v->is_null()) check_device(*v);
    a.device = *v;
  }
  if (a.probe && a.status == "ok" && a.device.is_null()) invalid("device", "a probe's answer with status ok needs the device");

  if (const json* v = find(j, "samples_ms")) {
    const json& samples = array_value(*v, "samples_ms");
    for (std::size_t i = 0; i < samples.size(); ++i)
      a.samples_ms.push_back(time_value(samples[i], fmt::format("samples_ms[{}]", i)));
  }
  if (a.probe && !a.samples_ms.empty()) invalid("samples_ms", "a probe's answer has no samples");
  if (a.status == "ok" && !a.probe && a.samples_ms.empty())
    invalid("samples_ms", "status ok needs at least one sample");
  // The median, minimum and maximum are those of the samples (as printed, to 9 digits).
  if (!a.samples_ms.empty()) {
    a.median_ms = median_of(a.samples_ms);
    a.min_ms = *std::min_element(a.samples_ms.begin(), a.samples_ms.end());
    a.max_ms = *std::max_element(a.samples_ms.begin(), a.samples_ms.end());
  }
  const struct {
    const char* key;
    const char* what;
    double value;
  } summaries[] = {{"median_ms", "median", a.median_ms}, {"min_ms", "minimum", a.min_ms}, {"max_ms", "maximum", a.max_ms}};
  for (const auto& s : summaries) {
    const json* v = find(j, s.key, true);
    if (!v) continue;
    if (a.samples_ms.empty()) invalid(s.key, fmt::format("{} without samples", shown(*v)));
    double given = time_value(*v, s.key);
    if (std::fabs(given - s.value) > 1e-6 * std::max(s.value, 1e-3))
      invalid(s.key, fmt::format("{} is not the {} of samples_ms ({:.9g})", shown(*v), s.what, s.value));
  }
  if (const json* v = find(j, "cut")) a.cut = bool_value(*v, "cut");
  if (a.cut && a.samples_ms.size() != 1)
    invalid("cut", fmt::format("a cut answer has one sample, not {}", a.samples_ms.size()));
  if (const json* v = find(j, "stopped")) a.stopped = bool_value(*v, "stopped");
  if (a.stopped && !a.cut) invalid("stopped", "a stopped answer is cut");

  if (const json* v = find(j, "kernel_median_ms")) {
    const json& medians = array_value(*v, "kernel_median_ms");
    for (std::size_t i = 0; i < medians.size(); ++i)
      a.kernel_ms.push_back(time_value(medians[i], fmt::format("kernel_median_ms[{}]", i)));
  }
  if (const json* v = find(j, "mismatches")) count_value(*v, "mismatches");
  if (const json* v = find(j, "workspace_bytes")) a.workspace_bytes = count_value(*v, "workspace_bytes");
  if (const json* v = find(j, "max_abs_error", true)) time_value(*v, "max_abs_error");
  if (const json* v = find(j, "started_ms", true)) time_value(*v, "started_ms");
  if (const json* v = find(j, "phases_ms")) {
    if (!v->is_object()) invalid("phases_ms", fmt::format("expected an object, got {}", shown(*v)));
    // In the order the runner ran them (an ordered parse: json sorts its keys).
    nlohmann::ordered_json ordered = nlohmann::ordered_json::parse(line);
    for (const auto& [phase, ms] : ordered["phases_ms"].items())
      a.phases_ms.emplace_back(phase, time_value(ms, fmt::format("phases_ms.{}", phase)));
  }
  if (const json* v = find(j, "lock_wait_ms", true)) a.lock_wait_ms = time_value(*v, "lock_wait_ms");
  if (const json* v = find(j, "locked_ms")) {
    const json& spans = array_value(*v, "locked_ms");
    for (std::size_t i = 0; i < spans.size(); ++i) {
      std::string field = fmt::format("locked_ms[{}]", i);
      const json& span = spans[i];
      if (!span.is_array() || span.size() != 2)
        invalid(field, fmt::format("expected [acquired, released], got {}", shown(span)));
      double acquired = time_value(span[0], field), released = time_value(span[1], field);
      if (released < acquired) invalid(field, fmt::format("released before acquired: {}", shown(span)));
      a.locked_ms.emplace_back(acquired, released);
    }
  }
  if (const json* v = find(j, "pid")) {
    a.pid = count_value(*v, "pid");
    if (a.pid == 0 || a.pid > std::numeric_limits<std::int32_t>::max())
      invalid("pid", fmt::format("expected a process id, got {}", shown(*v)));
  }
  if (const json* v = find(j, "reused_context")) a.reused_context = bool_value(*v, "reused_context");
  return a;
}

}  // namespace

RunnerAnswer parse_runner_answer(const std::string& text) {
  // The answer is the last line that parses as a JSON object (a runner script may print more).
  std::size_t end = text.size();
  while (end > 0) {
    std::size_t begin = text.rfind('\n', end - 1);
    begin = begin == std::string::npos ? 0 : begin + 1;
    std::string line = text.substr(begin, end - begin);
    end = begin == 0 ? 0 : begin - 1;
    if (line.find('{') == std::string::npos) continue;
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) continue;
    try {
      return check_answer(j, line);
    } catch (const json::exception& e) {
      // Every field is type-checked before it is read; this only keeps a slip from
      // escaping as an internal error.
      throw Error(fmt::format("the runner's answer could not be read: {}", e.what()));
    }
  }
  throw Error("the runner printed no JSON answer");
}

}  // namespace liftc::explore
