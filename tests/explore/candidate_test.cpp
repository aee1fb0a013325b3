// The candidate interface (evaluation/candidate.hpp): every alternative of a space explore
// builds generates its artefacts itself, so nothing asks which kind it is.

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "liftc/constraints/target.hpp"
#include "liftc/explore/candidates/constraint_space.hpp"
#include "liftc/explore/candidates/library.hpp"
#include "liftc/explore/evaluation/evaluate.hpp"
#include "liftc/interp/interp.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/rewrite/load.hpp"
#include "liftc/typecheck/typecheck.hpp"
#include "toy_space.hpp"

namespace liftc::explore {
namespace {

TEST(CandidateAlternative, EveryAlternativeOfABuiltSpaceGeneratesItsArtefacts) {
  rewrite::RuleSet rules = rewrite::load_rules_dir(std::string(LIFTC_SOURCE_DIR) + "/rules");
  ir::Program program = parse::load_program(std::string(LIFTC_SOURCE_DIR) + "/examples/matmul.sr");
  constraints::Target target = constraints::load_target_file(std::string(LIFTC_SOURCE_DIR) + "/rules/targets/mali-g72.target");
  CandidateSpace space = build_candidate_space(program, rules, {}, false, target);
  interp::Tensors inputs = interp::random_inputs(typecheck::typecheck(ir::bind_sizes(program, {})).program, 3);
  std::mt19937_64 rng(5);
  ASSERT_FALSE(space.alternatives.empty());
  for (auto& alternative : space.alternatives) {
    SCOPED_TRACE(alternative->label());
    const CandidateAlternative* candidate = alternative->as_candidate();
    ASSERT_NE(candidate, nullptr);
    Point p = alternative->sample(rng);
    Artefacts a = candidate->generate(p, inputs, "");
    EXPECT_FALSE(a.plan.kernels.empty());
    EXPECT_GT(a.memory_bytes, 0);
    EXPECT_EQ(candidate->constraint_space() == nullptr, is_library_strategy(alternative->strategy()));
    if (const ConstraintAlternative* generated = candidate->constraint_space()) {
      // The same code as generate_candidate, which deploy and networks still call.
      Generated g = generate_candidate(*generated, p, "");
      EXPECT_EQ(a.kernels, g.module.source());
      EXPECT_EQ(a.memory_bytes, g.memory_bytes);
      ASSERT_TRUE(a.module.has_value());
    }
  }
}

TEST(CandidateAlternative, AToySpaceIsOnlyASearchSpace) {
  CandidateSpace toy = test::toy_candidates();
  for (const auto& alternative : toy.alternatives) EXPECT_EQ(alternative->as_candidate(), nullptr);
}

}  // namespace
}  // namespace liftc::explore
