// Every examples/**/*.sr program parses and type-checks, symbolically and with its sizes
// bound to their declared values.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "liftc/ir/program.hpp"
#include "liftc/parse/parse.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace {

namespace fs = std::filesystem;
using namespace liftc;

std::vector<std::string> example_files() {
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(LIFTC_EXAMPLES_DIR))
    if (entry.is_regular_file() && entry.path().extension() == ".sr") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(Examples, ThereAreSome) { EXPECT_GE(example_files().size(), 10u); }

TEST(Examples, EveryExampleTypeChecks) {
  for (const auto& path : example_files()) {
    SCOPED_TRACE(path);
    try {
      ir::Program p = parse::load_program(path);
      typecheck::Checked symbolic = typecheck::typecheck(p);
      ASSERT_FALSE(symbolic.program.defs.empty());
      for (const auto& d : symbolic.program.defs) EXPECT_TRUE(d.body.type().defined()) << d.name;
      bool all_valued = std::all_of(p.sizes.begin(), p.sizes.end(), [](const ir::SizeDecl& s) { return s.value; });
      if (all_valued) {
        typecheck::Checked bound = typecheck::typecheck(ir::bind_sizes(p, {}));
        EXPECT_TRUE(bound.obligations.empty()) << "every length is a constant once the sizes are bound";
      }
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
    }
  }
}

}  // namespace
