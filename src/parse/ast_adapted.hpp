#pragma once
// Boost.Fusion adaptation of the AST structs, so X3 can fill them field by field.

#include <boost/fusion/include/adapt_struct.hpp>

#include "ast.hpp"

BOOST_FUSION_ADAPT_STRUCT(liftc::parse::ast::Name, text)
BOOST_FUSION_ADAPT_STRUCT(liftc::parse::ast::IntLit, value)
BOOST_FUSION_ADAPT_STRUCT(liftc::parse::ast::FloatLit, value)
BOOST_FUSION_ADAPT_STRUCT(liftc::parse::ast::Tuple, elems)
BOOST_FUSION_ADAPT_STRUCT(liftc::parse::ast::Lambda, params, body)
BOOST_FUSION_ADAPT_STRUCT(liftc::parse::ast::Let, name, value, body)
BOOST_FUSION_ADAPT_STRUCT(liftc::parse::ast::Operation, op, operand)
BOOST_FUSION_ADAPT_STRUCT(liftc::parse::ast::Binary, first, rest)
BOOST_FUSION_ADAPT_STRUCT(liftc::parse::ast::Unary, op, operand)
BOOST_FUSION_ADAPT_STRUCT(liftc::parse::ast::Projection, index)
BOOST_FUSION_ADAPT_STRUCT(liftc::parse::ast::Arguments, args)
BOOST_FUSION_ADAPT_STRUCT(liftc::parse::ast::Postfix, primary, ops)
BOOST_FUSION_ADAPT_STRUCT(liftc::parse::ast::ArrayType, elem, length)
BOOST_FUSION_ADAPT_STRUCT(liftc::parse::ast::TupleType, elems)
BOOST_FUSION_ADAPT_STRUCT(liftc::parse::ast::SizeRange, lo, hi)
BOOST_FUSION_ADAPT_STRUCT(liftc::parse::ast::SizeItem, name, value, range)
BOOST_FUSION_ADAPT_STRUCT(liftc::parse::ast::SizeDecl, items)
BOOST_FUSION_ADAPT_STRUCT(liftc::parse::ast::InputDecl, name, type)
BOOST_FUSION_ADAPT_STRUCT(liftc::parse::ast::Def, name, params, body)
BOOST_FUSION_ADAPT_STRUCT(liftc::parse::ast::Program, decls)
