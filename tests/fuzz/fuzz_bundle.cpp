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
#include "liftc/runtime/library_call.hpp"

namespace {

using namespace liftc_runner;
using u128 = unsigned __int128;

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "fuzz_bundle: %s\n", why.c_str());
  std::abort();
}

// a * b, saturated at 2^127 (sizes of four or five 32-bit factors, compared with a count).
u128 times(u128 a, u128 b) {
  const u128 most = u128(1) << 127;
  return a != 0 && b > most / a ? most : a * b;
}

// Issue 36, worked out here independently of liftc/runtime/library_call.hpp: a call reads and
// writes inside its buffers (CLBlast checks nothing: the runner read past an image and died),
// and no parameter CLBlast divides by or loops by is 0 (WGD = 0 segfaulted, KWID = 0 never ended).
void check_library_call(const Bundle& b, const KernelDesc& k) {
  const auto& s = k.sizes;
  auto has = [&](std::size_t i) { return u128(b.buffers[k.args[i].buffer].count); };
  if (k.library == "clblast-gemm") {
    if (times(s[0], s[2]) > has(0) || times(s[2], s[1]) > has(1) || times(s[0], s[1]) > has(2))
      fail("a gemm call past its buffers");
  } else {
    if (s[3] == 0 || s[4] == 0 || s[7] == 0 || s[8] == 0 || s[9] == 0 || s[10] == 0)
      fail("a convgemm kernel, stride or dilation of 0");
    const u128 span_h = times(s[9], s[3] - 1) + 1, span_w = times(s[10], s[4] - 1) + 1;
    const u128 padded_h = u128(s[1]) + 2 * u128(s[5]), padded_w = u128(s[2]) + 2 * u128(s[6]);
    if (padded_h < span_h || padded_w < span_w) fail("a convgemm kernel larger than the padded image");
    const u128 oh = (padded_h - span_h) / s[7] + 1, ow = (padded_w - span_w) / s[8] + 1;
    if (times(times(s[12], s[0]), times(s[1], s[2])) > has(0) || times(times(s[11], s[0]), times(s[3], s[4])) > has(1) ||
        times(times(s[12], s[11]), times(oh, ow)) > has(2))
      fail("a convgemm call past its buffers");
  }
  for (const auto& p : k.params)
    for (const char* divisor : {"WGD", "KWID", "MDIMCD", "NDIMCD", "MDIMAD", "NDIMBD", "VWMD", "VWND", "MWG", "NWG", "KWG",
                                "MDIMC", "NDIMC", "MDIMA", "NDIMB", "VWM", "VWN", "KWI"})
      if (p.name == divisor && p.value == 0) fail("a library parameter CLBlast divides or steps by is 0");
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
      const liftc::library_call::Routine* routine = liftc::library_call::find_routine(k.library);
      if (!routine) fail("an unknown library routine");
      if (k.sizes.size() != routine->sizes) fail("a library call with another number of sizes");
      for (std::uint64_t s : k.sizes)
        if (s > kMaxWorkSize) fail("a library size out of range");
      if (k.args.size() != routine->buffers) fail("a library call with another number of buffers");
      for (const auto& a : k.args)
        if (a.kind != ArgDesc::Kind::Buffer || a.buffer >= b.buffers.size()) fail("a library argument that is no buffer");
      for (const auto& p : k.params)
        if (p.kernel.empty() || p.name.empty() || p.value > kMaxWorkSize) fail("a library parameter out of range");
      check_library_call(b, k);
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
