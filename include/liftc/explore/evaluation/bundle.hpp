#pragma once
// Candidate bundles: the folder liftc-runner reads (the format is in src/runner/README.md;
// the runner's JSON answer is read by answer.hpp). Writing a bundle needs nothing but a launch plan, the
// kernels and the expected outputs, so a bundle can be copied to a phone and run there.

#include <cstdint>
#include <string>
#include <vector>

#include "liftc/explore/evaluation/answer.hpp"
#include "liftc/interp/interp.hpp"
#include "liftc/runtime/plan.hpp"

namespace liftc::explore {

/// How the runner is to run a bundle.
struct BundleSettings {
  std::string device;     // device selector ("" = the first device)
  int warmup = 1;         // untimed runs (the first, validated run counts as one)
  int runs = 5;           // timed runs
  double cutoff_ms = 0;   // stop timing after the first timed run when it is slower; 0 = never
  // The explorer's file of validated points ("MEMORY_BYTES TIME_MS" lines) the runner reads as
  // it runs, to stop once a point of at most `live_memory` bytes is `live_factor` times
  // faster (src/runner/live_cutoff.hpp); "" = none.
  std::string live_path;
  double live_factor = 0;
  std::int64_t live_memory = 0;
  double rtol = 1e-3, atol = 1e-3;  // the validation's tolerance (numpy.isclose)
  std::size_t canary_bytes = 256;   // guard bytes around every buffer
  std::string lock;       // file the runner flocks around its kernel executions ("" = none)
  // Per element of an output, what it may differ by beyond rtol and atol (a Winograd
  // program's rounding: interp::rounding_allowance), by output name; nullptr = none. Its
  // files are linked from `allowance_dir` when that holds them (write_allowance_files).
  const interp::Tensors* allowance = nullptr;
  std::string allowance_dir;
};

/// The inputs and expected outputs of an exploration, written once (`write_shared_files`);
/// each bundle hard-links them instead of writing them again.
struct SharedFiles {
  std::string dir;                          // holds inputs/NAME.bin and expected/NAME.bin
  const interp::Tensors* inputs = nullptr;  // what inputs/ holds: a buffer is linked only when it holds these values
};

/// Writes `inputs` and `expected` into `dir`/inputs and `dir`/expected (the tensors must
/// outlive the result).
SharedFiles write_shared_files(const std::string& dir, const interp::Tensors& inputs, const interp::Tensors& expected);

/// Writes each tensor of `allowance` as `dir`/NAME.bin (the folder created), for bundles to link.
void write_allowance_files(const std::string& dir, const interp::Tensors& allowance);

/// Writes bundle.txt, kernels.cl, inputs/*.bin, expected/*.bin and, with an allowance,
/// allowance/*.bin of the outputs it names into `dir` (created;
/// existing bundle files are replaced). `expected` holds the interpreter's value of every
/// output buffer of `plan` (by buffer name); a missing one is a liftc::Error. With `shared`
/// (written from the same `expected`), its files are hard-linked where they fit (copied
/// where the file system refuses a link), so the folder stays self-contained.
void write_bundle(const std::string& dir, const std::string& kernels, const runtime::LaunchPlan& plan,
                  const interp::Tensors& expected, const BundleSettings& settings, const SharedFiles* shared = nullptr);

/// A bundle with no kernels: the runner only opens the device and reports it.
void write_probe_bundle(const std::string& dir, const std::string& device);

}  // namespace liftc::explore
