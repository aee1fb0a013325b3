#pragma once
// Helpers shared by the front-end tests.

#include <memory>
#include <string>

#include "liftc/ir/printer.hpp"
#include "liftc/parse/parse.hpp"

namespace liftc::parse::test {

/// Parses `text` as the file "t.sr".
inline ir::Program parse_text(const std::string& text, bool with_prelude = true) {
  ParseOptions options;
  options.with_prelude = with_prelude;
  return parse_program(std::make_shared<SourceFile>(SourceFile{"t.sr", text}), options);
}

/// The declarations every expression case is parsed in.
inline constexpr const char* kContext =
    "size N = 16, M = 8, K\n"
    "input xs : [float]N\n"
    "input ys : [float]N\n"
    "input is : [int]N\n"
    "input grid : [[float]M]N\n"
    "input t : (float, int)\n"
    "input a : float\n"
    "input b : float\n"
    "input i : int\n"
    "def relu(x) = max(x, 0.0)\n"
    "def twice(f, x) = f(f(x))\n"
    "def tile(n, x) = split(n, x)\n";
/// How many lines kContext has (error positions in expression cases are below it).
inline constexpr int kContextLines = 12;

/// Parses `def out = <expr>` in kContext and prints the body.
inline std::string print_expr(const std::string& expr) {
  ir::Program p = parse_text(std::string(kContext) + "def out = " + expr + "\n");
  return ir::to_string(p.defs.back().body);
}

}  // namespace liftc::parse::test
