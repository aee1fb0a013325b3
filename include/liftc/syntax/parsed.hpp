#pragma once
// A parsed text: its syntax tree, and where in the text each annotated node came from.
// Produced by the readers of read.hpp; the elaborator (src/parse) and the rule loader
// (src/rewrite) ask it for the SourceLoc of a node when they report an error.

#include <algorithm>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <boost/spirit/home/x3/support/ast/position_tagged.hpp>
#include <boost/spirit/home/x3/support/utility/error_reporting.hpp>

#include "liftc/support/diagnostic.hpp"

namespace liftc::syntax {

namespace x3 = boost::spirit::x3;

/// The iterator the grammars run on.
using iterator_type = std::string::const_iterator;
/// Keeps, for every annotated AST node, the range of text it was parsed from.
using error_handler_type = x3::error_handler<iterator_type>;

/// Maps offsets into a source file to 1-based line:col SourceLocs.
class SourceMap {
 public:
  explicit SourceMap(std::shared_ptr<const SourceFile> file) : file_(std::move(file)) {
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < file_->text.size(); ++i)
      if (file_->text[i] == '\n') line_starts_.push_back(i + 1);
  }

  /// The position of byte `offset` of the text.
  SourceLoc at(std::size_t offset) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    auto line = static_cast<int>(it - line_starts_.begin());
    return SourceLoc{file_, line, static_cast<int>(offset - line_starts_[static_cast<std::size_t>(line - 1)]) + 1};
  }

  /// The position of an iterator into the text.
  SourceLoc at(iterator_type where) const { return at(static_cast<std::size_t>(where - file_->text.begin())); }

  /// The text.
  const std::shared_ptr<const SourceFile>& file() const { return file_; }

 private:
  std::shared_ptr<const SourceFile> file_;
  std::vector<std::size_t> line_starts_;
};

/// The source positions of a parsed text's nodes (whatever its tree).
class Positions {
 public:
  explicit Positions(std::shared_ptr<const SourceFile> file)
      : map_(std::move(file)), handler_(map_.file()->text.begin(), map_.file()->text.end(), sink_) {}
  Positions(const Positions&) = delete;
  Positions& operator=(const Positions&) = delete;

  /// Where `node` starts; unknown when the parser did not annotate it.
  SourceLoc loc(const x3::position_tagged& node) const {
    if (node.id_first < 0) return {};
    return map_.at(handler_.position_of(node).begin());
  }

  /// Offsets to line:col in the text.
  const SourceMap& map() const { return map_; }
  /// The annotation handler the grammar records positions in (used by the readers only).
  error_handler_type& handler() { return handler_; }

 private:
  SourceMap map_;
  std::ostringstream sink_;  // x3::error_handler wants a stream; errors are thrown, not printed
  error_handler_type handler_;
};

/// A parsed text and its tree: a program (ast::Program), a rule file (ast::RuleFile) or a
/// strategy (ast::StratExpr).
template <typename Tree>
class Parsed : public Positions {
 public:
  using Positions::Positions;

  /// The syntax tree.
  Tree& tree() { return tree_; }
  const Tree& tree() const { return tree_; }

 private:
  Tree tree_;
};

}  // namespace liftc::syntax
