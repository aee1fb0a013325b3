#pragma once
// Error reporting for the .sr grammar: position annotation, the nesting guard, and the
// conversion of X3 positions to liftc::SourceLoc.
//
// Rules whose ID derives from `annotated` record where their AST node starts and ends
// (x3::annotate_on_success into the x3::error_handler's position cache). Syntax errors
// are x3::expectation_failure (from `>`) or TooDeep (from depth_guard); grammar.cpp turns
// both into liftc::Error.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <boost/spirit/home/x3.hpp>
#include <boost/spirit/home/x3/support/utility/annotate_on_success.hpp>
#include <boost/spirit/home/x3/support/utility/error_reporting.hpp>

#include "liftc/support/diagnostic.hpp"

namespace liftc::parse {

namespace x3 = boost::spirit::x3;

/// The iterator the grammar runs on.
using iterator_type = std::string::const_iterator;
/// Keeps, for every annotated AST node, the range of text it was parsed from.
using error_handler_type = x3::error_handler<iterator_type>;

/// Rule ID base: annotate the rule's attribute with its source range on success.
struct annotated : x3::annotate_on_success {};

/// The deepest nesting (of expressions, unary operators and types) the parser accepts,
/// so no input can overflow the stack.
inline constexpr int kMaxNesting = 200;

/// Thrown by depth_guard when the nesting limit is exceeded, at `where`.
struct TooDeep {
  iterator_type where;
};

/// Context tag of the nesting counter (an int, passed with x3::with by reference).
struct depth_tag;

/// Parses its subject one nesting level deeper; throws TooDeep past kMaxNesting.
template <typename Subject>
struct depth_guard_parser : x3::unary_parser<Subject, depth_guard_parser<Subject>> {
  using base_type = x3::unary_parser<Subject, depth_guard_parser<Subject>>;
  static bool const is_pass_through_unary = true;
  static bool const handles_container = Subject::handles_container;

  constexpr explicit depth_guard_parser(Subject const& subject) : base_type(subject) {}

  template <typename It, typename Context, typename RContext, typename Attribute>
  bool parse(It& first, It const& last, Context const& context, RContext& rcontext, Attribute& attr) const {
    int& depth = x3::get<depth_tag>(context).get();
    if (depth >= kMaxNesting) throw TooDeep{first};
    ++depth;
    struct Restore {
      int& d;
      ~Restore() { --d; }
    } restore{depth};
    return this->subject.parse(first, last, context, rcontext, attr);
  }
};

/// `depth_guard[p]`: p, one nesting level deeper.
struct depth_guard_gen {
  template <typename Subject>
  constexpr depth_guard_parser<typename x3::extension::as_parser<Subject>::value_type> operator[](
      Subject const& subject) const {
    return depth_guard_parser<typename x3::extension::as_parser<Subject>::value_type>(x3::as_parser(subject));
  }
};
inline constexpr depth_guard_gen depth_guard{};

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

  const std::shared_ptr<const SourceFile>& file() const { return file_; }

 private:
  std::shared_ptr<const SourceFile> file_;
  std::vector<std::size_t> line_starts_;
};

}  // namespace liftc::parse
