// The rule tests of tests/rules/*.sr, one test a file (tests/rules/README.md): each RUN line
// rewrites a program with a rule or strategy of rules/, the printed rewrite must pass the
// file's check lines, and every alternative must compute what the original does on random
// sizes, tuning parameters and data (check_equivalence, tests/rewrite/harness.hpp).
// Coverage: every rule and every named strategy of rules/ has a file that runs it.

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "harness.hpp"
#include "liftc/ir/printer.hpp"
#include "liftc/parse/parse.hpp"
#include "rule_test_file.hpp"

namespace liftc::rewrite::test {
namespace {

namespace fs = std::filesystem;

const fs::path kSourceDir = LIFTC_SOURCE_DIR;
const fs::path kTestsDir = kSourceDir / "tests" / "rules";

// The file names of tests/rules/*.sr, sorted.
std::vector<std::string> rule_test_names() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(kTestsDir))
    if (e.path().extension() == ".sr") out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// tests/rules/`name`, parsed; its path in messages is relative to the source tree.
RuleTestFile load_rule_test(const std::string& name) {
  return parse_rule_test("tests/rules/" + name, read_text(kTestsDir / name));
}

// What the check lines are matched against: `rw` printed as `liftc rewrite --all` prints
// it (a header, the definitions left alone, then each alternative with its tuning
// parameters), except that the alternative line comes for one alternative too.
std::string print_rewrite(const ProgramRewrite& rw, const std::string& strategy) {
  std::string out = fmt::format("// rewrite --strategy '{}': {} rule applications, stopped at {}\n", strategy, rw.steps,
                                to_string(rw.stop));
  for (const auto& d : rw.unchanged) out += fmt::format("// the strategy does not apply to definition {}\n", d);
  for (const auto& d : rw.fallen_back) out += fmt::format("// definition {}: rewritten by the fallback only\n", d);
  for (std::size_t i = 0; i < rw.programs.size(); ++i) {
    out += fmt::format("\n// ---- alternative {} of {}\n", i + 1, rw.programs.size());
    for (const auto& t : rw.programs[i].params) out += fmt::format("// tuning parameter {}\n", to_string(t));
    out += ir::to_string(rw.programs[i].program);
  }
  return out;
}

// With LIFTC_RULE_TEST_OUTPUT=DIR set, each run's printed rewrite is written to
// DIR/NAME.LINE.out (NAME the test file, LINE its RUN line): the text to write check lines against.
void save_output(const std::string& name, int line, const std::string& output) {
  const char* dir = std::getenv("LIFTC_RULE_TEST_OUTPUT");
  if (!dir || !*dir) return;
  std::ofstream(fs::path(dir) / fmt::format("{}.{}.out", name, line)) << output;
}

// The rule or strategy a run names exists in rules/: a misspelt name is the test's error,
// not a strategy that fails to parse.
std::string unknown_name(const RunLine& run) {
  if (run.by_rule && !library().rule(run.covers)) return fmt::format("--rule {}: no rule of that name in rules/", run.covers);
  if (!run.by_rule && !run.covers.empty() && !library().rule(run.covers) && !library().strategy(run.covers))
    return fmt::format("--strategy {}: no rule or strategy of that name in rules/", run.covers);
  return {};
}

// One RUN line of `file` (tests/rules/`name`): rewrite, check lines, equivalence.
void check_run(const std::string& name, const RuleTestFile& file, const RunLine& run) {
  SCOPED_TRACE(fmt::format("{}:{}: rewrite --strategy '{}'", file.path, run.line, run.strategy));
  if (std::string e = unknown_name(run); !e.empty()) {
    ADD_FAILURE() << e;
    return;
  }
  ir::Program p;
  ProgramRewrite rw;
  try {
    p = parse::load_program((run.input.empty() ? kTestsDir / name : kSourceDir / run.input).string());
    rw = rewrite_for_equivalence(p, run.strategy);
  } catch (const Error& e) {
    ADD_FAILURE() << e.what();
    return;
  }
  std::string output = print_rewrite(rw, run.strategy);
  save_output(name, run.line, output);
  std::string mismatch = file_check(file, run.prefix, output);
  EXPECT_TRUE(mismatch.empty()) << mismatch << "\nthe rewrite printed:\n" << output;
  Equivalence e = check_equivalence(p, rw, run.trials, run.seed.value_or(seed_of(run.strategy)), run.params);
  EXPECT_TRUE(e.failure.empty()) << e.failure;
  EXPECT_GE(e.instances, 1);
  if (!run.allow_infeasible) {
    EXPECT_EQ(e.infeasible, 0) << e.infeasible << " of " << e.alternatives
                               << " alternatives have no instance in the searched ranges (--allow-infeasible permits it)";
  }
}

class RuleText : public ::testing::TestWithParam<std::string> {};

TEST_P(RuleText, RewritesAsItsLinesSay) {
  RuleTestFile file;
  try {
    file = load_rule_test(GetParam());
  } catch (const Error& e) {
    FAIL() << e.what();
  }
  for (const RunLine& run : file.runs) check_run(GetParam(), file, run);
}

// "split-join.sr" gives "split_join"; GoogleTest allows letters, digits and _ only.
std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = fs::path(info.param).stem().string();
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Rules, RuleText, ::testing::ValuesIn(rule_test_names()), test_name);

// --params: the names given take only their value in every instance; a name that is no
// size without a value and no tuning parameter is the check's failure.
TEST(RuleTextParams, PinSizesAndTuningParameters) {
  ir::Program p = program("size N\ninput x : [float]N\ndef out = map(a -> a * 2.0, x)");
  ProgramRewrite rw = rewrite_for_equivalence(p, "topdown(split-join)");
  std::mt19937_64 rng(1);
  std::vector<Instance> found = instances(p, rw.programs.at(0), 3, rng, {{"N", 12}, {"n_N", 4}});
  ASSERT_EQ(found.size(), 3u);
  for (const auto& inst : found) EXPECT_EQ(params_text(inst), "N=12,n_N=4");
  EXPECT_TRUE(instances(p, rw.programs.at(0), 3, rng, {{"N", 12}, {"n_N", 5}}).empty());  // 5 does not divide 12
  EXPECT_EQ(check_equivalence(p, rw, 2, 1, {{"M", 3}}).failure,
            "M is neither a size of the program without a value nor a tuning parameter of the rewrite");
}

// Rules and strategies of rules/ that no text test runs, by name, each with the reason it
// cannot be tested by a file. Empty: every one is.
const std::map<std::string, std::string> kUntested = {};

TEST(RuleCoverage, EveryRuleAndStrategyHasATextTest) {
  std::set<std::string> covered;
  for (const auto& name : rule_test_names()) {
    try {
      for (const auto& run : load_rule_test(name).runs) covered.insert(run.covers);
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
    }
  }
  for (const auto& r : library().rules)
    EXPECT_TRUE(covered.count(r.name) || kUntested.count(r.name))
        << "rule " << r.name << " has no test: add tests/rules/" << r.name << ".sr with `// RUN: rewrite --rule " << r.name << "`";
  for (const auto& s : library().strategies)
    EXPECT_TRUE(covered.count(s.name) || kUntested.count(s.name))
        << "strategy " << s.name << " has no test: add tests/rules/" << s.name << ".sr with `// RUN: rewrite --strategy "
        << s.name << "`";
  for (const auto& [name, reason] : kUntested)
    EXPECT_TRUE(library().rule(name) || library().strategy(name)) << name << " is allowed untested but is not in rules/";
}

}  // namespace
}  // namespace liftc::rewrite::test
