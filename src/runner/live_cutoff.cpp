#include "live_cutoff.hpp"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <utility>

namespace liftc_runner {

namespace {

constexpr double kNone = std::numeric_limits<double>::infinity();
constexpr std::size_t kMaxLines = 100000;  // a front is a few hundred points

double steady_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

Cutoff::Cutoff(double fixed_ms, double factor, std::uint64_t memory_bytes, std::string path)
    : fixed_ms_(fixed_ms > 0 ? fixed_ms : kNone),
      factor_(factor),
      memory_(memory_bytes),
      path_(std::move(path)),
      live_ms_(kNone) {}

double Cutoff::now() {
  if (live()) {
    double t = steady_ms();
    if (read_at_ < 0 || t - read_at_ >= kRefreshMs) {
      read_at_ = t;
      read();
    }
  }
  return fixed_ms_ < live_ms_ ? fixed_ms_ : live_ms_;
}

void Cutoff::read() {
  std::ifstream in(path_);
  if (!in) return;  // not written yet, or another machine's
  double best = kNone;
  std::string line;
  for (std::size_t n = 0; n < kMaxLines && std::getline(in, line); ++n) {
    std::istringstream words(line);
    unsigned long long memory = 0;
    double time = 0;
    std::string extra;
    if (!(words >> memory >> time) || (words >> extra) || !(time > 0) || time == kNone) continue;
    if (memory <= memory_ && time < best) best = time;
  }
  // Points are only ever added, so the cut-off only falls: a file read half-way through an
  // update (never, with a rename, but cheaply guarded) cannot raise it.
  if (best * factor_ < live_ms_) live_ms_ = best * factor_;
}

}  // namespace liftc_runner
