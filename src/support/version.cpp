#include "liftc/support/version.hpp"

#ifndef LIFTC_BUILD_VERSION
#error "LIFTC_BUILD_VERSION is set by src/support/CMakeLists.txt"
#endif

namespace liftc {

const char* build_version() { return LIFTC_BUILD_VERSION; }

}  // namespace liftc
