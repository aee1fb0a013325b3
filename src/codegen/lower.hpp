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
#include "liftc/codegen/plan.hpp"
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

/// The loop a map primitive makes (mapSeq and plain map: sequential).
LoopKind loop_kind(ir::Prim p);
/// The address space a toGlobal/toLocal/toPrivate writes to.
AddressSpace space_of(ir::Prim to);
/// Whether memory in `space` allocated inside loop `l` has one region per iteration of it
/// (the work-items of every parallel loop for global memory, of mapLcl loops for local).
bool region_per_iteration(const Loop& l, AddressSpace space);
/// Whether one of `loops` has kind `k` (and dimension `dim` when given).
bool inside(const std::vector<Loop>& loops, LoopKind k, int dim = -1);
/// Whether `e` is a call of primitive `p`.
inline bool is_call(const ir::Expr& e, ir::Prim p) { return e.kind() == ir::ExprKind::Call && e->prim == p; }

/// Whether a reduceSeq at `loops` with step function `f` accumulates for the whole
/// work-group: it runs at work-group level (inside a mapWrg, outside every mapLcl) and its
/// step's value is a mapLcl's (under lets and layout primitives), each work-item writing its
/// part of the accumulator; then the accumulator lives in local memory, where all see it,
/// unless each work-item's part is its own (work_item_parts).
bool work_group_accumulator(const std::vector<Loop>& loops, const ir::Expr& f);

/// How the work-items of a work-group accumulator (work_group_accumulator) share it, when
/// each updates a part of its own: the step's value, under its lets, is a computing mapLcl
/// over zip(acc, ...), that mapLcl's function's value one over zip(part.0, ...) on another
/// dimension, and so on, the accumulator and its parts read nowhere else. A computing mapLcl
/// sizes its work-group's dimension (threads.cpp), so each work-item runs at most one
/// iteration of each: element [i][j].. of the accumulator is read and written by the
/// work-item whose local ids in those dimensions are i, j, .. alone, and lives in that
/// work-item's private memory (a register tile kept across a reduction over chunks copied
/// into local memory). The register tile's own sums, when the innermost function is
/// `p -> join(reduceSeq(p.0, g, ys))` (or reduce-nest's `p -> join^(n+1)(reduceSeq(b, g, ys))`,
/// b the part broadcast as [1]..[1][part] by maps over length-1 arrays), accumulate in
/// place in it (in_place_reduce's rule).
struct WorkItemParts {
  std::vector<int> dims;  // the mapLcls' dimensions, outermost first; empty: not so
  ir::Expr in_place;      // the innermost function's reduceSeq accumulating in place, if any
};
WorkItemParts work_item_parts(const std::vector<Loop>& loops, const ir::Expr& f);
/// What a work-item holds of an array of type `t` whose `dims` outer dimensions are the
/// work-items' own (work_item_parts): `t` without them.
ir::Type work_item_part(ir::Type t, std::size_t dims);
/// The reduceSeq whose value the mapLcl `map` reads each work-item its own part of, so
/// that the parts can stay in private memory with no destination to copy them to (an
/// activation applied by each work-item to its register tile): `map` is
/// `mapLcl(d0, p -> mapLcl(d1, q -> ..., p), join(reduceSeq(...)))` at work-group level,
/// d0, d1, .. the reduction's work_item_parts dimensions in order, each parameter but the
/// innermost used only as the data of the next mapLcl. Undefined when not so.
ir::Expr own_parts_reader(const std::vector<Loop>& loops, const ir::Expr& map);

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

/// Where values computed by the parallel map `node` would be read by other work-items of
/// the same kernel with no synchronisation that OpenCL allows there (a data race): a kernel
/// boundary must separate them. plan_kernels() makes `node` a kernel of its own when it
/// can, and reports `what` otherwise.
struct CrossItemRead {
  ir::Expr node;
  std::string what;
  /// True when `node` is the definition's computation itself, under layout primitives
  /// applied to its result (a crop): the kernel made of it is the definition's main one.
  bool computes_definition = false;
};

/// What lowering a body as one kernel will do (kernel_scan.cpp), found before lowering.
struct KernelScan {
  std::optional<CrossItemRead> race;    // the first, in lowering order; none: one kernel is safe
  bool writes_result = true;            // its computation writes the kernel's output (else a copy)
  std::vector<PlannedBuffer> buffers;   // global, local and private memory it allocates
  std::vector<arith::Expr> unrollable;  // trip counts of reduceSeq loops without loops inside
};

/// Scans `body` as the KernelBuilder will lower it; `parallel`: it has parallel maps.
KernelScan scan_kernel(const ir::Expr& body, bool parallel);

/// Whether a destination given to `e` (a layout primitive or a map that only rearranges)
/// passes on to its operand (KernelBuilder::operand_dest).
bool passes_dest(const ir::Expr& e);
/// Whether a value written where `body` (a function body over `param`) goes lands in `param`.
bool writes_through(const ir::Expr& body, const std::string& param);
/// The primitives such a function body may chain: the invertible layout primitives
/// (ir::is_invertible_layout) and maps of them.
bool chains_writes(ir::Prim p);
/// The producer of the parallel map `map`'s data whose element i is written by the work-item
/// that reads it (the same kind and dimension over exactly its result); undefined if none.
ir::Expr same_item_producer(const ir::Expr& map);

/// The reduceSeq nested in the step function of reduceSeq `outer` that may accumulate in
/// outer's accumulator itself instead of a copy of it (undefined if none): the step function
/// is `(acc, x) -> join(mapSeq(s -> reduceSeq(s, g, ys), acc))` or `(acc, x) ->
/// join(reduceSeq(acc, g, ys))`, the inner accumulator an array, neither `acc` nor `s` free
/// in `g` or `ys` (kernel_scan.cpp says why that is safe; both lowering and the scan use it).
ir::Expr in_place_reduce(const ir::Expr& outer);

/// Whether `e` only moves data: variables, layout primitives and maps (of any kind, and
/// toX) of functions that only move data; no arithmetic, literal, reduction or let. A
/// mapLcl of such a function is a copy, which does not size its work-group (threads.cpp).
bool only_moves_data(const ir::Expr& e);

/// Thread counts of `body` from its mapped primitives (Table 1), before device limits;
/// checks their dimensions and that mapGlb does not share a kernel with mapWrg/mapLcl.
Threads kernel_threads(const ir::Expr& body);
/// Thread counts of a copy kernel writing a value of type `t`: its (up to) three outer
/// dimensions, the innermost on dimension 0.
Threads copy_threads(const ir::Type& t);

/// Lowers one definition into statements of one kernel.
class KernelBuilder {
 public:
  /// `copy`: the plan says the body only rearranges data (a parallel copy over `threads`).
  KernelBuilder(std::string kernel, const Options& options, Threads threads, bool copy);

  /// The kernel body computing `body` into `dest`.
  std::vector<c::Stmt> build(const ir::Expr& body, const Scope& scope, const View& dest);
  /// Buffers the kernel allocated (intermediate, local, private).
  const std::vector<Buffer>& allocations() const { return allocations_; }
  /// Names of the module's buffers so far, which the kernel's global scratch buffers must not
  /// take (another kernel's scratch `gtmp_2` is another buffer).
  void avoid_global_names(std::set<std::string> names) { taken_globals_ = std::move(names); }
  /// The vector widths (1: a float) of the roundHalf calls the kernel makes, whose functions
  /// its text must define (opencl_functions.hpp).
  const std::set<int>& round_half_widths() const { return round_half_widths_; }

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
  /// Where `param` is written when `body` (writes_through(body, param)) is written to `dest`.
  View output_through(const ir::Expr& body, const std::string& param, const View& dest);
  std::optional<View> operand_dest(const ir::Expr& e, const View& dest);

  /// Emits a mapped or sequential loop over [0, extent) and its body.
  void loop(LoopKind kind, int dim, const arith::Expr& extent, const Scope& s, bool unroll,
            const std::function<void(const Scope&, const arith::Expr&)>& body);
  /// Copies `src` into `dest` element by element (sequential loops over arrays).
  void copy(const View& src, const View& dest, const Scope& s);
  /// The same copy shared by the work-group's work-items: the outermost dimension spread
  /// over their flat local index (at work-group level, outside every mapLcl).
  void work_group_copy(const View& src, const View& dest, const Scope& s);
  /// Each work-item's part of `src` copied into `dest`: a mapLcl per dimension in `dims`
  /// over the outer dimensions (work_item_parts), then sequential loops.
  void work_item_copy(const View& src, const View& dest, const std::vector<int>& dims, const Scope& s);
  /// Memory for a value of type `t` in `space`, one region per enclosing parallel loop;
  /// private memory with `work_item_dims` holds a work-item's part of `t` only (Memory).
  View allocate(const ir::Type& t, AddressSpace space, const Scope& s, const std::string& hint, int work_item_dims = 0);
  /// A constant array (`array(...)`) as a `constant` array of the kernel, declared once per
  /// distinct value in its outermost scope.
  View constant_array(const ir::Expr& e);
  /// Private variables holding `init` (scalar, vector or tuple), declared here.
  View variables(const View& init, const std::string& hint);

  std::string fresh(const std::string& base);
  void emit(c::Stmt st) { blocks_.back().push_back(std::move(st)); }
  void emit(const std::vector<c::Stmt>& sts) { for (const auto& st : sts) emit(st); }

  std::string kernel_;
  const Options& options_;
  Threads threads_;
  bool copy_ = false;
  std::vector<std::vector<c::Stmt>> blocks_;
  int group_writes_ = 0;               // work-group-level mapLcl writes to local or global memory so far
  bool group_writes_global_ = false;   // one of them wrote global memory (a barrier needs its fence)
  std::vector<c::Stmt> start_decls_;  // the kernel's first statements: its local, private and constant arrays
  std::vector<Buffer> allocations_;
  std::map<std::pair<std::string, std::vector<double>>, View> constants_;  // by type and values
  int counter_ = 0;
  std::set<std::string> taken_globals_;  // avoid_global_names
  std::set<int> round_half_widths_;      // round_half_widths
  // Parallel maps whose consumer is a map of the same kind and dimension over exactly their
  // result: the work-item that writes element i is the one that reads it.
  std::set<const ir::ExprNode*> same_item_producers_;
  // reduceSeqs that accumulate in their enclosing reduceSeq's private accumulator (in_place_reduce).
  std::set<const ir::ExprNode*> in_place_reduces_;
  // reduceSeqs whose work-items' own parts are read by their owners only (own_parts_reader).
  std::set<const ir::ExprNode*> own_parts_read_;
};

/// The part of `e` under the layout primitives applied to its result that computes it
/// (`e` itself when no single operand computes).
ir::Expr computing_part(const ir::Expr& e);

/// True when `e` or any expression under it is a map or reduce of any kind.
bool contains_loops(const ir::Expr& e);

}  // namespace liftc::codegen::detail
