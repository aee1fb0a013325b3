// A candidate generated once for its features and its evaluation (evaluation/generation_memo.hpp):
// the bundles written and the features computed are byte for byte those without the memo,
// whichever of the two asks first, on a small convolution on the device (PoCL here); and
// the memo keeps at most its capacity and drops a generation once both users had it.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "liftc/constraints/target.hpp"
#include "liftc/explore/candidates/constraint_space.hpp"
#include "liftc/explore/cost/features.hpp"
#include "liftc/explore/evaluation/evaluate.hpp"
#include "liftc/explore/evaluation/generation_memo.hpp"
#include "liftc/explore/store/sqlite_store.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/rewrite/load.hpp"
#include "test_folder.hpp"

namespace liftc::explore {
namespace {

namespace fs = std::filesystem;

std::string source(const std::string& path) { return std::string(LIFTC_SOURCE_DIR) + "/" + path; }

const rewrite::RuleSet& rules() {
  static const rewrite::RuleSet r = rewrite::load_rules_dir(source("rules"));
  return r;
}

// Every file of a bundle folder by its path in it: its bytes, or where a link points.
using Files = std::map<std::string, std::string>;

Files files_of(const fs::path& dir) {
  Files out;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    std::string name = fs::relative(entry.path(), dir).string();
    if (entry.is_symlink()) {
      out[name] = "-> " + fs::read_symlink(entry.path()).string();
    } else if (entry.is_regular_file()) {
      std::ifstream in(entry.path(), std::ios::binary);
      std::ostringstream s;
      s << in.rdbuf();
      out[name] = s.str();
    }
  }
  return out;
}

// What one candidate gave: its bundle (none when it was refused before running) and its
// features (or the error that stopped them).
struct Made {
  Files bundle;
  std::vector<std::string> names;
  std::vector<float> values;
  std::string error;
};

enum class Order { WithoutMemo, FeaturesFirst, EvaluatorFirst };

class GenerationMemoOnDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("LIFTC_RUNNER", LIFTC_RUNNER_PATH, 1);
    dir_ = test::fresh_test_folder("liftc_generation_memo");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Each candidate's bundle and features, in `order`: without a memo, or with one that the
  // features (shortlisted proposals) or the evaluator (random draws, told later) ask first.
  std::vector<Made> make(const std::vector<Candidate>& candidates, Order order, GenerationStats* stats,
                         std::size_t* kept) {
    fs::remove_all(dir_ / "work");
    fs::remove(dir_ / "results.db");
    fs::create_directories(dir_ / "work");
    EvaluatorOptions eo = options_;
    eo.work_dir = (dir_ / "work").string();
    std::shared_ptr<GenerationMemo> memo;
    if (order != Order::WithoutMemo) memo = std::make_shared<GenerationMemo>(*space_, eo.build_options, 1000);
    eo.generations = memo;
    std::vector<Made> made(candidates.size());
    std::size_t at = 0;
    eo.bundle_hook = [&](const std::string& bundle, std::size_t) { made[at].bundle = files_of(bundle); };
    SqliteStore store((dir_ / "results.db").string());
    std::int64_t run = store.begin_run(problem_->file, "{}");
    Evaluator evaluator(*problem_, *space_, store, run, device_, eo);
    cost::FeatureContext ctx = cost::feature_context(*space_, rules(), device_.target());
    ctx.generations = memo;
    auto features = [&] {
      try {
        cost::FeatureVector f = cost::candidate_features(candidates[at], ctx);
        made[at].names = f.names;
        made[at].values = f.values;
      } catch (const Error& e) {
        made[at].error = e.message();
      }
    };
    // All of one user's asks, then all of the other's: many generations kept at once.
    auto each = [&](const std::function<void()>& ask) {
      for (at = 0; at < candidates.size(); ++at) ask();
    };
    auto start = [&] { evaluator.start(candidates[at]); };  // the bundle only: nothing runs
    if (order == Order::FeaturesFirst) each(features);
    each(start);
    if (order != Order::FeaturesFirst) each(features);
    if (memo) *stats = memo->stats(), *kept = memo->kept();
    return made;
  }

  fs::path dir_;
  EvaluatorOptions options_;
  DeviceReport device_;
  std::unique_ptr<CandidateSpace> space_;
  std::unique_ptr<Problem> problem_;
};

TEST_F(GenerationMemoOnDevice, BundlesAndFeaturesAreThoseWithoutItWhicheverAsksFirst) {
  const std::string file = source("examples/conv/conv_small.sr");
  options_.work_dir = dir_.string();  // the probe's bundle goes there
  device_ = probe_device(options_);
  ir::Program program = parse::load_program(file);
  // The strategies of `-s @fast`, two points of each alternative.
  space_ = std::make_unique<CandidateSpace>(build_candidate_space(
      program, rules(), rewrite::expand_strategy_tags(rules(), {"@fast"}), true, device_.target()));
  SqliteStore reference_store((dir_ / "reference.db").string());
  problem_ = std::make_unique<Problem>(load_problem(file, 0, reference_store));
  std::mt19937_64 rng(7);
  std::vector<Candidate> candidates;
  std::size_t generated = 0;  // candidates of liftc's own kernels (a library call is not kept)
  for (std::size_t a = 0; a < space_->alternatives.size(); ++a)
    for (int i = 0; i < 2; ++i) {
      candidates.push_back({a, space_->alternatives[a]->sample(rng)});
      generated += candidate_of(*space_->alternatives[a]).constraint_space() != nullptr;
    }
  ASSERT_GE(generated, 20u);

  GenerationStats unused;
  std::size_t none = 0;
  std::vector<Made> without = make(candidates, Order::WithoutMemo, &unused, &none);
  std::size_t bundles = 0;
  for (const Made& m : without) bundles += !m.bundle.empty();
  EXPECT_GE(bundles, generated / 2);  // most were written (some refused, some with an earlier one's kernels)

  for (Order order : {Order::FeaturesFirst, Order::EvaluatorFirst}) {
    SCOPED_TRACE(order == Order::FeaturesFirst ? "features first" : "evaluator first");
    GenerationStats stats;
    std::size_t kept = 0;
    std::vector<Made> with = make(candidates, order, &stats, &kept);
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      SCOPED_TRACE(fmt::format("{} ({})", space_->alternatives[candidates[i].alternative]->label(),
                               format_point(*space_->alternatives[candidates[i].alternative], candidates[i].point)));
      EXPECT_EQ(with[i].bundle, without[i].bundle);
      EXPECT_EQ(with[i].names, without[i].names);
      EXPECT_EQ(with[i].values, without[i].values);
      EXPECT_EQ(with[i].error, without[i].error);
    }
    // Each candidate of liftc's kernels generated once, by the first to ask, used by both,
    // and then dropped.
    std::size_t first = order == Order::FeaturesFirst ? 0 : 1;
    EXPECT_EQ(stats.generated[first], generated);
    EXPECT_EQ(stats.generated[1 - first], 0u);
    EXPECT_EQ(stats.reused[1 - first], generated);
    EXPECT_EQ(stats.reused[first], 0u);
    EXPECT_EQ(stats.evicted, 0u);
    EXPECT_EQ(kept, 0u);
  }
}

// Capacity 2, one user at a time: the oldest goes when a third is kept, and one that both
// users had goes at once. No device: the space is for a target profile.
TEST(GenerationMemo, KeepsAtMostItsCapacityAndDropsWhatBothUsersHad) {
  ir::Program program = parse::load_program(source("examples/matmul.sr"));
  constraints::Target target = constraints::load_target_file(source("rules/targets/mali-g72.target"));
  CandidateSpace space = build_candidate_space(program, rules(), {"lower-glb2"}, true, target);
  ASSERT_FALSE(space.alternatives.empty());
  std::mt19937_64 rng(3);
  std::vector<Candidate> c;
  while (c.size() < 3) {
    Candidate next{0, space.alternatives[0]->sample(rng)};
    if (std::find(c.begin(), c.end(), next) == c.end()) c.push_back(next);
  }
  using User = GenerationMemo::User;
  GenerationMemo memo(space, "", 2);
  auto first = memo.generated(c[0], User::Features);
  EXPECT_EQ(first->module.source(), generate_candidate(constraint_alternative(*space.alternatives[0]), c[0].point, "").module.source());
  memo.generated(c[1], User::Features);
  EXPECT_EQ(memo.kept(), 2u);
  memo.generated(c[2], User::Evaluator);  // c[0] is the oldest: dropped
  EXPECT_EQ(memo.kept(), 2u);
  EXPECT_EQ(memo.stats().evicted, 1u);
  memo.generated(c[1], User::Evaluator);  // both had c[1]: dropped
  EXPECT_EQ(memo.kept(), 1u);
  EXPECT_EQ(memo.stats().reused[1], 1u);
  auto again = memo.generated(c[0], User::Evaluator);  // dropped before: made again, the same kernels
  EXPECT_EQ(again->module.source(), first->module.source());
  EXPECT_EQ(again->memory_bytes, first->memory_bytes);
  GenerationStats s = memo.stats();
  EXPECT_EQ(s.generated[0], 2u);  // by the features
  EXPECT_EQ(s.generated[1], 2u);  // by the evaluator
  EXPECT_EQ(s.most_kept, 2u);
  EXPECT_EQ(memo.kept(), 2u);
}

}  // namespace
}  // namespace liftc::explore
