#pragma once
// The tuning-parameter space of one rewritten program (a strategy's alternative) on one
// target: its parameters with their domains, every constraint with where it came from,
// and the parameters' dependency order (Boost.Graph, the paper's section 5.3).
//
// An assignment gives every parameter a value (`Assignment`, in the order of Space::params). Sizes of
// the program are substituted by their declared values, so constraints only mention
// parameters. Arithmetic is exact: Z3 integers, and int64 with overflow checks in C++.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "liftc/arith/expr.hpp"
#include "liftc/codegen/module.hpp"
#include "liftc/constraints/target.hpp"
#include "liftc/ir/expr.hpp"
#include "liftc/rewrite/rule.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::constraints {

/// Where a parameter or constraint comes from.
enum class Source {
  Type,     // an obligation of the type checker (split/asVector divisibility, strict slides)
  Rule,     // a rule's declared range or value set
  Target,   // a hardware limit of the target
  Codegen,  // a code-generation choice (work-group size, unrolling, mad)
};

/// "type", "rule", "target", "codegen".
const char* to_string(Source s);

/// A tuning parameter.
struct Param {
  std::string name;                   // a size of the program (`n_M`), or `local_0`, `unroll`
  Source source = Source::Rule;       // Rule: introduced by a rule; Codegen: a code-generation choice
  std::string origin;                 // "split-join (n)", "work-group size of mapGlb kernels, dimension 0"
  std::string declared;               // the declared domain as written: "2..64", "{2, 4, 8, 16}"
  std::vector<std::int64_t> domain;   // the values left after one-variable constraints, ascending
                                      // (at most kMaxDomainValues: a wider one is an error naming it)
};

/// The most values a parameter's domain may keep after the one-variable constraints, and
/// the most candidates build_space examines to find them (a declared range is never
/// materialized: `x divides C` enumerates the divisors of C instead). Past either, the
/// parameter is a liftc::Error that names it, not unbounded time or memory.
inline constexpr std::size_t kMaxDomainValues = std::size_t{1} << 20;
inline constexpr std::size_t kMaxDomainScan = std::size_t{1} << 24;

/// A constraint over the parameters.
struct Constraint {
  enum class Kind {
    Divides,    // lhs divides rhs (lhs >= 1 and rhs % lhs == 0)
    LessEqual,  // lhs <= rhs
    Member,     // lhs is one of `values`
    Range,      // lo <= lhs <= hi (a declared range, never enumerated)
  };
  Kind kind = Kind::LessEqual;
  arith::Expr lhs, rhs;
  std::vector<std::int64_t> values;  // Member
  Source source = Source::Type;
  std::string why;                   // "split(n_M) of an array of length 256", "max work-group size of mali-g72"
  SourceLoc loc;                     // the primitive that needs it (type obligations)
  std::vector<std::string> vars;     // the parameters it mentions, sorted
  bool implied = false;              // holds everywhere in the box of the domains (not tracked by counting)
  std::int64_t lo = 0, hi = 0;       // Range
};

/// The constraint in the .sr size syntax: `n_M divides 256`, `local_0*local_1 <= 384`.
std::string to_string(const Constraint& c);

/// The parameter space of one alternative on one target.
struct Space {
  std::string strategy;              // the strategy that produced the program
  std::size_t alternative = 1;       // 1-based, as `liftc rewrite --alternative` counts
  std::size_t alternatives = 1;      // how many the strategy gave
  ir::Program program;               // the rewritten program (tuning parameters are sizes without values)
  Target target;
  std::vector<Param> params;         // in dependency order
  std::vector<Constraint> constraints;
  std::vector<std::pair<std::string, std::string>> edges;  // (a, b): b's domain depends on a's value
  /// A kernel of the program allocates local memory and the target emulates local memory
  /// in global memory (Mali): its local tiles buy nothing there, and explore draws the
  /// alternative less often (kEmulatedLocalShare).
  bool local_memory_emulated = false;
  /// The parameters that are a kernel's own work-group size (`conv_part1_local_0`:
  /// codegen::Options::kernel_work_groups), by name: the buffer it computes and the dimension.
  std::map<std::string, std::pair<std::string, std::size_t>> kernel_work_group_params;

  /// The position of parameter `name` in `params`, or -1.
  int index(const std::string& name) const;
};

/// A value for every parameter, in the order of Space::params.
using Assignment = std::vector<std::int64_t>;

/// Builds the space of a rewritten program on a target: collects the constraints of every
/// source, prunes one-variable constraints into the domains, orders the parameters.
Space build_space(const ir::Program& program, const std::vector<rewrite::TuningParam>& params, const Target& target);

/// Why code generation refuses the program of `space`, where it does ("code generation
/// refuses this program: ..."): such a space has no valid point, one constraint that never
/// holds carrying the reason. nullopt for a program code generation accepts.
std::optional<std::string> codegen_refusal(const Space& space);

/// The sizes `liftc run --params` takes for a point (the program's tuning parameters).
std::map<std::string, long long> size_values(const Space& space, const Assignment& p);

/// Code-generation options at a point (work-group size, unrolling, mad) with the target's limits.
codegen::Options codegen_options(const Space& space, const Assignment& p);

/// `--params a=1,b=2 --local 8,4,1 --unroll`, the flags `liftc run` and `compile` take.
std::string format_assignment(const Space& space, const Assignment& p);

/// Whether `c` holds at `p` (exact int64 arithmetic; an overflow counts as a violation).
bool holds(const Space& space, const Constraint& c, const Assignment& p);

/// Indices of the constraints `p` violates (a value outside its domain is reported by the
/// constraint that declared the domain).
std::vector<std::size_t> violated(const Space& space, const Assignment& p);

}  // namespace liftc::constraints
