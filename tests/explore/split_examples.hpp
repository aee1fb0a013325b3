#pragma once
// Shared by the tests of a definition split (residual_test.cpp, pool_split_test.cpp,
// groups_test.cpp): the rules, an example program, and which examples a split takes.

#include <filesystem>
#include <functional>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "liftc/ir/program.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/rewrite/load.hpp"
#include "liftc/support/diagnostic.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace liftc::explore::test {

/// The repository's rules, loaded once.
inline const rewrite::RuleSet& rules() {
  static const rewrite::RuleSet r = rewrite::load_rules_dir(std::string(LIFTC_SOURCE_DIR) + "/rules");
  return r;
}

/// The example at `path` under examples/, parsed.
inline ir::Program example(const std::string& path) {
  return parse::load_program(std::string(LIFTC_SOURCE_DIR) + "/examples/" + path);
}

/// The examples (paths under examples/) a split takes, without the rules and with them.
struct ExamplesSplit {
  std::set<std::string> as_written, with_rules;
  int programs = 0;  // the examples asked (those with every size given a value)
};

/// Asks `splits(program, rules)` (whether the split takes a definition of it; `rules` null:
/// as written only) of every example whose sizes all have values; an error from it fails.
inline ExamplesSplit examples_split(const std::function<bool(const ir::Program&, const rewrite::RuleSet*)>& splits) {
  const std::filesystem::path root = std::filesystem::path(LIFTC_SOURCE_DIR) / "examples";
  ExamplesSplit out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.path().extension() != ".sr") continue;
    std::string file = entry.path().lexically_relative(root).generic_string();
    SCOPED_TRACE(file);
    ir::Program program = example(file);
    try {
      typecheck::typecheck(ir::bind_sizes(program, {}));
    } catch (const Error&) {
      continue;  // a program with sizes left to tune (explore needs their values)
    }
    if (splits(program, nullptr)) out.as_written.insert(file);
    if (splits(program, &rules())) out.with_rules.insert(file);
    ++out.programs;
  }
  return out;
}

}  // namespace liftc::explore::test
