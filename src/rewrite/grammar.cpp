// The rule-file grammar (Boost.Spirit X3); the only translation unit that instantiates it.
//
//   file      := (rule | strategy)* end
//   rule      := `rule` name [ `(` param, ... `)` ] [ "description" ] `:` expr `=>` expr [ `if` expr ]
//   param     := [`choose`] name [ `in` (lo `..` hi | `{` v, ... `}`) ]
//   strategy  := `strategy` name [ "description" ] `=` strat
//   strat     := seq ((`<+` | `|`) seq)*          seq := atom (`;` atom)*
//   atom      := `at` `(` i.j.k `,` strat `)` | name [ `[` int, ... `]` ] [ `(` strat, ... `)` ] | `(` strat `)`
//
// `expr` is the .sr expression grammar of src/parse (grammar_def.hpp), reused as is.

#include <fmt/format.h>

#include <boost/fusion/include/adapt_struct.hpp>

#include "parse/grammar_def.hpp"
#include "syntax.hpp"

BOOST_FUSION_ADAPT_STRUCT(liftc::rewrite::syntax::Range, lo, hi)
BOOST_FUSION_ADAPT_STRUCT(liftc::rewrite::syntax::ValueSet, values)
BOOST_FUSION_ADAPT_STRUCT(liftc::rewrite::syntax::Param, choose, name, domain)
BOOST_FUSION_ADAPT_STRUCT(liftc::rewrite::syntax::RuleDecl, name, params, description, lhs, rhs, guard)
BOOST_FUSION_ADAPT_STRUCT(liftc::rewrite::syntax::StratCall, name, fixed, args)
BOOST_FUSION_ADAPT_STRUCT(liftc::rewrite::syntax::StratAt, path, body)
BOOST_FUSION_ADAPT_STRUCT(liftc::rewrite::syntax::StratSeq, items)
BOOST_FUSION_ADAPT_STRUCT(liftc::rewrite::syntax::StratOp, op, operand)
BOOST_FUSION_ADAPT_STRUCT(liftc::rewrite::syntax::StratExpr, first, rest)
BOOST_FUSION_ADAPT_STRUCT(liftc::rewrite::syntax::StrategyDecl, name, description, body)
BOOST_FUSION_ADAPT_STRUCT(liftc::rewrite::syntax::File, items)

namespace liftc::rewrite::syntax {

namespace grammar {

using parse::annotated;
using x3::lexeme;
using x3::lit;
namespace sr = parse::grammar;

const auto word_end = !x3::char_("a-zA-Z0-9_");
const auto keyword = [](const char* k) { return lexeme[lit(k) >> word_end]; };

struct range_class : annotated {};
struct value_set_class : annotated {};
struct param_class : annotated {};
struct rule_decl_class : annotated {};
struct strat_call_class : annotated {};
struct strat_at_class : annotated {};
struct strat_seq_class : annotated {};
struct strat_op_class : annotated {};
struct strat_expr_class : annotated {};
struct strategy_decl_class : annotated {};

x3::rule<class rule_name, std::string> const rule_name = "rule or strategy name";
x3::rule<class description, std::string> const description = "description";
x3::rule<range_class, Range> const range = "range";
x3::rule<value_set_class, ValueSet> const value_set = "value set";
x3::rule<class domain, Domain> const domain = "`lo..hi` or `{values}`";
x3::rule<param_class, Param> const param = "parameter";
x3::rule<class param_list, std::vector<Param>> const param_list = "parameter list";
x3::rule<rule_decl_class, RuleDecl> const rule_decl = "rule";
x3::rule<strat_call_class, StratCall> const strat_call = "strategy";
x3::rule<class strat_args, std::vector<StratExpr>> const strat_args = "strategy arguments";
// Named lists, so that an expectation failure inside one names what was expected.
x3::rule<class strat_list, std::vector<StratExpr>> const strat_list = "strategy";
x3::rule<class param_items, std::vector<Param>> const param_items = "parameter";
x3::rule<class integer_list, std::vector<long long>> const integer_list = "integer";
x3::rule<strat_at_class, StratAt> const strat_at = "`at`";
x3::rule<class position_path, std::vector<unsigned>> const position_path = "position (child indices, e.g. 0.1.0)";
x3::rule<class strat_atom, StratAtom> const strat_atom = "strategy";
x3::rule<strat_seq_class, StratSeq> const strat_seq = "strategy";
x3::rule<strat_op_class, StratOp> const strat_op = "strategy operator";
x3::rule<strat_expr_class, StratExpr> const strat_expr = "strategy";
x3::rule<strategy_decl_class, StrategyDecl> const strategy_decl = "strategy declaration";
x3::rule<class item, Item> const item = "`rule` or `strategy`";
x3::rule<class file, File> const file = "rule file";
x3::rule<class end_of_file> const end_of_file = "`rule` or `strategy`";

// Rule names may contain dashes between word characters: `map-fusion`, `split-join`.
const auto rule_name_def =
    lexeme[x3::char_("a-zA-Z_") >> *(x3::char_("a-zA-Z0-9_") | (x3::char_('-') >> &x3::char_("a-zA-Z0-9_")))];
const auto description_def = lexeme['"' > *(x3::char_ - '"' - x3::eol) > '"'];
const auto range_def = sr::integer >> ".." > sr::integer;
const auto integer_list_def = sr::integer % ',';
const auto value_set_def = '{' > integer_list > '}';
const auto domain_def = range | value_set;
const auto param_def = x3::matches[keyword("choose")] >> sr::identifier >> -(sr::kw_in > domain);
const auto param_items_def = param % ',';
const auto param_list_def = '(' > param_items > ')';
const auto rule_decl_def = keyword("rule") > rule_name > -param_list > -description > ':' > sr::expr > "=>" >
                           sr::expr > -(keyword("if") > sr::expr);
const auto strat_list_def = strat_expr % ',';
const auto strat_args_def = '(' > strat_list > ')';
x3::rule<class fixed_args, std::vector<long long>> const fixed_args = "fixed parameters";
const auto fixed_args_def = '[' > integer_list > ']';
const auto strat_call_def = rule_name >> -fixed_args >> -strat_args;
const auto position_path_def = lexeme[x3::uint_ % '.'];
const auto strat_at_def = keyword("at") >> '(' > position_path > ',' > strat_expr > ')';
const auto strat_atom_def = strat_at | strat_call | ('(' > strat_expr > ')');
const auto strat_seq_def = strat_atom % ';';
const auto strat_op_def = (x3::string("<+") | x3::string("|")) > strat_seq;
const auto strat_expr_def = parse::depth_guard[strat_seq >> *strat_op];
const auto strategy_decl_def = keyword("strategy") > rule_name > -description > '=' > strat_expr;
const auto item_def = rule_decl | strategy_decl;
const auto end_of_file_def = x3::eoi;
const auto file_def = *item > end_of_file;

BOOST_SPIRIT_DEFINE(rule_name, description, range, value_set, domain, param, param_list, rule_decl)
BOOST_SPIRIT_DEFINE(fixed_args, strat_call, strat_args, strat_at, position_path, strat_atom, strat_seq, strat_op, strat_expr)
BOOST_SPIRIT_DEFINE(strategy_decl, item, file, end_of_file, strat_list, param_items, integer_list)

}  // namespace grammar

namespace {

using parse::iterator_type;

std::string readable(const std::string& what) {
  if (what.size() >= 2 && (what.front() == '\'' || what.front() == '"') && what.back() == what.front())
    return "`" + what.substr(1, what.size() - 2) + "`";
  return what;
}

iterator_type skip_blanks(iterator_type where, iterator_type last) {
  while (where != last && x3::parse(where, last, parse::grammar::skipper)) {
  }
  return where;
}

template <typename Parser, typename Attr>
void run(Parsed& parsed, const Parser& p, Attr& out, const char* expected_at_end) {
  const std::string& text = parsed.map().file()->text;
  iterator_type first = text.begin();
  const iterator_type last = text.end();
  int depth = 0;
  auto const parser =
      x3::with<x3::error_handler_tag>(std::ref(parsed.handler()))[x3::with<parse::depth_tag>(std::ref(depth))[p]];
  try {
    bool ok = x3::phrase_parse(first, last, parser, parse::grammar::skipper, out);
    if (!ok || first != last) throw Error(fmt::format("expected {}", expected_at_end), parsed.map().at(skip_blanks(first, last)));
  } catch (const x3::expectation_failure<iterator_type>& e) {
    iterator_type where = skip_blanks(e.where(), last);
    throw Error(fmt::format("expected {}{}", readable(e.which()), where == last ? ", found end of input" : ""),
                parsed.map().at(where));
  } catch (const parse::TooDeep& e) {
    throw Error(fmt::format("nested deeper than {} levels", parse::kMaxNesting), parsed.map().at(e.where));
  }
}

}  // namespace

void parse_file(Parsed& parsed, File& out) { run(parsed, grammar::file, out, "`rule` or `strategy`"); }

void parse_strategy_text(Parsed& parsed, StratExpr& out) {
  run(parsed, grammar::strat_expr > grammar::end_of_file, out, "a strategy");
}

}  // namespace liftc::rewrite::syntax
