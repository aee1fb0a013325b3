#pragma once
// Test helpers: load the rule library, parse small programs, and check that a rewritten
// program computes what the original does on random sizes and data.

#include <ostream>
#include <cstdint>
#include <map>
#include <random>
#include <vector>
#include <string>

#include "liftc/rewrite/engine.hpp"

namespace liftc::rewrite::test {

/// The rule library of the source tree, loaded once.
const RuleSet& library();

/// A rule set of one rule file's text (named t.rules in messages).
RuleSet rules_of(const std::string& text);

/// Parses .sr text (with the prelude).
ir::Program program(const std::string& text);

/// The text of examples/<name>.
std::string example(const std::string& name);

/// A named strategy of rules/ and an example it is written for (parameterized tests).
struct StrategyCase {
  const char* strategy;
  const char* example;
};
/// How GoogleTest prints a case (in ctest's test names too): "conv-chw on conv/conv_small.sr".
inline void PrintTo(const StrategyCase& c, std::ostream* os) { *os << c.strategy << " on " << c.example; }

/// A test name for `c`: "conv_local_conv_conv_small_sr".
std::string case_name(const StrategyCase& c);

/// One instance of a rewritten program: values for the original's symbolic sizes and the
/// tuning parameters, and both programs bound to them and type checked.
struct Instance {
  std::map<std::string, long long> values;
  ir::Program original, rewritten;
};

/// Values fixed for some sizes and tuning parameters of an equivalence check, by name.
using Pinned = std::map<std::string, long long>;

/// Up to `count` random instances of `alt` (a rewrite of `p`): sizes and tuning parameters
/// chosen at random from their ranges (a name of `pinned` takes only its value there),
/// backtracking until the obligations of both programs' types hold. Empty when none exists
/// in the searched ranges.
std::vector<Instance> instances(const ir::Program& p, const RewrittenProgram& alt, int count, std::mt19937_64& rng,
                                const Pinned& pinned = {});

/// "n_1=3,u_1=5" (the form --params takes).
std::string params_text(const Instance& inst);

/// Outcome of an equivalence check.
struct Equivalence {
  int alternatives = 0;  // rewritten programs checked
  int instances = 0;     // (sizes, data) instances interpreted
  int infeasible = 0;    // alternatives no sizes in the searched ranges satisfy (e.g. asVector(8) of 36 floats)
  std::string failure;   // empty when every instance agreed
};

/// How closely a rewrite must agree, for check_equivalence, decided by the rewritten program,
/// not by the rule's name. Every rewrite may reassociate sums: outputs agree within
/// 1e-4 * (1 + |before|). A program that computes through constant arrays (the Winograd
/// transforms of rules/winograd.rules, and any rule applied to their result) has
/// intermediate sums much larger than the result: its rounding error is bounded by
/// u * n * P (the standard running-error bound: u = 2^-24, n the additions on a product's
/// path), P the same computation on absolute values, i.e. the rewritten program interpreted
/// on |inputs| with every constant array's entries made |entries|
/// (interp::evaluate_magnitude; its only arithmetic is + and *). Such a program's outputs
/// also may differ by interp::magnitude_tolerance * P (1e-4, u * n for n ~ 1700): the
/// allowance of reassociation, relative to P. The same test `liftc explore` and the e2e
/// tests make (interp::has_constant_arrays).
/// Rewrites `p` with `strategy`, then for each alternative interprets `trials` random
/// instances (random data) before and after, comparing every output (within the agreement
/// above).
Equivalence check_equivalence(const ir::Program& p, const std::string& strategy, int trials, std::uint64_t seed);

/// The rewrite check_equivalence checks: `strategy` on `p`, at most 64 alternatives.
ProgramRewrite rewrite_for_equivalence(const ir::Program& p, const std::string& strategy);

/// check_equivalence of a rewrite already made (`rw`, of `p`); the names of `pinned` take
/// only their value (instances). A name of `pinned` that is neither a size of `p` nor a
/// tuning parameter of any alternative is a failure.
Equivalence check_equivalence(const ir::Program& p, const ProgramRewrite& rw, int trials, std::uint64_t seed,
                              const Pinned& pinned = {});

}  // namespace liftc::rewrite::test
