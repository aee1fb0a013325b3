#include "liftc/support/file.hpp"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "liftc/support/diagnostic.hpp"

namespace liftc {

namespace {

// Closes a file descriptor when it goes out of scope.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a pipe";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

std::string format_bytes(std::uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} bytes", bytes);
  const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes) / 1024;
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, units[unit]);
}

std::string read_regular_file(const std::string& path, const std::string& what, std::uint64_t max_bytes) {
  if (path.empty()) throw Error(fmt::format("the path of the {} is empty", what));
  // O_NONBLOCK: opening a FIFO with no writer must not hang; it is refused below anyway.
  Fd file{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (file.fd < 0) throw Error(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
  // fstat on the descriptor: what is checked is what is read.
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) throw Error(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  if (!S_ISREG(st.st_mode))
    throw Error(fmt::format("{} is {}, not a {} (give a regular file)", path, file_kind(st.st_mode), what));
  auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > max_bytes)
    throw Error(fmt::format("{} is {} ({} bytes); liftc reads a {} of at most {}", path, format_bytes(size), size,
                            what, format_bytes(max_bytes)));
  std::string text(static_cast<std::size_t>(size), '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::read(file.fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
    if (n == 0) break;  // the file shrank while it was read: take what is there
    done += static_cast<std::size_t>(n);
  }
  text.resize(done);
  return text;
}

void write_file(const std::string& path, std::string_view bytes) {
  Fd file{::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)};
  if (file.fd < 0) throw Error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  // A short file must not look like a written one: it is removed, if it is a regular file
  // (`/dev/full` or a FIFO a user named must stay).
  struct stat st {};
  bool regular = ::fstat(file.fd, &st) == 0 && S_ISREG(st.st_mode);
  auto fail = [&](int error) {
    ::close(file.fd);
    file.fd = -1;
    if (regular) ::unlink(path.c_str());
    return Error(fmt::format("cannot write {}: {}", path, std::strerror(error)));
  };
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(file.fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw fail(errno);
    if (n == 0) throw fail(ENOSPC);
    done += static_cast<std::size_t>(n);
  }
  // close reports delayed write errors (NFS, some full-disk cases): checked too.
  int fd = file.fd;
  file.fd = -1;
  if (::close(fd) != 0) {
    int error = errno;
    if (regular) ::unlink(path.c_str());
    throw Error(fmt::format("cannot write {}: {}", path, std::strerror(error)));
  }
}

}  // namespace liftc
