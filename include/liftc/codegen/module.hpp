#pragma once
// Code generation: a checked low-level program becomes a Module — OpenCL kernels (one per
// definition, in order), a memory plan (every buffer with its address space and symbolic
// size) and a launch plan (global and local NDRange per kernel, Lift's Table 1).
//
// Input: a type-checked program (typecheck::typecheck) whose computation is mapped onto
// OpenCL (mapWrg/mapLcl/mapGlb/mapSeq/reduceSeq) and placed in memory (toGlobal/toLocal/
// toPrivate). Sizes may be bound (ir::bind_sizes; the kernels are then specialized) or
// symbolic (they become int kernel arguments; local and private arrays then still need
// constant sizes). A program that is not low-level enough is a liftc::Error at the node.

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "liftc/arith/expr.hpp"
#include "liftc/codegen/c_ast.hpp"
#include "liftc/ir/expr.hpp"

namespace liftc::codegen {

/// How a global buffer's floats are stored: as floats, or as IEEE halves read with
/// `vload_half`/`vload_halfN` and written with `vstore_half`/`vstore_halfN` (core OpenCL 1.2,
/// no extension), the arithmetic still in float. Half needs no `cl_khr_fp16`, which no device
/// here has (PoCL here and NVIDIA's OpenCL do not); fp16 arithmetic is never generated.
enum class Storage { Native, Half };

/// Which of a program's inputs and definitions are stored as half (`--storage`; resolved by
/// half_buffers into ir::Program::half): every float
/// one (`all_half`, `--storage half`), or those named (`--storage half=image,weights`).
/// Intermediate buffers of the kernel plan stay float: where a definition's kernels round is
/// then the program's own choice (its inputs and definitions), which the interpreter rounds at
/// the same points, not a strategy's.
struct StorageChoice {
  bool all_half = false;
  std::vector<std::string> half;  // names of inputs and definitions

  /// Whether anything is stored as half.
  bool any() const { return all_half || !half.empty(); }
};

/// The inputs and definitions of `checked` that `choice` stores as half; a liftc::Error for a
/// name that is neither, one that holds ints, or `--storage half` on a program without a
/// float input or definition.
std::set<std::string> half_buffers(const ir::Program& checked, const StorageChoice& choice);

/// Parses `--storage`'s text: "float", "half" or "half=NAME[,NAME...]"; a liftc::Error otherwise.
StorageChoice parse_storage(const std::string& text);

/// "float", "half" or "half=NAME,...": the text parse_storage reads back.
std::string to_string(const StorageChoice& choice);

/// Choices that change the generated code.
struct Options {
  /// Unroll the innermost reduceSeq loops whose trip count is a constant (at most 64).
  bool unroll_reduce = false;
  /// Emit a mapped loop without the loop when its trip count equals its thread count
  /// (and as an `if` when it is provably at most the thread count); section 5.1.
  bool elide_loops = true;
  /// Device limits for choosing work-group sizes; 0 means no limit.
  std::int64_t max_work_group_size = 0;
  std::array<std::int64_t, 3> max_work_item_sizes{0, 0, 0};
  /// The work-group size of kernels that only use mapGlb (no mapWrg/mapLcl to imply one),
  /// per dimension; {0, 0, 0}: the OpenCL runtime chooses. A tuning choice: it must divide
  /// the global size (a liftc::Error otherwise).
  std::array<std::int64_t, 3> global_work_group{0, 0, 0};
  /// The work-group sizes of the program's other kernels without work-groups, by the
  /// buffer each computes (`--kernel-local conv_part1=8,16` for conv_part1_kernel); a kernel
  /// not named gets the runtime's choice. Also tuning choices (a kernel's
  /// `<buffer>_local_<d>` parameters), each dividing its kernel's global size; naming the
  /// main kernel, a work-group kernel or no kernel of the program is a liftc::Error.
  std::map<std::string, std::array<std::int64_t, 3>> kernel_work_groups;
  /// Let the OpenCL compiler contract `a*b + c` into a multiply-add (`-cl-mad-enable`):
  /// faster, but it may round differently, so it is a tuning parameter (`mad`) of programs
  /// that multiply floats, and `--mad` of compile/run.
  bool mad = false;
  /// More OpenCL compiler options, the user's choice (`--build-options
  /// "-cl-fast-relaxed-math"`); one line of printable characters.
  std::string build_options;
  /// Hoist loop-invariant expressions out of loops (hoist.cpp); `--no-hoist` turns it off.
  bool hoist = true;
  /// Copy loops of 2, 4, 8 or 16 consecutive values into a global buffer become one vector
  /// store (vector_stores.cpp); `--no-vector-stores` turns it off.
  bool vector_stores = true;
  /// Called with (pass, kernel, text) for every kernel made: its plan ("plan", plan.hpp),
  /// its OpenCL C after lowering ("lower") and after each pass of kernel_passes()
  /// (passes.hpp); unset: nothing is printed.
  std::function<void(const std::string& pass, const std::string& kernel, const std::string& text)> dump;
};

/// The OpenCL compiler options of `options`: `-cl-mad-enable` when `mad`, then the user's
/// own; a liftc::Error when the user's contain a control character (a newline, say).
std::string build_options(const Options& options);

/// What a buffer holds for the program.
enum class BufferRole {
  Input,         // a program input, written by the host
  Output,        // a definition's value, read back by the host
  Intermediate,  // a global scratch buffer inside one kernel
  Local,         // a work-group's local array inside one kernel
  Private,       // a work-item's private array or variable inside one kernel
};

/// "input", "output", "intermediate", "local", "private".
const char* to_string(BufferRole r);

/// One buffer of the memory plan.
struct Buffer {
  std::string name;
  AddressSpace space = AddressSpace::Global;
  BufferRole role = BufferRole::Input;
  ir::ScalarKind scalar = ir::ScalarKind::Float;  // the element scalar (float or int)
  Storage storage = Storage::Native;              // Half: floats stored as halves (global inputs and outputs)
  arith::Expr elements;                           // number of scalars
  arith::Expr bytes;                              // elements * 4, or * 2 for Half
  std::string kernel;                             // the kernel that owns it (local, private, intermediate)
  bool variable = false;                          // a private variable for a computed value (not in the kernel plan)
  std::vector<std::int64_t> shape;                // inputs and outputs: the tensor shape when sizes are bound
};

/// Every buffer of a program, and its footprint.
struct MemoryPlan {
  std::vector<Buffer> buffers;

  /// Global memory: inputs + outputs + intermediates (the Pareto memory objective).
  arith::Expr global_bytes() const;
  /// Local memory of the kernel using the most of it.
  arith::Expr local_bytes() const;
  /// Private arrays and variables of one work-item, summed over kernels' maxima.
  arith::Expr private_bytes() const;
  /// The buffer called `name`; a liftc::Error when there is none.
  const Buffer& buffer(const std::string& name) const;
};

/// The NDRange of one kernel: dims 1..3; local all zero means "let the runtime choose".
struct Launch {
  int dims = 1;
  std::array<arith::Expr, 3> global{arith::Expr(1), arith::Expr(1), arith::Expr(1)};
  std::array<arith::Expr, 3> local{arith::Expr(0), arith::Expr(0), arith::Expr(0)};
  bool has_local() const;
};

/// A kernel argument: a global buffer of the memory plan, or a size (an int).
struct KernelArg {
  enum class Kind { Buffer, Size };
  Kind kind = Kind::Buffer;
  std::string name;  // buffer name or size name
};

/// One generated kernel.
struct Kernel {
  std::string name;             // the OpenCL kernel name
  std::string definition;       // the .sr definition it computes
  std::string source;           // OpenCL C text of this kernel alone
  std::vector<KernelArg> args;  // in parameter order
  Launch launch;
  c::Function function;         // the syntax tree the source was printed from
};

/// The result of code generation.
struct Module {
  std::vector<Kernel> kernels;              // in execution order
  MemoryPlan memory;
  std::vector<std::string> inputs;          // input buffer names, in declaration order
  std::vector<std::string> outputs;         // definition buffer names, in order
  std::map<std::string, std::int64_t> sizes;  // bound size values (empty when symbolic)
  std::string build_options;                // the OpenCL compiler options its kernels are built with
  bool contract = false;                    // a * b + c may become one multiply-add (Options::mad); else FP_CONTRACT OFF

  /// All kernels in one OpenCL C source text (after `#pragma OPENCL FP_CONTRACT OFF` unless `contract`).
  std::string source() const;
};

/// Generates the kernels, memory plan and launch plan of a checked low-level program.
Module generate(const ir::Program& checked, const Options& options = {});

/// Evaluates a symbolic size (bytes, NDRange) with the module's bound sizes and `extra`;
/// a liftc::Error naming the unbound size otherwise.
std::int64_t evaluate(const arith::Expr& e, const Module& m, const std::map<std::string, std::int64_t>& extra = {});

/// The tensor shape of a buffer of type `t` (its array lengths, then a vector's width); empty
/// when a length is not a constant.
std::vector<std::int64_t> shape_of(const ir::Type& t);

}  // namespace liftc::codegen
