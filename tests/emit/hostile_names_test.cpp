// Outside text in generated code (issue 36, items 3 and 4): a .sr file's name goes into the
// host program's main.cpp and CMakeLists.txt, a front point's label into a deployed front's
// points.cpp and README.md, the front's name into its CMakeLists.txt. Over a table of
// hostile texts, each generated file differs from a harmless text's only where the text
// went, escaped; and a project built under the worst of them builds, runs, and runs no
// injected command.

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <functional>
#include <regex>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "liftc/emit/deploy_project.hpp"
#include "liftc/emit/host_program.hpp"
#include "liftc/emit/template.hpp"
#include "liftc/io/tensor.hpp"
#include "liftc/support/file.hpp"
#include "../codegen/run_helpers.hpp"

namespace liftc::emit {
namespace {

using namespace ir;
using namespace codegen;

const char* const kHostile[] = {
    "prog\nexecute_process(COMMAND touch INJECTED)\n",
    "x\nint injected = std::system(\"touch INJECTED\");\n//",
    "a\"b",
    "ends in a backslash\\",
    "a */ b /* c",
    "${CMAKE_COMMAND}",
    "a) add_custom_target(INJECTED ALL COMMAND touch INJECTED",
    "#include <INJECTED>",
    "pr\xc3\xb6gram",
    "",
    "a?" "?/",
    "1st;2nd",
    "\r\t\x01\x7f",
};

Module vector_add() {
  Program p;
  p.inputs = {{"a", Type::array(Type::float_(), 32), {}}, {"b", Type::array(Type::float_(), 32), {}}};
  p.defs = {{"y", make_call(Prim::MapGlb, {0}, {make_lambda({"x", "z"}, make_call(Prim::Add, {}, {make_var("x"), make_var("z")})),
                                                make_call(Prim::Zip, {}, {make_var("a"), make_var("b")})}), {}}};
  return generate(testing::checked(p));
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  for (std::size_t end; (end = text.find('\n', at)) != std::string::npos; at = end + 1) out.push_back(text.substr(at, end - at));
  out.push_back(text.substr(at));
  return out;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) text.replace(at, from.size(), to);
  return text;
}

// `text` against `harmless` (the same file made with a harmless text): as many lines, and
// each line that differs is one `allowed` accepts.
void expect_only_escaped_lines(const std::string& what, const std::string& text, const std::string& harmless,
                               const std::function<bool(const std::string&)>& allowed) {
  std::vector<std::string> got = lines_of(text), want = lines_of(harmless);
  ASSERT_EQ(got.size(), want.size()) << what << ":\n" << text;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i]) {
      EXPECT_TRUE(allowed(got[i])) << what << ", line " << i + 1 << ": " << got[i];
    }
}

bool is_name(const std::string& s) { return std::regex_match(s, std::regex("[A-Za-z_][A-Za-z0-9_]*")); }

TEST(HostileNames, HostProgramEscapesTheProgramName) {
  Module m = vector_add();
  std::string harmless_main = host_program(m, "NAME"), harmless_cmake = host_cmake("NAME");
  for (const char* hostile : kHostile) {
    std::string text = hostile;
    ASSERT_TRUE(is_name(cmake_name(text))) << text;
    EXPECT_EQ(host_cmake(text), replaced(harmless_cmake, "NAME", cmake_name(text))) << text;
    expect_only_escaped_lines(text, host_program(m, text), harmless_main, [&](const std::string& line) {
      return line == "// Program: " + cpp_comment(text) && line.back() != '\\';
    });
  }
}

TEST(HostileNames, DeployedFrontEscapesLabelsAndName) {
  HostPlan plan = host_plan(vector_add());
  auto project = [&](const std::string& label, const std::string& name) {
    std::map<std::string, std::string> files;
    for (auto& [file, text] : deploy_project({{label, 0.5, 0.01, plan.global_bytes(), plan, {}},
                                              {label + "2", 0.25, 0.01, plan.global_bytes() + 4, plan, {}}},
                                             name))
      files[file] = text;
    return files;
  };
  auto harmless = project("LABEL", "NAME");
  for (const char* hostile : kHostile) {
    std::string text = hostile;
    auto files = project(text, text);
    ASSERT_EQ(files.size(), harmless.size());
    for (const auto& [file, want] : harmless) {
      const std::string& got = files.at(file);
      if (file == "CMakeLists.txt") {
        EXPECT_EQ(got, replaced(want, "NAME", cmake_name(text))) << text;
      } else if (file == "points.cpp") {
        expect_only_escaped_lines(file + " " + text, got, want, [&](const std::string& line) {
          bool comment = line == "// Point 1: " + cpp_comment(text) || line == "// Point 2: " + cpp_comment(text + "2");
          return (comment && line.back() != '\\') || line.find(", " + cpp_string(text) + ", &kPlan1},") != std::string::npos ||
                 line.find(", " + cpp_string(text + "2") + ", &kPlan2},") != std::string::npos;
        });
      } else if (file == "README.md") {
        expect_only_escaped_lines(file + " " + text, got, want, [&](const std::string& line) {
          return line.find(markdown_text(text)) != std::string::npos || line.find(cmake_name(text)) != std::string::npos;
        });
      } else {
        EXPECT_EQ(got, want) << file << " " << text;
      }
    }
  }
}

// Runs `command` in a shell; its exit status and what it printed.
std::pair<int, std::string> shell(const std::string& command, const std::filesystem::path& log) {
  int status = std::system((command + " > " + log.string() + " 2>&1").c_str());
  std::ifstream in(log);
  return {status, std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>())};
}

// No file or folder named INJECTED anywhere under `dir`.
void expect_nothing_injected(const std::filesystem::path& dir) {
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    EXPECT_NE(entry.path().filename().string(), "INJECTED") << entry.path();
}

// The worst of the table at once: a CMake command and C++ code after newlines, quotes,
// backslashes, a comment's end, a variable, a parenthesis, a '#', non-ASCII bytes.
const char* const kWorst =
    "evil\"\\ */ ${CMAKE_COMMAND} ) # \xc3\xb6 ?" "?/\n"
    "execute_process(COMMAND touch INJECTED)\n"
    "int injected = std::system(\"touch INJECTED\");\n"
    "//\\";

TEST(HostileNames, HostProgramBuildsUnderTheWorstName) {
  Module m = vector_add();
  auto dir = std::filesystem::temp_directory_path() / ("liftc_hostile_host_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  write_host_project(m, (dir / "src").string(), kWorst);
  std::filesystem::create_directories(dir / "in");
  std::filesystem::create_directories(dir / "out");
  for (auto [name, value] : {std::pair<const char*, float>{"a", 1.0f}, {"b", 2.0f}}) {
    io::Tensor t;
    t.shape = {32};
    t.f32.assign(32, value);
    io::write_npy((dir / "in" / (std::string(name) + ".npy")).string(), t);
  }
  std::string d = dir.string();
  auto [built, log] = shell(fmt::format("cd {0} && cmake -S src -B build && cmake --build build", d), dir / "log.txt");
  ASSERT_EQ(built, 0) << log;
  auto [ran, printed] = shell(fmt::format("{0}/build/{1} {0}/in {0}/out", d, cmake_name(kWorst)), dir / "run.txt");
  EXPECT_EQ(ran, 0) << printed;
  EXPECT_EQ(io::read_npy((dir / "out" / "y.npy").string()).f32, std::vector<float>(32, 3.0f));
  expect_nothing_injected(dir);
  std::filesystem::remove_all(dir);
}

TEST(HostileNames, DeployedFrontBuildsUnderTheWorstLabelAndName) {
  HostPlan plan = host_plan(vector_add());
  auto dir = std::filesystem::temp_directory_path() / ("liftc_hostile_deploy_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  for (const auto& [file, text] : deploy_project({{kWorst, 0.5, 0.01, plan.global_bytes(), plan, {}}}, kWorst)) {
    std::filesystem::create_directories(dir / "src");
    write_file((dir / "src" / file).string(), text);
  }
  std::string d = dir.string();
  auto [built, log] = shell(fmt::format("cd {0} && cmake -S src -B build && cmake --build build", d), dir / "log.txt");
  ASSERT_EQ(built, 0) << log;
  // The label reaches the library as it was (a string literal), and the demo prints it.
  auto [ran, printed] = shell(fmt::format("{0}/build/demo --list", d), dir / "run.txt");
  EXPECT_EQ(ran, 0) << printed;
  EXPECT_NE(printed.find(fmt::format("point 1: 0.5000 ms (+- 0.0100), {} bytes, {}\n", plan.global_bytes(), kWorst)),
            std::string::npos)
      << printed;
  expect_nothing_injected(dir);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace liftc::emit
