// liftc-runner's strict reader of bundle.txt and of the files beside it (see bundle_reader.hpp).

#include "bundle_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "liftc/runtime/library_call.hpp"

namespace liftc_runner {

namespace library_call = liftc::library_call;

namespace {

// A whole number of decimal digits only (no sign, no spaces), at most `max`.
bool parse_unsigned(const std::string& s, std::uint64_t max, std::uint64_t& out) {
  if (s.empty() || s.size() > 20) return false;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    unsigned d = static_cast<unsigned>(c - '0');
    if (d > max || v > (max - d) / 10) return false;
    v = v * 10 + d;
  }
  out = v;
  return true;
}

// A 32-bit whole number with an optional '-'.
bool parse_int32(const std::string& s, std::int32_t& out) {
  bool negative = !s.empty() && s[0] == '-';
  std::uint64_t magnitude = 0;
  if (!parse_unsigned(negative ? s.substr(1) : s, negative ? 2147483648u : 2147483647u, magnitude)) return false;
  out = static_cast<std::int32_t>(negative ? -static_cast<std::int64_t>(magnitude) : static_cast<std::int64_t>(magnitude));
  return true;
}

// A finite number (strtod's syntax, the whole word) within [lo, hi].
bool parse_real(const std::string& s, double lo, double hi, double& out) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return false;
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v) || v < lo || v > hi) return false;
  out = v;
  return true;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::vector<std::string> split_words(const std::string& line) {
  std::vector<std::string> words;
  for (std::size_t i = 0; i < line.size();) {
    while (i < line.size() && is_space(line[i])) ++i;
    std::size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

// The rest of `line` after its first word and the spaces that follow it.
// The line after its first `words` words (a path or a selector: spaces and all).
std::string rest_of_line(const std::string& line, int words = 1) {
  std::size_t i = 0;
  for (int n = 0; n < words; ++n) {
    while (i < line.size() && is_space(line[i])) ++i;
    while (i < line.size() && !is_space(line[i])) ++i;
  }
  while (i < line.size() && is_space(line[i])) ++i;
  return line.substr(i);
}

// A buffer name: it names the files inputs/NAME.bin and expected/NAME.bin, so no '/'.
bool buffer_name_ok(const std::string& s) {
  if (s.empty() || s.size() > 200) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}

// An OpenCL C kernel name (an identifier).
bool kernel_name_ok(const std::string& s) {
  if (s.empty() || s.size() > 200 || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// The text of `word` for a message: at most 40 characters, control characters as '?'.
std::string shown(const std::string& word) {
  std::string out = word.substr(0, 40);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = '?';
  return word.size() > 40 ? out + "..." : out;
}

// Opens `path` for reading without blocking on a FIFO, and checks it is a regular file;
// returns the descriptor and its size.
int open_regular(const std::string& path, const std::string& name, std::uint64_t& size) {
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw Failure{"runner", "cannot read " + name + ": " + std::strerror(errno)};
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    throw Failure{"runner", name + " is not a regular file"};
  }
  size = static_cast<std::uint64_t>(st.st_size);
  return fd;
}

// Reads exactly `bytes` from `fd` into `into` (the file may not have shrunk meanwhile).
void read_all(int fd, char* into, std::size_t bytes, const std::string& name) {
  for (std::size_t done = 0; done < bytes;) {
    ssize_t n = read(fd, into + done, bytes - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int e = errno;
      close(fd);
      throw Failure{"runner", "cannot read " + name + (n < 0 ? std::string(": ") + std::strerror(e) : ": it ended early")};
    }
    done += static_cast<std::size_t>(n);
  }
}

// A library call's buffers are buffers; its sizes stay inside them and its tuning parameters
// are CLBlast's, in range: a Failure with status "runner" naming its line otherwise.
void check_library_call(const Bundle& b, const KernelDesc& k, const std::string& where) {
  const library_call::Routine& routine = *library_call::find_routine(k.library);
  if (k.args.size() != routine.buffers)
    throw Failure{"runner", where + ": library " + k.library + " takes " + std::to_string(routine.buffers) +
                                " buffer arguments, not " + std::to_string(k.args.size())};
  std::vector<std::uint64_t> elements;
  for (const auto& a : k.args) {
    if (a.kind != ArgDesc::Kind::Buffer)
      throw Failure{"runner", where + ": library " + k.library + " takes buffer arguments only"};
    if (b.buffers[a.buffer].half)
      throw Failure{"runner", where + ": library " + k.library + " takes f32 or i32 buffers, not the f16 buffer '" +
                                  b.buffers[a.buffer].name + "'"};
    elements.push_back(b.buffers[a.buffer].count);
  }
  std::vector<library_call::Setting> settings;
  for (const auto& p : k.params) settings.push_back({p.kernel, p.name, static_cast<std::int64_t>(p.value)});
  for (const std::string& why :
       {library_call::check_sizes(k.library, k.sizes, elements), library_call::check_parameters(k.library, settings)})
    if (!why.empty()) throw Failure{"runner", where + ":" + std::to_string(k.line) + ": library " + k.library + ": " + why};
}

}  // namespace

Bundle parse_bundle(const std::string& text, const std::string& where) {
  Bundle b;
  if (text.find('\0') != std::string::npos) throw Failure{"runner", where + " holds a NUL byte: not a bundle"};
  int number = 0;
  bool header = false;
  auto bad = [&](const std::string& why) { return Failure{"runner", where + ":" + std::to_string(number) + ": " + why}; };
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    at = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // written on Windows
    std::vector<std::string> w = split_words(line);
    if (w.empty() || w[0][0] == '#') continue;
    const std::string& word = w[0];
    auto arity = [&](std::size_t n, const char* usage) {
      if (w.size() != n) throw bad(std::string("expected: ") + usage);
    };
    auto count = [&](const std::string& s, std::uint64_t lo, std::uint64_t hi, const char* what) {
      std::uint64_t v = 0;
      if (!parse_unsigned(s, hi, v) || v < lo)
        throw bad(std::string(what) + " must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                  ", not '" + shown(s) + "'");
      return v;
    };
    auto real = [&](const std::string& s, const char* what) {
      double v = 0;
      if (!parse_real(s, 0, std::numeric_limits<double>::max(), v))
        throw bad(std::string(what) + " must be a finite number >= 0, not '" + shown(s) + "'");
      return v;
    };
    if (!header) {
      if (word != "liftc-bundle" || w.size() != 2 || w[1] != "1") throw bad("expected 'liftc-bundle 1' first");
      header = true;
    } else if (word == "liftc-bundle") {
      throw bad("a second 'liftc-bundle' line");
    } else if (word == "device") {
      b.device = rest_of_line(line);
    } else if (word == "options") {
      b.build_options = rest_of_line(line);
    } else if (word == "lock") {
      b.lock = rest_of_line(line);
    } else if (word == "warmup") {
      arity(2, "warmup N");
      b.warmup = static_cast<int>(count(w[1], 0, kMaxRuns, "warmup"));
    } else if (word == "runs") {
      arity(2, "runs N");
      b.runs = static_cast<int>(count(w[1], 1, kMaxRuns, "runs"));
    } else if (word == "cutoff_ms") {
      arity(2, "cutoff_ms X");
      b.cutoff_ms = real(w[1], "cutoff_ms");
    } else if (word == "live_cutoff") {
      if (w.size() < 4) throw bad("expected: live_cutoff FACTOR MEMORY_BYTES PATH");
      b.live_factor = real(w[1], "live_cutoff's factor");
      if (!(b.live_factor > 0)) throw bad("live_cutoff's factor must be > 0, not '" + shown(w[1]) + "'");
      b.live_memory = count(w[2], 0, std::numeric_limits<std::uint64_t>::max(), "live_cutoff's memory");
      b.live_path = rest_of_line(line, 3);
    } else if (word == "tolerance") {
      arity(3, "tolerance RTOL ATOL");
      b.rtol = real(w[1], "the relative tolerance");
      b.atol = real(w[2], "the absolute tolerance");
    } else if (word == "canary") {
      arity(2, "canary BYTES");
      b.canary = static_cast<std::size_t>(count(w[1], 0, kMaxCanaryBytes, "canary"));
      if (b.canary % 4) throw bad("canary must be a multiple of 4 bytes, not " + w[1]);
    } else if (word == "buffer") {
      const char* usage = "buffer NAME f32|i32|f16 COUNT input|output|scratch";
      arity(5, usage);
      BufferDesc d;
      d.name = w[1];
      d.role = w[4];
      if (!buffer_name_ok(d.name)) throw bad("a buffer name is letters, digits, '_', '-' and '.', not '" + shown(d.name) + "'");
      if ((w[2] != "f32" && w[2] != "i32" && w[2] != "f16") ||
          (d.role != "input" && d.role != "output" && d.role != "scratch"))
        throw bad(std::string("expected: ") + usage);
      d.is_float = w[2] != "i32";
      d.half = w[2] == "f16";
      d.count = static_cast<std::size_t>(count(w[3], 1, kMaxBufferElements, "a buffer's element count"));
      b.buffers.push_back(d);
    } else if (word == "allowance") {
      arity(2, "allowance NAME");
      auto it = std::find_if(b.buffers.begin(), b.buffers.end(), [&](const BufferDesc& d) { return d.name == w[1]; });
      if (it == b.buffers.end() || it->role != "output" || !it->is_float)
        throw bad("an allowance names an f32 output buffer declared before it, not '" + shown(w[1]) + "'");
      if (it->allowance) throw bad("a second allowance for '" + w[1] + "'");
      it->allowance = true;
    } else if (word == "kernel") {
      arity(9, "kernel NAME DIMS G0 G1 G2 L0 L1 L2");
      KernelDesc k;
      k.name = w[1];
      if (!kernel_name_ok(k.name)) throw bad("a kernel name is an OpenCL C identifier, not '" + shown(k.name) + "'");
      k.dims = static_cast<unsigned>(count(w[2], 1, 3, "DIMS"));
      for (int d = 0; d < 3; ++d) {
        k.global[d] = static_cast<std::size_t>(count(w[3 + d], 0, kMaxWorkSize, "a global size"));
        k.local[d] = static_cast<std::size_t>(count(w[6 + d], 0, kMaxWorkSize, "a local size"));
      }
      bool drivers_choice = k.local[0] == 0;
      for (unsigned d = 0; d < k.dims; ++d) {
        if (k.global[d] == 0) throw bad("global size " + std::to_string(d) + " of a " + std::to_string(k.dims) + "-D kernel is 0");
        if (drivers_choice && k.local[d] != 0) throw bad("L0 = 0 (the driver's choice) needs every local size 0");
        if (!drivers_choice && (k.local[d] == 0 || k.local[d] > k.global[d]))
          throw bad("local size " + std::to_string(d) + " must be from 1 to the global size " + std::to_string(k.global[d]));
      }
      b.kernels.push_back(k);
    } else if (word == "library") {
      if (w.size() < 2) throw bad("expected: library ROUTINE SIZE...");
      const library_call::Routine* routine = library_call::find_routine(w[1]);
      if (!routine) throw bad("unknown library routine '" + shown(w[1]) + "' (clblast-convgemm, clblast-gemm)");
      if (w.size() != 2 + routine->sizes)
        throw bad("library " + w[1] + " takes " + std::to_string(routine->sizes) + " sizes, not " +
                  std::to_string(w.size() - 2));
      KernelDesc k;
      k.library = k.name = w[1];
      k.line = number;
      for (std::size_t i = 2; i < w.size(); ++i) k.sizes.push_back(count(w[i], 0, kMaxWorkSize, "a library size"));
      b.kernels.push_back(k);
    } else if (word == "param") {
      arity(4, "param KERNEL NAME VALUE");
      if (b.kernels.empty() || b.kernels.back().library.empty()) throw bad("a param line belongs after a library line");
      if (!kernel_name_ok(w[1]) || !kernel_name_ok(w[2]))
        throw bad("a param's kernel and name are identifiers, not '" + shown(w[1]) + "' '" + shown(w[2]) + "'");
      b.kernels.back().params.push_back({w[1], w[2], count(w[3], 0, kMaxWorkSize, "a param value")});
    } else if (word == "arg") {
      if (b.kernels.empty()) throw bad("an arg before any kernel");
      const char* usage = "arg buffer INDEX | arg int V | arg float V | arg local BYTES";
      arity(3, usage);
      ArgDesc a;
      if (w[1] == "buffer") {
        a.kind = ArgDesc::Kind::Buffer;
        std::uint64_t index = 0;
        if (!parse_unsigned(w[2], std::numeric_limits<std::uint64_t>::max(), index) || index >= b.buffers.size())
          throw bad("no buffer " + shown(w[2]) + " (there are " + std::to_string(b.buffers.size()) + " before this line)");
        a.buffer = static_cast<std::size_t>(index);
      } else if (w[1] == "int") {
        a.kind = ArgDesc::Kind::Int;
        if (!parse_int32(w[2], a.int_value)) throw bad("arg int must be a 32-bit whole number, not '" + shown(w[2]) + "'");
      } else if (w[1] == "float") {
        a.kind = ArgDesc::Kind::Float;
        double v = 0;
        if (!parse_real(w[2], -double(FLT_MAX), double(FLT_MAX), v))
          throw bad("arg float must be a finite 32-bit float, not '" + shown(w[2]) + "'");
        a.float_value = static_cast<float>(v);
      } else if (w[1] == "local") {
        a.kind = ArgDesc::Kind::Local;
        a.local_bytes = static_cast<std::size_t>(count(w[2], 1, kMaxLocalArgBytes, "arg local"));
      } else {
        throw bad(std::string("expected: ") + usage);
      }
      b.kernels.back().args.push_back(a);
    } else {
      throw bad("unknown line '" + shown(word) + "'");
    }
  }
  if (!header) throw Failure{"runner", where + " has no 'liftc-bundle 1' line: not a bundle"};
  for (const auto& k : b.kernels)
    if (!k.library.empty()) check_library_call(b, k, where);
  return b;
}

std::string read_small_file(const std::string& path, std::size_t max_bytes, const std::string& name) {
  std::uint64_t size = 0;
  int fd = open_regular(path, name, size);
  if (size > max_bytes) {
    close(fd);
    throw Failure{"runner", name + " has " + std::to_string(size) + " bytes, more than the " + std::to_string(max_bytes) +
                                " a runner reads"};
  }
  std::string text(static_cast<std::size_t>(size), '\0');
  read_all(fd, text.data(), text.size(), name);
  close(fd);
  return text;
}

void read_exact_file(const std::string& path, char* into, std::size_t bytes, const std::string& name) {
  std::uint64_t size = 0;
  int fd = open_regular(path, name, size);
  if (size != bytes) {
    close(fd);
    throw Failure{"runner", name + " has " + std::to_string(size) + " bytes, expected " + std::to_string(bytes)};
  }
  read_all(fd, into, bytes, name);
  close(fd);
}

bool regular_file_exists(const std::string& path, const std::string& name) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return false;
    throw Failure{"runner", "cannot read " + name + ": " + std::strerror(errno)};
  }
  if (!S_ISREG(st.st_mode)) throw Failure{"runner", name + " is not a regular file"};
  return true;
}

Bundle read_bundle(const std::string& dir) {
  std::string where = dir + "/bundle.txt";
  Bundle b = parse_bundle(read_small_file(where, kMaxBundleTextBytes, where), where);
  b.dir = dir;
  return b;
}

bool device_index(const std::string& selector, std::uint64_t& index) {
  if (selector.empty() || selector.find_first_not_of("0123456789") != std::string::npos) return false;
  if (!parse_unsigned(selector, std::numeric_limits<std::uint64_t>::max(), index))
    index = std::numeric_limits<std::uint64_t>::max();  // more devices than any machine has
  return true;
}

}  // namespace liftc_runner
