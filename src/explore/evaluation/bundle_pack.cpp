// A bundle folder packed for the work queue and unpacked on a worker (bundle_pack.hpp).
// The pack of a bundle's own files: "liftc-pack 1\n", then for each file "PATH SIZE\n" and
// its SIZE bytes.

#include "liftc/explore/evaluation/bundle_pack.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "liftc/explore/store/store.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/support/file.hpp"

namespace liftc::explore {

namespace fs = std::filesystem;

namespace {

constexpr const char* kPackHeader = "liftc-pack 1\n";
constexpr std::uint64_t kMaxFileBytes = std::uint64_t(1) << 34;  // a bundle's tensor: 16 GiB at most

// The folders whose files a run's bundles share (bundle.hpp's SharedFiles and allowance).
bool shared_folder(const std::string& top) { return top == "inputs" || top == "expected" || top == "allowance"; }

// A path a pack may hold: one or two names of letters, digits, '_', '-' and '.', none of
// them "." or "..".
bool plain_path(const std::string& path) {
  std::size_t parts = 0;
  for (std::size_t at = 0; at <= path.size();) {
    std::size_t end = std::min(path.find('/', at), path.size());
    std::string part = path.substr(at, end - at);
    if (part.empty() || part == "." || part == ".." || ++parts > 2) return false;
    for (char c : part)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
    at = end + 1;
  }
  return parts > 0;
}

// A content hash as the queue names a shared file: 32 hex digits and the size.
bool plain_hash(const std::string& hash) {
  if (hash.empty()) return false;
  for (char c : hash)
    if (!(std::isxdigit(static_cast<unsigned char>(c)) || c == '-')) return false;
  return true;
}

}  // namespace

PackedBundle pack_bundle(const std::string& dir) {
  PackedBundle out;
  out.own = kPackHeader;
  std::vector<std::string> paths;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) paths.push_back(fs::relative(entry.path(), dir).generic_string());
  std::sort(paths.begin(), paths.end());
  for (const std::string& path : paths) {
    if (!plain_path(path)) throw Error(fmt::format("the bundle {} holds a file of an unexpected name: {}", dir, path));
    std::string bytes = read_regular_file((fs::path(dir) / path).string(), "bundle file", kMaxFileBytes);
    std::string top = path.substr(0, path.find('/'));
    if (path.find('/') != std::string::npos && shared_folder(top)) {
      std::string hash = fmt::format("{}-{}", hash_text(bytes), bytes.size());
      out.shared.emplace_back(path, hash);
      out.contents.emplace_back(hash, std::move(bytes));
      continue;
    }
    out.own += fmt::format("{} {}\n", path, bytes.size());
    out.own += bytes;
  }
  return out;
}

void unpack_bundle(const std::string& dir, const PackedBundle& bundle, const std::string& cache_dir,
                   const std::function<std::string(const std::string& hash)>& fetch) {
  auto damaged = [&](const std::string& why) { return Error(fmt::format("a queued bundle is damaged: {}", why)); };
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  if (ec) throw Error(fmt::format("cannot create the bundle folder {}: {}", dir, ec.message()));
  auto place = [&](const std::string& path) {
    if (!plain_path(path)) throw damaged(fmt::format("a file name '{}' that is not plain", path));
    fs::path to = fs::path(dir) / path;
    fs::create_directories(to.parent_path(), ec);
    return to;
  };
  const std::string& own = bundle.own;
  if (own.compare(0, std::string(kPackHeader).size(), kPackHeader) != 0) throw damaged("it is no liftc pack");
  for (std::size_t at = std::string(kPackHeader).size(); at < own.size();) {
    std::size_t end = own.find('\n', at);
    std::size_t space = end == std::string::npos ? end : own.rfind(' ', end);
    if (end == std::string::npos || space == std::string::npos || space < at) throw damaged("a file line is cut short");
    std::string path = own.substr(at, space - at);
    std::uint64_t size = 0;
    auto [p, e] = std::from_chars(own.data() + space + 1, own.data() + end, size);
    if (e != std::errc() || p != own.data() + end || size > own.size() - end - 1)
      throw damaged(fmt::format("the size of '{}'", path));
    write_file(place(path).string(), std::string_view(own.data() + end + 1, size));
    at = end + 1 + size;
  }
  fs::create_directories(cache_dir, ec);
  for (const auto& [path, hash] : bundle.shared) {
    if (!plain_hash(hash)) throw damaged(fmt::format("the content hash '{}'", hash));
    fs::path cached = fs::path(cache_dir) / hash;
    if (!fs::exists(cached)) {
      fs::path part = cached;
      part += ".part";
      write_file(part.string(), fetch(hash));
      fs::rename(part, cached);
    }
    fs::path to = place(path);
    fs::create_hard_link(cached, to, ec);
    if (ec) fs::copy_file(cached, to, fs::copy_options::overwrite_existing);
  }
}

void retarget_bundle(const std::string& dir, const std::string& device) {
  if (device.find_first_of(std::string("\n\r\0", 3)) != std::string::npos)
    throw Error("the device selector contains a line break or a NUL, which a bundle cannot hold");
  std::string path = (fs::path(dir) / "bundle.txt").string();
  std::istringstream in(read_regular_file(path, "bundle", std::uint64_t(1) << 26));
  std::string out, line;
  while (std::getline(in, line)) {
    if (line.rfind("lock ", 0) == 0 || line == "lock") continue;
    out += (line.rfind("device ", 0) == 0 || line == "device" ? "device " + device : line) + "\n";
  }
  write_file(path, out);
}

}  // namespace liftc::explore
