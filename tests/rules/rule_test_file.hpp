#pragma once
// A rule test file of tests/rules/: an .sr program with `// RUN:` lines (how to rewrite it
// and check the result by interpretation) and `// CHECK:` lines (what the printed rewrite
// must contain), in the spirit of LLVM's lit and FileCheck. The syntax is in
// tests/rules/README.md.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace liftc::rewrite::test {

/// One `// RUN: rewrite ...` line: a rewrite of a program, checked by interpretation and
/// against the check lines of its prefix.
struct RunLine {
  int line = 0;               // in the test file, 1-based
  std::string input;          // the program's path relative to the source tree; "" (`%s` or none): the test file itself
  std::string strategy;       // the strategy expression applied (`topdown(NAME)` for --rule NAME)
  std::string covers;         // the rule (--rule) or named strategy (--strategy NAME) this line tests; "" for an expression
  bool by_rule = false;       // written --rule NAME (NAME must be a rule)
  int trials = 4;             // random instances interpreted per alternative
  std::optional<std::uint64_t> seed;     // the instances' seed; default: seed_of(strategy)
  bool allow_infeasible = false;         // some alternatives may have no instance in the searched ranges
  std::map<std::string, long long> params;  // sizes and tuning parameters fixed to one value
  std::string prefix = "CHECK";          // the check lines of this run: PREFIX:, PREFIX-NEXT:, PREFIX-NOT:
};

/// One check line: `// CHECK: text` (text occurs after the previous match), `// CHECK-NEXT:
/// text` (on the line after the previous match), `// CHECK-NOT: text` (not between the
/// previous match and the next one, or the end).
struct CheckLine {
  enum class Kind { Plain, Next, Not };
  int line = 0;
  std::string prefix;
  Kind kind = Kind::Plain;
  std::string pattern;  // the text after the colon, without its surrounding blanks
};

/// A parsed rule test file.
struct RuleTestFile {
  std::string path;
  std::vector<RunLine> runs;
  std::vector<CheckLine> checks;
};

/// Parses the RUN and check lines of `text` (the file at `path`). A malformed RUN line, a
/// file without one, an empty check pattern or a prefix named by a RUN line with no check
/// line is a liftc::Error "path:line: message".
RuleTestFile parse_rule_test(const std::string& path, const std::string& text);

/// The default seed of a run: the 64-bit FNV-1a hash of its strategy expression.
std::uint64_t seed_of(const std::string& strategy);

/// Empty when `output` satisfies the check lines of `prefix` in order (CheckLine), else
/// "path:line: message" of the first that fails.
std::string file_check(const RuleTestFile& file, const std::string& prefix, const std::string& output);

}  // namespace liftc::rewrite::test
