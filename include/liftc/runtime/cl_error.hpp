#pragma once
// Names of OpenCL error codes, for messages a person can act on.

#include <cstdint>

namespace liftc::runtime {

/// The symbolic name of an OpenCL status code ("CL_INVALID_WORK_GROUP_SIZE"), covering
/// every code of OpenCL 1.0-3.0 and the common KHR/EXT ones; "CL_UNKNOWN_ERROR" otherwise.
/// (`code` is a cl_int; the parameter type keeps OpenCL headers out of this header.)
const char* cl_error_name(std::int32_t code);

}  // namespace liftc::runtime
