#pragma once
// Error reporting for the grammars (private to src/syntax): position annotation and the
// nesting guard.
//
// Rules whose ID derives from `annotated` record where their AST node starts and ends
// (x3::annotate_on_success into the x3::error_handler's position cache, which
// syntax::Positions reads). Syntax errors are x3::expectation_failure (from `>`) or
// TooDeep (from depth_guard); read.cpp turns both into liftc::Error.

#include <boost/spirit/home/x3.hpp>
#include <boost/spirit/home/x3/support/utility/annotate_on_success.hpp>

#include "liftc/syntax/limits.hpp"
#include "liftc/syntax/parsed.hpp"

namespace liftc::syntax {

/// Rule ID base: annotate the rule's attribute with its source range on success.
struct annotated : x3::annotate_on_success {};

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

}  // namespace liftc::syntax
