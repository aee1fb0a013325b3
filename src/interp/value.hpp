#pragma once
// Runtime values of the interpreter.
//
// A Value is a small, copyable object:
//   * a scalar (float, int, bool) or a vector of up to 16 lanes, held inline;
//   * a reference to an array or a tuple: a View (shared, immutable) plus a short path
//     prefix that selects a part of the view (e.g. row 3 of a matrix is the matrix's view
//     with prefix [3]). Taking an element of an array of arrays extends the prefix and
//     allocates nothing.
//
// Views (view.hpp) form a lazy tree: split/join/slide/pad/transpose/zip/reorder/asVector
// build O(1) views over their operands, and only loading a scalar walks the tree,
// rewriting the path at each view; map and reduce results are materialized in dense
// storage (DenseView). A path lists steps innermost first (the back is the outermost
// step); a step >= 0 indexes an array, a step < 0 is the tuple projection -1-k.

#include <array>
#include <bit>
#include <cstdint>
#include <memory>

#include "layout.hpp"
#include "liftc/ir/affine_index.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::interp::detail {

/// One 32-bit storage word: a float's bits, an int32, or a bool as 0/1.
using Word = std::uint32_t;

/// The step that projects component k of a tuple.
constexpr std::int64_t tuple_step(int k) { return -1 - static_cast<std::int64_t>(k); }
/// The component a tuple step projects.
constexpr int tuple_component(std::int64_t step) { return static_cast<int>(-1 - step); }

/// A path being resolved: a fixed-capacity stack of steps, outermost at the back.
class Path {
 public:
  static constexpr int kCapacity = 64;

  bool empty() const { return size_ == 0; }
  int size() const { return size_; }
  void push(std::int64_t step) {
    LIFTC_ASSERT(size_ < kCapacity, "access paths are shorter than the deepest type");
    steps_[size_++] = step;
  }
  std::int64_t pop() {
    LIFTC_ASSERT(size_ > 0, "a view pops a step that the path has (views only load leaves)");
    return steps_[--size_];
  }
  /// Pops a tuple projection and returns its component.
  int pop_component() {
    std::int64_t step = pop();
    LIFTC_ASSERT(step < 0, "a tuple projection is the step below a zip's index");
    return tuple_component(step);
  }
  /// The i-th step from the back (0 = outermost), without popping.
  std::int64_t from_back(int i) const { return steps_[size_ - 1 - i]; }

 private:
  std::array<std::int64_t, kCapacity> steps_;
  int size_ = 0;
};

/// One step of a path that varies along a loop: `c + a * t` for the iteration t in [0, n),
/// an index type of the layout maps (ir/affine_index.hpp, ir/index_map.hpp).
using AffineStep = ir::AffineIndex<std::int64_t>;

/// A path of affine steps being resolved (outermost at the back, as in Path), with the
/// loop's trip count n (pad needs it to tell whether every iteration is in range). Once a
/// step that is not affine is pushed (a join whose index crosses rows, a reorder that
/// gathers), or a push finds the path full, the path is no longer affine(): strided()
/// then answers false.
class AffinePath {
 public:
  static constexpr int kCapacity = 64;

  explicit AffinePath(std::int64_t trip_count) : n_(trip_count) {}
  bool empty() const { return size_ == 0; }
  int size() const { return size_; }
  std::int64_t trip_count() const { return n_; }
  /// Whether every step pushed so far is c + a*t.
  bool affine() const { return affine_; }
  /// The step c + a*t of this path's loop.
  AffineStep step(std::int64_t c, std::int64_t a) const { return {c, a, n_, true}; }
  /// Pushes a step (a full path drops it and is no longer affine).
  void push(const AffineStep& s) {
    affine_ = affine_ && s.exact && size_ < kCapacity;
    if (size_ < kCapacity) steps_[size_++] = s;
  }
  AffineStep pop() {
    LIFTC_ASSERT(size_ > 0, "a view pops a step that the path has (views only load leaves)");
    return steps_[--size_];
  }
  /// The outermost step, not popped.
  const AffineStep& top() const {
    LIFTC_ASSERT(size_ > 0, "a view reads a step that the path has");
    return steps_[size_ - 1];
  }
  /// Pops a tuple projection and returns its component.
  int pop_component() {
    AffineStep s = pop();
    LIFTC_ASSERT(s.a == 0 && s.c < 0, "a tuple projection is a constant step");
    return tuple_component(s.c);
  }

 private:
  std::array<AffineStep, kCapacity> steps_;
  int size_ = 0;
  std::int64_t n_;
  bool affine_ = true;
};

/// Where the leaves a loop loads lie in dense storage: iteration i's leaf starts at
/// `base + i * stride` (words) and has layout `leaf` (a scalar or a vector).
struct Strided {
  const Word* base = nullptr;
  std::int64_t stride = 0;
  const Layout* leaf = nullptr;
};

class View;
class DenseView;

/// A runtime value; see the top of this file.
class Value {
 public:
  /// Scalars and vectors are inline; arrays and tuples are references into views.
  enum class Kind : std::uint8_t { Scalar, Vector, Ref };
  /// How many prefix steps a reference holds inline before it wraps its view.
  static constexpr int kPrefixCapacity = 8;

  Value() = default;

  static Value of_float(float f) { return scalar(ir::ScalarKind::Float, std::bit_cast<Word>(f)); }
  static Value of_int(std::int32_t i) { return scalar(ir::ScalarKind::Int, static_cast<Word>(i)); }
  static Value of_bool(bool b) { return scalar(ir::ScalarKind::Bool, b ? 1u : 0u); }
  /// A scalar of `kind` from its storage word.
  static Value scalar(ir::ScalarKind kind, Word w) {
    Value v;
    v.kind_ = Kind::Scalar;
    v.scalar_ = kind;
    v.u_.lanes[0] = w;
    return v;
  }
  /// A vector of `width` lanes, all zero.
  static Value vector(ir::ScalarKind kind, int width) {
    LIFTC_ASSERT(width >= 2 && width <= 16, "vectors have 2 to 16 lanes");
    Value v;
    v.kind_ = Kind::Vector;
    v.scalar_ = kind;
    v.width_ = static_cast<std::uint8_t>(width);
    return v;
  }
  /// A reference to the whole of `view`, whose root has `layout` (an array or a tuple).
  static Value ref(std::shared_ptr<const View> view, const Layout* layout) {
    LIFTC_ASSERT(!layout->is_leaf(), "references point at arrays or tuples");
    Value v;
    v.kind_ = Kind::Ref;
    v.view_ = std::move(view);
    v.layout_ = layout;
    return v;
  }

  Kind kind() const { return kind_; }
  bool is_ref() const { return kind_ == Kind::Ref; }
  bool is_vector() const { return kind_ == Kind::Vector; }
  bool is_scalar() const { return kind_ == Kind::Scalar; }
  /// Scalars and vectors: the element kind.
  ir::ScalarKind scalar_kind() const { return scalar_; }
  /// Lanes of a vector; 1 for a scalar.
  int width() const { return width_; }

  /// Lane i's storage word (a scalar's value is lane 0).
  Word lane(int i) const { return u_.lanes[i]; }
  void set_lane(int i, Word w) { u_.lanes[i] = w; }
  float as_float() const { return std::bit_cast<float>(u_.lanes[0]); }
  std::int32_t as_int() const { return static_cast<std::int32_t>(u_.lanes[0]); }
  bool as_bool() const { return u_.lanes[0] != 0; }

  /// References: the view, the layout of the referenced part, and the prefix into the view.
  const std::shared_ptr<const View>& view() const { return view_; }
  const Layout* layout() const { return layout_; }
  int prefix_size() const { return prefix_size_; }
  std::int64_t prefix(int i) const { return u_.prefix[i]; }

  /// The part of this reference that `step` selects, whose layout is `part` (not a leaf).
  Value sub_ref(std::int64_t step, const Layout* part) const;

 private:
  Kind kind_ = Kind::Scalar;
  ir::ScalarKind scalar_ = ir::ScalarKind::Float;
  std::uint8_t width_ = 1;
  std::uint8_t prefix_size_ = 0;
  const Layout* layout_ = nullptr;
  std::shared_ptr<const View> view_;
  union {
    Word lanes[16];
    std::int64_t prefix[kPrefixCapacity];
  } u_{};
};

/// A lazy array or tuple: loads the leaf (scalar or vector) at a path relative to its root.
class View {
 public:
  virtual ~View() = default;
  /// Loads the leaf that `path` addresses; consumes the path.
  virtual Value load(Path& path) const = 0;
  /// This view as dense storage, when it is one (lets copies become memcpy).
  virtual const DenseView* as_dense() const { return nullptr; }
  /// Resolves the leaves that an affine `path` addresses along a loop to dense storage
  /// (consumes the path): true when iteration i's leaf is `out.base + i * out.stride`
  /// for every i in the path's trip count; false when it is not (a pad's fill, a join
  /// that crosses rows of non-contiguous storage, a reorder, ...): callers then load.
  virtual bool strided(AffinePath& path, Strided& out) const { return false; }
  /// The start of the part that a constant `path` addresses (consumed) when that part is
  /// stored contiguously in its own row-major layout, else nullptr.
  virtual const Word* contiguous(Path& path) const { return nullptr; }
};

/// Loads the leaf at `path` inside `v` (pushes a reference's prefix, then asks its view).
/// With an empty path, `v` itself must be a leaf.
Value load_in(const Value& v, Path& path);

/// strided() of the view of `v` on `path` extended by `v`'s prefix (false for a leaf).
bool strided_in(const Value& v, AffinePath& path, Strided& out);

/// contiguous() of the view of `v` on `path` extended by `v`'s prefix (nullptr for a leaf).
const Word* contiguous_in(const Value& v, Path& path);

/// Element i of an array reference: a leaf (loaded) or a reference (no allocation).
Value element(const Value& array, std::int64_t i);

/// Component k of a tuple reference.
Value component(const Value& tuple, int k);

/// Writes `v` (of layout `layout`) into dense storage at `dst` (layout->words words).
void store(const Value& v, const Layout* layout, Word* dst);

}  // namespace liftc::interp::detail
