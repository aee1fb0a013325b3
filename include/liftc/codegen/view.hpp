#pragma once
// Views: how the data-layout primitives reach memory without emitting code (Lift's view
// system, CGO 2017 section 5).
//
// A View describes an array (or scalar, vector, tuple) value as a path to where its data
// really lives: a buffer or private variable (Mem), or a computed C expression (Value).
// split, join, slide, pad, transpose, reorder, zip, concat, get, asVector, asScalar and maps of
// them wrap views; indexing a view (access) records an index. Reading a scalar or vector
// out of a view walks the path down to memory with a stack of pending indices, turning
// each layout primitive into index arithmetic (arith::Expr, simplified with the ranges of
// the loop variables) by its index map, the one the interpreter loads through
// (liftc/ir/index_map.hpp); a pad becomes a bounds check that selects the pad value, a
// concat a bounds check that selects the operand read (none where the loop's ranges keep
// the index within one operand).
// The same views serve as output views: a writer writes through join, split, transpose,
// asVector, asScalar and map views into the memory underneath.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "liftc/codegen/c_ast.hpp"
#include "liftc/ir/expr.hpp"
#include "liftc/ir/type.hpp"

namespace liftc::codegen {

/// A buffer or variable: where a view's data lives. `type` is an array nest of scalars or
/// vectors (tuples are split into one memory per component), or a scalar/vector when
/// `variable` (a private variable, not an array). Private memory holding one work-item's
/// part of an array of the work-group (codegen/lower.hpp, work_item_parts) has `type` the
/// whole array, and its `work_item_dims` outermost indices, the work-item's own local ids,
/// do not address it: it stores the part below them.
struct Memory {
  std::string name;
  AddressSpace space = AddressSpace::Global;
  ir::Type type;
  bool variable = false;
  int work_item_dims = 0;
};

/// The kinds of view.
enum class ViewKind { Mem, Value, Access, Split, Join, Slide, Pad, Transpose, Reorder, Zip, Concat, Tuple, Get, AsVector, AsScalar, Map, Single };

struct ViewNode;

/// A handle to an immutable view.
class View {
 public:
  View() = default;
  explicit View(std::shared_ptr<const ViewNode> n) : node_(std::move(n)) {}
  bool defined() const { return node_ != nullptr; }
  const ViewNode* operator->() const { return node_.get(); }
  ViewKind kind() const;
  /// The type of the value this view describes.
  const ir::Type& type() const;

 private:
  std::shared_ptr<const ViewNode> node_;
};

struct ViewNode {
  ViewKind kind = ViewKind::Value;
  ir::Type type;
  std::vector<View> children;
  std::vector<arith::Expr> sizes;          // Access: index; Split: n; Slide: size, step; Pad: left, right; ...
  std::shared_ptr<const Memory> memory;    // Mem
  c::Expr value;                           // Value; Pad: the pad value
  int component = 0;                       // Get
  std::function<View(const View&)> fn;     // Map: the view of one element from the view of the source element
};

/// The whole of a buffer or variable.
View mem_view(std::shared_ptr<const Memory> m);
/// A computed scalar or vector.
View value_view(c::Expr v);
/// Element `i` of array view `v`.
View access(View v, arith::Expr i);
/// split(n, v).
View split(arith::Expr n, View v);
/// join(v).
View join(View v);
/// slide(size, step, v).
View slide(arith::Expr size, arith::Expr step, View v);
/// pad(left, right, value, v) on the outermost dimension; reads outside v give `value`.
View pad(arith::Expr left, arith::Expr right, c::Expr value, View v);
/// transpose(v) of a 2D (or deeper) array.
View transpose(View v);
/// reorder(striddenIndex(stride), v).
View reorder(arith::Expr stride, View v);
/// zip(vs...): an array of tuples; `type` overrides the result type (a zip of nested arrays
/// of equal shape, as tuple memory is split into components).
View zip(std::vector<View> vs, std::optional<ir::Type> type = std::nullopt);
/// concat(vs...): the arrays one after another (of one element type).
View concat(std::vector<View> vs);
/// A tuple of views.
View tuple(std::vector<View> vs);
/// Component `i` of a tuple view.
View get(View v, int i);
/// asVector(width, v).
View as_vector(int width, View v);
/// asScalar(v).
View as_scalar(View v);
/// map(f, v) where f only rearranges data: element i is f(v[i]).
View map_view(View v, ir::Type elem_type, std::function<View(const View&)> f);
/// The view of layout primitive `e` (ir::is_layout) over its operands' views, in the order
/// it takes them (pad: the fill, then the array); a liftc::Error at `e` when the operands do
/// not allow one (a pad value that is not a scalar, an asVector width that is not constant).
View layout_view(const ir::Expr& e, std::vector<View> operands);
/// For an invertible layout primitive `e` (ir::is_invertible_layout) written through `dest`:
/// the view its operand is written through (split's is a join of dest, and so on).
View operand_dest_view(const ir::Expr& e, View dest);
/// A one-element array holding `v` (a reduction's result).
View single(View v);

/// Reads a scalar or vector out of `v` (all array dimensions indexed).
c::Expr read(const View& v);
/// Writes a scalar or vector `value` through output view `dest`; a liftc::Error when `dest`
/// cannot be written (a pad, a slide, a computed value).
c::Stmt write(const View& dest, const c::Expr& value);
/// Copies a scalar, vector or tuple element `src` into `dest` (tuples component-wise).
std::vector<c::Stmt> write_value(const View& dest, const View& src);
/// The memory under a view when a write through it reaches one buffer (for toX decisions).
std::shared_ptr<const Memory> underlying_memory(const View& v);
/// True when the view is a computed value (or a tuple of them), not memory.
bool is_value(const View& v);

/// Number of scalars a value of type `t` occupies (tuples: a liftc::Error).
arith::Expr scalar_count(const ir::Type& t);
/// The innermost scalar or vector type under arrays.
ir::Type element_type(const ir::Type& t);

}  // namespace liftc::codegen
