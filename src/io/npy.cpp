// .npy reading and writing (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html).

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>
#include <unistd.h>

#include "liftc/io/tensor.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/support/file.hpp"
#include "liftc/support/half.hpp"
#include "liftc/support/interrupt_cleanup.hpp"
#include "npy_header.hpp"

namespace liftc::io {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicSize = 6;

// The element types a file may hold, and how each converts to a Tensor dtype.
struct FileDType {
  DType dtype;
  std::size_t item_size;
};

FileDType file_dtype(const std::string& descr, const std::string& path) {
  if (descr == "<f4") return {DType::Float32, 4};
  if (descr == "<i4") return {DType::Int32, 4};
  if (descr == "<f8") return {DType::Float32, 8};
  if (descr == "<f2") return {DType::Float32, 2};  // numpy's float16: exact as float32
  if (descr == "<i8") return {DType::Int32, 8};
  std::string why;
  if (!descr.empty() && descr[0] == '>') why = " (big-endian data is not supported)";
  else if (descr == "|b1" || descr == "<b1") why = " (booleans are not supported; convert to int32)";
  throw Error(fmt::format("{}: unsupported dtype '{}'{}; liftc reads '<f4', '<i4', '<f2', '<f8' and '<i8'", path, descr, why));
}

std::uint32_t read_le32(const unsigned char* p) {
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
}

// Little-endian loads from the data area (the host is little-endian; memcpy avoids
// unaligned access).
template <typename T>
T load(const char* p) {
  static_assert(std::endian::native == std::endian::little, "liftc assumes a little-endian host");
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

std::string shape_string(const std::vector<std::int64_t>& shape) { return fmt::format("({})", fmt::join(shape, ", ")); }

}  // namespace

Tensor read_npy(const std::string& path) { return parse_npy(read_regular_file(path, ".npy file", kMaxNpyBytes), path); }

Tensor parse_npy(std::string_view bytes, const std::string& path) {
  if (bytes.size() < kMagicSize + 2 || bytes.compare(0, kMagicSize, kMagic, kMagicSize) != 0)
    throw Error(fmt::format("{}: not a .npy file (bad magic string)", path));
  int major = static_cast<unsigned char>(bytes[6]), minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0)
    throw Error(fmt::format("{}: unsupported .npy format version {}.{} (liftc reads 1.0, 2.0 and 3.0)", path, major, minor));

  std::size_t len_size = major == 1 ? 2 : 4;
  std::size_t prefix = kMagicSize + 2 + len_size;
  if (bytes.size() < prefix) throw Error(fmt::format("{}: truncated .npy header", path));
  const auto* raw = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t header_len = major == 1 ? std::size_t(raw[8] | raw[9] << 8) : std::size_t(read_le32(raw + 8));
  if (bytes.size() < prefix + header_len)
    throw Error(fmt::format("{}: truncated .npy header: it announces {} bytes, the file has {}", path, header_len,
                            bytes.size() - prefix));

  detail::NpyHeader h = detail::parse_npy_header(bytes.substr(prefix, header_len), path);
  if (h.fortran_order) throw Error(fmt::format("{}: Fortran-order (column-major) arrays are not supported", path));
  FileDType ft = file_dtype(h.descr, path);

  Tensor t;
  t.dtype = ft.dtype;
  t.shape = h.shape;
  std::int64_t count = 1;
  for (std::int64_t d : t.shape) {
    if (d != 0 && count > std::numeric_limits<std::int64_t>::max() / 8 / d)
      throw Error(fmt::format("{}: shape {} is too large", path, shape_string(t.shape)));
    count *= d;
  }
  std::size_t expected = static_cast<std::size_t>(count) * ft.item_size;
  std::size_t actual = bytes.size() - prefix - header_len;
  if (actual < expected)
    throw Error(fmt::format("{}: truncated data: shape {} of '{}' needs {} bytes, the file holds {}", path,
                            shape_string(t.shape), h.descr, expected, actual));
  if (actual > expected)
    throw Error(fmt::format("{}: shape/data size mismatch: shape {} of '{}' needs {} bytes, the file holds {}", path,
                            shape_string(t.shape), h.descr, expected, actual));

  const char* data = bytes.data() + prefix + header_len;
  auto n = static_cast<std::size_t>(count);
  if (t.dtype == DType::Float32) {
    t.f32.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (ft.item_size == 4) {
        t.f32[i] = load<float>(data + 4 * i);
        continue;
      }
      if (ft.item_size == 2) {
        t.f32[i] = half::to_float(load<std::uint16_t>(data + 2 * i));
        continue;
      }
      double v = load<double>(data + 8 * i);
      if (std::isfinite(v) && std::abs(v) > double(std::numeric_limits<float>::max()))
        throw Error(fmt::format("{}: element {} = {} is out of float32 range", path, i, v));
      t.f32[i] = static_cast<float>(v);
    }
  } else {
    t.i32.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (ft.item_size == 4) {
        t.i32[i] = load<std::int32_t>(data + 4 * i);
        continue;
      }
      auto v = load<std::int64_t>(data + 8 * i);
      if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max())
        throw Error(fmt::format("{}: element {} = {} is out of int32 range", path, i, v));
      t.i32[i] = static_cast<std::int32_t>(v);
    }
  }
  return t;
}

std::string format_npy(const Tensor& t) {
  auto count = static_cast<std::size_t>(t.element_count());
  bool is_float = t.dtype == DType::Float32;
  LIFTC_ASSERT((is_float ? t.f32.size() : t.i32.size()) == count, "a tensor's data matches its shape");

  detail::NpyHeader h{is_float ? "<f4" : "<i4", false, t.shape};
  std::string dict = detail::format_npy_header(h);
  // Pad with spaces so that magic + version + length + dict + '\n' is a multiple of 64;
  // format 1.0 stores the length in 2 bytes, 2.0 in 4 (only for enormous shapes).
  auto padded_length = [&](std::size_t len_size) {
    std::size_t unpadded = kMagicSize + 2 + len_size + dict.size() + 1;
    return dict.size() + 1 + (64 - unpadded % 64) % 64;
  };
  std::size_t len_size = padded_length(2) <= 0xffff ? 2 : 4;
  std::size_t header_len = padded_length(len_size);
  dict.resize(header_len - 1, ' ');
  dict += '\n';

  std::string head(kMagic, kMagicSize);
  head += char(len_size == 2 ? 1 : 2);
  head += char(0);
  for (std::size_t i = 0; i < len_size; ++i) head += char((header_len >> (8 * i)) & 0xff);
  head += dict;
  const char* data = is_float ? reinterpret_cast<const char*>(t.f32.data()) : reinterpret_cast<const char*>(t.i32.data());
  head.append(data, count * 4);
  return head;
}

void write_npy(const std::string& path, const Tensor& t) {
  std::string bytes = format_npy(t);
  // A temporary with a short name in the same folder (a long file name plus a suffix could
  // pass the name limit), removed on failure and on SIGINT/SIGTERM; then one rename.
  std::filesystem::path folder = std::filesystem::path(path).parent_path();
  // mkstemp's template: it replaces the XXXXXX with a unique suffix.
  std::string tmp = ((folder.empty() ? std::filesystem::path(".") : folder) / ".liftc-npy-XXXXXX").string();
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) throw Error(fmt::format("{}: cannot create a file in {}: {}", path, folder.string(), std::strerror(errno)));
  remove_on_interrupt(std::filesystem::absolute(tmp).string());
  auto discard = [&](const std::string& why) {
    ::close(fd);
    ::unlink(tmp.c_str());
    forget_on_interrupt(std::filesystem::absolute(tmp).string());
    throw Error(fmt::format("{}: {}", path, why));
  };
  ::fchmod(fd, 0644);  // mkstemp makes 0600; a data file is readable like one numpy writes
  for (std::size_t done = 0; done < bytes.size();) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) discard(fmt::format("write failed: {}", std::strerror(errno)));
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) {
    fd = -1;
    discard(fmt::format("write failed: {}", std::strerror(errno)));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    forget_on_interrupt(std::filesystem::absolute(tmp).string());
    throw Error(fmt::format("{}: cannot create: {}", path, std::strerror(err)));
  }
  forget_on_interrupt(std::filesystem::absolute(tmp).string());
}

}  // namespace liftc::io
