// Templates: each hole's escape, fill's internal errors, and the embedded text is the file's.

#include <fstream>
#include <iterator>
#include <stdexcept>

#include <gtest/gtest.h>

#include "liftc/emit/template.hpp"

namespace liftc::emit {
namespace {

struct Escape {
  std::string text, comment, literal, name, markdown;
};

TEST(Template, EachContextEscapes) {
  const Escape rows[] = {
      // text                 cpp_comment                 cpp_string                       cmake_name          markdown_text
      {"conv-gpu #2: v=2", "conv-gpu #2: v=2", "\"conv-gpu #2: v=2\"", "conv_gpu__2__v_2", "conv-gpu #2: v=2"},
      {"a\nb", "a\\x0ab", "\"a\\nb\"", "a_b", "a b"},
      {"a\\", "a\\x5c", "\"a\\\\\"", "a_", "a\\\\"},
      {"x */ y", "x */ y", "\"x */ y\"", "x____y", "x */ y"},
      {"${X}", "${X}", "\"${X}\"", "__X_", "${X}"},
      {"a)b(", "a)b(", "\"a)b(\"", "a_b_", "a)b("},
      {"a?" "?/", "a?\\x3f/", "\"a\\?\\?/\"", "a___", "a?" "?/"},
      {"\"q\"", "\"q\"", "\"\\\"q\\\"\"", "_q_", "\"q\""},
      {"p\xc3\xb6", "p\\xc3\\xb6", "\"p\\303\\266\"", "p__", "p\xc3\xb6"},
      {"", "", "\"\"", "liftc_", ""},
      {"1st", "1st", "\"1st\"", "liftc_1st", "1st"},
      {"a|<b>`", "a|<b>`", "\"a|<b>`\"", "a__b__", "a\\|\\<b>\\`"},
      {"\r\t\x7f", "\\x0d\\x09\\x7f", "\"\\015\\011\\177\"", "___", "   "},
  };
  for (const Escape& r : rows) {
    EXPECT_EQ(cpp_comment(r.text), r.comment) << r.text;
    EXPECT_EQ(cpp_string(r.text), r.literal) << r.text;
    EXPECT_EQ(cmake_name(r.text), r.name) << r.text;
    EXPECT_EQ(markdown_text(r.text), r.markdown) << r.text;
  }
}

struct Misfill {
  std::string name;
  std::map<std::string, HoleValue> values;
  std::string message;
};

TEST(Template, FillRefusesAMisfilledHole) {
  const Misfill rows[] = {
      {"host/CMakeLists.txt", {}, "host/CMakeLists.txt: hole program has no value"},
      {"host/CMakeLists.txt", {{"program", Code{"p"}}}, "host/CMakeLists.txt: hole name:program takes text to escape, not Code"},
      {"host/CMakeLists.txt", {{"program", "p"}, {"other", "q"}}, "host/CMakeLists.txt: has no hole other"},
      {"deploy/liftc_host.hpp", {{"support", std::string("int x;")}},
       "deploy/liftc_host.hpp: hole code:support takes emit's own Code, not outside text"},
      {"no/such.cpp", {}, "no template no/such.cpp"},
  };
  for (const Misfill& r : rows) {
    try {
      fill(r.name, r.values);
      ADD_FAILURE() << r.message;
    } catch (const std::logic_error& e) {
      EXPECT_EQ(std::string(e.what()), r.message);
    }
  }
  EXPECT_NE(fill("host/CMakeLists.txt", {{"program", "a b"}}).find("\nproject(a_b LANGUAGES CXX)\n"), std::string::npos);
}

// Each template embedded is its file without the `//@default` lines, which only the build's
// compile of the template reads.
TEST(Template, EmbeddedTextIsTheTemplateFile) {
  for (const char* name : {"host_support.hpp", "host/main.cpp", "host/CMakeLists.txt", "deploy/front.hpp",
                           "deploy/front_data.hpp", "deploy/front.cpp", "deploy/demo.cpp", "deploy/points.cpp",
                           "deploy/liftc_host.hpp", "deploy/CMakeLists.txt", "deploy/clblast.cmake", "deploy/README.md",
                           "deploy/README_clblast.md"}) {
    std::ifstream in(std::string(LIFTC_SOURCE_DIR) + "/src/emit/templates/" + name, std::ios::binary);
    ASSERT_TRUE(in) << name;
    std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), want;
    for (std::size_t at = 0; at < file.size();) {
      std::size_t end = file.find('\n', at);
      end = end == std::string::npos ? file.size() : end + 1;
      if (file.compare(at, 11, "//@default ") != 0) want += file.substr(at, end - at);
      at = end;
    }
    EXPECT_EQ(template_text(name), want) << name;
  }
}

}  // namespace
}  // namespace liftc::emit
