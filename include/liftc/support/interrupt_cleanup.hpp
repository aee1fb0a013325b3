#pragma once
// Temporary files and directories, and child process groups (runners), that must not
// outlive an interrupted liftc: on SIGINT or SIGTERM, every registered process group is
// killed, every registered path is removed, a registered line is written to standard error,
// and the process then ends by that signal, as it would have without liftc's handler.

#include <string>

namespace liftc {

/// Removes `path` (a file, or a directory and everything in it) if the process is
/// interrupted before forget_on_interrupt(path). Installs the signal handlers on first use.
/// At most 16 paths are registered at once (a liftc::Error beyond that).
void remove_on_interrupt(const std::string& path);

/// Stops watching `path` (it was moved into place or removed normally).
void forget_on_interrupt(const std::string& path);

/// Kills the process group `pgid` (SIGKILL) if the process is interrupted before
/// forget_group_on_interrupt(pgid). Installs the signal handlers on first use. Callable
/// from any thread; false (nothing registered) when 4096 groups are registered already.
bool kill_group_on_interrupt(int pgid);

/// Kills every registered process group now (SIGKILL), as an interrupt would, and goes on:
/// `liftc worker`, stopping on SIGTERM, ends the runner it waits for. Callable from any thread.
void kill_registered_groups();

/// Stops watching the process group `pgid` (call it before reaping its leader, so the
/// number is never one the system gave to another process meanwhile).
void forget_group_on_interrupt(int pgid);

/// Writes `line` (its first 4096 bytes) to standard error if the process is interrupted,
/// after the cleanup: how to go on from where it stopped. Replaces the line registered
/// before; an empty one says nothing. Installs the signal handlers on first use.
void say_on_interrupt(const std::string& line);

}  // namespace liftc
