#pragma once
// The rule-file syntax tree, as Spirit X3 parses it (grammar.cpp). Expressions (the two
// sides of a rule, its guard) reuse the .sr front end's AST and grammar, so patterns are
// written exactly as programs are; the rest (rule headers, parameters, strategies) is
// defined here. Every node is position-tagged; loader.cpp gives the tree its meaning.

#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <boost/spirit/home/x3/support/ast/position_tagged.hpp>
#include <boost/spirit/home/x3/support/ast/variant.hpp>

#include "parse/ast.hpp"
#include "parse/error_handler.hpp"

namespace liftc::rewrite::syntax {

namespace x3 = boost::spirit::x3;
namespace ast = liftc::parse::ast;

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
  ast::Expr lhs;
  ast::Expr rhs;
  std::optional<ast::Expr> guard;
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

/// `strategy name "description" = body`.
struct StrategyDecl : x3::position_tagged {
  std::string name;
  std::optional<std::string> description;
  StratExpr body;
};

/// A top-level item of a rule file.
struct Item : x3::variant<RuleDecl, StrategyDecl> {
  using base_type::base_type;
  using base_type::operator=;
};

/// A whole rule file.
struct File {
  std::vector<Item> items;
};

/// A parsed text and the positions of its nodes.
class Parsed {
 public:
  explicit Parsed(std::shared_ptr<const SourceFile> file)
      : map_(std::move(file)), handler_(map_.file()->text.begin(), map_.file()->text.end(), sink_) {}
  Parsed(const Parsed&) = delete;
  Parsed& operator=(const Parsed&) = delete;

  /// Where `node` starts; unknown when the parser did not annotate it.
  SourceLoc loc(const x3::position_tagged& node) const {
    if (node.id_first < 0) return {};
    return map_.at(handler_.position_of(node).begin());
  }
  const parse::SourceMap& map() const { return map_; }
  parse::error_handler_type& handler() { return handler_; }

 private:
  parse::SourceMap map_;
  std::ostringstream sink_;
  parse::error_handler_type handler_;
};

/// Parses a rule file into `out`; a syntax error is a liftc::Error at the offending token.
void parse_file(Parsed& parsed, File& out);

/// Parses a lone strategy expression (a --strategy argument).
void parse_strategy_text(Parsed& parsed, StratExpr& out);

}  // namespace liftc::rewrite::syntax
