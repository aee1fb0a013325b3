#pragma once
// Reading a file a user names (a program, a rule file, an .npy input) with the checks that
// keep a careless path from crashing liftc or exhausting memory.

#include <cstdint>
#include <string>

namespace liftc {

/// Reads the whole of `path`. A path that cannot be opened, is not a regular file (a
/// directory, /dev/zero, a FIFO) or is larger than `max_bytes` is a liftc::Error naming
/// the path and what it should have been: `what` says that, e.g. "program" or ".npy file".
std::string read_regular_file(const std::string& path, const std::string& what, std::uint64_t max_bytes);

/// `bytes` for a message: "512 bytes", "64.0 MiB", "4.0 GiB".
std::string format_bytes(std::uint64_t bytes);

}  // namespace liftc
