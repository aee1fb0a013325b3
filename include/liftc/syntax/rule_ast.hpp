#pragma once
// The rule-file syntax tree, as Spirit X3 parses it (src/syntax/rule_grammar_def.hpp).
// Expressions (the two sides of a rule, its guard) are .sr expressions (ast.hpp), parsed
// by the same grammar, so patterns are written exactly as programs are; the rest (rule
// headers, parameters, strategies) is defined here. Every node is position-tagged;
// src/rewrite's loader gives the tree its meaning.

#include <optional>
#include <string>
#include <vector>

#include <boost/spirit/home/x3/support/ast/position_tagged.hpp>
#include <boost/spirit/home/x3/support/ast/variant.hpp>

#include "liftc/syntax/ast.hpp"

namespace liftc::syntax::ast {

/// `lo..hi`: an inclusive range of a parameter.
struct Range : x3::position_tagged {
  long long lo = 0;
  long long hi = 0;
};

/// `{a, b, ...}`: the values a parameter may take.
struct ValueSet : x3::position_tagged {
  std::vector<long long> values;
};

/// A parameter's declared domain.
struct Domain : x3::variant<Range, ValueSet> {
  using base_type::base_type;
  using base_type::operator=;
};

/// `n`, `n in 2..64`, `choose d in {0, 1, 2}`.
struct Param : x3::position_tagged {
  bool choose = false;
  std::string name;
  std::optional<Domain> domain;
};

/// `rule name(params) "description": lhs => rhs if guard`.
struct RuleDecl : x3::position_tagged {
  std::string name;
  std::optional<std::vector<Param>> params;
  std::optional<std::string> description;
  Expr lhs;
  Expr rhs;
  std::optional<Expr> guard;
};

struct StratExpr;

/// `name`, `name[4, 0]` or `name(s, ...)`: a rule (its parameters fixed), a strategy, or a
/// combinator applied to strategies.
struct StratCall : x3::position_tagged {
  std::string name;
  std::vector<long long> fixed;  // `rule[4, 0]`: the rule's parameters fixed in order
  std::vector<StratExpr> args;   // empty: a bare name
};

/// `at(0.1.2, s)`.
struct StratAt : x3::position_tagged {
  std::vector<unsigned> path;
  x3::forward_ast<StratExpr> body;
};

/// One operand of `;`: a call, an `at`, or a parenthesised strategy.
struct StratAtom : x3::variant<StratCall, x3::forward_ast<StratAt>, x3::forward_ast<StratExpr>> {
  using base_type::base_type;
  using base_type::operator=;
};

/// `a ; b ; c`.
struct StratSeq : x3::position_tagged {
  std::vector<StratAtom> items;
};

/// `<+ seq` or `| seq`.
struct StratOp : x3::position_tagged {
  std::string op;
  StratSeq operand;
};

/// `seq (<+ | '|') seq ...`, left-associative; `;` binds tighter.
struct StratExpr : x3::position_tagged {
  StratSeq first;
  std::vector<StratOp> rest;
};

/// `strategy name [tag, ...] "description" = body`.
struct StrategyDecl : x3::position_tagged {
  std::string name;
  std::optional<std::vector<std::string>> tags;
  std::optional<std::string> description;
  StratExpr body;
};

/// A top-level item of a rule file.
struct RuleItem : x3::variant<RuleDecl, StrategyDecl> {
  using base_type::base_type;
  using base_type::operator=;
};

/// A whole rule file.
struct RuleFile {
  std::vector<RuleItem> items;
};

}  // namespace liftc::syntax::ast
