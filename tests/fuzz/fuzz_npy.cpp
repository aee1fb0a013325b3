// libFuzzer target for .npy files: any bytes must read into a Tensor whose data matches its
// shape, or be a liftc::Error (never a crash, an assert, a hang, a stack overflow or
// another exception); a Tensor read must write and read back to the same Tensor.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>

#include "liftc/io/tensor.hpp"
#include "liftc/support/diagnostic.hpp"

namespace {

[[noreturn]] void fail(const std::string& why) {
  std::fprintf(stderr, "fuzz_npy: %s\n", why.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  liftc::io::Tensor t;
  try {
    t = liftc::io::parse_npy(bytes, "fuzz.npy");
  } catch (const liftc::Error&) {
    return 0;  // a malformed file: a user error, fine
  } catch (const std::exception& e) {
    fail(std::string("escaped as an internal error: ") + e.what());
  }
  std::size_t held = t.dtype == liftc::io::DType::Float32 ? t.f32.size() : t.i32.size();
  if (held != static_cast<std::size_t>(t.element_count())) fail("the tensor's data does not match its shape");
  liftc::io::Tensor back = liftc::io::parse_npy(liftc::io::format_npy(t), "round-trip.npy");
  bool same_data = t.dtype == liftc::io::DType::Float32
                       ? std::memcmp(back.f32.data(), t.f32.data(), t.f32.size() * sizeof(float)) == 0
                       : back.i32 == t.i32;
  if (back.dtype != t.dtype || back.shape != t.shape || !same_data) fail("write then read gives another tensor");
  return 0;
}
