#pragma once
// FNV-1a (Fowler-Noll-Vo), 64 and 32 bits: a small, platform-stable hash of bytes, for
// seeds and names that must come out the same on every machine (std::hash need not). Not
// cryptographic. Header-only: the interpreter, code generation and the tests use it.

#include <cstdint>
#include <string_view>

namespace liftc {

/// FNV-1a of `bytes` in 64 bits.
constexpr std::uint64_t fnv1a_64(std::string_view bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

/// FNV-1a of `bytes` in 32 bits.
constexpr std::uint32_t fnv1a_32(std::string_view bytes) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : bytes) h = (h ^ c) * 16777619u;
  return h;
}

}  // namespace liftc
