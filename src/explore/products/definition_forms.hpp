#pragma once
// Internal to explore/products: the forms of a definition that the splits of a definition
// into layers (residual.cpp, pool_split.cpp) and the fusions of layers (layers.cpp) look for.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "liftc/ir/expr.hpp"
#include "liftc/rewrite/load.hpp"

namespace liftc::explore::detail {

/// Whether `e` or anything under it is a reduce.
bool reduces(const ir::Expr& e);

/// Appends every name `e` binds or reads to `out` (so that a fresh name captures nothing
/// when put inside it).
void names_in(const ir::Expr& e, std::vector<std::string>& out);

/// Each definition of `program` in normal form (`normal-form` of `rules`), or none where
/// there are no rules or it gives none.
std::optional<ir::Program> normal_forms(const ir::Program& program, const rewrite::RuleSet* rules);

/// The array `x` whose non-overlapping p x q windows `e` is: slide2D's,
/// `map(t -> transpose(t), slide(p, p, map(row -> slide(q, q, row), x)))`, or the prelude's
/// tile2D tiles, `map(t -> transpose(t), split(p, map(row -> split(q, row), x)))` (which
/// normal-form makes those windows, pool-tiles-as-windows), p and q at least 2 at the size
/// values `sizes` (a pooling's windows); undefined when `e` is not. With `overlapping`, slide2D's
/// windows of any step too (a 3x3 pooling with stride 2: each value in several windows).
ir::Expr pooled_array(const ir::Expr& e, const std::map<std::string, std::int64_t>& sizes, bool overlapping = false);

}  // namespace liftc::explore::detail
