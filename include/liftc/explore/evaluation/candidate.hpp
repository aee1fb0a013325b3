#pragma once
// What evaluation and the products need of an alternative beyond its parameter space: its
// artefacts at a point. Every kind of alternative (liftc's own kernels from the constraints
// stage, a library call) implements CandidateAlternative, so the evaluator, `-o`, deploy
// and `liftc space` ask it, never which kind it is. The search sees only Alternative
// (search/space.hpp), which does not depend on code generation.

#include <cstdint>
#include <optional>
#include <string>

#include "liftc/codegen/host_plan.hpp"
#include "liftc/codegen/module.hpp"
#include "liftc/explore/search/space.hpp"
#include "liftc/interp/interp.hpp"
#include "liftc/runtime/plan.hpp"

namespace liftc::explore {

class ConstraintAlternative;

/// A generated candidate, before it runs (generate_candidate, evaluate.hpp): what explore -o
/// writes for a front point, and what its features and artefacts are made from.
struct Generated {
  codegen::Module module;
  std::int64_t memory_bytes = 0;
};

/// A candidate generated at a point, ready to bundle: its steps as a launch plan (buffers
/// from the problem's inputs), the OpenCL C of its liftc-generated kernels, the module they
/// come from (for the device's limits) and its memory (without a library's own workspace).
struct Artefacts {
  runtime::LaunchPlan plan;
  std::string kernels;
  std::optional<codegen::Module> module;  // the generated kernels; none for a bare library call
  std::int64_t memory_bytes = 0;
};

/// An alternative that can generate its artefacts.
class CandidateAlternative : public Alternative {
 public:
  const CandidateAlternative* as_candidate() const final { return this; }
  /// The candidate at `p` with the problem's `inputs`, built with `build_options` besides the
  /// point's own; a liftc::Error when it cannot be made (the code generator refuses it).
  virtual Artefacts generate(const Point& p, const interp::Tensors& inputs, const std::string& build_options) const = 0;
  /// The candidate at `p` as a host plan (plan.json, a deployed front's point), for inputs of
  /// the program's shapes.
  virtual codegen::HostPlan host_plan(const Point& p, const std::string& build_options) const = 0;
  /// Writes what `explore -o` keeps of the point in `dir` (front/RANK/): a host project, or
  /// the plan and a description where no host program runs it. Each file whole or an error.
  virtual void write_front_files(const Point& p, const std::string& dir, const std::string& program_name,
                                 const std::string& build_options) const = 0;
  /// The constraints-stage space behind it, when its kernels are all liftc's own (null for
  /// a library call): what magnitude tolerances, networks and deploy read.
  virtual const ConstraintAlternative* constraint_space() const { return nullptr; }
};

/// The candidate interface of `alt`, an alternative of a space that explore built (its
/// alternatives are all CandidateAlternatives; a test's toy space is not).
const CandidateAlternative& candidate_of(const Alternative& alt);

}  // namespace liftc::explore
