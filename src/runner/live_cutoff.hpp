#pragma once
// The cut-off of a candidate while it runs. A bundle's `cutoff_ms` is what the explorer knew
// when it wrote the bundle; with several runners at once, faster points are often validated
// while this one builds and runs (at the start of a search, before any point is known, none
// at all). With a `live_cutoff` line the runner also reads the explorer's file of validated
// points as it goes, so a candidate is stopped as soon as a point that uses no more memory is
// known to be FACTOR times faster, not only one known when its bundle was written.

#include <cstdint>
#include <string>

namespace liftc_runner {

class Cutoff {
 public:
  /// `fixed_ms`: the bundle's cutoff_ms (0 = none). With a non-empty `path`: that file's
  /// lines "MEMORY_BYTES TIME_MS" (validated points; written whole and renamed into place by
  /// the explorer) give FACTOR x the fastest time of a point of at most `memory_bytes`.
  Cutoff(double fixed_ms, double factor, std::uint64_t memory_bytes, std::string path);

  /// The cut-off now, in ms (infinity: none). The file is read again at most every
  /// kRefreshMs; a missing or unreadable file, or a line that is not two numbers, adds
  /// nothing (the file is a hint: a runner on another machine never sees it).
  double now();
  /// Whether a cut-off may appear while a run is under way (a live file is named).
  bool live() const { return !path_.empty(); }

  static constexpr double kRefreshMs = 50;

 private:
  void read();

  double fixed_ms_;
  double factor_;
  std::uint64_t memory_;
  std::string path_;
  double live_ms_;      // from the file's last reading (infinity: none)
  double read_at_ = -1; // when it was last read (steady clock, ms)
};

}  // namespace liftc_runner
