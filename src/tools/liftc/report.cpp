#include "report.hpp"

#include <fmt/format.h>

namespace liftc::tool {

namespace {

// "(224, 224, 1)" for the first `dims` entries.
std::string ndrange(const std::array<arith::Expr, 3>& sizes, int dims, const codegen::Module& m) {
  std::vector<std::string> parts;
  for (int d = 0; d < dims; ++d) parts.push_back(std::to_string(codegen::evaluate(sizes[static_cast<std::size_t>(d)], m)));
  return "(" + fmt::format("{}", fmt::join(parts, ", ")) + ")";
}

std::string kib(std::int64_t bytes) { return fmt::format("{:.1f} KiB", double(bytes) / 1024.0); }

}  // namespace

void print_module_summary(const codegen::Module& m) {
  for (const auto& k : m.kernels) {
    std::string local = k.launch.has_local() ? ndrange(k.launch.local, k.launch.dims, m) : "driver's choice";
    fmt::print("kernel {} (def {}): global {}, local {}\n", k.name, k.definition,
               ndrange(k.launch.global, k.launch.dims, m), local);
  }
  // The exact global bytes too: scripts (bench_vgg.sh) compare footprints with them.
  std::int64_t global = codegen::evaluate(m.memory.global_bytes(), m);
  fmt::print("memory: global {} ({} bytes), local {} per work-group, private {} per work-item\n", kib(global), global,
             kib(codegen::evaluate(m.memory.local_bytes(), m)), kib(codegen::evaluate(m.memory.private_bytes(), m)));
  std::vector<std::string> half;
  for (const auto& b : m.memory.buffers)
    if (b.storage == codegen::Storage::Half) half.push_back(b.name);
  if (!half.empty())
    fmt::print("storage: half (vload_half/vstore_half, arithmetic in float): {}\n", fmt::join(half, ", "));
  if (!m.build_options.empty()) fmt::print("build options: {}\n", m.build_options);
}

}  // namespace liftc::tool
