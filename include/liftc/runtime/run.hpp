#pragma once
// Running a launch plan on a session: upload inputs once and fill every other buffer with a
// poison value (kPoisonPattern), enqueue the kernels once and read the outputs back (the
// validated run: nothing an earlier run left in a buffer can hide a kernel that reads data
// before it is written), then W - 1 more warm-up runs and N timed ones; time each run as
// the SUM of its kernels' profiling events (END - START), and check every buffer's canaries.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "liftc/runtime/guard.hpp"
#include "liftc/runtime/plan.hpp"
#include "liftc/runtime/session.hpp"

namespace liftc::runtime {

/// How often to run and how much guard space to put around buffers.
struct RunOptions {
  int warmup_runs = 1;  ///< untimed runs before the timed ones (>= 0); the first run (whose
                        ///< outputs are read back) counts as one of them
  int timed_runs = 5;   ///< timed runs (>= 1)
  /// Guard bytes after every buffer (and, rounded up to the device's base-address
  /// alignment, before it), filled with kCanaryPattern; 0 disables the check.
  std::size_t canary_bytes = 256;
};

/// The 32-bit word repeated in canary regions (a quiet NaN payload no kernel computes);
/// liftc-runner's too (guard.hpp).
inline constexpr std::uint32_t kCanaryPattern = guard::kCanary;

/// The 32-bit word every output and scratch buffer holds before the first run (a quiet NaN
/// payload no kernel computes): a value a kernel reads before anyone wrote it is NaN, and an
/// output element still holding it was never written; liftc-runner's too (guard.hpp).
inline constexpr std::uint32_t kPoisonPattern = guard::kPoison;

/// Output elements the first run left holding kPoisonPattern (never written).
struct UnwrittenOutput {
  std::size_t buffer = 0;       ///< index in LaunchPlan::buffers
  std::string name;             ///< the buffer's name
  std::size_t count = 0;        ///< how many elements were never written
  std::size_t total = 0;        ///< the buffer's element count
  std::size_t first_index = 0;  ///< the first of them

  /// "5 of 16 elements of output 'out' were never written (the first at [3])".
  std::string str() const;
};

/// Which side of a buffer an out-of-bounds write hit.
enum class CanarySide { Before, After };

/// An out-of-bounds write detected in one buffer's canary region.
struct CanaryViolation {
  std::size_t buffer = 0;  ///< index in LaunchPlan::buffers
  std::string name;        ///< the buffer's name
  CanarySide side = CanarySide::After;
  std::size_t first_offset = 0;    ///< offset of the first changed byte from the canary's start
  std::size_t changed_bytes = 0;   ///< how many canary bytes differ from the pattern

  /// "out-of-bounds write after buffer 'out' (3 bytes changed, first at +0)".
  std::string str() const;
};

/// What a run produced: timings, read-back outputs and detected failures.
struct RunResult {
  std::vector<double> samples_ms;  ///< one per timed run: sum of the program's kernel times
  double median_ms = 0.0;          ///< median of samples_ms (mean of the middle two if even)
  double min_ms = 0.0;             ///< minimum of samples_ms
  /// Per kernel launch (plan order), its own event time in each timed run:
  /// samples_ms[r] == sum over k of kernel_samples_ms[k][r].
  std::vector<std::vector<double>> kernel_samples_ms;
  /// Per kernel launch (plan order), the median of kernel_samples_ms[k].
  std::vector<double> kernel_median_ms;
  /// Per buffer of the plan: its contents after the FIRST run when read_back, else monostate.
  std::vector<HostData> outputs;
  std::vector<CanaryViolation> canary_violations;  ///< empty when all canaries are intact
  std::vector<UnwrittenOutput> unwritten;          ///< empty when the first run wrote every output element

  /// True when no failure was detected (the values themselves are checked by compare()).
  bool ok() const { return canary_violations.empty() && unwritten.empty(); }
  /// A one-paragraph description of the failures; empty when ok().
  std::string failure() const;
  /// Buffer `index`'s read-back floats; throws liftc::Error if it was not read back as floats.
  const std::vector<float>& floats(std::size_t index) const;
  /// Buffer `index`'s read-back ints; throws liftc::Error if it was not read back as ints.
  const std::vector<std::int32_t>& ints(std::size_t index) const;
};

/// Runs `plan` with the kernels of `program` (built for `session`). Every OpenCL failure
/// (bad work-group size, out of resources, unknown kernel, ...) throws liftc::Error
/// naming the error and the action; canary damage is reported in the result instead.
RunResult run_program(const Session& session, const Program& program, const LaunchPlan& plan,
                      const RunOptions& options = {});

/// build_program(session, source, build_options) followed by run_program.
RunResult run_source(const Session& session, const std::string& source, const std::string& build_options,
                     const LaunchPlan& plan, const RunOptions& options = {});

}  // namespace liftc::runtime
