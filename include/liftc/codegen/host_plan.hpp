#pragma once
// A host plan: what a host program needs of generated code, as plain numbers — the global
// buffers (name, element type, role, size, shape), and one or more stages, each an OpenCL
// program (source and build options) with the kernels enqueued from it in order (name,
// NDRange, arguments). One Module is one stage; a network point (a kernel choice per
// layer) is a stage per layer over one buffer table. The standalone host program
// (emit/host_program.hpp) and the deployed front (emit/deploy_project.hpp) are both generated from host plans, and
// `liftc explore -o` keeps each front point's plan as plan.json beside its host program.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "liftc/codegen/module.hpp"
#include "liftc/runtime/plan.hpp"

namespace liftc::codegen {

/// What a host does with a buffer: fills it (input), reads it back (output), or neither.
enum class HostRole { Input, Output, Scratch };
/// "input", "output" or "scratch": a role as plan.json and the generated tables name it.
const char* role_name(HostRole r);

/// One global buffer of a host plan.
struct HostBuffer {
  std::string name;                 // a C identifier; inputs and outputs are NAME.npy files
  bool is_float = true;             // float32, else int32
  bool half = false;                // a float buffer stored as IEEE halves on the device (its .npy files stay float32)
  HostRole role = HostRole::Input;  // input, output or scratch
  std::int64_t elements = 0;        // elements (4 bytes each, 2 when half), 1 .. 2^31 - 1

  /// The bytes of one element on the device.
  std::int64_t element_bytes() const { return half ? 2 : 4; }
  std::vector<std::int64_t> shape;  // inputs and outputs: the tensor shape (its product is `elements`)
};

/// A kernel argument: a buffer of the plan (`buffer` >= 0) or an int value.
struct HostArg {
  int buffer = -1;        // index into HostPlan::buffers, or -1
  std::int32_t value = 0;  // the int when `buffer` is -1
};

/// One kernel launch: the kernel's name in its stage's program, its NDRange, its arguments;
/// or, with `library` set, a library routine's call (CLBlast's: a library candidate's step)
/// whose buffers are its `args`, in the routine's order, and which has no NDRange.
struct HostKernel {
  std::string name;  // the kernel; for a library call its routine ("clblast-gemm")
  int dims = 1;                                 // 1 .. 3
  std::array<std::int64_t, 3> global{1, 1, 1};  // work-items per dimension (unused dimensions 1)
  std::array<std::int64_t, 3> local{0, 0, 0};   // all 0: the OpenCL runtime chooses
  std::vector<HostArg> args;                     // in parameter order
  std::optional<runtime::LibraryCall> library;  // set: this step calls a library routine, not a kernel

  /// Whether the plan fixes the work-group size.
  bool has_local() const { return local[0] != 0; }
};

/// One OpenCL program and the kernels enqueued from it, in order.
struct HostStage {
  std::string source;         // OpenCL C
  std::string build_options;  // the compiler options it is built with
  std::vector<HostKernel> kernels;
};

/// Everything a host needs to run generated code: the buffers and the stages, in order.
struct HostPlan {
  std::vector<HostBuffer> buffers;
  std::vector<HostStage> stages;

  /// Bytes of every buffer (inputs, outputs, scratch): the global memory the plan holds.
  std::int64_t global_bytes() const;
  /// The most bytes of buffers held at once while a step runs, when each buffer is held
  /// from the first step whose arguments name it to the last, as a generated host holds
  /// them (host_support.hpp, run_plan): what its host program prints as `device memory`.
  std::int64_t peak_bytes() const;
  /// The buffers of `role`, in table order.
  std::vector<const HostBuffer*> buffers_of(HostRole role) const;
  /// Whether a step calls a library routine (a host must then be linked with CLBlast).
  bool calls_library() const;
};

/// The host plan of a module whose sizes are bound: its global buffers and one stage.
HostPlan host_plan(const Module& m);

/// The host plan of a runtime launch plan whose kernels come from `source` (one stage): a
/// buffer with host data is an input, one read back an output, the rest scratch; `shapes`
/// gives the tensor shape of every input and output by name. Library steps become library
/// calls of the stage (a stage of library calls only has no source). A liftc::Error when an
/// argument is neither a buffer nor an int, or an input or output has no shape.
HostPlan host_plan(const runtime::LaunchPlan& plan, const std::string& source,
                   const std::map<std::string, std::vector<std::int64_t>>& shapes);

/// The library routines a host plan's step may call: name, size arguments, buffer arguments.
struct HostLibraryRoutine {
  const char* name;
  std::size_t sizes;
  std::size_t buffers;
};
/// Every routine a host plan may call (CLBlast's Sconvgemm and Sgemm), as liftc-runner's.
inline constexpr HostLibraryRoutine kHostLibraryRoutines[] = {{"clblast-convgemm", 13, 3}, {"clblast-gemm", 3, 3}};

/// One plan running `layers` in order (a network's point: a kernel choice per layer): their
/// stages in order over one buffer table, where buffers of the same name are one buffer
/// (they must agree in type and size). A buffer a layer reads that an earlier layer wrote
/// is not an input; what only earlier layers output is scratch (the last layer's outputs
/// are the plan's). A liftc::Error naming a buffer the layers disagree on.
HostPlan chain_plans(const std::vector<HostPlan>& layers);

/// The plan as JSON (plan.json: format "liftc-host-plan", version 1; buffers by name).
std::string plan_json(const HostPlan& plan);

/// Reads plan.json text, checked (names are C identifiers, indices and sizes in range, an
/// NDRange divisible by its work-group size, shapes that hold their elements); a liftc::Error
/// "WHERE: ..." naming the first problem.
HostPlan read_plan_json(const std::string& text, const std::string& where);

}  // namespace liftc::codegen
