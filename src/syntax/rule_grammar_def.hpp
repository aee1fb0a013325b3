#pragma once
// The rule-file grammar (Boost.Spirit X3). Included only by read.cpp.
//
//   file      := (rule | strategy)* end
//   rule      := `rule` name [ `(` param, ... `)` ] [ "description" ] `:` expr `=>` expr [ `if` expr ]
//   param     := [`choose`] name [ `in` (lo `..` hi | `{` v, ... `}`) ]
//   strategy  := `strategy` name [ `[` tag, ... `]` ] [ "description" ] `=` strat
//   strat     := seq ((`<+` | `|`) seq)*          seq := atom (`;` atom)*
//   atom      := `at` `(` i.j.k `,` strat `)` | name [ `[` int, ... `]` ] [ `(` strat, ... `)` ] | `(` strat `)`
//
// `expr` is the .sr expression grammar (grammar_def.hpp), reused as is.

#include "grammar_def.hpp"

namespace liftc::syntax::rule_grammar {

using x3::lexeme;
using x3::lit;
namespace sr = syntax::grammar;

const auto keyword = [](const char* k) { return lexeme[lit(k) >> sr::word_end]; };

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
x3::rule<range_class, ast::Range> const range = "range";
x3::rule<value_set_class, ast::ValueSet> const value_set = "value set";
x3::rule<class domain, ast::Domain> const domain = "`lo..hi` or `{values}`";
x3::rule<param_class, ast::Param> const param = "parameter";
x3::rule<class param_list, std::vector<ast::Param>> const param_list = "parameter list";
x3::rule<rule_decl_class, ast::RuleDecl> const rule_decl = "rule";
x3::rule<strat_call_class, ast::StratCall> const strat_call = "strategy";
x3::rule<class strat_args, std::vector<ast::StratExpr>> const strat_args = "strategy arguments";
// Named lists, so that an expectation failure inside one names what was expected.
x3::rule<class strat_list, std::vector<ast::StratExpr>> const strat_list = "strategy";
x3::rule<class param_items, std::vector<ast::Param>> const param_items = "parameter";
x3::rule<class integer_list, std::vector<long long>> const integer_list = "integer";
x3::rule<class tag_items, std::vector<std::string>> const tag_items = "tag (a name, e.g. fast)";
x3::rule<class tag_list, std::vector<std::string>> const tag_list = "tags";
x3::rule<strat_at_class, ast::StratAt> const strat_at = "`at`";
x3::rule<class position_path, std::vector<unsigned>> const position_path = "position (child indices, e.g. 0.1.0)";
x3::rule<class strat_atom, ast::StratAtom> const strat_atom = "strategy";
x3::rule<strat_seq_class, ast::StratSeq> const strat_seq = "strategy";
x3::rule<strat_op_class, ast::StratOp> const strat_op = "strategy operator";
x3::rule<strat_expr_class, ast::StratExpr> const strat_expr = "strategy";
x3::rule<strategy_decl_class, ast::StrategyDecl> const strategy_decl = "strategy declaration";
x3::rule<class item, ast::RuleItem> const item = "`rule` or `strategy`";
x3::rule<class file, ast::RuleFile> const file = "rule file";
x3::rule<class end_of_file> const end_of_file = "`rule` or `strategy`";

// Rule names may contain dashes between word characters: `map-fusion`, `split-join`.
const auto rule_name_def =
    lexeme[x3::char_("a-zA-Z_") >> *(x3::char_("a-zA-Z0-9_") | (x3::char_('-') >> &x3::char_("a-zA-Z0-9_")))];
const auto description_def = lexeme['"' > *(x3::char_ - '"' - x3::eol) > '"'];
const auto range_def = (sr::integer >> "..") > sr::integer;
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
const auto strat_at_def = (keyword("at") >> '(') > position_path > ',' > strat_expr > ')';
const auto strat_atom_def = strat_at | strat_call | ('(' > strat_expr > ')');
const auto strat_seq_def = strat_atom % ';';
const auto strat_op_def = (x3::string("<+") | x3::string("|")) > strat_seq;
const auto strat_expr_def = depth_guard[strat_seq >> *strat_op];
const auto tag_items_def = rule_name % ',';
const auto tag_list_def = '[' > tag_items > ']';
const auto strategy_decl_def = keyword("strategy") > rule_name > -tag_list > -description > '=' > strat_expr;
const auto item_def = rule_decl | strategy_decl;
const auto end_of_file_def = x3::eoi;
const auto file_def = *item > end_of_file;

BOOST_SPIRIT_DEFINE(rule_name, description, range, value_set, domain, param, param_list, rule_decl)
BOOST_SPIRIT_DEFINE(fixed_args, strat_call, strat_args, strat_at, position_path, strat_atom, strat_seq, strat_op, strat_expr)
BOOST_SPIRIT_DEFINE(strategy_decl, item, file, end_of_file, strat_list, param_items, integer_list, tag_items, tag_list)

}  // namespace liftc::syntax::rule_grammar
