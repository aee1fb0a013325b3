#pragma once
// The runner's JSON answer (protocol 1, src/runner/README.md), read and checked: whatever
// a runner prints, parse_runner_answer gives an answer whose every field has the
// protocol's type and range, or a liftc::Error naming the field, so the evaluator can
// store it and read the device's limits without checking again.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace liftc::explore {

/// What a runner answered (protocol 1), checked.
struct RunnerAnswer {
  std::string machine;   // where the runner ran: the architecture as uname -m names it ("aarch64", "x86_64")
  std::string status;    // "ok", or a failure status of the protocol (wrong, unwritten, canary, build, run, runner)
  std::string reason;    // why it failed (never empty for a failure)
  bool probe = false;    // the answer to a bundle with no kernel: the device only, no samples
  /// The device's name, driver and limits (null if none was opened): the strings name,
  /// vendor, version, driver; the whole numbers >= 0 (each fits an int64) compute_units,
  /// max_work_group_size, local_mem_bytes, global_mem_bytes, max_alloc_bytes,
  /// preferred_vector_width; max_work_item_sizes, 3 of them; local_mem_global, a bool.
  nlohmann::json device;
  std::vector<double> samples_ms;  // finite, >= 0; at least one when status is ok and not a probe
  double median_ms = 0, min_ms = 0, max_ms = 0;  // of samples_ms (0 when there are none)
  // kernel_median_ms: each kernel's median over the timed runs (a cut answer's one run), in
  // launch order; empty when absent.
  std::vector<double> kernel_ms;
  bool cut = false;      // timing stopped after one run over the cut-off (one sample)
  bool stopped = false;  // cut while its kernels still ran (the runner exits after this answer); cut too
  std::int64_t workspace_bytes = 0;  // device memory a library call allocated itself (CLBlast's temporary buffer); 0 when absent
  std::vector<std::pair<std::string, double>> phases_ms;  // where the runner's time went, in order: ("platform", ms), ...
  double lock_wait_ms = 0;   // time spent waiting for the device lock
  std::vector<std::pair<double, double>> locked_ms;  // [acquired, released] on the machine's monotonic clock
  std::int64_t pid = 0;        // --serve: the runner's process id (0: not given)
  bool reused_context = false; // --serve: the device, context and queue were open from an earlier bundle
};

/// Parses a runner's stdout: the answer is its last line that is a JSON object. A
/// liftc::Error (one line, naming the field) when there is none or it breaks protocol 1.
RunnerAnswer parse_runner_answer(const std::string& text);

}  // namespace liftc::explore
