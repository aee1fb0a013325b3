#pragma once
// Test helpers: load the rule library, parse small programs, and check that a rewritten
// program computes what the original does on random sizes and data.

#include <cstdint>
#include <string>

#include "liftc/rewrite/engine.hpp"

namespace liftc::rewrite::test {

/// The rule library of the source tree, loaded once.
const RuleSet& library();

/// Parses .sr text (with the prelude).
ir::Program program(const std::string& text);

/// Outcome of an equivalence check.
struct Equivalence {
  int alternatives = 0;  // rewritten programs checked
  int instances = 0;     // (sizes, data) instances interpreted
  int infeasible = 0;    // alternatives no sizes in the searched ranges satisfy (e.g. asVector(8) of 36 floats)
  std::string failure;   // empty when every instance agreed
};

/// Rewrites `p` with `strategy`, then for each alternative interprets `trials` random
/// instances (sizes and tuning parameters chosen at random, backtracking until the
/// obligations of both programs' types hold,
/// random data) before and after, comparing every output.
Equivalence check_equivalence(const ir::Program& p, const std::string& strategy, int trials, std::uint64_t seed);

}  // namespace liftc::rewrite::test
