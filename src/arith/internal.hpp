#pragma once
// Shared internals of the arith library: checked integer arithmetic, raw node builders
// (no simplification), and the polynomial view of a canonical expression.
//
// Canonical form (the invariants every builder below keeps, see README.md):
//  * an *atom* is a Var, Div, Mod, Min or Max node;
//  * a *term* is a constant coefficient times a sorted multiset of atoms; as an Expr it is
//    a Cst (no atoms), an atom (coefficient 1, one atom) or a Prod [Cst?, atom, atom...]
//    whose Cst, when present, comes first and is neither 0 nor 1;
//  * a Sum has >= 2 terms with pairwise distinct atom multisets, ordered by term_less
//    (higher degree first, the constant last). Products never contain a Sum: products are
//    fully distributed over sums, so every expression is a polynomial over atoms.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "liftc/arith/division.hpp"
#include "liftc/arith/expr.hpp"

namespace liftc::arith::detail {

// ---- checked int64 arithmetic: throw liftc::Error on overflow -------------------------

std::int64_t checked_add(std::int64_t a, std::int64_t b);
std::int64_t checked_mul(std::int64_t a, std::int64_t b);

// ---- structural order -------------------------------------------------------------------

/// Three-way structural comparison: negative, zero or positive. Vars compare by name.
int compare(const Expr& a, const Expr& b);

// ---- raw nodes (no simplification: callers guarantee the canonical invariants) ---------

Expr make_cst(std::int64_t v);
Expr make_node(Kind kind, std::vector<Expr> operands);

// ---- polynomial view ----------------------------------------------------------------------

/// coef * atoms[0] * atoms[1] * ...; atoms sorted by compare().
struct Term {
  std::int64_t coef = 0;
  std::vector<Expr> atoms;
};

/// True for Var, Div, Mod, Min, Max.
bool is_atom(const Expr& e);
/// The terms of a canonical expression (none for the constant 0).
std::vector<Term> terms_of(const Expr& e);
/// The Expr of one term (Cst, atom or Prod).
Expr term_expr(const Term& t);
/// Product of two terms (atoms merged, coefficient checked).
Term mul_terms(const Term& a, const Term& b);
/// `t / d` when d's coefficient divides t's and d's atoms are a sub-multiset of t's.
std::optional<Term> divide_term(const Term& t, const Term& d);
/// Builds the canonical sum of arbitrary terms: collects like terms, drops zeros, sorts,
/// and recombines x - (x/y)*y into x%y (the sum-level simplification rules).
Expr make_sum(std::vector<Term> terms);
/// Number of Div and Mod nodes in `e` (the cost the sum rules try to decrease).
int count_divmod(const Expr& e);

// ---- bounds, used by the div/mod/min/max rules ---------------------------------------------

/// 0 <= a < b is provable.
bool provably_in_range(const Expr& a, const Expr& b);
/// How deeply bound queries are nested right now (0 outside any).
int query_depth();

// ---- the memo of bounds and of the rules that ask for them (memo.cpp) ---------------------

/// What a memo entry holds.
enum class Memoized { LowerBound, UpperBound, Div, Mod };
/// Records that a bound query answered "unknown" because it reached the depth limit.
void gave_up_at_depth_limit();
/// compute() for (what, a, b) at the current query depth, from the memo when it was
/// computed before; gives exactly what compute() gives.
std::optional<Expr> remember(Memoized what, const Expr& a, const Expr& b,
                             const std::function<std::optional<Expr>()>& compute);

}  // namespace liftc::arith::detail
