#pragma once
// Concrete layouts: what a size-bound type looks like in the interpreter's dense storage.
// Every value of a type with constant lengths occupies a fixed number of 32-bit words:
// scalars one, vectors one per lane, tuples their components in order, arrays their
// elements in order (row-major, outermost first).

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "liftc/ir/type.hpp"
#include "liftc/support/diagnostic.hpp"

namespace liftc::interp::detail {

/// The concrete form of one type.
struct Layout {
  ir::TypeKind kind = ir::TypeKind::Scalar;
  ir::ScalarKind scalar = ir::ScalarKind::Float;  // Scalar, Vector
  int width = 1;                                  // Vector: lanes; Scalar: 1
  std::int64_t length = 0;                        // Array
  const Layout* elem = nullptr;                   // Array
  std::vector<const Layout*> comps;               // Tuple
  std::vector<std::int64_t> comp_offsets;         // Tuple: word offset of each component
  std::int64_t words = 1;                         // size in dense storage

  /// Scalars and vectors: the leaves that views load.
  bool is_leaf() const { return kind == ir::TypeKind::Scalar || kind == ir::TypeKind::Vector; }
  bool is_array() const { return kind == ir::TypeKind::Array; }
  bool is_tuple() const { return kind == ir::TypeKind::Tuple; }
};

/// The most 32-bit words a value may occupy: its size in bytes must fit in int64.
inline constexpr std::int64_t kMaxWords = INT64_MAX / 4;

/// Refuses (a liftc::Error at `where`) to allocate `words` words for `what` (a description
/// such as "input 'a' of type [float]N") when that is more than the machine's physical memory.
void check_allocation(std::int64_t words, const std::string& what, const SourceLoc& where = {});

/// Builds and owns the layouts of one evaluation, one per type node (types are shared
/// handles, so a subtree seen twice is laid out once).
class Layouts {
 public:
  /// The layout of a type whose lengths are all constants (asserts they are); a type too
  /// large to address (kMaxWords) is a liftc::Error at `where`, the node it belongs to.
  const Layout* of(const ir::Type& t, const SourceLoc& where = {});

 private:
  struct Entry {
    ir::Type type;  // keeps the node alive, so its address stays a valid key
    std::unique_ptr<Layout> layout;
  };
  std::unordered_map<const ir::TypeNode*, Entry> cache_;
};

}  // namespace liftc::interp::detail
