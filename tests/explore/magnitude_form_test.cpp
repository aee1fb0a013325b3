// The program on which explore interprets the magnitude of a computation through constant
// arrays (magnitude_form.hpp): Winograd's form before its strategy tiles it.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "liftc/constraints/target.hpp"
#include "liftc/explore/candidates/constraint_space.hpp"
#include "liftc/explore/candidates/magnitude_form.hpp"
#include "liftc/interp/interp.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/rewrite/load.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace liftc::explore {
namespace {

// VGG's layer 2 program at 8 channels and a 12x12 image: F(2x2) and F(4x4) both tile it.
ir::Program small_convolution() {
  std::ifstream file(std::string(LIFTC_SOURCE_DIR) + "/examples/vgg16/conv2.sr");
  std::stringstream text;
  text << file.rdbuf();
  std::string small = std::regex_replace(text.str(), std::regex("size C = [^\n]*"), "size C = 8, H = 12, W = 12, M = 8, K = 3");
  return parse::parse_program(std::make_shared<const SourceFile>(SourceFile{"conv2.sr", small}));
}

TEST(MagnitudeForm, IsEachWinogradAlternativesArraysBeforeTheTilesWithoutTuningParameters) {
  rewrite::RuleSet rules = rewrite::load_rules_dir(std::string(LIFTC_SOURCE_DIR) + "/rules");
  ir::Program program = small_convolution();
  for (const char* strategy : {"conv-winograd-local", "conv-winograd-gemm"}) {
    std::map<std::string, ir::Program> forms = magnitude_forms(rules, strategy, program);
    std::set<std::string> arrays;
    for (const auto& alternative : rewrite::rewrite_program(rules, strategy, program).programs)
      arrays.insert(constant_arrays_of(alternative.program));
    ASSERT_EQ(arrays.size(), 2u) << strategy;  // F(2x2) and F(4x4)
    ASSERT_EQ(forms.size(), 2u) << strategy;
    for (const auto& [constants, form] : forms) EXPECT_TRUE(arrays.count(constants)) << strategy;
  }
  // A strategy without constant arrays has no form.
  EXPECT_TRUE(magnitude_forms(rules, "conv-chw-tile", program).empty());
}

TEST(MagnitudeForm, ComputesTheMagnitudeOfTheTiledAlternativesItStandsFor) {
  rewrite::RuleSet rules = rewrite::load_rules_dir(std::string(LIFTC_SOURCE_DIR) + "/rules");
  ir::Program program = small_convolution();
  constraints::Target target = constraints::load_target_file(std::string(LIFTC_SOURCE_DIR) + "/rules/targets/mali-g72.target");
  CandidateSpace space = build_candidate_space(program, rules, {"conv-winograd-local"}, true, target);
  interp::Tensors inputs = interp::random_inputs(typecheck::typecheck(ir::bind_sizes(program, {})).program, 3);
  std::mt19937_64 rng(7);
  ASSERT_FALSE(space.alternatives.empty());
  auto largest = [&](const ir::Program& checked) {
    double most = 0;
    for (const auto& [name, t] : interp::evaluate_magnitude(checked, inputs))
      for (float v : t.f32) most = std::max(most, static_cast<double>(v));
    return most;
  };
  for (auto& alternative : space.alternatives) {
    const ConstraintAlternative& alt = constraint_alternative(*alternative);
    const ir::Program* form = alt.magnitude_form();
    ASSERT_NE(form, nullptr) << alt.label();
    auto sizes = constraints::size_values(alt.space(), alternative->sample(rng));
    double tiled = largest(typecheck::typecheck(ir::bind_sizes(alt.space().program, sizes)).program);
    EXPECT_GT(tiled, 0) << alt.label();
    EXPECT_NEAR(largest(typecheck::typecheck(ir::bind_sizes(*form, {})).program), tiled, 1e-5 * tiled) << alt.label();
  }
}

}  // namespace
}  // namespace liftc::explore
