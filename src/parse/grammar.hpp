#pragma once
// The .sr grammar's entry point: text -> AST, with every node's source range kept.
// The rules themselves are in grammar_def.hpp, instantiated only in grammar.cpp.

#include <memory>
#include <sstream>

#include "ast.hpp"
#include "error_handler.hpp"

namespace liftc::parse {

/// A parsed file: its AST and the source range of every annotated node.
class Syntax {
 public:
  explicit Syntax(std::shared_ptr<const SourceFile> file)
      : map_(std::move(file)), handler_(map_.file()->text.begin(), map_.file()->text.end(), sink_) {}
  Syntax(const Syntax&) = delete;
  Syntax& operator=(const Syntax&) = delete;

  /// Where `node` starts; unknown when the parser did not annotate it.
  SourceLoc loc(const x3::position_tagged& node) const {
    if (node.id_first < 0) return {};
    return map_.at(handler_.position_of(node).begin());
  }

  const SourceMap& map() const { return map_; }
  ast::Program& program() { return program_; }
  const ast::Program& program() const { return program_; }
  error_handler_type& handler() { return handler_; }

 private:
  SourceMap map_;
  std::ostringstream sink_;  // x3::error_handler wants a stream; errors are thrown, not printed
  error_handler_type handler_;
  ast::Program program_;
};

/// Parses a whole file. A syntax error is a liftc::Error "expected X" at the offending token.
std::unique_ptr<Syntax> parse_syntax(std::shared_ptr<const SourceFile> file);

}  // namespace liftc::parse
