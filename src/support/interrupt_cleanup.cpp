// The handler may run at any instruction, so it uses only async-signal-safe calls
// (kill, open, getdents64, unlinkat, close, rmdir, write, sigaction, raise) on paths stored in
// fixed buffers and process groups in atomic slots; registering copies the path into a free
// slot before publishing it.

#include "liftc/support/interrupt_cleanup.hpp"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>
#include <mutex>

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <signal.h>
#include <unistd.h>

#include <fmt/format.h>

#include "liftc/support/diagnostic.hpp"

namespace liftc {

namespace {

constexpr std::size_t kSlots = 16;
constexpr std::size_t kPathMax = 4096;

struct Slot {
  std::atomic<bool> used{false};
  char path[kPathMax] = {};
};

Slot slots[kSlots];

// Process groups to kill: 0 is a free slot; a slot is claimed by one compare-exchange.
constexpr std::size_t kGroupSlots = 4096;
std::atomic<int> groups[kGroupSlots];
std::mutex registry_mutex;  // registering and forgetting (never taken by the handler)

// The line say_on_interrupt registered: its length is published after its text, and set
// to 0 before the text is replaced.
constexpr std::size_t kMessageMax = 4096;
char message[kMessageMax] = {};
std::atomic<std::size_t> message_length{0};

// Removes everything inside the directory open as `dir`, `depth` levels below the
// registered path (bounded, so the handler's stack stays small).
void remove_contents(int dir, int depth) {
  alignas(8) char buffer[4096];
  for (;;) {
    long n = ::syscall(SYS_getdents64, dir, buffer, sizeof buffer);
    if (n <= 0) return;
    for (long at = 0; at < n;) {
      struct Entry {
        std::uint64_t ino;
        std::int64_t off;
        unsigned short reclen;
        unsigned char type;
        char name[1];
      };
      const auto* e = reinterpret_cast<const Entry*>(buffer + at);
      at += e->reclen;
      if (std::strcmp(e->name, ".") == 0 || std::strcmp(e->name, "..") == 0) continue;
      if (::unlinkat(dir, e->name, 0) == 0) continue;
      if (depth >= 8) continue;
      int sub = ::openat(dir, e->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0) continue;
      remove_contents(sub, depth + 1);
      ::close(sub);
      ::unlinkat(dir, e->name, AT_REMOVEDIR);
    }
  }
}

void kill_groups() {
  for (auto& g : groups)
    if (int pgid = g.load(std::memory_order_acquire); pgid > 0) ::kill(-pgid, SIGKILL);
}

void on_interrupt(int sig) {
  // The runners first: they may be writing into the folders removed below.
  kill_groups();
  for (Slot& s : slots) {
    if (!s.used.load(std::memory_order_acquire)) continue;
    if (::unlink(s.path) == 0) continue;
    int dir = ::open(s.path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir < 0) continue;
    remove_contents(dir, 0);
    ::close(dir);
    ::rmdir(s.path);
  }
  if (std::size_t n = message_length.load(std::memory_order_acquire); n > 0) {
    ssize_t written = ::write(STDERR_FILENO, message, n);
    (void)written;  // nothing to do about a closed standard error here
  }
  // End the process by the same signal, with its default action.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  ::raise(sig);
}

void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGINT, SIGTERM}) {
      struct sigaction old {};
      ::sigaction(sig, nullptr, &old);
      if (old.sa_handler == SIG_IGN) continue;  // e.g. started with nohup: keep ignoring
      struct sigaction action {};
      action.sa_handler = on_interrupt;
      ::sigemptyset(&action.sa_mask);
      ::sigaddset(&action.sa_mask, SIGINT);
      ::sigaddset(&action.sa_mask, SIGTERM);
      ::sigaction(sig, &action, nullptr);
    }
  });
}

}  // namespace

void kill_registered_groups() { kill_groups(); }

void remove_on_interrupt(const std::string& path) {
  if (path.size() >= kPathMax) throw Error(fmt::format("path too long for a temporary: {}", path));
  install_handlers();
  std::lock_guard<std::mutex> lock(registry_mutex);
  for (Slot& s : slots) {
    if (s.used.load(std::memory_order_relaxed)) continue;
    std::memcpy(s.path, path.c_str(), path.size() + 1);
    s.used.store(true, std::memory_order_release);
    return;
  }
  throw Error(fmt::format("too many temporary directories at once (at most {})", kSlots));
}

void forget_on_interrupt(const std::string& path) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  for (Slot& s : slots)
    if (s.used.load(std::memory_order_relaxed) && path == s.path) {
      s.used.store(false, std::memory_order_release);
      return;
    }
}

bool kill_group_on_interrupt(int pgid) {
  install_handlers();
  for (auto& g : groups) {
    int free_slot = 0;
    if (g.compare_exchange_strong(free_slot, pgid, std::memory_order_release)) return true;
  }
  return false;
}

void say_on_interrupt(const std::string& line) {
  install_handlers();
  std::lock_guard<std::mutex> lock(registry_mutex);
  message_length.store(0, std::memory_order_release);
  std::size_t n = std::min(line.size(), kMessageMax);
  std::memcpy(message, line.data(), n);
  message_length.store(n, std::memory_order_release);
}

void forget_group_on_interrupt(int pgid) {
  for (auto& g : groups) {
    int registered = pgid;
    if (g.compare_exchange_strong(registered, 0, std::memory_order_release)) return;
  }
}

}  // namespace liftc
