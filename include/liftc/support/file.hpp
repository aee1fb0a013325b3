#pragma once
// Reading a file a user names (a program, a rule file, an .npy input) with the checks that
// keep a careless path from crashing liftc or exhausting memory, and writing a file so that
// "wrote" is only ever said of a file that holds every byte (a full disk, a file-size limit
// or an I/O error is an error, not a short file).

#include <cstdint>
#include <string>
#include <string_view>

namespace liftc {

/// Reads the whole of `path`. A path that cannot be opened, is not a regular file (a
/// directory, /dev/zero, a FIFO) or is larger than `max_bytes` is a liftc::Error naming
/// the path and what it should have been: `what` says that, e.g. "program" or ".npy file".
std::string read_regular_file(const std::string& path, const std::string& what, std::uint64_t max_bytes);

/// Writes `bytes` to `path` (created, or truncated when it exists), every byte, and closes
/// it; a failed open, a short write (ENOSPC, EFBIG under `ulimit -f`, EIO) or a failed
/// close is a liftc::Error naming `path` and the reason, and a partial regular file is removed.
void write_file(const std::string& path, std::string_view bytes);

/// `bytes` for a message: "512 bytes", "64.0 MiB", "4.0 GiB".
std::string format_bytes(std::uint64_t bytes);

}  // namespace liftc
