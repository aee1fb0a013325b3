#pragma once
// The version of this liftc build, as results are stamped with it.

namespace liftc {

/// "0.1-<git describe>" of the source tree at configure time ("0.1-v0.1-12-gabc1234-dirty"),
/// or the project's version ("0.1") where the tree was no git checkout.
const char* build_version();

}  // namespace liftc
