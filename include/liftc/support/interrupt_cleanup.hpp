#pragma once
// Temporary files and directories that must not outlive an interrupted liftc: on SIGINT or
// SIGTERM, every registered path is removed and the process then ends by that signal, as it
// would have without liftc's handler.

#include <string>

namespace liftc {

/// Removes `path` (a file, or a directory and everything in it) if the process is
/// interrupted before forget_on_interrupt(path). Installs the signal handlers on first use.
/// At most 16 paths are registered at once (a liftc::Error beyond that).
void remove_on_interrupt(const std::string& path);

/// Stops watching `path` (it was moved into place or removed normally).
void forget_on_interrupt(const std::string& path);

}  // namespace liftc
