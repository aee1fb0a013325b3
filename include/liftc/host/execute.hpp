#pragma once
// The host side of a generated Module: its launch plan for the runtime (buffers filled from
// tensors, kernels in order) and a run of it on an OpenCL device, in this process.

#include <string>

#include "liftc/codegen/module.hpp"
#include "liftc/interp/interp.hpp"
#include "liftc/runtime/plan.hpp"
#include "liftc/runtime/run.hpp"
#include "liftc/runtime/session.hpp"

namespace liftc::host {

/// The runtime's launch plan of a module: one buffer per global buffer of the memory plan
/// (inputs filled from `inputs`, outputs read back), the kernels in order and the module's
/// build options. Sizes must be
/// bound; a missing or mis-shaped input is a liftc::Error naming it.
runtime::LaunchPlan launch_plan(const codegen::Module& m, const interp::Tensors& inputs);

/// What running a module gave: every definition's value and the runtime's timings.
struct Execution {
  interp::Tensors outputs;  // one per definition, shaped like the interpreter's
  runtime::RunResult run;   // times (sum of the kernels' events), canary checks
};

/// Checks the module against the device's limits (check_limits), builds its source for
/// the session's device with the module's build options, runs it on `inputs` and reads back
/// every definition. OpenCL failures are liftc::Error (from the runtime).
Execution execute(const codegen::Module& m, const interp::Tensors& inputs, const runtime::Session& session,
                  const runtime::RunOptions& options = {});

}  // namespace liftc::host
