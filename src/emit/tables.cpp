// A host plan as the C++ tables of generated host code.

#include "liftc/emit/tables.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "liftc/emit/template.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::emit {

namespace {

using codegen::HostPlan;

constexpr const char* kRawEnd = ")LIFTC\"";


}  // namespace

std::string plan_tables(const HostPlan& plan, const std::string& name) {
  std::string out = fmt::format("const liftc_host::PlanInfo {} = {{\n    // buffers: name, elements, float, role (0 input, 1 output, 2 scratch), shape, half\n    {{\n", name);
  for (const auto& b : plan.buffers)
    out += fmt::format("        {{{}, {}, {}, {}, {{{}}}, {}}},  // {}, {} bytes{}\n", cpp_string(b.name), b.elements,
                       b.is_float ? "true" : "false", static_cast<int>(b.role), fmt::join(b.shape, ", "),
                       b.half ? "true" : "false", codegen::role_name(b.role), b.elements * b.element_bytes(),
                       b.half ? " (stored as halves)" : "");
  out += "    },\n    // stages: an OpenCL program each (source, build options) and its kernels in order\n    {\n";
  for (const auto& s : plan.stages) {
    if (s.source.find(kRawEnd) != std::string::npos) throw Error("kernel source contains the raw-string delimiter");
    out += fmt::format("        {{R\"LIFTC(\n{})LIFTC\",\n         {},  // build options\n         {{\n", s.source,
                       cpp_string(s.build_options));
    for (const auto& k : s.kernels) {
      std::vector<std::string> args, parameters;
      for (const auto& a : k.args) args.push_back(fmt::format("{{{}, {}}}", a.buffer, a.value));
      std::string library = "nullptr, {}, {}";  // a kernel: no library call
      if (k.library) {
        for (const auto& [kernel, name, value] : k.library->parameters)
          parameters.push_back(fmt::format("{{{}, {}, {}}}", cpp_string(kernel), cpp_string(name), value));
        library = fmt::format("{}, {{{}}}, {{{}}}", cpp_string(k.library->routine), fmt::join(k.library->sizes, ", "),
                              fmt::join(parameters, ", "));
      }
      out += fmt::format("             {{{}, {}, {{{}}}, {{{}}}, {}, {{{}}}, {}}},\n", cpp_string(k.name), k.dims,
                         fmt::join(k.global, ", "), fmt::join(k.local, ", "), k.has_local() ? "true" : "false",
                         fmt::join(args, ", "), library);
    }
    out += "         }},\n";
  }
  out += "    },\n};\n";
  return out;
}

}  // namespace liftc::emit
