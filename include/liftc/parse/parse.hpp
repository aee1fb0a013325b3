#pragma once
// The .sr front end: text -> AST (Boost.Spirit X3) -> elaborated IR program.
//
// Elaboration resolves names, expands function definitions (the prelude's and the
// program's own) at their uses, turns partial applications of primitives into lambdas
// (`map(f)` is `y -> map(f, y)`), and turns size arguments into arith expressions.
// It reports every problem as liftc::Error with file:line:col.

#include <cstdint>
#include <memory>
#include <string>

#include "liftc/ir/expr.hpp"

namespace liftc::parse {

/// How a program is read.
struct ParseOptions {
  bool with_prelude = true;  // make dsl/prelude.sr's definitions available
};

/// The largest program file load_program reads (64 MiB; 30,000 definitions take about 1 MiB).
inline constexpr std::uint64_t kMaxProgramBytes = 64ull << 20;

// Limits on elaboration, so no program can exhaust the stack or the memory (a
// higher-order definition can recurse through its arguments). The rewriter's budgets
// default to them, so what it prints reads back.

/// The deepest nesting of function expansions.
inline constexpr int kMaxElaborationDepth = 1000;
/// The most IR nodes one program elaborates to.
inline constexpr long kMaxNodes = 200'000;
/// The most elaboration steps (calls to elab) for one program: call by name re-elaborates
/// an argument at each use of its parameter, so work can outgrow the IR.
inline constexpr long kMaxSteps = 2'000'000;
/// The deepest IR the elaborator builds, so later recursive passes cannot overflow.
inline constexpr int kMaxIrDepth = 3000;

/// Reads `path` and elaborates it; a missing or unreadable file, one that is not a regular
/// file (a directory, a device) or one larger than kMaxProgramBytes is a liftc::Error.
ir::Program load_program(const std::string& path, const ParseOptions& options = {});

/// Parses and elaborates source text.
ir::Program parse_program(std::shared_ptr<const SourceFile> source, const ParseOptions& options = {});

/// The text of dsl/prelude.sr, embedded in the binary at build time.
const std::string& prelude_text();

}  // namespace liftc::parse
