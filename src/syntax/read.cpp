// The only translation unit that instantiates the grammars: the .sr grammar, and the
// rule-file grammar that reuses its expressions (so they are compiled once, for one
// parser context). X3's errors become liftc::Error here.

#include <functional>

#include <fmt/format.h>

#include "grammar_def.hpp"
#include "liftc/syntax/read.hpp"
#include "rule_grammar_def.hpp"

namespace liftc::syntax {

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
void check_comments(const Positions& parsed) {
  const std::string& text = parsed.map().file()->text;
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] == '/' && text[i + 1] == '/') {
      i = text.find('\n', i);
      if (i == std::string::npos) return;
    } else if (text[i] == '/' && text[i + 1] == '*') {
      std::size_t end = text.find("*/", i + 2);
      if (end == std::string::npos) throw Error("unterminated comment: `/*` without `*/`", parsed.map().at(i));
      i = end + 1;
    }
  }
}

// How one reader differs from the others: what it says when its input does not parse to
// the end and when it nests too deep, and whether it looks for an unterminated comment.
struct Reader {
  const char* expected_at_end;  // "expected <this>" when the parser stops before the end
  const char* too_deep;         // "<this>nested deeper than N levels"
  bool checks_comments;
};

// Parses the whole text of `file` with `p` (of the one context all grammars share:
// the skipper, the annotation handler, the nesting counter) into its tree.
template <typename Tree, typename Parser>
std::unique_ptr<Parsed<Tree>> read(std::shared_ptr<const SourceFile> file, const Parser& p, const Reader& says) {
  auto parsed = std::make_unique<Parsed<Tree>>(std::move(file));
  const std::string& text = parsed->map().file()->text;
  if (says.checks_comments) check_comments(*parsed);
  iterator_type first = text.begin();
  const iterator_type last = text.end();
  int depth = 0;
  auto const parser =
      x3::with<x3::error_handler_tag>(std::ref(parsed->handler()))[x3::with<depth_tag>(std::ref(depth))[p]];
  try {
    bool ok = x3::phrase_parse(first, last, parser, grammar::skipper, parsed->tree());
    if (!ok || first != last)
      throw Error(fmt::format("expected {}", says.expected_at_end), parsed->map().at(skip_blanks(first, last)));
  } catch (const x3::expectation_failure<iterator_type>& e) {
    iterator_type where = skip_blanks(e.where(), last);
    throw Error(fmt::format("expected {}{}", readable(e.which()), where == last ? ", found end of input" : ""),
                parsed->map().at(where));
  } catch (const TooDeep& e) {
    throw Error(fmt::format("{}nested deeper than {} levels", says.too_deep, kMaxNesting), parsed->map().at(e.where));
  }
  return parsed;
}

}  // namespace

std::unique_ptr<Parsed<ast::Program>> read_program(std::shared_ptr<const SourceFile> file) {
  return read<ast::Program>(std::move(file), grammar::program, {"`size`, `input` or `def`", "expression ", true});
}

std::unique_ptr<Parsed<ast::RuleFile>> read_rule_file(std::shared_ptr<const SourceFile> file) {
  return read<ast::RuleFile>(std::move(file), rule_grammar::file, {"`rule` or `strategy`", "", false});
}

std::unique_ptr<Parsed<ast::StratExpr>> read_strategy(std::shared_ptr<const SourceFile> file) {
  return read<ast::StratExpr>(std::move(file), rule_grammar::strat_expr > rule_grammar::end_of_file,
                              {"a strategy", "", false});
}

}  // namespace liftc::syntax
