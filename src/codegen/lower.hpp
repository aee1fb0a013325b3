#pragma once
// Internal: lowering of one definition's body to C statements (the heart of codegen).
//
// KernelBuilder walks the IR with an environment of views. Data-layout primitives build
// views; computations (mapped loops, reductions, scalar builtins) emit statements and
// write their results through an output view ("dest") chosen by their consumer, or into
// memory they allocate (the address space from toGlobal/toLocal/toPrivate).

#include <map>
#include <set>
#include <optional>
#include <string>
#include <vector>

#include "liftc/codegen/module.hpp"
#include "liftc/codegen/view.hpp"

namespace liftc::codegen::detail {

/// The kinds of loop a kernel has.
enum class LoopKind { Wrg, Lcl, Glb, Seq };

/// An enclosing loop: its kind, OpenCL dimension, index variable and trip count.
struct Loop {
  LoopKind kind = LoopKind::Seq;
  int dim = 0;
  arith::Expr var;
  arith::Expr extent;
};

/// What a compiled expression sees: variables, enclosing loops, the toX address space.
struct Scope {
  std::map<std::string, View> env;
  std::vector<Loop> loops;
  std::optional<AddressSpace> space;
};

/// A compiled expression: its view, and whether it was written into the dest it was given.
struct Result {
  View view;
  bool in_dest = false;
};

/// Thread counts of one kernel per dimension (from the mapWrg/mapLcl/mapGlb structure).
struct Threads {
  bool work_groups = false;  // mapWrg/mapLcl kernel (else mapGlb or sequential)
  std::array<arith::Expr, 3> groups{1, 1, 1}, local{1, 1, 1}, global{1, 1, 1};
  int dims = 0;              // 0: no parallel map at all
};

/// Thrown while lowering when values computed by the parallel map `node` would be read by
/// other work-items of the same kernel with no synchronisation that OpenCL allows there (a
/// data race): a kernel boundary must separate them. generate() makes `node` a kernel of its
/// own when it can, and reports `what` otherwise.
struct CrossItemRead {
  ir::Expr node;
  std::string what;
  /// True when `node` is the definition's computation itself, under layout primitives
  /// applied to its result (a crop): the kernel made of it is the definition's main one.
  bool computes_definition = false;
};

/// Checks the nesting of mapped primitives and derives thread counts (Table 1).
Threads plan_threads(const ir::Expr& body, const Options& options);

/// Lowers one definition into statements of one kernel.
class KernelBuilder {
 public:
  KernelBuilder(std::string kernel, const Options& options, Threads threads);

  /// The kernel body computing `body` into `dest`.
  std::vector<c::Stmt> build(const ir::Expr& body, const Scope& scope, const View& dest);
  /// Buffers the kernel allocated (intermediate, local, private).
  const std::vector<Buffer>& allocations() const { return allocations_; }
  /// The thread counts, updated when the body turned out to be a parallel copy.
  const Threads& threads() const { return threads_; }

 private:
  Result compile(const ir::Expr& e, const Scope& s, const std::optional<View>& dest);
  Result apply(const ir::Expr& lambda, const std::vector<View>& args, const Scope& s, const std::optional<View>& dest);
  Result compile_call(const ir::Expr& e, const Scope& s, const std::optional<View>& dest);
  Result compile_layout(const ir::Expr& e, const Scope& s, const std::optional<View>& dest);
  Result compile_map(const ir::Expr& e, const Scope& s, const std::optional<View>& dest);
  /// Element `i` of `src` for a work-item of a parallel map; over a join, its row and column
  /// are computed once into variables (no division in the loops under it).
  View joined_element(const View& src, const arith::Expr& i);
  Result compile_reduce(const ir::Expr& e, const Scope& s, const std::optional<View>& dest);
  Result compile_to(const ir::Expr& e, const Scope& s, const std::optional<View>& dest);
  Result compile_let(const ir::Expr& e, const Scope& s, const std::optional<View>& dest);
  View compile_scalar(const ir::Expr& e, const Scope& s);
  View pure_map(const ir::Expr& e, const View& source, const Scope& s);
  std::optional<View> output_through(const ir::Expr& body, const std::string& param, const View& dest);
  std::optional<View> operand_dest(const ir::Expr& e, const View& dest);

  /// Emits a mapped or sequential loop over [0, extent) and its body.
  void loop(LoopKind kind, int dim, const arith::Expr& extent, const Scope& s, bool unroll,
            const std::function<void(const Scope&, const arith::Expr&)>& body);
  /// Copies `src` into `dest` element by element (sequential loops over arrays).
  void copy(const View& src, const View& dest, const Scope& s);
  /// Memory for a value of type `t` in `space`, one region per enclosing parallel loop.
  View allocate(const ir::Type& t, AddressSpace space, const Scope& s, const std::string& hint);
  /// Private variables holding `init` (scalar, vector or tuple), declared here.
  View variables(const View& init, const std::string& hint);

  std::string fresh(const std::string& base);
  void emit(c::Stmt st) { blocks_.back().push_back(std::move(st)); }
  void emit(const std::vector<c::Stmt>& sts) { for (const auto& st : sts) emit(st); }

  std::string kernel_;
  const Options& options_;
  Threads threads_;
  std::vector<std::vector<c::Stmt>> blocks_;
  int group_writes_ = 0;               // work-group-level mapLcl writes to local or global memory so far
  bool group_writes_global_ = false;   // one of them wrote global memory (a barrier needs its fence)
  std::vector<c::Stmt> local_decls_;
  std::vector<Buffer> allocations_;
  int counter_ = 0;
  // Parallel maps whose consumer is a map of the same kind and dimension over exactly their
  // result: the work-item that writes element i is the one that reads it.
  std::set<const ir::ExprNode*> same_item_producers_;
};

/// The part of `e` under the layout primitives applied to its result that computes it
/// (`e` itself when no single operand computes).
ir::Expr computing_part(const ir::Expr& e);

/// True when `e` or any expression under it is a map or reduce of any kind.
bool contains_loops(const ir::Expr& e);

}  // namespace liftc::codegen::detail
