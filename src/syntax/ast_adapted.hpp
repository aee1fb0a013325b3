#pragma once
// Boost.Fusion adaptation of the AST structs (.sr and rule files), so X3 can fill them
// field by field. Included only by read.cpp.

#include <boost/fusion/include/adapt_struct.hpp>

#include "liftc/syntax/ast.hpp"
#include "liftc/syntax/rule_ast.hpp"

BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::Name, text)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::IntLit, value)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::FloatLit, value)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::Tuple, elems)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::Lambda, params, body)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::Let, name, value, body)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::Operation, op, operand)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::Binary, first, rest)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::Unary, op, operand)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::Projection, index)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::Arguments, args)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::Postfix, primary, ops)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::ArrayType, elem, length)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::TupleType, elems)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::SizeRange, lo, hi)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::SizeItem, name, value, range)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::SizeDecl, items)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::InputDecl, name, type)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::Def, name, params, body)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::Program, decls)

BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::Range, lo, hi)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::ValueSet, values)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::Param, choose, name, domain)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::RuleDecl, name, params, description, lhs, rhs, guard)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::StratCall, name, fixed, args)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::StratAt, path, body)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::StratSeq, items)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::StratOp, op, operand)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::StratExpr, first, rest)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::StrategyDecl, name, tags, description, body)
BOOST_FUSION_ADAPT_STRUCT(liftc::syntax::ast::RuleFile, items)
