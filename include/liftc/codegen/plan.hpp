#pragma once
// The kernel plan of a program: which kernels code generation makes of each definition,
// their launches (thread counts, symbolic in the sizes) and the memory each allocates.
// Decided once, before lowering, and read by everyone who needs it: generate() lowers each
// planned kernel once, and the constraint stage (constraints::build_space) models the same
// kernels, so the tuning-parameter space and the generated code cannot disagree.
//
// A definition is one kernel unless values of a parallel map would be read by other
// work-items of the same kernel (OpenCL has no barrier across work-groups): that map then
// becomes a kernel of its own, computing an intermediate global buffer
// `<definition>_part<k>` that the rest reads. So does a mapGlb or mapWrg that is the same
// for every work-item (it uses no variable of the code around it). A map that uses
// variables of the code around it cannot be separated: plan_kernels refuses the definition.

#include <array>
#include <string>
#include <vector>

#include "liftc/arith/expr.hpp"
#include "liftc/codegen/module.hpp"
#include "liftc/ir/program.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::codegen {

/// Thread counts of one kernel per dimension, from its mapWrg/mapLcl/mapGlb structure (Lift's
/// Table 1): mapWrg(d) over n groups with mapLcl(d) over m items gives local[d] = m,
/// global[d] = n*m; mapGlb(d) over n items gives global[d] = n.
struct Threads {
  bool work_groups = false;  // mapWrg/mapLcl kernel (else mapGlb, a copy, or sequential)
  std::array<arith::Expr, 3> groups{1, 1, 1}, local{1, 1, 1}, global{1, 1, 1};
  int dims = 0;              // 0: no parallel map at all (one work-item)
};

/// Memory a planned kernel allocates: global, local, or a work-item's private arrays (the
/// memory lowering allocates for values; not the private variables it declares for
/// computed scalars, lets and scalar accumulators).
struct PlannedBuffer {
  std::string what;          // the primitive that allocates it: "mapSeq", "toLocal", "reduceSeq"
  AddressSpace space = AddressSpace::Global;
  arith::Expr bytes;         // one region per enclosing parallel loop that shares it (private: per work-item)
};

/// One kernel of the plan.
struct PlannedKernel {
  std::string name;          // the OpenCL kernel name
  std::string buffer;        // the global buffer it computes: the definition, or `<definition>_part<k>`
  std::string definition;    // the .sr definition it is part of
  BufferRole role = BufferRole::Output;  // Output (the definition itself) or Intermediate (a part)
  SourceLoc loc;             // the definition, or the map split off
  ir::Expr body;             // what it computes; the parts before it are variables naming their buffers
  arith::Expr bytes;         // the size of the buffer it computes
  Threads threads;           // before device limits; a copy kernel's over its (up to) three outer dimensions
  bool copy = false;         // its body only rearranges data: a parallel copy kernel
  bool tuned = false;        // the definition's main kernel: Options::global_work_group applies to it
  std::vector<PlannedBuffer> buffers;   // global, local and private memory it allocates, in lowering order
  std::vector<arith::Expr> unrollable;  // trip counts of its reduceSeq loops that Options::unroll_reduce unrolls
};

/// Every kernel of a program, in execution order.
struct KernelPlan {
  std::vector<PlannedKernel> kernels;
};

/// Bytes of a value of type `t` (4 per scalar or vector lane, summed over tuples).
arith::Expr bytes_of(const ir::Type& t);

/// Plans the kernels of a type-checked low-level program (sizes bound or symbolic); a
/// liftc::Error for a definition that cannot be split where it must be, or whose mapped
/// primitives are nested wrongly.
KernelPlan plan_kernels(const ir::Program& checked);

/// `threads` fitted into the device limits of `options` (the mapped loops then stride).
Threads fit_to_device(Threads threads, const Options& options);

/// The NDRange of a planned kernel: `threads` (fitted), with the work-group size of
/// `options`: global_work_group for the definition's main mapGlb kernel (`tuned`), the
/// kernel's entry of kernel_work_groups for another mapGlb kernel; a liftc::Error when that
/// size does not divide the global size or exceeds the device's.
Launch launch_of(const PlannedKernel& k, const Threads& threads, const Options& options);

/// A liftc::Error when Options::global_work_group gives a size above 1 in a dimension no
/// main mapGlb kernel of `plan` has (`--local 16,1,4` for 2-D kernels), or when
/// Options::kernel_work_groups names a buffer no kernel of `plan` computes, or one a
/// work-group kernel or the main kernel of its definition computes (its size is
/// global_work_group).
void check_kernel_work_groups(const KernelPlan& plan, const Options& options);

/// The plan in words, one kernel a paragraph (`liftc compile --dump-after plan`).
std::string to_string(const PlannedKernel& k);

}  // namespace liftc::codegen
