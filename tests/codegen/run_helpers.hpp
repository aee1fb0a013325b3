#pragma once
// Test helpers: generate a checked program, run it on the default OpenCL device (PoCL in
// CI) and compare every definition with the reference interpreter.

#include <string>

#include <gtest/gtest.h>

#include "liftc/codegen/module.hpp"
#include "liftc/host/execute.hpp"
#include "liftc/interp/interp.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/runtime/validate.hpp"
#include "liftc/typecheck/typecheck.hpp"

namespace liftc::codegen::testing {

/// The session every test shares (opening one is slow).
inline const runtime::Session& session() {
  static runtime::Session s;
  return s;
}

/// Type checks `p` with bound sizes.
inline ir::Program checked(const ir::Program& p) {
  ir::Program bound = ir::bind_sizes(typecheck::typecheck(p).program, {});
  return typecheck::typecheck(bound).program;
}

/// Generates, runs and compares every definition with the interpreter; returns the module.
inline Module run_and_compare(const ir::Program& program, const Options& options = {}, std::uint64_t seed = 1,
                              double* median_ms = nullptr) {
  ir::Program p = checked(program);
  Module m = generate(p, options);
  interp::Tensors inputs = interp::random_inputs(p, seed);
  interp::Tensors expected = interp::evaluate(p, inputs);
  runtime::RunOptions ro;
  ro.warmup_runs = 0;
  ro.timed_runs = median_ms ? 3 : 1;
  host::Execution ex = host::execute(m, inputs, session(), ro);
  EXPECT_TRUE(ex.run.ok()) << ex.run.failure();
  if (median_ms) *median_ms = ex.run.median_ms;
  for (const auto& [name, want] : expected) {
    auto it = ex.outputs.find(name);
    if (it == ex.outputs.end()) {
      ADD_FAILURE() << "no output for " << name;
      continue;
    }
    EXPECT_EQ(it->second.shape, want.shape) << name;
    runtime::Comparison c = runtime::compare(it->second.f32, want.f32, runtime::Tolerance::for_reduction(1024));
    EXPECT_TRUE(c.ok) << name << ": " << c.str() << "\n" << m.source();
  }
  return m;
}

}  // namespace liftc::codegen::testing
