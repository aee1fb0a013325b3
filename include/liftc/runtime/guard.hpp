#pragma once
// Canaries and poison: how a device buffer is guarded, written once for the two executors
// that allocate buffers themselves, the runtime (src/runtime/guarded_buffer.cpp, run.cpp)
// and liftc-runner (src/runner/runner.cpp). Standard C++17 only, header-only: liftc-runner
// includes it and still builds on its own (for a phone, with the Android NDK).
//
// One allocation per buffer:  [ before | data | after ]
//  * `after` is the canary size asked for; `before` is that rounded up to the device's
//    base-address alignment, so that the data can be a sub-buffer (clCreateSubBuffer needs
//    an aligned origin) whose index 0 is the first data byte: a write to index -1 lands in
//    the before-canary, a write past the end in the after-canary;
//  * both canaries hold kCanary repeated; the data holds an input's values, or kPoison
//    repeated (outputs and scratch), so an output element still holding it after the first
//    run was never written, and a value read before anyone wrote it is a NaN.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace liftc::guard {

/// The 32-bit word repeated in canary regions (a quiet NaN payload no kernel computes).
inline constexpr std::uint32_t kCanary = 0x7FC1CA7Du;

/// The 32-bit word every output and scratch buffer holds before the first run (a quiet NaN
/// payload no kernel computes, other than kCanary and than the NaN arithmetic gives).
inline constexpr std::uint32_t kPoison = 0x7FC0DEADu;

/// The 16 bits every half output and scratch buffer holds before the first run (a quiet NaN
/// payload that vstore_half of a NaN the arithmetic gives, 0x7E00, is not); as a 32-bit word
/// for fill(), kPoisonHalfWord.
inline constexpr std::uint16_t kPoisonHalf = 0x7EADu;
inline constexpr std::uint32_t kPoisonHalfWord = 0x7EAD7EADu;

/// The largest base-address alignment taken from a device (a few KiB on real ones): a
/// device that reports more cannot make a buffer's leading canary larger than this.
inline constexpr std::size_t kMaxAlignBytes = std::size_t(1) << 20;

/// Where a buffer's data lies in its allocation: `before` canary bytes, `bytes` of data,
/// `after` canary bytes.
struct Layout {
  std::size_t before = 0, bytes = 0, after = 0;
  /// The whole allocation's bytes.
  std::size_t total() const { return before + bytes + after; }
};

/// The layout of `bytes` of data with `canary_bytes` of canary after it and as many,
/// rounded up to `align_bytes` (the device's CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes, taken
/// as 1 to kMaxAlignBytes), before it; no canary at all when `canary_bytes` is 0.
inline Layout layout(std::size_t bytes, std::size_t canary_bytes, std::size_t align_bytes) {
  const std::size_t align = std::clamp<std::size_t>(align_bytes, 1, kMaxAlignBytes);
  return {(canary_bytes + align - 1) / align * align, bytes, canary_bytes};
}

/// Fills `bytes` bytes at `dst` with `word` repeated (its bytes in the host's order: as the
/// device, of the same byte order, reads a 32-bit word).
inline void fill(void* dst, std::size_t bytes, std::uint32_t word) {
  unsigned char w[4];
  std::memcpy(w, &word, sizeof w);
  auto* out = static_cast<unsigned char*>(dst);
  for (std::size_t i = 0; i < bytes; ++i) out[i] = w[i % 4];
}

/// Fills both canary regions of an allocation `whole` laid out as `l` (the data is left alone).
inline void fill_canaries(void* whole, const Layout& l) {
  auto* bytes = static_cast<unsigned char*>(whole);
  fill(bytes, l.before, kCanary);
  fill(bytes + l.before + l.bytes, l.after, kCanary);
}

/// How a canary region differs from its pattern: the bytes changed, and the offset of the first.
struct Damage {
  std::size_t changed_bytes = 0, first_offset = 0;
};

/// How the `bytes` bytes at `region` (a canary region read back) differ from kCanary repeated.
inline Damage damage(const void* region, std::size_t bytes) {
  unsigned char w[4];
  std::memcpy(w, &kCanary, sizeof w);
  const auto* in = static_cast<const unsigned char*>(region);
  Damage d;
  for (std::size_t i = 0; i < bytes; ++i)
    if (in[i] != w[i % 4] && d.changed_bytes++ == 0) d.first_offset = i;
  return d;
}

/// The elements of an output read back that still hold kPoison: how many, and the first.
struct Unwritten {
  std::size_t count = 0, first = 0;
};

/// The `count` 4-byte elements at `data` (f32 or i32, read back) that still hold kPoison.
inline Unwritten unwritten(const void* data, std::size_t count) {
  const auto* in = static_cast<const unsigned char*>(data);
  Unwritten u;
  for (std::size_t e = 0; e < count; ++e) {
    std::uint32_t bits;
    std::memcpy(&bits, in + 4 * e, sizeof bits);
    if (bits == kPoison && u.count++ == 0) u.first = e;
  }
  return u;
}

/// The `count` 2-byte elements at `data` (halves, read back) that still hold kPoisonHalf.
inline Unwritten unwritten_half(const void* data, std::size_t count) {
  const auto* in = static_cast<const unsigned char*>(data);
  Unwritten u;
  for (std::size_t e = 0; e < count; ++e) {
    std::uint16_t bits;
    std::memcpy(&bits, in + 2 * e, sizeof bits);
    if (bits == kPoisonHalf && u.count++ == 0) u.first = e;
  }
  return u;
}

}  // namespace liftc::guard
