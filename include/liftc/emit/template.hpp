#pragma once
// Templates and their holes: the one place text reaches generated code.
//
// A template is a real file of src/emit/templates (C++, CMake, Markdown), embedded into
// liftc at build time; the build compiles each C++ template with its holes' defaults, so it
// is read and checked as C++. A hole is written @{CONTEXT:NAME}, and CONTEXT says what its
// value becomes in the output:
//
//   code      text emit made itself (a table, another filled template): given a Code, as is
//   comment   the text of a C++ `//` comment: one line, escaped (cpp_comment)
//   string    a C++ string literal (cpp_string)
//   name      a CMake target and C++ name (cmake_name: anything else becomes '_')
//   markdown  one line of Markdown text (markdown_text)
//
// Text from outside (a file name, a label read from pareto.json) is a std::string, and fill
// passes it through its hole's escape: no caller writes outside text into a template.

#include <map>
#include <string>
#include <variant>

namespace liftc::emit {

/// Text that emit made itself (generated tables, a filled template): a `code` hole's value.
struct Code {
  std::string text;
};

/// A hole's value: text from outside (escaped by the hole's context), or emit's own Code.
using HoleValue = std::variant<std::string, Code>;

/// The embedded text of template `name` ("host/main.cpp", "deploy/front.cpp", ...), holes
/// unfilled. An internal error (std::logic_error) for a name that is not a template.
const std::string& template_text(const std::string& name);

/// templates/host_support.hpp with its hole filled: the text every host program and
/// deployed front carries (with liftc/support/half.hpp's conversion in it).
std::string host_support_text();

/// Template `name` with every hole filled from `values`, each escaped for its context. An
/// internal error (std::logic_error) when a hole has no value or one of the wrong kind (a
/// std::string for a code hole, a Code for another), or a value fills no hole.
std::string fill(const std::string& name, const std::map<std::string, HoleValue>& values);

/// `text` as a C++ string literal ("..." with escapes: quotes, backslashes, control and
/// non-ASCII bytes in octal, every '?' so no trigraph forms).
std::string cpp_string(const std::string& text);

/// `text` as the text of a C++ `//` comment on one line: backslashes, control and non-ASCII
/// bytes as \xNN, and a '?' after a '?' as \x3f (no line splice, no trigraph).
std::string cpp_comment(const std::string& text);

/// `text` as a CMake target and C++ name: every byte but a letter, digit or underscore
/// becomes '_', and "liftc_" goes first when nothing is left or it starts with a digit.
std::string cmake_name(const std::string& text);

/// `text` as one line of Markdown (a table cell): '|', '\\', '<', '`' escaped with a
/// backslash, control bytes as a space.
std::string markdown_text(const std::string& text);

}  // namespace liftc::emit
