#pragma once
// One Session shared by all runtime tests (opening a device and compiling is slow on PoCL).

#include <string>

#include "liftc/runtime/session.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::runtime::testing {

/// The session every test uses: the first device (PoCL on CI).
inline const Session& session() {
  static const Session s("");
  return s;
}

/// Asserts-style helper: runs `f`, returns the liftc::Error message it threw, or "" if none.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace liftc::runtime::testing
