#pragma once
// The readers: text -> syntax tree (Boost.Spirit X3), with every node's source range kept.
// The grammars are compiled once, in src/syntax/read.cpp. A syntax error is a
// liftc::Error "expected <what>" at the token that broke it (file:line:col).

#include <memory>

#include "liftc/syntax/ast.hpp"
#include "liftc/syntax/parsed.hpp"
#include "liftc/syntax/rule_ast.hpp"

namespace liftc::syntax {

/// Parses a whole .sr program.
std::unique_ptr<Parsed<ast::Program>> read_program(std::shared_ptr<const SourceFile> file);

/// Parses a rule file (rules and strategies; rules/README.md has the syntax).
std::unique_ptr<Parsed<ast::RuleFile>> read_rule_file(std::shared_ptr<const SourceFile> file);

/// Parses a lone strategy expression (a --strategy argument).
std::unique_ptr<Parsed<ast::StratExpr>> read_strategy(std::shared_ptr<const SourceFile> file);

}  // namespace liftc::syntax
