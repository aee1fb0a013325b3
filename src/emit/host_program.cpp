// The standalone host program: templates/host/main.cpp filled with the shared host text
// (templates/host_support.hpp) and the tables of one host plan; its CMakeLists.txt.

#include "liftc/emit/host_program.hpp"

#include <filesystem>

#include "liftc/codegen/host_plan.hpp"
#include "liftc/emit/tables.hpp"
#include "liftc/emit/template.hpp"
#include "liftc/support/file.hpp"

namespace liftc::emit {

std::string host_program(const codegen::Module& m, const std::string& program_name) {
  return fill("host/main.cpp", {{"support", Code{host_support_text()}},
                                {"program", program_name},
                                {"tables", Code{plan_tables(codegen::host_plan(m), "kPlan")}}});
}

std::string host_cmake(const std::string& program_name) {
  return fill("host/CMakeLists.txt", {{"program", program_name}});
}

void write_host_project(const codegen::Module& m, const std::string& dir, const std::string& program_name) {
  std::filesystem::create_directories(dir);
  auto put = [&](const std::string& file, const std::string& text) {
    write_file((std::filesystem::path(dir) / file).string(), text);
  };
  put("main.cpp", host_program(m, program_name));
  put("CMakeLists.txt", host_cmake(program_name));
  put("kernels.cl", m.source());
  put("plan.json", codegen::plan_json(codegen::host_plan(m)));
}

}  // namespace liftc::emit
