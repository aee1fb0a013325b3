// Writing candidate bundles.

#include "liftc/explore/evaluation/bundle.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include <fmt/format.h>

#include "liftc/support/diagnostic.hpp"
#include "liftc/support/file.hpp"

namespace liftc::explore {

namespace fs = std::filesystem;

namespace {

// Whole or a liftc::Error (a full disk must not leave a short kernels.cl for the runner).
void write_file(const fs::path& path, const char* data, std::size_t bytes) {
  liftc::write_file(path.string(), std::string_view(data, bytes));
}

void fresh_dir(const fs::path& dir) {
  std::error_code ec;
  for (const char* sub : {"inputs", "expected", "allowance"}) fs::remove_all(dir / sub, ec);
  fs::create_directories(dir / "inputs", ec);
  fs::create_directories(dir / "expected", ec);
  if (ec || !fs::is_directory(dir)) throw Error(fmt::format("cannot create the bundle folder {}", dir.string()));
}

// `path` as a hard link to `source` when there is one (else nullptr, or the file system
// refuses): else written from `data`.
void link_or_write(const fs::path& path, const fs::path* source, const char* data, std::size_t bytes) {
  std::error_code ec;
  if (source) {
    fs::remove(path, ec);
    fs::create_hard_link(*source, path, ec);
    if (!ec) return;
  }
  write_file(path, data, bytes);
}

const char* tensor_data(const io::Tensor& t) {
  return t.dtype == io::DType::Float32 ? reinterpret_cast<const char*>(t.f32.data())
                                       : reinterpret_cast<const char*>(t.i32.data());
}

// A value written as the rest of a bundle.txt line (device, options, lock): a line break or
// a NUL in it would end the line early and start another one there.
const std::string& one_line(const std::string& value, const char* what) {
  if (value.find_first_of(std::string("\n\r\0", 3)) != std::string::npos)
    throw Error(fmt::format("the {} contains a line break or a NUL, which a bundle cannot hold", what));
  return value;
}

std::string range_text(const runtime::NDRange& r) {
  std::size_t s[3] = {1, 1, 1};
  if (r.empty()) return "0 0 0";
  for (std::size_t d = 0; d < r.sizes.size() && d < 3; ++d) s[d] = r.sizes[d];
  return fmt::format("{} {} {}", s[0], s[1], s[2]);
}

}  // namespace

SharedFiles write_shared_files(const std::string& dir_text, const interp::Tensors& inputs, const interp::Tensors& expected) {
  fs::path dir(dir_text);
  fresh_dir(dir);
  for (const auto& [name, t] : inputs) write_file(dir / "inputs" / (name + ".bin"), tensor_data(t), 4 * t.element_count());
  for (const auto& [name, t] : expected) write_file(dir / "expected" / (name + ".bin"), tensor_data(t), 4 * t.element_count());
  return SharedFiles{dir_text, &inputs};
}

void write_allowance_files(const std::string& dir_text, const interp::Tensors& allowance) {
  fs::path dir(dir_text);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(fmt::format("cannot create the folder {}: {}", dir.string(), ec.message()));
  for (const auto& [name, t] : allowance) write_file(dir / (name + ".bin"), tensor_data(t), 4 * t.element_count());
}

void write_bundle(const std::string& dir_text, const std::string& kernels, const runtime::LaunchPlan& plan,
                  const interp::Tensors& expected, const BundleSettings& s, const SharedFiles* shared) {
  fs::path dir(dir_text);
  fresh_dir(dir);
  std::string text = "liftc-bundle 1\n";
  text += fmt::format("device {}\nwarmup {}\nruns {}\ncutoff_ms {:.9g}\ntolerance {:.9g} {:.9g}\ncanary {}\n",
                      one_line(s.device, "device selector"), s.warmup, s.runs, s.cutoff_ms, s.rtol, s.atol, s.canary_bytes);
  if (!plan.build_options.empty()) text += fmt::format("options {}\n", one_line(plan.build_options, "build options"));
  if (!s.lock.empty()) text += fmt::format("lock {}\n", one_line(s.lock, "device lock path"));
  if (!s.live_path.empty())
    text += fmt::format("live_cutoff {:.9g} {} {}\n", s.live_factor, std::max<std::int64_t>(0, s.live_memory),
                        one_line(s.live_path, "live cut-off file"));
  for (const auto& b : plan.buffers) {
    bool is_float = b.elem != runtime::ElemType::Int32;
    std::size_t count = b.bytes / runtime::elem_bytes(b.elem);
    const char* role = std::holds_alternative<std::monostate>(b.host) ? (b.read_back ? "output" : "scratch") : "input";
    // f16: stored as halves on the device; its input and expected files hold f32 (liftc-runner converts)
    const char* type = b.elem == runtime::ElemType::Half ? "f16" : is_float ? "f32" : "i32";
    text += fmt::format("buffer {} {} {} {}\n", b.name, type, count, role);
    const void* host = nullptr;
    std::size_t host_bytes = 0;
    if (auto* f = std::get_if<std::vector<float>>(&b.host)) host = f->data(), host_bytes = 4 * f->size();
    if (auto* i = std::get_if<std::vector<std::int32_t>>(&b.host)) host = i->data(), host_bytes = 4 * i->size();
    if (host) {
      // Linked when the shared file holds these very values (a buffer named like an input
      // could hold something else).
      std::optional<fs::path> source;
      if (shared && shared->inputs) {
        auto it = shared->inputs->find(b.name);
        if (it != shared->inputs->end() && 4 * static_cast<std::size_t>(it->second.element_count()) == host_bytes &&
            std::memcmp(tensor_data(it->second), host, host_bytes) == 0)
          source = fs::path(shared->dir) / "inputs" / (b.name + ".bin");
      }
      link_or_write(dir / "inputs" / (b.name + ".bin"), source ? &*source : nullptr, static_cast<const char*>(host),
                    host_bytes);
    }
    if (b.read_back) {
      auto it = expected.find(b.name);
      if (it == expected.end()) throw Error(fmt::format("the interpreter gave no value for output '{}'", b.name));
      const io::Tensor& t = it->second;
      if (static_cast<std::size_t>(t.element_count()) != count)
        throw Error(fmt::format("output '{}' has {} elements; the interpreter's value has {}", b.name, count,
                                t.element_count()));
      fs::path source = shared ? fs::path(shared->dir) / "expected" / (b.name + ".bin") : fs::path();
      link_or_write(dir / "expected" / (b.name + ".bin"), shared ? &source : nullptr, tensor_data(t), 4 * count);
      const io::Tensor* allowed = nullptr;
      if (s.allowance)
        if (auto a = s.allowance->find(b.name); a != s.allowance->end()) allowed = &a->second;
      if (allowed) {
        if (!is_float || allowed->dtype != io::DType::Float32 || static_cast<std::size_t>(allowed->element_count()) != count)
          throw Error(fmt::format("output '{}' has {} elements; its rounding allowance has {}", b.name, count,
                                  allowed->element_count()));
        std::error_code ec;
        fs::create_directories(dir / "allowance", ec);
        fs::path source = fs::path(s.allowance_dir) / (b.name + ".bin");
        link_or_write(dir / "allowance" / (b.name + ".bin"), s.allowance_dir.empty() ? nullptr : &source,
                      tensor_data(*allowed), 4 * count);
        text += fmt::format("allowance {}\n", b.name);
      }
    }
  }
  for (const auto& k : plan.kernels) {
    if (k.library) {
      text += fmt::format("library {} {}\n", k.library->routine, fmt::join(k.library->sizes, " "));
      for (const auto& [kernel, name, value] : k.library->parameters)
        text += fmt::format("param {} {} {}\n", kernel, name, value);
    } else {
      text += fmt::format("kernel {} {} {} {}\n", k.kernel, std::max<std::size_t>(k.global.sizes.size(), 1),
                          range_text(k.global), range_text(k.local));
    }
    for (const auto& a : k.args) {
      if (auto* b = std::get_if<runtime::BufferArg>(&a)) text += fmt::format("arg buffer {}\n", b->buffer);
      else if (auto* i = std::get_if<runtime::IntArg>(&a)) text += fmt::format("arg int {}\n", i->value);
      else if (auto* f = std::get_if<runtime::FloatArg>(&a)) text += fmt::format("arg float {:.9g}\n", f->value);
      else text += fmt::format("arg local {}\n", std::get<runtime::LocalArg>(a).bytes);
    }
  }
  write_file(dir / "kernels.cl", kernels.data(), kernels.size());
  write_file(dir / "bundle.txt", text.data(), text.size());
}

void write_probe_bundle(const std::string& dir_text, const std::string& device) {
  fs::path dir(dir_text);
  fresh_dir(dir);
  std::string text = fmt::format("liftc-bundle 1\ndevice {}\n", one_line(device, "device selector"));
  write_file(dir / "kernels.cl", "", 0);
  write_file(dir / "bundle.txt", text.data(), text.size());
}

}  // namespace liftc::explore
