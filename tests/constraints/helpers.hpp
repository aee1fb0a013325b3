#pragma once
// Test helpers: spaces of the examples' rewritten alternatives, small targets, brute force.

#include <string>
#include <vector>

#include "liftc/constraints/solve.hpp"
#include "liftc/rewrite/engine.hpp"

namespace liftc::constraints::test {

/// The rule library of the source tree, loaded once.
const rewrite::RuleSet& library();

/// A target with small limits (work-groups of `items` per dimension, at most `group` in
/// all), so brute force over its spaces is quick.
Target small_target(std::int64_t items = 8, std::int64_t group = 16, std::int64_t local_bytes = 32768);

/// The spaces of every alternative of `strategy` on the program (text, or examples/<file>).
std::vector<Space> spaces(const ir::Program& program, const std::string& strategy, const Target& target,
                          const rewrite::RuleSet& rules = library());
ir::Program example(const std::string& file);
ir::Program program_text(const std::string& text);

/// The domains brute_force enumerates: the declared ones (Member and Range constraints), or
/// those left after the one-variable constraints (Param::domain), for spaces whose
/// declared ranges multiply past enumeration (the kernels' own work-group sizes: 0..limit
/// each).
enum class Domains { Declared, Pruned };

/// Every valid point, by enumerating the product of the domains and checking every
/// constraint at each (independent of the sampler's tables and order).
std::vector<Assignment> brute_force(const Space& space, Domains over = Domains::Declared);

/// Whether the type checker accepts the program at the point's sizes (bind_sizes + typecheck).
bool type_checker_accepts(const Space& space, const Assignment& p);

}  // namespace liftc::constraints::test
