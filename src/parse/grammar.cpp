// The only translation unit that instantiates the .sr grammar.

#include "grammar.hpp"

#include <fmt/format.h>

#include "grammar_def.hpp"

namespace liftc::parse {

namespace {

// X3 names literals as 'x' or "xy"; users read them better as `x`.
std::string readable(const std::string& what) {
  if (what.size() >= 2 && (what.front() == '\'' || what.front() == '"') && what.back() == what.front())
    return "`" + what.substr(1, what.size() - 2) + "`";
  return what;
}

// The first token at or after `where` (errors point at tokens, not at the comment before).
iterator_type skip_blanks(iterator_type where, iterator_type last) {
  while (where != last && x3::parse(where, last, grammar::skipper)) {
  }
  return where;
}

// An unterminated block comment would otherwise read as `/` `*` operators.
void check_comments(const Syntax& syntax) {
  const std::string& text = syntax.map().file()->text;
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] == '/' && text[i + 1] == '/') {
      i = text.find('\n', i);
      if (i == std::string::npos) return;
    } else if (text[i] == '/' && text[i + 1] == '*') {
      std::size_t end = text.find("*/", i + 2);
      if (end == std::string::npos) throw Error("unterminated comment: `/*` without `*/`", syntax.map().at(i));
      i = end + 1;
    }
  }
}

}  // namespace

std::unique_ptr<Syntax> parse_syntax(std::shared_ptr<const SourceFile> file) {
  auto syntax = std::make_unique<Syntax>(std::move(file));
  const std::string& text = syntax->map().file()->text;
  iterator_type first = text.begin();
  const iterator_type last = text.end();
  check_comments(*syntax);
  int depth = 0;
  auto const parser = x3::with<x3::error_handler_tag>(std::ref(syntax->handler()))
      [x3::with<depth_tag>(std::ref(depth))[grammar::program]];
  try {
    bool ok = x3::phrase_parse(first, last, parser, grammar::skipper, syntax->program());
    if (!ok || first != last)
      throw Error("expected `size`, `input` or `def`", syntax->map().at(skip_blanks(first, last)));
  } catch (const x3::expectation_failure<iterator_type>& e) {
    iterator_type where = skip_blanks(e.where(), last);
    std::string found = where == last ? "end of input" : "";
    throw Error(fmt::format("expected {}{}", readable(e.which()), found.empty() ? "" : ", found " + found),
                syntax->map().at(where));
  } catch (const TooDeep& e) {
    throw Error(fmt::format("expression nested deeper than {} levels", kMaxNesting), syntax->map().at(e.where));
  }
  return syntax;
}

}  // namespace liftc::parse
