// libFuzzer target for liftc-runner's bundle reader (src/runner/bundle_reader.cpp): any
// bundle.txt text must read into a Bundle within the reader's caps, or be a Failure with
// status "runner" and a one-line reason (never a crash, an abort, a hang or another
// exception: the runner turns those into a lost candidate, or a dead serving runner).

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "bundle_reader.hpp"

namespace {

using namespace liftc_runner;

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "fuzz_bundle: %s\n", why.c_str());
  std::abort();
}

// What the runner relies on when it allocates and launches.
void check(const Bundle& b) {
  if (b.warmup < 0 || std::uint64_t(b.warmup) > kMaxRuns || b.runs < 1 || std::uint64_t(b.runs) > kMaxRuns)
    fail("warmup or runs out of range");
  if (!std::isfinite(b.cutoff_ms) || b.cutoff_ms < 0 || !std::isfinite(b.rtol) || b.rtol < 0 || !std::isfinite(b.atol) ||
      b.atol < 0)
    fail("a cut-off or tolerance that is not a finite number >= 0");
  if (b.canary > kMaxCanaryBytes || b.canary % 4) fail("a canary out of range");
  for (const auto& d : b.buffers) {
    if (d.count < 1 || d.count > kMaxBufferElements) fail("a buffer count out of range");
    if (d.name.empty() || d.name.find('/') != std::string::npos) fail("a buffer name that is not a file name");
    if (d.role != "input" && d.role != "output" && d.role != "scratch") fail("a buffer role");
  }
  for (const auto& k : b.kernels) {
    if (!k.library.empty()) {
      // A library call (issue 21): a known routine with its number of sizes and buffers.
      const LibraryRoutine* routine = nullptr;
      for (const auto& r : kLibraryRoutines)
        if (k.library == r.name) routine = &r;
      if (!routine) fail("an unknown library routine");
      if (k.sizes.size() != routine->sizes) fail("a library call with another number of sizes");
      for (std::uint64_t s : k.sizes)
        if (s > kMaxWorkSize) fail("a library size out of range");
      if (k.args.size() != routine->buffers) fail("a library call with another number of buffers");
      for (const auto& a : k.args)
        if (a.kind != ArgDesc::Kind::Buffer || a.buffer >= b.buffers.size()) fail("a library argument that is no buffer");
      for (const auto& p : k.params)
        if (p.kernel.empty() || p.name.empty() || p.value > kMaxWorkSize) fail("a library parameter out of range");
      continue;
    }
    if (!k.sizes.empty() || !k.params.empty()) fail("sizes or parameters on a kernel that is no library call");
    if (k.dims < 1 || k.dims > 3) fail("kernel dimensions");
    for (unsigned d = 0; d < k.dims; ++d) {
      if (k.global[d] < 1 || k.global[d] > kMaxWorkSize) fail("a global size");
      if (k.local[0] == 0 ? k.local[d] != 0 : (k.local[d] < 1 || k.local[d] > k.global[d])) fail("a local size");
    }
    for (const auto& a : k.args) {
      if (a.kind == ArgDesc::Kind::Buffer && a.buffer >= b.buffers.size()) fail("an arg buffer index past the buffers");
      if (a.kind == ArgDesc::Kind::Float && !std::isfinite(a.float_value)) fail("an arg float that is not finite");
      if (a.kind == ArgDesc::Kind::Local && (a.local_bytes < 1 || a.local_bytes > kMaxLocalArgBytes)) fail("an arg local");
    }
  }
  std::uint64_t index = 0;
  device_index(b.device, index);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  Bundle b;
  try {
    b = parse_bundle(text, "fuzz/bundle.txt");
  } catch (const Failure& f) {
    if (f.status != "runner") fail("a malformed bundle with status " + f.status);
    if (f.reason.find('\n') != std::string::npos) fail("a reason of more than one line: " + f.reason);
    return 0;
  } catch (const std::exception& e) {
    fail(std::string("an exception that is not a Failure: ") + e.what());
  }
  check(b);
  return 0;
}
