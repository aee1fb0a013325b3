#pragma once
// Library candidates: CLBlast's routines in the same search as liftc's own kernels. A
// definition is recognised by its structure (after `normal-form`, the shapes of
// rules/library.rules): a 2D convolution becomes `clblast-convgemm` (CLBlast's Convgemm
// between liftc-generated kernels for the layout changes, the bias and the activation), a
// matrix product `clblast-gemm` (CLBlast's Gemm, its direct or indirect kernel). Their
// tuning parameters are CLBlast's own (set through its OverrideParameters), each candidate
// a launch plan whose `library` step liftc-runner calls. Offered only when liftc was built
// with CLBlast (clblast_available).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "liftc/codegen/host_plan.hpp"
#include "liftc/constraints/target.hpp"
#include "liftc/explore/candidates/constraint_space.hpp"
#include "liftc/explore/search/space.hpp"
#include "liftc/interp/interp.hpp"
#include "liftc/codegen/module.hpp"
#include "liftc/rewrite/load.hpp"
#include "liftc/runtime/plan.hpp"

namespace liftc::explore {

/// Whether this liftc (and its liftc-runner) was built with CLBlast.
bool clblast_available();

/// What `liftc space` and `liftc explore` print when CLBlast was not found at build time.
inline constexpr const char* kNoClblastNote =
    "note: clblast- candidates are not offered: CLBlast was not found when liftc was built "
    "(scripts/setup.sh installs libclblast-dev; then configure and build again)";

/// Whether `strategy` names a library candidate (it starts with "clblast-").
bool is_library_strategy(const std::string& strategy);

/// A library candidate generated at a point: its steps as a launch plan (buffers from the
/// problem's inputs), the OpenCL C of its liftc-generated kernels, the module they come
/// from (for limits) and its memory without the library's own workspace.
using LibraryCandidate = Artefacts;

/// The space of one library candidate: CLBlast's tuning parameters (explicit domains and
/// the constraints CLBlast's own tuner puts on them), enumerated, so counts are exact.
class LibraryAlternative : public CandidateAlternative {
 public:
  struct Impl;
  explicit LibraryAlternative(std::unique_ptr<Impl> impl);
  ~LibraryAlternative() override;
  std::string label() const override;
  const std::vector<Parameter>& parameters() const override;
  double count() const override;
  Point sample(std::mt19937_64& rng) override;
  bool valid(const Point& p) const override;
  std::optional<Point> repair(const Point& p) override;
  /// CLBlast's direct kernels (Xconvgemm, XgemmDirect) tile through local memory at every
  /// point: true for them when the target emulates it; the indirect Xgemm only at some points.
  bool local_memory_emulated() const override;
  /// The candidate at `p` with the problem's `inputs`; a liftc::Error when it cannot be made.
  LibraryCandidate generate(const Point& p, const interp::Tensors& inputs, const std::string& build_options) const override;
  /// The candidate at `p` as a host plan (plan.json, a deployed front's point): its steps as
  /// generate makes them, the library call among liftc's kernels, for inputs of the program's shapes.
  codegen::HostPlan host_plan(const Point& p, const std::string& build_options) const override;
  /// A CLBlast point has no host program (the host program runs generated kernels only):
  /// README.txt (describe) and plan.json (host_plan), kept for liftc deploy.
  void write_front_files(const Point& p, const std::string& dir, const std::string& program_name,
                         const std::string& build_options) const override;
  /// What explore -o writes for the point (front/RANK/README.txt): the routine, its sizes and
  /// every parameter CLBlast is given, and why there is no host program.
  std::string describe(const Point& p) const;
  /// One line (and a newline) saying which routine computes what, with the sizes read from the program.
  std::string summary() const;
  /// The constraints on the parameters, one line each (CLBlast's tuner's, the target's limits).
  std::vector<std::string> constraint_lines() const;

 private:
  std::unique_ptr<Impl> impl_;
};

/// The library alternatives of `program` on `target`: with `strategies` given, those of
/// them that start with "clblast-" (one that does not apply is a liftc::Error naming why);
/// otherwise every one that applies. Nothing without CLBlast (clblast_available).
std::vector<std::unique_ptr<LibraryAlternative>> library_alternatives(const ir::Program& program, const rewrite::RuleSet& rules,
                                                               const std::vector<std::string>& strategies,
                                                               bool strategies_given, const constraints::Target& target);

/// The library strategies, in order: clblast-convgemm, clblast-gemm.
inline constexpr const char* kLibraryStrategies[] = {"clblast-convgemm", "clblast-gemm"};

/// The alternative's number (the label after " #"; 1 for a label without one).
std::int64_t alternative_number(const Alternative& alt);

}  // namespace liftc::explore
