#pragma once
// The .sr grammar (Boost.Spirit X3). Included only by read.cpp (its expression rules
// are also the rule-file grammar's patterns and guards: rule_grammar_def.hpp).
//
// Precedence, lowest first: lambda / let, ||, &&, == !=, < <= > >=, + -, * / %,
// unary - !, postfix .i and calls, atoms. After a construct's first token the expect
// operator `>` commits, so an error points at the token that broke it and names the rule
// (each rule has a readable name for "expected <name>").

#include <charconv>
#include <system_error>

#include <boost/spirit/home/x3.hpp>

#include "ast_adapted.hpp"
#include "error_handler.hpp"
#include "liftc/syntax/ast.hpp"

namespace liftc::syntax::grammar {

using x3::lexeme;
using x3::lit;

// ---- Lexical ------------------------------------------------------------------------
// Character classes are spelled out in ASCII so bytes >= 0x80 never reach <cctype>.

const auto word_char = x3::char_("a-zA-Z0-9_");
const auto word_end = !word_char;
const auto line_comment = lit("//") >> *(x3::char_ - x3::eol);
const auto block_comment = lit("/*") >> *(x3::char_ - lit("*/")) >> lit("*/");
/// Whitespace and comments between tokens.
const auto skipper = x3::char_(" \t\r\n\f\v") | line_comment | block_comment;

// `inf` is the float literal infinity (`-inf` its negation), so it is no name either.
const auto reserved = lexeme[(lit("size") | lit("input") | lit("def") | lit("let") | lit("inf") | lit("in")) >> word_end];

// Reals without sign (unary minus is an operator), without nan/inf (the literal `inf` is
// spelled on its own, below), with a dot or an exponent (a bare `12` is an int).
template <typename T>
struct float_policies : x3::strict_ureal_policies<T> {
  template <typename It, typename Attr>
  static bool parse_nan(It&, It const&, Attr&) { return false; }
  template <typename It, typename Attr>
  static bool parse_inf(It&, It const&, Attr&) { return false; }
};
const x3::real_parser<double, float_policies<double>> unsigned_float{};
const x3::uint_parser<long long> unsigned_int{};

x3::rule<class kw_size> const kw_size = "`size`";
x3::rule<class kw_input> const kw_input = "`input`";
x3::rule<class kw_def> const kw_def = "`def`";
x3::rule<class kw_let> const kw_let = "`let`";
x3::rule<class kw_in> const kw_in = "`in`";
x3::rule<class identifier, std::string> const identifier = "name";
x3::rule<class integer, long long> const integer = "integer";
x3::rule<class tuple_index, unsigned> const tuple_index = "tuple index";
x3::rule<class end_of_input> const end_of_input = "`size`, `input` or `def`";

const auto kw_size_def = lexeme[lit("size") >> word_end];
const auto kw_input_def = lexeme[lit("input") >> word_end];
const auto kw_def_def = lexeme[lit("def") >> word_end];
const auto kw_let_def = lexeme[lit("let") >> word_end];
const auto kw_in_def = lexeme[lit("in") >> word_end];
const auto identifier_def = lexeme[x3::char_("a-zA-Z_") >> *word_char] - reserved;
const auto integer_def = lexeme[unsigned_int >> word_end];
const auto tuple_index_def = lexeme[x3::uint_ >> word_end];
const auto end_of_input_def = x3::eoi;

// ---- Expressions --------------------------------------------------------------------

struct name_class : annotated {};
struct int_lit_class : annotated {};
struct float_lit_class : annotated {};
struct tuple_class : annotated {};
struct lambda_class : annotated {};
struct let_class : annotated {};
struct or_expr_class : annotated {};
struct or_operation_class : annotated {};
struct and_expr_class : annotated {};
struct and_operation_class : annotated {};
struct eq_expr_class : annotated {};
struct eq_operation_class : annotated {};
struct rel_expr_class : annotated {};
struct rel_operation_class : annotated {};
struct add_expr_class : annotated {};
struct add_operation_class : annotated {};
struct mul_expr_class : annotated {};
struct mul_operation_class : annotated {};
struct unary_class : annotated {};
struct postfix_class : annotated {};
struct projection_class : annotated {};
struct arguments_class : annotated {};

x3::rule<name_class, ast::Name> const name = "name";
x3::rule<int_lit_class, ast::IntLit> const int_lit = "number";
x3::rule<float_lit_class, ast::FloatLit> const float_lit = "number";
x3::rule<tuple_class, ast::Tuple> const tuple = "parenthesised expression";
x3::rule<class lambda_params, std::vector<ast::Name>> const lambda_params = "lambda parameters";
x3::rule<lambda_class, ast::Lambda> const lambda = "lambda";
x3::rule<let_class, ast::Let> const let_expr = "let expression";
x3::rule<class expr, ast::Expr> const expr = "expression";
x3::rule<or_expr_class, ast::Binary> const or_expr = "expression";
x3::rule<and_expr_class, ast::Binary> const and_expr = "expression";
x3::rule<eq_expr_class, ast::Binary> const eq_expr = "expression";
x3::rule<rel_expr_class, ast::Binary> const rel_expr = "expression";
x3::rule<add_expr_class, ast::Binary> const add_expr = "expression";
x3::rule<mul_expr_class, ast::Binary> const mul_expr = "expression";
x3::rule<or_operation_class, ast::Operation> const or_operation = "operator";
x3::rule<and_operation_class, ast::Operation> const and_operation = "operator";
x3::rule<eq_operation_class, ast::Operation> const eq_operation = "operator";
x3::rule<rel_operation_class, ast::Operation> const rel_operation = "operator";
x3::rule<add_operation_class, ast::Operation> const add_operation = "operator";
x3::rule<mul_operation_class, ast::Operation> const mul_operation = "operator";
x3::rule<class unary, ast::Expr> const unary = "expression";
x3::rule<unary_class, ast::Unary> const negation = "expression";
x3::rule<postfix_class, ast::Postfix> const postfix = "expression";
x3::rule<projection_class, ast::Projection> const projection = "projection";
x3::rule<arguments_class, ast::Arguments> const arguments = "argument list";
x3::rule<class atom, ast::Expr> const atom = "expression";
x3::rule<class expr_list, std::vector<ast::Expr>> const expr_list = "expression";
x3::rule<class name_list, std::vector<ast::Name>> const name_list = "name";

const auto minus = x3::string("-") >> !lit('>');  // not the `->` of a lambda

const auto name_def = identifier;
const auto int_lit_def = integer;
// X3's real parser is not correctly rounded (1e-30 reads as 9.999999999999999e-31), so the
// literal's text is converted with std::from_chars, which is; out of range is no match.
const auto float_value = [](auto& ctx) {
  const auto& range = x3::_attr(ctx);
  const char* first = &*range.begin();
  const char* last = first + (range.end() - range.begin());
  auto [end, error] = std::from_chars(first, last, x3::_val(ctx).value);
  x3::_pass(ctx) = error == std::errc() && end != first;
  // A rule with an action is not annotated on success: record the position here.
  x3::get<x3::error_handler_tag>(ctx).get().tag(x3::_val(ctx), range.begin(), range.end());
};
// `inf` reads as infinity (std::from_chars spells it so).
const auto float_lit_def = x3::raw[lexeme[((unsigned_float >> -lit('f')) | lit("inf")) >> word_end]][float_value];
// Lists commit after each comma, so `f(a, )` points after the comma.
const auto expr_list_def = expr >> *(',' > expr);
const auto name_list_def = name >> *(',' > name);
const auto tuple_def = '(' > expr_list > ')';
const auto lambda_params_def = ('(' >> (name % ',') >> ')') | x3::repeat(1)[name];
const auto lambda_def = (lambda_params >> "->") > expr;
const auto let_expr_def = kw_let > name > '=' > expr > kw_in > expr;
const auto expr_def = depth_guard[lambda | let_expr | or_expr];
const auto or_expr_def = and_expr >> *or_operation;
const auto or_operation_def = x3::string("||") > and_expr;
const auto and_expr_def = eq_expr >> *and_operation;
const auto and_operation_def = x3::string("&&") > eq_expr;
const auto eq_expr_def = rel_expr >> *eq_operation;
const auto eq_operation_def = (x3::string("==") | x3::string("!=")) > rel_expr;
const auto rel_expr_def = add_expr >> *rel_operation;
const auto rel_operation_def =
    (x3::string("<=") | x3::string(">=") | x3::string("<") | x3::string(">")) > add_expr;
const auto add_expr_def = mul_expr >> *add_operation;
const auto add_operation_def = (x3::string("+") | minus) > mul_expr;
const auto mul_expr_def = unary >> *mul_operation;
const auto mul_operation_def = (x3::string("*") | x3::string("/") | x3::string("%")) > unary;
const auto unary_def = negation | postfix;
const auto negation_def = (minus | (x3::string("!") >> !lit('='))) > depth_guard[unary];
const auto postfix_def = atom >> *(projection | arguments);
const auto projection_def = '.' > tuple_index;
const auto arguments_def = '(' > expr_list > ')';
const auto atom_def = float_lit | int_lit | name | tuple;

BOOST_SPIRIT_DEFINE(kw_size, kw_input, kw_def, kw_let, kw_in, identifier, integer, tuple_index, end_of_input)
BOOST_SPIRIT_DEFINE(name, int_lit, float_lit, tuple, lambda_params, lambda, let_expr, expr)
BOOST_SPIRIT_DEFINE(or_expr, and_expr, eq_expr, rel_expr, add_expr, mul_expr)
BOOST_SPIRIT_DEFINE(or_operation, and_operation, eq_operation, rel_operation, add_operation, mul_operation)
BOOST_SPIRIT_DEFINE(unary, negation, postfix, projection, arguments, atom, expr_list, name_list)

// ---- Types and declarations ---------------------------------------------------------

struct array_type_class : annotated {};
struct tuple_type_class : annotated {};
struct size_range_class : annotated {};
struct size_item_class : annotated {};
struct size_decl_class : annotated {};
struct input_decl_class : annotated {};
struct def_decl_class : annotated {};

x3::rule<class type, ast::Type> const type = "type";
x3::rule<array_type_class, ast::ArrayType> const array_type = "array type";
x3::rule<tuple_type_class, ast::TupleType> const tuple_type = "tuple type";
x3::rule<class array_length, ast::Expr> const array_length = "array length";
x3::rule<size_range_class, ast::SizeRange> const size_range = "size range";
x3::rule<size_item_class, ast::SizeItem> const size_item = "size name";
x3::rule<size_decl_class, ast::SizeDecl> const size_decl = "size declaration";
x3::rule<input_decl_class, ast::InputDecl> const input_decl = "input declaration";
x3::rule<class def_params, std::vector<ast::Name>> const def_params = "parameter list";
x3::rule<class type_list, std::vector<ast::Type>> const type_list = "type";
x3::rule<class size_list, std::vector<ast::SizeItem>> const size_list = "size name";
x3::rule<def_decl_class, ast::Def> const def_decl = "definition";
x3::rule<class declaration, ast::Decl> const declaration = "declaration";
x3::rule<class program, ast::Program> const program = "program";

const auto type_def = depth_guard[array_type | tuple_type | name];
const auto array_type_def = '[' > type > ']' > array_length;
const auto type_list_def = type >> *(',' > type);
const auto size_list_def = size_item >> *(',' > size_item);
const auto tuple_type_def = '(' > type_list > ')';
const auto array_length_def = int_lit | name | ('(' > expr > ')');
const auto size_range_def = integer > ".." > integer;
const auto size_item_def = name > -('=' > integer) > -(kw_in > size_range);
const auto size_decl_def = kw_size > size_list;
const auto input_decl_def = kw_input > name > ':' > type;
const auto def_params_def = '(' > name_list > ')';
const auto def_decl_def = kw_def > name > -def_params > '=' > expr;
const auto declaration_def = size_decl | input_decl | def_decl;
const auto program_def = *declaration > end_of_input;

BOOST_SPIRIT_DEFINE(type, array_type, tuple_type, array_length, size_range, size_item, size_decl, input_decl)
BOOST_SPIRIT_DEFINE(def_params, def_decl, declaration, program, type_list, size_list)

}  // namespace liftc::syntax::grammar
