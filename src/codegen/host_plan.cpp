// Host plans: a Module evaluated into plain numbers, and its JSON form (plan.json, read back
// checked). Its C++ tables for generated host code are emit's (emit/tables.hpp).

#include "liftc/codegen/host_plan.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "liftc/support/diagnostic.hpp"

namespace liftc::codegen {

namespace {

using nlohmann::json;

constexpr std::int64_t kMaxElements = (std::int64_t(1) << 31) - 1;  // kernels index with int


bool is_identifier(const std::string& s) {
  if (s.empty() || s.size() > 200 || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// A step's `library` object of plan.json: a routine of kHostLibraryRoutines with its number
// of sizes and of (buffer) arguments, and parameters whose names are C identifiers.
template <class Bad>
runtime::LibraryCall read_library_call(const nlohmann::json& j, std::size_t buffers, const Bad& bad) {
  runtime::LibraryCall call;
  call.routine = j.at("routine").get<std::string>();
  const HostLibraryRoutine* routine = nullptr;
  for (const auto& r : kHostLibraryRoutines)
    if (call.routine == r.name) routine = &r;
  if (!routine) throw bad(fmt::format("unknown library routine '{}' (clblast-convgemm, clblast-gemm)", call.routine));
  call.sizes = j.at("sizes").get<std::vector<std::int64_t>>();
  if (call.sizes.size() != routine->sizes || buffers != routine->buffers)
    throw bad(fmt::format("library call {}: {} sizes and {} buffers, not {} and {}", call.routine, call.sizes.size(),
                          buffers, routine->sizes, routine->buffers));
  for (std::int64_t v : call.sizes)
    if (v < 0 || v > kMaxElements) throw bad(fmt::format("library call {}: a size of {}", call.routine, v));
  for (const auto& p : j.at("parameters")) {
    std::string kernel = p.at("kernel").get<std::string>(), name = p.at("name").get<std::string>();
    std::int64_t value = p.at("value").get<std::int64_t>();
    if (!is_identifier(kernel) || !is_identifier(name) || value < 0 || value > kMaxElements)
      throw bad(fmt::format("library call {}: the parameter {}.{} = {} is not a name and a whole number", call.routine,
                            kernel, name, value));
    call.parameters.emplace_back(kernel, name, value);
  }
  return call;
}

// The raw-string delimiter of generated sources; a text holding it cannot be embedded.
constexpr const char* kRawEnd = ")LIFTC\"";

}  // namespace

std::int64_t HostPlan::global_bytes() const {
  std::int64_t total = 0;
  for (const auto& b : buffers) total += b.elements * b.element_bytes();
  return total;
}

std::int64_t HostPlan::peak_bytes() const {
  // Each buffer's first and last step, as the host's buffer_spans (host_support.hpp) finds
  // them: a buffer no step names is held at the first step only.
  std::vector<std::size_t> first(buffers.size(), 0), last(buffers.size(), 0);
  std::vector<bool> named(buffers.size(), false);
  std::size_t steps = 0;
  for (const auto& s : stages)
    for (const auto& k : s.kernels) {
      for (const auto& a : k.args) {
        if (a.buffer < 0) continue;
        auto b = static_cast<std::size_t>(a.buffer);
        if (!named[b]) first[b] = steps, named[b] = true;
        last[b] = steps;
      }
      ++steps;
    }
  std::int64_t most = 0;
  for (std::size_t step = 0; step < steps; ++step) {
    std::int64_t held = 0;
    for (std::size_t b = 0; b < buffers.size(); ++b)
      if (first[b] <= step && step <= last[b]) held += buffers[b].elements * buffers[b].element_bytes();
    most = std::max(most, held);
  }
  return most;
}

std::vector<const HostBuffer*> HostPlan::buffers_of(HostRole role) const {
  std::vector<const HostBuffer*> out;
  for (const auto& b : buffers)
    if (b.role == role) out.push_back(&b);
  return out;
}

bool HostPlan::calls_library() const {
  for (const auto& s : stages)
    for (const auto& k : s.kernels)
      if (k.library) return true;
  return false;
}

HostPlan host_plan(const runtime::LaunchPlan& launch, const std::string& source,
                   const std::map<std::string, std::vector<std::int64_t>>& shapes) {
  HostPlan plan;
  for (const auto& b : launch.buffers) {
    HostBuffer hb;
    hb.name = b.name;
    hb.is_float = b.elem != runtime::ElemType::Int32;
    hb.half = b.elem == runtime::ElemType::Half;
    hb.role = !std::holds_alternative<std::monostate>(b.host) ? HostRole::Input
              : b.read_back                                     ? HostRole::Output
                                                                : HostRole::Scratch;
    hb.elements = static_cast<std::int64_t>(b.bytes / runtime::elem_bytes(b.elem));
    auto shape = shapes.find(b.name);
    if (shape != shapes.end()) hb.shape = shape->second;
    else if (hb.role != HostRole::Scratch) throw Error(fmt::format("the plan's {} {} has no shape", role_name(hb.role), b.name));
    plan.buffers.push_back(std::move(hb));
  }
  HostStage stage;
  stage.build_options = launch.build_options;
  for (const auto& k : launch.kernels) {
    HostKernel hk;
    hk.name = k.kernel;
    hk.library = k.library;
    if (!k.library) {
      stage.source = source;  // a stage of library calls only has no program to build
      hk.dims = static_cast<int>(k.global.sizes.size());
      for (int d = 0; d < hk.dims; ++d) {
        hk.global[static_cast<std::size_t>(d)] = static_cast<std::int64_t>(k.global.sizes[static_cast<std::size_t>(d)]);
        if (!k.local.empty()) hk.local[static_cast<std::size_t>(d)] = static_cast<std::int64_t>(k.local.sizes[static_cast<std::size_t>(d)]);
      }
      for (int d = hk.dims; d < 3 && !k.local.empty(); ++d) hk.local[static_cast<std::size_t>(d)] = 1;
    }
    for (const auto& a : k.args) {
      if (const auto* b = std::get_if<runtime::BufferArg>(&a)) hk.args.push_back({static_cast<int>(b->buffer), 0});
      else if (const auto* i = std::get_if<runtime::IntArg>(&a)) hk.args.push_back({-1, i->value});
      else throw Error(fmt::format("step {}: a host plan's arguments are buffers and ints only", k.kernel));
    }
    stage.kernels.push_back(std::move(hk));
  }
  plan.stages.push_back(std::move(stage));
  return plan;
}

HostPlan host_plan(const Module& m) {
  HostPlan plan;
  std::map<std::string, int> index;
  for (const auto& b : m.memory.buffers) {
    if (b.space != AddressSpace::Global) continue;
    HostBuffer hb;
    hb.name = b.name;
    hb.is_float = b.scalar == ir::ScalarKind::Float;
    hb.half = b.storage == Storage::Half;
    hb.role = b.role == BufferRole::Input ? HostRole::Input : b.role == BufferRole::Output ? HostRole::Output : HostRole::Scratch;
    hb.elements = evaluate(b.elements, m);
    hb.shape = b.shape;
    index[b.name] = static_cast<int>(plan.buffers.size());
    plan.buffers.push_back(std::move(hb));
  }
  HostStage stage;
  stage.source = m.source();
  stage.build_options = m.build_options;
  for (const auto& k : m.kernels) {
    HostKernel hk;
    hk.name = k.name;
    hk.dims = k.launch.dims;
    // Dimensions past `dims` are 1 (0 for a local size the runtime chooses), however the
    // launch left them: a plan read back from plan.json, which keeps only `dims`, is the same.
    for (int d = 0; d < 3; ++d) {
      hk.global[d] = d < hk.dims ? evaluate(k.launch.global[d], m) : 1;
      hk.local[d] = !k.launch.has_local() ? 0 : d < hk.dims ? evaluate(k.launch.local[d], m) : 1;
    }
    for (const auto& a : k.args) {
      if (a.kind == KernelArg::Kind::Buffer) {
        hk.args.push_back({index.at(a.name), 0});
      } else {
        std::int64_t v = evaluate(arith::var(a.name), m);
        if (v < INT32_MIN || v > INT32_MAX)
          throw Error(fmt::format("kernel {}: the size {} = {} does not fit an int argument", k.name, a.name, v));
        hk.args.push_back({-1, static_cast<std::int32_t>(v)});
      }
    }
    stage.kernels.push_back(std::move(hk));
  }
  plan.stages.push_back(std::move(stage));
  return plan;
}

HostPlan chain_plans(const std::vector<HostPlan>& layers) {
  HostPlan chained;
  std::map<std::string, int> index;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const HostPlan& layer = layers[l];
    std::vector<int> remap;  // the layer's buffer index -> the chained plan's
    for (HostBuffer b : layer.buffers) {
      // A layer's scratch is its own: renamed when an earlier layer has a buffer of its name.
      if (b.role == HostRole::Scratch && index.count(b.name)) {
        std::string base = fmt::format("{}_layer{}", b.name, l + 1);
        b.name = base;
        for (int k = 2; index.count(b.name); ++k) b.name = fmt::format("{}_{}", base, k);
      }
      auto it = index.find(b.name);
      if (it == index.end()) {
        index[b.name] = static_cast<int>(chained.buffers.size());
        remap.push_back(static_cast<int>(chained.buffers.size()));
        chained.buffers.push_back(b);
        continue;
      }
      HostBuffer& same = chained.buffers[static_cast<std::size_t>(it->second)];
      if (same.is_float != b.is_float || same.half != b.half || same.elements != b.elements)
        throw Error(fmt::format("layer {}'s buffer {} ({} {}) is not the earlier layers' ({} {})", l + 1, b.name,
                                b.is_float ? "float" : "int", b.elements, same.is_float ? "float" : "int", same.elements));
      // Read after an earlier layer wrote it: no input; written again: an output of this layer.
      if (b.role != HostRole::Input) same.role = b.role;
      if (same.shape.empty()) same.shape = b.shape;
      remap.push_back(it->second);
    }
    for (HostStage stage : layer.stages) {
      for (HostKernel& k : stage.kernels)
        for (HostArg& a : k.args)
          if (a.buffer >= 0) a.buffer = remap[static_cast<std::size_t>(a.buffer)];
      chained.stages.push_back(std::move(stage));
    }
    // Outputs of earlier layers that the last layer does not give become scratch.
    if (l + 1 == layers.size()) {
      std::set<std::string> last;
      for (const HostBuffer* b : layer.buffers_of(HostRole::Output)) last.insert(b->name);
      for (HostBuffer& b : chained.buffers)
        if (b.role == HostRole::Output && !last.count(b.name)) b.role = HostRole::Scratch;
    }
  }
  return chained;
}

std::string plan_json(const HostPlan& plan) {
  json buffers = json::array();
  for (const auto& b : plan.buffers)
    buffers.push_back({{"name", b.name},
                       {"type", b.half ? "half" : b.is_float ? "float" : "int"},
                       {"role", role_name(b.role)},
                       {"elements", b.elements},
                       {"shape", b.shape}});
  json stages = json::array();
  for (const auto& s : plan.stages) {
    json kernels = json::array();
    for (const auto& k : s.kernels) {
      json args = json::array();
      for (const auto& a : k.args)
        args.push_back(a.buffer >= 0 ? json{{"buffer", plan.buffers[static_cast<std::size_t>(a.buffer)].name}}
                                     : json{{"int", a.value}});
      if (k.library) {
        json parameters = json::array();
        for (const auto& [kernel, name, value] : k.library->parameters)
          parameters.push_back({{"kernel", kernel}, {"name", name}, {"value", value}});
        kernels.push_back({{"name", k.name},
                           {"library", {{"routine", k.library->routine}, {"sizes", k.library->sizes}, {"parameters", parameters}}},
                           {"args", args}});
        continue;
      }
      std::vector<std::int64_t> global(k.global.begin(), k.global.begin() + k.dims);
      std::vector<std::int64_t> local;
      if (k.has_local()) local.assign(k.local.begin(), k.local.begin() + k.dims);
      kernels.push_back({{"name", k.name}, {"global", global}, {"local", local}, {"args", args}});
    }
    stages.push_back({{"source", s.source}, {"build_options", s.build_options}, {"kernels", kernels}});
  }
  json out = {{"format", "liftc-host-plan"}, {"version", 1}, {"buffers", buffers}, {"stages", stages}};
  return out.dump(2) + "\n";
}

HostPlan read_plan_json(const std::string& text, const std::string& where) {
  auto bad = [&](const std::string& what) { return Error(fmt::format("{}: {}", where, what)); };
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw bad("not a JSON object (a host plan, plan.json, is one)");
  if (j.value("format", "") != "liftc-host-plan") throw bad("not a host plan (its \"format\" is not \"liftc-host-plan\")");
  if (j.value("version", 0) != 1) throw bad("a host plan of an unknown version (this liftc reads version 1)");
  HostPlan plan;
  try {
    std::map<std::string, int> index;
    for (const auto& jb : j.at("buffers")) {
      HostBuffer b;
      b.name = jb.at("name").get<std::string>();
      if (!is_identifier(b.name)) throw bad(fmt::format("buffer name '{}' is not a C identifier", b.name));
      if (index.count(b.name)) throw bad(fmt::format("two buffers are called {}", b.name));
      std::string type = jb.at("type").get<std::string>(), role = jb.at("role").get<std::string>();
      if (type != "float" && type != "int" && type != "half")
        throw bad(fmt::format("buffer {}: type '{}' is not float, int or half", b.name, type));
      b.is_float = type != "int";
      b.half = type == "half";
      if (role == "input") b.role = HostRole::Input;
      else if (role == "output") b.role = HostRole::Output;
      else if (role == "scratch") b.role = HostRole::Scratch;
      else throw bad(fmt::format("buffer {}: role '{}' is not input, output or scratch", b.name, role));
      b.elements = jb.at("elements").get<std::int64_t>();
      if (b.elements < 1 || b.elements > kMaxElements)
        throw bad(fmt::format("buffer {}: {} elements, not 1 to 2^31 - 1", b.name, b.elements));
      b.shape = jb.at("shape").get<std::vector<std::int64_t>>();
      if (b.role != HostRole::Scratch) {
        std::int64_t product = 1;
        for (std::int64_t n : b.shape) {
          if (n < 1 || n > kMaxElements) throw bad(fmt::format("buffer {}: a shape of {}", b.name, fmt::join(b.shape, "x")));
          product *= n;
          if (product > kMaxElements) break;
        }
        if (b.shape.empty() || product != b.elements)
          throw bad(fmt::format("buffer {}: shape ({}) does not hold its {} elements", b.name, fmt::join(b.shape, ", "),
                                b.elements));
      }
      index[b.name] = static_cast<int>(plan.buffers.size());
      plan.buffers.push_back(std::move(b));
    }
    for (const auto& js : j.at("stages")) {
      HostStage s;
      s.source = js.at("source").get<std::string>();
      s.build_options = js.at("build_options").get<std::string>();
      if (s.source.find(kRawEnd) != std::string::npos) throw bad("a kernel source holds the delimiter )LIFTC\"");
      for (char c : s.build_options)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) throw bad("the build options hold a control character");
      for (const auto& jk : js.at("kernels")) {
        HostKernel k;
        k.name = jk.at("name").get<std::string>();
        if (jk.contains("library")) {
          k.library = read_library_call(jk.at("library"), jk.at("args").size(), bad);
          k.name = k.library->routine;
          for (const auto& ja : jk.at("args")) {
            auto it = index.find(ja.at("buffer").get<std::string>());
            if (it == index.end()) throw bad(fmt::format("library call {}: an argument names no buffer of the plan", k.name));
            k.args.push_back({it->second, 0});
          }
          s.kernels.push_back(std::move(k));
          continue;
        }
        if (!is_identifier(k.name)) throw bad(fmt::format("kernel name '{}' is not a C identifier", k.name));
        auto global = jk.at("global").get<std::vector<std::int64_t>>();
        auto local = jk.at("local").get<std::vector<std::int64_t>>();
        if (global.empty() || global.size() > 3) throw bad(fmt::format("kernel {}: a global size of {} dimensions", k.name, global.size()));
        if (!local.empty() && local.size() != global.size())
          throw bad(fmt::format("kernel {}: the local size has {} dimensions, the global {}", k.name, local.size(), global.size()));
        k.dims = static_cast<int>(global.size());
        for (int d = 0; d < k.dims; ++d) {
          std::int64_t g = global[static_cast<std::size_t>(d)];
          if (g < 1 || g > kMaxElements) throw bad(fmt::format("kernel {}: global size {} in dimension {}", k.name, g, d));
          k.global[d] = g;
          if (local.empty()) continue;
          std::int64_t l = local[static_cast<std::size_t>(d)];
          if (l < 1 || g % l != 0)
            throw bad(fmt::format("kernel {}: local size {} does not divide global size {} in dimension {}", k.name, l, g, d));
          k.local[d] = l;
        }
        for (int d = k.dims; d < 3 && !local.empty(); ++d) k.local[d] = 1;
        for (const auto& ja : jk.at("args")) {
          if (ja.contains("buffer")) {
            std::string name = ja.at("buffer").get<std::string>();
            auto it = index.find(name);
            if (it == index.end()) throw bad(fmt::format("kernel {}: an argument names no buffer of the plan ({})", k.name, name));
            k.args.push_back({it->second, 0});
          } else {
            // Checked before it is narrowed: 4294967297 is not an int (it would become 1).
            const json& v = ja.at("int");
            bool fits = v.is_number_unsigned() ? v.get<std::uint64_t>() <= INT32_MAX
                        : v.is_number_integer() ? v.get<std::int64_t>() >= INT32_MIN && v.get<std::int64_t>() <= INT32_MAX
                                                : false;
            if (!fits) throw bad(fmt::format("kernel {}: the int argument {} is not a whole number of 32 bits", k.name, v.dump()));
            k.args.push_back({-1, static_cast<std::int32_t>(v.get<std::int64_t>())});
          }
        }
        s.kernels.push_back(std::move(k));
      }
      if (s.kernels.empty()) throw bad("a stage without kernels");
      plan.stages.push_back(std::move(s));
    }
  } catch (const json::exception& e) {
    throw bad(fmt::format("malformed ({})", e.what()));
  }
  if (plan.stages.empty()) throw bad("no stages");
  if (plan.buffers_of(HostRole::Output).empty()) throw bad("no output buffer");
  return plan;
}

const char* role_name(HostRole r) {
  switch (r) {
    case HostRole::Input: return "input";
    case HostRole::Output: return "output";
    case HostRole::Scratch: return "scratch";
  }
  return "?";
}

}  // namespace liftc::codegen
